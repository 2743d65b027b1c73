//! A stand-in authorization server (or protected resource) for the network verifiers' and the client's
//! tests: an in-process hyper server on 127.0.0.1 whose answers each test sets per path, and which records
//! and counts every request; and the test keys that sign its tokens (feature `oauth`).

#[cfg(feature = "oauth")]
use base64::Engine as _;
use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
#[cfg(feature = "oauth")]
use jsonwebtoken::jwk::Jwk;
#[cfg(feature = "oauth")]
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::Value;
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

type Handler = Arc<dyn Fn(&Seen) -> (u16, String) + Send + Sync>;
type FullHandler = Arc<dyn Fn(&Seen) -> Reply + Send + Sync>;

/// An answer with headers of its own (`Location`, `WWW-Authenticate`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn json(status: u16, doc: &Value) -> Self {
        Self { status, headers: Vec::new(), body: doc.to_string() }
    }

    pub fn header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_owned(), value.into()));
        self
    }
}

#[derive(Clone)]
enum Route {
    Reply {
        status: u16,
        body: String,
        location: Option<String>,
    },
    /// Never answers (for timeouts).
    Hang,
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    Handler(Handler),
    Full(FullHandler),
}

/// One request the server received.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    pub method: String,
    pub path: String,
    /// The query string, without its `?`.
    pub query: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The form body's fields, decoded.
    pub fn form(&self) -> HashMap<String, String> {
        form_urlencoded::parse(self.body.as_bytes()).into_owned().collect()
    }

    /// The query's parameters, decoded.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub fn params(&self) -> HashMap<String, String> {
        form_urlencoded::parse(self.query.as_bytes()).into_owned().collect()
    }
}

#[derive(Default)]
struct State {
    routes: HashMap<String, Route>,
    requests: Vec<Seen>,
}

pub(crate) struct MockAs {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    accept: JoinHandle<()>,
}

impl Drop for MockAs {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

impl MockAs {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        let accept = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let state = shared.clone();
                let service = service_fn(move |request| answer(state.clone(), request));
                tokio::spawn(
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service),
                );
            }
        });
        Self { addr, state, accept }
    }

    /// A loopback address nothing listens on (connections are refused).
    pub fn dead_addr() -> SocketAddr {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("local addr")
    }

    /// `http://127.0.0.1:PORT` and the path.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn route(&self, path: &str, route: Route) {
        self.state().routes.insert(path.to_owned(), route);
    }

    pub fn json(&self, path: &str, doc: Value) {
        self.reply(path, 200, &doc.to_string());
    }

    pub fn reply(&self, path: &str, status: u16, body: &str) {
        let location = (300..400).contains(&status).then(|| "/elsewhere".to_owned());
        self.route(path, Route::Reply { status, body: body.to_owned(), location });
    }

    pub fn hang(&self, path: &str) {
        self.route(path, Route::Hang);
    }

    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    pub fn handle(&self, path: &str, handler: impl Fn(&Seen) -> (u16, String) + Send + Sync + 'static) {
        self.route(path, Route::Handler(Arc::new(handler)));
    }

    /// Answers `path` with whatever `handler` makes of the request, headers included.
    pub fn handle_full(&self, path: &str, handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static) {
        self.route(path, Route::Full(Arc::new(handler)));
    }

    /// How many requests asked for `path`.
    pub fn hits(&self, path: &str) -> usize {
        self.state().requests.iter().filter(|seen| seen.path == path).count()
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.state().requests.clone()
    }

    /// The paths asked for, in order.
    pub fn paths(&self) -> Vec<String> {
        self.state().requests.iter().map(|seen| seen.path.clone()).collect()
    }
}

async fn answer(state: Arc<Mutex<State>>, request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = request.into_parts();
    let body = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let seen = Seen {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().unwrap_or("").to_owned(),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| (n.to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect(),
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let route = {
        let mut state = state.lock().unwrap_or_else(|p| p.into_inner());
        state.requests.push(seen.clone());
        state.routes.get(&seen.path).cloned()
    };
    let reply = match route {
        None => Reply { status: 404, ..Reply::default() },
        Some(Route::Reply { status, body, location }) => {
            Reply { status, headers: location.map(|l| ("location".to_owned(), l)).into_iter().collect(), body }
        }
        Some(Route::Hang) => std::future::pending().await,
        Some(Route::Handler(handler)) => {
            let (status, body) = handler(&seen);
            Reply { status, headers: Vec::new(), body }
        }
        Some(Route::Full(handler)) => handler(&seen),
    };
    let Reply { status, headers, body } = reply;
    let mut response = Response::builder().status(status).header("content-type", "application/json");
    for (name, value) in headers {
        response = response.header(name, value);
    }
    Ok(response.body(Full::new(Bytes::from(body))).expect("response"))
}

/// A test signing key from `testdata/` (public: test-only), with the key id its JWK is published under.
#[cfg(feature = "oauth")]
pub(crate) struct TestKey {
    pub kid: &'static str,
    pub alg: Algorithm,
    encoding: EncodingKey,
}

#[cfg(feature = "oauth")]
impl TestKey {
    pub fn rsa_a(kid: &'static str) -> Self {
        Self {
            kid,
            alg: Algorithm::RS256,
            encoding: EncodingKey::from_rsa_der(&der(include_str!("testdata/rsa-a.pem"))),
        }
    }

    pub fn rsa_b(kid: &'static str) -> Self {
        Self {
            kid,
            alg: Algorithm::RS256,
            encoding: EncodingKey::from_rsa_der(&der(include_str!("testdata/rsa-b.pem"))),
        }
    }

    pub fn ec(kid: &'static str) -> Self {
        Self {
            kid,
            alg: Algorithm::ES256,
            encoding: EncodingKey::from_ec_der(&der(include_str!("testdata/ec-p256.pem"))),
        }
    }

    pub fn ed(kid: &'static str) -> Self {
        Self {
            kid,
            alg: Algorithm::EdDSA,
            encoding: EncodingKey::from_ed_der(&der(include_str!("testdata/ed25519.pem"))),
        }
    }

    /// The same key under another algorithm of its family (PS256 for an RSA key, say).
    pub fn with_alg(mut self, alg: Algorithm) -> Self {
        self.alg = alg;
        self
    }

    /// A JWT of `claims` signed with this key, its header naming the key id.
    pub fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = Some(self.kid.to_owned());
        jsonwebtoken::encode(&header, claims, &self.encoding).expect("signs")
    }

    /// A JWT whose header names no key id.
    pub fn sign_without_kid(&self, claims: &Value) -> String {
        jsonwebtoken::encode(&Header::new(self.alg), claims, &self.encoding).expect("signs")
    }

    /// The public JWK, with `kid` and `alg`.
    pub fn jwk(&self) -> Value {
        let mut jwk = Jwk::from_encoding_key(&self.encoding, self.alg).expect("a public JWK");
        jwk.common.key_id = Some(self.kid.to_owned());
        serde_json::to_value(jwk).expect("JSON")
    }
}

/// A JWKS of these keys.
#[cfg(feature = "oauth")]
pub(crate) fn jwks(keys: &[&TestKey]) -> Value {
    serde_json::json!({ "keys": keys.iter().map(|k| k.jwk()).collect::<Vec<_>>() })
}

/// The DER inside a PEM file: its base64 body (test input, the keys' container, not crypto).
#[cfg(feature = "oauth")]
fn der(pem: &str) -> Vec<u8> {
    let body: String = pem.lines().filter(|line| !line.starts_with("-----")).collect();
    base64::engine::general_purpose::STANDARD.decode(body).expect("PEM body")
}

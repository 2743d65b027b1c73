//! The one HTTP client the network verifiers and the client's OAuth flow share: GET a JSON document, POST a
//! form or a JSON document, read a redirect's `Location`, each bounded in time and size, redirects never
//! followed. Every failure says what went wrong and where, and becomes
//! [`Rejected::Unavailable`]: when the authorization server cannot be asked, the token is not the client's fault.

use super::verify::Rejected;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, LOCATION, USER_AGENT};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode, Uri};
use http_body_util::{BodyExt as _, Full, LengthLimitError, Limited};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt;
use std::time::Duration;

/// How long one exchange (connect, request, whole response) may take by default.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest response body read: metadata, key sets and introspection answers are a few KiB.
pub(crate) const DEFAULT_MAX_BODY: usize = 1024 * 1024;

const AGENT: &str = concat!("fastmcp/", env!("CARGO_PKG_VERSION"));

/// The project's one way to connect over HTTP(S): https (Mozilla's roots) or plain http, HTTP/1.1 or h2 as
/// TLS negotiates, no Nagle delay. The `ring` provider is passed, not taken from the process default, which
/// is ambiguous (and panics) when the application also links rustls with aws-lc-rs.
pub(crate) fn connector(connect_timeout: Duration) -> Result<HttpsConnector<HttpConnector>, rustls::Error> {
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_connect_timeout(Some(connect_timeout));
    http.set_nodelay(true);
    // rustls 0.23.48 deprecates this provider for lacking post-quantum key exchange. It stays until the
    // move to aws-lc-rs is made deliberately, for the whole crate (JWT signing uses `ring` as well).
    #[allow(deprecated)]
    let provider = rustls::crypto::ring::default_provider();
    let builder = hyper_rustls::HttpsConnectorBuilder::new().with_provider_and_webpki_roots(provider)?;
    Ok(builder.https_or_http().enable_http1().enable_http2().wrap_connector(http))
}

/// A client for the authorization server's endpoints (https, or http for a local one).
#[derive(Clone)]
pub(crate) struct Fetcher {
    client: Option<Client<HttpsConnector<HttpConnector>, Full<Bytes>>>,
    timeout: Duration,
    max_body: usize,
}

impl Fetcher {
    pub fn new(timeout: Duration, max_body: usize) -> Self {
        let client = connector(timeout)
            .map(|connector| {
                // Idle connections are let go: the keys are fetched every few minutes at most.
                Client::builder(TokioExecutor::new())
                    .pool_timer(TokioTimer::new())
                    .pool_idle_timeout(Duration::from_secs(30))
                    .build(connector)
            })
            .inspect_err(|e| tracing::error!("auth: no TLS client for the authorization server: {e}"))
            .ok();
        Self { client, timeout, max_body }
    }

    /// The same client with another time limit for one exchange.
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    pub fn with_timeout(self, timeout: Duration) -> Self {
        Self::new(timeout, self.max_body)
    }

    /// GETs `url` and reads its body as JSON.
    pub async fn get_json<T: DeserializeOwned>(&self, url: &str) -> Result<T, FetchError> {
        self.exchange(Method::GET, url, None, None).await
    }

    /// POSTs `form` (already `application/x-www-form-urlencoded`) to `url`, authenticated with HTTP Basic
    /// when `basic` is given, and reads the answer as JSON.
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    pub async fn post_form<T: DeserializeOwned>(
        &self,
        url: &str,
        form: String,
        basic: Option<(&str, &str)>,
    ) -> Result<T, FetchError> {
        let authorization = basic.map(|(id, secret)| basic_credentials(id, secret));
        self.exchange(Method::POST, url, Some(Body::Form(form)), authorization).await
    }

    /// The same with more `headers` (a DPoP proof), answering whatever the status: the caller reads the
    /// answer's headers (a DPoP nonce) before [`Answer::json`] reads it as `post_form` would.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub async fn post_form_answer(
        &self,
        url: &str,
        form: String,
        basic: Option<(&str, &str)>,
        mut headers: Vec<(HeaderName, HeaderValue)>,
    ) -> Result<Answer, FetchError> {
        headers.extend(basic.map(|(id, secret)| (AUTHORIZATION, basic_credentials(id, secret))));
        self.send(Method::POST, url, headers, Some(Body::Form(form))).await
    }

    /// POSTs `doc` as `application/json` to `url` (dynamic client registration, RFC 7591) and reads the
    /// answer as JSON.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub async fn post_json<T: DeserializeOwned>(&self, url: &str, doc: &impl Serialize) -> Result<T, FetchError> {
        let failed = |why| FetchError { method: Method::POST, url: url.to_owned(), why };
        let json = serde_json::to_string(doc).map_err(|e| failed(Why::Json(e.to_string())))?;
        self.exchange(Method::POST, url, Some(Body::Json(json)), None).await
    }

    /// GETs `url` and returns the `Location` of the redirect it answers with, not following it: an
    /// authorization endpoint that approves without a user redirects to the client with the code.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub async fn get_redirect(&self, url: &str) -> Result<String, FetchError> {
        let failed = |why| FetchError { method: Method::GET, url: url.to_owned(), why };
        let answer = self.send(Method::GET, url, Vec::new(), None).await?;
        if !answer.status.is_redirection() {
            return Err(failed(Why::NotRedirected(answer.status.as_u16(), error_text(&answer.body))));
        }
        match answer.headers.get(LOCATION).and_then(|v| v.to_str().ok()) {
            Some(location) if !location.is_empty() => Ok(location.to_owned()),
            _ => Err(failed(Why::Redirect(answer.status.as_u16(), String::new()))),
        }
    }

    /// One exchange whatever its status: the answer's status, headers and body (bounded). `headers` are
    /// added to the request; a body comes with its content type.
    pub async fn send(
        &self,
        method: Method,
        url: &str,
        headers: Vec<(HeaderName, HeaderValue)>,
        body: Option<Body>,
    ) -> Result<Answer, FetchError> {
        let failed = |why| FetchError { method: method.clone(), url: url.to_owned(), why };
        let uri = parse_url(url).map_err(failed)?;
        let client = self.client.as_ref().ok_or_else(|| failed(Why::NoTls))?;
        let mut request = Request::builder().method(method.clone()).uri(uri).header(ACCEPT, "application/json");
        request = request.header(USER_AGENT, AGENT);
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let content = match body {
            Some(Body::Form(form)) => Some(("application/x-www-form-urlencoded", form)),
            Some(Body::Json(json)) => Some(("application/json", json)),
            None => None,
        };
        if let Some((content_type, _)) = &content {
            request = request.header(CONTENT_TYPE, *content_type);
        }
        let request = request
            .body(Full::new(Bytes::from(content.map(|(_, body)| body).unwrap_or_default())))
            .map_err(|e| failed(Why::Url(e.to_string())))?;
        let exchange = async {
            let response = client.request(request).await.map_err(|e| Why::Send(chain(&e)))?;
            let (parts, body) = response.into_parts();
            let body = match Limited::new(body, self.max_body).collect().await {
                Ok(body) => body.to_bytes(),
                // An error answer whose body can't be read still has its status to report.
                Err(_) if !parts.status.is_success() => Bytes::new(),
                Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => return Err(Why::TooLarge(self.max_body)),
                Err(e) => return Err(Why::Body(chain(&*e))),
            };
            Ok(Answer { status: parts.status, headers: parts.headers, body })
        };
        match tokio::time::timeout(self.timeout, exchange).await {
            Ok(result) => result.map_err(failed),
            Err(_) => Err(failed(Why::TimedOut(self.timeout))),
        }
    }

    async fn exchange<T: DeserializeOwned>(
        &self,
        method: Method,
        url: &str,
        body: Option<Body>,
        authorization: Option<HeaderValue>,
    ) -> Result<T, FetchError> {
        let headers = authorization.map(|value| (AUTHORIZATION, value)).into_iter().collect();
        self.send(method.clone(), url, headers, body).await?.json(method, url)
    }
}

/// A request body, with the media type it is sent as.
pub(crate) enum Body {
    Form(String),
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    Json(String),
}

/// What an exchange answered.
pub(crate) struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Answer {
    /// The body of a successful answer to `method url` as JSON; a redirect (never followed) or another
    /// status is the failure it is.
    pub fn json<T: DeserializeOwned>(&self, method: Method, url: &str) -> Result<T, FetchError> {
        let failed = |why| FetchError { method, url: url.to_owned(), why };
        let status = self.status;
        if status.is_redirection() {
            let location = self.headers.get(LOCATION).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
            return Err(failed(Why::Redirect(status.as_u16(), location)));
        }
        if !status.is_success() {
            // The status says what went wrong; an OAuth error body, if one came whole, says more.
            return Err(failed(Why::Status(status.as_u16(), error_text(&self.body))));
        }
        serde_json::from_slice(&self.body).map_err(|e| failed(Why::Json(e.to_string())))
    }
}

/// `Basic base64(id:secret)`, each part form-urlencoded first as RFC 6749 §2.3.1 says (a `:` in the id
/// would otherwise split it wrongly). Marked sensitive so it is never logged.
fn basic_credentials(id: &str, secret: &str) -> HeaderValue {
    let encoded = format!("{}:{}", form_encode(id), form_encode(secret));
    let mut value = HeaderValue::try_from(format!("Basic {}", STANDARD.encode(encoded)))
        .unwrap_or_else(|_| HeaderValue::from_static("Basic"));
    value.set_sensitive(true);
    value
}

fn form_encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

fn parse_url(url: &str) -> Result<Uri, Why> {
    let uri: Uri = url.parse().map_err(|e: http::uri::InvalidUri| Why::Url(e.to_string()))?;
    match uri.scheme_str() {
        Some("https" | "http") if uri.host().is_some() => Ok(uri),
        _ => Err(Why::Url("not an absolute http(s) URL".to_owned())),
    }
}

/// What an error answer's body says: an OAuth error (and its description), else a short text as it is.
fn error_text(body: &[u8]) -> Option<String> {
    oauth_error(body).or_else(|| {
        let text = std::str::from_utf8(body).ok()?.trim();
        let text: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        (!text.is_empty() && text.chars().count() <= 200).then_some(text)
    })
}

/// An OAuth error response's `error` (and description), to say why the server refused.
fn oauth_error(body: &[u8]) -> Option<String> {
    let doc: serde_json::Value = serde_json::from_slice(body).ok()?;
    let error = doc.get("error")?.as_str()?;
    Some(match doc.get("error_description").and_then(|d| d.as_str()) {
        Some(description) => format!("{error}: {description}"),
        None => error.to_owned(),
    })
}

/// An error and its causes on one line: hyper's own top-level message ("client error (Connect)") says little.
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// A request to the authorization server that did not give a usable answer.
#[derive(Debug)]
pub(crate) struct FetchError {
    method: Method,
    url: String,
    pub(crate) why: Why,
}

#[derive(Debug)]
pub(crate) enum Why {
    Url(String),
    NoTls,
    Send(String),
    TimedOut(Duration),
    Redirect(u16, String),
    /// A status other than the redirect asked for, and what its body said.
    NotRedirected(u16, Option<String>),
    Status(u16, Option<String>),
    TooLarge(usize),
    Body(String),
    Json(String),
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: ", self.method, self.url)?;
        match &self.why {
            Why::Url(why) => write!(f, "bad URL: {why}"),
            Why::NoTls => f.write_str("no TLS client could be built"),
            Why::Send(why) => write!(f, "request failed: {why}"),
            Why::TimedOut(after) => write!(f, "no answer within {after:?}"),
            Why::Redirect(status, to) if to.is_empty() => write!(f, "HTTP {status} redirect without a Location"),
            Why::Redirect(status, to) => write!(f, "HTTP {status} redirect to `{to}` not followed"),
            Why::NotRedirected(status, Some(error)) => {
                write!(f, "HTTP {status} ({error}) where a redirect was expected")
            }
            Why::NotRedirected(status, None) => write!(f, "HTTP {status} where a redirect was expected"),
            Why::Status(status, Some(error)) => write!(f, "HTTP {status} ({error})"),
            Why::Status(status, None) => write!(f, "HTTP {status}"),
            Why::TooLarge(cap) => write!(f, "response body over {cap} bytes"),
            Why::Body(why) => write!(f, "reading the response failed: {why}"),
            Why::Json(why) => write!(f, "response is not the JSON expected: {why}"),
        }
    }
}

impl From<FetchError> for Rejected {
    fn from(error: FetchError) -> Self {
        Rejected::Unavailable(error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::test_as::{MockAs, Reply};
    use serde_json::{Value, json};

    fn fetcher() -> Fetcher {
        Fetcher::new(Duration::from_millis(500), 64)
    }

    #[tokio::test]
    async fn gets_json() {
        let mock = MockAs::start().await;
        mock.json("/doc", json!({"a": 1}));
        let doc: Value = fetcher().get_json(&mock.url("/doc")).await.expect("fetched");
        assert_eq!(doc, json!({"a": 1}));
        let seen = mock.requests();
        assert_eq!(seen[0].method, "GET");
        assert_eq!(seen[0].header("accept"), Some("application/json"));
    }

    #[tokio::test]
    async fn failures_are_precise_and_unavailable() {
        let mock = MockAs::start().await;
        mock.reply("/missing", 404, r#"{"error":"not_found"}"#);
        mock.reply("/moved", 302, "");
        mock.reply("/big", 200, &format!("\"{}\"", "x".repeat(100)));
        mock.reply("/text", 200, "<html>");
        mock.reply("/huge-error", 500, &"x".repeat(100));
        mock.hang("/slow");
        let f = fetcher();
        let why = |url: String| {
            let f = f.clone();
            async move { f.get_json::<Value>(&url).await.expect_err("fails").why }
        };
        assert!(matches!(why(mock.url("/missing")).await, Why::Status(404, Some(e)) if e == "not_found"));
        assert!(matches!(why(mock.url("/moved")).await, Why::Redirect(302, to) if to == "/elsewhere"));
        assert_eq!(mock.hits("/elsewhere"), 0, "redirects are not followed");
        assert!(matches!(why(mock.url("/big")).await, Why::TooLarge(64)));
        assert!(matches!(why(mock.url("/text")).await, Why::Json(_)));
        assert!(matches!(why(mock.url("/huge-error")).await, Why::Status(500, None)), "the status, not the size");
        assert!(matches!(why(mock.url("/slow")).await, Why::TimedOut(_)));
        assert!(matches!(why("ftp://x/y".into()).await, Why::Url(_)));
        assert!(matches!(why(format!("http://{}/", MockAs::dead_addr())).await, Why::Send(_)));
        // https runs TLS (ring, webpki roots): against the plain-HTTP mock the handshake fails, cleanly.
        let tls = why(mock.url("/missing").replacen("http:", "https:", 1)).await;
        assert!(matches!(&tls, Why::Send(e) if e.contains("InvalidContentType") || e.contains("corrupt")), "{tls:?}");
        let rejected = Rejected::from(f.get_json::<Value>(&mock.url("/missing")).await.expect_err("fails"));
        let Rejected::Unavailable(detail) = rejected else { panic!("{rejected:?}") };
        assert!(
            detail.starts_with("GET http://127.0.0.1:") && detail.ends_with("/missing: HTTP 404 (not_found)"),
            "{detail}"
        );
    }

    #[tokio::test]
    async fn posts_forms_with_basic_credentials() {
        let mock = MockAs::start().await;
        mock.json("/form", json!({"ok": true}));
        let form = "token=a%2Bb&x=y".to_owned();
        let _: Value = fetcher().post_form(&mock.url("/form"), form, Some(("id:1", "s p"))).await.expect("posted");
        let seen = &mock.requests()[0];
        assert_eq!(seen.method, "POST");
        assert_eq!(seen.body, "token=a%2Bb&x=y");
        assert_eq!(seen.header("content-type"), Some("application/x-www-form-urlencoded"));
        // RFC 6749 §2.3.1: id and secret are form-encoded before they are joined with `:`.
        let expected = format!("Basic {}", STANDARD.encode("id%3A1:s+p"));
        assert_eq!(seen.header("authorization"), Some(expected.as_str()));
    }

    #[tokio::test]
    async fn posts_json_and_reads_redirects_without_following_them() {
        let mock = MockAs::start().await;
        mock.handle_full("/register", |seen| Reply::json(201, &json!({ "got": seen.body })));
        let answer: Value = fetcher().post_json(&mock.url("/register"), &json!({"a": 1})).await.expect("posted");
        assert_eq!(answer, json!({ "got": "{\"a\":1}" }));
        assert_eq!(mock.requests()[0].header("content-type"), Some("application/json"));

        mock.handle_full("/authorize", |seen| {
            Reply { status: 302, ..Reply::default() }
                .header("location", format!("http://127.0.0.1:1/cb?{}", seen.query))
        });
        let location = fetcher().get_redirect(&mock.url("/authorize?code=1")).await.expect("redirected");
        assert_eq!(location, "http://127.0.0.1:1/cb?code=1");
        assert_eq!(mock.hits("/cb"), 0);
        mock.reply("/approved", 200, "{}");
        mock.reply("/denied", 400, "Bad client");
        mock.handle_full("/nowhere", |_| Reply { status: 302, ..Reply::default() });
        let why = |path: &'static str| {
            let url = mock.url(path);
            async move { fetcher().get_redirect(&url).await.expect_err("no redirect").why }
        };
        assert!(matches!(why("/approved").await, Why::NotRedirected(200, _)));
        // A body that is no OAuth error still says what it says.
        let denied = why("/denied").await;
        assert!(matches!(&denied, Why::NotRedirected(400, Some(text)) if text == "Bad client"), "{denied:?}");
        assert!(matches!(why("/nowhere").await, Why::Redirect(302, to) if to.is_empty()));
    }
}

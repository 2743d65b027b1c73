//! The one HTTP client the network verifiers share: GET a JSON document, POST a form, each bounded in time
//! and size, redirects not followed. Every failure says what went wrong and where, and becomes
//! [`Rejected::Unavailable`]: when the authorization server cannot be asked, the token is not the client's fault.

use super::verify::Rejected;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, LOCATION, USER_AGENT};
use http::{HeaderValue, Method, Request, Uri};
use http_body_util::{BodyExt as _, Full, LengthLimitError, Limited};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use serde::de::DeserializeOwned;
use std::fmt;
use std::time::Duration;

/// How long one exchange (connect, request, whole response) may take by default.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest response body read: metadata, key sets and introspection answers are a few KiB.
pub(crate) const DEFAULT_MAX_BODY: usize = 1024 * 1024;

const AGENT: &str = concat!("fastmcp/", env!("CARGO_PKG_VERSION"));

/// A client for the authorization server's endpoints (https, or http for a local one).
#[derive(Clone)]
pub(crate) struct Fetcher {
    client: Option<Client<HttpsConnector<HttpConnector>, Full<Bytes>>>,
    timeout: Duration,
    max_body: usize,
}

impl Fetcher {
    pub fn new(timeout: Duration, max_body: usize) -> Self {
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_connect_timeout(Some(timeout));
        // The provider is passed, not taken from the process default, which is ambiguous (and panics) when
        // the application also links rustls with aws-lc-rs.
        let client = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
            .map(|builder| {
                let connector = builder.https_or_http().enable_http1().wrap_connector(http);
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
    pub fn with_timeout(self, timeout: Duration) -> Self {
        Self::new(timeout, self.max_body)
    }

    /// GETs `url` and reads its body as JSON.
    pub async fn get_json<T: DeserializeOwned>(&self, url: &str) -> Result<T, FetchError> {
        self.exchange(Method::GET, url, None, None).await
    }

    /// POSTs `form` (already `application/x-www-form-urlencoded`) to `url`, authenticated with HTTP Basic
    /// when `basic` is given, and reads the answer as JSON.
    pub async fn post_form<T: DeserializeOwned>(
        &self,
        url: &str,
        form: String,
        basic: Option<(&str, &str)>,
    ) -> Result<T, FetchError> {
        let authorization = basic.map(|(id, secret)| basic_credentials(id, secret));
        self.exchange(Method::POST, url, Some(form), authorization).await
    }

    async fn exchange<T: DeserializeOwned>(
        &self,
        method: Method,
        url: &str,
        form: Option<String>,
        authorization: Option<HeaderValue>,
    ) -> Result<T, FetchError> {
        let failed = |why| FetchError { method: method.clone(), url: url.to_owned(), why };
        let uri = parse_url(url).map_err(failed)?;
        let client = self.client.as_ref().ok_or_else(|| failed(Why::NoTls))?;
        let mut request = Request::builder().method(method.clone()).uri(uri).header(ACCEPT, "application/json");
        request = request.header(USER_AGENT, AGENT);
        if let Some(value) = authorization {
            request = request.header(AUTHORIZATION, value);
        }
        if form.is_some() {
            request = request.header(CONTENT_TYPE, "application/x-www-form-urlencoded");
        }
        let request = request
            .body(Full::new(Bytes::from(form.unwrap_or_default())))
            .map_err(|e| failed(Why::Url(e.to_string())))?;
        let exchange = async {
            let response = client.request(request).await.map_err(|e| Why::Send(chain(&e)))?;
            let status = response.status();
            if status.is_redirection() {
                let location = response.headers().get(LOCATION).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
                return Err(Why::Redirect(status.as_u16(), location));
            }
            let body = Limited::new(response.into_body(), self.max_body).collect().await.map(|b| b.to_bytes());
            if !status.is_success() {
                // The status says what went wrong; an OAuth error body, if one came whole, says more.
                return Err(Why::Status(status.as_u16(), body.ok().and_then(|b| oauth_error(&b))));
            }
            let body = body.map_err(|e| match e.downcast_ref::<LengthLimitError>() {
                Some(_) => Why::TooLarge(self.max_body),
                None => Why::Body(chain(&*e)),
            })?;
            serde_json::from_slice(&body).map_err(|e| Why::Json(e.to_string()))
        };
        match tokio::time::timeout(self.timeout, exchange).await {
            Ok(result) => result.map_err(failed),
            Err(_) => Err(failed(Why::TimedOut(self.timeout))),
        }
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
fn chain(error: &dyn std::error::Error) -> String {
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
            Why::Redirect(status, to) => write!(f, "HTTP {status} redirect to `{to}` not followed"),
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
    use crate::auth::test_as::MockAs;
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
}

//! Streamable HTTP on hyper 1: one endpoint serving legacy sessions and modern stateless requests at once.
//!
//! This is the first cut: POST with JSON responses in both eras, sessions minted on `initialize`, DELETE to end
//! one, the modern header checks, DNS-rebinding checks and the body cap. SSE streams (progress and logs on the
//! request's own stream, server-to-client requests for the legacy shim, the standalone GET stream,
//! resumption) are the next step; until then GET answers 405 and a legacy session cannot push requests.

mod headers;

use crate::era::{self, Connection, Status};
use crate::protocol::{ErrorObject, Inbound, Request, RequestId, codes, error_json};
use crate::server::Server;
use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

type Body = BoxBody<Bytes, Infallible>;
type Response = hyper::Response<Body>;

/// Messages queued on one SSE response before the handler waits for the client to read.
const SSE_QUEUE: usize = 64;

/// Where the endpoint listens.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// The MCP endpoint's path (default `/mcp`).
    pub path: String,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self { addr: SocketAddr::from(([127, 0, 0, 1], 8000)), path: "/mcp".into() }
    }
}

struct Endpoint {
    server: Server,
    path: String,
    /// Check `Host` and `Origin` against DNS rebinding: on for loopback binds.
    local_only: bool,
    sessions: Mutex<HashMap<String, Session>>,
}

/// A legacy session and when it was last used (idle sessions are reaped).
struct Session {
    conn: Arc<Connection>,
    last_used: Instant,
}

/// Serves until SIGINT or SIGTERM, then lets requests in flight finish.
pub(crate) async fn serve(server: Server, options: HttpOptions) -> std::io::Result<()> {
    let listener = TcpListener::bind(options.addr).await?;
    let bound = listener.local_addr()?;
    tracing::info!("serving MCP on http://{bound}{} (both eras: initialize, or _meta per request)", options.path);
    let endpoint = Arc::new(Endpoint {
        server,
        path: options.path,
        local_only: bound.ip().is_loopback(),
        sessions: Mutex::new(HashMap::new()),
    });
    tokio::spawn(reap_idle_sessions(Arc::downgrade(&endpoint)));
    let graceful = GracefulShutdown::new();
    let builder = auto::Builder::new(TokioExecutor::new());
    let mut shutdown = std::pin::pin!(shutdown_signal());
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, _) = match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        tracing::warn!("accept failed: {e}");
                        continue;
                    }
                };
                let endpoint = endpoint.clone();
                let service = hyper::service::service_fn(move |req| {
                    let endpoint = endpoint.clone();
                    async move { Ok::<_, std::convert::Infallible>(endpoint.handle(req).await) }
                });
                let conn = builder.serve_connection(TokioIo::new(stream), service).into_owned();
                let conn = graceful.watch(conn);
                tokio::spawn(async move {
                    if let Err(e) = conn.await {
                        tracing::debug!("connection ended: {e}");
                    }
                });
            }
            () = &mut shutdown => break,
        }
    }
    tracing::info!("shutting down: finishing requests in flight");
    // Subscriptions and standalone streams never end on their own: end them so the connections can close.
    endpoint.server.inner.closing.cancel();
    graceful.shutdown().await;
    Ok(())
}

/// Ends sessions idle longer than `FastMcp::session_idle_timeout`, until the endpoint is gone.
async fn reap_idle_sessions(endpoint: std::sync::Weak<Endpoint>) {
    loop {
        let Some(idle) = endpoint.upgrade().map(|e| e.server.options().session_idle_timeout) else { return };
        tokio::time::sleep((idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(60))).await;
        let Some(endpoint) = endpoint.upgrade() else { return };
        let expired: Vec<Session> = {
            let mut sessions = endpoint.sessions();
            let ids: Vec<String> =
                sessions.iter().filter(|(_, s)| s.last_used.elapsed() > idle).map(|(id, _)| id.clone()).collect();
            ids.iter().filter_map(|id| sessions.remove(id)).collect()
        };
        if !expired.is_empty() {
            tracing::debug!("ended {} idle session(s)", expired.len());
        }
    }
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = match signal(SignalKind::terminate()) {
            Ok(term) => term,
            Err(_) => return std::future::pending().await,
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn json(status: StatusCode, body: String) -> Response {
    let mut response = hyper::Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn error(status: StatusCode, id: Option<&RequestId>, e: &ErrorObject) -> Response {
    json(status, error_json(id, e))
}

fn empty(status: StatusCode) -> Response {
    let mut response = hyper::Response::new(Full::new(Bytes::new()).boxed());
    *response.status_mut() = status;
    response
}

impl Endpoint {
    async fn handle(&self, req: hyper::Request<Incoming>) -> Response {
        if req.uri().path() != self.path {
            return empty(StatusCode::NOT_FOUND);
        }
        if let Some(rejected) = self.check_origin(req.headers()) {
            return rejected;
        }
        match *req.method() {
            Method::POST => self.post(req).await,
            Method::DELETE => self.delete(req.headers()),
            _ => {
                let mut response = empty(StatusCode::METHOD_NOT_ALLOWED);
                response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST, DELETE"));
                response
            }
        }
    }

    /// DNS-rebinding protection, on for loopback binds: 403 as the spec names.
    fn check_origin(&self, headers: &HeaderMap) -> Option<Response> {
        if !self.local_only || headers::local_origin(headers) {
            return None;
        }
        let e = ErrorObject::new(codes::INVALID_REQUEST, "Forbidden: Host or Origin is not a local address");
        Some(error(StatusCode::FORBIDDEN, None, &e))
    }

    async fn post(&self, req: hyper::Request<Incoming>) -> Response {
        let headers = req.headers().clone();
        let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
        if !content_type.trim_start().to_ascii_lowercase().starts_with("application/json") {
            let e = ErrorObject::invalid_request("Content-Type must be application/json");
            return error(StatusCode::UNSUPPORTED_MEDIA_TYPE, None, &e);
        }
        let accept = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase();
        if !(accept.contains("application/json") || accept.contains("*/*")) {
            let e = ErrorObject::invalid_request("Accept must list application/json and text/event-stream");
            return error(StatusCode::NOT_ACCEPTABLE, None, &e);
        }
        let max = self.server.options().max_message_bytes;
        let body = match Limited::new(req.into_body(), max).collect().await {
            Ok(body) => body.to_bytes(),
            Err(e) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => {
                let e = ErrorObject::invalid_request(format!(
                    "the body exceeds the server's limit of {max} bytes (FastMcp::max_message_bytes)"
                ));
                return error(StatusCode::PAYLOAD_TOO_LARGE, None, &e);
            }
            Err(e) => return error(StatusCode::BAD_REQUEST, None, &ErrorObject::invalid_request(e)),
        };
        let Ok(text) = std::str::from_utf8(&body) else {
            return error(StatusCode::BAD_REQUEST, None, &ErrorObject::parse_error("the body is not UTF-8"));
        };
        match Inbound::parse(text) {
            Err(rejected) => error(StatusCode::BAD_REQUEST, rejected.id.as_ref(), &rejected.error),
            Ok(Inbound::Request(req)) => match era::modern_claim(req.params.as_deref()) {
                Some(meta) => self.modern(&headers, req, meta).await,
                // A modern version header with no envelope in the body: the envelope is missing, not legacy.
                None if headers::claims_modern(&headers) => {
                    let missing = [crate::protocol::META_PROTOCOL_VERSION, crate::protocol::META_CLIENT_CAPABILITIES];
                    let e = ErrorObject::invalid_params(format!("Missing required _meta keys: {}", missing.join(", ")))
                        .with_data(serde_json::json!({ "missing": missing }));
                    error(StatusCode::BAD_REQUEST, Some(&req.id), &e)
                }
                None => self.legacy(&headers, req).await,
            },
            Ok(Inbound::Notification(note)) => {
                if let Some(conn) = self.session(&headers) {
                    conn.notification(note);
                }
                empty(StatusCode::ACCEPTED)
            }
            Ok(Inbound::Response { id, outcome }) => {
                if let Some(conn) = self.session(&headers) {
                    conn.response(&id, outcome);
                }
                empty(StatusCode::ACCEPTED)
            }
        }
    }

    /// A modern request: the standard headers must agree with the body (`-32020`), then it is served
    /// statelessly.
    async fn modern(&self, headers: &HeaderMap, req: Request, meta: crate::protocol::JsonObject) -> Response {
        if let Err(mismatch) = headers::check_modern(&self.server, headers, &req, &meta) {
            let e = ErrorObject::new(codes::HEADER_MISMATCH, format!("Header mismatch: {mismatch}"));
            return error(StatusCode::BAD_REQUEST, Some(&req.id), &e);
        }
        // Progress and logs need a stream to travel on: a request that asked for either gets SSE.
        let streams = meta.contains_key(crate::protocol::META_PROGRESS_TOKEN)
            || meta.contains_key(crate::protocol::META_LOG_LEVEL)
            || req.method == era::modern::LISTEN;
        if !streams {
            let (line, status) = era::serve_stateless(&self.server, req, meta, None, CancellationToken::new()).await;
            return json(http_status(status), line);
        }
        let server = self.server.clone();
        sse(move |tx| async move {
            // Closing the response stream is cancellation on the modern protocol.
            let cancel = CancellationToken::new();
            let serve = era::serve_stateless(&server, req, meta, Some(&tx), cancel.clone());
            tokio::select! {
                (line, _) = serve => {
                    let _ = tx.send(line).await;
                }
                () = tx.closed() => cancel.cancel(),
            }
        })
    }

    /// A legacy request: `initialize` opens a session (its id in `Mcp-Session-Id`); later requests name it.
    async fn legacy(&self, headers: &HeaderMap, req: Request) -> Response {
        if req.method == "initialize" {
            if headers.contains_key(headers::SESSION) {
                let e = ErrorObject::invalid_request("initialize opens a new session: send it without Mcp-Session-Id");
                return error(StatusCode::BAD_REQUEST, Some(&req.id), &e);
            }
            let max = self.server.options().max_sessions;
            if self.sessions().len() >= max {
                let e = ErrorObject::internal(format!(
                    "the server has reached its limit of {max} sessions (FastMcp::max_sessions); try again later"
                ));
                return error(StatusCode::SERVICE_UNAVAILABLE, Some(&req.id), &e);
            }
            let conn = Arc::new(Connection::detached(self.server.clone()));
            let Some(line) = conn.request(req).await else { return empty(StatusCode::ACCEPTED) };
            let id = new_session_id();
            self.sessions().insert(id.clone(), Session { conn, last_used: Instant::now() });
            let mut response = json(StatusCode::OK, line);
            if let Ok(value) = HeaderValue::from_str(&id) {
                response.headers_mut().insert(headers::SESSION, value);
            }
            return response;
        }
        if req.method == "server/discover" && !headers.contains_key(headers::SESSION) {
            let conn = Connection::detached(self.server.clone());
            return match conn.request(req).await {
                Some(line) => json(StatusCode::OK, line),
                None => empty(StatusCode::ACCEPTED),
            };
        }
        if !headers.contains_key(headers::SESSION) {
            let e = ErrorObject::invalid_request(
                "Missing Mcp-Session-Id: send initialize first, or a modern request with _meta \
                 io.modelcontextprotocol/protocolVersion",
            );
            return error(StatusCode::BAD_REQUEST, Some(&req.id), &e);
        }
        let Some(conn) = self.session(headers) else {
            let e = ErrorObject::new(-32001, "Session not found");
            return error(StatusCode::NOT_FOUND, Some(&req.id), &e);
        };
        // Handlers may log, report progress or (through the shim) ask the client: their response is an SSE
        // stream carrying those messages, then the result. A disconnect is not a cancellation here.
        if matches!(req.method.as_str(), "tools/call" | "prompts/get" | "resources/read") {
            return sse(move |tx| async move {
                if let Some(line) = conn.request_on(req, tx.clone()).await {
                    let _ = tx.send(line).await;
                }
            });
        }
        match conn.request(req).await {
            Some(line) => json(StatusCode::OK, line),
            None => empty(StatusCode::ACCEPTED),
        }
    }

    fn delete(&self, headers: &HeaderMap) -> Response {
        let Some(id) = headers.get(headers::SESSION).and_then(|v| v.to_str().ok()) else {
            return error(StatusCode::BAD_REQUEST, None, &ErrorObject::invalid_request("Missing Mcp-Session-Id"));
        };
        match self.sessions().remove(id) {
            // Dropping the last handle ends the session and runs its `on_close` callbacks.
            Some(_) => empty(StatusCode::OK),
            None => error(StatusCode::NOT_FOUND, None, &ErrorObject::new(-32001, "Session not found")),
        }
    }

    /// The session a request names, marked as used now.
    fn session(&self, headers: &HeaderMap) -> Option<Arc<Connection>> {
        let id = headers.get(headers::SESSION)?.to_str().ok()?;
        let mut sessions = self.sessions();
        let session = sessions.get_mut(id)?;
        session.last_used = Instant::now();
        Some(session.conn.clone())
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
        self.sessions.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn http_status(status: Status) -> StatusCode {
    match status {
        Status::Ok => StatusCode::OK,
        Status::BadRequest => StatusCode::BAD_REQUEST,
        Status::NotFound => StatusCode::NOT_FOUND,
    }
}

/// An SSE response whose messages `produce` sends (each a JSON-RPC message); the stream ends when it returns.
fn sse<F, Fut>(produce: F) -> Response
where
    F: FnOnce(mpsc::Sender<String>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = mpsc::channel(SSE_QUEUE);
    tokio::spawn(produce(tx));
    let mut response = hyper::Response::new(SseBody { rx }.boxed());
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// Frames each queued JSON-RPC message as one SSE `message` event.
struct SseBody {
    rx: mpsc::Receiver<String>,
}

impl hyper::body::Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Infallible>>> {
        self.rx.poll_recv(cx).map(|message| {
            message.map(|json| Ok(hyper::body::Frame::data(Bytes::from(format!("event: message\ndata: {json}\n\n")))))
        })
    }
}

/// 128 random bits as 32 hex characters (visible ASCII, as the spec requires).
fn new_session_id() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // Without the OS's randomness a session id would be guessable; a process-unique fallback at least
        // keeps sessions apart, and the failure is logged.
        tracing::error!("the OS random source failed; session ids are not unpredictable");
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        bytes[..8].copy_from_slice(&NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed).to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

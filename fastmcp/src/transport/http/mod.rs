//! Streamable HTTP on hyper 1: one endpoint serving legacy sessions and modern stateless requests at once.
//!
//! Each request is classified by its body (`_meta` claiming a modern version), with the headers as a
//! cross-check. Modern requests are served statelessly (JSON, or SSE when they asked for progress, logs or a
//! subscription). Legacy requests belong to a session minted on `initialize` whose streams are resumable
//! (`Last-Event-ID`), or, with [`HttpOptions::sessions`] off, are each served alone.

mod headers;
mod session;
mod sse;

use crate::era::{self, Connection, Status};
use crate::protocol::{ErrorObject, Inbound, JsonObject, ProtocolVersion, Request, RequestId, codes, error_json};
use crate::server::Server;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use session::Sessions;
use sse::{EventLog, Response, Retention};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// Where and how the endpoint serves.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// The MCP endpoint's path (default `/mcp`).
    pub path: String,
    /// Legacy clients get sessions (default). Off, every legacy request is served alone: no
    /// `Mcp-Session-Id`, `GET` and `DELETE` answer 405, nothing can be pushed to the client, and only
    /// state-only `.ask()` rounds work — any replica can serve any request. Modern requests are stateless
    /// either way.
    pub sessions: bool,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self { addr: SocketAddr::from(([127, 0, 0, 1], 8000)), path: "/mcp".into(), sessions: true }
    }
}

/// A session's connection and its streams.
type SessionRef = (Arc<Connection>, Arc<EventLog>);

struct Endpoint {
    server: Server,
    path: String,
    /// Check `Host` and `Origin` against DNS rebinding: on for loopback binds.
    local_only: bool,
    /// `None` when legacy requests are served without sessions.
    sessions: Option<Sessions>,
}

/// Serves until SIGINT or SIGTERM, then lets requests in flight finish.
pub(crate) async fn serve(server: Server, options: HttpOptions) -> std::io::Result<()> {
    let listener = TcpListener::bind(options.addr).await?;
    let bound = listener.local_addr()?;
    let mode = if options.sessions { "legacy sessions" } else { "legacy without sessions" };
    tracing::info!("serving MCP on http://{bound}{} (modern per request, {mode})", options.path);
    let endpoint = Arc::new(Endpoint {
        server,
        path: options.path,
        local_only: bound.ip().is_loopback(),
        sessions: options.sessions.then(Sessions::default),
    });
    if endpoint.sessions.is_some() {
        tokio::spawn(reap_idle_sessions(Arc::downgrade(&endpoint)));
    }
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
                // SSE answers go out in several writes; with Nagle's algorithm each later one waits for the
                // client's delayed ACK (~40 ms a response).
                if let Err(e) = stream.set_nodelay(true) {
                    tracing::debug!("TCP_NODELAY not set: {e}");
                }
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
    if let Some(sessions) = &endpoint.sessions {
        sessions.clear();
    }
    graceful.shutdown().await;
    Ok(())
}

/// Ends sessions idle longer than `FastMcp::session_idle_timeout`, until the endpoint is gone.
async fn reap_idle_sessions(endpoint: std::sync::Weak<Endpoint>) {
    loop {
        let Some(idle) = endpoint.upgrade().map(|e| e.server.options().session_idle_timeout) else { return };
        tokio::time::sleep((idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(60))).await;
        let Some(endpoint) = endpoint.upgrade() else { return };
        let Some(sessions) = &endpoint.sessions else { return };
        let ended = sessions.reap(idle);
        if ended > 0 {
            tracing::debug!("ended {ended} idle session(s)");
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

fn method_not_allowed(allow: &'static str) -> Response {
    let mut response = empty(StatusCode::METHOD_NOT_ALLOWED);
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

fn sessions_full(id: &RequestId, max: usize) -> Response {
    let e = ErrorObject::internal(format!(
        "the server has reached its limit of {max} sessions (FastMcp::max_sessions); try again later"
    ));
    error(StatusCode::SERVICE_UNAVAILABLE, Some(id), &e)
}

fn session_not_found(id: Option<&RequestId>) -> Response {
    error(StatusCode::NOT_FOUND, id, &ErrorObject::new(-32001, "Session not found"))
}

/// Whether `Accept` lists `media` or a wildcard that covers it (`*/*`, `type/*`).
fn accepts(headers: &HeaderMap, media: &str) -> bool {
    let accept = headers::text(headers, header::ACCEPT.as_str()).unwrap_or("").to_ascii_lowercase();
    let kind = media.split('/').next().unwrap_or("");
    accept
        .split(',')
        .map(|m| m.split(';').next().unwrap_or("").trim())
        .any(|m| m == media || m == "*/*" || m.strip_suffix("/*").is_some_and(|t| t == kind))
}

impl Endpoint {
    async fn handle(&self, req: hyper::Request<Incoming>) -> Response {
        if req.uri().path() != self.path {
            return empty(StatusCode::NOT_FOUND);
        }
        if self.local_only && !headers::local_origin(req.headers()) {
            let e = ErrorObject::new(codes::INVALID_REQUEST, "Forbidden: Host or Origin is not a local address");
            return error(StatusCode::FORBIDDEN, None, &e);
        }
        let stateful = self.sessions.is_some();
        match *req.method() {
            Method::POST => self.post(req).await,
            Method::GET if stateful => self.get(req.headers()),
            Method::DELETE if stateful => self.delete(req.headers()),
            _ if stateful => method_not_allowed("GET, POST, DELETE"),
            _ => method_not_allowed("POST"),
        }
    }

    async fn post(&self, req: hyper::Request<Incoming>) -> Response {
        let headers = req.headers().clone();
        let content_type = headers::text(&headers, header::CONTENT_TYPE.as_str()).unwrap_or("");
        if !content_type.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json") {
            let e = ErrorObject::invalid_request("Content-Type must be application/json");
            return error(StatusCode::UNSUPPORTED_MEDIA_TYPE, None, &e);
        }
        // Both, as the spec requires of clients: the answer may be either.
        if !accepts(&headers, "application/json") || !accepts(&headers, "text/event-stream") {
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
            Ok(Inbound::Notification(note)) => self.to_session(&headers, |conn| conn.notification(note)),
            Ok(Inbound::Response { id, outcome }) => self.to_session(&headers, |conn| conn.response(&id, outcome)),
        }
    }

    /// A modern request: the standard headers must agree with the body (`-32020`), then it is served
    /// statelessly.
    async fn modern(&self, headers: &HeaderMap, req: Request, meta: JsonObject) -> Response {
        if let Err(mismatch) = headers::check_modern(&self.server, headers, &req, &meta) {
            let e = ErrorObject::new(codes::HEADER_MISMATCH, format!("Header mismatch: {mismatch}"));
            return error(StatusCode::BAD_REQUEST, Some(&req.id), &e);
        }
        // Progress, logs and subscriptions need a stream to travel on.
        let listen = req.method == era::modern::LISTEN;
        let streams = listen
            || meta.contains_key(crate::protocol::META_PROGRESS_TOKEN)
            || meta.contains_key(crate::protocol::META_LOG_LEVEL);
        if !streams {
            let (line, status) = era::serve_stateless(&self.server, req, meta, None, CancellationToken::new()).await;
            return json(http_status(status), line);
        }
        let server = self.server.clone();
        let keep_alive = listen.then_some(server.options().keep_alive);
        sse::live(keep_alive, move |tx| async move {
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
    /// Without sessions, each request is served alone.
    async fn legacy(&self, headers: &HeaderMap, req: Request) -> Response {
        let Some(sessions) = &self.sessions else { return self.legacy_alone(headers, req).await };
        if req.method == "initialize" {
            if headers.contains_key(headers::SESSION) {
                let e = ErrorObject::invalid_request("initialize opens a new session: send it without Mcp-Session-Id");
                return error(StatusCode::BAD_REQUEST, Some(&req.id), &e);
            }
            let options = self.server.options();
            if sessions.len() >= options.max_sessions {
                return sessions_full(&req.id, options.max_sessions);
            }
            let log =
                EventLog::new(Retention { events: options.sse_replay_events, streams: options.sse_replay_streams });
            // Messages unrelated to any request (list changes) go on the session's standalone stream.
            let conn = Arc::new(Connection::new(self.server.clone(), log.standalone(), false));
            let request_id = req.id.clone();
            let Some(line) = conn.request(req).await else { return empty(StatusCode::ACCEPTED) };
            // Checked again as the session is stored: concurrent `initialize`s cannot overshoot the limit.
            let Some(id) = sessions.insert(conn.clone(), log, options.max_sessions) else {
                return sessions_full(&request_id, options.max_sessions);
            };
            conn.forward_changes();
            let mut response = json(StatusCode::OK, line);
            if let Ok(value) = HeaderValue::from_str(&id) {
                response.headers_mut().insert(headers::SESSION, value);
            }
            return response;
        }
        if req.method == "server/discover" && !headers.contains_key(headers::SESSION) {
            return self.legacy_alone(headers, req).await;
        }
        if !headers.contains_key(headers::SESSION) {
            let e = ErrorObject::invalid_request(
                "Missing Mcp-Session-Id: send initialize first, or a modern request with _meta \
                 io.modelcontextprotocol/protocolVersion",
            );
            return error(StatusCode::BAD_REQUEST, Some(&req.id), &e);
        }
        let Some((conn, log)) = self.session(headers) else { return session_not_found(Some(&req.id)) };
        // Handlers may log, report progress or (through the shim) ask the client: their response is a
        // resumable SSE stream carrying those messages, then the result. A disconnect is not a cancellation.
        if matches!(req.method.as_str(), "tools/call" | "prompts/get" | "resources/read") {
            return log.open(self.priming(&conn), move |tx, close| async move {
                if let Some(line) = conn.request_on(req, tx.clone(), close).await {
                    let _ = tx.send(line).await;
                }
            });
        }
        match conn.request(req).await {
            Some(line) => json(StatusCode::OK, line),
            None => empty(StatusCode::ACCEPTED),
        }
    }

    /// A legacy request served alone (no sessions, or a probe without one): JSON, at the version the
    /// `MCP-Protocol-Version` header names (2025-03-26 when absent, as the spec says to assume).
    async fn legacy_alone(&self, headers: &HeaderMap, req: Request) -> Response {
        let conn = if req.method == "initialize" || req.method == "server/discover" {
            Connection::detached(self.server.clone())
        } else {
            let version = match headers::text(headers, headers::PROTOCOL_VERSION) {
                None => ProtocolVersion::V2025_03_26,
                Some(v) => match ProtocolVersion::parse(v).filter(|v| v.era() == crate::protocol::Era::Legacy) {
                    Some(version) => version,
                    None => {
                        let e = ErrorObject::invalid_request(format!("Unsupported MCP-Protocol-Version: {v}"));
                        return error(StatusCode::BAD_REQUEST, Some(&req.id), &e);
                    }
                },
            };
            Connection::stateless(self.server.clone(), version)
        };
        match conn.request(req).await {
            Some(line) => json(StatusCode::OK, line),
            None => empty(StatusCode::ACCEPTED),
        }
    }

    /// `GET`: the session's standalone stream, or with `Last-Event-ID` the rest of a stream the client lost.
    fn get(&self, headers: &HeaderMap) -> Response {
        if !accepts(headers, "text/event-stream") {
            let e = ErrorObject::invalid_request("Accept must list text/event-stream");
            return error(StatusCode::NOT_ACCEPTABLE, None, &e);
        }
        let Some(id) = headers::text(headers, headers::SESSION) else {
            let e = ErrorObject::invalid_request("Missing Mcp-Session-Id: a GET stream belongs to a session");
            return error(StatusCode::BAD_REQUEST, None, &e);
        };
        let Some((conn, log)) = self.sessions.as_ref().and_then(|s| s.get(id)) else { return session_not_found(None) };
        let keep_alive = Some(self.server.options().keep_alive);
        if let Some(last) = headers.get(headers::LAST_EVENT_ID) {
            let resumed =
                last.to_str().map_err(|_| sse::ResumeError::Malformed).and_then(|l| log.resume(l, keep_alive));
            return resumed.unwrap_or_else(|why| {
                let message = match why {
                    sse::ResumeError::Malformed => "Invalid Last-Event-ID: not an event id this server issued",
                    sse::ResumeError::UnknownStream => {
                        "Invalid Last-Event-ID: this session has no such stream or event"
                    }
                    sse::ResumeError::Gone => {
                        "Invalid Last-Event-ID: events after it are no longer kept (FastMcp::sse_replay); \
                         re-issue the request"
                    }
                };
                error(StatusCode::BAD_REQUEST, None, &ErrorObject::invalid_request(message))
            });
        }
        if log.standalone_attached() {
            let e = ErrorObject::invalid_request("Conflict: this session already has a standalone GET stream open");
            return error(StatusCode::CONFLICT, None, &e);
        }
        log.attach_standalone(self.priming(&conn), keep_alive)
    }

    fn delete(&self, headers: &HeaderMap) -> Response {
        let Some(id) = headers::text(headers, headers::SESSION) else {
            return error(StatusCode::BAD_REQUEST, None, &ErrorObject::invalid_request("Missing Mcp-Session-Id"));
        };
        if self.sessions.as_ref().is_some_and(|s| s.remove(id)) {
            empty(StatusCode::OK)
        } else {
            session_not_found(None)
        }
    }

    /// The session a request names, marked as used now.
    fn session(&self, headers: &HeaderMap) -> Option<SessionRef> {
        self.sessions.as_ref()?.get(headers::text(headers, headers::SESSION)?)
    }

    /// Hands a notification or response to the session it names: 202, or 404 for a session that is gone (as
    /// for requests). Without a session header it has no one to reach, and is accepted and dropped.
    fn to_session(&self, headers: &HeaderMap, deliver: impl FnOnce(&Connection)) -> Response {
        if self.sessions.is_some() && headers.contains_key(headers::SESSION) {
            match self.session(headers) {
                Some((conn, _)) => deliver(&conn),
                None => return session_not_found(None),
            }
        }
        empty(StatusCode::ACCEPTED)
    }

    /// The `retry` of the priming event that starts a session's streams: sessions from 2025-11-25 on, whose
    /// clients know empty-data events (SEP-1699); earlier clients get no priming event.
    fn priming(&self, conn: &Connection) -> Option<Duration> {
        conn.protocol_version().filter(|v| *v >= ProtocolVersion::V2025_11_25).map(|_| self.server.options().sse_retry)
    }
}

fn http_status(status: Status) -> StatusCode {
    match status {
        Status::Ok => StatusCode::OK,
        Status::BadRequest => StatusCode::BAD_REQUEST,
        Status::NotFound => StatusCode::NOT_FOUND,
    }
}

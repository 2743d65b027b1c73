//! The Streamable HTTP endpoint as a `tower` [`Service`]: routing by HTTP method, the checks HTTP itself
//! owns (`Host`/`Origin`, content type, `Accept`, body size), legacy sessions and their resumable streams.
//!
//! It names no MCP method and no `_meta` key: each message is classified by the era adapter, which also says
//! whether it needs a session and how its answer travels (JSON or a stream). Path-agnostic, so it mounts
//! wherever an application routes it (`Router::route_service("/mcp", service)` in axum).

use super::headers::RequestHeaders;
use super::origin;
use super::quotas::{Held, Peer, Quotas, too_many};
use super::request_body;
use super::session::Sessions;
use super::sse::{self, Body, EventLog, Response, Retention, holding};
use super::streams::{AtCap, PeerAddr, Streams};
use crate::auth::{self, AccessToken, Gate, Refused};
use crate::cancel::Cancel;
use crate::context::{HttpParts, HttpRequest};
use crate::era::{self, Answer, Classified, Connection, Delivery, Engine, Message, SessionUse, Status, Stream};
use crate::protocol::{ErrorObject, ProtocolVersion, RequestId, codes, error_json};
use crate::server::Server;
use crate::shares::Client;
use crate::store::StoreError;
use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderValue};
use http::{Method, StatusCode};
use http_body_util::{BodyExt as _, Full};
use std::convert::Infallible;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Once};
use std::task::{Context, Poll};
use std::time::Duration;

const SESSION: &str = "mcp-session-id";
const LAST_EVENT_ID: &str = "last-event-id";

/// How the endpoint serves, beyond the server's own options.
#[derive(Debug, Clone)]
pub struct ServiceOptions {
    /// Legacy clients get sessions (default). Off, every legacy request is served alone (see
    /// [`HttpOptions::sessions`](crate::server::HttpOptions::sessions)).
    pub sessions: bool,
    /// Refuse (403) requests whose `Host` or `Origin` is not a loopback address: DNS-rebinding protection
    /// for a server on a local port (default on). Turn it off when the endpoint is served under a real host
    /// name, behind your own checks.
    pub local_only: bool,
    /// How long a POST's body may take to arrive whole (default 60 s); past it the request is answered 408.
    pub body_read_timeout: Duration,
    /// The most long-lived streams (modern `subscriptions/listen`, legacy `GET` streams) open at once
    /// (default 512); one more is answered 503 with `Retry-After`.
    pub max_streams: usize,
    /// The most long-lived streams one client holds at once (default 16): per principal on a protected
    /// server, else per client address where the request carries it (fastmcp's own server does); one more
    /// is answered 429 with `Retry-After`.
    pub max_streams_per_client: usize,
    /// The most requests one client has being served at once (default 64), per client as for
    /// `max_streams_per_client`: a request counts from when its body has been read until its answer has
    /// (a stream's, until the client read it all or went away; a legacy session's call, until it ends too);
    /// long-lived streams count under
    /// `max_streams_per_client` alone. One more is answered 429 with `Retry-After`.
    pub max_requests_per_client: usize,
    /// The most legacy sessions one client holds open at once (default 64), per client as for
    /// `max_streams_per_client`; one more `initialize` is answered 429 with `Retry-After`.
    pub max_sessions_per_client: usize,
}

impl Default for ServiceOptions {
    /// `serve_http`'s defaults (see [`HttpOptions`](crate::server::HttpOptions)), local only.
    fn default() -> Self {
        let http = crate::server::HttpOptions::default();
        Self {
            sessions: http.sessions,
            local_only: true,
            body_read_timeout: http.body_read_timeout,
            max_streams: http.max_streams,
            max_streams_per_client: http.max_streams_per_client,
            max_requests_per_client: http.max_requests_per_client,
            max_sessions_per_client: http.max_sessions_per_client,
        }
    }
}

/// The MCP endpoint, one `tower` service for both eras. Cheap to clone: clones share sessions and tasks.
///
/// ```no_run
/// # use fastmcp::prelude::*;
/// # #[tool] async fn greet(name: String) -> String { name }
/// # async fn main_() -> fastmcp::Result<()> {
/// let mcp = fastmcp::McpService::new(FastMcp::new("greeter").tool(greet).build()?);
/// // axum: Router::new().route_service("/mcp", mcp.clone()); on shutdown, `mcp.shutdown()`.
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct McpService {
    endpoint: Arc<Endpoint>,
}

struct Endpoint {
    engine: Arc<Engine>,
    /// The authorization edge, when the server is a protected resource.
    gate: Option<Arc<Gate>>,
    local_only: bool,
    body_read_timeout: Duration,
    /// The long-lived streams open, under their caps.
    streams: Arc<Streams>,
    /// Each client's requests being served and sessions open, under their quotas.
    quotas: Quotas,
    /// `None` when legacy requests are served without sessions.
    sessions: Option<Arc<Sessions>>,
    /// Starts the idle-session reaper with the first session.
    reaper: Once,
}

impl McpService {
    /// The endpoint for `server`, with the default [`ServiceOptions`].
    pub fn new(server: Server) -> Self {
        Self::with_options(server, ServiceOptions::default())
    }

    /// The endpoint for `server`, served as `options` say: sessions or none, `Host`/`Origin` checks, and
    /// the per-client caps.
    pub fn with_options(server: Server, options: ServiceOptions) -> Self {
        let sessions = options
            .sessions
            .then(|| Sessions::new(&server.inner.store, &server.inner.replica, server.options().session_idle_timeout));
        let endpoint = Endpoint {
            gate: server.inner.gate.clone(),
            engine: Engine::new(server),
            local_only: options.local_only,
            body_read_timeout: options.body_read_timeout,
            streams: Streams::new(options.max_streams, options.max_streams_per_client),
            quotas: Quotas::new(options.max_requests_per_client, options.max_sessions_per_client),
            sessions,
            reaper: Once::new(),
        };
        Self { endpoint: Arc::new(endpoint) }
    }

    /// Where a protected server's metadata is (RFC 9728): route these paths to this service too when you
    /// mount it yourself (`/.well-known/oauth-protected-resource` and the form with the endpoint's path).
    /// Empty when the server is not protected.
    pub fn metadata_paths(&self) -> Vec<String> {
        self.endpoint.gate.as_ref().map(|gate| gate.metadata_paths()).unwrap_or_default()
    }

    /// Whether `path` is one this service answers besides the endpoint (the protected resource metadata).
    pub fn serves_metadata_at(&self, path: &str) -> bool {
        self.endpoint.gate.is_some() && Gate::is_metadata_path(path)
    }

    /// A client address as this endpoint counts it: `serve_http` makes one for each connection.
    pub(crate) fn peer(&self, ip: IpAddr) -> Peer {
        self.endpoint.quotas.peer(ip)
    }

    /// [`call`](tower_service::Service::call) for a request from `peer`: the server `serve_http` runs passes
    /// its connection's peer here rather than as a [`PeerAddr`] extension (three allocations a request, and a
    /// lookup of its client's tally).
    pub(crate) fn answer<B>(&self, req: http::Request<B>, peer: Option<Peer>) -> Answering
    where
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let (parts, body) = req.into_parts();
        let head = Arc::new(Head {
            method: parts.method,
            uri: parts.uri,
            headers: parts.headers,
            peer: peer.as_ref().map(|p| p.ip),
        });
        let endpoint = self.endpoint.clone();
        Box::pin(async move { Ok(endpoint.handle(head, body, peer).await) })
    }

    /// Settles a protected server's canonical URI where it was not configured (the URL `serve_http` bound).
    pub(crate) fn resolve_resource(&self, uri: &str) {
        if let Some(gate) = &self.endpoint.gate {
            gate.resolve(uri);
        }
    }

    /// Starts a graceful shutdown: subscriptions and sessions end (their streams close), so the
    /// application's server can finish the requests in flight and close its connections.
    pub fn shutdown(&self) {
        self.endpoint.engine.server.close();
        if let Some(sessions) = &self.endpoint.sessions {
            sessions.clear();
        }
    }
}

/// The future of a request's answer.
pub(crate) type Answering = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

impl<B> tower_service::Service<http::Request<B>> for McpService
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = Answering;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let peer = req.extensions().get::<PeerAddr>().map(|p| self.peer(p.0));
        self.answer(req, peer)
    }
}

/// The names the era adapters and this endpoint look up in a header map (what a POST reads on every request is
/// found in one pass instead: [`RequestHeaders`]), parsed once: a lookup by `&str` parses and lowercases the
/// name each time.
fn known(name: &str) -> Option<&'static header::HeaderName> {
    static PROTOCOL_VERSION: header::HeaderName = header::HeaderName::from_static(era::PROTOCOL_VERSION_HEADER);
    static METHOD: header::HeaderName = header::HeaderName::from_static(era::METHOD_HEADER);
    static NAME: header::HeaderName = header::HeaderName::from_static(era::NAME_HEADER);
    static SESSION_ID: header::HeaderName = header::HeaderName::from_static(SESSION);
    match name {
        era::PROTOCOL_VERSION_HEADER => Some(&PROTOCOL_VERSION),
        era::METHOD_HEADER => Some(&METHOD),
        era::NAME_HEADER => Some(&NAME),
        SESSION => Some(&SESSION_ID),
        _ => None,
    }
}

impl era::Headers for HeaderMap {
    fn first(&self, name: &str) -> (Option<&[u8]>, bool) {
        let mut values = match known(name) {
            Some(name) => self.get_all(name),
            None => self.get_all(name),
        }
        .iter();
        (values.next().map(HeaderValue::as_bytes), values.next().is_some())
    }
}

/// A request's method, target and headers: split from its body where the request comes in, and shared from
/// there on (the handler's `Context::http` keeps it, not a copy). Each layer of a request's future holds
/// this pointer rather than the 264-byte request.
struct Head {
    method: Method,
    uri: http::Uri,
    headers: HeaderMap,
    peer: Option<IpAddr>,
}

impl HttpParts for Head {
    fn method(&self) -> &str {
        self.method.as_str()
    }

    fn target(&self) -> &str {
        self.uri.path_and_query().map_or("/", http::uri::PathAndQuery::as_str)
    }

    fn headers(&self) -> Vec<(&str, &[u8])> {
        self.headers.iter().map(|(name, value)| (name.as_str(), value.as_bytes())).collect()
    }

    fn peer(&self) -> Option<IpAddr> {
        self.peer
    }
}

fn json(status: StatusCode, body: String) -> Response {
    let mut response = http::Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A refusal of the authorization edge: its status and `WWW-Authenticate` challenge, and `body` (a JSON-RPC
/// error naming the request when there is one).
fn refused(refused: Refused, body: String) -> Response {
    let mut response = json(StatusCode::from_u16(refused.status).unwrap_or(StatusCode::UNAUTHORIZED), body);
    if let Some(challenge) = refused.challenge.and_then(|c| HeaderValue::from_str(&c).ok()) {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, challenge);
    }
    response
}

fn error(status: StatusCode, id: Option<&RequestId>, e: &ErrorObject) -> Response {
    json(status, error_json(id, e))
}

fn empty(status: StatusCode) -> Response {
    let mut response = http::Response::new(Full::new(Bytes::new()).boxed());
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

/// A long-lived stream refused under its caps: 503 when the server is full, 429 when the client has its share;
/// either way the client may try again (`Retry-After`, seconds) once a stream has ended.
fn streams_full(id: Option<&RequestId>, full: &AtCap) -> Response {
    let status = match full {
        AtCap::Total(_) => StatusCode::SERVICE_UNAVAILABLE,
        AtCap::Client(_) => StatusCode::TOO_MANY_REQUESTS,
    };
    let mut response = error(status, id, &ErrorObject::internal(full.message()));
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    response
}

/// Who a stream, a request or a session counts against ([`Client::of`]).
fn client_of(caller: Option<&AccessToken>, peer: Option<&Peer>) -> Option<Client> {
    Client::of(caller, peer.map(|peer| peer.ip))
}

/// The shared store holding sessions could not be reached: the request was fine, try again later.
fn store_unavailable(id: Option<&RequestId>, e: &StoreError) -> Response {
    let mut response = error(StatusCode::SERVICE_UNAVAILABLE, id, &ErrorObject::internal(e.to_string()));
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

fn session_not_found(id: Option<&RequestId>) -> Response {
    error(StatusCode::NOT_FOUND, id, &ErrorObject::new(-32001, "Session not found"))
}

/// Whether `Accept` lists each of `media`, or a wildcard that covers it (`*/*`, `type/*`). Read as bytes, on
/// every POST: a header that is not text names no media type we look for. One pass over the ranges.
fn accepts<const N: usize>(accept: Option<&HeaderValue>, media: [&str; N]) -> bool {
    let accept = accept.map_or(&[][..], HeaderValue::as_bytes);
    let (mut found, mut missing) = ([false; N], N);
    for range in accept.split(|b| *b == b',') {
        let range = memchr::memchr(b';', range).map_or(range, |params| &range[..params]).trim_ascii();
        for (media, found) in media.iter().zip(&mut found).filter(|(_, found)| !**found) {
            if covers(range, media.as_bytes()) {
                (*found, missing) = (true, missing - 1);
            }
        }
        if missing == 0 {
            return true;
        }
    }
    missing == 0
}

/// Whether the media range `range` covers the media type `media`.
fn covers(range: &[u8], media: &[u8]) -> bool {
    let kind = media.split(|b| *b == b'/').next().unwrap_or_default();
    range.eq_ignore_ascii_case(media)
        || range == b"*/*"
        || range.strip_suffix(b"/*").is_some_and(|t| t.eq_ignore_ascii_case(kind))
}

impl Endpoint {
    async fn handle<B>(self: Arc<Self>, head: Arc<Head>, body: B, peer: Option<Peer>) -> Response
    where
        B: http_body::Body<Data = Bytes>,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        if let Some(gate) = &self.gate
            && Gate::is_metadata_path(head.uri.path())
        {
            return metadata(gate, &head.method);
        }
        let headers = RequestHeaders::read(&head.headers);
        if let Err(refused) = origin::check(&head.uri, &headers, self.local_only) {
            return error(refused.status, None, &ErrorObject::new(codes::INVALID_REQUEST, refused.message));
        }
        // Every request of a protected server is authenticated, by its `Authorization` header alone.
        let caller = match &self.gate {
            None => None,
            Some(gate) => {
                let presented =
                    auth::bearer_token(head.headers.get_all(header::AUTHORIZATION).iter().map(|v| v.as_bytes()));
                match gate.admit(presented).await {
                    Ok(caller) => Some(caller),
                    Err(why) => {
                        let refusal = gate.refused(&why);
                        let body = error_json(None, &ErrorObject::invalid_request(&refusal.message));
                        return refused(refusal, body);
                    }
                }
            }
        };
        let stateful = self.sessions.is_some();
        match head.method {
            Method::POST => self.post(&head, &headers, body, caller, peer.as_ref()).await,
            Method::GET if stateful => self.get(&head.headers, caller.as_deref(), peer.as_ref()).await,
            Method::DELETE if stateful => self.delete(&head.headers, caller.as_deref()).await,
            _ if stateful => method_not_allowed("GET, POST, DELETE"),
            _ => method_not_allowed("POST"),
        }
    }

    /// An answer of the era adapters as an HTTP response.
    fn answer(&self, answer: Answer) -> Response {
        let status = match answer.status {
            Status::Ok => StatusCode::OK,
            Status::BadRequest => StatusCode::BAD_REQUEST,
            Status::NotFound => StatusCode::NOT_FOUND,
            Status::Refused(refusal) => match &self.gate {
                Some(gate) => return refused(gate.refusal(&refusal), answer.json),
                // Without a gate there is no token, and nothing asks for one but a component's own check.
                None => StatusCode::FORBIDDEN,
            },
            Status::TooMany(seconds) => return too_many(answer.json, seconds),
        };
        json(status, answer.json)
    }

    async fn post<B>(
        self: Arc<Self>,
        head: &Arc<Head>,
        headers: &RequestHeaders<'_>,
        body: B,
        caller: Option<Arc<AccessToken>>,
        peer: Option<&Peer>,
    ) -> Response
    where
        B: http_body::Body<Data = Bytes>,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let content_type = headers.content_type.first.and_then(|v| era::text(v.as_bytes())).unwrap_or("");
        if !content_type.split(';').next().unwrap_or("").trim_ascii().eq_ignore_ascii_case("application/json") {
            let e = ErrorObject::invalid_request("Content-Type must be application/json");
            return error(StatusCode::UNSUPPORTED_MEDIA_TYPE, None, &e);
        }
        // Both, as the spec requires of clients: the answer may be either.
        if !accepts(headers.accept.first, ["application/json", "text/event-stream"]) {
            let e = ErrorObject::invalid_request("Accept must list application/json and text/event-stream");
            return error(StatusCode::NOT_ACCEPTABLE, None, &e);
        }
        let body = match self.read_body(body, headers).await {
            Ok(body) => body,
            Err(refused) => return refused,
        };
        let Ok(text) = std::str::from_utf8(&body) else {
            return error(StatusCode::BAD_REQUEST, None, &ErrorObject::parse_error("the body is not UTF-8"));
        };
        match era::parse(text, Some(headers)) {
            Err(rejected) => error(StatusCode::BAD_REQUEST, rejected.id.as_ref(), &rejected.error),
            Ok(Message::Request(mut req)) => {
                req.caller = caller;
                req.http = Some(HttpRequest::new(head.clone()));
                let client = client_of(req.caller.as_deref(), peer);
                let held = match self.quotas.request(client.as_ref(), peer, &req) {
                    Ok(held) => held,
                    Err(over) => return over.response(Some(&req.id)),
                };
                holding(self.request(req, headers, peer, &held).await, held)
            }
            Ok(Message::Notification(note)) => {
                self.to_session(headers, caller.as_deref(), text, |conn| conn.notification(note)).await
            }
            Ok(Message::Response { id, outcome }) => {
                // A request of ours waiting here takes its answer without the store (while Redis is down too).
                let session = self.sessions.as_ref().zip(era::Headers::text(headers, SESSION));
                if let Some(conn) = session.and_then(|(sessions, session)| sessions.local(session))
                    && conn.owned_by(caller.as_deref())
                    && conn.awaits(&id)
                {
                    conn.response(&id, outcome);
                    return empty(StatusCode::ACCEPTED);
                }
                self.to_session(headers, caller.as_deref(), text, |conn| conn.response(&id, outcome)).await
            }
        }
    }

    /// A POST's body, whole, under the size cap and the read timeout; or the response that refuses it. Its own
    /// future: what reading the body holds is gone before the request is served.
    async fn read_body<B>(&self, body: B, headers: &RequestHeaders<'_>) -> Result<Bytes, Response>
    where
        B: http_body::Body<Data = Bytes>,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let max = self.engine.server.options().max_message_bytes;
        let too_large = || {
            let e = ErrorObject::invalid_request(format!(
                "the body exceeds the server's limit of {max} bytes (FastMcp::max_message_bytes)"
            ));
            error(StatusCode::PAYLOAD_TOO_LARGE, None, &e)
        };
        // A declared length over the cap is refused before the body is buffered. A client that sent
        // `Expect: 100-continue` waits for hyper's 100 Continue, which goes out only once the body is polled:
        // refused unpolled, it never sends the body. Any other client is sending it already: up to the cap of
        // it is read and dropped first, so that client reads this answer rather than a connection reset.
        if let Some(length) = headers.content_length.first {
            match length.to_str().ok().and_then(|l| l.trim().parse::<u64>().ok()) {
                Some(length) if length > max as u64 => {
                    let expects =
                        headers.get(header::EXPECT).is_some_and(|e| e.as_bytes().eq_ignore_ascii_case(b"100-continue"));
                    if !expects {
                        let _ = tokio::time::timeout(self.body_read_timeout, request_body::discard(body, max)).await;
                    }
                    return Err(too_large());
                }
                Some(_) => {}
                None => {
                    let e = ErrorObject::invalid_request("Content-Length is not a number");
                    return Err(error(StatusCode::BAD_REQUEST, None, &e));
                }
            }
        }
        let mut reading = std::pin::pin!(request_body::whole(body, max));
        // A body that came whole with the headers (most POSTs) is read without arming a timer.
        let read = match futures_util::FutureExt::now_or_never(reading.as_mut()) {
            Some(read) => Ok(read),
            None => tokio::time::timeout(self.body_read_timeout, reading).await,
        };
        match read {
            Ok(Ok(body)) => Ok(body),
            Ok(Err(e)) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => Err(too_large()),
            Ok(Err(e)) => Err(error(StatusCode::BAD_REQUEST, None, &ErrorObject::invalid_request(e))),
            Err(_) => {
                let e = ErrorObject::invalid_request(format!(
                    "the body did not arrive within {} s (HttpOptions::body_read_timeout)",
                    self.body_read_timeout.as_secs_f64()
                ));
                let mut response = error(StatusCode::REQUEST_TIMEOUT, None, &e);
                // What is left of the body is never read: the connection cannot carry another request.
                response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
                Err(response)
            }
        }
    }

    /// A request, where its classification says: stateless (modern), alone, or in its session.
    async fn request(
        self: Arc<Self>,
        req: Box<Classified>,
        headers: &RequestHeaders<'_>,
        peer: Option<&Peer>,
        held: &Held,
    ) -> Response {
        match req.session_use() {
            SessionUse::None => self.modern(req, headers, peer).await,
            legacy => Box::pin(self.legacy(legacy, req, headers, peer, held)).await,
        }
    }

    /// A legacy request: alone (sessions off, or a probe without a session id) or in the session it names.
    async fn legacy(
        self: Arc<Self>,
        session_use: SessionUse,
        req: Box<Classified>,
        headers: &HeaderMap,
        peer: Option<&Peer>,
        held: &Held,
    ) -> Response {
        // Refused here, while the status can still say so: the answer may be a stream.
        if let Err(refused) = req.refusal(&self.engine.server.registry()) {
            return self.answer(refused);
        }
        let Some(sessions) = &self.sessions else {
            return self.answer(Connection::serve_alone(&self.engine, req, headers).await);
        };
        let named = headers.contains_key(SESSION);
        match session_use {
            SessionUse::Opens => self.open_session(sessions, req, headers, peer).await,
            SessionUse::Optional if !named => self.answer(Connection::serve_alone(&self.engine, req, headers).await),
            SessionUse::Required if !named => {
                let e = ErrorObject::invalid_request(
                    "Missing Mcp-Session-Id: send initialize first, or a modern request with _meta \
                     io.modelcontextprotocol/protocolVersion",
                );
                error(StatusCode::BAD_REQUEST, Some(&req.id), &e)
            }
            SessionUse::None | SessionUse::Optional | SessionUse::Required => {
                match self.found(headers, req.caller.as_deref(), Some(&req.id)).await {
                    Ok(found) => self.in_session(sessions, found, req, held).await,
                    Err(refused) => refused,
                }
            }
        }
    }

    /// A modern request: admitted (headers against the body, envelope…), then served statelessly, as JSON
    /// or on a live stream. Closing that stream is cancellation on the modern protocol.
    async fn modern(
        self: Arc<Self>,
        req: Box<Classified>,
        headers: &RequestHeaders<'_>,
        peer: Option<&Peer>,
    ) -> Response {
        // A long-lived stream (a subscription) takes its slot under the caps first.
        let slot = match req.delivery() {
            Delivery::Stream { keep_alive: true } => {
                match self.streams.acquire(client_of(req.caller.as_deref(), peer).as_ref()) {
                    Ok(slot) => Some(slot),
                    Err(full) => return streams_full(Some(&req.id), &full),
                }
            }
            _ => None,
        };
        // The delivery is read where `admitted` is bound: a local borrowed before an await keeps its own
        // storage in the future (424 bytes) even after it is moved into the call that is awaited.
        let (admitted, delivery) = match self.engine.admit(req, Some(headers)) {
            Ok(admitted) => {
                let delivery = admitted.delivery();
                (admitted, delivery)
            }
            Err(refused) => return self.answer(refused),
        };
        match delivery {
            Delivery::Json => self.answer(self.engine.serve(admitted, None, Cancel::default(), None).await),
            Delivery::Stream { keep_alive } => {
                let keep_alive = keep_alive.then_some(self.engine.server.options().keep_alive);
                let response = sse::live(keep_alive, move |tx| async move {
                    let cancel = Cancel::default();
                    // Pinned in place, as `Connection::run` does: raced by value, the request's future is
                    // copied into the race.
                    let serve = std::pin::pin!(self.engine.serve(admitted, Some(tx.clone()), cancel.clone(), None));
                    tokio::select! {
                        done = serve => {
                            let _ = tx.send(done.json).await;
                        }
                        () = tx.closed() => cancel.cancel(),
                    }
                });
                match slot {
                    Some(slot) => holding(response, slot),
                    None => response,
                }
            }
        }
    }

    /// `initialize`: opens a session (its id in `Mcp-Session-Id`).
    async fn open_session(
        self: &Arc<Self>,
        sessions: &Arc<Sessions>,
        req: Box<Classified>,
        headers: &HeaderMap,
        peer: Option<&Peer>,
    ) -> Response {
        if headers.contains_key(SESSION) {
            let e = ErrorObject::invalid_request("initialize opens a new session: send it without Mcp-Session-Id");
            return error(StatusCode::BAD_REQUEST, Some(&req.id), &e);
        }
        let options = self.engine.server.options();
        if sessions.len() >= options.max_sessions {
            return sessions_full(&req.id, options.max_sessions);
        }
        // The session holds its place in its opener's quota until it ends.
        let held = match self.quotas.session(client_of(req.caller.as_deref(), peer).as_ref()) {
            Ok(held) => held,
            Err(over) => return over.response(Some(&req.id)),
        };
        let (conn, log) = self.new_session();
        // The session is its opener's: another principal's token on it finds no session.
        conn.bind_owner(req.caller.as_deref());
        let request_id = req.id.clone();
        let Some(line) = conn.serve(req, None).await else { return empty(StatusCode::ACCEPTED) };
        let id = match sessions.insert(conn.clone(), log, held, options.max_sessions).await {
            Ok(Some(id)) => id,
            Ok(None) => return sessions_full(&request_id, options.max_sessions),
            Err(e) => return store_unavailable(Some(&request_id), &e),
        };
        conn.set_session_id(&id);
        self.reaper.call_once(|| {
            tokio::spawn(reap_idle_sessions(Arc::downgrade(self)));
        });
        conn.forward_changes();
        let mut response = json(StatusCode::OK, line);
        if let Ok(value) = HeaderValue::from_str(&id) {
            response.headers_mut().insert(SESSION, value);
        }
        response
    }

    /// A new session's connection and event log (a session opened here, or a copy of one opened elsewhere).
    fn new_session(&self) -> (Arc<Connection>, Arc<EventLog>) {
        let options = self.engine.server.options();
        let log = EventLog::new(Retention { events: options.sse_replay_events, streams: options.sse_replay_streams });
        // Messages unrelated to any request (list changes) go on the session's standalone stream.
        let conn = Arc::new(Connection::new(self.engine.clone(), log.standalone(), false));
        (conn, log)
    }

    /// A legacy request in its session. Handlers that may log, report progress or (through the shim) ask the
    /// client answer on a resumable SSE stream carrying those messages, then the result; a disconnect is not
    /// a cancellation there. What the request changed in the session is saved for other replicas once it
    /// is done. The call holds its place in the client's quota of requests until it ends, even if the
    /// client went away meanwhile: a client can't pile up calls it abandons.
    async fn in_session(&self, sessions: &Arc<Sessions>, found: Found, req: Box<Classified>, held: &Held) -> Response {
        let Found { id, conn, log } = found;
        let request = req.id.clone();
        match req.delivery() {
            Delivery::Stream { .. } => {
                let (sessions, held) = (sessions.clone(), held.clone());
                log.open(&request.clone(), self.priming(&conn), move |tx, close| async move {
                    let _held = held;
                    let line = conn.serve(req, Some(Stream { tx: tx.clone(), close })).await;
                    if let Some(line) = saved(sessions.save(&id).await, &request, line) {
                        let _ = tx.send(line).await;
                    }
                })
            }
            Delivery::Json => {
                let line = conn.serve(req, None).await;
                match saved(sessions.save(&id).await, &request, line) {
                    Some(line) => json(StatusCode::OK, line),
                    None => empty(StatusCode::ACCEPTED),
                }
            }
        }
    }

    /// `GET`: the session's standalone stream, or with `Last-Event-ID` the rest of a stream the client lost.
    async fn get(&self, headers: &HeaderMap, caller: Option<&AccessToken>, peer: Option<&Peer>) -> Response {
        if !accepts(headers.get(header::ACCEPT), ["text/event-stream"]) {
            let e = ErrorObject::invalid_request("Accept must list text/event-stream");
            return error(StatusCode::NOT_ACCEPTABLE, None, &e);
        }
        if !headers.contains_key(SESSION) {
            let e = ErrorObject::invalid_request("Missing Mcp-Session-Id: a GET stream belongs to a session");
            return error(StatusCode::BAD_REQUEST, None, &e);
        }
        let Found { conn, log, .. } = match self.found(headers, caller, None).await {
            Ok(found) => found,
            Err(refused) => return refused,
        };
        let slot = match self.streams.acquire(client_of(caller, peer).as_ref()) {
            Ok(slot) => slot,
            Err(full) => return streams_full(None, &full),
        };
        let keep_alive = Some(self.engine.server.options().keep_alive);
        if let Some(last) = headers.get(LAST_EVENT_ID) {
            let resumed = match last.to_str() {
                Ok(last) => log.resume(last, keep_alive).await,
                Err(_) => Err(sse::ResumeError::Malformed),
            };
            return resumed.map(|stream| holding(stream, slot)).unwrap_or_else(|why| {
                let message = match why {
                    sse::ResumeError::Malformed => "Invalid Last-Event-ID: not an event id this server issued",
                    sse::ResumeError::UnknownStream => {
                        "Invalid Last-Event-ID: this session has no such stream or event"
                    }
                    sse::ResumeError::Gone => {
                        "Invalid Last-Event-ID: events after it are no longer kept (FastMcp::sse_replay); \
                         re-issue the request"
                    }
                    sse::ResumeError::Store(e) => return store_unavailable(None, &e),
                };
                error(StatusCode::BAD_REQUEST, None, &ErrorObject::invalid_request(message))
            });
        }
        if log.standalone_attached() {
            let e = ErrorObject::invalid_request("Conflict: this session already has a standalone GET stream open");
            return error(StatusCode::CONFLICT, None, &e);
        }
        holding(log.attach_standalone(self.priming(&conn), keep_alive), slot)
    }

    async fn delete(&self, headers: &HeaderMap, caller: Option<&AccessToken>) -> Response {
        let (Some(sessions), Some(id)) = (&self.sessions, era::Headers::text(headers, SESSION)) else {
            return error(StatusCode::BAD_REQUEST, None, &ErrorObject::invalid_request("Missing Mcp-Session-Id"));
        };
        if let Err(refused) = self.found(headers, caller, None).await {
            return refused;
        }
        match sessions.remove(id).await {
            Ok(_) => empty(StatusCode::OK),
            Err(e) => store_unavailable(None, &e),
        }
    }

    /// The session a request names, marked as used now — if it is `caller`'s: to another principal a session
    /// is as absent as one that never existed (404). With a shared store, one opened on another replica is
    /// found there.
    async fn session(&self, headers: &HeaderMap, caller: Option<&AccessToken>) -> Result<Option<Found>, StoreError> {
        let (Some(sessions), Some(id)) = (&self.sessions, era::Headers::text(headers, SESSION)) else {
            return Ok(None);
        };
        let Some((conn, log)) = sessions.get(id, || self.new_session()).await? else { return Ok(None) };
        Ok(conn.owned_by(caller).then(|| Found { id: id.to_owned(), conn, log }))
    }

    /// [`session`](Self::session), or the answer when there is none: 404, or 503 when the store holding
    /// sessions can't be reached (a JSON-RPC error for request `id`, when there is one).
    async fn found(
        &self,
        headers: &HeaderMap,
        caller: Option<&AccessToken>,
        id: Option<&RequestId>,
    ) -> Result<Found, Response> {
        match self.session(headers, caller).await {
            Ok(Some(found)) => Ok(found),
            Ok(None) => Err(session_not_found(id)),
            Err(e) => Err(store_unavailable(id, &e)),
        }
    }

    /// Hands a notification or response (`message`, as sent) to the session it names: 202, or 404 for a
    /// session that is gone (as for requests). What no request here awaits goes on to the replicas that
    /// share the session. Without a session header it has no one to reach, and is accepted and dropped.
    async fn to_session(
        &self,
        headers: &HeaderMap,
        caller: Option<&AccessToken>,
        message: &str,
        deliver: impl FnOnce(&Connection) -> bool,
    ) -> Response {
        let Some(sessions) = self.sessions.as_ref().filter(|_| headers.contains_key(SESSION)) else {
            return empty(StatusCode::ACCEPTED);
        };
        let Found { id, conn, .. } = match self.found(headers, caller, None).await {
            Ok(found) => found,
            Err(refused) => return refused,
        };
        if !deliver(&conn)
            && let Err(e) = sessions.forward(&id, message).await
        {
            return store_unavailable(None, &e);
        }
        match sessions.save(&id).await {
            Ok(()) => empty(StatusCode::ACCEPTED),
            Err(e) => store_unavailable(None, &e),
        }
    }

    /// The `retry` of the priming event that starts a session's streams: sessions from 2025-11-25 on, whose
    /// clients know empty-data events (SEP-1699); earlier clients get no priming event.
    fn priming(&self, conn: &Connection) -> Option<Duration> {
        conn.protocol_version()
            .filter(|v| *v >= ProtocolVersion::V2025_11_25)
            .map(|_| self.engine.server.options().sse_retry)
    }
}

/// A request's answer (`None`: cancelled), unless what it changed in its session could not be saved for
/// the other replicas: then an error for it says so. The change stays here, saved with the next one.
fn saved(saved: Result<(), StoreError>, request: &RequestId, answer: Option<String>) -> Option<String> {
    match saved {
        Ok(()) => answer,
        Err(e) => {
            let e = ErrorObject::internal(format!(
                "{e}: the request ran, but what it changed in the session could not be shared with the \
                 server's other replicas"
            ));
            answer.map(|_| error_json(Some(request), &e))
        }
    }
}

/// A session a request named, found.
struct Found {
    id: String,
    conn: Arc<Connection>,
    log: Arc<EventLog>,
}

/// The protected resource metadata (RFC 9728 §3): public, to any origin (browser clients read it before they
/// have a token).
fn metadata(gate: &Gate, method: &Method) -> Response {
    let mut response = match (method, gate.metadata_json()) {
        (&Method::GET, Some(doc)) => json(StatusCode::OK, doc.to_owned()),
        (&Method::OPTIONS, _) => empty(StatusCode::NO_CONTENT),
        (&Method::GET, None) => {
            let e = ErrorObject::internal("The server's authorization is not configured (ProtectedResource::resource)");
            error(StatusCode::INTERNAL_SERVER_ERROR, None, &e)
        }
        _ => return method_not_allowed("GET, OPTIONS"),
    };
    let headers = response.headers_mut();
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, OPTIONS"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("max-age=3600"));
    response
}

/// Ends sessions idle longer than `FastMcp::session_idle_timeout`, until the endpoint is gone.
async fn reap_idle_sessions(endpoint: std::sync::Weak<Endpoint>) {
    loop {
        let Some(idle) = endpoint.upgrade().map(|e| e.engine.server.options().session_idle_timeout) else { return };
        tokio::time::sleep((idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(60))).await;
        let Some(endpoint) = endpoint.upgrade() else { return };
        let Some(sessions) = &endpoint.sessions else { return };
        let ended = sessions.reap(idle);
        if ended > 0 {
            tracing::debug!("ended {ended} idle session(s)");
        }
    }
}

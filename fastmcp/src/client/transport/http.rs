//! Streamable HTTP, both eras: each message is a POST whose answer — nothing (202), one JSON message, or an
//! SSE stream of messages ending with the response — goes onto the inbox. Legacy sessions add
//! `Mcp-Session-Id`, the standalone `GET` stream, resumption of lost streams with `Last-Event-ID`, and a
//! `DELETE` at the end. Modern requests are stateless; closing a response stream is how one is cancelled,
//! so every request's answer is read by a task of its own that dropping its [`Exchange`] aborts.

// The session layer constructs the transport; until it does, only the tests here do.

mod sse;

use super::{BoxFuture, Exchange, Inbox, Incoming, Outgoing, Transport};
use crate::auth::fetch::{chain, connector};
use crate::client::{Authorizer, ClientError, Credentials, Refusal, RequestTarget};
use crate::protocol::{ErrorObject, RequestId};
use crate::sync::lock;
use bytes::Bytes;
use http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, USER_AGENT, WWW_AUTHENTICATE};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Response, StatusCode, Uri};
use http_body_util::{BodyExt as _, Full, LengthLimitError, Limited};
use hyper::body::Incoming as Body;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use serde::Deserialize;
use serde::de::IgnoredAny;
use sse::{SseParser, TooLarge};
use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::oneshot;
use tokio::task::AbortHandle;

const SESSION: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
const LAST_EVENT_ID: &str = "last-event-id";
/// A DPoP proof (RFC 9449 §4.1), when the authorizer makes one.
const DPOP: HeaderName = HeaderName::from_static("dpop");
const JSON: &str = "application/json";
const EVENT_STREAM: &str = "text/event-stream";
const AGENT: &str = concat!("fastmcp/", env!("CARGO_PKG_VERSION"));

/// How long to wait before resuming a stream when the server said nothing (`retry:`).
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// Reconnections in a row that bring nothing new before a stream is given up.
const MAX_RECONNECTS: u32 = 5;
/// Retries of one message after refusals the authorizer thinks it can do better on.
const MAX_REAUTHORIZATIONS: u32 = 3;
/// How much of an error body a [`ClientError::Http`] shows.
const SHOWN_BODY: usize = 512;

/// How the client talks to a Streamable HTTP server.
#[derive(Clone)]
pub struct HttpOptions {
    /// Headers sent with every request (an API key, a tenant). The transport's own — `Accept`,
    /// `Content-Type`, the era's, `Authorization` from the authorizer, the session — win over these.
    pub headers: Vec<(String, String)>,
    /// Credentials for a protected server: asked for `Authorization` before each request, and told of each
    /// refusal (401, 403 `insufficient_scope`) so it can get better ones.
    pub authorizer: Option<Arc<dyn Authorizer>>,
    /// How long connecting, and then the response's headers (and a JSON body), may take (default 30 s). An
    /// SSE answer then lasts as long as its request does: a long tool call is not a timeout.
    pub timeout: Duration,
    /// The largest JSON body or SSE event accepted (default 4 MiB).
    pub max_message_bytes: usize,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self { headers: Vec::new(), authorizer: None, timeout: Duration::from_secs(30), max_message_bytes: 4 << 20 }
    }
}

impl fmt::Debug for HttpOptions {
    /// Header values are not shown: they are often credentials.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("HttpOptions")
            .field("headers", &names)
            .field("authorizer", &self.authorizer.is_some())
            .field("timeout", &self.timeout)
            .field("max_message_bytes", &self.max_message_bytes)
            .finish()
    }
}

/// The Streamable HTTP transport: one hyper-util client (HTTP/1.1, and h2 where TLS negotiates it) for one
/// endpoint URL.
pub(crate) struct HttpTransport {
    shared: Arc<Shared>,
}

struct Shared {
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
    url: String,
    uri: Uri,
    /// `User-Agent` and the user's headers.
    headers: HeaderMap,
    authorizer: Option<Arc<dyn Authorizer>>,
    timeout: Duration,
    max: usize,
    inbox: Inbox,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The legacy session, once the server named one.
    session: Option<HeaderValue>,
    /// The era's `MCP-Protocol-Version` of the last message that had one: `GET` and `DELETE` carry it too.
    protocol_version: Option<HeaderValue>,
    /// Every reading task, so `close` (and drop) can stop them.
    tasks: Vec<AbortHandle>,
    standalone: Option<AbortHandle>,
    closed: bool,
}

/// One HTTP request to the endpoint, before the transport adds authorization and the session.
struct Call {
    method: Method,
    body: Bytes,
    accept: &'static str,
    /// The era's headers (POST), `Last-Event-ID` (a resuming GET), `MCP-Protocol-Version`.
    headers: HeaderMap,
}

/// A response, and the session id its request carried (a 404 ends that session, not a newer one).
struct Answer {
    response: Response<Body>,
    session: Option<HeaderValue>,
}

/// How reading an SSE stream stopped.
enum End {
    /// The response to the request arrived.
    Answered,
    /// The server ended the stream.
    Eof,
    /// The connection broke.
    Broken(String),
    TooLarge(usize),
}

impl HttpTransport {
    /// A transport for the MCP endpoint at `url` (`https://`, or `http://` for a local or trusted server);
    /// what the server says goes onto `inbox`. Nothing is sent yet.
    pub fn new(url: &str, options: HttpOptions, inbox: Inbox) -> Result<Self, ClientError> {
        let uri: Uri = url.parse().map_err(|e| ClientError::Transport(format!("{url}: not a URL: {e}")))?;
        if !matches!(uri.scheme_str(), Some("http" | "https")) || uri.host().is_none() {
            return Err(ClientError::Transport(format!("{url}: not an absolute http(s) URL")));
        }
        let mut headers = HeaderMap::new();
        headers.insert(USER_AGENT, HeaderValue::from_static(AGENT));
        for (name, value) in &options.headers {
            let bad = |e: &dyn fmt::Display| ClientError::Transport(format!("HttpOptions::headers `{name}`: {e}"));
            let name = HeaderName::from_bytes(name.as_bytes()).map_err(|e| bad(&e))?;
            let mut value = HeaderValue::from_str(value).map_err(|e| bad(&e))?;
            value.set_sensitive(true);
            headers.insert(name, value);
        }
        // SSE events are small writes, which the connector sends without Nagle's delay.
        let connector =
            connector(options.timeout).map_err(|e| ClientError::Transport(format!("no TLS client: {e}")))?;
        let client = Client::builder(TokioExecutor::new())
            .timer(TokioTimer::new())
            .pool_timer(TokioTimer::new())
            .build(connector);
        let shared = Shared {
            client,
            url: url.to_owned(),
            uri,
            headers,
            authorizer: options.authorizer,
            timeout: options.timeout,
            max: options.max_message_bytes,
            inbox,
            state: Mutex::new(State::default()),
        };
        Ok(Self { shared: Arc::new(shared) })
    }

    /// Opens the legacy session's standalone `GET` stream, where the server's requests and notifications
    /// unrelated to any request arrive; it is resumed when it breaks, while the transport lives. A server
    /// without one (405) is fine. Opening it again replaces it.
    ///
    /// Returns once the server has answered the first `GET` (or it failed): the server knows the stream
    /// before the client's next request, so what it sends there unprompted is not lost, and a request's
    /// answer never races the stream's opening.
    pub(crate) async fn open_standalone(&self) {
        if self.shared.state().closed {
            return;
        }
        let (opened, answered) = oneshot::channel();
        let task = self.shared.spawn(self.shared.clone().standalone(opened));
        if let Some(old) = self.shared.state().standalone.replace(task) {
            old.abort();
        }
        // An error means the task was stopped first (the transport closed): nothing left to wait for.
        let _ = answered.await;
    }

    /// The session id the server gave, if any.
    #[cfg(test)]
    fn session_id(&self) -> Option<String> {
        self.shared.state().session.as_ref().and_then(|v| v.to_str().ok()).map(str::to_owned)
    }

    #[cfg(test)]
    fn set_session_id(&self, id: &str) {
        self.shared.state().session = Some(HeaderValue::from_str(id).expect("a header value"));
    }
}

impl Drop for HttpTransport {
    fn drop(&mut self) {
        self.shared.abort_all();
    }
}

impl Transport for HttpTransport {
    /// A message with an id is answered by a task of its own, and `send` returns once it is started. One
    /// without (a notification, a response to the server) is delivered before `send` returns, so messages
    /// arrive in the order they are sent: `notifications/initialized` before the next request.
    fn send(&self, message: Outgoing) -> BoxFuture<'_, Result<Exchange, ClientError>> {
        Box::pin(async move {
            let shared = &self.shared;
            if shared.state().closed {
                return Err(ClientError::Closed);
            }
            let mut headers = HeaderMap::new();
            for (name, value) in &message.headers {
                let bad = |e: &dyn fmt::Display| ClientError::Transport(format!("header `{name}`: {e}"));
                let name = HeaderName::from_bytes(name.as_bytes()).map_err(|e| bad(&e))?;
                headers.insert(name, HeaderValue::from_str(value).map_err(|e| bad(&e))?);
            }
            if let Some(version) = headers.get(PROTOCOL_VERSION) {
                shared.state().protocol_version = Some(version.clone());
            }
            let call = Call {
                method: Method::POST,
                body: Bytes::from(message.json),
                accept: "application/json, text/event-stream",
                headers,
            };
            match message.id {
                Some(id) => {
                    let task = shared.spawn(shared.clone().request(call, id));
                    Ok(Exchange::reading(task))
                }
                None => {
                    match shared.exchange(&call).await {
                        Ok(answer) => shared.answer(answer, None).await,
                        Err(e) => tracing::debug!("a message without id was not delivered: {e}"),
                    }
                    Ok(Exchange::done())
                }
            }
        })
    }

    /// Ends the session (`DELETE`; a server that does not allow it, 405, is fine), stops every stream, and
    /// says so on the inbox with [`Incoming::Closed`].
    /// Each request's answers come on its own stream (modern cancellation closes it).
    fn closes_streams(&self) -> bool {
        true
    }

    fn relates_requests(&self) -> bool {
        true
    }

    fn session_opened(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.open_standalone())
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let shared = &self.shared;
            let session = {
                let mut state = shared.state();
                state.closed = true;
                state.session.clone()
            };
            shared.abort_all();
            if session.is_some() {
                let call =
                    Call { method: Method::DELETE, body: Bytes::new(), accept: "*/*", headers: shared.era_headers() };
                match shared.exchange(&call).await {
                    Ok(answer) => {
                        let status = answer.response.status();
                        if !status.is_success() && status != StatusCode::METHOD_NOT_ALLOWED {
                            tracing::debug!("DELETE {}: the session was not ended: HTTP {status}", shared.url);
                        }
                    }
                    Err(e) => tracing::debug!("the session was not ended: {e}"),
                }
            }
            shared.state().session = None;
            shared.push(Incoming::Closed(None));
        })
    }
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    fn push(&self, incoming: Incoming) {
        // The session is gone: nobody is waiting.
        let _ = self.inbox.send(incoming);
    }

    /// Reports a failure against the request it concerns; one without an id is only logged.
    fn fail(&self, id: Option<&RequestId>, error: ClientError) {
        match id {
            Some(id) => self.push(Incoming::Failed { id: id.clone(), error }),
            None => tracing::debug!("{}: {error}", self.url),
        }
    }

    fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) -> AbortHandle {
        let task = tokio::spawn(task).abort_handle();
        let mut state = self.state();
        state.tasks.retain(|t| !t.is_finished());
        state.tasks.push(task.clone());
        task
    }

    fn abort_all(&self) {
        let (tasks, standalone) = {
            let mut state = self.state();
            (std::mem::take(&mut state.tasks), state.standalone.take())
        };
        tasks.iter().chain(&standalone).for_each(AbortHandle::abort);
    }

    /// The headers of a request that has no message of its own (`GET`, `DELETE`).
    fn era_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(version) = self.state().protocol_version.clone() {
            headers.insert(PROTOCOL_VERSION, version);
        }
        headers
    }

    /// A 404 to a request in this session: the server ended it, and the client must initialize anew.
    fn forget_session(&self, sent: &HeaderValue) {
        let mut state = self.state();
        if state.session.as_ref() == Some(sent) {
            tracing::debug!("{}: the session is gone (404)", self.url);
            state.session = None;
        }
    }

    /// Sends `call` with the current session and the authorizer's credentials; a refusal the authorizer can
    /// do better on is retried with its new credentials, a few times at most. Every other answer's headers go
    /// to the authorizer too (a new DPoP nonce).
    async fn exchange(&self, call: &Call) -> Result<Answer, ClientError> {
        let mut retries = 0;
        let target = RequestTarget { method: &call.method, url: &self.url };
        loop {
            let credentials = match &self.authorizer {
                Some(authorizer) => authorizer.authorization(target).await?,
                None => Credentials::default(),
            };
            let session = self.state().session.clone();
            let request = self.build(call, session.as_ref(), &credentials)?;
            let response = match tokio::time::timeout(self.timeout, self.client.request(request)).await {
                Ok(Ok(response)) => response,
                Ok(Err(e)) => {
                    return Err(ClientError::Transport(format!("{} {}: {}", call.method, self.url, chain(&e))));
                }
                Err(_) => {
                    let why = format!("{} {}: no answer within {:?}", call.method, self.url, self.timeout);
                    return Err(ClientError::Transport(why));
                }
            };
            if let Some(id) = response.headers().get(SESSION) {
                self.state().session = Some(id.clone());
            }
            if let Some(authorizer) = &self.authorizer {
                if retries < MAX_REAUTHORIZATIONS && refusal(&response) {
                    retries += 1;
                    let status = response.status().as_u16();
                    let refusal = Refusal { status, headers: response.headers(), sent: &credentials };
                    if authorizer.refused(target, refusal).await? {
                        continue;
                    }
                } else {
                    authorizer.answered(target, response.headers());
                }
            }
            return Ok(Answer { response, session });
        }
    }

    fn build(
        &self,
        call: &Call,
        session: Option<&HeaderValue>,
        credentials: &Credentials,
    ) -> Result<Request<Full<Bytes>>, ClientError> {
        let mut headers = self.headers.clone();
        for (name, value) in &call.headers {
            headers.insert(name, value.clone());
        }
        headers.insert(ACCEPT, HeaderValue::from_static(call.accept));
        if call.method == Method::POST {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static(JSON));
        }
        // What the authorizer gave, as it is; nothing of the user's headers under these names survives.
        for (name, value) in [(AUTHORIZATION, &credentials.authorization), (DPOP, &credentials.dpop)] {
            headers.remove(&name);
            if let Some(value) = value {
                let mut value = HeaderValue::try_from(value.as_str())
                    .map_err(|_| ClientError::Auth(format!("the authorizer's {name} value is not a valid header")))?;
                value.set_sensitive(true);
                headers.insert(name, value);
            }
        }
        if let Some(session) = session {
            headers.insert(SESSION, session.clone());
        }
        let mut request = Request::new(Full::new(call.body.clone()));
        *request.method_mut() = call.method.clone();
        *request.uri_mut() = self.uri.clone();
        *request.headers_mut() = headers;
        Ok(request)
    }

    /// One request's whole answer, onto the inbox.
    async fn request(self: Arc<Self>, call: Call, id: RequestId) {
        match self.exchange(&call).await {
            Ok(answer) => self.answer(answer, Some(&id)).await,
            Err(error) => self.push(Incoming::Failed { id, error }),
        }
    }

    async fn answer(self: &Arc<Self>, answer: Answer, id: Option<&RequestId>) {
        let status = answer.response.status();
        if status == StatusCode::ACCEPTED || status == StatusCode::NO_CONTENT {
            return;
        }
        if !status.is_success() {
            return self.error_status(answer, id).await;
        }
        if is_event_stream(&answer.response) {
            let body = answer.response.into_body();
            match id {
                Some(id) => self.follow(body, id).await,
                // Not expected for a notification; read it aside, never holding `send` up.
                None => {
                    let this = self.clone();
                    self.spawn(async move {
                        let mut body = body;
                        let _ = this.read_events(&mut body, &mut SseParser::new(this.max), None).await;
                    });
                }
            }
            return;
        }
        let content_type = header(&answer.response, CONTENT_TYPE.as_str()).unwrap_or("").to_owned();
        match self.read_body(answer.response.into_body()).await {
            Ok(body) if body.is_empty() && id.is_none() => {}
            Ok(body) => match String::from_utf8(body.to_vec()) {
                Ok(text) if serde_json::from_str::<IgnoredAny>(&text).is_ok() => self.push_message(text),
                _ => self.fail(
                    id,
                    ClientError::Protocol(format!(
                        "{}: HTTP {status} with Content-Type `{content_type}` is not a JSON-RPC message",
                        self.url
                    )),
                ),
            },
            Err(e) => self.fail(id, e),
        }
    }

    fn push_message(&self, text: String) {
        self.push(Incoming::Message(text));
    }

    /// An error status. Its body, when it is the JSON-RPC answer to the request, is the answer.
    async fn error_status(&self, answer: Answer, id: Option<&RequestId>) {
        let status = answer.response.status();
        if status == StatusCode::NOT_FOUND
            && let Some(sent) = &answer.session
        {
            self.forget_session(sent);
        }
        let body = match self.read_body(answer.response.into_body()).await {
            Ok(body) => String::from_utf8_lossy(&body).into_owned(),
            Err(e) => format!("({e})"),
        };
        let Some(id) = id else {
            tracing::debug!("{}: HTTP {status} to a message without id: {}", self.url, truncate(&body, SHOWN_BODY));
            return;
        };
        #[derive(Deserialize)]
        struct Reply {
            #[serde(default)]
            id: Option<RequestId>,
            #[serde(default)]
            result: Option<IgnoredAny>,
            #[serde(default)]
            error: Option<ErrorObject>,
        }
        match serde_json::from_str::<Reply>(&body) {
            Ok(reply) if reply.id.as_ref() == Some(id) && (reply.result.is_some() || reply.error.is_some()) => {
                self.push_message(body);
            }
            // An error naming no request (the authorization edge's, a malformed request's) is still this one's.
            Ok(Reply { id: None, error: Some(error), .. }) => {
                self.push(Incoming::Failed { id: id.clone(), error: ClientError::Rpc(error) });
            }
            _ => {
                let error = ClientError::Http { status: status.as_u16(), body: truncate(&body, SHOWN_BODY) };
                self.push(Incoming::Failed { id: id.clone(), error });
            }
        }
    }

    async fn read_body(&self, body: Body) -> Result<Bytes, ClientError> {
        match tokio::time::timeout(self.timeout, Limited::new(body, self.max).collect()).await {
            Ok(Ok(body)) => Ok(body.to_bytes()),
            Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => Err(ClientError::Protocol(format!(
                "{}: a response body over {} bytes (HttpOptions::max_message_bytes)",
                self.url, self.max
            ))),
            Ok(Err(e)) => {
                Err(ClientError::Transport(format!("{}: reading the response failed: {}", self.url, chain(&*e))))
            }
            Err(_) => {
                Err(ClientError::Transport(format!("{}: the response body took over {:?}", self.url, self.timeout)))
            }
        }
    }

    /// A request's SSE answer until its response, resumed with `Last-Event-ID` (after the server's `retry`)
    /// when the stream ends first — legacy servers may close it while the request goes on.
    async fn follow(&self, mut body: Body, id: &RequestId) {
        let mut parser = SseParser::new(self.max);
        let mut failures = 0;
        loop {
            let before = parser.last_event_id().map(str::to_owned);
            let (end, progress) = self.read_events(&mut body, &mut parser, Some(id)).await;
            if progress || parser.last_event_id() != before.as_deref() {
                failures = 0;
            }
            let broken = match end {
                End::Answered => return,
                End::TooLarge(max) => {
                    let why = format!("{}: an SSE event over {max} bytes (HttpOptions::max_message_bytes)", self.url);
                    return self.fail(Some(id), ClientError::Protocol(why));
                }
                End::Eof => None,
                End::Broken(why) => Some(why),
            };
            let Some(last) = parser.last_event_id().map(str::to_owned) else {
                let why = broken.map(|why| format!(" ({why})")).unwrap_or_default();
                let error = ClientError::Transport(format!("{}: the stream ended before the response{why}", self.url));
                return self.fail(Some(id), error);
            };
            match self.resume(&mut parser, &last, &mut failures, id).await {
                Some(resumed) => body = resumed,
                None => return,
            }
        }
    }

    /// Reconnects to a request's stream after `last`; `None` when it cannot be (the failure is reported).
    async fn resume(&self, parser: &mut SseParser, last: &str, failures: &mut u32, id: &RequestId) -> Option<Body> {
        let Ok(last) = HeaderValue::from_str(last) else {
            let error = ClientError::Protocol(format!("{}: the stream's event id cannot be sent back", self.url));
            self.fail(Some(id), error);
            return None;
        };
        let mut why = String::new();
        while *failures < MAX_RECONNECTS {
            *failures += 1;
            tokio::time::sleep(parser.retry().unwrap_or(DEFAULT_RETRY)).await;
            let mut headers = self.era_headers();
            headers.insert(LAST_EVENT_ID, last.clone());
            let call = Call { method: Method::GET, body: Bytes::new(), accept: EVENT_STREAM, headers };
            match self.exchange(&call).await {
                Ok(answer) if answer.response.status().is_success() && is_event_stream(&answer.response) => {
                    parser.reconnected();
                    return Some(answer.response.into_body());
                }
                Ok(answer) if answer.response.status().is_server_error() => {
                    why = format!("HTTP {}", answer.response.status());
                }
                Ok(answer) => {
                    self.error_status(answer, Some(id)).await;
                    return None;
                }
                Err(e) => why = e.to_string(),
            }
        }
        let error = ClientError::Transport(format!(
            "{}: the stream ended before the response and could not be resumed after {MAX_RECONNECTS} attempts ({why})",
            self.url
        ));
        self.fail(Some(id), error);
        None
    }

    /// Puts a stream's messages onto the inbox until it ends, or until the response to `id` arrived (the
    /// server ends the stream there anyway). Also says whether any message arrived.
    async fn read_events(&self, body: &mut Body, parser: &mut SseParser, id: Option<&RequestId>) -> (End, bool) {
        let mut events = Vec::new();
        let mut progress = false;
        loop {
            let frame = match body.frame().await {
                None => return (End::Eof, progress),
                Some(Err(e)) => return (End::Broken(chain(&e)), progress),
                Some(Ok(frame)) => frame,
            };
            let Ok(data) = frame.into_data() else { continue };
            if let Err(TooLarge(max)) = parser.feed(&data, &mut events) {
                return (End::TooLarge(max), progress);
            }
            for event in events.drain(..) {
                if event.event.as_deref().is_some_and(|kind| kind != "message") {
                    tracing::debug!("{}: an SSE event of type `{}` ignored", self.url, event.event.unwrap_or_default());
                    continue;
                }
                // Empty data: a priming event (its id and `retry` are what it says).
                if event.data.trim().is_empty() {
                    continue;
                }
                progress = true;
                let answered = id.is_some_and(|id| answers(&event.data, id));
                match id {
                    Some(id) => self.push(Incoming::OnStream { text: event.data, request: id.clone() }),
                    None => self.push_message(event.data),
                }
                if answered {
                    return (End::Answered, progress);
                }
            }
        }
    }

    /// The standalone stream, reopened (resumed, when the server gave event ids) whenever it ends, until
    /// the server refuses it or it keeps failing. `opened` hears when the first `GET` has its answer.
    async fn standalone(self: Arc<Self>, opened: oneshot::Sender<()>) {
        let mut opened = Some(opened);
        let mut parser = SseParser::new(self.max);
        let mut failures = 0;
        loop {
            let mut headers = self.era_headers();
            if let Some(last) = parser.last_event_id().and_then(|last| HeaderValue::from_str(last).ok()) {
                headers.insert(LAST_EVENT_ID, last);
            }
            let call = Call { method: Method::GET, body: Bytes::new(), accept: EVENT_STREAM, headers };
            let answer = self.exchange(&call).await;
            if let Some(opened) = opened.take() {
                let _ = opened.send(());
            }
            match answer {
                Ok(answer) if answer.response.status() == StatusCode::METHOD_NOT_ALLOWED => {
                    tracing::debug!("{}: the server offers no standalone stream (405)", self.url);
                    return;
                }
                Ok(answer) if answer.response.status().is_success() && is_event_stream(&answer.response) => {
                    let before = parser.last_event_id().map(str::to_owned);
                    let mut body = answer.response.into_body();
                    let (end, progress) = self.read_events(&mut body, &mut parser, None).await;
                    if progress || parser.last_event_id() != before.as_deref() {
                        failures = 0;
                    }
                    match end {
                        End::Broken(why) => tracing::debug!("{}: the standalone stream broke: {why}", self.url),
                        End::TooLarge(max) => tracing::debug!("{}: an SSE event over {max} bytes", self.url),
                        End::Eof | End::Answered => {}
                    }
                    parser.reconnected();
                }
                Ok(answer) if answer.response.status().is_server_error() => {
                    tracing::debug!("{}: the standalone stream: HTTP {}", self.url, answer.response.status());
                }
                Ok(answer) => {
                    let status = answer.response.status();
                    if status == StatusCode::NOT_FOUND
                        && let Some(sent) = &answer.session
                    {
                        self.forget_session(sent);
                    }
                    tracing::debug!("{}: the standalone stream was refused: HTTP {status}", self.url);
                    return;
                }
                Err(e) => tracing::debug!("the standalone stream: {e}"),
            }
            failures += 1;
            if failures > MAX_RECONNECTS {
                tracing::debug!("{}: the standalone stream keeps failing; given up", self.url);
                return;
            }
            tokio::time::sleep(parser.retry().unwrap_or(DEFAULT_RETRY)).await;
        }
    }
}

/// 401, or 403 whose challenge says `insufficient_scope` (a token that may be stepped up).
fn refusal(response: &Response<Body>) -> bool {
    match response.status() {
        StatusCode::UNAUTHORIZED => true,
        StatusCode::FORBIDDEN => response.headers().get_all(WWW_AUTHENTICATE).iter().any(|value| {
            let challenges = value.to_str().ok().and_then(crate::auth::parse_challenges).unwrap_or_default();
            challenges.iter().any(|c| {
                let scheme = &c.scheme;
                (scheme.eq_ignore_ascii_case("bearer") || scheme.eq_ignore_ascii_case("dpop"))
                    && c.param("error") == Some("insufficient_scope")
            })
        }),
        _ => false,
    }
}

fn header<'a>(response: &'a Response<Body>, name: &str) -> Option<&'a str> {
    response.headers().get(name).and_then(|v| v.to_str().ok())
}

fn is_event_stream(response: &Response<Body>) -> bool {
    let media = header(response, CONTENT_TYPE.as_str()).unwrap_or("").split(';').next().unwrap_or("");
    media.trim().eq_ignore_ascii_case(EVENT_STREAM)
}

/// Whether `data` is the response to `id` (not a request or notification that reuses the number).
fn answers(data: &str, id: &RequestId) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        #[serde(default)]
        id: Option<RequestId>,
        #[serde(default)]
        method: Option<IgnoredAny>,
    }
    serde_json::from_str::<Probe>(data).is_ok_and(|probe| probe.method.is_none() && probe.id.as_ref() == Some(id))
}

fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::{AccessToken, ProtectedResource, StaticTokens};
    use crate::client::BearerToken;
    use crate::context::Context;
    use crate::flow::Step;
    use crate::handler::{HandlerResult, ToolCall, ToolHandler};
    use crate::protocol::{CallToolResult, ListChanged, Tool};
    use crate::server::FastMcp;
    use crate::transport::http::McpService;
    use http_body::Frame;
    use http_body_util::combinators::BoxBody;
    use http_body_util::{Full, StreamBody};
    use hyper_util::rt::TokioIo;
    use serde_json::{Value, json};
    use std::convert::Infallible;
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
    use tokio::net::TcpListener;
    use tokio::sync::mpsc;
    use tokio::task::JoinHandle;
    use tokio::time::Instant;

    // ---- a server of ours ------------------------------------------------------------------------------

    /// A tool from an async fn of its context: `#[tool]` names `::fastmcp`, which this crate's own tests
    /// cannot.
    struct FnTool<F> {
        name: &'static str,
        run: F,
    }

    impl<F, Fut> ToolHandler for FnTool<F>
    where
        F: Fn(Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = String> + Send + 'static,
    {
        fn definition(&self) -> Tool {
            serde_json::from_value(json!({"name": self.name, "inputSchema": {"type": "object"}})).expect("a tool")
        }

        fn call(&self, call: ToolCall) -> crate::handler::BoxFuture<HandlerResult<CallToolResult>> {
            let done = (self.run)(call.context);
            Box::pin(async move { Ok(Step::Complete(CallToolResult::text(done.await))) })
        }
    }

    fn tool<F, Fut>(name: &'static str, run: F) -> FnTool<F>
    where
        F: Fn(Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = String> + Send + 'static,
    {
        FnTool { name, run }
    }

    fn hello() -> impl ToolHandler {
        tool("hello", |_| async { "hi".to_owned() })
    }

    /// What a server saw of one request.
    #[derive(Debug, Clone)]
    struct Seen {
        method: Method,
        headers: HeaderMap,
    }

    impl Seen {
        fn header(&self, name: &str) -> Option<&str> {
            self.headers.get(name).and_then(|v| v.to_str().ok())
        }
    }

    type Log = Arc<Mutex<Vec<Seen>>>;

    struct TestServer {
        url: String,
        seen: Log,
        accept: JoinHandle<()>,
    }

    impl Drop for TestServer {
        fn drop(&mut self) {
            self.accept.abort();
        }
    }

    impl TestServer {
        fn seen(&self) -> Vec<Seen> {
            self.seen.lock().unwrap().clone()
        }

        fn last(&self) -> Seen {
            self.seen().pop().expect("a request")
        }
    }

    async fn bind() -> (TcpListener, String) {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let url = format!("http://{}/mcp", listener.local_addr().expect("local addr"));
        (listener, url)
    }

    /// Serves `mcp` (HTTP/1.1 and h2c) on `listener`, recording every request.
    fn serve(listener: TcpListener, url: String, mcp: McpService) -> TestServer {
        let seen = Log::default();
        let log = seen.clone();
        let accept = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (mcp, log) = (mcp.clone(), log.clone());
                let service = hyper::service::service_fn(move |req: Request<Body>| {
                    log.lock().unwrap().push(Seen { method: req.method().clone(), headers: req.headers().clone() });
                    let mut mcp = mcp.clone();
                    async move { tower_service::Service::call(&mut mcp, req).await }
                });
                tokio::spawn(async move {
                    let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
                    let _ = builder.serve_connection(TokioIo::new(stream), service).await;
                });
            }
        });
        TestServer { url, seen, accept }
    }

    async fn start(server: FastMcp) -> TestServer {
        let (listener, url) = bind().await;
        serve(listener, url, McpService::new(server.build().expect("a server")))
    }

    // ---- a server by hand ------------------------------------------------------------------------------

    type HandBody = BoxBody<Bytes, std::io::Error>;

    fn full(status: u16, content_type: &str, text: &str) -> Response<HandBody> {
        let mut response = Response::new(Full::new(Bytes::from(text.to_owned())).map_err(|n| match n {}).boxed());
        *response.status_mut() = StatusCode::from_u16(status).unwrap();
        response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_str(content_type).unwrap());
        response
    }

    /// An SSE response sending `events`, then ending (`then_break: false`) or breaking the connection.
    fn sse(events: Vec<String>, then_break: Option<Arc<Mutex<Option<Instant>>>>) -> Response<HandBody> {
        let frames = futures_util::stream::unfold((events.into_iter(), then_break), |(mut events, broke)| async move {
            match events.next() {
                Some(event) => Some((Ok(Frame::data(Bytes::from(event))), (events, broke))),
                None => {
                    let broke = broke?;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    *broke.lock().unwrap() = Some(Instant::now());
                    Some((Err(std::io::Error::other("the connection drops")), (events, None)))
                }
            }
        });
        let mut response = Response::new(StreamBody::new(frames).boxed());
        response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(EVENT_STREAM));
        response
    }

    /// An HTTP/1.1 server answering each request with `handle`, recording every request.
    async fn by_hand<F>(handle: F) -> TestServer
    where
        F: Fn(&Seen) -> Response<HandBody> + Clone + Send + Sync + 'static,
    {
        let (listener, url) = bind().await;
        let seen = Log::default();
        let log = seen.clone();
        let accept = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (handle, log) = (handle.clone(), log.clone());
                let service = hyper::service::service_fn(move |req: Request<Body>| {
                    let seen = Seen { method: req.method().clone(), headers: req.headers().clone() };
                    log.lock().unwrap().push(seen.clone());
                    let response = handle(&seen);
                    async move { Ok::<_, Infallible>(response) }
                });
                tokio::spawn(
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service),
                );
            }
        });
        TestServer { url, seen, accept }
    }

    // ---- the client side -------------------------------------------------------------------------------

    type Rx = mpsc::UnboundedReceiver<Incoming>;

    fn transport(url: &str, options: HttpOptions) -> (HttpTransport, Rx) {
        let (tx, rx) = mpsc::unbounded_channel();
        (HttpTransport::new(url, options, tx).expect("a transport"), rx)
    }

    async fn next(rx: &mut Rx) -> Incoming {
        let next = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await;
        next.expect("something arrives in time").expect("the inbox is open")
    }

    async fn message(rx: &mut Rx) -> Value {
        message_on(rx).await.0
    }

    /// A message, and the request whose stream it came on (none: a JSON body, or the standalone stream).
    async fn message_on(rx: &mut Rx) -> (Value, Option<RequestId>) {
        match next(rx).await {
            Incoming::Message(text) => (serde_json::from_str(&text).expect("JSON"), None),
            Incoming::OnStream { text, request } => (serde_json::from_str(&text).expect("JSON"), Some(request)),
            other => panic!("not a message: {other:?}"),
        }
    }

    async fn failure(rx: &mut Rx) -> (RequestId, ClientError) {
        match next(rx).await {
            Incoming::Failed { id, error } => (id, error),
            other => panic!("not a failure: {other:?}"),
        }
    }

    /// Nothing more arrives for a while.
    async fn quiet(rx: &mut Rx) {
        if let Ok(more) = tokio::time::timeout(Duration::from_millis(300), rx.recv()).await {
            panic!("unexpected: {more:?}");
        }
    }

    fn request(id: Option<i64>, method: &str, params: Value, headers: &[(&str, &str)]) -> Outgoing {
        let mut json = json!({"jsonrpc": "2.0", "method": method, "params": params});
        if let Some(id) = id {
            json["id"] = json!(id);
        }
        Outgoing {
            json: json.to_string(),
            id: id.map(RequestId::Number),
            headers: headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect(),
        }
    }

    /// A modern request: the `_meta` envelope, and the headers that repeat it.
    fn modern(id: i64, method: &str, mut params: Value) -> Outgoing {
        let meta = params.get("_meta").cloned().unwrap_or_else(|| json!({}));
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { "name": "fastmcp-tests", "version": "0.0.0" },
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        for (key, value) in meta.as_object().unwrap() {
            params["_meta"][key] = value.clone();
        }
        let name = params.get("name").and_then(Value::as_str).map(str::to_owned);
        let mut headers = vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", method)];
        if let Some(name) = name.as_deref() {
            headers.push(("Mcp-Name", name));
        }
        request(Some(id), method, params, &headers)
    }

    fn legacy(id: Option<i64>, method: &str, params: Value) -> Outgoing {
        request(id, method, params, &[("MCP-Protocol-Version", "2025-11-25")])
    }

    fn initialize(capabilities: Value) -> Outgoing {
        let params = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": capabilities,
            "clientInfo": {"name": "fastmcp-tests", "version": "0.0.0"},
        });
        request(Some(1), "initialize", params, &[])
    }

    fn text(response: &Value) -> &str {
        response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("a text result: {response}"))
    }

    // ---- modern --------------------------------------------------------------------------------------

    #[tokio::test]
    async fn a_modern_request_is_answered_with_one_json_message() {
        let s = start(FastMcp::new("t").tool(hello())).await;
        let options = HttpOptions { headers: vec![("X-Tenant".into(), "acme".into())], ..HttpOptions::default() };
        let (t, mut rx) = transport(&s.url, options);
        let _exchange = t.send(modern(1, "tools/list", json!({}))).await.expect("sent");
        let response = message(&mut rx).await;
        assert_eq!(response["id"], 1, "{response}");
        assert_eq!(response["result"]["tools"][0]["name"], "hello", "{response}");
        let seen = s.last();
        assert_eq!(seen.method, Method::POST);
        assert_eq!(seen.header("content-type"), Some("application/json"));
        assert_eq!(seen.header("accept"), Some("application/json, text/event-stream"));
        assert_eq!(seen.header("mcp-protocol-version"), Some("2026-07-28"));
        assert_eq!(seen.header("mcp-method"), Some("tools/list"));
        assert_eq!(seen.header("x-tenant"), Some("acme"));
        assert!(seen.header("user-agent").is_some_and(|a| a.starts_with("fastmcp/")), "{seen:?}");
        assert_eq!(seen.header("mcp-session-id"), None);
        assert_eq!(t.session_id(), None, "the modern protocol has no sessions");
        quiet(&mut rx).await;
    }

    #[tokio::test]
    async fn a_modern_call_with_a_progress_token_streams_progress_then_the_response() {
        let steps = tool("steps", |ctx| async move {
            ctx.progress(1.0, Some(2.0), None).await;
            "done".to_owned()
        });
        let s = start(FastMcp::new("t").tool(steps)).await;
        let (t, mut rx) = transport(&s.url, HttpOptions::default());
        let params = json!({"name": "steps", "arguments": {}, "_meta": {"progressToken": "p"}});
        let _exchange = t.send(modern(2, "tools/call", params)).await.expect("sent");
        let progress = message(&mut rx).await;
        assert_eq!(progress["method"], "notifications/progress", "{progress}");
        assert_eq!(progress["params"]["progressToken"], "p");
        let response = message(&mut rx).await;
        assert_eq!(response["id"], 2);
        assert_eq!(text(&response), "done");
        assert_eq!(s.last().header("mcp-name"), Some("steps"));
        quiet(&mut rx).await;
    }

    #[tokio::test]
    async fn dropping_the_exchange_closes_the_stream_and_cancels_the_call() {
        let cancelled = Arc::new(AtomicBool::new(false));
        let seen = cancelled.clone();
        let wait = tool("wait", move |ctx| {
            // Watched aside: the server drops the handler's future as it cancels it.
            let (token, seen) = (ctx.cancellation().clone(), seen.clone());
            tokio::spawn(async move {
                token.cancelled().await;
                seen.store(true, Ordering::SeqCst);
            });
            async move {
                ctx.progress(1.0, None, None).await;
                std::future::pending::<String>().await
            }
        });
        let s = start(FastMcp::new("t").tool(wait)).await;
        let (t, mut rx) = transport(&s.url, HttpOptions::default());
        let params = json!({"name": "wait", "arguments": {}, "_meta": {"progressToken": 1}});
        let exchange = t.send(modern(3, "tools/call", params)).await.expect("sent");
        assert_eq!(message(&mut rx).await["method"], "notifications/progress", "the tool is running");
        assert!(!cancelled.load(Ordering::SeqCst));
        drop(exchange);
        let deadline = Instant::now() + Duration::from_secs(5);
        while !cancelled.load(Ordering::SeqCst) {
            assert!(Instant::now() < deadline, "the handler was not cancelled");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        quiet(&mut rx).await;
    }

    #[tokio::test]
    async fn error_statuses_with_a_json_rpc_body_are_the_answer() {
        let s = start(FastMcp::new("t").tool(hello())).await;
        let (t, mut rx) = transport(&s.url, HttpOptions::default());
        // Mcp-Name says another tool than the body: 400, -32020, naming the request.
        let mut mismatched = modern(5, "tools/call", json!({"name": "hello", "arguments": {}}));
        mismatched.headers.retain(|(name, _)| name != "Mcp-Name");
        mismatched.headers.push(("Mcp-Name".into(), "other".into()));
        let _exchange = t.send(mismatched).await.expect("sent");
        let response = message(&mut rx).await;
        assert_eq!(
            (response["id"].clone(), response["error"]["code"].clone()),
            (json!(5), json!(-32020)),
            "{response}"
        );

        // A session the server does not know: 404, and the session is forgotten.
        t.set_session_id("gone");
        let _exchange = t.send(legacy(Some(6), "tools/list", json!({}))).await.expect("sent");
        let response = message(&mut rx).await;
        assert_eq!(
            (response["id"].clone(), response["error"]["code"].clone()),
            (json!(6), json!(-32001)),
            "{response}"
        );
        assert_eq!(s.last().header("mcp-session-id"), Some("gone"));
        assert_eq!(t.session_id(), None, "a 404 ends the session");
    }

    #[tokio::test]
    async fn other_failures_are_reported_against_the_request() {
        let s = by_hand(|_| full(500, "text/plain", "boom")).await;
        let (t, mut rx) = transport(&s.url, HttpOptions::default());
        let _exchange = t.send(modern(1, "tools/list", json!({}))).await.expect("sent");
        let (id, error) = failure(&mut rx).await;
        assert_eq!(id, RequestId::Number(1));
        assert!(matches!(&error, ClientError::Http { status: 500, body } if body == "boom"), "{error:?}");

        let dead = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            format!("http://{}/mcp", listener.local_addr().unwrap())
        };
        let (t, mut rx) = transport(&dead, HttpOptions::default());
        let _exchange = t.send(modern(2, "tools/list", json!({}))).await.expect("sent");
        let (id, error) = failure(&mut rx).await;
        assert_eq!(id, RequestId::Number(2));
        let ClientError::Transport(why) = &error else { panic!("{error:?}") };
        assert!(why.starts_with(&format!("POST {dead}: ")) && why.contains("onnect"), "{why}");

        // https runs TLS (ring, webpki roots): against a plain-HTTP server the handshake fails, cleanly.
        let (t, mut rx) = transport(&s.url.replacen("http:", "https:", 1), HttpOptions::default());
        let _exchange = t.send(modern(3, "tools/list", json!({}))).await.expect("sent");
        let (_, error) = failure(&mut rx).await;
        assert!(matches!(&error, ClientError::Transport(why) if why.starts_with("POST https://")), "{error:?}");

        // Failures of messages without an id have nobody to tell.
        let _ = t.send(legacy(None, "notifications/initialized", json!({}))).await.expect("sent");
        quiet(&mut rx).await;

        assert!(HttpTransport::new("ftp://x/y", HttpOptions::default(), mpsc::unbounded_channel().0).is_err());
        let bad = HttpOptions { headers: vec![("X\n".into(), "v".into())], ..HttpOptions::default() };
        assert!(HttpTransport::new(&s.url, bad, mpsc::unbounded_channel().0).is_err());
    }

    // ---- legacy sessions ------------------------------------------------------------------------------

    #[tokio::test]
    // The server's deprecated push call is how this test has the server ask over the session's streams.
    #[allow(deprecated)]
    async fn a_legacy_session_is_opened_used_asked_over_its_streams_and_ended() {
        let roots = tool("roots", |ctx| async move {
            match ctx.list_roots().await {
                Ok(roots) => roots.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>().join(","),
                Err(e) => format!("no roots: {e}"),
            }
        });
        let changed = tool("changed", |ctx| async move {
            ctx.notify_list_changed(ListChanged::Tools);
            "announced".to_owned()
        });
        let s = start(FastMcp::new("t").tool(roots).tool(changed)).await;
        let (t, mut rx) = transport(&s.url, HttpOptions::default());

        let _exchange = t.send(initialize(json!({"roots": {}}))).await.expect("sent");
        let response = message(&mut rx).await;
        assert_eq!(response["result"]["protocolVersion"], "2025-11-25", "{response}");
        let session = t.session_id().expect("the server named a session");
        let _ = t.send(legacy(None, "notifications/initialized", json!({}))).await.expect("delivered");
        let seen = s.last();
        assert_eq!(seen.header("mcp-session-id"), Some(session.as_str()), "the session is named from now on");
        assert_eq!(seen.header("mcp-protocol-version"), Some("2025-11-25"));

        let _exchange = t.send(legacy(Some(2), "tools/list", json!({}))).await.expect("sent");
        assert_eq!(message(&mut rx).await["result"]["tools"].as_array().map(Vec::len), Some(2));

        // The shim's request to the client comes on the call's stream, saying so; the answer goes back as
        // a POST.
        let _call = t.send(legacy(Some(3), "tools/call", json!({"name": "roots", "arguments": {}}))).await.unwrap();
        let (asked, on) = message_on(&mut rx).await;
        assert_eq!(asked["method"], "roots/list", "{asked}");
        assert_eq!(on, Some(RequestId::Number(3)), "it belongs to the call");
        let answer = json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": [{"uri": "file:///work"}]}});
        let answer = Outgoing { json: answer.to_string(), id: None, headers: vec![] };
        let _ = t.send(answer).await.expect("delivered");
        let response = message(&mut rx).await;
        assert_eq!((response["id"].clone(), text(&response)), (json!(3), "file:///work"), "{response}");

        // Messages unrelated to any request come on the standalone stream.
        t.open_standalone().await;
        assert!(s.seen().iter().any(|seen| seen.method == Method::GET), "opened before it returns");
        let _call = t.send(legacy(Some(4), "tools/call", json!({"name": "changed", "arguments": {}}))).await.unwrap();
        let mut got = vec![message_on(&mut rx).await, message_on(&mut rx).await];
        got.sort_by_key(|(m, _)| m["id"].is_null());
        assert_eq!(got[0].0["id"], 4, "{got:?}");
        assert_eq!(
            got[1],
            (json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}}), None),
            "{got:?}"
        );
        let get = s.seen().into_iter().find(|seen| seen.method == Method::GET).unwrap();
        assert_eq!(get.header("accept"), Some(EVENT_STREAM));
        assert_eq!(get.header("mcp-session-id"), Some(session.as_str()));

        t.close().await;
        assert!(matches!(next(&mut rx).await, Incoming::Closed(None)));
        let delete = s.last();
        assert_eq!((&delete.method, delete.header("mcp-session-id")), (&Method::DELETE, Some(session.as_str())));
        assert_eq!(t.session_id(), None);
        assert!(matches!(t.send(legacy(Some(5), "ping", json!({}))).await, Err(ClientError::Closed)));
        quiet(&mut rx).await;
    }

    /// No credentials, but the stream's `GET` is slow to get them: it reaches the server well after the
    /// client could have sent its next request.
    struct SlowToOpen;

    impl Authorizer for SlowToOpen {
        fn authorization<'a>(&'a self, request: RequestTarget<'a>) -> BoxFuture<'a, Result<Credentials, ClientError>> {
            let slow = request.method == Method::GET;
            Box::pin(async move {
                if slow {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Ok(Credentials::default())
            })
        }

        fn refused<'a>(&'a self, _: RequestTarget<'a>, _: Refusal<'a>) -> BoxFuture<'a, Result<bool, ClientError>> {
            Box::pin(async { Ok(false) })
        }
    }

    #[tokio::test]
    async fn a_legacy_connect_returns_with_the_standalone_stream_open() {
        let s = start(FastMcp::new("t").tool(hello())).await;
        let options = HttpOptions { authorizer: Some(Arc::new(SlowToOpen)), ..HttpOptions::default() };
        let builder = crate::client::ClientBuilder::new("t", "0").era(crate::client::EraChoice::Legacy);
        let client = builder.http_options(options).http(&s.url).await.expect("connects");
        let methods: Vec<Method> = s.seen().iter().map(|seen| seen.method.clone()).collect();
        // `initialize`, `notifications/initialized`, then the stream: open before the client's first request,
        // so the server never has a request's answer and a new stream to choose between.
        assert_eq!(methods, [Method::POST, Method::POST, Method::GET]);
        client.close().await;
    }

    #[tokio::test]
    async fn a_stream_the_server_closes_mid_call_is_resumed() {
        let reconnect = tool("reconnect", |ctx| async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let closed = ctx.close_sse_stream();
            tokio::time::sleep(Duration::from_millis(50)).await;
            format!("closed: {closed}")
        });
        let server = FastMcp::new("t").tool(reconnect).sse_replay(16, 4, Duration::from_millis(100));
        let s = start(server).await;
        let (t, mut rx) = transport(&s.url, HttpOptions::default());
        let _exchange = t.send(initialize(json!({}))).await.expect("sent");
        message(&mut rx).await;
        let _call = t.send(legacy(Some(2), "tools/call", json!({"name": "reconnect", "arguments": {}}))).await.unwrap();
        let response = message(&mut rx).await;
        assert_eq!((response["id"].clone(), text(&response)), (json!(2), "closed: true"), "{response}");
        let get = s.last();
        assert_eq!(get.method, Method::GET, "the result came on a resumed stream");
        assert!(get.header("last-event-id").is_some(), "{get:?}");
        assert_eq!(get.header("mcp-session-id"), t.session_id().as_deref());
        quiet(&mut rx).await;
    }

    #[tokio::test]
    async fn a_broken_stream_is_resumed_with_last_event_id_after_the_servers_retry() {
        let broke = Arc::new(Mutex::new(None));
        let resumed_at = Arc::new(Mutex::new(None));
        let (b, r) = (broke.clone(), resumed_at.clone());
        let s = by_hand(move |seen| match seen.method {
            Method::POST => sse(vec!["id: s-1\nretry: 200\ndata: \n\n".into()], Some(b.clone())),
            _ if seen.header("last-event-id") == Some("s-1") => {
                *r.lock().unwrap() = Some(Instant::now());
                sse(vec![format!("id: s-2\ndata: {}\n\n", json!({"jsonrpc": "2.0", "id": 7, "result": {}}))], None)
            }
            _ => full(400, "text/plain", "no such stream"),
        })
        .await;
        let (t, mut rx) = transport(&s.url, HttpOptions::default());
        let _exchange = t.send(legacy(Some(7), "tools/call", json!({"name": "x"}))).await.expect("sent");
        let response = message(&mut rx).await;
        assert_eq!(response["id"], 7, "{response}");
        let waited = resumed_at.lock().unwrap().unwrap() - broke.lock().unwrap().unwrap();
        assert!(waited >= Duration::from_millis(200), "reconnected after {waited:?}, before the server's retry");
        let get = s.last();
        assert_eq!((&get.method, get.header("accept")), (&Method::GET, Some(EVENT_STREAM)));
        assert_eq!(get.header("mcp-protocol-version"), Some("2025-11-25"));
        quiet(&mut rx).await;
    }

    #[tokio::test]
    async fn a_stream_without_event_ids_that_ends_early_fails_the_request() {
        let note = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}});
        let s = by_hand(move |_| sse(vec![format!("data: {note}\n\n")], None)).await;
        let (t, mut rx) = transport(&s.url, HttpOptions::default());
        let _exchange = t.send(legacy(Some(8), "tools/call", json!({"name": "x"}))).await.expect("sent");
        assert_eq!(message(&mut rx).await["method"], "notifications/message");
        let (id, error) = failure(&mut rx).await;
        assert_eq!(id, RequestId::Number(8));
        assert!(
            matches!(&error, ClientError::Transport(why) if why.contains("ended before the response")),
            "{error:?}"
        );
        assert_eq!(s.seen().len(), 1, "nothing to resume from");
    }

    #[tokio::test]
    async fn a_server_without_a_standalone_stream_is_left_alone() {
        let s = by_hand(|_| full(405, "text/plain", "")).await;
        let (t, mut rx) = transport(&s.url, HttpOptions::default());
        t.open_standalone().await;
        assert_eq!(s.seen().len(), 1, "answered before it returns");
        quiet(&mut rx).await;
        assert_eq!(s.seen().len(), 1, "no retries after a 405");
        t.close().await;
        assert!(matches!(next(&mut rx).await, Incoming::Closed(None)));
        assert_eq!(s.seen().len(), 1, "no session, no DELETE");
    }

    // ---- authorization --------------------------------------------------------------------------------

    async fn protected() -> TestServer {
        let (listener, url) = bind().await;
        let tokens = StaticTokens::new().token("secret", AccessToken::new().subject("alice"));
        let auth = ProtectedResource::new(tokens).resource(&url).authorization_server("https://as.example.com");
        let server = FastMcp::new("t").tool(hello()).auth(auth).build().expect("a server");
        serve(listener, url, McpService::new(server))
    }

    fn authorized(authorizer: impl Authorizer) -> HttpOptions {
        HttpOptions { authorizer: Some(Arc::new(authorizer)), ..HttpOptions::default() }
    }

    #[tokio::test]
    async fn a_bearer_token_is_sent_and_a_refusal_is_final() {
        let s = protected().await;
        let (t, mut rx) = transport(&s.url, authorized(BearerToken("secret".into())));
        let _exchange = t.send(modern(1, "tools/list", json!({}))).await.expect("sent");
        assert_eq!(message(&mut rx).await["result"]["tools"][0]["name"], "hello");
        assert_eq!(s.last().header("authorization"), Some("Bearer secret"));

        for options in [HttpOptions::default(), authorized(BearerToken("wrong".into()))] {
            let before = s.seen().len();
            let (t, mut rx) = transport(&s.url, options);
            let _exchange = t.send(modern(2, "tools/list", json!({}))).await.expect("sent");
            let (id, error) = failure(&mut rx).await;
            assert_eq!(id, RequestId::Number(2));
            // The edge's 401 carries a JSON-RPC error naming no request: it is this request's error.
            assert!(matches!(&error, ClientError::Rpc(e) if e.code == -32600), "{error:?}");
            assert_eq!(s.seen().len(), before + 1, "not retried");
        }
    }

    /// Starts with a bad token; each refusal is counted and, if `fixes`, mends it.
    struct Stepping {
        token: Mutex<String>,
        refusals: AtomicU32,
        challenges: Mutex<Vec<(u16, Option<String>)>>,
        fixes: bool,
    }

    impl Stepping {
        fn new(fixes: bool) -> Arc<Self> {
            let token = Mutex::new("wrong".into());
            Arc::new(Self { token, refusals: AtomicU32::new(0), challenges: Mutex::default(), fixes })
        }
    }

    impl Authorizer for Arc<Stepping> {
        fn authorization<'a>(&'a self, _: RequestTarget<'a>) -> BoxFuture<'a, Result<Credentials, ClientError>> {
            let credentials = Credentials::bearer(&self.token.lock().unwrap());
            Box::pin(async move { Ok(credentials) })
        }

        fn refused<'a>(
            &'a self,
            request: RequestTarget<'a>,
            refusal: Refusal<'a>,
        ) -> BoxFuture<'a, Result<bool, ClientError>> {
            assert!(request.url.ends_with("/mcp"), "{}", request.url);
            assert_eq!(refusal.sent, &Credentials::bearer(&self.token.lock().unwrap()), "told what it refused");
            self.refusals.fetch_add(1, Ordering::SeqCst);
            let challenge = refusal.headers.get(WWW_AUTHENTICATE).and_then(|v| v.to_str().ok()).map(str::to_owned);
            self.challenges.lock().unwrap().push((refusal.status, challenge));
            if self.fixes {
                *self.token.lock().unwrap() = "secret".into();
            }
            Box::pin(async { Ok(true) })
        }
    }

    /// Gives a proof of its own for each request (numbered, naming the method) and records what it is told.
    #[derive(Default)]
    struct Proving {
        made: AtomicU32,
        /// (method, url) of each request asked for.
        asked: Mutex<Vec<(Method, String)>>,
        /// The `DPoP-Nonce` of each answer it was told of.
        nonces: Mutex<Vec<Option<String>>>,
        refused: Mutex<Vec<(u16, Credentials)>>,
    }

    impl Authorizer for Arc<Proving> {
        fn authorization<'a>(&'a self, request: RequestTarget<'a>) -> BoxFuture<'a, Result<Credentials, ClientError>> {
            self.asked.lock().unwrap().push((request.method.clone(), request.url.to_owned()));
            let n = self.made.fetch_add(1, Ordering::SeqCst);
            let credentials = Credentials {
                authorization: Some("DPoP tok".into()),
                dpop: Some(format!("proof-{n}-{}", request.method)),
            };
            Box::pin(async move { Ok(credentials) })
        }

        fn refused<'a>(
            &'a self,
            _: RequestTarget<'a>,
            refusal: Refusal<'a>,
        ) -> BoxFuture<'a, Result<bool, ClientError>> {
            self.refused.lock().unwrap().push((refusal.status, refusal.sent.clone()));
            let retry = refusal.headers.contains_key("dpop-nonce");
            Box::pin(async move { Ok(retry) })
        }

        fn answered(&self, _: RequestTarget<'_>, headers: &HeaderMap) {
            let nonce = headers.get("dpop-nonce").and_then(|v| v.to_str().ok()).map(str::to_owned);
            self.nonces.lock().unwrap().push(nonce);
        }
    }

    #[tokio::test]
    async fn the_authorizers_headers_go_on_every_request_as_they_are() {
        let refused_once = Arc::new(AtomicBool::new(false));
        let once = refused_once.clone();
        let s = by_hand(move |seen| match seen.method {
            Method::POST if !once.swap(true, Ordering::SeqCst) => {
                let mut refusal = full(401, JSON, r#"{"error":"use_dpop_nonce"}"#);
                refusal
                    .headers_mut()
                    .insert(WWW_AUTHENTICATE, HeaderValue::from_static(r#"DPoP error="use_dpop_nonce""#));
                refusal.headers_mut().insert("dpop-nonce", HeaderValue::from_static("n-1"));
                refusal
            }
            Method::POST => {
                let mut answer = full(200, JSON, &json!({"jsonrpc": "2.0", "id": 1, "result": {}}).to_string());
                answer.headers_mut().insert("dpop-nonce", HeaderValue::from_static("n-2"));
                answer
            }
            _ => full(405, "text/plain", ""),
        })
        .await;
        let proving = Arc::new(Proving::default());
        // The user's headers under these names do not survive: the authorizer's are the only ones.
        let options = HttpOptions {
            headers: vec![("dpop".into(), "user's".into()), ("authorization".into(), "Basic x".into())],
            ..authorized(proving.clone())
        };
        let (t, mut rx) = transport(&s.url, options);
        let _exchange = t.send(modern(1, "tools/list", json!({}))).await.expect("sent");
        assert_eq!(message(&mut rx).await["id"], 1);
        let seen = s.seen();
        let sent: Vec<_> = seen.iter().map(|seen| (seen.header("authorization"), seen.header("dpop"))).collect();
        assert_eq!(sent, [(Some("DPoP tok"), Some("proof-0-POST")), (Some("DPoP tok"), Some("proof-1-POST"))]);
        assert_eq!(seen[0].headers.get_all("dpop").iter().count(), 1, "one proof");
        let refused = proving.refused.lock().unwrap().clone();
        assert_eq!(refused.len(), 1);
        assert_eq!((refused[0].0, refused[0].1.dpop.as_deref()), (401, Some("proof-0-POST")), "told what it refused");
        assert_eq!(*proving.nonces.lock().unwrap(), [Some("n-2".to_owned())], "told of the other answers");

        // The stream's GET has credentials of its own, for its method.
        t.open_standalone().await;
        let get = s.last();
        assert_eq!((get.header("authorization"), get.header("dpop")), (Some("DPoP tok"), Some("proof-2-GET")));
        let asked = proving.asked.lock().unwrap().clone();
        assert_eq!(asked.iter().map(|(m, _)| m.clone()).collect::<Vec<_>>(), [Method::POST, Method::POST, Method::GET]);
        assert!(asked.iter().all(|(_, url)| *url == s.url));
    }

    #[tokio::test]
    async fn a_refusal_the_authorizer_mends_is_retried_with_its_new_token() {
        let s = protected().await;
        let stepping = Stepping::new(true);
        let (t, mut rx) = transport(&s.url, authorized(stepping.clone()));
        let _exchange = t.send(modern(1, "tools/list", json!({}))).await.expect("sent");
        assert_eq!(message(&mut rx).await["id"], 1);
        assert_eq!(stepping.refusals.load(Ordering::SeqCst), 1);
        let (status, challenge) = stepping.challenges.lock().unwrap()[0].clone();
        assert_eq!(status, 401);
        assert!(challenge.as_deref().is_some_and(|c| c.starts_with("Bearer ")), "{challenge:?}");
        let tokens: Vec<_> = s.seen().iter().map(|seen| seen.header("authorization").unwrap().to_owned()).collect();
        assert_eq!(tokens, ["Bearer wrong", "Bearer secret"]);
    }

    #[tokio::test]
    async fn an_authorizer_that_never_gets_it_right_is_given_three_retries() {
        let s = protected().await;
        let stepping = Stepping::new(false);
        let (t, mut rx) = transport(&s.url, authorized(stepping.clone()));
        let _exchange = t.send(modern(1, "tools/list", json!({}))).await.expect("sent");
        let (_, error) = failure(&mut rx).await;
        assert!(matches!(error, ClientError::Rpc(_)), "the last refusal is the answer: {error:?}");
        assert_eq!(stepping.refusals.load(Ordering::SeqCst), 3);
        assert_eq!(s.seen().len(), 4);
    }
}

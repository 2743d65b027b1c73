//! The request-scoped `Context`: who is asking and on which era, and what a handler may do while it runs —
//! log, report progress, keep session state, notice cancellation, and (on legacy sessions) push requests
//! to the client.
//!
//! A handler takes it as a parameter (`ctx: Context`) or reaches it ambiently with [`Context::current`]. It
//! is never part of the input schema and is supplied fresh on every round. A hand-written flow also reads
//! the round's answers and its own request state here (see [`crate::flow::Flow`]).

use crate::auth::AccessToken;
use crate::cancel::Cancel;
use crate::error::{Error, Result};
use crate::flow::{
    Ask, ElicitAsk, ElicitForm, Elicitation, InputResponse, ListRoots, MANUAL_STEP, RequestState, Resume, Sample,
    Sampled,
};
use crate::protocol::{
    ClientCapabilities, Era, ErrorObject, Implementation, InputRequests, InputResponses, ListChanged, LoggingLevel,
    LoggingMessageParams, NOTIFY_MESSAGE, NOTIFY_PROGRESS, ProgressParams, ProgressToken, ProtocolVersion, RequestId,
    Root, notification_json,
};
use crate::state::StateError;
use crate::sync::lock;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

tokio::task_local! {
    static CURRENT: Context;
}

/// The eight RFC 5424 levels as methods, on [`Context`] and [`Logger`] (each has `log(level, data)`).
macro_rules! levels {
    () => {
        levels! {
            debug Debug, info Info, notice Notice, warning Warning, error Error, critical Critical, alert Alert,
            emergency Emergency
        }
    };
    ($($name:ident $level:ident),*) => {$(
        #[doc = concat!("Logs `message` at level `", stringify!($name), "` (see [`Context::log`]).")]
        pub async fn $name(&self, message: impl Into<String>) {
            self.log(LoggingLevel::$level, message.into()).await
        }
    )*};
}

/// What the runtime knows about the request being served, and what a handler may do while it runs: log
/// to the client, report progress, keep session state, notice cancellation. Cheap to clone.
///
/// Take it as a parameter of any `#[tool]`, `#[prompt]` or `#[resource]` fn (`ctx: Context` or
/// `ctx: &Context`; it is part of no schema), or reach it from anywhere inside the handler with
/// [`Context::current`]. Logging and progress never fail the handler, so it calls them unconditionally:
/// logs go out at or above the level the client set (see [`log`](Context::log)), progress only when the
/// request carried a progress token, and the rest is dropped.
///
/// ```
/// use fastmcp::prelude::*;
///
/// /// Import rows into the database, reporting progress.
/// #[tool]
/// async fn import(rows: Vec<String>, ctx: Context) -> Result<String> {
///     ctx.info(format!("importing {} rows", rows.len())).await;
///     let total = rows.len() as f64;
///     for (i, row) in rows.iter().enumerate() {
///         if ctx.is_cancelled() {
///             return Err(Error::msg("import cancelled"));
///         }
///         // … write `row` …
///         ctx.progress((i + 1) as f64, Some(total), Some(format!("imported {row}"))).await;
///     }
///     ctx.logger("db").debug("committed").await; // `logger: "db"` on the notification
///     Ok(format!("imported {} rows (request {})", rows.len(), ctx.request_id()))
/// }
/// # let _ = FastMcp::new("docs").tool(import);
/// ```
#[derive(Clone)]
pub struct Context {
    inner: Arc<Inner>,
}

/// The facts an era adapter establishes for one request before dispatch.
#[derive(Debug, Clone)]
pub struct Scope {
    /// The JSON-RPC id of the request ([`Context::request_id`]).
    pub request_id: RequestId,
    /// The revision the request is served on, which also fixes its era ([`Context::era`]).
    pub protocol_version: ProtocolVersion,
    /// The client's name and version, from `initialize` (legacy) or the request's `_meta` (modern), if given.
    pub client_info: Option<Implementation>,
    /// What the client declared it can do, which decides whether an `.ask()` can reach it.
    pub client_capabilities: ClientCapabilities,
}

/// A [`Scope`] as a context keeps it: the client's info and capabilities shared, not copied. A legacy
/// session's requests share its own; modern requests that declare the same `_meta` share what was read
/// from the first (see `era::request_meta`).
#[derive(Debug, Clone)]
pub(crate) struct Facts {
    pub request_id: RequestId,
    pub protocol_version: ProtocolVersion,
    pub client_info: Option<Arc<Implementation>>,
    pub client_capabilities: Arc<ClientCapabilities>,
}

impl From<Scope> for Facts {
    fn from(scope: Scope) -> Self {
        Self {
            request_id: scope.request_id,
            protocol_version: scope.protocol_version,
            client_info: scope.client_info.map(Arc::new),
            client_capabilities: Arc::new(scope.client_capabilities),
        }
    }
}

/// A future the traits below return, boxed so they stay object safe.
pub(crate) type Reply<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How a request's context reaches its own client. The era adapters implement it: a legacy session pushes
/// requests on the session (the same concurrent path the shim takes for `.ask()`), a modern request only
/// streams notifications on its response.
pub(crate) trait ClientLink: Send + Sync {
    /// Where notifications tied to this request (progress, log messages) go, as JSON text; `None` where they
    /// have nowhere to go.
    fn stream(&self) -> Option<&mpsc::Sender<String>>;
    /// Sends these input requests to the client as server-to-client requests, all at once, and waits for
    /// every answer. Fails with a message that says why where the request cannot reach its client.
    fn ask(&self, requests: InputRequests) -> Reply<'_, Result<InputResponses>>;
    /// Ends the response stream the request answers on, leaving the request running (resumable streams
    /// only); false where there is no such stream.
    fn close_stream(&self) -> bool {
        false
    }
}

/// What a handler may announce to every client that can hear it. The server implements it.
pub(crate) trait Announce: Send + Sync {
    fn list_changed(&self, list: ListChanged);
    fn resource_updated(&self, uri: String);
    /// The server itself, for the layer that knows its type (`Context::server`).
    fn as_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync>;
}

struct Inner {
    scope: Facts,
    auth: Option<Arc<AccessToken>>,
    http: Option<HttpRequest>,
    cancel: Cancel,
    /// Logs at or above this level are sent; `None` sends none.
    log_level: Option<LoggingLevel>,
    progress_token: Option<ProgressToken>,
    last_progress: Mutex<Option<f64>>,
    session: Session,
    client: Option<Arc<dyn ClientLink>>,
    announce: Option<Arc<dyn Announce>>,
    /// The answers and hand-written state of the round being run, once a round resumes. A request's rounds
    /// run one after another, so the latest is the one running.
    round: Mutex<Option<Arc<Round>>>,
    /// A refusal of the request state a hand-written flow read ([`Context::state`]): it ends the round as a
    /// protocol error even where the handler's own error type would make it a tool error.
    refusal: Mutex<Option<ErrorObject>>,
}

/// What a resumed round brings a handler: the client's answers, and a hand-written flow's state.
struct Round {
    responses: Arc<InputResponses>,
    /// The state a hand-written flow minted last round; `None` for a compiled body's round (its carried
    /// locals are its own) or a round that carried none.
    state: Option<Box<RawValue>>,
}

type OnClose = Box<dyn FnOnce() + Send>;

/// State kept per connection (a legacy session, or a stdio connection in either era): values handlers
/// store, and what to run when it ends.
pub(crate) struct SessionState {
    values: Mutex<HashMap<String, Value>>,
    /// Counts changes to `values`: a copy kept elsewhere (a session record in a shared store) is saved
    /// when it moved.
    changes: AtomicU64,
    /// `None` once the session has ended.
    on_close: Mutex<Option<Vec<OnClose>>>,
}

impl Default for SessionState {
    fn default() -> Self {
        Self { values: Mutex::default(), changes: AtomicU64::new(0), on_close: Mutex::new(Some(Vec::new())) }
    }
}

impl SessionState {
    fn values(&self) -> MutexGuard<'_, HashMap<String, Value>> {
        lock(&self.values)
    }

    /// `values`, to change them.
    fn change(&self) -> MutexGuard<'_, HashMap<String, Value>> {
        self.changes.fetch_add(1, Ordering::Relaxed);
        lock(&self.values)
    }

    /// How many times the values changed.
    pub(crate) fn changes(&self) -> u64 {
        self.changes.load(Ordering::Relaxed)
    }

    /// A copy of the values, to store.
    pub(crate) fn snapshot(&self) -> HashMap<String, Value> {
        self.values().clone()
    }

    /// Takes the values another copy of the session stored (not a change of this one).
    pub(crate) fn restore(&self, values: HashMap<String, Value>) {
        *self.values() = values;
    }

    /// Runs `callback` when the session ends, or now if it already has: each callback runs exactly once.
    fn on_close(&self, callback: OnClose) {
        let mut callbacks = lock(&self.on_close);
        match callbacks.as_mut() {
            Some(callbacks) => callbacks.push(callback),
            None => {
                drop(callbacks);
                callback();
            }
        }
    }

    /// Runs the `on_close` callbacks, the first time it is called; later calls do nothing.
    pub(crate) fn close(&self) {
        let callbacks = lock(&self.on_close).take().unwrap_or_default();
        for callback in callbacks {
            callback();
        }
    }
}

/// The session a request belongs to, or why it has none (the message a handler's error carries).
#[derive(Clone)]
pub(crate) enum Session {
    Open(Arc<SessionState>),
    None(&'static str),
}

impl Default for Session {
    fn default() -> Self {
        Session::None("this context has no session (it was made outside a server, with `Context::new`)")
    }
}

/// What an era adapter adds to a request's [`Facts`].
#[derive(Default)]
pub(crate) struct Extras {
    pub cancel: Option<Cancel>,
    pub log_level: Option<LoggingLevel>,
    pub progress_token: Option<ProgressToken>,
    pub session: Session,
    pub client: Option<Arc<dyn ClientLink>>,
    pub announce: Option<Arc<dyn Announce>>,
    pub auth: Option<Arc<AccessToken>>,
    /// The HTTP request the message came in (HTTP transports only).
    pub http: Option<HttpRequest>,
}

/// Headers [`HttpRequest`] withholds from handlers: credentials and the session's bearer id, which a handler
/// has no business reading and could leak into logs or results.
pub const REDACTED_HEADERS: [&str; 8] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "mcp-session-id",
    "x-api-key",
    "x-auth-token",
    "x-amz-security-token",
];

/// What an HTTP transport knows of the request a message came in: it implements this over its own types,
/// so nothing is copied unless a handler asks.
pub(crate) trait HttpParts: Send + Sync {
    fn method(&self) -> &str;
    /// The request target in origin form: the path and the query.
    fn target(&self) -> &str;
    /// Every header, names lowercase, in the order received.
    fn headers(&self) -> Vec<(&str, &[u8])>;
    /// The address the request's connection comes from, when the transport knows it.
    fn peer(&self) -> Option<IpAddr>;
}

/// The HTTP request a message came in: method, path and headers, with [`REDACTED_HEADERS`] withheld.
/// `None` from [`Context::http`] on stdio. Cheap to clone.
#[derive(Clone)]
pub struct HttpRequest {
    parts: Arc<dyn HttpParts>,
}

impl HttpRequest {
    // Made by the HTTP transport only: a stdio-only build never makes one.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn new(parts: Arc<dyn HttpParts>) -> Self {
        Self { parts }
    }

    /// `POST`, on every request a handler serves.
    pub fn method(&self) -> &str {
        self.parts.method()
    }

    /// The path and query the request was sent to (`/mcp`, `/mcp?tenant=a`).
    pub fn path(&self) -> &str {
        self.parts.target()
    }

    /// The address of the client's connection: known under `serve_http`, or where the application that
    /// mounts `McpService` puts a `PeerAddr` in the request's extensions.
    pub fn peer_addr(&self) -> Option<IpAddr> {
        self.parts.peer()
    }

    /// Whether a header of this name is withheld from handlers.
    pub fn is_redacted(name: &str) -> bool {
        REDACTED_HEADERS.iter().any(|r| r.eq_ignore_ascii_case(name))
    }

    /// The first value of a header (any case), if present, not redacted and UTF-8.
    pub fn header(&self, name: &str) -> Option<&str> {
        if Self::is_redacted(name) {
            return None;
        }
        self.parts
            .headers()
            .into_iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .and_then(|(_, v)| std::str::from_utf8(v).ok())
    }

    /// Every header that is not redacted (names lowercase, values that are UTF-8), in the order received.
    pub fn headers(&self) -> Vec<(&str, &str)> {
        self.parts
            .headers()
            .into_iter()
            .filter(|(n, _)| !Self::is_redacted(n))
            .filter_map(|(n, v)| Some((n, std::str::from_utf8(v).ok()?)))
            .collect()
    }

    /// The names of the headers the request had but that are withheld.
    pub fn redacted_headers(&self) -> Vec<&str> {
        let mut names: Vec<&str> =
            self.parts.headers().into_iter().map(|(n, _)| n).filter(|n| Self::is_redacted(n)).collect();
        names.dedup();
        names
    }
}

impl std::fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpRequest")
            .field("method", &self.method())
            .field("path", &self.path())
            .field("headers", &self.headers())
            .field("redacted", &self.redacted_headers())
            .finish()
    }
}

const NO_CLIENT: &str = "this context has no client to send requests to (it was made outside a server, with \
     `Context::new`)";

impl Context {
    /// A context for this scope alone: no notifications, no session (public for testing handlers).
    pub fn new(scope: Scope) -> Self {
        Self::with(scope.into(), Extras::default())
    }

    pub(crate) fn with(scope: Facts, extras: Extras) -> Self {
        Self {
            inner: Arc::new(Inner {
                scope,
                auth: extras.auth,
                http: extras.http,
                cancel: extras.cancel.unwrap_or_default(),
                log_level: extras.log_level,
                progress_token: extras.progress_token,
                last_progress: Mutex::new(None),
                session: extras.session,
                client: extras.client,
                announce: extras.announce,
                round: Mutex::new(None),
                refusal: Mutex::new(None),
            }),
        }
    }

    /// Tells every client that can hear it that a list changed (see `Server::notify_list_changed`). Does
    /// nothing on a context made with [`Context::new`].
    pub fn notify_list_changed(&self, list: ListChanged) {
        if let Some(announce) = &self.inner.announce {
            announce.list_changed(list);
        }
    }

    /// Tells the clients subscribed to the resource at `uri` that it changed (see
    /// `Server::notify_resource_updated`). Does nothing on a context made with [`Context::new`].
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        if let Some(announce) = &self.inner.announce {
            announce.resource_updated(uri.into());
        }
    }

    /// What announces changes: the server, when this context is a server's.
    pub(crate) fn announcer(&self) -> Option<Arc<dyn Announce>> {
        self.inner.announce.clone()
    }

    /// Closes the SSE stream this request's response travels on, while the handler goes on running: the
    /// client reconnects after the advertised `retry` delay with `Last-Event-ID` and receives the rest,
    /// response included (SEP-1699 polling). For long operations behind proxies that cut idle connections.
    /// Only legacy HTTP sessions have resumable streams; elsewhere this does nothing and returns false.
    pub fn close_sse_stream(&self) -> bool {
        self.inner.client.as_ref().is_some_and(|client| client.close_stream())
    }

    /// The same request's facts for work that outlives the request (a task's runner): cancelled by
    /// `cancel`, reaching the client only through `client` (no stream to send logs or progress on), with no
    /// session; list changes still go out.
    pub(crate) fn detached(&self, cancel: Cancel, client: Arc<dyn ClientLink>, session: Session) -> Self {
        let extras = Extras {
            cancel: Some(cancel),
            auth: self.inner.auth.clone(),
            http: self.inner.http.clone(),
            announce: self.inner.announce.clone(),
            session,
            client: Some(client),
            ..Extras::default()
        };
        Context::with(self.inner.scope.clone(), extras)
    }

    /// The context of the request the current task is serving: inside a handler (and everything it awaits),
    /// the handler's own. `None` outside a request — in `main`, in a test without a server, and in a task
    /// the handler spawned with `tokio::spawn` (a task-local does not follow a spawn): spawn with
    /// [`Context::spawn`], or wrap the future in [`Context::scope`], to carry it along.
    pub fn current() -> Option<Context> {
        CURRENT.try_with(Clone::clone).ok()
    }

    /// Runs `fut` with this context as [`Context::current`]: for work a handler hands to another task, a
    /// `tokio::task::JoinSet` or a stream, whose code reads the context ambiently.
    ///
    /// ```
    /// # use fastmcp::prelude::*;
    /// async fn audited(step: &str) {
    ///     if let Some(ctx) = Context::current() {
    ///         ctx.info(format!("{step} done")).await;
    ///     }
    /// }
    ///
    /// #[tool]
    /// async fn migrate(ctx: Context) -> String {
    ///     let mut jobs = tokio::task::JoinSet::new();
    ///     for step in ["schema", "data"] {
    ///         jobs.spawn(ctx.clone().scope(audited(step)));
    ///     }
    ///     jobs.join_all().await;
    ///     "migrated".into()
    /// }
    /// ```
    pub async fn scope<F: Future>(self, fut: F) -> F::Output {
        CURRENT.scope(self, fut).await
    }

    /// Spawns `fut` on the tokio runtime with this context as its [`Context::current`] (`tokio::spawn` of
    /// [`scope`](Self::scope)). The task outlives the request if the handler doesn't await it: its logs and
    /// progress go nowhere once the response is sent, and [`cancellation`](Self::cancellation) is how it
    /// learns that the request was cancelled or timed out.
    ///
    /// ```
    /// # use fastmcp::prelude::*;
    /// #[tool]
    /// async fn warm_cache(ctx: Context) -> Result<String> {
    ///     let job = ctx.spawn(async {
    ///         let ctx = Context::current().expect("carried into the task");
    ///         ctx.info("warming").await;
    ///         ctx.request_id().to_string()
    ///     });
    ///     Ok(format!("warmed for request {}", job.await?))
    /// }
    /// ```
    pub fn spawn<F>(&self, fut: F) -> tokio::task::JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        tokio::spawn(self.clone().scope(fut))
    }

    /// The JSON-RPC id of the request being served.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.scope.request_id
    }

    /// The protocol revision this request is served on.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.scope.protocol_version
    }

    /// Legacy (session, `initialize`) or modern (stateless, per-request `_meta`).
    pub fn era(&self) -> Era {
        self.inner.scope.protocol_version.era()
    }

    /// The client's name and version, when it said.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.scope.client_info.as_deref()
    }

    /// What the client declared it can do: at `initialize` (legacy) or in this request's `_meta` (modern).
    /// A handler can check it to choose another way than an `.ask()` the client could not answer.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.scope.client_capabilities
    }

    /// The caller's verified access token, when the server is a protected resource (see [`crate::auth`]):
    /// its subject, client, scopes and claims.
    pub fn auth(&self) -> Option<&AccessToken> {
        self.inner.auth.as_deref()
    }

    /// The HTTP request this message came in — method, path and headers, credentials withheld (see
    /// [`HttpRequest`]); `None` on stdio.
    pub fn http(&self) -> Option<&HttpRequest> {
        self.inner.http.as_ref()
    }

    // ---- cancellation ------------------------------------------------------------------------------------

    /// Fires when the client cancels the request (`notifications/cancelled`, or a modern HTTP response stream
    /// closing) or its time runs out. The handler's future is dropped then too; the token is for work the
    /// handler handed elsewhere (spawned tasks, blocking threads).
    pub fn cancellation(&self) -> &CancellationToken {
        self.inner.cancel.token()
    }

    /// Cancels the request (its time ran out): [`cancellation`](Self::cancellation) fires.
    pub(crate) fn cancel(&self) {
        self.inner.cancel.cancel();
    }

    /// Whether [`cancellation`](Self::cancellation) has fired: for a handler's own loop to check between
    /// steps of long work.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    // ---- logging -----------------------------------------------------------------------------------------

    /// Sends a log message to the client at `level`, if the client asked for that level: on a legacy session
    /// through `logging/setLevel` (everything until it does), on the modern protocol through the request's
    /// `_meta` log level (nothing without one). Never fails the handler.
    pub async fn log(&self, level: LoggingLevel, data: impl Serialize) {
        self.log_as(None, level, data).await
    }

    async fn log_as(&self, logger: Option<&str>, level: LoggingLevel, data: impl Serialize) {
        let Some(threshold) = self.inner.log_level else { return };
        if level < threshold {
            return;
        }
        let data = serde_json::to_value(data).unwrap_or_else(|e| Value::String(format!("<unserializable: {e}>")));
        let logger = logger.map(str::to_owned);
        self.notify(NOTIFY_MESSAGE, LoggingMessageParams { level, logger, data }).await;
    }

    levels!();

    /// Log messages under a logger name (the `logger` field of `notifications/message`):
    /// `ctx.logger("db").info("connected").await`.
    pub fn logger(&self, name: impl Into<String>) -> Logger {
        Logger { ctx: self.clone(), name: name.into().into() }
    }

    // ---- progress ----------------------------------------------------------------------------------------

    /// Reports progress, if the client sent a progress token (a no-op otherwise). Progress must increase: a
    /// value not above the last one sent is dropped.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        let Some(token) = &self.inner.progress_token else { return };
        {
            let mut last = self.inner.last_progress.lock().unwrap_or_else(|p| p.into_inner());
            if last.is_some_and(|last| progress <= last) || !progress.is_finite() {
                return;
            }
            *last = Some(progress);
        }
        let params = ProgressParams { progress_token: token.clone(), progress, total, message };
        self.notify(NOTIFY_PROGRESS, params).await;
    }

    async fn notify(&self, method: &str, params: impl Serialize) {
        let Some(stream) = self.inner.client.as_ref().and_then(|client| client.stream()) else { return };
        match notification_json(method, params) {
            Ok(line) => {
                let _ = stream.send(line).await;
                // The task that writes it out was just woken onto this thread, where nothing else runs until
                // this one yields: a handler computing on without awaiting would hold the message back to its
                // end. (Where the transport polls the request itself, up to its first wait, the request then
                // goes on in a task of its own: the transport is free to write the message, and to read on.)
                tokio::task::yield_now().await;
            }
            Err(e) => tracing::warn!("a {method} notification could not be serialized: {e}"),
        }
    }

    // ---- session state -----------------------------------------------------------------------------------

    fn session(&self) -> Result<&SessionState> {
        match &self.inner.session {
            Session::Open(state) => Ok(state),
            Session::None(why) => Err(Error::msg(why)),
        }
    }

    /// A value this session stored under `key`. Errors where there is no session (the modern protocol).
    pub fn get<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>> {
        let value = self.session()?.values().get(key).cloned();
        value.map(serde_json::from_value).transpose().map_err(Error::from)
    }

    /// Stores a value for later requests on this session.
    pub fn set(&self, key: impl Into<String>, value: impl Serialize) -> Result<()> {
        let value = serde_json::to_value(value)?;
        self.session()?.change().insert(key.into(), value);
        Ok(())
    }

    /// Removes a stored value; true if there was one.
    pub fn delete(&self, key: &str) -> Result<bool> {
        Ok(self.session()?.change().remove(key).is_some())
    }

    /// Runs `callback` once, when this session ends: a legacy HTTP session is deleted or reaped, a stdio
    /// connection closes (stdio's one session serves both eras). If it has already ended, `callback` runs
    /// now. Where there is no session (modern HTTP, legacy HTTP without sessions, a task) this does nothing:
    /// nothing will end.
    pub fn on_close(&self, callback: impl FnOnce() + Send + 'static) {
        match &self.inner.session {
            Session::Open(state) => state.on_close(Box::new(callback)),
            Session::None(_) => tracing::debug!("on_close without a session: nothing to watch"),
        }
    }

    // ---- hand-written flows --------------------------------------------------------------------------------

    /// Takes in the round a request resumes with: its answers, and a hand-written flow's state.
    pub(crate) fn enter_round(&self, resume: &Resume) {
        let state = (resume.step == MANUAL_STEP && resume.locals.get().trim() != "null").then(|| resume.locals.clone());
        let round = Round { responses: Arc::clone(&resume.responses), state };
        *lock(&self.inner.round) = Some(Arc::new(round));
        // A refusal belongs to the round that read the state.
        lock(&self.inner.refusal).take();
    }

    fn round(&self) -> Option<Arc<Round>> {
        lock(&self.inner.round).clone()
    }

    /// The client's answers this round brought, by key; empty on a first round. Each round has only its own
    /// answers: carry what later rounds need in the request state.
    pub fn input_responses(&self) -> InputResponses {
        self.round().map(|round| InputResponses::clone(&round.responses)).unwrap_or_default()
    }

    /// The answer under `key`, told apart by its shape: an elicitation's, a sampling result, roots, or
    /// missing.
    pub fn input_response(&self, key: &str) -> InputResponse {
        InputResponse::of(self.round().as_deref().and_then(|round| round.responses.get(key)))
    }

    /// The content of the elicitation answered under `key`, if the user accepted and it deserializes into
    /// `T`; `None` when missing, declined, cancelled or of another shape. The content is untrusted: check
    /// what you use (or read it with [`answer`](Self::answer) and an `#[elicit]` form, which validates).
    pub fn accepted<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        let content = self.input_response(key).accepted_content()?.clone();
        serde_json::from_value(Value::Object(content)).ok()
    }

    /// The answer under `key`, read as the ask that asked it reads its own (`ctx.answer::<ElicitAsk<Confirm>>
    /// ("confirm")?`, `ctx.answer::<Sample>("notes")?`, `ctx.answer::<ListRoots>("roots")?`): an `#[elicit]`
    /// form is validated. A missing or malformed answer is `-32602`.
    pub fn answer<A: Ask>(&self, key: &str) -> Result<A::Output> {
        let round = self.round();
        let responses = round.as_ref().map(|round| &*round.responses);
        A::answer(key, responses.unwrap_or(&InputResponses::new())).map_err(Error::invalid_params)
    }

    /// Request state for a hand-written flow's next round, to return in
    /// [`InputRequired::state`](crate::flow::InputRequired::state). The value travels as the macro's carried
    /// locals do: on the modern protocol sealed into `requestState` with the server's keys (see `FastMcp::request_state`),
    /// bound to this method, target, arguments, principal and handler, and verified before the next round
    /// runs; on a legacy session kept in-process by the shim. It fails (`-32603`) only if `value` does not
    /// serialize.
    pub fn mint_state<T: Serialize + ?Sized>(&self, value: &T) -> Result<RequestState> {
        RequestState::of(value)
    }

    /// The state a hand-written flow minted last round, verified; `None` on a first round and after a round
    /// that carried none. A state that does not deserialize into `T` is refused as any bad request state is
    /// — `-32602` "Invalid or expired requestState" — and the round ends with that error even if the
    /// handler turns it into a tool error of its own.
    pub fn state<T: DeserializeOwned>(&self) -> Result<Option<T>> {
        let Some(round) = self.round() else { return Ok(None) };
        let Some(state) = &round.state else { return Ok(None) };
        serde_json::from_str(state.get()).map(Some).map_err(|e| {
            let refused = StateError::Undecodable { line: e.line(), column: e.column() };
            tracing::warn!(reason = refused.kind(), "requestState refused: {refused}");
            *lock(&self.inner.refusal) = Some(refused.to_error_object());
            Error::from(refused)
        })
    }

    /// The request-state refusal [`state`](Self::state) recorded this round, if any.
    pub(crate) fn take_refusal(&self) -> Option<Error> {
        lock(&self.inner.refusal).take().map(Error::rpc)
    }

    // ---- deprecated push calls -----------------------------------------------------------------------------

    /// Sends one request to the client and waits for its answer (legacy sessions only), by the path the
    /// legacy shim takes for `.ask()`. Prefer `.ask()`, which works on both eras.
    async fn push<A: Ask>(&self, ask: A) -> Result<A::Output> {
        let Some(client) = &self.inner.client else { return Err(Error::msg(NO_CLIENT)) };
        let mut requests = InputRequests::new();
        ask.requests("push", &mut requests);
        let responses = client.ask(requests).await?;
        A::answer("push", &responses).map_err(Error::invalid_params)
    }

    /// Asks the client's model directly, on a legacy session only (elsewhere an error naming `.ask()`).
    #[deprecated(
        note = "works only on legacy sessions; use `Sample::prompt(..).ask().await?` in the handler body, which works on both protocol eras"
    )]
    pub async fn sample(&self, sample: Sample) -> Result<Sampled> {
        self.push(sample).await
    }

    /// Shows the user a form directly, on a legacy session only (elsewhere an error naming `.ask()`).
    #[deprecated(
        note = "works only on legacy sessions; use `T::elicit(..).ask().await?` in the handler body, which works on both protocol eras"
    )]
    pub async fn elicit<T: ElicitForm>(&self, message: impl Into<String>) -> Result<Elicitation<T>> {
        self.push::<ElicitAsk<T>>(T::elicit(message)).await
    }

    /// Asks the client for its roots directly, on a legacy session only (elsewhere an error naming `.ask()`).
    #[deprecated(
        note = "works only on legacy sessions; use `ListRoots.ask().await?` in the handler body, which works on both protocol eras"
    )]
    pub async fn list_roots(&self) -> Result<Vec<Root>> {
        self.push(ListRoots).await
    }
}

/// A handler's log messages under one logger name ([`Context::logger`]), at the same levels and with the
/// same gating as [`Context::log`].
#[derive(Clone, Debug)]
pub struct Logger {
    ctx: Context,
    name: Arc<str>,
}

impl Logger {
    /// The logger's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sends a log message under this logger's name at `level` (see [`Context::log`]).
    pub async fn log(&self, level: LoggingLevel, data: impl Serialize) {
        self.ctx.log_as(Some(&self.name), level, data).await
    }

    levels!();
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").field("scope", &self.inner.scope).field("cancelled", &self.is_cancelled()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::InputRequired;
    use serde_json::json;
    use std::sync::atomic::{AtomicU32, Ordering};

    struct Parts(Vec<(&'static str, &'static [u8])>);

    impl HttpParts for Parts {
        fn method(&self) -> &str {
            "POST"
        }
        fn target(&self) -> &str {
            "/mcp?x=1"
        }
        fn headers(&self) -> Vec<(&str, &[u8])> {
            self.0.clone()
        }
        fn peer(&self) -> Option<IpAddr> {
            None
        }
    }

    fn scope() -> Scope {
        Scope {
            request_id: RequestId::Number(1),
            protocol_version: ProtocolVersion::LATEST_LEGACY,
            client_info: None,
            client_capabilities: ClientCapabilities::default(),
        }
    }

    #[test]
    fn credentials_never_reach_a_handler() {
        let http = HttpRequest::new(Arc::new(Parts(vec![
            ("authorization", b"Bearer t"),
            ("x-trace", b"abc"),
            ("cookie", b"a=1"),
            ("cookie", b"b=2"),
            ("x-bytes", b"\xff"),
            ("mcp-session-id", b"s"),
        ])));
        assert_eq!((http.method(), http.path()), ("POST", "/mcp?x=1"));
        assert_eq!(http.header("X-Trace"), Some("abc"));
        assert_eq!(http.header("Authorization"), None);
        assert_eq!(http.header("x-bytes"), None, "not UTF-8");
        assert_eq!(http.headers(), [("x-trace", "abc")]);
        assert_eq!(http.redacted_headers(), ["authorization", "cookie", "mcp-session-id"]);
        assert!(!format!("{http:?}").contains("Bearer"));
    }

    /// A link whose notifications go into a channel, and that can't ask.
    struct Streamed(mpsc::Sender<String>);

    impl ClientLink for Streamed {
        fn stream(&self) -> Option<&mpsc::Sender<String>> {
            Some(&self.0)
        }
        fn ask(&self, _: InputRequests) -> Reply<'_, Result<InputResponses>> {
            Box::pin(async { Err(Error::msg("no client here")) })
        }
    }

    /// Sending a notification yields once it is sent, so the task that writes it out (woken on this thread)
    /// runs before the handler goes on.
    #[test]
    fn a_notification_yields_once_it_is_sent() {
        let (tx, mut rx) = mpsc::channel(4);
        let extras = Extras {
            progress_token: Some(ProgressToken::String("p".into())),
            client: Some(Arc::new(Streamed(tx))),
            ..Extras::default()
        };
        let ctx = Context::with(scope().into(), extras);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let mut progress = std::pin::pin!(ctx.progress(1.0, None, None));
        assert!(progress.as_mut().poll(&mut cx).is_pending(), "it yields");
        assert!(rx.try_recv().unwrap().contains("notifications/progress"), "once the message is sent");
        assert!(progress.poll(&mut cx).is_ready());
        let unasked = Context::new(scope());
        let mut unasked = std::pin::pin!(unasked.progress(1.0, None, None));
        assert!(unasked.as_mut().poll(&mut cx).is_ready(), "nothing to send (no token): no yield");
    }

    #[test]
    fn on_close_runs_each_callback_once() {
        let state = Arc::new(SessionState::default());
        let ran = Arc::new(AtomicU32::new(0));
        let ctx = Context::with(scope().into(), Extras { session: Session::Open(state.clone()), ..Extras::default() });
        let count = |ran: &Arc<AtomicU32>| {
            let ran = ran.clone();
            move || {
                ran.fetch_add(1, Ordering::SeqCst);
            }
        };
        ctx.on_close(count(&ran));
        ctx.on_close(count(&ran));
        state.close();
        state.close();
        assert_eq!(ran.load(Ordering::SeqCst), 2);
        ctx.on_close(count(&ran));
        assert_eq!(ran.load(Ordering::SeqCst), 3, "after the end, at once");
        Context::new(scope()).on_close(count(&ran));
        assert_eq!(ran.load(Ordering::SeqCst), 3, "no session: nothing to watch, and no error");
    }

    #[test]
    fn a_round_brings_its_answers_and_the_flows_state() {
        let ctx = Context::new(scope());
        assert_eq!(ctx.state::<u32>().unwrap(), None, "a first round");
        assert!(ctx.input_responses().is_empty());
        let state = ctx.mint_state(&7u32).unwrap();
        let suspension = InputRequired::new().state(state).into_suspension().unwrap();
        let mut responses = InputResponses::new();
        responses.insert_value("form", &json!({"action": "accept", "content": {"name": "Ada"}})).unwrap();
        responses.insert_value("roots", &json!({"roots": [{"uri": "file:///a"}]})).unwrap();
        ctx.enter_round(&Resume { step: suspension.step, locals: suspension.locals, responses: Arc::new(responses) });
        assert_eq!(ctx.state::<u32>().unwrap(), Some(7));
        assert_eq!(ctx.accepted::<serde_json::Map<String, Value>>("form").unwrap()["name"], "Ada");
        assert_eq!(ctx.answer::<ListRoots>("roots").unwrap()[0].uri, "file:///a");
        assert!(matches!(ctx.input_response("roots"), InputResponse::Roots(r) if r.len() == 1));
        assert_eq!(ctx.input_response("other"), InputResponse::Missing);
        assert_eq!(ctx.answer::<ListRoots>("form").unwrap_err().code(), Some(-32602), "a malformed answer");

        let e = ctx.state::<String>().unwrap_err();
        assert_eq!(e.to_error_object(Era::Modern).data, Some(json!({"reason": "invalid_request_state"})));
        assert!(ctx.take_refusal().is_some(), "recorded for the round");

        // A compiled body's carried locals are not a hand-written state.
        ctx.enter_round(&Resume {
            step: 1,
            locals: RawValue::from_string("[1]".into()).unwrap(),
            responses: Default::default(),
        });
        assert_eq!(ctx.state::<Vec<u32>>().unwrap(), None);
    }

    #[test]
    fn an_input_required_must_ask_or_carry_state() {
        let e = InputRequired::new().into_suspension().unwrap_err();
        assert!(e.to_string().contains("at least one input request"), "{e}");
        let e = InputRequired::new().elicit("k", "Why?", json!("not a schema")).unwrap_err();
        assert!(e.to_string().contains("JSON object"), "{e}");
        let asked = InputRequired::new().ask("r", ListRoots).into_suspension().unwrap();
        assert_eq!((asked.step, asked.locals.get()), (MANUAL_STEP, "null"));
        assert!(asked.requests.contains_key("r"));
    }
}

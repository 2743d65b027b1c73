//! The request-scoped `Context`: who is asking and on which era, and what a handler may do while it runs —
//! log, report progress, keep session state, notice cancellation, and (on legacy sessions) push requests
//! to the client.
//!
//! A handler takes it as a parameter (`ctx: Context`) or reaches it ambiently with [`Context::current`]. It
//! is never part of the input schema and is supplied fresh on every round.

use crate::auth::AccessToken;
use crate::error::{Error, Result};
use crate::flow::{Ask, ElicitAsk, ElicitForm, Elicitation, ListRoots, Sample, Sampled};
use crate::protocol::{
    ClientCapabilities, Era, Implementation, InputRequests, InputResponses, ListChanged, LoggingLevel,
    LoggingMessageParams, NOTIFY_MESSAGE, NOTIFY_PROGRESS, ProgressParams, ProgressToken, ProtocolVersion, RequestId,
    Root, notification_json,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

tokio::task_local! {
    static CURRENT: Context;
}

/// What the runtime knows about the request being served. Cheap to clone.
#[derive(Clone)]
pub struct Context {
    inner: Arc<Inner>,
}

/// The facts an era adapter establishes for one request before dispatch.
#[derive(Debug, Clone)]
pub struct Scope {
    pub request_id: RequestId,
    pub protocol_version: ProtocolVersion,
    pub client_info: Option<Implementation>,
    pub client_capabilities: ClientCapabilities,
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
    scope: Scope,
    auth: Option<Arc<AccessToken>>,
    cancel: CancellationToken,
    /// Logs at or above this level are sent; `None` sends none.
    log_level: Option<LoggingLevel>,
    progress_token: Option<ProgressToken>,
    last_progress: Mutex<Option<f64>>,
    session: Session,
    client: Option<Arc<dyn ClientLink>>,
    announce: Option<Arc<dyn Announce>>,
}

/// State kept per legacy connection: values handlers store, and what to run when the session ends.
#[derive(Default)]
pub(crate) struct SessionState {
    values: Mutex<HashMap<String, Value>>,
    on_close: Mutex<Vec<Box<dyn FnOnce() + Send>>>,
}

impl SessionState {
    fn values(&self) -> std::sync::MutexGuard<'_, HashMap<String, Value>> {
        self.values.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs the `on_close` callbacks, once.
    pub(crate) fn close(&self) {
        let callbacks = std::mem::take(&mut *self.on_close.lock().unwrap_or_else(|p| p.into_inner()));
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

/// What an era adapter adds to a [`Scope`] beyond the bare facts.
#[derive(Default)]
pub(crate) struct Extras {
    pub cancel: Option<CancellationToken>,
    pub log_level: Option<LoggingLevel>,
    pub progress_token: Option<ProgressToken>,
    pub session: Session,
    pub client: Option<Arc<dyn ClientLink>>,
    pub announce: Option<Arc<dyn Announce>>,
    pub auth: Option<Arc<AccessToken>>,
}

const NO_CLIENT: &str = "this context has no client to send requests to (it was made outside a server, with \
     `Context::new`)";

impl Context {
    /// A context for this scope alone: no notifications, no session (public for testing handlers).
    pub fn new(scope: Scope) -> Self {
        Self::with(scope, Extras::default())
    }

    pub(crate) fn with(scope: Scope, extras: Extras) -> Self {
        Self {
            inner: Arc::new(Inner {
                scope,
                auth: extras.auth,
                cancel: extras.cancel.unwrap_or_default(),
                log_level: extras.log_level,
                progress_token: extras.progress_token,
                last_progress: Mutex::new(None),
                session: extras.session,
                client: extras.client,
                announce: extras.announce,
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
    pub(crate) fn detached(&self, cancel: CancellationToken, client: Arc<dyn ClientLink>, session: Session) -> Self {
        let extras = Extras {
            cancel: Some(cancel),
            auth: self.inner.auth.clone(),
            announce: self.inner.announce.clone(),
            session,
            client: Some(client),
            ..Extras::default()
        };
        Context::with(self.inner.scope.clone(), extras)
    }

    /// The context of the request the current task is serving, if any.
    pub fn current() -> Option<Context> {
        CURRENT.try_with(Clone::clone).ok()
    }

    /// Runs `fut` with this context as [`Context::current`].
    pub(crate) async fn scope<F: Future>(self, fut: F) -> F::Output {
        CURRENT.scope(self, fut).await
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
        self.inner.scope.client_info.as_ref()
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

    // ---- cancellation ------------------------------------------------------------------------------------

    /// Fires when the client cancels the request (`notifications/cancelled`, or a modern HTTP response stream
    /// closing) or its time runs out. The handler's future is dropped then too; the token is for work the
    /// handler handed elsewhere (spawned tasks, blocking threads).
    pub fn cancellation(&self) -> &CancellationToken {
        &self.inner.cancel
    }

    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    // ---- logging -----------------------------------------------------------------------------------------

    /// Sends a log message to the client at `level`, if the client asked for that level: on a legacy session
    /// through `logging/setLevel` (everything until it does), on the modern protocol through the request's
    /// `_meta` log level (nothing without one). Never fails the handler.
    pub async fn log(&self, level: LoggingLevel, data: impl Serialize) {
        let Some(threshold) = self.inner.log_level else { return };
        if level < threshold {
            return;
        }
        let data = serde_json::to_value(data).unwrap_or_else(|e| Value::String(format!("<unserializable: {e}>")));
        self.notify(NOTIFY_MESSAGE, LoggingMessageParams { level, logger: None, data }).await;
    }

    pub async fn debug(&self, message: impl Into<String>) {
        self.log(LoggingLevel::Debug, message.into()).await
    }

    pub async fn info(&self, message: impl Into<String>) {
        self.log(LoggingLevel::Info, message.into()).await
    }

    pub async fn notice(&self, message: impl Into<String>) {
        self.log(LoggingLevel::Notice, message.into()).await
    }

    pub async fn warning(&self, message: impl Into<String>) {
        self.log(LoggingLevel::Warning, message.into()).await
    }

    pub async fn error(&self, message: impl Into<String>) {
        self.log(LoggingLevel::Error, message.into()).await
    }

    pub async fn critical(&self, message: impl Into<String>) {
        self.log(LoggingLevel::Critical, message.into()).await
    }

    pub async fn alert(&self, message: impl Into<String>) {
        self.log(LoggingLevel::Alert, message.into()).await
    }

    pub async fn emergency(&self, message: impl Into<String>) {
        self.log(LoggingLevel::Emergency, message.into()).await
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
        self.session()?.values().insert(key.into(), value);
        Ok(())
    }

    /// Removes a stored value; true if there was one.
    pub fn delete(&self, key: &str) -> Result<bool> {
        Ok(self.session()?.values().remove(key).is_some())
    }

    /// Runs `callback` when this session ends (the connection closes).
    pub fn on_close(&self, callback: impl FnOnce() + Send + 'static) -> Result<()> {
        self.session()?.on_close.lock().unwrap_or_else(|p| p.into_inner()).push(Box::new(callback));
        Ok(())
    }

    // ---- deprecated push calls -----------------------------------------------------------------------------

    /// Sends one request to the client and waits for its answer (legacy sessions only), by the path the
    /// legacy shim takes for `.ask()`. Prefer `.ask()`, which works on both eras.
    async fn push<A: Ask>(&self, ask: A) -> Result<A::Output> {
        let Some(client) = &self.inner.client else { return Err(Error::msg(NO_CLIENT)) };
        let mut requests = InputRequests::new();
        ask.requests("push", &mut requests);
        let mut responses = client.ask(requests).await?;
        A::answer("push", &mut responses).map_err(Error::invalid_params)
    }

    /// Deprecated: asks the client's model directly. Prefer `Sample::prompt(..).ask().await`.
    pub async fn sample(&self, sample: Sample) -> Result<Sampled> {
        self.push(sample).await
    }

    /// Deprecated: shows the user a form directly. Prefer `T::elicit(..).ask().await`.
    pub async fn elicit<T: ElicitForm>(&self, message: impl Into<String>) -> Result<Elicitation<T>> {
        self.push::<ElicitAsk<T>>(T::elicit(message)).await
    }

    /// Deprecated: asks the client for its roots directly. Prefer `ListRoots.ask().await`.
    pub async fn list_roots(&self) -> Result<Vec<Root>> {
        self.push(ListRoots).await
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").field("scope", &self.inner.scope).field("cancelled", &self.is_cancelled()).finish()
    }
}

//! One connection's traffic: requests correlated with their responses, the server's notifications handed
//! to the handler, and (legacy) the server's own requests answered by the handlers.

use super::error::ClientError;
use super::handlers::{Handlers, ServerNotification};
use super::transport::{Exchange, Incoming, Outgoing, Transport};
use crate::protocol::{
    CancelledParams, ElicitAction, ElicitParams, ElicitResult, ErrorObject, Inbound, JsonObject, ListChanged,
    ListRootsResult, META_SUBSCRIPTION_ID, METHOD_CREATE_MESSAGE, METHOD_ELICIT, METHOD_LIST_ROOTS, NOTIFY_CANCELLED,
    RequestId, error_json, notification_json, response_json,
};
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};

type Answer = Result<Box<RawValue>, ClientError>;

pub(crate) struct Session {
    transport: Arc<dyn Transport>,
    pending: Mutex<HashMap<RequestId, oneshot::Sender<Answer>>>,
    next_id: AtomicI64,
    handlers: Handlers,
    /// Headers every message of a legacy session carries once it is open (`MCP-Protocol-Version`).
    session_headers: Mutex<Vec<(String, String)>>,
    /// Whether cancelling a request takes `notifications/cancelled` (legacy, and stdio) rather than closing
    /// its stream (modern HTTP).
    notify_cancel: AtomicBool,
    closed: AtomicBool,
    /// Subscriptions, each with the notifications it takes.
    watchers: Mutex<HashMap<u64, Watcher>>,
    next_watcher: AtomicI64,
    /// Legacy calls whose server requests go to their caller rather than to the handlers (see
    /// [`super::bridge`]), by request id.
    routes: Mutex<HashMap<RequestId, mpsc::UnboundedSender<Asked>>>,
    /// The handlers answering the server's requests now: a closed connection stops them, so a handler still
    /// waiting (a user who never answers) doesn't keep the session, its transport and connections alive.
    answering: Mutex<Vec<tokio::task::AbortHandle>>,
}

/// A server's request for input, passed to the caller of the request it belongs to.
pub(crate) struct Asked {
    pub method: String,
    pub params: Value,
    pub reply: oneshot::Sender<Result<Value, ErrorObject>>,
}

/// Which notifications a subscription takes.
pub(crate) enum Filter {
    /// A modern listen stream's: tagged with its request id.
    Tagged(RequestId),
    /// A legacy `resources/subscribe`: updates of this resource.
    Resource(String),
}

struct Watcher {
    filter: Filter,
    tx: mpsc::UnboundedSender<ServerNotification>,
}

impl Session {
    /// A session over `transport`, reading what `inbox` receives until the connection closes.
    pub fn start(
        transport: Arc<dyn Transport>,
        inbox: mpsc::UnboundedReceiver<Incoming>,
        handlers: Handlers,
    ) -> Arc<Self> {
        let session = Arc::new(Self {
            notify_cancel: AtomicBool::new(!transport.closes_streams()),
            transport,
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicI64::new(1),
            handlers,
            session_headers: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
            watchers: Mutex::new(HashMap::new()),
            next_watcher: AtomicI64::new(1),
            routes: Mutex::new(HashMap::new()),
            answering: Mutex::new(Vec::new()),
        });
        tokio::spawn(read(Arc::downgrade(&session), inbox));
        session
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, oneshot::Sender<Answer>>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn handlers(&self) -> &Handlers {
        &self.handlers
    }

    pub fn transport(&self) -> &Arc<dyn Transport> {
        &self.transport
    }

    /// The session is a legacy one from now on: its messages carry `headers`, and cancelling takes a
    /// notification whatever the transport.
    pub fn opened_legacy(&self, headers: Vec<(String, String)>) {
        *self.session_headers.lock().unwrap_or_else(|p| p.into_inner()) = headers;
        self.notify_cancel.store(true, Ordering::Relaxed);
    }

    fn with_session_headers(&self, mut headers: Vec<(String, String)>) -> Vec<(String, String)> {
        headers.extend(self.session_headers.lock().unwrap_or_else(|p| p.into_inner()).iter().cloned());
        headers
    }

    /// The id the next request will have, taken now (a subscription filters on it before it is sent).
    pub fn reserve_id(&self) -> RequestId {
        RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Sends a request and waits for its response's result. Dropping the future cancels the request: a
    /// `notifications/cancelled` goes out, or (modern HTTP) its stream is closed.
    pub async fn request(
        self: &Arc<Self>,
        method: &str,
        params: Value,
        headers: Vec<(String, String)>,
    ) -> Result<Box<RawValue>, ClientError> {
        let id = self.reserve_id();
        self.request_as(id, method, params, headers).await
    }

    /// As [`request`](Self::request), with an id taken from [`reserve_id`](Self::reserve_id).
    pub async fn request_as(
        self: &Arc<Self>,
        id: RequestId,
        method: &str,
        params: Value,
        headers: Vec<(String, String)>,
    ) -> Result<Box<RawValue>, ClientError> {
        if self.closed.load(Ordering::Relaxed) {
            return Err(ClientError::Closed);
        }
        let json = serde_json::to_string(&serde_json::json!({
            "jsonrpc": "2.0", "id": id, "method": method, "params": params,
        }))
        .map_err(|e| ClientError::Protocol(format!("the request could not be serialized: {e}")))?;
        let (tx, rx) = oneshot::channel();
        self.pending().insert(id.clone(), tx);
        let mut guard = InFlight { session: self.clone(), id: Some(id.clone()), exchange: None };
        let outgoing = Outgoing { json, id: Some(id), headers: self.with_session_headers(headers) };
        guard.exchange = Some(self.transport.send(outgoing).await?);
        let answer = rx.await.unwrap_or(Err(ClientError::Closed));
        guard.id = None; // answered: nothing to cancel
        answer
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Value) -> Result<(), ClientError> {
        let json = notification_json(method, params)
            .map_err(|e| ClientError::Protocol(format!("the notification could not be serialized: {e}")))?;
        let outgoing = Outgoing { json, id: None, headers: self.with_session_headers(Vec::new()) };
        self.transport.send(outgoing).await.map(drop)
    }

    fn settle(&self, id: &RequestId, answer: Answer) {
        match self.pending().remove(id) {
            Some(waiter) => {
                let _ = waiter.send(answer);
            }
            None => tracing::debug!("a response to request {id}, which is not waiting"),
        }
    }

    /// A subscription's channel: the notifications `filter` takes, until [`unwatch`](Self::unwatch).
    pub fn watch(&self, filter: Filter) -> (u64, mpsc::UnboundedReceiver<ServerNotification>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let id = self.next_watcher.fetch_add(1, Ordering::Relaxed) as u64;
        self.watchers.lock().unwrap_or_else(|p| p.into_inner()).insert(id, Watcher { filter, tx });
        (id, rx)
    }

    pub fn unwatch(&self, id: u64) {
        self.watchers.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
    }

    fn close_all(&self, why: Option<String>) {
        self.closed.store(true, Ordering::Relaxed);
        // Subscriptions end with the connection.
        self.watchers.lock().unwrap_or_else(|p| p.into_inner()).clear();
        let error = why.map_or(ClientError::Closed, ClientError::Transport);
        for (_, waiter) in self.pending().drain() {
            let _ = waiter.send(Err(error.clone()));
        }
        std::mem::take(&mut *self.answering.lock().unwrap_or_else(|p| p.into_inner()))
            .iter()
            .for_each(tokio::task::AbortHandle::abort);
    }

    /// The server's notification, to the handler.
    fn notification(&self, method: &str, params: Option<&RawValue>) {
        fn parse<T: serde::de::DeserializeOwned>(raw: Option<&RawValue>) -> Option<T> {
            raw.and_then(|p| serde_json::from_str(p.get()).ok())
        }
        let notification = match method {
            "notifications/progress" => parse(params).map(ServerNotification::Progress),
            "notifications/message" => parse(params).map(ServerNotification::Log),
            "notifications/tools/list_changed" => Some(ServerNotification::ListChanged(ListChanged::Tools)),
            "notifications/prompts/list_changed" => Some(ServerNotification::ListChanged(ListChanged::Prompts)),
            "notifications/resources/list_changed" => Some(ServerNotification::ListChanged(ListChanged::Resources)),
            "notifications/resources/updated" => parse(params)
                .and_then(|p: Value| p.get("uri").and_then(Value::as_str).map(str::to_owned))
                .map(|uri| ServerNotification::ResourceUpdated { uri }),
            _ => None,
        };
        let notification = notification
            .unwrap_or_else(|| ServerNotification::Other { method: method.to_owned(), params: parse(params) });
        // A listen stream's notifications carry its request id; legacy updates go by resource.
        let tag: Option<RequestId> = parse::<Value>(params)
            .and_then(|p| p.get("_meta")?.get(META_SUBSCRIPTION_ID).cloned())
            .and_then(|id| serde_json::from_value(id).ok());
        for watcher in self.watchers.lock().unwrap_or_else(|p| p.into_inner()).values() {
            let takes = match (&watcher.filter, &notification) {
                (Filter::Tagged(id), _) => tag.as_ref() == Some(id),
                (Filter::Resource(uri), ServerNotification::ResourceUpdated { uri: updated }) => uri == updated,
                (Filter::Resource(_), _) => false,
            };
            if takes {
                let _ = watcher.tx.send(notification.clone());
            }
        }
        self.handlers.notify(notification);
    }

    /// From now until [`unroute`](Self::unroute), the server's requests that belong to request `id` go
    /// to `to` instead of the handlers.
    pub fn route(&self, id: RequestId, to: mpsc::UnboundedSender<Asked>) {
        self.routes.lock().unwrap_or_else(|p| p.into_inner()).insert(id, to);
    }

    pub fn unroute(&self, id: &RequestId) {
        self.routes.lock().unwrap_or_else(|p| p.into_inner()).remove(id);
    }

    /// Where a server request goes: the route of the request it came with (HTTP); on stdio, where nothing
    /// says, the one routed call when there is exactly one — with several, none can be told from the others.
    fn route_for(&self, related: Option<&RequestId>) -> Option<mpsc::UnboundedSender<Asked>> {
        let routes = self.routes.lock().unwrap_or_else(|p| p.into_inner());
        match related {
            Some(id) => routes.get(id).cloned(),
            None if !self.transport.relates_requests() && routes.len() == 1 => routes.values().next().cloned(),
            None => None,
        }
    }

    /// A legacy server's request to the client: answered by the caller of the request it belongs to when
    /// that caller asked for it, else by the handlers.
    async fn answer(
        self: Arc<Self>,
        id: RequestId,
        method: String,
        params: Option<Box<RawValue>>,
        related: Option<RequestId>,
    ) {
        let params: Value = params.and_then(|p| serde_json::from_str(p.get()).ok()).unwrap_or(Value::Null);
        let route = if method == "ping" { None } else { self.route_for(related.as_ref()) };
        let result = match route {
            Some(route) => {
                let (reply, answered) = oneshot::channel();
                let gone = || ErrorObject::internal("the request this belongs to has ended");
                match route.send(Asked { method: method.clone(), params, reply }) {
                    Ok(()) => answered.await.unwrap_or_else(|_| Err(gone())),
                    Err(_) => Err(gone()),
                }
            }
            None => answer_input(&self.handlers, &method, params).await,
        };
        let json = match result {
            Ok(result) => response_json(&id, result),
            Err(error) => error_json(Some(&id), &error),
        };
        let outgoing = Outgoing { json, id: None, headers: self.with_session_headers(Vec::new()) };
        if let Err(e) = self.transport.send(outgoing).await {
            tracing::debug!("answering the server's {method} failed: {e}");
        }
    }
}

/// What the handlers answer to one request for input: a legacy server-to-client request, or one key of a
/// modern round. A request without a handler is `-32601`, as the spec has clients answer what they did not
/// declare.
pub(crate) async fn answer_input(handlers: &Handlers, method: &str, params: Value) -> Result<Value, ErrorObject> {
    let invalid = |e: serde_json::Error| ErrorObject::invalid_params(format!("Invalid params for {method}: {e}"));
    let refused = |why: String| ErrorObject::new(-1, why);
    let to_value = |v: Result<Value, serde_json::Error>| v.map_err(|e| ErrorObject::internal(e.to_string()));
    match method {
        METHOD_ELICIT => match &handlers.elicit {
            Some(elicit) => {
                let params: ElicitParams = serde_json::from_value(params).map_err(invalid)?;
                let schema = params.requested_schema.clone();
                let mut answer = elicit(params).await.map_err(refused)?;
                apply_defaults(&mut answer, schema.as_deref());
                to_value(serde_json::to_value(answer))
            }
            None => Err(ErrorObject::method_not_found(method)),
        },
        METHOD_CREATE_MESSAGE => match &handlers.sample {
            Some(sample) => {
                let answer = sample(serde_json::from_value(params).map_err(invalid)?).await.map_err(refused)?;
                to_value(serde_json::to_value(answer))
            }
            None => Err(ErrorObject::method_not_found(method)),
        },
        METHOD_LIST_ROOTS => match &handlers.roots {
            Some(roots) => {
                to_value(serde_json::to_value(ListRootsResult { roots: roots.as_ref().clone(), meta: None }))
            }
            None => Err(ErrorObject::method_not_found(method)),
        },
        "ping" => Ok(serde_json::json!({})),
        _ => Err(ErrorObject::method_not_found(method)),
    }
}

/// An accepted form's fields the answer left out take the schema's defaults (SEP-1034), so a handler that
/// answers only what the user changed still sends a complete form.
fn apply_defaults(answer: &mut ElicitResult, schema: Option<&JsonObject>) {
    if answer.action != ElicitAction::Accept {
        return;
    }
    let Some(properties) = schema.and_then(|s| s.get("properties")).and_then(Value::as_object) else { return };
    let content = answer.content.get_or_insert_with(JsonObject::new);
    for (name, property) in properties {
        if let Some(default) = property.get("default")
            && !content.contains_key(name)
        {
            content.insert(name.clone(), default.clone());
        }
    }
}

/// A request waiting for its answer; dropped before it, the request is cancelled.
struct InFlight {
    session: Arc<Session>,
    id: Option<RequestId>,
    exchange: Option<Exchange>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        self.session.pending().remove(&id);
        // Dropping the exchange closes its stream (modern HTTP); elsewhere the server is told.
        drop(self.exchange.take());
        if self.session.notify_cancel.load(Ordering::Relaxed)
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let session = self.session.clone();
            runtime.spawn(async move {
                let params = CancelledParams { request_id: Some(id), reason: Some("cancelled by the client".into()) };
                let params = serde_json::to_value(params).unwrap_or_default();
                let _ = session.notify(NOTIFY_CANCELLED, params).await;
            });
        }
    }
}

/// Reads what arrives until the connection closes or the session is gone.
async fn read(session: std::sync::Weak<Session>, mut inbox: mpsc::UnboundedReceiver<Incoming>) {
    while let Some(incoming) = inbox.recv().await {
        let Some(session) = session.upgrade() else { return };
        let (text, related) = match incoming {
            Incoming::Message(text) => (text, None),
            Incoming::OnStream { text, request } => (text, Some(request)),
            Incoming::Failed { id, error } => {
                session.settle(&id, Err(error));
                continue;
            }
            Incoming::Closed(why) => {
                session.close_all(why);
                return;
            }
        };
        match Inbound::parse(&text) {
            Ok(Inbound::Response { id, outcome }) => session.settle(&id, outcome.map_err(ClientError::Rpc)),
            Ok(Inbound::Notification(note)) => session.notification(&note.method, note.params.as_deref()),
            Ok(Inbound::Request(req)) => {
                let task = tokio::spawn(session.clone().answer(req.id, req.method, req.params, related));
                let mut answering = session.answering.lock().unwrap_or_else(|p| p.into_inner());
                answering.retain(|t| !t.is_finished());
                answering.push(task.abort_handle());
            }
            Err(rejected) => {
                tracing::warn!("the server sent what is not JSON-RPC ({}): {text:.200}", rejected.error.message)
            }
        }
    }
    if let Some(session) = session.upgrade() {
        session.close_all(None);
    }
}

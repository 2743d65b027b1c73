//! Era adapters: decide per message which era serves it, validate that era's envelope, call dispatch, and
//! turn the outcome into that era's wire result.
//!
//! The spec's rule: a request whose `params._meta` claims a protocol version is modern and served
//! statelessly; `initialize` opens a legacy session for the connection. One connection may carry both.

pub(crate) mod legacy;
mod listen;
pub(crate) mod modern;
pub(crate) mod outbound;
pub(crate) mod shim;

use crate::protocol::{
    CancelledParams, ClientCapabilities, ElicitMode, ErrorObject, Inbound, InputRequest, InputRequests, JsonObject,
    MODERN_CLAIM_KEYS, Notification, ProgressToken, Request, RequestId, error_json,
};
use crate::server::{Change, Server};
use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// One client connection (a stdio process; later, an HTTP session): the server, the legacy session state,
/// the channel back to the client, and the requests in flight (so they can be cancelled).
pub(crate) struct Connection {
    server: Server,
    session: legacy::Session,
    /// Requests to the client on the connection's own stream (stdio); HTTP sessions push on each request's
    /// response stream instead.
    outbound: Option<Arc<outbound::Outbound>>,
    /// Server-to-client requests awaiting the client's answer.
    pending: Arc<outbound::Pending>,
    /// Where request-scoped notifications go.
    notify: Option<mpsc::Sender<String>>,
    in_flight: Mutex<HashMap<RequestId, Flight>>,
    /// Fires when the connection is dropped, ending its background work (list-change forwarding).
    closed: CancellationToken,
}

/// A request in flight: how to cancel it, and whether it is a subscription (which never ends on its own).
struct Flight {
    cancel: CancellationToken,
    listen: bool,
}

/// The HTTP status the spec gives an answer (stdio has none and ignores it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Ok,
    /// Modern envelope, version, header and capability errors.
    BadRequest,
    /// A method the modern protocol doesn't have.
    NotFound,
}

/// What an era adapter may use of the connection while serving one request.
pub(crate) struct Link<'a> {
    pub outbound: Option<&'a Arc<outbound::Outbound>>,
    pub notify: Option<&'a mpsc::Sender<String>>,
    pub cancel: CancellationToken,
    /// Closes the response stream early, leaving the request running (resumable HTTP streams).
    pub close_stream: Option<crate::context::CloseStream>,
}

/// Removes a request from the in-flight map however it ends.
struct InFlight<'a> {
    conn: &'a Connection,
    id: RequestId,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.conn.in_flight().remove(&self.id);
    }
}

impl Drop for Connection {
    /// The session ends with the connection: its `on_close` callbacks run.
    fn drop(&mut self) {
        self.closed.cancel();
        self.session.close();
    }
}

impl Connection {
    /// A connection whose client is reached through `tx` (responses, notifications and, unless `push` is
    /// false, server-to-client requests).
    pub fn new(server: Server, tx: mpsc::Sender<String>, push: bool) -> Self {
        let pending = Arc::new(outbound::Pending::default());
        let outbound = push.then(|| Arc::new(outbound::Outbound::new(tx.clone(), pending.clone())));
        Self {
            server,
            session: legacy::Session::default(),
            outbound,
            pending,
            notify: Some(tx),
            in_flight: Mutex::new(HashMap::new()),
            closed: CancellationToken::new(),
        }
    }

    /// A connection with no stream of its own back to the client (an HTTP session): each request's
    /// notifications and server-to-client requests go on that request's response ([`request_on`]).
    ///
    /// [`request_on`]: Self::request_on
    pub fn detached(server: Server) -> Self {
        Self::with_session(server, legacy::Session::default())
    }

    /// One request of legacy HTTP served without sessions, at the version its `MCP-Protocol-Version` names.
    pub fn stateless(server: Server, version: crate::protocol::ProtocolVersion) -> Self {
        Self::with_session(server, legacy::Session::stateless(version))
    }

    fn with_session(server: Server, session: legacy::Session) -> Self {
        Self {
            server,
            session,
            outbound: None,
            pending: Arc::default(),
            notify: None,
            in_flight: Mutex::new(HashMap::new()),
            closed: CancellationToken::new(),
        }
    }

    /// The legacy protocol version the session's `initialize` settled on, once it has.
    pub fn protocol_version(&self) -> Option<crate::protocol::ProtocolVersion> {
        self.session.protocol_version()
    }

    /// Tells the session's client of changes once it has initialized: every list change, and updates of
    /// the resources it subscribed to (modern clients hear of changes on `subscriptions/listen` instead).
    /// Ends with the connection.
    pub fn forward_changes(self: &Arc<Self>) {
        let Some(notify) = self.notify.clone() else { return };
        let mut changes = self.server.inner.changes.subscribe();
        let conn = Arc::downgrade(self);
        let closed = self.closed.clone();
        tokio::spawn(async move {
            while let Some(changes) = tokio::select! {
                () = closed.cancelled() => None,
                changes = changes.next() => changes,
            } {
                let Some(conn) = conn.upgrade() else { return };
                if !conn.session.is_initialized() {
                    continue;
                }
                for change in changes {
                    if let Change::Resource(uri) = &change
                        && !conn.session.subscribed(uri)
                    {
                        continue;
                    }
                    let (method, params) = change.notification();
                    let Ok(line) = crate::protocol::notification_json(method, params) else { continue };
                    if notify.send(line).await.is_err() {
                        return;
                    }
                }
            }
        });
    }

    fn in_flight(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Flight>> {
        self.in_flight.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The client's input ended: requests waiting on its answers fail now rather than at their timeout, and
    /// subscriptions end (nobody can cancel them any more).
    pub fn input_closed(&self) {
        self.pending.close();
        for flight in self.in_flight().values().filter(|f| f.listen) {
            flight.cancel.cancel();
        }
    }

    /// A response from the client to a request the server sent (legacy era).
    pub fn response(&self, id: &crate::protocol::RequestId, reply: Result<Box<RawValue>, ErrorObject>) {
        let routed = self.pending.resolve(id, reply);
        if !routed {
            tracing::debug!("ignoring a response to unknown request {id}");
        }
    }

    /// Requests that change connection state must finish before the next message is read.
    pub fn is_sequential(req: &Request) -> bool {
        req.method == "initialize"
    }

    /// Serves one request whose notifications and server-to-client requests go on `stream` (an HTTP response's
    /// SSE stream) rather than the connection's own; returns the response as [`request`](Self::request) does.
    /// `close` ends that stream early if the handler asks to.
    pub async fn request_on(
        &self,
        req: Request,
        stream: mpsc::Sender<String>,
        close: Option<crate::context::CloseStream>,
    ) -> Option<String> {
        let outbound = Arc::new(outbound::Outbound::new(stream.clone(), self.pending.clone()));
        self.serve(req, Some(&outbound), Some(&stream), close).await
    }

    /// Serves one request; returns the response's JSON text, or `None` when the client cancelled it (then the
    /// handler's future was dropped and no response is due).
    pub async fn request(&self, req: Request) -> Option<String> {
        self.serve(req, self.outbound.as_ref(), self.notify.as_ref(), None).await
    }

    async fn serve(
        &self,
        req: Request,
        outbound: Option<&Arc<outbound::Outbound>>,
        notify: Option<&mpsc::Sender<String>>,
        close_stream: Option<crate::context::CloseStream>,
    ) -> Option<String> {
        let cancel = CancellationToken::new();
        let flight = Flight { cancel: cancel.clone(), listen: req.method == modern::LISTEN };
        let previous = self.in_flight().insert(req.id.clone(), flight);
        if let Some(previous) = previous {
            tracing::warn!("request id {} reused while a request with it is in flight", req.id);
            previous.cancel.cancel();
        }
        let _in_flight = InFlight { conn: self, id: req.id.clone() };
        let link = Link { outbound, notify, cancel: cancel.clone(), close_stream };
        let serve = async {
            match modern_claim(req.params.as_deref()) {
                Some(meta) => modern::serve(&self.server, link, req, meta).await.0,
                None => legacy::serve(&self.server, &self.session, link, req).await,
            }
        };
        tokio::select! {
            biased;
            () = cancel.cancelled() => None,
            line = serve => Some(line),
        }
    }

    /// Serves a JSON-RPC batch (2025-03-26 requires receiving them): every element concurrently, the
    /// responses in one array, or nothing when the batch held only notifications.
    pub async fn batch(&self, items: Vec<Box<RawValue>>) -> Option<String> {
        let replies = futures_util::future::join_all(items.iter().map(|item| async move {
            match Inbound::parse(item.get()) {
                Err(rejected) => Some(error_json(rejected.id.as_ref(), &rejected.error)),
                Ok(Inbound::Request(req)) if Self::is_sequential(&req) => Some(error_json(
                    Some(&req.id),
                    &ErrorObject::invalid_request(format!("`{}` must not be part of a batch", req.method)),
                )),
                Ok(Inbound::Request(req)) => self.request(req).await,
                Ok(Inbound::Notification(note)) => {
                    self.notification(note);
                    None
                }
                Ok(Inbound::Response { id, outcome }) => {
                    self.response(&id, outcome);
                    None
                }
            }
        }))
        .await;
        let replies: Vec<String> = replies.into_iter().flatten().collect();
        (!replies.is_empty()).then(|| format!("[{}]", replies.join(",")))
    }

    pub fn notification(&self, note: Notification) {
        match note.method.as_str() {
            crate::protocol::NOTIFY_INITIALIZED => self.session.mark_initialized(),
            crate::protocol::NOTIFY_CANCELLED => {
                let params: Option<CancelledParams> =
                    note.params.as_deref().and_then(|p| serde_json::from_str(p.get()).ok());
                match params.and_then(|p| p.request_id) {
                    Some(id) => match self.in_flight().get(&id) {
                        Some(flight) => {
                            tracing::debug!("request {id} cancelled by the client");
                            flight.cancel.cancel();
                        }
                        None => tracing::debug!("cancellation of {id}, which is not in flight"),
                    },
                    None => tracing::debug!("ignoring a cancellation without a request id"),
                }
            }
            other => tracing::debug!("ignoring notification {other}"),
        }
    }
}

/// The request's `_meta` if it claims the modern era (carries any `io.modelcontextprotocol/…` envelope key).
pub(crate) fn modern_claim(params: Option<&RawValue>) -> Option<JsonObject> {
    #[derive(Deserialize)]
    struct Peek {
        #[serde(rename = "_meta")]
        meta: Option<JsonObject>,
    }
    let raw = params?.get();
    if !raw.trim_start().starts_with('{') || !raw.contains("io.modelcontextprotocol/") {
        return None;
    }
    let meta = serde_json::from_str::<Peek>(raw).ok()?.meta?;
    MODERN_CLAIM_KEYS.iter().any(|k| meta.contains_key(*k)).then_some(meta)
}

/// The first input request that `capabilities` do not cover, as the `-32021` error naming what is missing.
/// `whose` says where the capabilities were declared ("the request's", "the session's").
pub(crate) fn uncovered_request(
    capabilities: &ClientCapabilities,
    requests: &InputRequests,
    whose: &str,
) -> Option<crate::Error> {
    requests.iter().find_map(|(key, request)| {
        let required = match request {
            InputRequest::Elicit(p) if p.mode == Some(ElicitMode::Url) => {
                let covered = capabilities.elicitation.as_ref().is_some_and(|e| e.supports_url());
                (!covered).then(|| json!({ "elicitation": { "url": {} } }))
            }
            InputRequest::Elicit(_) => {
                let covered = capabilities.elicitation.as_ref().is_some_and(|e| e.supports_form());
                (!covered).then(|| json!({ "elicitation": {} }))
            }
            InputRequest::CreateMessage(_) => capabilities.sampling.is_none().then(|| json!({ "sampling": {} })),
            InputRequest::ListRoots => capabilities.roots.is_none().then(|| json!({ "roots": {} })),
        }?;
        let message = format!(
            "Cannot request input '{key}' ({}): {whose} client capabilities do not declare the required capability",
            request.method()
        );
        Some(crate::Error::rpc(ErrorObject::missing_capability(message, required)))
    })
}

/// The request's `_meta.progressToken`, if it has one (read without parsing params that cannot hold one).
fn progress_token(params: Option<&RawValue>) -> Option<ProgressToken> {
    #[derive(Deserialize)]
    struct Meta {
        #[serde(rename = "progressToken")]
        progress_token: Option<ProgressToken>,
    }
    #[derive(Deserialize)]
    struct Peek {
        #[serde(rename = "_meta")]
        meta: Option<Meta>,
    }
    let raw = params?.get();
    if !raw.contains("progressToken") {
        return None;
    }
    serde_json::from_str::<Peek>(raw).ok()?.meta?.progress_token
}

/// Serves one modern request outside any connection (stateless HTTP): no session; notifications go on
/// `notify` (the request's SSE stream) if it has one, and `cancel` fires when the client goes away.
pub(crate) async fn serve_stateless(
    server: &Server,
    req: Request,
    meta: JsonObject,
    notify: Option<&mpsc::Sender<String>>,
    cancel: CancellationToken,
) -> (String, Status) {
    let link = Link { outbound: None, notify, cancel, close_stream: None };
    modern::serve(server, link, req, meta).await
}

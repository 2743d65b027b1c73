//! One client connection (a stdio process, or a legacy HTTP session): its legacy session, its way back to
//! the client, and the requests in flight (so they can be cancelled). One connection may carry both eras:
//! each request goes to the adapter its classification named. On stdio, where the connection is one
//! client's, modern requests share the session's state too.
//!
//! It also owns the connection's bounds on what it sends and runs: how many of its requests run at once
//! ([`Connection::slot`]), and how large a reply may be ([`Connection::reply`], [`BatchReply`]).

use super::classify::{Answer, Classified, Delivery, Headers, Message, PROTOCOL_VERSION_HEADER, Route, Status};
use super::engine::Engine;
use super::flights::{Flight, Flights};
use super::legacy::{self, Channel, CloseStream, Outbound, Pending, Session, SessionRecord};
use super::modern;
use crate::auth::{AccessToken, Principal};
use crate::cancel::Cancel;
use crate::protocol::{
    CancelledParams, Era, ErrorObject, NOTIFY_CANCELLED, NOTIFY_INITIALIZED, Notification, ProtocolVersion, RequestId,
    error_json, notification_json,
};
use crate::server::Change;
use crate::sync::lock;
use serde_json::value::RawValue;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::Poll;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

pub(crate) struct Connection {
    engine: Arc<Engine>,
    session: Session,
    /// Requests to the client on the connection's own stream (stdio); HTTP sessions push on each request's
    /// response stream instead.
    outbound: Option<Arc<Outbound>>,
    /// Server-to-client requests awaiting the client's answer.
    pending: Arc<Pending>,
    /// Where request-scoped notifications go, and messages unrelated to any request.
    notify: Option<mpsc::Sender<String>>,
    in_flight: Flights,
    /// Fires when the connection is dropped, ending its background work (list-change forwarding).
    closed: CancellationToken,
    /// The id the transport gave this connection's session (HTTP), for the requests' spans.
    session_id: OnceLock<Arc<str>>,
    /// The connection's own caller, for requests that bring none (stdio: the process's token).
    caller: Option<Arc<AccessToken>>,
    /// Whom an HTTP session belongs to, from the `initialize` that opened it.
    owner: OnceLock<Option<Principal>>,
    /// Modern requests on it see the session's state (stdio: one process, one client).
    shared_state: bool,
    /// One permit per request it may run at once (`Options::max_in_flight_per_connection`).
    slots: Arc<Semaphore>,
}

/// A request's own response stream (an HTTP response's SSE stream), instead of the connection's.
pub(crate) struct Stream {
    pub tx: mpsc::Sender<String>,
    /// Ends that stream early if the handler asks to (resumable streams only).
    pub close: Option<CloseStream>,
}

/// Removes a request from the in-flight map however it ends (if it was registered).
struct InFlight<'a> {
    conn: &'a Connection,
    id: &'a RequestId,
    cancel: &'a Cancel,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.conn.in_flight.remove(self.id, self.cancel);
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
    pub fn new(engine: Arc<Engine>, tx: mpsc::Sender<String>, push: bool) -> Self {
        let pending = Arc::new(Pending::default());
        let outbound = push.then(|| Arc::new(Outbound::new(tx.clone(), pending.clone())));
        let slots = Arc::new(Semaphore::new(engine.server.options().max_in_flight_per_connection));
        Self {
            engine,
            session: Session::default(),
            outbound,
            pending,
            notify: Some(tx),
            in_flight: Flights::default(),
            closed: CancellationToken::new(),
            session_id: OnceLock::new(),
            caller: None,
            owner: OnceLock::new(),
            shared_state: false,
            slots,
        }
    }

    /// The connection is one client's whole conversation (stdio): modern requests on it share the session
    /// state (`Context::set`, `on_close`) with each other and with a legacy session on it, as legacy
    /// requests do. Not for HTTP sessions, which modern requests never belong to.
    pub fn with_shared_state(mut self) -> Self {
        self.shared_state = true;
        self
    }

    /// Every request on this connection comes from `caller` (stdio, where the token is the process's).
    pub fn with_caller(mut self, caller: Option<Arc<AccessToken>>) -> Self {
        self.caller = caller;
        self
    }

    /// Binds the session to the principal that opened it; later requests must come from the same one.
    pub fn bind_owner(&self, caller: Option<&AccessToken>) {
        let _ = self.owner.set(caller.map(AccessToken::principal));
    }

    /// Whether `caller` is the principal the session belongs to (a refreshed token of the same user is).
    pub fn owned_by(&self, caller: Option<&AccessToken>) -> bool {
        self.owner.get().is_none_or(|owner| owner.as_ref() == caller.map(AccessToken::principal).as_ref())
    }

    fn alone(engine: Arc<Engine>, session: Session) -> Self {
        // One request, served at once: nothing waits for a slot.
        let slots = Arc::new(Semaphore::new(1));
        Self {
            engine,
            session,
            outbound: None,
            pending: Arc::default(),
            notify: None,
            in_flight: Flights::default(),
            closed: CancellationToken::new(),
            session_id: OnceLock::new(),
            caller: None,
            owner: OnceLock::new(),
            shared_state: false,
            slots,
        }
    }

    /// Serves one legacy request outside any session (legacy HTTP without sessions, or a probe without a
    /// session id), at the version its `MCP-Protocol-Version` names (2025-03-26 when absent, as the spec says
    /// to assume); nothing can be pushed to the client.
    pub async fn serve_alone(engine: &Arc<Engine>, req: Box<Classified>, headers: &dyn Headers) -> Answer {
        let session = if req.route == Route::Probe {
            Session::default()
        } else if req.is_sequential() {
            // `initialize`: it opens nothing, and says so in the capabilities it answers with.
            Session::alone()
        } else {
            let version = match headers.text(PROTOCOL_VERSION_HEADER) {
                None => ProtocolVersion::V2025_03_26,
                Some(v) => match ProtocolVersion::parse(v).filter(|v| v.era() == Era::Legacy) {
                    Some(version) => version,
                    None => {
                        let e = ErrorObject::invalid_request(format!("Unsupported MCP-Protocol-Version: {v}"));
                        return Answer { json: error_json(Some(&req.id), &e), status: Status::BadRequest };
                    }
                },
            };
            Session::stateless(version)
        };
        let conn = Self::alone(engine.clone(), session);
        let json = conn.serve(req, None).await.unwrap_or_default();
        Answer::ok(json)
    }

    /// Names this connection's session in its requests' spans (the transport mints session ids).
    pub fn set_session_id(&self, id: &str) {
        let _ = self.session_id.set(id.into());
    }

    /// The legacy protocol version the session's `initialize` settled on, once it has.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.session.protocol_version()
    }

    /// Tells the session's client of changes once it has initialized: every list change, and updates of
    /// the resources it subscribed to (modern clients hear of changes on `subscriptions/listen` instead).
    /// Ends with the connection.
    pub fn forward_changes(self: &Arc<Self>) {
        let Some(notify) = self.notify.clone() else { return };
        let mut changes = self.engine.server.inner.changes.subscribe();
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
                    let Ok(line) = notification_json(method, params) else { continue };
                    if notify.send(line).await.is_err() {
                        return;
                    }
                }
            }
        });
    }

    /// The client's input ended: requests waiting on its answers fail now rather than at their timeout, and
    /// subscriptions end (nobody can cancel them any more).
    pub fn input_closed(&self) {
        self.pending.close();
        self.in_flight.end_subscriptions();
    }

    /// A response from the client to a request the server sent (legacy era); `false` when no request of
    /// this connection awaits it (on HTTP it may be another replica's).
    pub fn response(&self, id: &RequestId, reply: Result<Box<RawValue>, ErrorObject>) -> bool {
        let awaited = self.pending.resolve(id, reply);
        if !awaited {
            tracing::debug!("no request of this connection awaits the response {id}");
        }
        awaited
    }

    /// Whether a request this connection sent the client waits for the response `id`.
    pub fn awaits(&self, id: &RequestId) -> bool {
        self.pending.awaits(id)
    }

    /// How many times the session changed (see [`SessionRecord`]).
    pub fn changes(&self) -> u64 {
        self.session.changes()
    }

    /// The session, for another replica to go on with; `None` before `initialize` settled it.
    pub fn record(&self) -> Option<SessionRecord> {
        let mut record = self.session.record()?;
        record.owner = self.owner.get().cloned().flatten().map(|p| p.as_str().to_owned());
        Some(record)
    }

    /// Numbers the server-to-client requests from `first` on (see [`Pending::number_from`]).
    pub fn number_requests_from(&self, first: i64) {
        self.pending.number_from(first);
    }

    /// Goes on with a session another replica recorded (its owner included).
    pub fn restore(&self, record: &SessionRecord) -> Result<(), String> {
        let _ = self.owner.set(record.owner.clone().map(Principal::from_stored));
        self.session.restore(record)
    }

    /// Serves one request; returns the response's JSON text, or `None` when the client cancelled it (then the
    /// handler's future or its result was dropped, and no response is due). Its notifications and
    /// server-to-client requests go on `stream` when it has its own (an HTTP session's request), else on the
    /// connection's.
    pub async fn serve(&self, req: Box<Classified>, stream: Option<Stream>) -> Option<String> {
        self.run(self.enter(req), stream).await
    }

    /// Registers a request as in flight before it is served, so a cancellation that arrives while it waits
    /// (for a slot, say) reaches it: then it is answered with nothing as soon as it is run.
    pub fn enter(&self, req: Box<Classified>) -> Entered {
        let entered = self.entered(req, true);
        self.in_flight.insert(&entered.req.id, entered.flight());
        entered
    }

    /// A request to be served at once, where it was read, with nothing else read meanwhile: it registers
    /// only if it has to wait (see [`flights`](super::flights)).
    pub fn enter_here(&self, req: Box<Classified>) -> Entered {
        self.in_flight.displace(&req.id);
        self.entered(req, false)
    }

    fn entered(&self, mut req: Box<Classified>, registered: bool) -> Entered {
        if req.caller.is_none() {
            req.caller = self.caller.clone();
        }
        let listen = modern::is_subscription(&req.method);
        Entered { req, cancel: Cancel::default(), listen, registered }
    }

    async fn run(&self, entered: Entered, stream: Option<Stream>) -> Option<String> {
        let Entered { req, cancel, listen, registered } = entered;
        let id = req.id.clone();
        let _in_flight = InFlight { conn: self, id: &id, cancel: &cancel };
        // Pinned in place: raced as a value, the request's future (kilobytes) is copied into the race and
        // again into its state.
        let serve = std::pin::pin!(async {
            match req.route {
                Route::Modern => {
                    let admitted = match self.engine.admit(req, None) {
                        Ok(admitted) => admitted,
                        Err(refused) => return refused.json,
                    };
                    // Only a request that sends something on a stream (logs, progress, a subscription's
                    // notifications) gets one.
                    let notify = match admitted.delivery() {
                        Delivery::Json => None,
                        Delivery::Stream { .. } => stream.map(|s| s.tx).or_else(|| self.notify.clone()),
                    };
                    let session = self.shared_state.then(|| self.session.state());
                    self.engine.serve(admitted, notify, cancel.clone(), session).await.json
                }
                Route::Probe => {
                    let _span = req.span(self.session_id.get().map(|id| &**id)).entered();
                    modern::probe(&self.engine.server, &req.id)
                }
                Route::Legacy => {
                    let span = req.span(self.session_id.get().map(|id| &**id));
                    let channel = match stream {
                        Some(Stream { tx, close }) => Channel {
                            outbound: Some(Arc::new(Outbound::new(tx.clone(), self.pending.clone()))),
                            notify: Some(tx),
                            close_stream: close,
                            cancel: cancel.clone(),
                        },
                        None => Channel {
                            outbound: self.outbound.clone(),
                            notify: self.notify.clone(),
                            close_stream: None,
                            cancel: cancel.clone(),
                        },
                    };
                    legacy::serve(&self.engine.server, &self.session, *req, channel).instrument(span).await
                }
            }
        });
        // Cancelled while it waited to run (for a slot, say): not run at all.
        if cancel.is_cancelled() {
            return None;
        }
        // Its first poll, in which most requests finish, waits on nothing else; from then on the
        // cancellation comes first.
        let mut serve = serve;
        let line = match std::future::poll_fn(|cx| Poll::Ready(serve.as_mut().poll(cx))).await {
            Poll::Ready(line) => line,
            Poll::Pending => {
                if !registered {
                    self.in_flight.insert(&id, Flight { cancel: cancel.clone(), listen });
                }
                // Polled again only once it wakes, not at once as a `select!` would: a handler that yielded
                // (a notification sent, see `Context::notify`) lets the task that writes it out run first.
                let mut cancelled = std::pin::pin!(cancel.cancelled());
                let mut just_polled = true;
                let raced = std::future::poll_fn(|cx| {
                    if cancelled.as_mut().poll(cx).is_ready() {
                        return Poll::Ready(None);
                    }
                    if std::mem::take(&mut just_polled) {
                        return Poll::Pending;
                    }
                    serve.as_mut().poll(cx).map(Some)
                });
                raced.await?
            }
        };
        // Abandoned while the handler was polled to its end (the client's cancellation taken on another
        // thread meanwhile): no reply either. A handler that asks the client could otherwise finish on a
        // late answer and reply to a request the client cancelled.
        (!cancel.is_abandoned()).then_some(line)
    }

    /// A slot to run one request in: waits while `Options::max_in_flight_per_connection` of the
    /// connection's requests run. The request holds it until its reply is made.
    pub async fn slot(&self) -> OwnedSemaphorePermit {
        // Never closed: the connection owns the semaphore and closes nothing.
        self.slots.clone().acquire_owned().await.expect("a connection's slots are never closed")
    }

    /// A slot, if one is free now.
    pub fn try_slot(&self) -> Option<OwnedSemaphorePermit> {
        self.slots.clone().try_acquire_owned().ok()
    }

    /// How many of its requests hold a slot now.
    pub fn running(&self) -> usize {
        self.engine.server.options().max_in_flight_per_connection - self.slots.available_permits()
    }

    /// Serves one request as [`serve`](Self::serve) does, its reply bounded by `Options::reply_limit`: a
    /// larger one is replaced by a `-32603` error for its id, so no reply line outgrows what the connection
    /// allows (and what a client with the same limit as ours could read).
    pub async fn reply(&self, entered: Entered) -> Option<String> {
        let id = entered.id().clone();
        let json = self.run(entered, None).await?;
        let limit = self.engine.server.options().reply_limit();
        if json.len() <= limit {
            return Some(json);
        }
        tracing::warn!("the reply to request {id} was {} bytes, over the limit of {limit}; sent an error", json.len());
        let e = ErrorObject::internal(format!(
            "the result is too large to send: {} bytes, over the server's limit of {limit} bytes \
             (FastMcp::max_reply_bytes)",
            json.len()
        ));
        Some(error_json(Some(&id), &e))
    }

    /// Opens a JSON-RPC batch (2025-03-26 requires receiving them): its notifications and responses are
    /// taken now, like single messages; entries that are no request get their errors; the requests are
    /// returned to be run, each in a slot of its own, their replies gathered by the batch's [`BatchReply`].
    pub fn open_batch(&self, items: Vec<Box<RawValue>>) -> Batch {
        let mut requests = Vec::new();
        let mut errors = Vec::new();
        for item in items {
            match super::classify::parse(item.get(), None) {
                Err(rejected) => errors.push(error_json(rejected.id.as_ref(), &rejected.error)),
                Ok(Message::Request(req)) if req.is_sequential() => errors.push(error_json(
                    Some(&req.id),
                    &ErrorObject::invalid_request(format!("`{}` must not be part of a batch", req.method)),
                )),
                Ok(Message::Request(req)) => requests.push(self.enter(req)),
                Ok(Message::Notification(note)) => {
                    self.notification(note);
                }
                Ok(Message::Response { id, outcome }) => {
                    self.response(&id, outcome);
                }
            }
        }
        let reply = BatchReply::new(self.engine.server.options().reply_limit(), requests.len());
        for error in errors {
            reply.push(None, error);
        }
        if requests.is_empty() {
            return Batch::Answered(reply.finish());
        }
        Batch::Run { requests, reply: Arc::new(reply) }
    }

    /// A notification from the client; `false` when it is for a request not in flight here (a cancellation
    /// that, on HTTP, may be for another replica's).
    pub fn notification(&self, note: Notification) -> bool {
        match note.method.as_str() {
            NOTIFY_INITIALIZED => self.session.mark_initialized(),
            NOTIFY_CANCELLED => {
                let params: Option<CancelledParams> =
                    note.params.as_deref().and_then(|p| serde_json::from_str(p.get()).ok());
                match params.and_then(|p| p.request_id) {
                    Some(id) => {
                        if !self.in_flight.cancel(&id) {
                            tracing::debug!("cancellation of {id}, which is not in flight here");
                            return false;
                        }
                        tracing::debug!("request {id} cancelled by the client");
                    }
                    None => tracing::debug!("ignoring a cancellation without a request id"),
                }
            }
            other => tracing::debug!("ignoring notification {other}"),
        }
        true
    }
}

/// A batch, opened ([`Connection::open_batch`]).
pub(crate) enum Batch {
    /// Nothing in it is left to run: its reply, if any is due.
    Answered(Option<String>),
    /// Requests to run; each one's reply goes to [`BatchReply::settle`].
    Run { requests: Vec<Entered>, reply: Arc<BatchReply> },
}

/// A request in flight, not yet served ([`Connection::enter`]).
pub(crate) struct Entered {
    /// Boxed as parsed: every layer of the request's future would otherwise hold its ~400 bytes.
    req: Box<Classified>,
    cancel: Cancel,
    /// A subscription (`subscriptions/listen`), which never ends on its own.
    listen: bool,
    /// Registered as in flight already; else it registers once it has to wait.
    registered: bool,
}

impl Entered {
    pub fn id(&self) -> &RequestId {
        &self.req.id
    }

    fn flight(&self) -> Flight {
        Flight { cancel: self.cancel.clone(), listen: self.listen }
    }
}

/// The reply to a batch, built as its entries finish: one array of their replies, bounded by the reply
/// limit. Only the bytes of the reply are kept, never the entries' results as values. A reply that would
/// take the array past the limit is replaced by a `-32603` error for its id; if even that does not fit,
/// the whole batch is answered with one `-32603` error saying how many replies did not fit.
pub(crate) struct BatchReply {
    limit: usize,
    state: Mutex<Gathered>,
}

struct Gathered {
    /// `[` and the replies so far, comma-separated.
    json: String,
    /// Requests whose reply is still to come.
    waiting: usize,
    /// Replies that did not fit, not even as an error.
    lost: usize,
}

impl BatchReply {
    fn new(limit: usize, waiting: usize) -> Self {
        Self { limit, state: Mutex::new(Gathered { json: String::new(), waiting, lost: 0 }) }
    }

    fn gathered(&self) -> std::sync::MutexGuard<'_, Gathered> {
        lock(&self.state)
    }

    /// Adds one reply (for request `id`, if it is a request's) if it fits, else its replacement.
    fn push(&self, id: Option<&RequestId>, reply: String) {
        let mut g = self.gathered();
        // `[` or `,` before it, `]` after the last.
        let fits = |g: &Gathered, reply: &str| g.json.len() + reply.len() + 2 <= self.limit;
        let reply = if fits(&g, &reply) {
            reply
        } else {
            let e = ErrorObject::internal(format!(
                "the result is too large to send in this batch, whose reply is limited to {} bytes \
                 (FastMcp::max_reply_bytes); send the request alone",
                self.limit
            ));
            let e = error_json(id, &e);
            if !fits(&g, &e) {
                g.lost += 1;
                return;
            }
            e
        };
        let sep = if g.json.is_empty() { '[' } else { ',' };
        g.json.push(sep);
        g.json.push_str(&reply);
    }

    /// One request of the batch is done (`None`: cancelled, no reply due). Returns the batch's reply when it
    /// was the last one the batch waited for.
    pub fn settle(&self, id: &RequestId, reply: Option<String>) -> Option<String> {
        if let Some(reply) = reply {
            self.push(Some(id), reply);
        }
        let mut g = self.gathered();
        g.waiting -= 1;
        if g.waiting > 0 {
            return None;
        }
        drop(g);
        self.finish()
    }

    /// The reply made so far, or `None` when nothing in the batch is answered.
    fn finish(&self) -> Option<String> {
        let mut g = self.gathered();
        if g.lost > 0 {
            let e = ErrorObject::internal(format!(
                "the replies to this batch exceed the server's limit of {} bytes (FastMcp::max_reply_bytes); \
                 {} of them did not fit; send smaller batches",
                self.limit, g.lost
            ));
            return Some(error_json(None, &e));
        }
        let mut json = std::mem::take(&mut g.json);
        if json.is_empty() {
            return None;
        }
        json.push(']');
        Some(json)
    }
}

#[cfg(test)]
mod tests {
    use super::BatchReply;
    use crate::protocol::RequestId;

    #[test]
    fn a_batch_reply_keeps_within_its_limit() {
        let reply = BatchReply::new(400, 3);
        let result = |id: i64, text: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"{text}"}}"#);
        assert_eq!(reply.settle(&RequestId::Number(1), Some(result(1, "small"))), None);
        assert_eq!(reply.settle(&RequestId::Number(2), None), None, "a cancelled entry is owed no reply");
        let whole = reply.settle(&RequestId::Number(3), Some(result(3, &"x".repeat(400)))).expect("the last");
        assert!(whole.len() <= 400, "{whole}");
        let parsed: serde_json::Value = serde_json::from_str(&whole).unwrap();
        assert_eq!(parsed[0]["result"], "small");
        assert_eq!(parsed[1]["id"], 3);
        assert_eq!(parsed[1]["error"]["code"], -32603, "too large for the batch: {whole}");

        let reply = BatchReply::new(100, 2);
        assert_eq!(reply.settle(&RequestId::Number(1), Some(result(1, &"x".repeat(60)))), None);
        let whole = reply.settle(&RequestId::Number(2), Some(result(2, &"y".repeat(60)))).unwrap();
        assert!(whole.starts_with('{') && whole.contains("1 of them did not fit"), "not even the error fits: {whole}");
    }
}

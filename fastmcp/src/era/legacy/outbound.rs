//! Server-to-client requests on a legacy session: ids, the pending map, and routing the client's responses.

use crate::protocol::{ErrorObject, InputRequest, OutboundMessage, RequestId};
use crate::sync::lock;
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

type Reply = Result<Box<RawValue>, ErrorObject>;

/// The session's server-to-client requests awaiting an answer, by id. Shared by every stream the session's
/// requests go out on, since the answers come back on whatever the client sends next.
#[derive(Default)]
pub(crate) struct Pending {
    next_id: AtomicI64,
    waiting: Mutex<HashMap<RequestId, oneshot::Sender<Reply>>>,
}

impl Pending {
    fn waiting(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, oneshot::Sender<Reply>>> {
        lock(&self.waiting)
    }

    /// Whether a request of ours waits for the response `id`.
    pub fn awaits(&self, id: &RequestId) -> bool {
        self.waiting().contains_key(id)
    }

    /// Routes a response from the client to the request waiting for it; false if none is.
    pub fn resolve(&self, id: &RequestId, reply: Reply) -> bool {
        match self.waiting().remove(id) {
            Some(waiting) => waiting.send(reply).is_ok(),
            None => false,
        }
    }

    /// Numbers the next requests from `first`: copies of one session on several replicas each take their own
    /// range, so a response the client sends to any of them names one request only.
    pub fn number_from(&self, first: i64) {
        self.next_id.store(first - 1, Ordering::Relaxed);
    }

    /// Fails every request still waiting: the client can no longer answer.
    pub fn close(&self) {
        self.waiting().clear();
    }
}

/// Sends requests to the client on one outbound stream (stdout, or one HTTP response's SSE stream) and
/// awaits their responses through the session's [`Pending`] map.
pub(crate) struct Outbound {
    tx: mpsc::Sender<String>,
    pending: Arc<Pending>,
}

/// Why a server-to-client request produced no result.
#[derive(Debug)]
pub(crate) enum OutboundError {
    /// The connection closed before the client answered.
    Closed,
    TimedOut(Duration),
    /// The client answered with a JSON-RPC error.
    Client(ErrorObject),
}

impl std::fmt::Display for OutboundError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Closed => f.write_str("the connection closed before the client answered"),
            Self::TimedOut(after) => write!(f, "the client did not answer within {}", Seconds(*after)),
            Self::Client(e) => write!(f, "the client answered with error {}: {}", e.code, e.message),
        }
    }
}

/// A duration as people read it: milliseconds under a second (`300 ms`), else seconds (`2 s`, `1.5 s`).
struct Seconds(Duration);

impl std::fmt::Display for Seconds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = self.0.as_millis();
        match ms {
            0 => write!(f, "{} µs", self.0.as_micros()),
            1..1000 => write!(f, "{ms} ms"),
            _ if ms.is_multiple_of(1000) => write!(f, "{} s", ms / 1000),
            _ => write!(f, "{} s", self.0.as_secs_f64()),
        }
    }
}

/// Removes a pending entry however the request ends, including when its future is dropped (cancellation).
struct PendingGuard<'a> {
    outbound: &'a Outbound,
    id: RequestId,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.outbound.pending.waiting().remove(&self.id);
    }
}

impl Outbound {
    pub fn new(tx: mpsc::Sender<String>, pending: Arc<Pending>) -> Self {
        Self { tx, pending }
    }

    /// Sends one request and waits for its response, at most `timeout`.
    pub async fn request<P: Serialize>(
        &self,
        method: &str,
        params: &P,
        timeout: Duration,
    ) -> Result<Box<RawValue>, OutboundError> {
        let id = RequestId::Number(self.pending.next_id.fetch_add(1, Ordering::Relaxed) + 1);
        let line =
            serde_json::to_string(&OutboundMessage { jsonrpc: "2.0", id: Some(&id), method, params: Some(params) })
                .map_err(|e| {
                    OutboundError::Client(ErrorObject::internal(format!("request could not be serialized: {e}")))
                })?;
        let (reply_tx, reply_rx) = oneshot::channel();
        self.pending.waiting().insert(id.clone(), reply_tx);
        let _guard = PendingGuard { outbound: self, id };
        self.tx.send(line).await.map_err(|_| OutboundError::Closed)?;
        match tokio::time::timeout(timeout, reply_rx).await {
            Err(_) => Err(OutboundError::TimedOut(timeout)),
            Ok(Err(_)) => Err(OutboundError::Closed),
            Ok(Ok(reply)) => reply.map_err(OutboundError::Client),
        }
    }

    /// Sends one input request as the server-to-client request it names.
    pub async fn ask(&self, request: &InputRequest, timeout: Duration) -> Result<Box<RawValue>, OutboundError> {
        match request {
            InputRequest::Elicit(p) => self.request(request.method(), p, timeout).await,
            InputRequest::CreateMessage(p) => self.request(request.method(), p, timeout).await,
            InputRequest::ListRoots => self.request(request.method(), &serde_json::json!({}), timeout).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_read_in_the_unit_that_fits() {
        let text = |ms| OutboundError::TimedOut(Duration::from_millis(ms)).to_string();
        assert_eq!(text(300), "the client did not answer within 300 ms");
        assert_eq!(text(2000), "the client did not answer within 2 s");
        assert_eq!(text(1500), "the client did not answer within 1.5 s");
        assert_eq!(text(600_000), "the client did not answer within 600 s");
        let tiny = OutboundError::TimedOut(Duration::from_micros(250)).to_string();
        assert_eq!(tiny, "the client did not answer within 250 µs");
    }
}

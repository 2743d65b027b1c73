//! A legacy session's request streams, copied into the shared store as they are sent, so a client that lost
//! one resumes it (`GET` + `Last-Event-ID`) on any replica — including after the replica that served the
//! request restarted, within what the log keeps (`FastMcp::sse_replay`, `session_idle_timeout`).
//!
//! Per stream the store holds its last events (`sse:<session>:<stream>:<seq>`, the SSE frames as sent) and
//! a head (`sse:<session>:<stream>`): which replica produces it, for which request, the last sequence number,
//! and whether it ended. A replica resuming a stream it does not have replays the events after the client's
//! last, then follows the head until the stream ends. If the producing replica is gone first, the request
//! will never be answered: the client is told so (an error response for its request) instead of waiting.

use crate::protocol::RequestId;
use crate::store::{Replica, Store, StoreError};
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// How often a follower looks for what the producing replica sent since.
const FOLLOW: Duration = Duration::from_millis(100);

/// Why a `Last-Event-ID` cannot be resumed.
#[derive(Debug)]
pub(crate) enum ResumeError {
    /// Not an id this server issues.
    Malformed,
    /// A stream this session does not have (never existed, or finished and evicted).
    UnknownStream,
    /// The client was offline so long that events after its last one were dropped.
    Gone,
    /// The shared store holding the stream could not be reached.
    Store(StoreError),
}

impl From<StoreError> for ResumeError {
    fn from(e: StoreError) -> Self {
        Self::Store(e)
    }
}

/// What a follower of another replica's stream hands the response.
pub(crate) enum Followed {
    /// An event, framed as it was sent.
    Event(Bytes),
    /// The replica serving `request` stopped before answering it: the stream ends with an error for it.
    Lost(RequestId),
}

/// One stream's head in the store.
#[derive(Serialize, Deserialize)]
struct Head {
    replica: String,
    request: RequestId,
    /// The last event's sequence number.
    last: Option<u64>,
    ended: bool,
}

/// Where one session's streams are copied.
pub(crate) struct SharedLog {
    store: Arc<dyn Store>,
    replica: Arc<Replica>,
    session: String,
    /// How long what is copied lives (the session's idle timeout).
    ttl: Duration,
    /// Events kept per stream.
    keep: u64,
}

impl SharedLog {
    pub fn new(store: Arc<dyn Store>, replica: Arc<Replica>, session: &str, ttl: Duration, keep: usize) -> Self {
        replica.announce();
        let keep = u64::try_from(keep.max(1)).unwrap_or(u64::MAX);
        Self { store, replica, session: session.to_owned(), ttl, keep }
    }

    fn head_key(&self, stream: u64) -> String {
        format!("sse:{}:{stream}", self.session)
    }

    fn event_key(&self, stream: u64, seq: u64) -> String {
        format!("sse:{}:{stream}:{seq}", self.session)
    }

    /// Copies event `seq` of `stream` (for `request`), dropping the one that falls out of what is kept.
    /// Called in the order the events are sent.
    pub async fn event(&self, stream: u64, request: &RequestId, seq: u64, frame: &Bytes) {
        let copied = async {
            let key = self.event_key(stream, seq);
            let put = self.store.put(&key, frame, self.ttl);
            let drop_oldest = async {
                match seq.checked_sub(self.keep) {
                    Some(dropped) => self.store.delete(&self.event_key(stream, dropped)).await,
                    None => Ok(()),
                }
            };
            tokio::try_join!(put, drop_oldest)?;
            // Only once the event is there: a reader that sees the head reads it next.
            self.put_head(stream, request, Some(seq), false).await
        };
        if let Err(e) = copied.await {
            // The stream goes on here; only resuming it elsewhere will miss this.
            tracing::warn!("{e}: an SSE event was not copied for other replicas");
        }
    }

    /// `stream` is over, `last` its last event.
    pub async fn end(&self, stream: u64, request: &RequestId, last: Option<u64>) {
        if let Err(e) = self.put_head(stream, request, last, true).await {
            tracing::warn!("{e}: the end of an SSE stream was not copied for other replicas");
        }
    }

    async fn put_head(
        &self,
        stream: u64,
        request: &RequestId,
        last: Option<u64>,
        ended: bool,
    ) -> Result<(), StoreError> {
        let head = Head { replica: self.replica.id().to_owned(), request: request.clone(), last, ended };
        let json = serde_json::to_vec(&head).map_err(StoreError::new)?;
        self.store.put(&self.head_key(stream), &json, self.ttl).await
    }

    async fn head(&self, stream: u64) -> Result<Option<Head>, StoreError> {
        let Some(bytes) = self.store.get(&self.head_key(stream)).await? else { return Ok(None) };
        Ok(serde_json::from_slice(&bytes).ok())
    }

    /// Resumes `stream` after event `after`: its events since, then the rest as the producing replica sends
    /// them. Checked before any of it is sent, so a stream that cannot be resumed is refused outright.
    pub async fn resume(self: Arc<Self>, stream: u64, after: u64) -> Result<mpsc::Receiver<Followed>, ResumeError> {
        let head = self.head(stream).await?.ok_or(ResumeError::UnknownStream)?;
        if head.last.is_none_or(|last| after > last) {
            return Err(ResumeError::UnknownStream);
        }
        let first = self.store.get(&self.event_key(stream, after + 1)).await?;
        if first.is_none() && head.last.is_some_and(|last| last > after) {
            return Err(ResumeError::Gone);
        }
        let (tx, rx) = mpsc::channel(16);
        tokio::spawn(async move {
            tokio::select! {
                () = tx.closed() => {}
                end = self.follow(stream, after + 1, first, &tx) => {
                    if let Err(e) = end {
                        // The client resumes again once the store is back.
                        tracing::debug!("{e}: a resumed SSE stream ended early");
                    }
                }
            }
        });
        Ok(rx)
    }

    async fn follow(
        &self,
        stream: u64,
        mut next: u64,
        mut frame: Option<Vec<u8>>,
        tx: &mpsc::Sender<Followed>,
    ) -> Result<(), StoreError> {
        loop {
            while let Some(bytes) = frame.take() {
                if tx.send(Followed::Event(Bytes::from(bytes))).await.is_err() {
                    return Ok(());
                }
                next += 1;
                frame = self.store.get(&self.event_key(stream, next)).await?;
            }
            let Some(head) = self.head(stream).await? else { return Ok(()) };
            if head.last.is_some_and(|last| last >= next) {
                // Written after our read, or dropped because we fell behind: read again, or end (the client
                // resumes and is told what was lost).
                frame = self.store.get(&self.event_key(stream, next)).await?;
                if frame.is_none() {
                    return Ok(());
                }
                continue;
            }
            if head.ended {
                return Ok(());
            }
            if !self.replica.alive(&head.replica).await? {
                let _ = tx.send(Followed::Lost(head.request)).await;
                return Ok(());
            }
            tokio::time::sleep(FOLLOW).await;
            frame = self.store.get(&self.event_key(stream, next)).await?;
        }
    }
}

//! Legacy HTTP sessions: minted on `initialize`, named by `Mcp-Session-Id`, ended by `DELETE` or idleness.
//!
//! With a shared store (Redis) a session is a record there too, so any replica can answer its requests:
//! the record is the session, and each replica serving it keeps a copy. A request on a copy first reads
//! the record and takes what other copies saved since (one read per request: a client that sends its next
//! request elsewhere finds its last change there); a request that changed the session (`initialized`,
//! `logging/setLevel`, a subscription, a handler's `Context::set`) saves it when it ends, and tells the
//! other copies on the store's `sessions` channel. That channel also carries a client's response or
//! cancellation that no request here awaits to the copy whose request does, and `DELETE`, which ends every
//! copy. Each save is one more revision, and a copy never steps back to an older one. Concurrent changes
//! on two replicas: one of them wins.
//!
//! The record expires after `session_idle_timeout` unless some copy is used; a copy idle that long ends on
//! its own replica only (its `on_close` callbacks run there). A record lost with Redis's data (a restart
//! without persistence) is put back by the copies, told apart from an ended session by the tombstone
//! `DELETE` leaves. The copy to put it back first may have missed the last change (its note lost with the
//! connection), so a copy that finds the record older than itself puts its own in its place: the newest
//! copy ends up in the store. Without a shared store nothing of this runs.

use super::quotas::Held;
use super::shared_log::SharedLog;
use super::sse::EventLog;
use crate::era::{self, Connection, Message, SessionRecord};
use crate::store::{Event, Replica, Store, StoreError};
use crate::sync::lock;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Once, Weak};
use std::time::{Duration, Instant};

/// The store channel the copies of sessions talk on.
const CHANNEL: &str = "sessions";

/// A legacy session: its connection, its resumable streams, and when it was last used.
pub(crate) struct Session {
    pub conn: Arc<Connection>,
    pub log: Arc<EventLog>,
    last_used: Instant,
    /// The `conn.changes()` this copy last saved or took.
    saved: u64,
    /// The record's revision this copy has.
    rev: u64,
    /// When the store's record was last given a new expiry.
    touched: Instant,
    /// Its place in its opener's quota, given back as the session ends; a copy of a session opened on
    /// another replica holds none.
    _held: Option<Held>,
}

/// A session's record as stored: the session and its revision, one more with each save.
#[derive(Serialize, Deserialize)]
struct Stored {
    rev: u64,
    #[serde(flatten)]
    session: SessionRecord,
}

/// The open sessions, by id.
pub(crate) struct Sessions {
    map: Mutex<HashMap<String, Session>>,
    shared: Option<Shared>,
}

/// Sessions kept in a shared store.
struct Shared {
    store: Arc<dyn Store>,
    /// How long a record lives unused (`Options::session_idle_timeout`).
    ttl: Duration,
    /// This replica's name on the channel, so it passes over its own messages.
    replica: Arc<Replica>,
    /// Starts listening to the channel with the first session.
    listening: Once,
}

/// What a copy tells the others.
enum Note<'a> {
    /// The session's record changed: take it.
    Changed(&'a [u8]),
    /// The session ended.
    Ended,
    /// A message of the client's (a response, a cancellation) for the request that awaits it.
    FromClient(&'a [u8]),
}

impl Note<'_> {
    /// `<replica> <kind> <session>\n<payload>`.
    fn encode(&self, replica: &str, session: &str) -> Vec<u8> {
        let (kind, payload): (char, &[u8]) = match self {
            Note::Changed(record) => ('c', record),
            Note::Ended => ('e', b""),
            Note::FromClient(message) => ('m', message),
        };
        let mut bytes = format!("{replica} {kind} {session}\n").into_bytes();
        bytes.extend_from_slice(payload);
        bytes
    }

    /// The replica, the session and the note; `None` for what no replica of ours sent.
    fn decode(bytes: &[u8]) -> Option<(&str, &str, Note<'_>)> {
        let newline = bytes.iter().position(|b| *b == b'\n')?;
        let head = std::str::from_utf8(&bytes[..newline]).ok()?;
        let payload = &bytes[newline + 1..];
        let mut words = head.split(' ');
        let (replica, kind, session) = (words.next()?, words.next()?, words.next()?);
        let note = match kind {
            "c" => Note::Changed(payload),
            "e" => Note::Ended,
            "m" => Note::FromClient(payload),
            _ => return None,
        };
        Some((replica, session, note))
    }
}

fn key(id: &str) -> String {
    format!("session:{id}")
}

/// Left by `DELETE` for the session's ttl: the session ended, its record was not lost.
fn tombstone(id: &str) -> String {
    format!("session-ended:{id}")
}

impl Shared {
    /// Copies the streams of session `id`'s `log` to the store, so any replica resumes them.
    fn share(&self, id: &str, log: &EventLog) {
        log.share(SharedLog::new(self.store.clone(), self.replica.clone(), id, self.ttl, log.kept_events()));
    }

    /// The record of session `id`, read and as stored (for a compare-and-set); `None` when it is gone (or
    /// unreadable, which is as good as gone).
    async fn load(&self, id: &str) -> Result<Option<(Stored, Vec<u8>)>, StoreError> {
        let Some(bytes) = self.store.get(&key(id)).await? else { return Ok(None) };
        match serde_json::from_slice(&bytes) {
            Ok(stored) => Ok(Some((stored, bytes))),
            Err(e) => {
                tracing::warn!("shared store: the record of a session is unreadable ({e}); the session is gone");
                Ok(None)
            }
        }
    }
}

/// `conn`'s session as revision `rev` of its record.
fn stored_json(conn: &Connection, rev: u64) -> Result<Vec<u8>, StoreError> {
    let session = conn.record().ok_or_else(|| StoreError::new("the session has no record before initialize"))?;
    serde_json::to_vec(&Stored { rev, session }).map_err(StoreError::new)
}

impl Sessions {
    /// The sessions of one endpoint; in `store` too when it is shared, each record living `ttl` unused.
    pub fn new(store: &Arc<dyn Store>, replica: &Arc<Replica>, ttl: Duration) -> Arc<Self> {
        let shared = store.shared().then(|| Shared {
            store: store.clone(),
            ttl,
            replica: replica.clone(),
            listening: Once::new(),
        });
        Arc::new(Self { map: Mutex::default(), shared })
    }

    fn map(&self) -> MutexGuard<'_, HashMap<String, Session>> {
        lock(&self.map)
    }

    pub fn len(&self) -> usize {
        self.map().len()
    }

    /// Opens a session (after its `initialize` was served) and returns its id; `None` if `max` are open
    /// already. With a shared store the record is stored first: a session no other replica could find is
    /// not opened.
    pub async fn insert(
        self: &Arc<Self>,
        conn: Arc<Connection>,
        log: Arc<EventLog>,
        held: Held,
        max: usize,
    ) -> Result<Option<String>, StoreError> {
        if self.len() >= max {
            return Ok(None);
        }
        let id = new_session_id();
        let saved = conn.changes();
        if let Some(shared) = &self.shared {
            shared.store.put(&key(&id), &stored_json(&conn, 0)?, shared.ttl).await?;
            shared.share(&id, &log);
            self.listen(shared);
        }
        let inserted = {
            let mut map = self.map();
            // Checked again as the session is stored: concurrent `initialize`s cannot overshoot the limit.
            let room = map.len() < max;
            if room {
                let now = Instant::now();
                map.insert(
                    id.clone(),
                    Session { conn, log, last_used: now, saved, rev: 0, touched: now, _held: Some(held) },
                );
            }
            room
        };
        if !inserted {
            if let Some(shared) = &self.shared {
                shared.store.delete(&key(&id)).await?;
            }
            return Ok(None);
        }
        Ok(Some(id))
    }

    /// The session `id` names, marked as used now. With a shared store a copy here first converges with
    /// the record (see [`converge`](Self::converge)): it takes what other copies saved since, and ends if
    /// the session ended elsewhere. A session this replica has no copy of gets one, made with `adopt` (a new
    /// connection and log, numbering its requests to the client and its streams apart from other copies').
    pub async fn get(
        self: &Arc<Self>,
        id: &str,
        adopt: impl FnOnce() -> (Arc<Connection>, Arc<EventLog>),
    ) -> Result<Option<(Arc<Connection>, Arc<EventLog>)>, StoreError> {
        let local = self.map().get_mut(id).map(|session| {
            session.last_used = Instant::now();
            // The record's expiry is renewed now and then, not on every request.
            let renew = self.shared.as_ref().is_some_and(|s| session.touched.elapsed() >= s.ttl / 8);
            if renew {
                session.touched = Instant::now();
            }
            (session.conn.clone(), session.log.clone(), renew)
        });
        let Some(shared) = &self.shared else { return Ok(local.map(|(conn, log, _)| (conn, log))) };
        let found = shared.load(id).await?;
        if let Some((conn, log, renew)) = local {
            if !self.converge(shared, id, &conn, found).await?
                || renew && !shared.store.touch(&key(id), shared.ttl).await?
            {
                return Ok(None);
            }
            return Ok(Some((conn, log)));
        }
        let Some((stored, _)) = found else { return Ok(None) };
        let (conn, log) = adopt();
        if let Err(e) = conn.restore(&stored.session) {
            tracing::warn!("shared store: the record of a session cannot be restored ({e}); the session is gone");
            return Ok(None);
        }
        conn.set_session_id(id);
        let base = copy_base();
        conn.number_requests_from(base);
        log.number_streams_from(base.unsigned_abs());
        shared.share(id, &log);
        self.listen(shared);
        let mut map = self.map();
        // Another request may have made a copy meanwhile: one copy per replica.
        let now = Instant::now();
        let session = map.entry(id.to_owned()).or_insert_with(|| {
            conn.forward_changes();
            let saved = conn.changes();
            Session { conn, log, last_used: now, saved, rev: stored.rev, touched: now, _held: None }
        });
        Ok(Some((session.conn.clone(), session.log.clone())))
    }

    /// Brings this replica's copy of session `id` (on `conn`) and its record (`found`, just read) together;
    /// whether the session goes on. A newer record is taken. An older one was put back, after Redis lost its
    /// data, by a copy that had missed changes: this copy's takes its place. A record gone was ended
    /// elsewhere — a tombstone says so, and the copy ends — or lost with Redis's data, and the copy puts it
    /// back. Both are compare-and-sets, so of copies racing, the one with the highest revision stays.
    async fn converge(
        &self,
        shared: &Shared,
        id: &str,
        conn: &Connection,
        mut found: Option<(Stored, Vec<u8>)>,
    ) -> Result<bool, StoreError> {
        // A copy that lost a race reads again.
        for _ in 0..4 {
            let Some(rev) = self.map().get(id).map(|s| s.rev) else { return Ok(false) };
            let restored = match &found {
                Some((stored, _)) if stored.rev >= rev => {
                    self.take(id, conn, stored);
                    return Ok(true);
                }
                Some((_, older)) => shared.store.replace_if(&key(id), older, &stored_json(conn, rev)?).await?,
                None if shared.store.get(&tombstone(id)).await?.is_some() => {
                    let ended = self.map().remove(id);
                    drop(ended);
                    return Ok(false);
                }
                None => shared.store.insert_if_absent(&key(id), &stored_json(conn, rev)?, shared.ttl).await?,
            };
            if restored {
                tracing::info!("shared store: a session's record was lost or went back; restored from this copy");
                return Ok(true);
            }
            found = shared.load(id).await?;
        }
        // Still contended: go on with this copy, or the record if that is newer; the next request converges.
        if let Some((stored, _)) = &found {
            self.take(id, conn, stored);
        }
        Ok(true)
    }

    /// Makes the copy of session `id` on `conn` what `stored` says, if that is newer than what it has.
    fn take(&self, id: &str, conn: &Connection, stored: &Stored) {
        let newer = self.map().get(id).is_some_and(|s| stored.rev > s.rev);
        if !newer {
            return;
        }
        if let Err(e) = conn.restore(&stored.session) {
            tracing::warn!("shared store: a session's change cannot be taken: {e}");
            return;
        }
        if let Some(session) = self.map().get_mut(id) {
            (session.rev, session.saved) = (stored.rev, conn.changes());
        }
    }

    /// This replica's copy of session `id`, if it has one, without asking the store.
    pub fn local(&self, id: &str) -> Option<Arc<Connection>> {
        self.map().get(id).map(|s| s.conn.clone())
    }

    /// Saves the session's record if it changed since it was last saved, and tells the other copies: called
    /// when a request or notification on it is done. An error means the change stays on this replica (it
    /// is saved with the next one).
    pub async fn save(&self, id: &str) -> Result<(), StoreError> {
        let Some(shared) = &self.shared else { return Ok(()) };
        let (conn, rev) = {
            let mut map = self.map();
            let Some(session) = map.get_mut(id) else { return Ok(()) };
            if session.conn.changes() == session.saved {
                return Ok(());
            }
            (session.conn.clone(), session.rev + 1)
        };
        let changes = conn.changes();
        let stored = stored_json(&conn, rev)?;
        shared.store.put(&key(id), &stored, shared.ttl).await?;
        if let Some(session) = self.map().get_mut(id) {
            (session.rev, session.saved) = (rev, changes);
        }
        shared.store.publish(CHANNEL, &Note::Changed(&stored).encode(shared.replica.id(), id)).await
    }

    /// Hands `message` (a client's response or notification no request here awaits) to the copy of the
    /// session whose request does, on another replica; nothing without a shared store.
    pub async fn forward(&self, id: &str, message: &str) -> Result<(), StoreError> {
        let Some(shared) = &self.shared else { return Ok(()) };
        shared.store.publish(CHANNEL, &Note::FromClient(message.as_bytes()).encode(shared.replica.id(), id)).await
    }

    /// Ends a session, on every replica; false if there was none. Dropping the last handle of a copy runs
    /// its `on_close` callbacks.
    pub async fn remove(&self, id: &str) -> Result<bool, StoreError> {
        let removed = self.map().remove(id).is_some();
        if let Some(shared) = &self.shared {
            // Before the record goes: a copy that finds no record must know it ended, not that it was lost.
            shared.store.put(&tombstone(id), b"", shared.ttl).await?;
            shared.store.delete(&key(id)).await?;
            shared.store.publish(CHANNEL, &Note::Ended.encode(shared.replica.id(), id)).await?;
        }
        Ok(removed)
    }

    /// Ends every session on this replica (shutdown): their standalone streams end once their requests in
    /// flight have. Records in a shared store stay, for the other replicas.
    pub fn clear(&self) {
        let all = std::mem::take(&mut *self.map());
        drop(all);
    }

    /// Ends the sessions unused here for longer than `idle`; returns how many.
    pub fn reap(&self, idle: Duration) -> usize {
        let expired: Vec<Session> = {
            let mut map = self.map();
            let ids: Vec<String> =
                map.iter().filter(|(_, s)| s.last_used.elapsed() > idle).map(|(id, _)| id.clone()).collect();
            ids.iter().filter_map(|id| map.remove(id)).collect()
        };
        // Dropped outside the lock: `on_close` callbacks may take their time.
        expired.len()
    }

    /// Listens to the other copies' notes, once, for as long as these sessions exist.
    fn listen(self: &Arc<Self>, shared: &Shared) {
        shared.replica.announce();
        shared.listening.call_once(|| {
            let subscription = shared.store.subscribe(CHANNEL);
            tokio::spawn(hear(Arc::downgrade(self), subscription));
        });
    }

    /// One note from another replica's copy. Changes matter to a copy between requests too: its
    /// standalone stream tells the client of updates to the resources it subscribed to.
    fn heard(&self, session: &str, note: Note<'_>) {
        let Some(conn) = self.map().get(session).map(|s| s.conn.clone()) else { return };
        match note {
            Note::Changed(record) => match serde_json::from_slice::<Stored>(record) {
                Ok(stored) => self.take(session, &conn, &stored),
                Err(e) => tracing::warn!("shared store: a session's change is unreadable: {e}"),
            },
            Note::Ended => {
                let ended = self.map().remove(session);
                drop(ended);
            }
            Note::FromClient(message) => {
                let parsed = std::str::from_utf8(message).ok().and_then(|text| era::parse(text, None).ok());
                match parsed {
                    Some(Message::Response { id, outcome }) => {
                        conn.response(&id, outcome);
                    }
                    Some(Message::Notification(note)) => {
                        conn.notification(note);
                    }
                    _ => tracing::debug!(
                        "shared store: ignoring a forwarded message that is no response or notification"
                    ),
                }
            }
        }
    }

    /// After the channel broke, notes may have been missed: every copy here converges with its record again
    /// (see [`converge`](Self::converge)). After a Redis restart that lost its data, the replicas holding
    /// copies bring the sessions back at once, the newest copy of each winning.
    async fn resync(&self, shared: &Shared) {
        let copies: Vec<(String, Arc<Connection>)> =
            self.map().iter().map(|(id, s)| (id.clone(), s.conn.clone())).collect();
        for (id, conn) in copies {
            let resynced = match shared.load(&id).await {
                Ok(found) => self.converge(shared, &id, &conn, found).await,
                Err(e) => Err(e),
            };
            if resynced.is_err() {
                // Still unreachable: the next break resyncs again, and requests read their record anyway.
                return;
            }
        }
    }
}

/// Feeds the channel's notes to `sessions` until they are gone.
async fn hear(sessions: Weak<Sessions>, mut subscription: crate::store::Subscription) {
    let mut broke = false;
    while let Some(event) = subscription.next().await {
        let Some(sessions) = sessions.upgrade() else { return };
        let Some(shared) = &sessions.shared else { return };
        match event {
            Event::Message(bytes) => match Note::decode(&bytes) {
                Some((replica, _, _)) if replica == shared.replica.id() => {}
                Some((_, session, note)) => sessions.heard(session, note),
                None => tracing::debug!("shared store: ignoring an unreadable session note"),
            },
            Event::Gap => broke = true,
            Event::Ready if std::mem::take(&mut broke) => sessions.resync(shared).await,
            Event::Ready => {}
        }
    }
}

/// Where a copy numbers its requests to the client and its streams from: a random range of 2^20, below 2^53
/// so every client's JSON numbers hold them exactly.
fn copy_base() -> i64 {
    let mut bytes = [0u8; 4];
    let random = getrandom::fill(&mut bytes).map(|()| u32::from_le_bytes(bytes)).unwrap_or(1);
    (i64::from(random.max(1)) << 20) | 1
}

/// 128 random bits as 32 hex characters (visible ASCII, as the spec requires).
fn new_session_id() -> String {
    crate::ids::random().unwrap_or_else(|_| {
        // Without the OS's randomness a session id would be guessable; a process-unique fallback at least
        // keeps sessions apart, and the failure is logged.
        tracing::error!("the OS random source failed; session ids are not unpredictable");
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed).to_le_bytes());
        crate::ids::hex(&bytes)
    })
}

#[cfg(test)]
mod tests {
    use super::Note;

    #[test]
    fn notes_travel_as_they_were_made() {
        let bytes = Note::FromClient(b"{\"id\":1}\nmore").encode("r1", "s1");
        let Some(("r1", "s1", Note::FromClient(message))) = Note::decode(&bytes) else { panic!("decoded") };
        assert_eq!(message, b"{\"id\":1}\nmore");
        assert!(matches!(Note::decode(&Note::Ended.encode("r", "s")), Some(("r", "s", Note::Ended))));
        assert!(Note::decode(b"r x s\n").is_none(), "an unknown kind");
        assert!(Note::decode(b"no newline").is_none());
    }
}

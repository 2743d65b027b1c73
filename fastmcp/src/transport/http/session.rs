//! Legacy HTTP sessions: minted on `initialize`, named by `Mcp-Session-Id`, ended by `DELETE` or idleness.

use super::quotas::Held;
use super::sse::EventLog;
use crate::era::Connection;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A legacy session: its connection, its resumable streams, and when it was last used.
pub(crate) struct Session {
    pub conn: Arc<Connection>,
    pub log: Arc<EventLog>,
    last_used: Instant,
    /// Its place in its opener's quota, given back as the session ends.
    _held: Held,
}

/// The open sessions, by id.
#[derive(Default)]
pub(crate) struct Sessions {
    map: Mutex<HashMap<String, Session>>,
}

impl Sessions {
    fn map(&self) -> MutexGuard<'_, HashMap<String, Session>> {
        self.map.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn len(&self) -> usize {
        self.map().len()
    }

    /// Opens a session and returns its id; `None` if `max` are open already.
    pub fn insert(&self, conn: Arc<Connection>, log: Arc<EventLog>, held: Held, max: usize) -> Option<String> {
        let mut map = self.map();
        if map.len() >= max {
            return None;
        }
        let id = new_session_id();
        map.insert(id.clone(), Session { conn, log, last_used: Instant::now(), _held: held });
        Some(id)
    }

    /// The session `id` names, marked as used now.
    pub fn get(&self, id: &str) -> Option<(Arc<Connection>, Arc<EventLog>)> {
        let mut map = self.map();
        let session = map.get_mut(id)?;
        session.last_used = Instant::now();
        Some((session.conn.clone(), session.log.clone()))
    }

    /// Ends a session; false if there was none. Dropping the last handle runs its `on_close` callbacks.
    pub fn remove(&self, id: &str) -> bool {
        let removed = self.map().remove(id);
        removed.is_some()
    }

    /// Ends every session (shutdown): their standalone streams end once their requests in flight have.
    pub fn clear(&self) {
        let all = std::mem::take(&mut *self.map());
        drop(all);
    }

    /// Ends the sessions unused for longer than `idle`; returns how many.
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

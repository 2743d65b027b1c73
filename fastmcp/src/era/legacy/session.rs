//! A legacy session: what `initialize` settled (version, the client's capabilities), the client's
//! `logging/setLevel` and `resources/subscribe` choices, and what handlers keep in it.

use crate::context::SessionState;
use crate::protocol::{ClientCapabilities, Implementation, LoggingLevel, ProtocolVersion};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Set once by `initialize`, read lock-free by every later request.
#[derive(Default)]
pub(crate) struct Session {
    pub(super) peer: OnceLock<Arc<Peer>>,
    initialized: AtomicBool,
    /// The `logging/setLevel` threshold, as `LoggingLevel as u8 + 1`; 0 means not set.
    log_level: AtomicU8,
    /// What handlers keep per session (`Context::set`), and `on_close` callbacks.
    pub(super) state: Arc<SessionState>,
    /// URIs the client subscribed to with `resources/subscribe`.
    subscriptions: Mutex<BTreeSet<String>>,
    /// One request of legacy HTTP served without sessions: no state, nothing can be pushed to the client.
    pub(super) stateless: bool,
}

/// What the client said at `initialize`.
pub(crate) struct Peer {
    pub protocol_version: ProtocolVersion,
    /// `None` on a stateless request, whose `initialize` another request carried.
    pub client_info: Option<Implementation>,
    pub capabilities: ClientCapabilities,
}

impl Session {
    /// A session that exists for one request only (legacy HTTP without sessions): taken as initialized at
    /// `version`, with no declared client capabilities, since `initialize` travelled on another request.
    pub fn stateless(version: ProtocolVersion) -> Self {
        let peer = Peer { protocol_version: version, client_info: None, capabilities: ClientCapabilities::default() };
        let session = Self { stateless: true, ..Self::default() };
        let _ = session.peer.set(Arc::new(peer));
        session.mark_initialized();
        session
    }

    /// The session of an `initialize` served alone (legacy HTTP without sessions): it opens nothing.
    pub fn alone() -> Self {
        Self { stateless: true, ..Self::default() }
    }

    /// What handlers keep in the session (shared with modern requests where the connection is one client's).
    pub fn state(&self) -> Arc<SessionState> {
        self.state.clone()
    }

    pub fn mark_initialized(&self) {
        self.initialized.store(true, Ordering::Relaxed);
    }

    /// The version `initialize` settled on, once it has.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.peer.get().map(|p| p.protocol_version)
    }

    /// Whether the client subscribed to updates of the resource at `uri`.
    pub fn subscribed(&self, uri: &str) -> bool {
        self.subscriptions().contains(uri)
    }

    pub(super) fn subscribe(&self, uri: String, on: bool) {
        let mut subscriptions = self.subscriptions();
        if on {
            subscriptions.insert(uri);
        } else {
            subscriptions.remove(&uri);
        }
    }

    fn subscriptions(&self) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
        self.subscriptions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The client sent `notifications/initialized`: the server may now send it notifications of its own.
    pub fn is_initialized(&self) -> bool {
        self.initialized.load(Ordering::Relaxed)
    }

    pub(super) fn set_log_level(&self, level: LoggingLevel) {
        self.log_level.store(level as u8 + 1, Ordering::Relaxed);
    }

    /// The level `logging/setLevel` set; until the client sets one, everything is sent.
    pub(super) fn log_level(&self) -> LoggingLevel {
        let set = usize::from(self.log_level.load(Ordering::Relaxed));
        set.checked_sub(1).and_then(|i| LoggingLevel::ALL.get(i).copied()).unwrap_or(LoggingLevel::Debug)
    }

    /// The session ended: its `on_close` callbacks run.
    pub fn close(&self) {
        self.state.close();
    }
}

//! A legacy session: what `initialize` settled (version, the client's capabilities), the client's
//! `logging/setLevel` and `resources/subscribe` choices, and what handlers keep in it.

use crate::context::SessionState;
use crate::protocol::{ClientCapabilities, Implementation, LoggingLevel, ProtocolVersion};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
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
    /// Counts changes of the client's choices (initialized, level, subscriptions); see [`Session::changes`].
    changes: AtomicU64,
}

/// A session as another replica needs it to serve the session's next request: what `initialize` settled,
/// the client's choices since, and what handlers keep ([`Session::record`], [`Session::restore`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Record {
    pub protocol_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Implementation>,
    pub capabilities: ClientCapabilities,
    pub initialized: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<LoggingLevel>,
    #[serde(default)]
    pub subscriptions: BTreeSet<String>,
    #[serde(default)]
    pub values: HashMap<String, Value>,
    /// The principal the session belongs to (see `Connection::bind_owner`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
}

/// What the client said at `initialize`.
pub(crate) struct Peer {
    pub protocol_version: ProtocolVersion,
    /// `None` on a stateless request, whose `initialize` another request carried.
    pub client_info: Option<Arc<Implementation>>,
    /// Shared with every request of the session (each one's context holds it).
    pub capabilities: Arc<ClientCapabilities>,
}

impl Session {
    /// A session that exists for one request only (legacy HTTP without sessions): taken as initialized at
    /// `version`, with no declared client capabilities, since `initialize` travelled on another request.
    pub fn stateless(version: ProtocolVersion) -> Self {
        let peer = Peer { protocol_version: version, client_info: None, capabilities: Arc::default() };
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
        if !self.initialized.swap(true, Ordering::Relaxed) {
            self.changes.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// How many times the session changed (the client's choices and the handlers' values): a copy kept
    /// elsewhere is saved when this moved.
    pub fn changes(&self) -> u64 {
        self.changes.load(Ordering::Relaxed) + self.state.changes()
    }

    /// The session as a [`Record`] (its `owner` left for the connection to fill); `None` before `initialize`
    /// settled anything.
    pub fn record(&self) -> Option<Record> {
        let peer = self.peer.get()?;
        let log_level = self.log_level.load(Ordering::Relaxed);
        Some(Record {
            protocol_version: peer.protocol_version.as_str().to_owned(),
            client_info: peer.client_info.as_deref().cloned(),
            capabilities: ClientCapabilities::clone(&peer.capabilities),
            initialized: self.is_initialized(),
            log_level: (log_level > 0).then(|| self.log_level()),
            subscriptions: self.subscriptions().clone(),
            values: self.state.snapshot(),
            owner: None,
        })
    }

    /// Takes what another replica's copy of the session recorded; the peer only if this copy has none yet
    /// (it never changes after `initialize`). Not a change of this copy.
    pub fn restore(&self, record: &Record) -> Result<(), String> {
        if self.peer.get().is_none() {
            let protocol_version = ProtocolVersion::parse(&record.protocol_version)
                .ok_or_else(|| format!("unknown protocol version {}", record.protocol_version))?;
            let peer = Peer {
                protocol_version,
                client_info: record.client_info.clone().map(Arc::new),
                capabilities: Arc::new(record.capabilities.clone()),
            };
            let _ = self.peer.set(Arc::new(peer));
        }
        self.initialized.store(record.initialized, Ordering::Relaxed);
        self.log_level.store(record.log_level.map_or(0, |level| level as u8 + 1), Ordering::Relaxed);
        *self.subscriptions() = record.subscriptions.clone();
        self.state.restore(record.values.clone());
        Ok(())
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
        self.changes.fetch_add(1, Ordering::Relaxed);
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
        self.changes.fetch_add(1, Ordering::Relaxed);
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

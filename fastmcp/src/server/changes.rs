//! Changes clients may be told about — a list changed, a resource's contents changed — fanned out to every
//! client that can hear them: legacy sessions on their own stream (resource updates only for the URIs they
//! subscribed to), modern clients on the `subscriptions/listen` streams that asked for them.

use crate::protocol::{ListChanged, NOTIFY_RESOURCE_UPDATED};
use std::sync::Arc;
use tokio::sync::broadcast;

/// Changes not yet delivered to a slow listener before it is told "everything changed" instead.
const BACKLOG: usize = 64;

/// One change, as published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    List(ListChanged),
    /// The contents of the resource at this URI changed.
    Resource(Arc<str>),
}

impl Change {
    /// The notification's method and its params (before any subscription tag).
    pub fn notification(&self) -> (&'static str, serde_json::Map<String, serde_json::Value>) {
        match self {
            Change::List(list) => (list.method(), serde_json::Map::new()),
            Change::Resource(uri) => {
                let mut params = serde_json::Map::new();
                params.insert("uri".into(), serde_json::Value::String(uri.to_string()));
                (NOTIFY_RESOURCE_UPDATED, params)
            }
        }
    }
}

/// The server's fan-out of changes.
pub(crate) struct Changes {
    tx: broadcast::Sender<Change>,
}

impl Default for Changes {
    fn default() -> Self {
        Self { tx: broadcast::channel(BACKLOG).0 }
    }
}

impl Changes {
    pub fn publish(&self, change: Change) {
        // No receivers is fine: nobody is listening.
        let _ = self.tx.send(change);
    }

    pub fn subscribe(&self) -> Listener {
        Listener { rx: self.tx.subscribe() }
    }
}

/// One client's view of the changes.
pub(crate) struct Listener {
    rx: broadcast::Receiver<Change>,
}

impl Listener {
    /// The next changes: one, or every list when this listener fell behind (a spurious "list again" is
    /// harmless; a missed one is not — and resource updates it missed are covered by "resources changed").
    /// `None` once the server is gone.
    pub async fn next(&mut self) -> Option<Vec<Change>> {
        match self.rx.recv().await {
            Ok(change) => Some(vec![change]),
            Err(broadcast::error::RecvError::Lagged(_)) => Some(ListChanged::ALL.map(Change::List).to_vec()),
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }
}

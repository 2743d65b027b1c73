//! List changes, fanned out to every client that can hear them: legacy sessions get
//! `notifications/*/list_changed` on their own stream, modern clients on the `subscriptions/listen` streams
//! that asked for that list.

use crate::protocol::{NOTIFY_PROMPTS_LIST_CHANGED, NOTIFY_RESOURCES_LIST_CHANGED, NOTIFY_TOOLS_LIST_CHANGED};
use tokio::sync::broadcast;

/// Changes not yet delivered to a slow listener before it is told "everything changed" instead.
const BACKLOG: usize = 64;

/// A list the server serves that changed, so clients should list it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListChanged {
    Tools,
    Prompts,
    Resources,
}

impl ListChanged {
    pub const ALL: [ListChanged; 3] = [ListChanged::Tools, ListChanged::Prompts, ListChanged::Resources];

    /// The notification that announces it.
    pub fn method(self) -> &'static str {
        match self {
            ListChanged::Tools => NOTIFY_TOOLS_LIST_CHANGED,
            ListChanged::Prompts => NOTIFY_PROMPTS_LIST_CHANGED,
            ListChanged::Resources => NOTIFY_RESOURCES_LIST_CHANGED,
        }
    }
}

/// The server's fan-out of list changes.
pub(crate) struct Changes {
    tx: broadcast::Sender<ListChanged>,
}

impl Default for Changes {
    fn default() -> Self {
        Self { tx: broadcast::channel(BACKLOG).0 }
    }
}

impl Changes {
    pub fn publish(&self, list: ListChanged) {
        // No receivers is fine: nobody is listening.
        let _ = self.tx.send(list);
    }

    pub fn subscribe(&self) -> Listener {
        Listener { rx: self.tx.subscribe() }
    }
}

/// One client's view of the changes.
pub(crate) struct Listener {
    rx: broadcast::Receiver<ListChanged>,
}

impl Listener {
    /// The next changes: one, or all lists when this listener fell behind (a spurious "list again" is
    /// harmless; a missed one is not). `None` once the server is gone.
    pub async fn next(&mut self) -> Option<Vec<ListChanged>> {
        match self.rx.recv().await {
            Ok(list) => Some(vec![list]),
            Err(broadcast::error::RecvError::Lagged(_)) => Some(ListChanged::ALL.to_vec()),
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }
}

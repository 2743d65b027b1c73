//! Changes clients may be told about — a list changed, a resource's contents changed — fanned out to every
//! client that can hear them: legacy sessions on their own stream (resource updates only for the URIs they
//! subscribed to), modern clients on the `subscriptions/listen` streams that asked for them.
//!
//! In one process the fan-out is a tokio broadcast. With a shared [`Store`] (Redis), a change goes to the
//! store's `changes` channel instead, and each replica's forwarder feeds what the channel carries — its own
//! changes included — into its broadcast, so listeners on every replica hear changes made on any. A break in
//! the channel (Redis restarted) is told to listeners as "every list changed": a spurious "list again" is
//! harmless, a missed one is not.

use crate::protocol::{ListChanged, NOTIFY_RESOURCE_UPDATED};
use crate::store::{Event, Store, StoreError};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, watch};
use tokio_util::sync::{CancellationToken, DropGuard};

/// Changes not yet delivered to a slow listener before it is told "everything changed" instead.
const BACKLOG: usize = 64;
/// Changes waiting to go out to the shared store; beyond it a change is dropped (and logged).
const OUTBOX: usize = 1024;
/// How long a listener waits for the shared change channel to be connected before it is refused.
const READY_TIMEOUT: Duration = Duration::from_secs(5);
/// The store channel changes travel on.
const CHANNEL: &str = "changes";

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

    /// As it travels through the store: `l` and the list's notification method, or `r` and the URI.
    fn encode(&self) -> Vec<u8> {
        match self {
            Change::List(list) => format!("l{}", list.method()).into_bytes(),
            Change::Resource(uri) => format!("r{uri}").into_bytes(),
        }
    }

    /// `None` for a message this build does not read (another version's): the caller resyncs instead.
    fn decode(bytes: &[u8]) -> Option<Self> {
        let text = std::str::from_utf8(bytes).ok()?;
        if let Some(method) = text.strip_prefix('l') {
            return ListChanged::ALL.into_iter().find(|l| l.method() == method).map(Change::List);
        }
        text.strip_prefix('r').map(|uri| Change::Resource(uri.into()))
    }
}

/// The server's fan-out of changes.
pub(crate) struct Changes {
    tx: broadcast::Sender<Change>,
    /// Changes announced or heard so far (see [`Server::generation`](super::Server::generation)).
    generation: Arc<AtomicU64>,
    /// With a shared store: the way through it.
    bus: Option<Bus>,
}

struct Bus {
    store: Arc<dyn Store>,
    /// The publisher task's queue, started on first use (publishing keeps the order changes were made in).
    outbox: OnceLock<mpsc::Sender<Change>>,
    /// Whether the forwarder is listening to the store; it starts with the first listener.
    up: watch::Sender<bool>,
    forwarding: OnceLock<()>,
    /// Stops both tasks when the server is dropped.
    _stop: DropGuard,
    token: CancellationToken,
}

impl Changes {
    pub fn new(store: Arc<dyn Store>) -> Self {
        let bus = store.shared().then(|| {
            let token = CancellationToken::new();
            Bus {
                store,
                outbox: OnceLock::new(),
                up: watch::channel(false).0,
                forwarding: OnceLock::new(),
                _stop: token.clone().drop_guard(),
                token,
            }
        });
        Self { tx: broadcast::channel(BACKLOG).0, generation: Arc::default(), bus }
    }

    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    pub fn publish(&self, change: Change) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        let Some(bus) = &self.bus else {
            // No receivers is fine: nobody is listening.
            let _ = self.tx.send(change);
            return;
        };
        let Some(outbox) = bus.outbox() else {
            tracing::warn!("a change was announced outside a tokio runtime; replicas are not told");
            return;
        };
        if outbox.try_send(change).is_err() {
            tracing::warn!("shared store: {OUTBOX} changes are waiting to be published; this one is dropped");
        }
    }

    pub fn subscribe(&self) -> Listener {
        let rx = self.tx.subscribe();
        if let Some(bus) = &self.bus {
            bus.forward(&self.tx, &self.generation);
        }
        Listener { rx }
    }

    /// Waits until changes from other replicas reach this one's listeners (at once without a shared store):
    /// what a listener must know before it tells its client it is subscribed.
    pub async fn ready(&self) -> Result<(), StoreError> {
        let Some(bus) = &self.bus else { return Ok(()) };
        bus.forward(&self.tx, &self.generation);
        let mut up = bus.up.subscribe();
        match tokio::time::timeout(READY_TIMEOUT, up.wait_for(|up| *up)).await {
            Ok(Ok(_)) => Ok(()),
            _ => Err(StoreError::new("the change channel is not connected")),
        }
    }
}

impl Bus {
    fn outbox(&self) -> Option<&mpsc::Sender<Change>> {
        if let Some(outbox) = self.outbox.get() {
            return Some(outbox);
        }
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        Some(self.outbox.get_or_init(|| {
            let (tx, mut rx) = mpsc::channel::<Change>(OUTBOX);
            let (store, token) = (self.store.clone(), self.token.clone());
            runtime.spawn(async move {
                loop {
                    let change = tokio::select! {
                        () = token.cancelled() => return,
                        change = rx.recv() => match change { Some(change) => change, None => return },
                    };
                    if let Err(e) = store.publish(CHANNEL, &change.encode()).await {
                        tracing::warn!("a change could not reach the other replicas: {e}");
                    }
                }
            });
            tx
        }))
    }

    /// Starts the forwarder from the store's channel into this replica's broadcast, once.
    fn forward(&self, tx: &broadcast::Sender<Change>, generation: &Arc<AtomicU64>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        self.forwarding.get_or_init(|| {
            let mut subscription = self.store.subscribe(CHANNEL);
            let (tx, generation, up, token) = (tx.clone(), generation.clone(), self.up.clone(), self.token.clone());
            runtime.spawn(async move {
                // A listener may have subscribed while the channel was down: every (re)connect after the
                // first resyncs them.
                let mut connected_before = false;
                loop {
                    let event = tokio::select! {
                        () = token.cancelled() => return,
                        event = subscription.next() => match event { Some(event) => event, None => return },
                    };
                    let changes = match event {
                        Event::Ready => {
                            up.send_replace(true);
                            if !std::mem::replace(&mut connected_before, true) {
                                continue;
                            }
                            everything()
                        }
                        Event::Gap => {
                            up.send_replace(false);
                            tracing::warn!("shared store: the change channel broke; listeners will be resynced");
                            continue;
                        }
                        Event::Message(bytes) => Change::decode(&bytes).map_or_else(everything, |c| vec![c]),
                    };
                    generation.fetch_add(1, Ordering::SeqCst);
                    for change in changes {
                        let _ = tx.send(change);
                    }
                }
            });
        });
    }
}

fn everything() -> Vec<Change> {
    ListChanged::ALL.map(Change::List).to_vec()
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
            Err(broadcast::error::RecvError::Lagged(_)) => Some(everything()),
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_travel_through_the_store_as_they_were_made() {
        for change in ListChanged::ALL.map(Change::List).into_iter().chain([Change::Resource("file:///a b?c".into())]) {
            assert_eq!(Change::decode(&change.encode()), Some(change));
        }
        assert_eq!(Change::decode(b"lnotifications/unknown"), None);
        assert_eq!(Change::decode(b"x"), None);
        assert_eq!(Change::decode(&[0xff]), None);
    }
}

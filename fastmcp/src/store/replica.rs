//! Which replicas live: each one names itself in the shared store and renews a short-lived key while it
//! runs. Work another replica was doing (a task's runner, a legacy session's request stream) is known lost
//! when its replica's key is gone, rather than only when that work's own record expires.

use super::{Store, StoreError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once, Weak};
use std::time::Duration;

/// How often a replica renews its key.
const BEAT: Duration = Duration::from_secs(1);
/// How long the key outlives the last renewal: a replica stopped this long is taken for dead.
const LEASE: Duration = Duration::from_secs(5);

/// This replica: its name, and (with a shared store) the heartbeat that tells the others it lives.
pub(crate) struct Replica {
    id: String,
    store: Arc<dyn Store>,
    beating: Once,
    /// The last renewal of the key succeeded: it is live in the store now.
    renewed: AtomicBool,
}

fn key(id: &str) -> String {
    format!("replica:{id}")
}

impl Replica {
    /// This process's replica of a server sharing `store`, named at random.
    pub(crate) fn new(store: Arc<dyn Store>) -> Arc<Self> {
        let id = crate::ids::random().unwrap_or_else(|_| format!("pid-{}", std::process::id()));
        Arc::new(Self { id, store, beating: Once::new(), renewed: AtomicBool::new(false) })
    }

    /// The name other replicas know this one by.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// Starts renewing this replica's key, once, for as long as it exists: called by what leaves work
    /// another replica may need to judge. Nothing happens without a shared store.
    pub(crate) fn announce(self: &Arc<Self>) {
        if !self.store.shared() {
            return;
        }
        self.beating.call_once(|| {
            tokio::spawn(beat(Arc::downgrade(self)));
        });
    }

    /// As [`announce`](Self::announce), and renews the key now: once this returns, another replica asking
    /// finds this one alive (the heartbeat's first beat may not have landed yet). For what is about to leave
    /// work in the store that others judge by this replica's key.
    pub(crate) async fn announced(self: &Arc<Self>) -> Result<(), StoreError> {
        self.announce();
        if !self.store.shared() || self.renewed.load(Ordering::Relaxed) {
            return Ok(());
        }
        self.renew().await
    }

    async fn renew(&self) -> Result<(), StoreError> {
        let renewed = self.store.put(&key(&self.id), b"", LEASE).await;
        self.renewed.store(renewed.is_ok(), Ordering::Relaxed);
        renewed
    }

    /// Whether the replica named `id` runs (this one does). Without a shared store there is no other.
    pub(crate) async fn alive(&self, id: &str) -> Result<bool, StoreError> {
        if id == self.id || !self.store.shared() {
            return Ok(id == self.id);
        }
        Ok(self.store.get(&key(id)).await?.is_some())
    }
}

async fn beat(replica: Weak<Replica>) {
    let mut ticks = tokio::time::interval(BEAT);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let Some(replica) = replica.upgrade() else { return };
        if let Err(e) = replica.renew().await {
            // The store is down: others cannot see this replica, nor anything else, until it is back.
            tracing::debug!("replica heartbeat: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;

    #[tokio::test]
    async fn without_a_shared_store_only_this_replica_lives() {
        let replica = Replica::new(Arc::new(MemoryStore::new()));
        replica.announce();
        assert!(replica.alive(replica.id()).await.unwrap());
        assert!(!replica.alive("another").await.unwrap());
    }
}

//! The caps on connections. The total is back-pressure: the accept loop takes a place before it accepts,
//! so at the cap it stops accepting and new connections wait in the listen backlog until one closes. The
//! per-client share cannot work that way (the address is known only once accepted), so a connection beyond
//! it is accepted and its requests answered 429.

use crate::shares::{Share, Shares};
use std::net::IpAddr;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub(super) struct Admission {
    places: Arc<Semaphore>,
    max: usize,
    by_client: Arc<Shares<IpAddr>>,
}

/// A connection's place, held by its task, given back when the task ends.
pub(super) struct Place {
    _permit: OwnedSemaphorePermit,
    /// Its client's share (none for a connection refused over its share).
    _share: Option<Share<IpAddr>>,
}

impl Admission {
    pub fn new(max: usize, per_client: usize) -> Arc<Self> {
        // The semaphore's permits are bounded (and `all_closed` takes them all at once, as a u32).
        let max = max.clamp(1, u32::MAX as usize >> 4);
        Arc::new(Self { places: Arc::new(Semaphore::new(max)), max, by_client: Shares::new(per_client) })
    }

    pub fn per_client(&self) -> usize {
        self.by_client.per_key()
    }

    /// Waits until fewer than the most connections are open.
    pub async fn wait_for_place(&self) -> OwnedSemaphorePermit {
        self.places.clone().acquire_owned().await.unwrap_or_else(|_| unreachable!("the semaphore is never closed"))
    }

    /// Counts the connection from `client` in its share: `Ok` within it, `Err` (still a place, uncounted)
    /// beyond it.
    pub fn admit(&self, permit: OwnedSemaphorePermit, client: IpAddr) -> Result<Place, Place> {
        match self.by_client.take(client) {
            Some(share) => Ok(Place { _permit: permit, _share: Some(share) }),
            None => Err(Place { _permit: permit, _share: None }),
        }
    }

    /// The connections open now.
    pub fn open(&self) -> usize {
        self.max - self.places.available_permits()
    }

    /// Resolves once every connection has closed.
    pub async fn all_closed(&self) {
        let _ = self.places.acquire_many(self.max as u32).await;
    }
}

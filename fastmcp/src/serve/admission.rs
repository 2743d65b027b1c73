//! The caps on connections. The total is back-pressure: the accept loop takes a place before it accepts,
//! so at the cap it stops accepting and new connections wait in the listen backlog until one closes. The
//! per-client share cannot work that way (the address is known only once accepted), so a connection beyond
//! it is accepted and its requests answered 429.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub(super) struct Admission {
    places: Arc<Semaphore>,
    max: usize,
    per_client: usize,
    by_client: Mutex<HashMap<IpAddr, usize>>,
}

/// A connection's place, held by its task, given back when the task ends.
pub(super) struct Place {
    _permit: OwnedSemaphorePermit,
    /// The client whose share it counts in (none for a connection refused over its share).
    counted: Option<(Arc<Admission>, IpAddr)>,
}

impl Admission {
    pub fn new(max: usize, per_client: usize) -> Arc<Self> {
        // The semaphore's permits are bounded (and `all_closed` takes them all at once, as a u32).
        let max = max.clamp(1, u32::MAX as usize >> 4);
        Arc::new(Self {
            places: Arc::new(Semaphore::new(max)),
            max,
            per_client: per_client.max(1),
            by_client: Mutex::default(),
        })
    }

    pub fn per_client(&self) -> usize {
        self.per_client
    }

    /// Waits until fewer than the most connections are open.
    pub async fn wait_for_place(&self) -> OwnedSemaphorePermit {
        self.places.clone().acquire_owned().await.unwrap_or_else(|_| unreachable!("the semaphore is never closed"))
    }

    /// Counts the connection from `client` in its share: `Ok` within it, `Err` (still a place, uncounted)
    /// beyond it.
    pub fn admit(self: &Arc<Self>, permit: OwnedSemaphorePermit, client: IpAddr) -> Result<Place, Place> {
        let mut by_client = self.by_client.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let held = by_client.entry(client).or_default();
        if *held >= self.per_client {
            return Err(Place { _permit: permit, counted: None });
        }
        *held += 1;
        Ok(Place { _permit: permit, counted: Some((self.clone(), client)) })
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

impl Drop for Place {
    fn drop(&mut self) {
        let Some((admission, client)) = &self.counted else { return };
        let mut by_client = admission.by_client.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(held) = by_client.get_mut(client) {
            *held -= 1;
            if *held == 0 {
                by_client.remove(client);
            }
        }
    }
}

//! A connection's requests in flight, by id: what a client's `notifications/cancelled` and the end of its
//! input reach.
//!
//! A request is registered from when it could be looked up until it ends. Most requests on stdio never
//! need to be: the reader runs one where it read it, and nothing else is read until that run stops, so a
//! request that finishes in it (most do) is never reachable. Such a request registers only once it has to
//! wait ([`Flights::insert`] at that point), and with nothing registered every lookup is skipped without
//! taking the lock: at 64 requests in flight on stdio the map's lock, hash and entry were ~4 % of the
//! server's time.

use crate::cancel::Cancel;
use crate::protocol::RequestId;
use crate::sync::lock;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The map's hasher: see `foldhash` in Cargo.toml.
type Map = HashMap<RequestId, Flight, foldhash::fast::RandomState>;

/// A request in flight: how to cancel it, and whether it is a subscription (which never ends on its own).
pub(super) struct Flight {
    pub cancel: Cancel,
    pub listen: bool,
}

#[derive(Default)]
pub(super) struct Flights {
    map: Mutex<Map>,
    /// How many are in `map`, read without its lock.
    registered: AtomicUsize,
}

impl Flights {
    fn map(&self) -> MutexGuard<'_, Map> {
        lock(&self.map)
    }

    fn any(&self) -> bool {
        self.registered.load(Ordering::Acquire) > 0
    }

    /// Registers a request; one registered under the same id is cancelled (the client reused the id).
    pub fn insert(&self, id: &RequestId, flight: Flight) {
        let mut map = self.map();
        match map.insert(id.clone(), flight) {
            Some(previous) => reused(id, &previous),
            None => {
                self.registered.fetch_add(1, Ordering::Release);
            }
        }
    }

    /// A request with `id` starts without registering: one registered under the same id is cancelled and
    /// forgotten, as [`insert`](Self::insert) would.
    pub fn displace(&self, id: &RequestId) {
        if !self.any() {
            return;
        }
        if let Some(previous) = self.map().remove(id) {
            self.registered.fetch_sub(1, Ordering::Release);
            reused(id, &previous);
        }
    }

    /// A request ended: it is forgotten if it is registered, and not one that reused its id.
    pub fn remove(&self, id: &RequestId, cancel: &Cancel) {
        if !self.any() {
            return;
        }
        let mut map = self.map();
        if map.get(id).is_some_and(|flight| flight.cancel.same(cancel)) {
            map.remove(id);
            self.registered.fetch_sub(1, Ordering::Release);
        }
    }

    /// Cancels the request registered as `id`; false if there is none.
    pub fn cancel(&self, id: &RequestId) -> bool {
        if !self.any() {
            return false;
        }
        self.map().get(id).map(|flight| flight.cancel.abandon()).is_some()
    }

    /// Cancels every subscription.
    pub fn end_subscriptions(&self) {
        if !self.any() {
            return;
        }
        for flight in self.map().values().filter(|f| f.listen) {
            flight.cancel.cancel();
        }
    }
}

fn reused(id: &RequestId, previous: &Flight) {
    tracing::warn!("request id {id} reused while a request with it is in flight");
    previous.cancel.abandon();
}

#[cfg(test)]
mod tests {
    use super::{Flight, Flights};
    use crate::cancel::Cancel;
    use crate::protocol::RequestId;

    #[test]
    fn a_reused_id_cancels_the_earlier_request_and_only_its_own_end_forgets_it() {
        let flights = Flights::default();
        let id = RequestId::Number(1);
        let (first, second) = (Cancel::default(), Cancel::default());
        flights.insert(&id, Flight { cancel: first.clone(), listen: false });
        flights.insert(&id, Flight { cancel: second.clone(), listen: true });
        assert!(first.is_cancelled() && !second.is_cancelled());
        flights.remove(&id, &first);
        assert!(flights.any(), "the earlier request's end leaves the later one registered");
        flights.end_subscriptions();
        assert!(second.is_cancelled());
        flights.remove(&id, &second);
        assert!(!flights.any() && !flights.cancel(&id));

        let (waiting, unregistered) = (Cancel::default(), Cancel::default());
        flights.insert(&id, Flight { cancel: waiting.clone(), listen: false });
        flights.displace(&id);
        assert!(waiting.is_cancelled() && !flights.any(), "a request that reuses the id unregistered ends it");
        flights.remove(&id, &unregistered);
        assert!(!flights.any());
    }
}

//! Each client's share of what outlives its requests: records that stay until a time (a one-time flow's
//! consumed round stays until its token expires). A [`Shares`](crate::shares::Shares) unit is given back when
//! its holder lets go; a lease, once kept, is given back by the clock, so one client's flood of them can't
//! fill a bound everyone shares.
//!
//! A key's leases are the instants they end, in a heap, plus those taken and not yet kept or given back
//! (the round is still running). Each take drops the key's ended leases first. A key left with none is
//! forgotten when its last lease is given back, or in a sweep of every key once the map has doubled since
//! the last, so the map holds keys with live leases and at most as many others.

use crate::sync::lock;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::Hash;
use std::sync::{Arc, Mutex};
use tokio::time::Instant;

/// The live leases of each key, each key within `per_key`.
pub(crate) struct Leases<K: Eq + Hash + Clone> {
    per_key: usize,
    held: Mutex<Held<K>>,
}

/// The map's hasher: foldhash, seeded per map, as the in-flight map's (see `foldhash` in Cargo.toml).
struct Held<K> {
    keys: HashMap<K, KeyLeases, foldhash::fast::RandomState>,
    /// The number of keys at which the next take sweeps every key.
    sweep_at: usize,
}

#[derive(Default)]
struct KeyLeases {
    /// When each kept lease ends, soonest first.
    ends: BinaryHeap<Reverse<Instant>>,
    /// Taken, neither kept nor given back yet.
    pending: usize,
}

impl KeyLeases {
    /// Drops the ended leases; whether nothing is left.
    fn expire(&mut self, now: Instant) -> bool {
        while self.ends.peek().is_some_and(|Reverse(end)| *end <= now) {
            self.ends.pop();
        }
        self.ends.is_empty() && self.pending == 0
    }
}

/// The smallest map size that sweeps: below it, a sweep would cost more than the keys it could drop.
const FIRST_SWEEP: usize = 64;

impl<K: Eq + Hash + Clone> Leases<K> {
    pub fn new(per_key: usize) -> Arc<Self> {
        let held = Held { keys: HashMap::default(), sweep_at: FIRST_SWEEP };
        Arc::new(Self { per_key: per_key.max(1), held: Mutex::new(held) })
    }

    /// The cap on one key's live leases.
    pub fn per_key(&self) -> usize {
        self.per_key
    }

    /// A lease for `key`, unless it holds its share of live ones already: then when the soonest of its kept
    /// leases ends (`None` when every one it holds is pending, its round still running).
    pub fn take(self: &Arc<Self>, key: K) -> Result<Lease<K>, Option<Instant>> {
        let now = Instant::now();
        let mut held = lock(&self.held);
        if held.keys.len() >= held.sweep_at {
            held.keys.retain(|_, leases| !leases.expire(now));
            held.sweep_at = (2 * held.keys.len()).max(FIRST_SWEEP);
        }
        let leases = held.keys.entry(key.clone()).or_default();
        leases.expire(now);
        if leases.ends.len() + leases.pending >= self.per_key {
            return Err(leases.ends.peek().map(|Reverse(end)| *end));
        }
        leases.pending += 1;
        Ok(Lease { leases: self.clone(), key: Some(key) })
    }

    /// Settles one pending lease of `key`: kept until `end`, or given back. Ended leases wait for the key's
    /// next take, or a sweep.
    fn settle(&self, key: &K, end: Option<Instant>) {
        let mut held = lock(&self.held);
        let Some(leases) = held.keys.get_mut(key) else { return };
        leases.pending = leases.pending.saturating_sub(1);
        match end {
            Some(end) => leases.ends.push(Reverse(end)),
            None if leases.ends.is_empty() && leases.pending == 0 => drop(held.keys.remove(key)),
            None => {}
        }
    }

    /// How many keys the map holds now.
    #[cfg(test)]
    fn keys(&self) -> usize {
        lock(&self.held).keys.len()
    }
}

/// A lease taken: [`keep_until`](Self::keep_until) keeps it counted until then; dropped unkept, it is given
/// back at once.
pub(crate) struct Lease<K: Eq + Hash + Clone> {
    leases: Arc<Leases<K>>,
    /// `None` once settled.
    key: Option<K>,
}

impl<K: Eq + Hash + Clone> Lease<K> {
    /// Keeps the lease counted against its key until `end`.
    pub fn keep_until(mut self, end: Instant) {
        if let Some(key) = self.key.take() {
            self.leases.settle(&key, Some(end));
        }
    }
}

impl<K: Eq + Hash + Clone> Drop for Lease<K> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            self.leases.settle(&key, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn a_key_holds_its_share_of_live_leases_and_gets_room_as_they_end() {
        let leases = Leases::new(2);
        let end = Instant::now() + Duration::from_secs(10);
        leases.take("a").expect("within the share").keep_until(end);
        let pending = leases.take("a").expect("within the share");
        assert_eq!(leases.take("a").err(), Some(Some(end)), "a pending lease counts; room comes at the kept one's end");
        assert!(leases.take("b").is_ok(), "another key has its own share");
        drop(pending);
        let second = leases.take("a").expect("a lease dropped unkept is given back");
        second.keep_until(end + Duration::from_secs(5));
        assert_eq!(leases.take("a").err(), Some(Some(end)), "the soonest end, not the latest");
        tokio::time::advance(Duration::from_secs(10)).await;
        leases.take("a").expect("the first lease ended").keep_until(end + Duration::from_secs(5));
        assert!(leases.take("a").is_err(), "the second has not");
        tokio::time::advance(Duration::from_secs(5)).await;
        assert!(leases.take("a").is_ok(), "both ended");
    }

    #[test]
    fn a_key_whose_leases_are_all_pending_cannot_say_when_it_has_room() {
        let leases = Leases::new(1);
        let _pending = leases.take("a").unwrap();
        assert_eq!(leases.take("a").err(), Some(None));
    }

    #[tokio::test(start_paused = true)]
    async fn keys_whose_leases_all_ended_are_forgotten() {
        let leases = Leases::new(1);
        drop(leases.take(0).unwrap());
        assert_eq!(leases.keys(), 0, "a lease given back leaves nothing of its key");
        let end = Instant::now() + Duration::from_secs(1);
        (0..FIRST_SWEEP).for_each(|key| leases.take(key).unwrap().keep_until(end));
        assert_eq!(leases.keys(), FIRST_SWEEP);
        tokio::time::advance(Duration::from_secs(1)).await;
        // The take that finds the map at its sweep size drops every key whose leases ended.
        leases.take(FIRST_SWEEP).unwrap().keep_until(end + Duration::from_secs(1));
        assert_eq!(leases.keys(), 1);
        assert_eq!(lock(&leases.held).sweep_at, FIRST_SWEEP, "a sweep sets the next at twice what is left");
    }
}

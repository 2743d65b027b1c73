//! Who a client is ([`Client::of`], the one place that decides it), and each client's share of a bounded
//! resource (connections, long-lived streams, requests being served): what one key holds is counted,
//! refused past its cap, and given back when the [`Share`] is dropped, so one client can't take every slot
//! from everyone else.
//!
//! A key's count is a [`Tally`] of its own, found under a lock once and then counted atomically. Whoever
//! takes for the same key again and again (a connection, for its client's requests) keeps the tally, so each
//! take is an atomic add: no lock, no lookup and no hashing on the request's path.

use crate::auth::AccessToken;
use crate::sync::lock;
use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

/// Who a share counts against: the principal on a protected server, else the client's address when the
/// server knows it. `None` from [`Client::of`]: the client can't be told apart, and only totals count.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Client {
    Principal(String),
    Addr(IpAddr),
}

impl Client {
    /// The client a request comes from, by its verified access token or else its connection's address.
    pub fn of(caller: Option<&AccessToken>, peer: Option<IpAddr>) -> Option<Self> {
        match caller {
            Some(caller) => Some(Client::Principal(caller.principal().as_str().to_owned())),
            None => peer.map(Client::Addr),
        }
    }
}

/// The tallies of the keys that hold something (or whose tally someone keeps), each within `per_key`.
pub(crate) struct Shares<K: Eq + Hash + Clone> {
    per_key: usize,
    tallies: Mutex<HashMap<K, Weak<Tally<K>>>>,
}

impl<K: Eq + Hash + Clone> Shares<K> {
    pub fn new(per_key: usize) -> Arc<Self> {
        Arc::new(Self { per_key: per_key.max(1), tallies: Mutex::default() })
    }

    /// The cap on one key's share.
    pub fn per_key(&self) -> usize {
        self.per_key
    }

    fn tallies(&self) -> MutexGuard<'_, HashMap<K, Weak<Tally<K>>>> {
        lock(&self.tallies)
    }

    /// `key`'s tally, to take from as often as needed. The map keeps it while anyone does: it goes with the
    /// last holder (the last [`Share`] or the last kept `Arc`).
    pub fn tally(self: &Arc<Self>, key: K) -> Arc<Tally<K>> {
        let mut tallies = self.tallies();
        if let Some(tally) = tallies.get(&key).and_then(Weak::upgrade) {
            return tally;
        }
        let tally = Arc::new(Tally { shares: self.clone(), key: key.clone(), held: AtomicUsize::new(0) });
        tallies.insert(key, Arc::downgrade(&tally));
        tally
    }

    /// One more for `key`, unless it holds its share already.
    pub fn take(self: &Arc<Self>, key: K) -> Option<Share<K>> {
        self.tally(key).take()
    }

    /// Whether no key holds anything.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.tallies().is_empty()
    }
}

/// What one key holds now.
pub(crate) struct Tally<K: Eq + Hash + Clone> {
    shares: Arc<Shares<K>>,
    key: K,
    held: AtomicUsize,
}

impl<K: Eq + Hash + Clone> Tally<K> {
    /// One more for this key, unless it holds its share already. The count guards no other memory, so
    /// relaxed: the read-modify-write alone keeps it within the cap.
    pub fn take(self: &Arc<Self>) -> Option<Share<K>> {
        let per_key = self.shares.per_key;
        self.held
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| (held < per_key).then_some(held + 1))
            .ok()?;
        Some(Share { tally: self.clone() })
    }
}

impl<K: Eq + Hash + Clone> Drop for Tally<K> {
    fn drop(&mut self) {
        let mut tallies = self.shares.tallies();
        // Unless a newer tally took the key's place after this one's last holder let go and before this lock.
        if tallies.get(&self.key).is_some_and(|kept| std::ptr::eq(kept.as_ptr(), self)) {
            tallies.remove(&self.key);
        }
    }
}

/// One unit of a key's share, given back when dropped.
pub(crate) struct Share<K: Eq + Hash + Clone> {
    tally: Arc<Tally<K>>,
}

impl<K: Eq + Hash + Clone> Drop for Share<K> {
    fn drop(&mut self) {
        self.tally.held.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_tally_counts_with_the_map_and_the_key_goes_with_its_last_holder() {
        let shares = Shares::new(2);
        let kept = shares.tally("a");
        let first = kept.take().expect("within the share");
        let second = shares.take("a").expect("the map finds the kept tally");
        assert!(kept.take().is_none() && shares.take("a").is_none(), "both count against one share");
        let other = shares.take("b").expect("b has its own");
        drop(first);
        let third = kept.take().expect("a unit was given back");
        drop((second, third, other));
        assert!(!shares.is_empty(), "the kept tally stays in the map");
        assert_eq!(kept.held.load(Ordering::Relaxed), 0);
        drop(kept);
        assert!(shares.is_empty());
    }

    #[test]
    fn a_tally_dropped_after_a_newer_one_took_its_key_leaves_the_newer_in_place() {
        let shares = Shares::new(1);
        let old = shares.tally("a");
        // As if the old tally's last holder had let go and a take came before its drop took the lock.
        shares.tallies().insert("a", Weak::new());
        let new = shares.tally("a");
        assert!(!Arc::ptr_eq(&old, &new));
        drop(old);
        let share = shares.take("a").expect("the newer tally is found, not a third");
        assert!(new.take().is_none(), "the take counted against the newer tally");
        drop((share, new));
        assert!(shares.is_empty());
    }
}

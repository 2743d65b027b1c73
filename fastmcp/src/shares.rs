//! Each client's share of a bounded resource (connections, long-lived streams): what one key holds is
//! counted, refused past its cap, and given back when the [`Share`] is dropped, so one client can't take
//! every slot from everyone else.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};

/// What each key holds now, each within `per_key`.
pub(crate) struct Shares<K> {
    per_key: usize,
    held: Mutex<HashMap<K, usize>>,
}

impl<K: Eq + Hash + Clone> Shares<K> {
    pub fn new(per_key: usize) -> Arc<Self> {
        Arc::new(Self { per_key: per_key.max(1), held: Mutex::default() })
    }

    /// The cap on one key's share.
    pub fn per_key(&self) -> usize {
        self.per_key
    }

    fn held(&self) -> MutexGuard<'_, HashMap<K, usize>> {
        self.held.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// One more for `key`, unless it holds its share already.
    pub fn take(self: &Arc<Self>, key: K) -> Option<Share<K>> {
        let mut held = self.held();
        let count = held.entry(key.clone()).or_default();
        if *count >= self.per_key {
            return None;
        }
        *count += 1;
        Some(Share { shares: self.clone(), key })
    }

    /// Whether no key holds anything.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.held().is_empty()
    }
}

/// One unit of a key's share, given back when dropped.
pub(crate) struct Share<K: Eq + Hash + Clone> {
    shares: Arc<Shares<K>>,
    key: K,
}

impl<K: Eq + Hash + Clone> Drop for Share<K> {
    fn drop(&mut self) {
        let mut held = self.shares.held();
        if let Some(count) = held.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.key);
            }
        }
    }
}

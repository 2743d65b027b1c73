//! The in-memory store: one process's map with expiry, and its own publish/subscribe.
//!
//! The map is split into [`SHARDS`] shards by a hash of the key, each behind its own lock, so that no
//! single write holds everyone up. Growing a table rehashes it and a sweep walks it: over one table of a
//! million consumed-round records, the rehash at 917 504 entries held the lock for 100–140 ms (`cargo bench
//! --bench memory_store`), stalling the worker thread and every writer behind it. Over a shard the slowest
//! write takes 2–4 ms.
//!
//! Expired entries are dropped lazily: a read ignores them, and a write sweeps its shard whenever the shard
//! has doubled since its last sweep, so each shard stays within twice what is live in it (amortised O(1) per
//! write).
//!
//! Live entries are bounded too ([`MemoryStore::with_max_entries`]): a flood of one-time flows keeps a
//! consumed-round record each for the token's lifetime, and nothing else would stop those from taking all
//! memory. At the bound a new key is refused, never an old one evicted: an evicted consumed-round record
//! would make its token replayable, so the claim fails closed (`-32603`) instead.

use super::{Event, Store, StoreError, StoreFuture, Subscription, feed};
use crate::sync::{lock, try_lock};
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// The default store: this process only (see the [module docs](super)).
pub struct MemoryStore {
    shards: Box<[Padded]>,
    /// Picks a key's shard. Seeded per process; the shard's own map hashes with SipHash as any `HashMap`.
    picker: foldhash::fast::RandomState,
    /// Entries in all shards, expired ones not yet swept included: what the bound counts.
    held: AtomicUsize,
    max_entries: usize,
    /// When a full store may next sweep every shard for room: refusing a flood must not cost a sweep each.
    /// Taken with `try_lock`, so one writer sweeps and the others are refused meanwhile rather than wait.
    full_sweep_after: Mutex<Option<Instant>>,
    channels: Mutex<HashMap<String, Vec<Subscriber>>>,
}

/// How many shards the map is split into.
pub(super) const SHARDS: usize = 64;

/// A shard on cache lines of its own, so that two threads writing neighbouring shards do not contend.
#[repr(align(128))]
struct Padded(Mutex<Shard>);

impl Default for MemoryStore {
    fn default() -> Self {
        Self::with_max_entries(Self::DEFAULT_MAX_ENTRIES)
    }
}

#[derive(Default)]
struct Shard {
    entries: HashMap<Key, (Box<[u8]>, Instant)>,
    /// The size at which the next write sweeps expired entries.
    sweep_at: usize,
}

/// A key, held inline when it is short. A one-time flow's consumed-round record (`consumed:` and 32 hex
/// digits) lives as long as its token: as an allocation of its own, each was a small long-lived block left
/// between the requests' short-lived ones, and under a flood of flows the allocator's heap fragmented
/// (malloc's share of the server's time grew with the map). Looked up as bytes, so no UTF-8 check.
pub(super) enum Key {
    Inline { len: u8, bytes: [u8; INLINE_KEY] },
    Heap(Box<[u8]>),
}

/// The longest key held inline: with its length and the tag, a key is 48 bytes.
const INLINE_KEY: usize = 46;

impl Key {
    fn new(key: &str) -> Self {
        let key = key.as_bytes();
        match u8::try_from(key.len()) {
            Ok(len) if key.len() <= INLINE_KEY => {
                let mut bytes = [0; INLINE_KEY];
                bytes[..key.len()].copy_from_slice(key);
                Self::Inline { len, bytes }
            }
            _ => Self::Heap(key.into()),
        }
    }

    fn as_bytes(&self) -> &[u8] {
        match self {
            Self::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Self::Heap(bytes) => bytes,
        }
    }
}

impl std::borrow::Borrow<[u8]> for Key {
    fn borrow(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// As the bytes hash, which `Borrow` requires.
impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Key {}

struct Subscriber {
    tx: mpsc::Sender<Event>,
    lagging: bool,
}

/// Entries a shard keeps before its first sweep (1024 in the whole map).
pub(super) const FIRST_SWEEP: usize = 16;

/// How often a store at its bound looks for expired entries to make room.
const FULL_SWEEP_EVERY: Duration = Duration::from_secs(1);

impl MemoryStore {
    /// The default bound on live entries: about 170 MB of consumed-round records at most (80 bytes a slot;
    /// the shards' tables double to 2^21 slots in all past about 917 504 entries).
    pub const DEFAULT_MAX_ENTRIES: usize = 1_000_000;

    /// A store holding at most [`DEFAULT_MAX_ENTRIES`](Self::DEFAULT_MAX_ENTRIES) live entries.
    pub fn new() -> Self {
        Self::default()
    }

    /// A store holding at most `max` live entries (at least 1). A write of a new key beyond them fails with
    /// a [`StoreError`] until some expire; writes to keys it holds still succeed.
    pub fn with_max_entries(max: usize) -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Padded(Mutex::default())).collect(),
            picker: foldhash::fast::RandomState::default(),
            held: AtomicUsize::new(0),
            max_entries: max.max(1),
            full_sweep_after: Mutex::new(None),
            channels: Mutex::default(),
        }
    }

    /// The shard `key` lives in, locked.
    fn shard(&self, key: &str) -> MutexGuard<'_, Shard> {
        let at = self.picker.hash_one(key.as_bytes()) as usize % SHARDS;
        lock(&self.shards[at].0)
    }

    /// Entries held in all shards, expired ones not yet swept included.
    #[cfg(test)]
    pub(super) fn held(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    /// Each shard's entries.
    #[cfg(test)]
    pub(super) fn shard_lens(&self) -> Vec<usize> {
        self.shards.iter().map(|shard| lock(&shard.0).entries.len()).collect()
    }

    /// Writes `key` unless `if_absent` and it is live; `true` when written. Only a new key grows the map,
    /// and only under the bound: a full store sweeps every shard (at most once a second) before it refuses.
    fn write(&self, key: &str, value: &[u8], ttl: Duration, now: Instant, if_absent: bool) -> Result<bool, StoreError> {
        let mut swept = false;
        loop {
            let mut shard = self.shard(key);
            if let Some(slot) = shard.entries.get_mut(key.as_bytes()) {
                if if_absent && slot.1 > now {
                    return Ok(false);
                }
                *slot = (value.into(), now + ttl);
                return Ok(true);
            }
            if shard.entries.len() >= shard.sweep_at {
                self.sweep(&mut shard, now);
            }
            let room = self
                .held
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| (n < self.max_entries).then_some(n + 1));
            if room.is_ok() {
                shard.entries.insert(Key::new(key), (value.into(), now + ttl));
                return Ok(true);
            }
            // Not under a shard's lock: the sweep takes each in turn.
            drop(shard);
            if swept || !self.sweep_all(now) {
                return Err(StoreError::new(format!(
                    "the in-memory store holds its limit of {} live entries (MemoryStore::with_max_entries); \
                     try again once some expire",
                    self.max_entries
                )));
            }
            swept = true;
        }
    }

    /// Drops the shard's expired entries and sets its next sweep at twice what is left.
    fn sweep(&self, shard: &mut Shard, now: Instant) {
        let before = shard.entries.len();
        shard.entries.retain(|_, (_, expires)| *expires > now);
        self.held.fetch_sub(before - shard.entries.len(), Ordering::Relaxed);
        shard.sweep_at = (shard.entries.len() * 2).max(FIRST_SWEEP);
    }

    /// Sweeps every shard, one lock at a time, unless another writer is at it or the last sweep of a full
    /// store was under a second ago; `true` when it swept.
    fn sweep_all(&self, now: Instant) -> bool {
        let Some(mut after) = try_lock(&self.full_sweep_after) else {
            return false;
        };
        if after.is_some_and(|after| now < after) {
            return false;
        }
        for shard in &self.shards {
            self.sweep(&mut lock(&shard.0), now);
        }
        *after = (self.held.load(Ordering::Relaxed) >= self.max_entries).then(|| now + FULL_SWEEP_EVERY);
        true
    }
}

impl Store for MemoryStore {
    fn insert_if_absent<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> StoreFuture<'a, bool> {
        Box::pin(std::future::ready(self.write(key, value, ttl, Instant::now(), true)))
    }

    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> StoreFuture<'a, ()> {
        Box::pin(std::future::ready(self.write(key, value, ttl, Instant::now(), false).map(drop)))
    }

    fn replace_if<'a>(&'a self, key: &'a str, expected: &'a [u8], value: &'a [u8]) -> StoreFuture<'a, bool> {
        let now = Instant::now();
        let replaced = match self.shard(key).entries.get_mut(key.as_bytes()) {
            Some((current, expires)) if *expires > now && **current == *expected => {
                *current = value.into();
                true
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(replaced)))
    }

    fn touch<'a>(&'a self, key: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        let now = Instant::now();
        let touched = match self.shard(key).entries.get_mut(key.as_bytes()) {
            Some((_, expires)) if *expires > now => {
                *expires = now + ttl;
                true
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(touched)))
    }

    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        let now = Instant::now();
        let value =
            self.shard(key).entries.get(key.as_bytes()).filter(|(_, expires)| *expires > now).map(|(v, _)| v.to_vec());
        Box::pin(std::future::ready(Ok(value)))
    }

    fn delete<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()> {
        if self.shard(key).entries.remove(key.as_bytes()).is_some() {
            self.held.fetch_sub(1, Ordering::Relaxed);
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn publish<'a>(&'a self, channel: &'a str, message: &'a [u8]) -> StoreFuture<'a, ()> {
        let mut channels = lock(&self.channels);
        if let Some(subscribers) = channels.get_mut(channel) {
            subscribers.retain_mut(|s| feed(&s.tx, Event::Message(message.to_vec()), &mut s.lagging));
            if subscribers.is_empty() {
                channels.remove(channel);
            }
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn subscribe(&self, channel: &str) -> Subscription {
        let (tx, subscription) = Subscription::channel();
        let _ = tx.try_send(Event::Ready);
        let mut channels = lock(&self.channels);
        channels.entry(channel.to_owned()).or_default().push(Subscriber { tx, lagging: false });
        subscription
    }

    fn shared(&self) -> bool {
        false
    }
}

//! The in-memory store: one process's map with expiry, and its own publish/subscribe.
//!
//! Expired entries are dropped lazily: a read ignores them, and a write sweeps the map whenever it has
//! doubled since the last sweep, so the map stays within twice what is live (amortised O(1) per write).
//!
//! Live entries are bounded too ([`MemoryStore::with_max_entries`]): a flood of one-time flows keeps a
//! consumed-round record each for the token's lifetime, and nothing else would stop those from taking all
//! memory. At the bound a new key is refused, never an old one evicted: an evicted consumed-round record
//! would make its token replayable, so the claim fails closed (`-32603`) instead.

use super::{Event, Store, StoreError, StoreFuture, Subscription, feed};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// The default store: this process only (see the [module docs](super)).
pub struct MemoryStore {
    map: Mutex<Map>,
    channels: Mutex<HashMap<String, Vec<Subscriber>>>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::with_max_entries(Self::DEFAULT_MAX_ENTRIES)
    }
}

pub(super) struct Map {
    pub(super) entries: HashMap<Key, (Box<[u8]>, Instant)>,
    /// The size at which the next write sweeps expired entries.
    sweep_at: usize,
    max_entries: usize,
    /// A full map is swept again no sooner than this: refusing a flood must not cost a sweep each.
    full_sweep_after: Option<Instant>,
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

/// Entries kept before the first sweep.
const FIRST_SWEEP: usize = 1024;

/// How often a map at its bound looks for expired entries to make room.
const FULL_SWEEP_EVERY: Duration = Duration::from_secs(1);

impl MemoryStore {
    /// The default bound on live entries: about 170 MB of consumed-round records at most (80 bytes a slot;
    /// the table doubles to 2^21 slots past 917 504 entries).
    pub const DEFAULT_MAX_ENTRIES: usize = 1_000_000;

    /// A store holding at most [`DEFAULT_MAX_ENTRIES`](Self::DEFAULT_MAX_ENTRIES) live entries.
    pub fn new() -> Self {
        Self::default()
    }

    /// A store holding at most `max` live entries (at least 1). A write of a new key beyond them fails with
    /// a [`StoreError`] until some expire; writes to keys it holds still succeed.
    pub fn with_max_entries(max: usize) -> Self {
        let map = Map { entries: HashMap::new(), sweep_at: 0, max_entries: max.max(1), full_sweep_after: None };
        Self { map: Mutex::new(map), channels: Mutex::default() }
    }

    pub(super) fn map(&self) -> MutexGuard<'_, Map> {
        self.map.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Map {
    fn live(&self, key: &str, now: Instant) -> bool {
        self.entries.get(key.as_bytes()).is_some_and(|(_, expires)| *expires > now)
    }

    fn insert(&mut self, key: &str, value: &[u8], ttl: Duration, now: Instant) -> Result<(), StoreError> {
        // Only a new key grows the map; a full map is swept (at most once a second) before it refuses one.
        let full = |map: &Self| map.entries.len() >= map.max_entries && !map.entries.contains_key(key.as_bytes());
        let may_sweep_full = self.full_sweep_after.is_none_or(|after| now >= after);
        if self.entries.len() >= self.sweep_at || (full(self) && may_sweep_full) {
            self.entries.retain(|_, (_, expires)| *expires > now);
            self.sweep_at = (self.entries.len() * 2).max(FIRST_SWEEP);
            self.full_sweep_after = full(self).then(|| now + FULL_SWEEP_EVERY);
        }
        if full(self) {
            return Err(StoreError::new(format!(
                "the in-memory store holds its limit of {} live entries (MemoryStore::with_max_entries); \
                 try again once some expire",
                self.max_entries
            )));
        }
        self.entries.insert(Key::new(key), (value.into(), now + ttl));
        Ok(())
    }
}

impl Store for MemoryStore {
    fn insert_if_absent<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> StoreFuture<'a, bool> {
        let now = Instant::now();
        let mut map = self.map();
        let inserted = if map.live(key, now) { Ok(false) } else { map.insert(key, value, ttl, now).map(|()| true) };
        Box::pin(std::future::ready(inserted))
    }

    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> StoreFuture<'a, ()> {
        Box::pin(std::future::ready(self.map().insert(key, value, ttl, Instant::now())))
    }

    fn replace_if<'a>(&'a self, key: &'a str, expected: &'a [u8], value: &'a [u8]) -> StoreFuture<'a, bool> {
        let now = Instant::now();
        let mut map = self.map();
        let replaced = match map.entries.get_mut(key.as_bytes()) {
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
        let touched = match self.map().entries.get_mut(key.as_bytes()) {
            Some((_, expires)) if *expires > now => {
                *expires = now + ttl;
                true
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(touched)))
    }

    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        let map = self.map();
        let value =
            map.entries.get(key.as_bytes()).filter(|(_, expires)| *expires > Instant::now()).map(|(v, _)| v.to_vec());
        Box::pin(std::future::ready(Ok(value)))
    }

    fn delete<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()> {
        self.map().entries.remove(key.as_bytes());
        Box::pin(std::future::ready(Ok(())))
    }

    fn publish<'a>(&'a self, channel: &'a str, message: &'a [u8]) -> StoreFuture<'a, ()> {
        let mut channels = self.channels.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
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
        let mut channels = self.channels.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        channels.entry(channel.to_owned()).or_default().push(Subscriber { tx, lagging: false });
        subscription
    }

    fn shared(&self) -> bool {
        false
    }
}

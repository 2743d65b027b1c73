//! The in-memory store: one process's map with expiry, and its own publish/subscribe.
//!
//! Expired entries are dropped lazily: a read ignores them, and a write sweeps the map whenever it has
//! doubled since the last sweep, so the map stays within twice what is live (amortised O(1) per write).

use super::{Event, Store, StoreFuture, Subscription, feed};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// The default store: this process only (see the [module docs](super)).
#[derive(Default)]
pub struct MemoryStore {
    map: Mutex<Map>,
    channels: Mutex<HashMap<String, Vec<Subscriber>>>,
}

#[derive(Default)]
pub(super) struct Map {
    pub(super) entries: HashMap<String, (Vec<u8>, Instant)>,
    /// The size at which the next write sweeps expired entries.
    sweep_at: usize,
}

struct Subscriber {
    tx: mpsc::Sender<Event>,
    lagging: bool,
}

/// Entries kept before the first sweep.
const FIRST_SWEEP: usize = 1024;

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    pub(super) fn map(&self) -> MutexGuard<'_, Map> {
        self.map.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Map {
    fn live(&self, key: &str, now: Instant) -> bool {
        self.entries.get(key).is_some_and(|(_, expires)| *expires > now)
    }

    fn insert(&mut self, key: &str, value: &[u8], ttl: Duration, now: Instant) {
        if self.entries.len() >= self.sweep_at {
            self.entries.retain(|_, (_, expires)| *expires > now);
            self.sweep_at = (self.entries.len() * 2).max(FIRST_SWEEP);
        }
        self.entries.insert(key.to_owned(), (value.to_vec(), now + ttl));
    }
}

impl Store for MemoryStore {
    fn insert_if_absent<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> StoreFuture<'a, bool> {
        let now = Instant::now();
        let mut map = self.map();
        let inserted = !map.live(key, now);
        if inserted {
            map.insert(key, value, ttl, now);
        }
        Box::pin(std::future::ready(Ok(inserted)))
    }

    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> StoreFuture<'a, ()> {
        self.map().insert(key, value, ttl, Instant::now());
        Box::pin(std::future::ready(Ok(())))
    }

    fn replace_if<'a>(&'a self, key: &'a str, expected: &'a [u8], value: &'a [u8]) -> StoreFuture<'a, bool> {
        let now = Instant::now();
        let mut map = self.map();
        let replaced = match map.entries.get_mut(key) {
            Some((current, expires)) if *expires > now && current.as_slice() == expected => {
                *current = value.to_vec();
                true
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(replaced)))
    }

    fn touch<'a>(&'a self, key: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        let now = Instant::now();
        let touched = match self.map().entries.get_mut(key) {
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
        let value = map.entries.get(key).filter(|(_, expires)| *expires > Instant::now()).map(|(v, _)| v.clone());
        Box::pin(std::future::ready(Ok(value)))
    }

    fn delete<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()> {
        self.map().entries.remove(key);
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

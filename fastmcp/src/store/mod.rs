//! The shared store: what must be the same on every replica of a server — the ids of consumed final rounds
//! (one-time tools), and the fan-out of changes behind `list_changed`, `resources/updated` and
//! `subscriptions/listen` (DESIGN.md §8).
//!
//! [`Store`] is a small async key/value interface with expiry, an atomic "insert if absent" (the one check
//! that must be race-free across replicas) and publish/subscribe. It is object-safe (`Arc<dyn Store>`): the
//! server holds one store whatever its backend, its calls are off the stateless hot path (a boxed future per
//! call costs nothing there), and an application can bring its own backend without a type parameter
//! spreading through `Server`.
//!
//! - [`MemoryStore`], the default: this process is the whole world. The server then keeps today's in-process
//!   paths (a tokio broadcast for changes) and touches the store only where a one-time tool completes.
//!   Its live entries are bounded ([`MemoryStore::with_max_entries`]); past the bound a new key fails.
//! - [`RedisStore`] (feature `redis`, on by default): every replica pointed at one Redis shares consumed ids
//!   and changes. `FASTMCP_REDIS_URL` selects it in [`FastMcp::run`](crate::FastMcp::run).
//!
//! When the store cannot be reached, what needs it fails with [`StoreError`] — on the wire `-32603`
//! "shared store unavailable: …" — and the server goes on serving everything else.
//!
// Without the feature the type is not here to link to: docs.rs builds with every feature.
#![cfg_attr(
    not(feature = "redis"),
    doc = "[`RedisStore`]: https://docs.rs/fast-mcp/latest/fastmcp/store/struct.RedisStore.html"
)]

mod memory;
#[cfg(feature = "redis")]
mod redis;
mod replica;

pub use memory::MemoryStore;
#[cfg(feature = "redis")]
pub use redis::{RedisConfig, RedisStore};
pub(crate) use replica::Replica;

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;
use tokio::sync::mpsc;

/// What the store's calls return: a boxed, sendable future borrowing the store and its arguments.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// A key/value store with expiry and publish/subscribe, shared by the replicas of a server.
///
/// Keys and channels are plain strings (a backend may put them in a namespace of its own, as
/// [`RedisStore`] does). Every value has a ttl: nothing the server stores outlives its use.
///
#[cfg_attr(
    not(feature = "redis"),
    doc = "[`RedisStore`]: https://docs.rs/fast-mcp/latest/fastmcp/store/struct.RedisStore.html"
)]
pub trait Store: Send + Sync + 'static {
    /// Stores `value` under `key` for `ttl` unless the key is present; `true` when this call stored it.
    /// Atomic: of concurrent callers (on any replica) exactly one gets `true`.
    fn insert_if_absent<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> StoreFuture<'a, bool>;

    /// Stores `value` under `key` for `ttl`, replacing what was there.
    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> StoreFuture<'a, ()>;

    /// Replaces the value under `key` with `value` if it is still exactly `expected`, keeping its expiry;
    /// `true` when replaced. The compare-and-set a record changed by several replicas (a task) needs.
    fn replace_if<'a>(&'a self, key: &'a str, expected: &'a [u8], value: &'a [u8]) -> StoreFuture<'a, bool>;

    /// Gives `key` a new expiry, `ttl` from now, keeping its value; `false` when it is absent or expired.
    /// How a record in use (a legacy session) stays alive without being rewritten.
    fn touch<'a>(&'a self, key: &'a str, ttl: Duration) -> StoreFuture<'a, bool>;

    /// The value under `key`, unless it is absent or expired.
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>>;

    /// Removes `key` (absent is fine).
    fn delete<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()>;

    /// Sends `message` to every current subscriber of `channel`, on every replica (this one included).
    fn publish<'a>(&'a self, channel: &'a str, message: &'a [u8]) -> StoreFuture<'a, ()>;

    /// Listens to `channel` from now on. The subscription keeps itself connected: after a break it says
    /// [`Event::Gap`] (messages may have been missed meanwhile) and goes on.
    fn subscribe(&self, channel: &str) -> Subscription;

    /// Whether other processes see this store. `false` (the in-memory store) lets the server keep its
    /// in-process fan-out instead of a round trip through the store.
    fn shared(&self) -> bool;
}

/// Why the store could not do what was asked.
#[derive(Debug, Clone, thiserror::Error)]
#[error("shared store unavailable: {0}")]
pub struct StoreError(pub String);

impl StoreError {
    /// An error saying why, for a [`Store`] implementation to return (a connection refused, a timeout).
    pub fn new(why: impl std::fmt::Display) -> Self {
        Self(why.to_string())
    }

    /// `-32603` "shared store unavailable: …" on the wire: the request was fine, the server can't serve it now.
    pub fn to_rpc(&self) -> crate::error::Error {
        crate::error::Error::internal(self)
    }
}

/// What a subscription hears.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// It is listening: first after [`Store::subscribe`] once connected, and again after each reconnect.
    Ready,
    /// One published message.
    Message(Vec<u8>),
    /// The subscription broke and is reconnecting, or the subscriber fell behind: messages were lost.
    Gap,
}

/// A channel's messages, as [`Store::subscribe`] hands them. Dropping it unsubscribes.
pub struct Subscription {
    rx: mpsc::Receiver<Event>,
}

/// Events a subscriber may fall behind by before the oldest are dropped (and it is told [`Event::Gap`]).
pub const SUBSCRIPTION_BACKLOG: usize = 256;

impl Subscription {
    /// A subscription and the sender its backend feeds (bounded by [`SUBSCRIPTION_BACKLOG`]).
    pub fn channel() -> (mpsc::Sender<Event>, Self) {
        let (tx, rx) = mpsc::channel(SUBSCRIPTION_BACKLOG);
        (tx, Self { rx })
    }

    /// The next event; `None` once the store is gone.
    pub async fn next(&mut self) -> Option<Event> {
        self.rx.recv().await
    }
}

/// Feeds `event` to a subscriber without waiting: a full backlog drops it and marks a gap instead, so a slow
/// subscriber never stalls the store and is told it missed something. `false` once the subscriber is gone.
pub(crate) fn feed(tx: &mpsc::Sender<Event>, event: Event, lagging: &mut bool) -> bool {
    if *lagging {
        match tx.try_send(Event::Gap) {
            Ok(()) => *lagging = false,
            Err(mpsc::error::TrySendError::Full(_)) => return true,
            Err(mpsc::error::TrySendError::Closed(_)) => return false,
        }
    }
    match tx.try_send(event) {
        Ok(()) => true,
        Err(mpsc::error::TrySendError::Full(_)) => {
            *lagging = true;
            true
        }
        Err(mpsc::error::TrySendError::Closed(_)) => false,
    }
}

#[cfg(test)]
mod tests;

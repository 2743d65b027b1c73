//! The caps on long-lived streams (modern `subscriptions/listen`, legacy `GET` streams): they hold a
//! connection, memory and a task until the client goes, so both their total and each client's share are
//! bounded. A stream holds its [`Slot`] in its response body; the slot is free again when the body is
//! dropped (the stream ended, or the client went away).

use crate::shares::{Client, Share, Shares};
use crate::sync::lock;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// The address a request's connection comes from, in the request's extensions: who an unauthenticated
/// client is under the per-client caps (`HttpOptions::max_streams_per_client`, `max_requests_per_client`,
/// `max_sessions_per_client`). `serve_http` puts it there; an application that mounts [`McpService`]
/// itself puts it there for the caps to apply per client (in axum, from `ConnectInfo`, as the `axum`
/// example does). Without it, unauthenticated requests count against no client's share.
///
/// [`McpService`]: crate::McpService
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerAddr(pub IpAddr);

/// Which cap a stream would exceed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum AtCap {
    /// The server's total, `HttpOptions::max_streams`.
    Total(usize),
    /// The client's share, `HttpOptions::max_streams_per_client`.
    Client(usize),
}

impl AtCap {
    /// The refusal's message, naming the limit.
    pub fn message(&self) -> String {
        match self {
            AtCap::Total(limit) => format!(
                "too many open streams on this server (limit {limit}, HttpOptions::max_streams); try again later"
            ),
            AtCap::Client(limit) => format!(
                "too many open streams for this client (limit {limit}, HttpOptions::max_streams_per_client); \
                 close one first"
            ),
        }
    }
}

/// The open long-lived streams, counted in total and per client.
pub(crate) struct Streams {
    max: usize,
    total: Mutex<usize>,
    by_client: Arc<Shares<Client>>,
}

impl Streams {
    pub fn new(max: usize, per_client: usize) -> Arc<Self> {
        Arc::new(Self { max: max.max(1), total: Mutex::new(0), by_client: Shares::new(per_client) })
    }

    fn total(&self) -> std::sync::MutexGuard<'_, usize> {
        lock(&self.total)
    }

    /// A slot for one more stream of `client`, unless that exceeds a cap.
    pub fn acquire(self: &Arc<Self>, client: Option<&Client>) -> Result<Slot, AtCap> {
        let mut total = self.total();
        if *total >= self.max {
            return Err(AtCap::Total(self.max));
        }
        let share = match client {
            Some(client) => Some(self.by_client.take(client.clone()).ok_or(AtCap::Client(self.by_client.per_key()))?),
            None => None,
        };
        *total += 1;
        Ok(Slot { streams: self.clone(), _share: share })
    }
}

/// One open stream's place under the caps, given back when dropped.
pub(crate) struct Slot {
    streams: Arc<Streams>,
    _share: Option<Share<Client>>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        *self.streams.total() -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_and_per_client_caps_and_slots_given_back() {
        let streams = Streams::new(3, 2);
        let (a, b) = (Client::Principal("a".into()), Client::Addr([127, 0, 0, 2].into()));
        let a1 = streams.acquire(Some(&a)).unwrap();
        let a2 = streams.acquire(Some(&a)).unwrap();
        assert_eq!(streams.acquire(Some(&a)).err(), Some(AtCap::Client(2)));
        let b1 = streams.acquire(Some(&b)).unwrap();
        assert_eq!(streams.acquire(None).err(), Some(AtCap::Total(3)));
        drop(a1);
        let a3 = streams.acquire(Some(&a)).expect("a's slot was given back");
        drop((a2, a3, b1));
        assert_eq!(*streams.total(), 0);
        assert!(streams.by_client.is_empty());
        assert!(AtCap::Client(16).message().contains("too many open streams for this client (limit 16"));
    }
}

//! The caps on long-lived streams (modern `subscriptions/listen`, legacy `GET` streams): they hold a
//! connection, memory and a task until the client goes, so both their total and each client's share are
//! bounded. A stream holds its [`Slot`] in its response body; the slot is free again when the body is
//! dropped (the stream ended, or the client went away).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// Who holds a stream, for the per-client cap: the principal on a protected server, else the client's
/// address when the server knows it. `None`: only the total counts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Client {
    Principal(String),
    Addr(IpAddr),
}

/// The address a connection comes from, which the accept loop puts in each request's extensions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PeerAddr(pub IpAddr);

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
    per_client: usize,
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    total: usize,
    by_client: HashMap<Client, usize>,
}

impl Streams {
    pub fn new(max: usize, per_client: usize) -> Arc<Self> {
        Arc::new(Self { max: max.max(1), per_client: per_client.max(1), open: Mutex::default() })
    }

    fn open(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A slot for one more stream of `client`, unless that exceeds a cap.
    pub fn acquire(self: &Arc<Self>, client: Option<&Client>) -> Result<Slot, AtCap> {
        let mut open = self.open();
        if open.total >= self.max {
            return Err(AtCap::Total(self.max));
        }
        if let Some(client) = client {
            let held = open.by_client.entry(client.clone()).or_default();
            if *held >= self.per_client {
                return Err(AtCap::Client(self.per_client));
            }
            *held += 1;
        }
        open.total += 1;
        Ok(Slot { streams: self.clone(), client: client.cloned() })
    }
}

/// One open stream's place under the caps, given back when dropped.
pub(crate) struct Slot {
    streams: Arc<Streams>,
    client: Option<Client>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.streams.open();
        open.total -= 1;
        if let Some(client) = &self.client
            && let Some(held) = open.by_client.get_mut(client)
        {
            *held -= 1;
            if *held == 0 {
                open.by_client.remove(client);
            }
        }
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
        assert_eq!(streams.open().total, 0);
        assert!(streams.open().by_client.is_empty());
        assert!(AtCap::Client(16).message().contains("too many open streams for this client (limit 16"));
    }
}

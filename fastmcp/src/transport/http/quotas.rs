//! Each client's quotas on the endpoint, beside the server-wide caps: the POSTed requests it has being served
//! at once (`HttpOptions::max_requests_per_client`) and the legacy sessions it holds open
//! (`HttpOptions::max_sessions_per_client`), so one client cannot take every handler task or every session
//! from everyone else. A client is who [`Client`] says (the principal on a protected server, else the peer
//! address); one the endpoint cannot tell apart is counted only in the totals.
//!
//! What a client holds is a [`Held`]: a request's goes in its response body (given back once the client has
//! read the answer, or went away), a session's in the stored session (given back when the session ends:
//! `DELETE`, idleness, shutdown).

use super::sse::Response;
use crate::era::{Classified, Delivery};
use crate::protocol::{ErrorObject, RequestId, error_json};
use crate::shares::{Client, Share, Shares, Tally};
use bytes::Bytes;
use http::StatusCode;
use http::header::{self, HeaderValue};
use http_body_util::{BodyExt as _, Full};
use std::net::IpAddr;
use std::sync::Arc;

/// The per-client quotas of one endpoint.
pub(crate) struct Quotas {
    requests: Arc<Shares<Client>>,
    sessions: Arc<Shares<Client>>,
}

/// One unit of a client's quota, given back when the last clone is dropped (nothing, for a client that is
/// not told apart or a request that does not count). A request's answer holds one clone; work that goes on
/// without its client (a legacy session's call) holds another.
#[derive(Clone)]
pub(crate) struct Held {
    _share: Option<Arc<Share<Client>>>,
}

/// The address a request comes from, with that client's tally of requests being served: looked up once for
/// a connection (`serve_http`'s accept loop makes one per connection), so its requests count without a lock.
#[derive(Clone)]
pub(crate) struct Peer {
    pub ip: IpAddr,
    requests: Arc<Tally<Client>>,
}

/// The quota a client is at.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Over {
    /// `HttpOptions::max_requests_per_client`.
    Requests(usize),
    /// `HttpOptions::max_sessions_per_client`.
    Sessions(usize),
}

impl Quotas {
    pub fn new(requests_per_client: usize, sessions_per_client: usize) -> Self {
        Self { requests: Shares::new(requests_per_client), sessions: Shares::new(sessions_per_client) }
    }

    /// `ip` as a [`Peer`] of this endpoint.
    pub fn peer(&self, ip: IpAddr) -> Peer {
        Peer { ip, requests: self.requests.tally(Client::Addr(ip)) }
    }

    /// A place for `req` among its client's requests being served; counted on `peer`'s own tally when the
    /// client is that peer.
    ///
    /// A long-lived stream (`subscriptions/listen`) does not count: it is a request that never finishes,
    /// already under its own per-client cap (`max_streams_per_client`); counted here too, a client's
    /// subscriptions would use up the places its calls need, and the two caps would have to be set together.
    /// Only requests count: a client's responses (the answers to the shim's elicitation or sampling
    /// requests) and notifications are handed over at once, and must get through while its requests wait
    /// for them.
    pub fn request(&self, client: Option<&Client>, peer: Option<&Peer>, req: &Classified) -> Result<Held, Over> {
        if matches!(req.delivery(), Delivery::Stream { keep_alive: true }) {
            return Ok(Held { _share: None });
        }
        let held = match (client, peer) {
            (Some(Client::Addr(ip)), Some(peer)) if *ip == peer.ip => held(peer.requests.take()),
            _ => take(&self.requests, client),
        };
        held.ok_or(Over::Requests(self.requests.per_key()))
    }

    /// A place for one more session of `client`.
    pub fn session(&self, client: Option<&Client>) -> Result<Held, Over> {
        take(&self.sessions, client).ok_or(Over::Sessions(self.sessions.per_key()))
    }
}

fn take(shares: &Arc<Shares<Client>>, client: Option<&Client>) -> Option<Held> {
    match client {
        Some(client) => held(shares.take(client.clone())),
        None => Some(Held { _share: None }),
    }
}

fn held(share: Option<Share<Client>>) -> Option<Held> {
    share.map(|share| Held { _share: Some(Arc::new(share)) })
}

impl Over {
    /// The refusal's message, naming the limit.
    pub fn message(&self) -> String {
        match self {
            Over::Requests(limit) => format!(
                "too many requests in flight for this client (limit {limit}, HttpOptions::max_requests_per_client); \
                 wait for one to finish"
            ),
            Over::Sessions(limit) => format!(
                "too many sessions for this client (limit {limit}, HttpOptions::max_sessions_per_client); end one \
                 first (DELETE)"
            ),
        }
    }

    /// 429 with `Retry-After` (seconds) and a JSON-RPC error for the request `id`.
    pub fn response(&self, id: Option<&RequestId>) -> Response {
        let retry = match self {
            Over::Requests(_) => 1,
            Over::Sessions(_) => 5,
        };
        too_many(error_json(id, &ErrorObject::internal(self.message())), retry)
    }
}

/// 429: `body` (a JSON-RPC error), and `Retry-After` in `seconds`.
pub(super) fn too_many(body: String, seconds: u64) -> Response {
    let mut response = http::Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = StatusCode::TOO_MANY_REQUESTS;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_client_has_its_own_quota_given_back_when_dropped() {
        let quotas = Quotas::new(2, 1);
        let (a, b) = (Client::Principal("a".into()), Client::Addr([127, 0, 0, 2].into()));
        let s1 = quotas.session(Some(&a)).unwrap();
        assert_eq!(quotas.session(Some(&a)).err(), Some(Over::Sessions(1)));
        let s2 = quotas.session(Some(&b)).expect("b has its own");
        // A client not told apart is not counted.
        let unknown: Vec<Held> = (0..3).map(|_| quotas.session(None).unwrap()).collect();
        drop(s1);
        let s3 = quotas.session(Some(&a)).expect("a's session was given back");
        drop((s2, s3, unknown));
        assert!(quotas.sessions.is_empty());
        assert!(quotas.requests.is_empty());
        let message = Over::Requests(64).message();
        assert!(message.contains("limit 64, HttpOptions::max_requests_per_client"), "{message}");
        let refused = Over::Sessions(3).response(None);
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
        assert!(refused.headers().contains_key(header::RETRY_AFTER));
    }
}

//! Request state on the modern wire: a round that suspends seals its step, carried locals and input requests
//! into `requestState`; the client's retry brings it back, and it is opened — verified against this exact
//! request — before the handler runs. The one place state is opened and sealed.

use crate::error::Error;
use crate::flow::{Resume, Suspension};
use crate::leases::Lease;
use crate::protocol::{ClientCapabilities, InputRequests, InputResponses};
use crate::protocol::{ErrorObject, codes};
use crate::server::Server;
use crate::server::reply::Reply;
use crate::shares::Client;
use crate::state::{Binding, INVALID_STATE_MESSAGE};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio::time::Instant;

/// The `data.reason` of a replayed final round of a one-time flow.
pub(crate) const CONSUMED_REASON: &str = "request_state_consumed";

/// What travels in the request state besides the step: the carried locals and the keys of the round's input
/// requests. The requests themselves ride as the token's attachment, as the result's `inputRequests` has
/// them, so a retry that leaves one unanswered is asked the same again without re-running anything, while a
/// retry that answers them all never reads them.
#[derive(serde::Serialize)]
struct CarryRef<'a> {
    #[serde(rename = "l")]
    locals: &'a RawValue,
    #[serde(rename = "k", serialize_with = "keys")]
    asked: &'a InputRequests,
    /// One-time flows: a value no other round gets ([`crate::ids::unique`]), so two rounds that are otherwise
    /// identical (same request, same millisecond, on any replica) still get tokens with different ids.
    #[serde(rename = "n", skip_serializing_if = "Option::is_none")]
    nonce: Option<&'a str>,
}

/// The carry's `k`: the input requests' keys, in the map's order.
fn keys<S: serde::Serializer>(asked: &&InputRequests, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(asked.keys())
}

/// [`CarryRef`] as opened, borrowed from the token's text.
#[derive(serde::Deserialize)]
struct Carry<'a> {
    #[serde(rename = "l", borrow)]
    locals: &'a RawValue,
    #[serde(rename = "k", borrow)]
    asked: Vec<Cow<'a, str>>,
}

/// What a retry's state opens to.
pub(crate) enum Opened {
    /// Resume the handler here; the ticket names the token, for a one-time flow to consume.
    Resume(Resume, Ticket),
    /// The retry left an input request unanswered: ask the same again (the spec's rule), nothing runs.
    AskAgain(Asking),
}

/// A round that ends `input_required`, as the parts of its result's text: the input requests' JSON, written
/// once for the token's carry and the result alike, and the token. `requests` is `None` in a state-only round.
pub(crate) struct Asking {
    requests: Option<Box<RawValue>>,
    token: String,
}

impl Asking {
    /// `{"inputRequests":…,"requestState":"…"}`, the result's only fields, made from the parts as they are.
    pub fn into_reply(self) -> Reply {
        let requests = self.requests.as_deref().map(RawValue::get);
        let mut object = String::with_capacity(Reply::ROOM + requests.map_or(0, str::len) + self.token.len());
        object.push('{');
        if let Some(requests) = requests {
            object.push_str("\"inputRequests\":");
            object.push_str(requests);
            object.push(',');
        }
        object.push_str("\"requestState\":");
        if is_plain(&self.token) {
            object.push('"');
            object.push_str(&self.token);
            object.push('"');
        } else {
            // Only a codec of another token format could get here: escaped, never written broken.
            object.push_str(&serde_json::to_string(&self.token).expect("a string serializes"));
        }
        object.push('}');
        Reply::object(object)
    }
}

/// Whether a token's text goes into JSON as it is: base64url and dots, which a string never escapes. Checked
/// in one pass without an early exit, which the compiler turns into vector code.
fn is_plain(token: &str) -> bool {
    token.bytes().fold(true, |plain, b| plain & (b.is_ascii_alphanumeric() | (b == b'-') | (b == b'_') | (b == b'.')))
}

/// Opens a retry's `requestState` for the request `binding` describes (any failure is `-32602` "Invalid or
/// expired requestState", before the handler runs).
pub(crate) fn open(
    server: &Server,
    binding: &Binding<'_>,
    token: String,
    responses: Option<InputResponses>,
) -> Result<Opened, Error> {
    let opened = server.state_codec()?.open(&token, binding)?;
    let carry: Carry<'_> = opened.restore()?;
    let responses = responses.unwrap_or_default();
    if carry.asked.iter().any(|key| !responses.contains_key(key)) {
        let requests = opened.restore_attachment()?;
        return Ok(Opened::AskAgain(Asking { requests: Some(requests), token }));
    }
    let ticket = Ticket { id: *opened.id(), expires: opened.expires_at() };
    let responses = Arc::new(responses);
    Ok(Opened::Resume(Resume { step: opened.step(), locals: carry.locals.to_owned(), responses }, ticket))
}

/// Which token a round resumed from, and until when it is accepted.
pub(crate) struct Ticket {
    id: [u8; 16],
    expires: SystemTime,
}

/// A one-time round's claim on its token, held while the round runs: [`Claim::release`] when the round did
/// not complete the call. Dropped otherwise (the round completed, or was cancelled partway), the record stays
/// until the token expires, counted against its client until then.
pub(crate) struct Claim {
    key: String,
    /// The claim's place among its client's records, ending with the record (`None`: a client the server
    /// can't tell apart).
    lease: Option<Lease<Client>>,
    /// When the record, and so the lease, ends.
    ends: Instant,
}

impl Ticket {
    /// `consumed:` and the id in lowercase hex.
    fn key(&self) -> String {
        const PREFIX: &str = "consumed:";
        let mut key = String::with_capacity(PREFIX.len() + 2 * self.id.len());
        key.push_str(PREFIX);
        crate::ids::push_hex(&mut key, &self.id);
        key
    }

    /// Claims the token for the one round of a one-time flow that may run from it, for `client`: `-32602`
    /// "request_state_consumed" when it was claimed already; when the client keeps its share of records
    /// already ([`FastMcp::max_one_time_rounds_per_client`]), `-32603` with `data.retryAfter` (429 on HTTP), the
    /// seconds until its oldest record expires; `-32603` when the store can't say. A refused claim leaves the
    /// token as it was.
    ///
    /// [`FastMcp::max_one_time_rounds_per_client`]: crate::FastMcp::max_one_time_rounds_per_client
    pub async fn claim(&self, server: &Server, client: Option<Client>) -> Result<Claim, Error> {
        // A record that outlives the token by nothing: past its expiry the token is refused anyway.
        let ttl = self.expires.duration_since(SystemTime::now()).unwrap_or_default();
        let mut claim = Claim { key: self.key(), lease: None, ends: Instant::now() + ttl };
        // The record first, so that a replay is told so whatever its client holds.
        let fresh = server.store().insert_if_absent(&claim.key, b"", ttl).await.map_err(|e| e.to_rpc())?;
        if !fresh {
            tracing::info!("requestState refused: the final round of a one-time flow was sent again");
            let data = serde_json::json!({ "reason": CONSUMED_REASON });
            return Err(Error::rpc(ErrorObject::new(codes::INVALID_PARAMS, INVALID_STATE_MESSAGE).with_data(data)));
        }
        if let Some(client) = client {
            let rounds = server.one_time_rounds();
            match rounds.take(client) {
                Ok(lease) => claim.lease = Some(lease),
                Err(room_at) => {
                    let limit = rounds.per_key();
                    tracing::info!("a one-time round refused: its client keeps {limit} consumed rounds already");
                    claim.release(server).await;
                    // Every lease it holds pending, its round running: how long it keeps one is not known yet.
                    let wait =
                        room_at.map_or(Duration::from_secs(1), |at| at.saturating_duration_since(Instant::now()));
                    return Err(Error::busy(
                        format!(
                            "this client keeps {limit} consumed one-time rounds already \
                             (FastMcp::max_one_time_rounds_per_client); send this round again once the oldest \
                             expires"
                        ),
                        wait,
                    ));
                }
            }
        }
        Ok(claim)
    }
}

impl Claim {
    /// Gives the claim back: the round did not complete the call, so the token may be used again.
    pub async fn release(mut self, server: &Server) {
        match server.store().delete(&self.key).await {
            Ok(()) => drop(self.lease.take()),
            // The token stays consumed until it expires: a retry is refused, never run twice.
            Err(e) => tracing::warn!("could not release a one-time round's claim: {e}"),
        }
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        if let Some(lease) = self.lease.take() {
            lease.keep_until(self.ends);
        }
    }
}

/// Seals a suspension into the `input_required` result that ends the round. An input request the client's
/// declared capabilities do not cover is never embedded (`-32021`).
pub(crate) fn seal(
    server: &Server,
    capabilities: &ClientCapabilities,
    binding: &Binding<'_>,
    suspension: Suspension,
    one_time: bool,
) -> Result<Asking, Error> {
    if let Some(missing) = capabilities.uncovered(&suspension.requests, "the request's") {
        return Err(Error::rpc(missing));
    }
    let nonce = match one_time {
        true => Some(
            crate::ids::unique().map_err(|e| Error::internal(format!("no randomness for a nonce's prefix: {e}")))?,
        ),
        false => None,
    };
    let requests = match suspension.requests.is_empty() {
        true => None,
        false => Some(serde_json::value::to_raw_value(&suspension.requests)?),
    };
    // A state-only round carries no requests: no keys, no attachment.
    let carry = CarryRef { locals: &suspension.locals, asked: &suspension.requests, nonce: nonce.as_deref() };
    let attachment = requests.as_deref().map_or("", RawValue::get);
    let token = server.state_codec()?.seal_with_attachment(binding, suspension.step, &carry, attachment)?;
    Ok(Asking { requests, token })
}

/// A first round whose request already answers every input request it makes (`inputResponses` without
/// `requestState`): nothing came from the client but the arguments, so the round's own locals are as good as
/// sealed ones, and it resumes at once instead of asking again. Only the first suspension: later rounds need
/// their state. Gives the suspension back when the answers don't cover it.
pub(crate) fn answered_upfront(
    suspension: Suspension,
    responses: &mut Option<InputResponses>,
) -> Result<Resume, Suspension> {
    let covered = !suspension.requests.is_empty()
        && responses.as_ref().is_some_and(|r| suspension.requests.keys().all(|key| r.contains_key(key)));
    match responses.take() {
        Some(responses) if covered => {
            Ok(Resume { step: suspension.step, locals: suspension.locals, responses: Arc::new(responses) })
        }
        other => {
            *responses = other;
            Err(suspension)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Asking, Ticket};
    use crate::protocol::RequestId;
    use crate::shares::Client;
    use serde_json::json;
    use serde_json::value::RawValue;
    use std::time::{Duration, SystemTime};

    fn result(asking: Asking) -> serde_json::Value {
        let line = asking.into_reply().into_response(&RequestId::Number(1), |_| {});
        serde_json::from_str::<serde_json::Value>(&line).expect(&line)["result"].take()
    }

    #[test]
    fn an_input_required_result_is_its_requests_and_token_as_written() {
        let requests = json!({"confirm": {"method": "elicitation/create", "params": {"message": "Go \"now\"?"}}});
        let raw = RawValue::from_string(requests.to_string()).unwrap();
        let token = "v1.AbCd_-09.eyJh.c2ln".to_owned();
        let asking = Asking { requests: Some(raw), token: token.clone() };
        assert_eq!(result(asking), json!({"inputRequests": requests, "requestState": token}));
        // A state-only round has no `inputRequests`.
        let asking = Asking { requests: None, token: token.clone() };
        assert_eq!(result(asking), json!({"requestState": token}));
    }

    #[test]
    fn a_token_that_would_need_escaping_is_escaped() {
        for token in ["a\"b", "back\\slash", "line\nbreak", "é", "sp ace", ""] {
            let asking = Asking { requests: None, token: token.to_owned() };
            assert_eq!(result(asking), json!({"requestState": token}), "{token:?}");
        }
        assert!(super::is_plain("v1.ABCxyz019-_.x"));
        assert!(!super::is_plain("v1.a+b/c="));
    }

    /// A claim keeps its place in its client's share unless released: dropped (its round completed, or was
    /// cancelled partway) its record stays, so a client can't free its share by dropping its rounds.
    #[tokio::test]
    async fn a_claim_holds_its_clients_share_until_released() {
        let server = crate::FastMcp::new("share").max_one_time_rounds_per_client(1).build().unwrap();
        let ticket = |n: u8| Ticket { id: [n; 16], expires: SystemTime::now() + Duration::from_secs(60) };
        let client = || Some(Client::Addr([127, 0, 0, 9].into()));
        // Room comes when the client's oldest record expires, within the tickets' minute.
        let over_share = |refused: crate::Error| {
            assert_eq!(refused.code(), Some(crate::protocol::codes::INTERNAL_ERROR), "{refused}");
            assert!(refused.to_string().contains("FastMcp::max_one_time_rounds_per_client"), "{refused}");
            assert!(refused.retry_after().is_some_and(|s| (59..=60).contains(&s)), "{refused:?}");
        };

        let first = ticket(1).claim(&server, client()).await.unwrap();
        let refused = ticket(2).claim(&server, client()).await.err().expect("the share is held");
        assert_eq!(refused.retry_after(), Some(1), "its one record still pending, its round running: {refused:?}");
        ticket(3).claim(&server, None).await.expect("a client the server can't tell apart counts in no share");
        first.release(&server).await;
        drop(ticket(2).claim(&server, client()).await.expect("a released claim gives its place back"));
        over_share(ticket(4).claim(&server, client()).await.err().expect("a dropped claim keeps its place"));
        // The refused tokens were left unused: only the store's records say what was consumed.
        assert!(server.store().get(&ticket(4).key()).await.unwrap().is_none());
        assert!(server.store().get(&ticket(2).key()).await.unwrap().is_some());
    }

    #[test]
    fn a_ticket_key_is_the_id_in_lowercase_hex() {
        let mut id = [0u8; 16];
        for (i, b) in id.iter_mut().enumerate() {
            *b = u8::try_from(i * 17).unwrap() ^ 0xa5;
        }
        let ticket = Ticket { id, expires: SystemTime::now() };
        assert_eq!(ticket.key(), "consumed:a5b48796e1f0c3d22d3c0f1e69784b5a");
    }
}

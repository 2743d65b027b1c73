//! Request state on the modern wire: a round that suspends seals its step, carried locals and input requests
//! into `requestState`; the client's retry brings it back, and it is opened — verified against this exact
//! request — before the handler runs. The one place state is opened and sealed.

use crate::error::Error;
use crate::flow::{Resume, Suspension};
use crate::protocol::{ClientCapabilities, InputRequests, InputRequiredResult, InputResponses};
use crate::protocol::{ErrorObject, codes};
use crate::server::Server;
use crate::state::{Binding, INVALID_STATE_MESSAGE, Resumed, StateError};
use serde_json::value::RawValue;
use std::sync::Arc;
use std::time::SystemTime;

/// The `data.reason` of a replayed final round of a one-time flow.
pub(crate) const CONSUMED_REASON: &str = "request_state_consumed";

/// What travels in the request state besides the step: the carried locals and the round's input requests
/// (so a retry that leaves some unanswered is asked the same again without re-running anything).
#[derive(serde::Serialize)]
struct CarryRef<'a> {
    #[serde(rename = "l")]
    locals: &'a RawValue,
    #[serde(rename = "a")]
    asked: &'a InputRequests,
    /// One-time flows: random bits, so two rounds that are otherwise identical (same request, same
    /// millisecond) still get tokens with different ids.
    #[serde(rename = "n", skip_serializing_if = "Option::is_none")]
    nonce: Option<&'a str>,
}

/// [`CarryRef`] as opened: both parts borrowed from the token's text. The input requests are parsed only
/// when the retry leaves one unanswered; otherwise only their keys are read.
#[derive(serde::Deserialize)]
struct Carry<'a> {
    #[serde(rename = "l", borrow)]
    locals: &'a RawValue,
    #[serde(rename = "a", borrow)]
    asked: &'a RawValue,
}

/// What a retry's state opens to.
pub(crate) enum Opened {
    /// Resume the handler here; the ticket names the token, for a one-time flow to consume.
    Resume(Resume, Ticket),
    /// The retry left an input request unanswered: ask the same again (the spec's rule), nothing runs.
    AskAgain(InputRequiredResult),
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
    let keys: std::collections::BTreeMap<std::borrow::Cow<'_, str>, serde::de::IgnoredAny> =
        carry_part(&opened, carry.asked)?;
    if keys.keys().any(|key| !responses.contains_key(key.as_ref())) {
        let asked: InputRequests = carry_part(&opened, carry.asked)?;
        let again = InputRequiredResult { input_requests: Some(asked), request_state: Some(token) };
        return Ok(Opened::AskAgain(again));
    }
    let ticket = Ticket { id: *opened.id(), expires: opened.expires_at() };
    let responses = Arc::new(responses);
    Ok(Opened::Resume(Resume { step: opened.step(), locals: carry.locals.to_owned(), responses }, ticket))
}

/// A part of an authentic token's carry, parsed as `T` (refused like the whole carry when it doesn't fit).
fn carry_part<'a, T: serde::Deserialize<'a>>(opened: &Resumed, part: &'a RawValue) -> Result<T, Error> {
    serde_json::from_str(part.get()).map_err(|e| {
        let e = StateError::Undecodable { line: e.line(), column: e.column() };
        tracing::warn!(step = opened.step(), reason = e.kind(), "requestState refused: {e}");
        Error::from(e)
    })
}

/// Which token a round resumed from, and until when it is accepted.
pub(crate) struct Ticket {
    id: [u8; 16],
    expires: SystemTime,
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

    /// Claims the token for the one round of a one-time flow that may run from it: `-32602`
    /// "request_state_consumed" when it was claimed already, `-32603` when the store can't say.
    pub async fn claim(&self, server: &Server) -> Result<(), Error> {
        // A record that outlives the token by nothing: past its expiry the token is refused anyway.
        let ttl = self.expires.duration_since(SystemTime::now()).unwrap_or_default();
        let fresh = server.store().insert_if_absent(&self.key(), b"", ttl).await.map_err(|e| e.to_rpc())?;
        if fresh {
            return Ok(());
        }
        tracing::info!("requestState refused: the final round of a one-time flow was sent again");
        let data = serde_json::json!({ "reason": CONSUMED_REASON });
        Err(Error::rpc(ErrorObject::new(codes::INVALID_PARAMS, INVALID_STATE_MESSAGE).with_data(data)))
    }

    /// Gives the claim back: the round did not complete the call, so the token may be used again.
    pub async fn release(&self, server: &Server) {
        if let Err(e) = server.store().delete(&self.key()).await {
            // The token stays consumed until it expires: a retry is refused, never run twice.
            tracing::warn!("could not release a one-time round's claim: {e}");
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
) -> Result<InputRequiredResult, Error> {
    if let Some(missing) = capabilities.uncovered(&suspension.requests, "the request's") {
        return Err(Error::rpc(missing));
    }
    let nonce = match one_time {
        true => Some(crate::ids::random().map_err(|e| Error::internal(format!("no randomness for a nonce: {e}")))?),
        false => None,
    };
    let carry = CarryRef { locals: &suspension.locals, asked: &suspension.requests, nonce: nonce.as_deref() };
    let token = server.state_codec()?.seal(binding, suspension.step, &carry)?;
    Ok(InputRequiredResult {
        input_requests: (!suspension.requests.is_empty()).then_some(suspension.requests),
        request_state: Some(token),
    })
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
    use super::Ticket;
    use std::time::SystemTime;

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

//! Request state on the modern wire: a round that suspends seals its step, carried locals and input requests
//! into `requestState`; the client's retry brings it back, and it is opened — verified against this exact
//! request — before the handler runs. The one place state is opened and sealed.

use crate::error::Error;
use crate::flow::{Resume, Suspension};
use crate::protocol::{ClientCapabilities, InputRequests, InputRequiredResult, InputResponses};
use crate::server::Server;
use crate::state::Binding;
use serde_json::value::RawValue;

/// What travels in the request state besides the step: the carried locals and the round's input requests
/// (so a retry that leaves some unanswered is asked the same again without re-running anything).
#[derive(serde::Serialize)]
struct CarryRef<'a> {
    #[serde(rename = "l")]
    locals: &'a RawValue,
    #[serde(rename = "a")]
    asked: &'a InputRequests,
}

#[derive(serde::Deserialize)]
struct Carry {
    #[serde(rename = "l")]
    locals: Box<RawValue>,
    #[serde(rename = "a")]
    asked: InputRequests,
}

/// What a retry's state opens to.
pub(crate) enum Opened {
    /// Resume the handler here.
    Resume(Resume),
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
    let carry: Carry = opened.restore()?;
    let responses = responses.unwrap_or_default();
    if carry.asked.keys().any(|key| !responses.contains_key(key)) {
        let again = InputRequiredResult { input_requests: Some(carry.asked), request_state: Some(token) };
        return Ok(Opened::AskAgain(again));
    }
    Ok(Opened::Resume(Resume { step: opened.step(), locals: carry.locals, responses }))
}

/// Seals a suspension into the `input_required` result that ends the round. An input request the client's
/// declared capabilities do not cover is never embedded (`-32021`).
pub(crate) fn seal(
    server: &Server,
    capabilities: &ClientCapabilities,
    binding: &Binding<'_>,
    suspension: Suspension,
) -> Result<InputRequiredResult, Error> {
    if let Some(missing) = capabilities.uncovered(&suspension.requests, "the request's") {
        return Err(Error::rpc(missing));
    }
    let carry = CarryRef { locals: &suspension.locals, asked: &suspension.requests };
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
        Some(responses) if covered => Ok(Resume { step: suspension.step, locals: suspension.locals, responses }),
        other => {
            *responses = other;
            Err(suspension)
        }
    }
}

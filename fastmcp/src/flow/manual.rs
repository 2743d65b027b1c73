//! Hand-written flows: handlers that build their rounds themselves instead of awaiting `.ask()`.
//!
//! A handler that decides at run time what to ask (a form built from data, a number of questions the
//! arguments choose) returns [`Flow::InputRequired`] with the round's input requests and, if it needs to
//! remember something, a [`RequestState`] minted with [`Context::mint_state`](crate::Context::mint_state).
//! The next round runs the handler again from the top; it reads the answers and its state back from the
//! [`Context`](crate::Context) (`ctx.input_responses()`, `ctx.accepted::<T>(key)`, `ctx.state::<T>()`) and
//! decides what comes next.
//!
//! It is the same machinery as `.ask()`: an [`InputRequired`] becomes a [`Suspension`] at a step no compiled
//! body has ([`MANUAL_STEP`]), its state in place of the carried locals. So the era adapters treat it as they
//! treat a compiled handler's round: on the modern protocol the state is sealed into `requestState` with the
//! server's key ring, bound to the method, the target, the arguments, the principal and the handler, and it
//! is verified before the handler runs again (a refusal is `-32602`); on a legacy session the shim sends the
//! requests to the client and runs the handler again in-process with the answers and the same state.

use super::ask::Ask;
use super::{Sampled, Step, Suspension};
use crate::error::Error;
use crate::protocol::{
    CreateMessageResult, ElicitAction, ElicitResult, InputRequest, InputRequests, ListRootsResult, Root,
};
use crate::state::StateError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

/// The step a hand-written flow suspends at. A compiled body numbers its steps from 1 and resumes only at
/// those, so a round of one kind is never read as the other's.
pub const MANUAL_STEP: u32 = u32::MAX;

/// What a handler that builds its flow by hand returns for one round: its result, or a request for input.
///
/// `#[tool]`, `#[prompt]` and `#[resource]` fns may return it (also inside `Result`) when their body does not
/// use `.ask()`; a plain [`ToolHandler`](crate::handler::ToolHandler) turns an [`InputRequired`] into its
/// round's [`Step`] with [`InputRequired::into_step`].
#[derive(Debug)]
pub enum Flow<T> {
    /// The flow is done: this is the handler's result.
    Complete(T),
    /// The round ends here: the client answers these requests (or just sends the state back) and the
    /// request runs again.
    InputRequired(InputRequired),
}

impl<T> From<InputRequired> for Flow<T> {
    fn from(input: InputRequired) -> Self {
        Flow::InputRequired(input)
    }
}

/// One round's end in a hand-written flow: the input requests the client must answer, each under a key the
/// handler chooses, and the handler's own request state. At least one of the two.
///
/// ```
/// use fastmcp::flow::{Flow, InputRequired};
/// use fastmcp::prelude::*;
///
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Asked {
///     topic: String,
/// }
///
/// #[derive(serde::Deserialize)]
/// struct Opinion {
///     answer: String,
/// }
///
/// /// Ask the user's opinion of a topic, by hand.
/// #[tool]
/// async fn opinion(topic: String, ctx: Context) -> Result<Flow<String>> {
///     let Some(asked) = ctx.state::<Asked>()? else {
///         // First round: ask, and remember what was asked.
///         let form = serde_json::json!({
///             "type": "object",
///             "properties": { "answer": { "type": "string" } },
///             "required": ["answer"],
///         });
///         let state = ctx.mint_state(&Asked { topic: topic.clone() })?;
///         return Ok(InputRequired::new()
///             .elicit("opinion", format!("What do you think of {topic}?"), form)?
///             .state(state)
///             .into());
///     };
///     Ok(Flow::Complete(match ctx.accepted::<Opinion>("opinion") {
///         Some(Opinion { answer }) => format!("{}: {answer}", asked.topic),
///         None => format!("{}: no opinion", asked.topic),
///     }))
/// }
/// ```
#[derive(Debug, Default)]
#[must_use = "an InputRequired does nothing until the handler returns it"]
pub struct InputRequired {
    requests: InputRequests,
    state: Option<RequestState>,
}

impl InputRequired {
    /// Nothing asked yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks with one of the typed builders (`Confirm::elicit(..)`, `Sample::prompt(..)`, `ListRoots`,
    /// `ElicitUrl::new(..)`, or a tuple of them, whose parts go under `key.0`, `key.1`, …), under `key`. Read
    /// the answer next round with [`Context::answer`](crate::Context::answer) and the same type, or with the
    /// raw views.
    pub fn ask(mut self, key: impl Into<String>, ask: impl Ask) -> Self {
        ask.requests(&key.into(), &mut self.requests);
        self
    }

    /// A form-mode elicitation with a schema built at run time: a flat object of primitive properties (the
    /// restricted `requestedSchema` MCP allows). Anything but a JSON object is refused here.
    pub fn elicit(self, key: impl Into<String>, message: impl Into<String>, schema: Value) -> Result<Self, Error> {
        let Value::Object(schema) = schema else {
            return Err(Error::msg("an elicitation's requestedSchema must be a JSON object"));
        };
        let params = crate::protocol::ElicitParams {
            mode: Some(crate::protocol::ElicitMode::Form),
            message: message.into(),
            requested_schema: Some(std::sync::Arc::new(schema)),
            url: None,
            elicitation_id: None,
        };
        Ok(self.request(key, params.into()))
    }

    /// Any input request, as it goes on the wire.
    pub fn request(mut self, key: impl Into<String>, request: InputRequest) -> Self {
        self.requests.insert(key.into(), request);
        self
    }

    /// The state the next round reads with [`Context::state`](crate::Context::state).
    pub fn state(mut self, state: RequestState) -> Self {
        self.state = Some(state);
        self
    }

    /// The input requests so far.
    pub fn requests(&self) -> &InputRequests {
        &self.requests
    }

    /// The suspension this round ends with. A round that asks nothing and carries no state could never
    /// move on, so it is refused (`-32603`).
    pub fn into_suspension(self) -> Result<Suspension, Error> {
        if self.requests.is_empty() && self.state.is_none() {
            return Err(Error::internal(
                "InputRequired needs at least one input request (`.ask(..)`, `.elicit(..)`, `.request(..)`) or a \
                 request state (`.state(ctx.mint_state(&value)?)`)",
            ));
        }
        let locals = match self.state {
            Some(RequestState(locals)) => locals,
            None => RawValue::NULL.to_owned(),
        };
        Ok(Suspension { step: MANUAL_STEP, requests: self.requests, locals, task: false })
    }

    /// This round's [`Step`], for a handler that implements the handler traits itself.
    pub fn into_step<T>(self) -> Result<Step<T>, Error> {
        self.into_suspension().map(Step::Suspend)
    }
}

/// A hand-written flow's request state, minted with [`Context::mint_state`](crate::Context::mint_state):
/// the value as JSON, sealed into `requestState` (signed, and encrypted with the `sealed-state` feature)
/// when the round ends on the modern protocol, kept in-process on a legacy session.
#[derive(Debug, Clone)]
pub struct RequestState(Box<RawValue>);

impl RequestState {
    /// The state of `value`; fails (`-32603`) only if it does not serialize.
    pub(crate) fn of<T: Serialize + ?Sized>(value: &T) -> Result<Self, Error> {
        serde_json::value::to_raw_value(value)
            .map(RequestState)
            .map_err(|e| Error::from(StateError::Unserializable(e.to_string())))
    }
}

/// What the client answered under one key, told apart by its shape (answers are untrusted: validate
/// what you use).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InputResponse {
    /// No answer under that key.
    Missing,
    /// An elicitation's answer: its action and, when accepted, the form's content.
    Elicit(ElicitResult),
    /// A sampling result (boxed: it is by far the largest).
    Sampling(Box<Sampled>),
    /// The client's roots.
    Roots(Vec<Root>),
    /// An answer of none of these shapes.
    Unrecognised(Value),
}

impl InputResponse {
    /// Reads one answer: an `action` of accept/decline/cancel is an elicitation, a `roots` array a roots
    /// answer, a `role` with `content` a sampling result.
    pub fn of(answer: Option<&RawValue>) -> Self {
        let Some(answer) = answer else { return InputResponse::Missing };
        // A RawValue is valid JSON, and a Value holds any JSON.
        let value: Value = serde_json::from_str(answer.get()).unwrap_or_default();
        let parsed = match &value {
            Value::Object(o) if o.get("action").and_then(Value::as_str).is_some() => {
                ElicitResult::deserialize(&value).ok().map(InputResponse::Elicit)
            }
            Value::Object(o) if o.get("roots").is_some_and(Value::is_array) => {
                ListRootsResult::deserialize(&value).ok().map(|r| InputResponse::Roots(r.roots))
            }
            Value::Object(o) if o.contains_key("role") && o.contains_key("content") => {
                CreateMessageResult::deserialize(&value).ok().map(|r| InputResponse::Sampling(Box::new(Sampled(r))))
            }
            _ => None,
        };
        parsed.unwrap_or(InputResponse::Unrecognised(value))
    }

    /// The content of an accepted elicitation.
    pub fn accepted_content(&self) -> Option<&crate::protocol::JsonObject> {
        match self {
            InputResponse::Elicit(ElicitResult { action: ElicitAction::Accept, content, .. }) => content.as_ref(),
            _ => None,
        }
    }
}

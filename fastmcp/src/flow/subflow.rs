//! Sub-flows: `#[elicit] async fn`s that a handler (or another sub-flow) awaits with `.ask()`.
//!
//! A sub-flow is compiled like a handler body (its own steps, carried locals and witnesses); `#[elicit]`
//! turns `async fn double_check(what: String) -> Result<bool>` into a fn of the same name that returns a
//! [`SubFlowCall`] of a hidden struct holding the arguments, and implements [`SubFlow`] for that struct.
//!
//! In the caller, a sub-flow point is lowered exactly like any ask (the generated code is the same); the
//! difference is made by type, through [`Point`]:
//!
//! - Reached on the way forward, the caller stops there with its carried locals and the sub-flow's initial
//!   state (its arguments, step 0), and the driver at once runs the caller again from that point, in the same
//!   round ([`Pass::Again`](super::driver::Pass)). So the caller's code before the point runs once, and the
//!   sub-flow's first segment runs in the arm that resumes there, like any other answer.
//! - Resumed there, the caller runs the sub-flow from its state with the answers under the point's key
//!   (`ask1/…`, prefix stripped). If the sub-flow completes, its output stands in place of `.ask().await`;
//!   if it suspends, the caller suspends again at the same step, with the sub-flow's requests under its key,
//!   its own carried locals unchanged (nothing of the caller ran since they were restored) and the new
//!   sub-flow state.
//!
//! The locals of a suspension at a sub-flow are `{"locals": [..], "flow": {..}}` (a plain suspension's are a
//! bare array); the sub-flow state is `{"fingerprint", "args", "step", "locals"}`, checked against the
//! sub-flow's own fingerprint when it resumes, so state minted by another build of the sub-flow is refused
//! even though the caller's fingerprint did not change. Sub-flows nest by the same mechanism.

use super::ask::Asking;
use super::driver::{Answers, Nested, Pass, Point, Slot, drive};
use super::{Resume, Suspension};
use crate::error::Error;
use crate::protocol::{InputRequests, InputResponses};
use crate::state::StateError;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use std::future::Future;
use std::sync::Arc;

/// A compiled `#[elicit] async fn`: its arguments (`Self`, carried in its state) and its body, a machine like a
/// handler's. Implemented by `#[elicit]`, not by hand.
pub trait SubFlow: Serialize + DeserializeOwned + Send + 'static {
    /// The fn's return type: what `.ask().await?` yields in the caller.
    type Output;
    /// The hash of the fn's tokens, kept in its state.
    fn fingerprint() -> u64;
    /// One pass of the body from `resume` (from the start for `None`), like a handler's machine.
    fn machine<'s>(self, slot: &'s Slot, resume: Option<Resume>) -> impl Future<Output = Self::Output> + Send + 's;
}

/// A sub-flow called with its arguments: `double_check(label).ask().await?`.
#[derive(Debug, Clone)]
#[must_use = "a sub-flow does nothing until `.ask().await`ed in a handler body"]
pub struct SubFlowCall<F>(F);

impl<F: SubFlow> SubFlowCall<F> {
    #[doc(hidden)]
    pub fn new(flow: F) -> Self {
        Self(flow)
    }

    /// Runs the sub-flow in the handler, for as many rounds as it takes. Only meaningful directly in the
    /// body of a `#[tool]`, `#[prompt]`, `#[resource]` or `#[elicit]` fn, where the macro compiles it into a
    /// resumable step; anywhere else, awaiting it is a compile error ([`Asking`] is not a future).
    pub fn ask(self) -> Asking<Self> {
        Asking(self)
    }
}

/// How far a sub-flow got.
#[derive(Debug)]
pub enum Progress<T> {
    /// It completed with this output.
    Ready(T),
    /// It suspended: these requests (its own keys), and the state to resume it from.
    Again {
        /// The input requests of the round it stopped at, under the sub-flow's own keys.
        requests: InputRequests,
        /// The sub-flow's state (fingerprint, arguments, step, carried locals), for [`resume`].
        state: Box<RawValue>,
    },
}

/// A sub-flow's state between rounds.
#[derive(Serialize, serde::Deserialize)]
struct State {
    fingerprint: u64,
    args: Box<RawValue>,
    step: u32,
    locals: Box<RawValue>,
}

fn unserializable(e: &serde_json::Error) -> Error {
    Error::from(StateError::Unserializable(e.to_string()))
}

fn undecodable(e: &serde_json::Error) -> Error {
    Error::from(StateError::Undecodable { line: e.line(), column: e.column() })
}

/// Runs a sub-flow from its start to its first suspension or its end.
pub async fn start<F: SubFlow>(flow: F) -> Result<Progress<F::Output>, Error> {
    let args = serde_json::value::to_raw_value(&flow).map_err(|e| unserializable(&e))?;
    run(flow, args, None).await
}

/// Runs a suspended sub-flow from its `state` with the answers to its requests (its own keys).
pub async fn resume<F: SubFlow>(state: &RawValue, responses: InputResponses) -> Result<Progress<F::Output>, Error> {
    let State { fingerprint, args, step, locals } = serde_json::from_str(state.get()).map_err(|e| undecodable(&e))?;
    if fingerprint != F::fingerprint() {
        return Err(Error::from(StateError::StaleFingerprint));
    }
    let flow: F = serde_json::from_str(args.get()).map_err(|e| undecodable(&e))?;
    let resume = (step != 0).then_some(Resume { step, locals, responses: Arc::new(responses) });
    run(flow, args, resume).await
}

async fn run<F: SubFlow>(
    mut flow: F,
    args: Box<RawValue>,
    mut resume: Option<Resume>,
) -> Result<Progress<F::Output>, Error> {
    loop {
        let slot = Slot::new();
        match drive(&slot, flow.machine(&slot, resume)).await? {
            Pass::Complete(output) => return Ok(Progress::Ready(output)),
            Pass::Suspend(Suspension { step, requests, locals, .. }) => {
                let state = State { fingerprint: F::fingerprint(), args, step, locals };
                let state = serde_json::value::to_raw_value(&state).map_err(|e| unserializable(&e))?;
                return Ok(Progress::Again { requests, state });
            }
            Pass::Again(again) => {
                resume = Some(again);
                flow = serde_json::from_str(args.get()).map_err(|e| undecodable(&e))?;
            }
        }
    }
}

/// The state of a sub-flow that has not started: its arguments, step 0.
fn initial<F: SubFlow>(flow: &F) -> Result<Box<RawValue>, Error> {
    let args = serde_json::value::to_raw_value(flow).map_err(|e| unserializable(&e))?;
    let state = State { fingerprint: F::fingerprint(), args, step: 0, locals: RawValue::NULL.to_owned() };
    serde_json::value::to_raw_value(&state).map_err(|e| unserializable(&e))
}

fn nest(locals: Box<RawValue>, flow: Box<RawValue>) -> Result<Box<RawValue>, Error> {
    serde_json::value::to_raw_value(&Nested { locals, flow }).map_err(|e| unserializable(&e))
}

/// The answers under `key/`, the prefix stripped.
fn under(key: &str, responses: &InputResponses) -> InputResponses {
    let prefix = format!("{key}/");
    responses.with_prefix(&prefix).map(|(k, value)| (k[prefix.len()..].to_owned(), value.to_owned())).collect()
}

impl<F: SubFlow> Point for SubFlowCall<F> {
    type Output = F::Output;

    fn reach(self, slot: &Slot, step: u32, _: &str, locals: Result<Box<RawValue>, Error>) {
        let nested = locals.and_then(|locals| nest(locals, initial(&self.0)?));
        slot.again(nested.map(|locals| Resume { step, locals, responses: Default::default() }));
    }

    async fn resume(slot: &Slot, key: &str, answers: &mut Answers) -> Result<F::Output, Error> {
        let Some(Nested { locals, flow }) = answers.nested.take() else {
            let missing = Error::from(StateError::Undecodable { line: 0, column: 0 });
            match slot.fail(missing).await {}
        };
        let responses = under(key, &answers.responses);
        // Nothing of the output's type lives across an await below, so it need not be `Send`.
        let again = match resume::<F>(&flow, responses).await {
            Ok(Progress::Ready(output)) => return Ok(output),
            Ok(Progress::Again { requests, state }) => nest(locals, state).map(|locals| {
                let requests = requests.into_iter().map(|(k, r)| (format!("{key}/{k}"), r)).collect();
                Suspension { step: answers.step, requests, locals, task: false }
            }),
            Err(error) => Err(error),
        };
        slot.suspend(again);
        std::future::pending().await
    }
}

//! What handler bodies compile to: resumable rounds.
//!
//! A handler runs until it completes or reaches an `.ask()`. There the round ends with a [`Suspension`]:
//! the step reached, the input requests, and the locals still live. The next round resumes at that step
//! with a [`Resume`]: the same locals and the client's answers. The era adapters decide what a suspension
//! becomes on the wire (a modern `input_required` result, or legacy server-to-client requests); handlers
//! never know which.
//!
//! A handler may also build its rounds by hand ([`Flow`], [`InputRequired`]): the same suspension, at
//! [`MANUAL_STEP`], with the handler's own state in place of carried locals.

mod ask;
pub mod driver;
mod elicit;
pub(crate) mod form;
mod manual;
mod roots;
mod sample;
pub mod subflow;
mod task;

pub use ask::{Ask, AskExt, Asking, Checkpoint, OnlyInsideHandlers, checkpoint};
pub use driver::{Answers, Pass, Point, Slot, drive};
pub use elicit::{ElicitAsk, ElicitForm, ElicitUrl, Elicitation, UrlConsent};
pub use form::{
    Bound, Choice, ElicitChoice, FieldOptions, FormField, Format, MultiSelectField, NumberField, TextField,
};
pub use manual::{Flow, InputRequired, InputResponse, MANUAL_STEP, RequestState};
pub use roots::ListRoots;
pub use sample::{Sample, Sampled};
pub use subflow::{Progress, SubFlow, SubFlowCall};
pub use task::{RunAsTask, run_as_task};

use crate::protocol::{InputRequests, InputResponses};
use serde_json::value::RawValue;
use std::sync::Arc;

/// The outcome of one round of a handler.
#[derive(Debug)]
pub enum Step<T> {
    /// The handler finished with this result.
    Complete(T),
    /// The round ended at an `.ask()`.
    Suspend(Suspension),
}

impl<T> Step<T> {
    /// Converts the completed result with `f`; a suspension passes through unchanged.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Step<U> {
        match self {
            Step::Complete(t) => Step::Complete(f(t)),
            Step::Suspend(s) => Step::Suspend(s),
        }
    }
}

/// Where a round ended: the step to resume at, what the client must answer, and the live locals.
#[derive(Debug)]
pub struct Suspension {
    /// The step the next round resumes at (numbered by the macro; [`MANUAL_STEP`] for a hand-written round).
    pub step: u32,
    /// Empty for a state-only round (`checkpoint()`).
    pub requests: InputRequests,
    /// The carried locals as JSON, serialized once.
    pub locals: Box<RawValue>,
    /// The round ended at [`run_as_task()`]: the rest of the call may run as a background task.
    pub task: bool,
}

/// Where the next round starts: the suspension's step and locals, and the client's answers.
#[derive(Debug)]
pub struct Resume {
    /// The step to resume at, as the suspension recorded it.
    pub step: u32,
    /// The carried locals, exactly as the suspension encoded them.
    pub locals: Box<RawValue>,
    /// The client's answers to the suspension's input requests, by key; shared with the round's
    /// [`Context`](crate::Context), which reads them too, so a round never copies them.
    pub responses: Arc<InputResponses>,
}

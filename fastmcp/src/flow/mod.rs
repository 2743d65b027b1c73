//! What a handler's body compiles to: one round's outcome.
//!
//! A handler runs until it completes or until it needs something only the client has. The era adapters
//! decide what an `InputRequired` step becomes on the wire (a modern `input_required` result, or legacy
//! server-to-client requests).

use crate::protocol::InputRequiredResult;

/// The outcome of one round of a handler.
#[derive(Debug, Clone, PartialEq)]
pub enum Step<T> {
    /// The handler finished with this result.
    Complete(T),
    /// The round ends: the client must answer these input requests (or just send the state back).
    InputRequired(InputRequiredResult),
}

impl<T> Step<T> {
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Step<U> {
        match self {
            Step::Complete(t) => Step::Complete(f(t)),
            Step::InputRequired(i) => Step::InputRequired(i),
        }
    }
}

//! `run_as_task()`: the point in a tool's body from which the rest of the call runs as a task.

use super::Suspension;
use super::ask::Asking;
use super::driver::{Answers, Point, Slot};
use crate::error::Error;
use crate::protocol::InputRequests;
use serde_json::value::RawValue;

/// See [`run_as_task`].
#[derive(Debug, Clone, Copy, Default)]
#[must_use = "`run_as_task()` does nothing until `.ask().await`ed in a tool's body"]
pub struct RunAsTask;

/// The rest of this call runs as a task: `run_as_task().ask().await?`.
///
/// A tool that supports tasks (`#[tool(task = "optional")]` or `"required"`) normally becomes a task the
/// moment it is called. One that first needs the user's input writes `run_as_task().ask().await?` after its
/// asks: the rounds before it are ordinary synchronous rounds (`input_required` with `requestState`), and the
/// round that reaches it answers with a `CreateTaskResult` while the body runs on in the background from
/// there, with every local it still needs.
///
/// ```no_run
/// use fastmcp::prelude::*;
///
/// #[elicit]
/// struct Quality {
///     /// 1 (draft) to 10 (final).
///     level: u32,
/// }
///
/// /// Renders a scene at the quality the user picks.
/// #[tool(task = "required")]
/// async fn render(scene: String) -> Result<String> {
///     let quality = Quality::elicit("Which quality?").ask().await?; // an ordinary round
///     let level = quality.accepted().map_or(5, |q| q.level);
///     run_as_task().ask().await?; // the call becomes a task here
///     Ok(format!("{scene} rendered at quality {level}")) // runs in the background, `level` carried
/// }
/// ```
///
/// Where the client did not opt into tasks (or on a legacy session), the point is passed through in the
/// same round and the call completes synchronously. The macro sees the call by its name, so write it as
/// `run_as_task()` (or a path ending in it), directly in the tool's body.
pub fn run_as_task() -> RunAsTask {
    RunAsTask
}

impl RunAsTask {
    /// Stops the round here so the runtime can continue the call as a task. Only meaningful directly in the
    /// body of a `#[tool(task = ...)]` fn.
    pub fn ask(self) -> Asking<Self> {
        Asking(self)
    }
}

impl Point for RunAsTask {
    type Output = ();

    fn reach(self, slot: &Slot, step: u32, _: &str, locals: Result<Box<RawValue>, Error>) {
        slot.suspend(locals.map(|locals| Suspension { step, requests: InputRequests::new(), locals, task: true }));
    }

    async fn resume(_: &Slot, _: &str, _: &mut Answers) -> Result<(), Error> {
        Ok(())
    }
}

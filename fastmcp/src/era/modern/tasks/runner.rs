//! A task's runner: the tool's machine, round after round, in a background tokio task.
//!
//! Each round runs like a synchronous call's (panic guard, per-round timeout). A round that asks parks the
//! task in `input_required` until `tasks/update` has answered every request, then the next round resumes
//! from there with the answers, as the legacy shim resumes with a session's. The runner ends when the
//! machine completes or fails, when `tasks/cancel` fires the task's token, or when the task expires.

use super::TaskStart;
use super::store::{Handle, Settled, TaskStore};
use crate::cancel::Cancel;
use crate::context::{self, Context};
use crate::era::modern::link::ModernLink;
use crate::error::Error;
use crate::flow::{Resume, Step};
use crate::protocol::{Era, InputResponses};
use crate::server::Server;
use crate::server::dispatch::{Delivery, run_tool, tool_failure};
use std::sync::Arc;

/// What a task's handler gets for session state: it outlives the request that made it.
const NO_SESSION: &str = "a task has no session: it outlives the request that created it. Keep state in locals \
     that live across `.ask()`, or mint your own handles and pass them as tool arguments";

pub(super) async fn run(server: Server, store: Arc<TaskStore>, handle: Handle, start: TaskStart, ctx: Context) {
    // The task's own context: the creating request's facts, and no stream to notify on (the request that
    // created it has been answered). Its cancellation is its own: `tasks/cancel` and expiry fire it (the
    // handler's future is dropped then, and work it handed elsewhere sees it), while a round's timeout
    // (which fires it too) ends only that round, settling the task.
    let link = ModernLink::silent();
    let cancel = Cancel::default();
    let ctx = ctx.detached(cancel.clone(), link, context::Session::None(NO_SESSION));
    tokio::select! {
        biased;
        () = handle.cancel.cancelled() => {
            cancel.cancel();
            tracing::debug!("task {} stopped (cancelled or expired)", handle.id);
        }
        () = tokio::time::sleep_until(handle.expires) => {
            cancel.cancel();
            tracing::debug!("task {} expired while running", handle.id);
            store.expire(&handle.id);
        }
        settled = work(&server, &store, &handle.id, start, ctx) => {
            if let Some(settled) = settled {
                store.settle(&handle.id, settled).await;
            }
        }
    }
}

/// The machine's rounds until it settles; `None` when the task went away while it waited for input.
async fn work(server: &Server, store: &TaskStore, id: &str, start: TaskStart, ctx: Context) -> Option<Settled> {
    let TaskStart { tool, arguments, mut resume } = start;
    let Some(entry) = server.registry().tools.get(&tool).cloned() else {
        return Some(settle(Err(Error::internal(format!("task {id}: tool `{tool}` is not registered")))));
    };
    loop {
        let suspension = match run_tool(server, &entry, arguments.clone(), &ctx, resume.take()).await {
            Ok(Step::Complete(result)) => return Some(settle(Ok(result))),
            Err(e) => return Some(settle(Err(e))),
            Ok(Step::Suspend(suspension)) => suspension,
        };
        let responses = if suspension.requests.is_empty() {
            // `run_as_task()` or `checkpoint()`: nothing to wait for inside a task.
            tokio::task::yield_now().await;
            InputResponses::new()
        } else {
            if let Some(missing) = ctx.client_capabilities().uncovered(&suspension.requests, "the creating request's") {
                return Some(Settled::Failed(missing));
            }
            // None: the task was cancelled or expired while it waited.
            store.ask(id, suspension.requests).await?
        };
        resume = Some(Resume { step: suspension.step, locals: suspension.locals, responses: Arc::new(responses) });
    }
}

/// A round's end as a task's state: a result settles `completed`; a failure is sorted by
/// [`tool_failure`] for a task's delivery (`completed` with `isError`, or `failed` with the JSON-RPC error).
fn settle(result: Result<crate::protocol::CallToolResult, Error>) -> Settled {
    match result.or_else(|e| tool_failure(e, Delivery::Task)) {
        Ok(result) => Settled::Completed(result),
        Err(e) => Settled::Failed(e.to_error_object(Era::Modern)),
    }
}

//! A task's runner: the tool's machine, round after round, in a background tokio task.
//!
//! Each round runs like a synchronous call's (panic guard, per-round timeout). A round that asks parks the
//! task in `input_required` until `tasks/update` has answered every request, then the next round resumes
//! from there with the answers, as the legacy shim resumes with a session's. The runner ends when the
//! machine completes or fails, when `tasks/cancel` fires the task's token, or when the task expires.

use super::store::{Handle, Settled};
use crate::context::Context;
use crate::error::Error;
use crate::flow::{Resume, Step};
use crate::protocol::{Era, InputResponses};
use crate::server::Server;
use crate::server::dispatch::{TaskStart, run_tool};

pub(super) async fn run(server: Server, handle: Handle, start: TaskStart, ctx: Context) {
    // The task's own context: the creating request's facts, and no stream to notify on (the request that
    // created it has been answered). Its token is a child of the task's: `tasks/cancel` reaches the handler,
    // while a round's timeout (which fires the handler's token) ends only that round, settling the task.
    let ctx = ctx.detached(handle.cancel.child_token());
    let store = &server.inner.tasks;
    tokio::select! {
        biased;
        () = handle.cancel.cancelled() => tracing::debug!("task {} stopped (cancelled or expired)", handle.id),
        () = tokio::time::sleep_until(handle.expires) => {
            tracing::debug!("task {} expired while running", handle.id);
            store.expire(&handle.id);
        }
        settled = work(&server, &handle.id, start, ctx) => {
            if let Some(settled) = settled {
                store.settle(&handle.id, settled);
            }
        }
    }
}

/// The machine's rounds until it settles; `None` when the task went away while it waited for input.
async fn work(server: &Server, id: &str, start: TaskStart, ctx: Context) -> Option<Settled> {
    let TaskStart { tool, arguments, mut resume } = start;
    let Some(entry) = server.inner.registry.tools.get(&tool) else {
        return Some(super::settle(Err(Error::internal(format!("task {id}: tool `{tool}` is not registered")))));
    };
    loop {
        let suspension = match run_tool(server, entry, arguments.clone(), ctx.clone(), resume.take()).await {
            Ok(Step::Complete(result)) => return Some(super::settle(Ok(result))),
            Err(e) => return Some(super::settle(Err(e))),
            Ok(Step::Suspend(suspension)) => suspension,
        };
        let responses = if suspension.requests.is_empty() {
            // `run_as_task()` or `checkpoint()`: nothing to wait for inside a task.
            tokio::task::yield_now().await;
            InputResponses::new()
        } else {
            if let Some(e) =
                crate::era::uncovered_request(ctx.client_capabilities(), &suspension.requests, "the creating request's")
            {
                return Some(Settled::Failed(e.to_error_object(Era::Modern)));
            }
            // A closed channel means the task was cancelled or expired while it waited.
            server.inner.tasks.ask(id, suspension.requests)?.await.ok()?
        };
        resume = Some(Resume { step: suspension.step, locals: suspension.locals, responses });
    }
}

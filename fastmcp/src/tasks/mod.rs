//! Tasks (the `io.modelcontextprotocol/tasks` extension, SEP-2663, protocol 2026-07-28): a tool call that
//! answers at once with a task id, runs in the background, and is polled, fed and cancelled by id.
//!
//! A tool opts in with `#[tool(task = "optional")]` (a task when the client supports them, a plain call
//! otherwise) or `#[tool(task = "required")]` (refused with `-32021` to a client that doesn't). The client
//! opts in per request, with the extension in `_meta`'s client capabilities. Then the call becomes a task
//! before the handler runs, unless the body places the switch itself with
//! [`run_as_task()`](crate::flow::run_as_task) after gathering input in ordinary rounds.
//!
//! The task runs the same resumable machine as every call: an `.ask()` inside it parks the task in
//! `input_required` (its requests on `tasks/get`) until `tasks/update` has answered every key, then the
//! machine resumes in-process, as the legacy shim resumes it with a session's answers. A tool error
//! settles `completed` with `isError`; a protocol error or a panic settles `failed`; `tasks/cancel` drops
//! the machine and fires the handler's [`Context::cancellation`](crate::Context::cancellation).
//!
//! Tasks live in this process, for their ttl ([`FastMcp::task_ttl`](crate::FastMcp::task_ttl)); they do
//! not survive a restart or cross replicas. A task id is a bearer handle: whoever has it can read and steer
//! the task. Legacy sessions (2024-11-05 … 2025-11-25) get no tasks: their calls run synchronously.

mod runner;
mod store;

pub(crate) use store::TaskStore;

use crate::context::Context;
use crate::error::Error;
use crate::protocol::{
    CallToolResult, Era, ErrorObject, METHOD_TASKS_CANCEL, METHOD_TASKS_GET, METHOD_TASKS_UPDATE, TASKS_EXTENSION,
    TaskParams, UpdateTaskParams,
};
use crate::server::Server;
use crate::server::dispatch::{Outcome, Reply, TaskStart, parse_params};
use serde_json::json;
use serde_json::value::RawValue;

/// Whether a tool's calls may run as tasks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TaskSupport {
    /// Never a task (the default).
    #[default]
    Forbidden,
    /// A task for clients that negotiated the extension; a plain call for the others.
    Optional,
    /// Only as a task: clients that did not negotiate the extension get `-32021`.
    Required,
}

/// Whether this request may be answered with a task: a modern request whose client declared the extension.
pub(crate) fn negotiated(ctx: &Context) -> bool {
    ctx.era() == Era::Modern && ctx.client_capabilities().has_extension(TASKS_EXTENSION)
}

/// `-32021`, naming the extension the client must declare.
pub(crate) fn missing_extension(message: impl Into<String>) -> Error {
    Error::rpc(ErrorObject::missing_capability(message, json!({ "extensions": { TASKS_EXTENSION: {} } })))
}

/// The methods of the extension this module serves (modern era only).
pub(crate) fn serves(method: &str) -> bool {
    matches!(method, METHOD_TASKS_GET | METHOD_TASKS_UPDATE | METHOD_TASKS_CANCEL)
}

/// `tasks/get`, `tasks/update` and `tasks/cancel`, for a client that negotiated the extension.
pub(crate) fn serve(server: &Server, ctx: &Context, method: &str, params: Option<&RawValue>) -> Outcome {
    if !negotiated(ctx) {
        return Outcome::Error(missing_extension(format!(
            "{method} needs the {TASKS_EXTENSION} extension in the request's client capabilities"
        )));
    }
    let store = &server.inner.tasks;
    let result = match method {
        METHOD_TASKS_GET => parse_params::<TaskParams>(method, params)
            .and_then(|p| store.get(&p.task_id))
            .and_then(|t| Reply::new(t, false)),
        METHOD_TASKS_UPDATE => parse_params::<UpdateTaskParams>(method, params)
            .and_then(|p| store.update(&p.task_id, p.input_responses))
            .and_then(|()| Reply::new(json!({}), false)),
        _ => parse_params::<TaskParams>(method, params)
            .and_then(|p| store.cancel(&p.task_id))
            .and_then(|()| Reply::new(json!({}), false)),
    };
    match result {
        Ok(reply) => Outcome::Complete(reply),
        Err(e) => Outcome::Error(e),
    }
}

/// Makes the task a call became, starts its runner, and answers with the `CreateTaskResult`. The task is in
/// the store before this returns, so a `tasks/get` right after the response finds it.
pub(crate) fn create(server: &Server, ctx: &Context, start: TaskStart) -> Outcome {
    let options = server.options();
    let limits = store::Limits {
        max_tasks: options.max_tasks,
        ttl: options.task_ttl,
        poll_interval: options.task_poll_interval,
    };
    let (handle, task) = match server.inner.tasks.create(limits) {
        Ok(created) => created,
        Err(e) => return Outcome::Error(e),
    };
    tracing::debug!("tool `{}` runs as task {}", start.tool, handle.id);
    tokio::spawn(runner::run(server.clone(), handle, start, ctx.clone()));
    match Reply::new(task, false) {
        Ok(reply) => Outcome::Created(reply),
        Err(e) => Outcome::Error(e),
    }
}

/// A failure inside a task as the spec sorts them. A handler's own `Err` is already an `isError` result by
/// now; what reaches here is the runtime's: uncoded errors (a round's timeout) are tool errors, as a
/// synchronous call reports them (`completed` with `isError`); coded ones (a panic, a malformed answer)
/// are protocol errors (`failed`, the JSON-RPC error inlined).
fn settle(result: Result<CallToolResult, Error>) -> store::Settled {
    match result {
        Ok(result) => store::Settled::Completed(result),
        Err(e) if e.code().is_none() => store::Settled::Completed(CallToolResult::error(e.to_string())),
        Err(e) => store::Settled::Failed(e.to_error_object(Era::Modern)),
    }
}

//! Tasks (the `io.modelcontextprotocol/tasks` extension, SEP-2663, protocol 2026-07-28): a tool call that
//! answers at once with a task id, runs in the background, and is polled, fed and cancelled by id. A
//! modern-era extension, so it lives in the modern adapter: dispatch never sees a task.
//!
//! The task runs the same resumable machine as every call: an `.ask()` inside it parks the task in
//! `input_required` (its requests on `tasks/get`) until `tasks/update` has answered every key, then the
//! machine resumes in-process, as the legacy shim resumes it with a session's answers. What a failure
//! becomes is `dispatch::tool_failure`'s decision, for a task's delivery; `tasks/cancel` drops the machine
//! and fires the handler's [`Context::cancellation`](crate::Context::cancellation).
//!
//! A task's record lives in the server's [`Store`](crate::store::Store) for its ttl
//! ([`FastMcp::task_ttl`](crate::FastMcp::task_ttl)): with a shared store (Redis) any replica can poll,
//! answer and cancel a task, while its runner stays in the process that created it (a task whose process
//! is gone fails, on the first poll once that replica's lease in the store has run out). A task id is a
//! bearer handle: whoever has it can read and steer the task — on a protected server, only with a token of
//! the principal that created it.

mod runner;
mod slots;
mod store;

pub(crate) use store::TaskStore;

use super::Wire;
use crate::auth::AccessToken;
use crate::context::Context;
use crate::error::Error;
use crate::flow::Resume;
use crate::protocol::{ClientCapabilities, ErrorObject, InputResponses, TASKS_EXTENSION};
use crate::server::Server;
use serde_json::json;
use serde_json::value::RawValue;

/// Whether this request may be answered with a task: its client declared the extension.
pub(crate) fn negotiated(capabilities: &ClientCapabilities) -> bool {
    capabilities.has_extension(TASKS_EXTENSION)
}

/// `-32021`, naming the extension the client must declare.
pub(crate) fn missing_extension(message: impl Into<String>) -> Error {
    Error::rpc(ErrorObject::missing_capability(message, json!({ "extensions": { TASKS_EXTENSION: {} } })))
}

/// What a `tasks/*` request asks of its task.
pub(crate) enum Steer {
    Get,
    Update(InputResponses),
    Cancel,
}

/// `tasks/get`, `tasks/update` and `tasks/cancel`, for a client that negotiated the extension.
pub(crate) async fn steer(
    store: &TaskStore,
    capabilities: &ClientCapabilities,
    method: &str,
    task_id: &str,
    caller: Option<&AccessToken>,
    steer: Steer,
) -> Wire {
    if !negotiated(capabilities) {
        return Wire::Error(missing_extension(format!(
            "{method} needs the {TASKS_EXTENSION} extension in the request's client capabilities"
        )));
    }
    let caller = caller.map(AccessToken::principal);
    let caller = caller.as_ref();
    let done = match steer {
        Steer::Get => {
            return store.get(task_id, caller).await.map_or_else(Wire::Error, |task| Wire::reply(task, None));
        }
        Steer::Update(responses) => store.update(task_id, caller, responses).await,
        Steer::Cancel => store.cancel(task_id, caller).await,
    };
    done.map_or_else(Wire::Error, |()| Wire::reply(json!({}), None))
}

/// Where a task's machine starts: the tool, its arguments, and the point reached (none: the beginning).
pub(crate) struct TaskStart {
    pub tool: String,
    pub arguments: Option<Box<RawValue>>,
    pub resume: Option<Resume>,
}

/// Makes the task a call became, starts its runner, and answers with the `CreateTaskResult`. The task is in
/// the store before this returns, so a `tasks/get` right after the response finds it.
pub(crate) async fn create(
    server: &Server,
    store: &std::sync::Arc<TaskStore>,
    ctx: &Context,
    start: TaskStart,
) -> Wire {
    let options = server.options();
    let limits = store::Limits {
        max_tasks: options.max_tasks,
        per_principal: options.max_tasks_per_principal,
        ttl: options.task_ttl,
        poll_interval: options.task_poll_interval,
    };
    let (handle, task) = match store.create(limits, ctx.auth().map(AccessToken::principal)).await {
        Ok(created) => created,
        Err(e) => return Wire::Error(e),
    };
    tracing::debug!("tool `{}` runs as task {}", start.tool, handle.id);
    tokio::spawn(runner::run(server.clone(), store.clone(), handle, start, ctx.clone()));
    match crate::server::reply::Reply::new(task, None) {
        Ok(reply) => Wire::Task(reply),
        Err(e) => Wire::Error(e),
    }
}

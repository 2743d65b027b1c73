//! Tool calls as tasks (the `io.modelcontextprotocol/tasks` extension of 2026-07-28): the call answers at
//! once with a task, which the client polls, feeds the handlers' answers, or cancels.

use super::error::ClientError;
use super::{Client, parse};
use crate::protocol::{
    CallToolResult, DetailedTask, Era, METHOD_TASKS_CANCEL, METHOD_TASKS_GET, METHOD_TASKS_UPDATE, TASKS_EXTENSION,
    Task, TaskStatus,
};
use serde::Serialize;
use serde_json::{Value, json};
use std::time::Duration;

/// How often a task is polled when the server gives no interval.
const DEFAULT_POLL: Duration = Duration::from_millis(500);

/// A tool call running as a task on the server.
pub struct TaskCall<'c> {
    client: &'c Client,
    /// The task as created.
    pub task: Task,
}

impl Client {
    /// Calls a tool as a task: the client declares the tasks extension for this call, and a tool that
    /// supports tasks answers at once with one. A server or tool without tasks (and a legacy session)
    /// answers with the result itself: [`TaskOrResult::Result`].
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<TaskOrResult<'_>, ClientError> {
        if self.era() != Era::Modern {
            return self.call_tool(name, arguments).await.map(TaskOrResult::Result);
        }
        let arguments = serde_json::to_value(arguments)
            .map_err(|e| ClientError::Protocol(format!("the arguments could not be serialized: {e}")))?;
        let params = json!({ "name": name, "arguments": arguments });
        let (params, headers) = self.modern_shape("tools/call", params, Some(name), &[TASKS_EXTENSION]);
        let raw = self.session.request("tools/call", params, headers).await?;
        let typed: Value = parse(&raw)?;
        if typed.get("resultType").and_then(Value::as_str) == Some("task") {
            return Ok(TaskOrResult::Task(TaskCall { client: self, task: parse(&raw)? }));
        }
        parse(&raw).map(TaskOrResult::Result)
    }

    async fn task_request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        let task_id = params.get("taskId").and_then(Value::as_str).map(str::to_owned);
        let (params, headers) = self.modern_shape(method, params, task_id.as_deref(), &[TASKS_EXTENSION]);
        parse(&self.session.request(method, params, headers).await?)
    }
}

/// What a task call came to: a task, or (a tool or server without tasks) the result at once.
pub enum TaskOrResult<'c> {
    /// The call runs as a task: wait with [`TaskCall::result`], or poll and cancel it.
    Task(TaskCall<'c>),
    /// The call ran to its result, as [`Client::call_tool`] would have returned it.
    Result(CallToolResult),
}

impl TaskCall<'_> {
    /// The task now (`tasks/get`).
    pub async fn status(&self) -> Result<DetailedTask, ClientError> {
        let raw = self.client.task_request(METHOD_TASKS_GET, json!({ "taskId": self.task.task_id })).await?;
        serde_json::from_value(raw).map_err(|e| ClientError::Protocol(format!("tasks/get: {e}")))
    }

    /// Stops the task (`tasks/cancel`).
    pub async fn cancel(&self) -> Result<(), ClientError> {
        self.client.task_request(METHOD_TASKS_CANCEL, json!({ "taskId": self.task.task_id })).await.map(drop)
    }

    /// Waits for the task's result: polls at the server's interval, and answers the task's input requests
    /// with the handlers (`tasks/update`). A task that failed is the protocol error it failed with; a
    /// cancelled one, an error saying so.
    pub async fn result(self) -> Result<CallToolResult, ClientError> {
        let interval = self.task.poll_interval_ms.map_or(DEFAULT_POLL, Duration::from_millis);
        let mut answered: Option<Vec<String>> = None;
        loop {
            let detailed = self.status().await?;
            match detailed.task.status {
                TaskStatus::Completed => {
                    return detailed
                        .result
                        .ok_or_else(|| ClientError::Protocol("a completed task without a result".into()));
                }
                TaskStatus::Failed => {
                    return Err(detailed
                        .error
                        .map_or_else(|| ClientError::Protocol("the task failed".into()), ClientError::Rpc));
                }
                TaskStatus::Cancelled => return Err(ClientError::Protocol("the task was cancelled".into())),
                TaskStatus::InputRequired => {
                    let requests = detailed.input_requests.unwrap_or_default();
                    let keys: Vec<String> = requests.keys().cloned().collect();
                    // Each round of requests is answered once; the task shows them until it moves on.
                    if answered.as_ref() != Some(&keys) {
                        let responses = self.client.answer(requests).await?;
                        let params = json!({ "taskId": self.task.task_id, "inputResponses": responses });
                        self.client.task_request(METHOD_TASKS_UPDATE, params).await?;
                        answered = Some(keys);
                        continue;
                    }
                }
                TaskStatus::Working => answered = None,
            }
            tokio::time::sleep(interval).await;
        }
    }
}

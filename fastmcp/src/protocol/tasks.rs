//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the modern wire: a `tools/call` may
//! answer with a task that the client polls with `tasks/get`, feeds with `tasks/update` and stops with
//! `tasks/cancel`. Facts: `shared/reference/mcp-wire.md` §2.14.

use super::{CallToolResult, ErrorObject, InputRequests, InputResponses, JsonObject};
use serde::{Deserialize, Serialize};

/// The extension's identifier, in `capabilities.extensions` (server) and per-request client capabilities.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

pub const METHOD_TASKS_GET: &str = "tasks/get";
pub const METHOD_TASKS_UPDATE: &str = "tasks/update";
pub const METHOD_TASKS_CANCEL: &str = "tasks/cancel";

/// Where a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    /// A terminal task never changes again.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

/// The fields every task carries: the body of a `CreateTaskResult` (with `resultType: "task"`), and the base
/// of a [`DetailedTask`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    pub task_id: String,
    pub status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO-8601, UTC.
    pub created_at: String,
    /// ISO-8601, UTC.
    pub last_updated_at: String,
    /// How long the task stays retrievable after it was created; `null` for no limit.
    pub ttl_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

/// `tasks/get`'s answer: the task, and what its status implies (the pending input requests, the tool's
/// result, or the protocol error that failed it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    #[serde(flatten)]
    pub task: Task,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<CallToolResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
}

/// `tasks/get` and `tasks/cancel` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskParams {
    pub task_id: String,
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// `tasks/update` params: answers to some or all of the task's pending input requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskParams {
    pub task_id: String,
    #[serde(default)]
    pub input_responses: InputResponses,
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the modern wire: a `tools/call` may
//! answer with a task that the client polls with `tasks/get`, feeds with `tasks/update` and stops with
//! `tasks/cancel`. Facts: `shared/reference/mcp-wire.md` §2.14.

use super::{CallToolResult, ErrorObject, InputRequests, InputResponses, JsonObject};
use serde::{Deserialize, Serialize};

/// The extension's identifier, in `capabilities.extensions` (server) and per-request client capabilities.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// `tasks/get` (params [`TaskParams`]): poll a task; the result is a [`DetailedTask`] with `resultType: "complete"`.
pub const METHOD_TASKS_GET: &str = "tasks/get";
/// `tasks/update` (params [`UpdateTaskParams`]): answer a task's pending input requests; the result is an empty
/// acknowledgement.
pub const METHOD_TASKS_UPDATE: &str = "tasks/update";
/// `tasks/cancel` (params [`TaskParams`]): ask the server to stop a task; the result is an empty acknowledgement.
pub const METHOD_TASKS_CANCEL: &str = "tasks/cancel";

/// Where a task is (`status` on the wire, snake_case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// `working`: the tool call is still running.
    Working,
    /// `input_required`: the task waits for the client; `tasks/get` lists the pending `inputRequests`, which the
    /// client answers with `tasks/update`.
    InputRequired,
    /// `completed` (terminal): the tool returned; its result, even one with `isError: true`, is in `result`.
    Completed,
    /// `failed` (terminal): a JSON-RPC error ended the task; it is in `error`.
    Failed,
    /// `cancelled` (terminal): the task was stopped before it finished, e.g. by `tasks/cancel`.
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
    /// `taskId` on the wire: the server-generated handle the client passes to `tasks/get`, `tasks/update` and
    /// `tasks/cancel`.
    pub task_id: String,
    /// Where the task is; it decides which of [`DetailedTask`]'s optional fields are set.
    pub status: TaskStatus,
    /// `statusMessage` on the wire: optional human-readable note on the current status (what it is doing, why
    /// it failed or was cancelled); clients may show it to the user or model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// `createdAt` on the wire: when the task was created, ISO-8601, UTC.
    pub created_at: String,
    /// `lastUpdatedAt` on the wire: when the task last changed, ISO-8601, UTC.
    pub last_updated_at: String,
    /// `ttlMs` on the wire, always sent: how long, in milliseconds, the task stays retrievable after it was
    /// created; `null` for no limit.
    pub ttl_ms: Option<u64>,
    /// `pollIntervalMs` on the wire: how long, in milliseconds, the client should wait between `tasks/get`
    /// polls; it may change over the task's life. Absent: no suggestion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

/// `tasks/get`'s answer: the task, and what its status implies (the pending input requests, the tool's
/// result, or the protocol error that failed it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    /// The task; its fields sit at the top level of the result (flattened).
    #[serde(flatten)]
    pub task: Task,
    /// `inputRequests` on the wire: what the task waits for, keyed by the names `tasks/update` answers to. Set
    /// only when the status is `input_required`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// The tool's `tools/call` result. Set only when the status is `completed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<CallToolResult>,
    /// The JSON-RPC error that ended the task. Set only when the status is `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
}

/// `tasks/get` and `tasks/cancel` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskParams {
    /// `taskId` on the wire: the task to poll or cancel, as the `CreateTaskResult` named it.
    pub task_id: String,
    /// Request `_meta`: the modern per-request envelope (protocol version, client capabilities).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// `tasks/update` params: answers to some or all of the task's pending input requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskParams {
    /// `taskId` on the wire: the task whose input requests are answered.
    pub task_id: String,
    /// `inputResponses` on the wire: answers keyed like the task's `inputRequests`; absent reads as none. Keys
    /// that are not pending are ignored, and the task stays `input_required` until every pending one is answered.
    #[serde(default)]
    pub input_responses: InputResponses,
    /// Request `_meta`: the modern per-request envelope (protocol version, client capabilities).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

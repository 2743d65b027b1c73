//! Notifications: progress, cancellation, list changes.

use super::{ProgressToken, RequestId};
use serde::{Deserialize, Serialize};

/// Client to server, legacy only: the client has processed the `initialize` result and the session is
/// operational. Removed in the modern era.
pub const NOTIFY_INITIALIZED: &str = "notifications/initialized";
/// The sender gives up on a request ([`CancelledParams`]). Legacy: either side, for its own in-flight
/// requests. Modern: stdio only, where the client cancels a request and the server ends a `subscriptions/listen`
/// stream (over HTTP, closing the stream is the cancellation).
pub const NOTIFY_CANCELLED: &str = "notifications/cancelled";
/// How far a request that carried `_meta.progressToken` has got ([`ProgressParams`]). Modern: server to client
/// only, on that request's response stream.
pub const NOTIFY_PROGRESS: &str = "notifications/progress";
/// A log message from the server ([`LoggingMessageParams`](super::LoggingMessageParams)); needs `logging`.
/// Legacy: filtered by `logging/setLevel` once set. Modern: only for a request whose `_meta` names a `logLevel`,
/// at or above it, on that request's response stream.
pub const NOTIFY_MESSAGE: &str = "notifications/message";
/// A resource the client follows changed ([`ResourceUriParams`](super::ResourceUriParams)); the URI may be a
/// sub-resource of the one subscribed to. Legacy: after `resources/subscribe`; modern: on a listen stream that
/// named the URI in `resourceSubscriptions`.
pub const NOTIFY_RESOURCE_UPDATED: &str = "notifications/resources/updated";
/// The server's resource list changed; sent when `resources.listChanged` is declared (modern: only on listen
/// streams that asked for `resourcesListChanged`).
pub const NOTIFY_RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
/// The server's tool list changed; sent when `tools.listChanged` is declared (modern: only on listen streams
/// that asked for `toolsListChanged`).
pub const NOTIFY_TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
/// The server's prompt list changed; sent when `prompts.listChanged` is declared (modern: only on listen
/// streams that asked for `promptsListChanged`).
pub const NOTIFY_PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
/// Client to server, legacy only: the client's roots changed (needs `roots.listChanged`). Removed in the modern
/// era.
pub const NOTIFY_ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
/// Modern only: the first message on a `subscriptions/listen` stream, naming the subset of the requested
/// notifications the server will send.
pub const NOTIFY_SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

/// `notifications/progress` params: progress on a request that opted in with `_meta.progressToken`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressParams {
    /// `progressToken` on the wire: the token from the request's `_meta`, naming the request this is about.
    pub progress_token: ProgressToken,
    /// Progress so far; it must increase from one notification to the next for a token, and may be fractional.
    pub progress: f64,
    /// The value `progress` reaches when done, when known; absent when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// Optional human-readable description of the current step. Since 2025-03-26.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `notifications/cancelled` params: which request the sender gives up on, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledParams {
    /// `requestId` on the wire: the id of the request being cancelled (for a modern server ending a listen
    /// stream, the `subscriptions/listen` request's id). Optional only for task cancellation in 2025-11-25;
    /// required otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Optional human-readable reason, for logs or display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A list the server serves that changed, so clients should list it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListChanged {
    /// The tool list (`tools/list`), announced by `notifications/tools/list_changed`.
    Tools,
    /// The prompt list (`prompts/list`), announced by `notifications/prompts/list_changed`.
    Prompts,
    /// The resource list (`resources/list`), announced by `notifications/resources/list_changed`.
    Resources,
}

impl ListChanged {
    /// Every list, in the order tools, prompts, resources.
    pub const ALL: [ListChanged; 3] = [ListChanged::Tools, ListChanged::Prompts, ListChanged::Resources];

    /// The notification that announces it.
    pub fn method(self) -> &'static str {
        match self {
            ListChanged::Tools => NOTIFY_TOOLS_LIST_CHANGED,
            ListChanged::Prompts => NOTIFY_PROMPTS_LIST_CHANGED,
            ListChanged::Resources => NOTIFY_RESOURCES_LIST_CHANGED,
        }
    }
}

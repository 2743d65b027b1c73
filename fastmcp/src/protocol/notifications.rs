//! Notifications: progress, cancellation, list changes.

use super::{ProgressToken, RequestId};
use serde::{Deserialize, Serialize};

pub const NOTIFY_INITIALIZED: &str = "notifications/initialized";
pub const NOTIFY_CANCELLED: &str = "notifications/cancelled";
pub const NOTIFY_PROGRESS: &str = "notifications/progress";
pub const NOTIFY_MESSAGE: &str = "notifications/message";
pub const NOTIFY_RESOURCE_UPDATED: &str = "notifications/resources/updated";
pub const NOTIFY_RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
pub const NOTIFY_TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
pub const NOTIFY_PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
pub const NOTIFY_ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
pub const NOTIFY_SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressParams {
    pub progress_token: ProgressToken,
    pub progress: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledParams {
    /// Optional only for task cancellation in 2025-11-25; required otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A list the server serves that changed, so clients should list it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListChanged {
    Tools,
    Prompts,
    Resources,
}

impl ListChanged {
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

//! `subscriptions/listen` (modern): a long-lived request whose stream carries the notifications it asked for.

use super::JsonObject;
use serde::{Deserialize, Serialize};

/// `subscriptions/listen` params (modern only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListenParams {
    /// The notification types the client opts in to on this stream; the server sends no others. Required by
    /// the spec; fastmcp reads an absent one as asking for nothing.
    #[serde(default)]
    pub notifications: ListenNotifications,
    /// Request metadata (`_meta` on the wire): the modern per-request envelope, required on the wire.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Which notifications a subscription carries: asked for by the client, then acknowledged as the subset the
/// server honours.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListenNotifications {
    /// `toolsListChanged`: deliver `notifications/tools/list_changed`. `false` is left off the wire; fastmcp
    /// honours it only when it serves tools.
    #[serde(default, skip_serializing_if = "is_false")]
    pub tools_list_changed: bool,
    /// `promptsListChanged`: deliver `notifications/prompts/list_changed`. `false` is left off the wire;
    /// fastmcp honours it only when it serves prompts.
    #[serde(default, skip_serializing_if = "is_false")]
    pub prompts_list_changed: bool,
    /// `resourcesListChanged`: deliver `notifications/resources/list_changed`. `false` is left off the wire;
    /// fastmcp honours it only when it serves resources.
    #[serde(default, skip_serializing_if = "is_false")]
    pub resources_list_changed: bool,
    /// Resources whose updates the client wants (`resourceSubscriptions` on the wire): the URIs to deliver
    /// `notifications/resources/updated` for, replacing legacy `resources/subscribe`. fastmcp acknowledges
    /// only URIs it serves and the caller may read (at most 1024, duplicates dropped), and omits the field
    /// when none remain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// `subscriptions/listen` (modern only): opens a long-lived stream of the notifications a client asks for,
/// replacing the legacy HTTP GET stream and `resources/subscribe`.
pub const METHOD_LISTEN: &str = "subscriptions/listen";

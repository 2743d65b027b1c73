//! `subscriptions/listen` (modern): a long-lived request whose stream carries the notifications it asked for.

use super::JsonObject;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListenParams {
    #[serde(default)]
    pub notifications: ListenNotifications,
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Which notifications a subscription carries: asked for by the client, then acknowledged as the subset the
/// server honours.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListenNotifications {
    #[serde(default, skip_serializing_if = "is_false")]
    pub tools_list_changed: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub prompts_list_changed: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub resources_list_changed: bool,
    /// Resources whose updates the client wants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

pub const METHOD_LISTEN: &str = "subscriptions/listen";

//! Client and server capabilities, both eras.

use super::{ElicitMode, ErrorObject, InputRequest, InputRequests, JsonObject};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// What a client declares: at `initialize` (legacy) or in every request's `_meta` (modern).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// 2025-11-25 tasks (experimental, legacy only); kept opaque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
}

impl ClientCapabilities {
    /// Whether the client declared the extension `id` (e.g. [`TASKS_EXTENSION`](super::TASKS_EXTENSION)).
    pub fn has_extension(&self, id: &str) -> bool {
        self.extensions.as_ref().is_some_and(|e| e.contains_key(id))
    }

    /// The capability (in the shape of client capabilities, e.g. `{"sampling": {}}`) that answering `request`
    /// needs and these capabilities lack; `None` when they cover it.
    pub fn lacks(&self, request: &InputRequest) -> Option<Value> {
        match request {
            InputRequest::Elicit(p) if p.mode == Some(ElicitMode::Url) => {
                let covered = self.elicitation.as_ref().is_some_and(|e| e.supports_url());
                (!covered).then(|| json!({ "elicitation": { "url": {} } }))
            }
            InputRequest::Elicit(_) => {
                let covered = self.elicitation.as_ref().is_some_and(|e| e.supports_form());
                (!covered).then(|| json!({ "elicitation": {} }))
            }
            InputRequest::CreateMessage(_) => self.sampling.is_none().then(|| json!({ "sampling": {} })),
            InputRequest::ListRoots => self.roots.is_none().then(|| json!({ "roots": {} })),
        }
    }

    /// The `-32021` error for the first of `requests` these capabilities do not cover, naming what is missing;
    /// `whose` says where they were declared ("the request's", "the session's"). A server never sends an
    /// input request the client said it cannot answer.
    pub fn uncovered(&self, requests: &InputRequests, whose: &str) -> Option<ErrorObject> {
        requests.iter().find_map(|(key, request)| {
            let required = self.lacks(request)?;
            let message = format!(
                "Cannot request input '{key}' ({}): {whose} client capabilities do not declare the required \
                 capability",
                request.method()
            );
            Some(ErrorObject::missing_capability(message, required))
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootsCapability {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SamplingCapability {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
}

/// `{}` means form mode only (2025-06-18 shape); `form`/`url` name the modes (2025-11-25+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationCapability {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
}

impl ElicitationCapability {
    pub fn supports_form(&self) -> bool {
        self.form.is_some() || self.url.is_none()
    }

    pub fn supports_url(&self) -> bool {
        self.url.is_some()
    }
}

/// What the server offers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCapabilities {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListChangedCapability>,
    /// 2025-11-25 tasks (experimental, legacy only; `{list?, cancel?, requests?: {tools?: {call?}}}`), kept
    /// opaque like the client's. The spec's own `initialize` example carries it, so without the field a legacy
    /// server could not state it and a round trip would drop it. Modern servers use `extensions` instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListChangedCapability {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

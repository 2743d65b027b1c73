//! Client and server capabilities, both eras.

use super::{ElicitMode, ErrorObject, InputRequest, InputRequests, JsonObject};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// What a client declares: at `initialize` (legacy) or in every request's `_meta` (modern).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// Non-standard capabilities, keyed by name (both eras). Absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Present when the client can answer `roots/list` (the filesystem roots the server may work in). Roots is
    /// deprecated in the modern era, where this is just `roots: {}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// Present when the client can answer `sampling/createMessage` (an LLM completion run for the server).
    /// Deprecated in the modern era.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// Present when the client can answer `elicitation/create` (ask its user for input); which modes it takes is
    /// in [`ElicitationCapability`]. Since 2025-06-18.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// 2025-11-25 tasks (experimental, legacy only); kept opaque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<JsonObject>,
    /// Extensions the client supports, keyed by identifier (e.g. [`TASKS_EXTENSION`](super::TASKS_EXTENSION)),
    /// each with its settings (`{}` when it has none). Modern era; absent: none.
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

/// The client's `roots` capability: it can list its roots with `roots/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootsCapability {
    /// `listChanged` on the wire: whether the client sends `notifications/roots/list_changed` when its roots
    /// change. Legacy only (the modern era removed that notification); absent means no.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The client's `sampling` capability: it can run `sampling/createMessage` for the server. `{}` is plain
/// sampling; the sub-keys exist since 2025-11-25.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SamplingCapability {
    /// Present when the client honours `includeContext` values other than `"none"`; absent, a server should
    /// send only `"none"` (or omit `includeContext`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// Present when the client accepts `tools` and `toolChoice` in a sampling request (tool use while
    /// sampling); absent, a server must not send them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
}

/// `{}` means form mode only (2025-06-18 shape); `form`/`url` name the modes (2025-11-25+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationCapability {
    /// Present when the client takes form mode (`mode: "form"`, a flat form described by a JSON Schema). Also
    /// implied when neither `form` nor `url` is present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// Present when the client takes URL mode (`mode: "url"`: the user is sent to a web page out of band).
    /// 2025-11-25+; absent means no.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
}

impl ElicitationCapability {
    /// Whether form-mode requests may be sent: `form` is declared, or no mode is (the bare `{}` shape).
    pub fn supports_form(&self) -> bool {
        self.form.is_some() || self.url.is_none()
    }

    /// Whether URL-mode requests may be sent: only when `url` is declared.
    pub fn supports_url(&self) -> bool {
        self.url.is_some()
    }
}

/// What the server offers: in the `initialize` result (legacy) or the `server/discover` result (modern).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCapabilities {
    /// Non-standard capabilities, keyed by name (both eras). Absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Present when the server may send log messages (`notifications/message`). Legacy clients pick the level
    /// with `logging/setLevel`; modern ones per request with `_meta` `io.modelcontextprotocol/logLevel`.
    /// Deprecated in the modern era.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// Present when the server answers `completion/complete` (argument autocompletion). Since 2025-03-26.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// Present when the server offers prompts (`prompts/list`, `prompts/get`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// Present when the server offers resources (`resources/list`, `resources/read`,
    /// `resources/templates/list`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Present when the server offers tools (`tools/list`, `tools/call`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListChangedCapability>,
    /// 2025-11-25 tasks (experimental, legacy only; `{list?, cancel?, requests?: {tools?: {call?}}}`), kept
    /// opaque like the client's. The spec's own `initialize` example carries it, so without the field a legacy
    /// server could not state it and a round trip would drop it. Modern servers use `extensions` instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<JsonObject>,
    /// Extensions the server supports, keyed by identifier, e.g. `{"io.modelcontextprotocol/tasks": {}}`.
    /// Modern era; absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
}

/// The server's `prompts` or `tools` capability: the feature is offered, and whether changes are announced.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListChangedCapability {
    /// `listChanged` on the wire: whether the server sends `notifications/prompts/list_changed` (or
    /// `notifications/tools/list_changed`) when that list changes; modern servers send it only on
    /// `subscriptions/listen` streams that ask for it. Absent means no.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The server's `resources` capability: resources are offered, and which change notices clients can get.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// Whether clients can follow single resources and get `notifications/resources/updated`: legacy via
    /// `resources/subscribe`, modern via `resourceSubscriptions` in `subscriptions/listen`. Absent means no.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// `listChanged` on the wire: whether the server sends `notifications/resources/list_changed` when its
    /// resource list changes. Absent means no.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

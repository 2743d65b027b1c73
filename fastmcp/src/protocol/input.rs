//! What only the client has: elicitation, sampling and roots — as embedded input requests (modern MRTR) and
//! as server-to-client requests (legacy).

use super::{ContentBlock, JsonObject, Role, Tool};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::collections::BTreeMap;

pub const METHOD_ELICIT: &str = "elicitation/create";
pub const METHOD_CREATE_MESSAGE: &str = "sampling/createMessage";
pub const METHOD_LIST_ROOTS: &str = "roots/list";

/// One request for client input: `{method, params}` without `jsonrpc` or `id`.
#[derive(Debug, Clone, PartialEq)]
pub enum InputRequest {
    Elicit(ElicitParams),
    CreateMessage(CreateMessageParams),
    ListRoots,
}

impl InputRequest {
    pub fn method(&self) -> &'static str {
        match self {
            Self::Elicit(_) => METHOD_ELICIT,
            Self::CreateMessage(_) => METHOD_CREATE_MESSAGE,
            Self::ListRoots => METHOD_LIST_ROOTS,
        }
    }
}

/// The wire shape, read: `method` first decides what `params` are.
#[derive(Deserialize)]
struct RawInputRequest {
    method: String,
    #[serde(default)]
    params: Option<Value>,
}

/// The wire shape, written straight from the params: through a `Value` each request cost ~13k instructions
/// of the ~48k of a seal in the `deploy` profile.
#[derive(Serialize)]
struct WireInputRequest<'a, P: Serialize> {
    method: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a P>,
}

impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let method = self.method();
        match self {
            Self::Elicit(p) => WireInputRequest { method, params: Some(p) }.serialize(s),
            Self::CreateMessage(p) => WireInputRequest { method, params: Some(p) }.serialize(s),
            Self::ListRoots => WireInputRequest::<()> { method, params: None }.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let RawInputRequest { method, params } = RawInputRequest::deserialize(d)?;
        let params = || params.ok_or_else(|| D::Error::missing_field("params"));
        match method.as_str() {
            METHOD_ELICIT => serde_json::from_value(params()?).map(Self::Elicit).map_err(D::Error::custom),
            METHOD_CREATE_MESSAGE => {
                serde_json::from_value(params()?).map(Self::CreateMessage).map_err(D::Error::custom)
            }
            METHOD_LIST_ROOTS => Ok(Self::ListRoots),
            other => Err(D::Error::custom(format!("unknown input request method `{other}`"))),
        }
    }
}

/// Keyed input requests of one round. Ordered, so the wire is deterministic.
pub type InputRequests = BTreeMap<String, InputRequest>;
/// Keyed answers. Raw, since only the asker knows which result type each key holds.
pub type InputResponses = BTreeMap<String, Value>;

/// `resultType: "input_required"`: the round ends here; the client answers and retries.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitMode {
    Form,
    Url,
}

/// `elicitation/create` params, form or URL mode (missing `mode` means form).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ElicitMode>,
    pub message: String,
    /// Form mode: a flat object schema of primitive properties.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<JsonObject>,
    /// URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// URL mode on the 2025-11-25 wire only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    Accept,
    Decline,
    Cancel,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    pub action: ElicitAction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
    /// Legacy only: as a JSON-RPC result (2025-11-25 `ElicitResult extends Result`) it may carry `_meta`. Kept
    /// so nothing the client sent is lost; modern input responses are bare objects without it.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ElicitResult {
    /// The user answered the form with `content` (its fields).
    pub fn accept(content: JsonObject) -> Self {
        Self { action: ElicitAction::Accept, content: Some(content), meta: None }
    }

    pub fn decline() -> Self {
        Self { action: ElicitAction::Decline, content: None, meta: None }
    }

    pub fn cancel() -> Self {
        Self { action: ElicitAction::Cancel, content: None, meta: None }
    }
}

/// `sampling/createMessage` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageParams {
    pub messages: Vec<SamplingMessage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    pub max_tokens: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    None,
    ThisServer,
    AllServers,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolChoice {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    pub role: Role,
    pub content: SamplingContent,
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// One block or several (2025-11-25+ allows arrays).
///
/// `One` is unboxed although a block is far bigger than a `Vec`: it mirrors the wire's `block | block[]`, and a
/// message holds exactly one of these, so the size difference costs nothing worth an indirection.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SamplingContent {
    One(SamplingBlock),
    Many(Vec<SamplingBlock>),
}

/// A sampling content block: the plain content kinds plus tool use and tool results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SamplingBlock {
    Tool(ToolBlock),
    Content(ContentBlock),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolBlock {
    ToolUse {
        id: String,
        name: String,
        input: JsonObject,
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    #[serde(rename_all = "camelCase")]
    ToolResult {
        tool_use_id: String,
        content: Vec<ContentBlock>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        structured_content: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        is_error: Option<bool>,
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    pub role: Role,
    pub content: SamplingContent,
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CreateMessageResult {
    /// The assistant's text from `model`, which ended its turn.
    pub fn text(model: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: SamplingContent::One(SamplingBlock::Content(ContentBlock::text(text))),
            model: model.into(),
            stop_reason: Some("endTurn".into()),
            meta: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    pub roots: Vec<Root>,
    /// Legacy only, as on [`ElicitResult`]: 2025-11-25 `ListRootsResult extends Result`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Root {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Each kind is written as the wire's `{method, params}` (no `params` for roots) and reads back the same.
    #[test]
    fn input_requests_are_written_as_the_wire_has_them() {
        let elicit = json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Deploy?",
            "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}}}});
        let sample = json!({"method": "sampling/createMessage", "params": {"messages": [{"role": "user",
            "content": {"type": "text", "text": "notes"}}], "maxTokens": 200, "temperature": 0.5}});
        let roots = json!({"method": "roots/list"});
        let wire = json!({"a": elicit, "b": sample, "c": roots});
        let asked: InputRequests = serde_json::from_value(wire.clone()).unwrap();
        assert!(matches!(asked["c"], InputRequest::ListRoots));
        let written = serde_json::to_string(&asked).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&written).unwrap(), wire);
        assert_eq!(serde_json::from_str::<InputRequests>(&written).unwrap(), asked);
    }

    #[test]
    fn an_input_request_without_its_params_or_of_an_unknown_method_is_refused() {
        let missing = serde_json::from_value::<InputRequest>(json!({"method": "elicitation/create"}));
        assert!(missing.unwrap_err().to_string().contains("missing field `params`"));
        let unknown = serde_json::from_value::<InputRequest>(json!({"method": "tools/call", "params": {}}));
        assert!(unknown.unwrap_err().to_string().contains("unknown input request method `tools/call`"));
    }
}

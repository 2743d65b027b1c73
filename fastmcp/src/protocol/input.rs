//! What only the client has: elicitation, sampling and roots — as embedded input requests (modern MRTR) and
//! as server-to-client requests (legacy).

use super::tagged::{self, Tagged};
use super::{ContentBlock, JsonObject, Role, Tool};
use serde::de::{Error as _, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Bound;
use std::sync::Arc;

/// `elicitation/create`: ask the user for input, through a form or (2025-11-25+) a URL. A server-to-client request
/// in legacy; in modern only an embedded input request.
pub const METHOD_ELICIT: &str = "elicitation/create";
/// `sampling/createMessage`: have the client's LLM write a message. A server-to-client request in legacy; in modern
/// only an embedded input request. Deprecated as of 2026-07-28 (SEP-2577), still functional.
pub const METHOD_CREATE_MESSAGE: &str = "sampling/createMessage";
/// `roots/list`: ask the client for its roots. A server-to-client request in legacy; in modern only an embedded input
/// request. Deprecated as of 2026-07-28 (SEP-2577), still functional.
pub const METHOD_LIST_ROOTS: &str = "roots/list";

/// One request for client input: `{method, params}` without `jsonrpc` or `id`. The params are boxed, so a
/// round's [`InputRequests`] map stays small (unboxed, each entry was 288 bytes and the map's first node
/// 3.4 KB, past glibc's per-thread cache, for every round that asks).
#[derive(Debug, Clone, PartialEq)]
pub enum InputRequest {
    /// `elicitation/create`: ask the user, through a form or a URL.
    Elicit(Box<ElicitParams>),
    /// `sampling/createMessage`: have the client's model write a message.
    CreateMessage(Box<CreateMessageParams>),
    /// `roots/list`: written without `params`; any `params` read are ignored.
    ListRoots,
}

impl From<ElicitParams> for InputRequest {
    fn from(params: ElicitParams) -> Self {
        Self::Elicit(Box::new(params))
    }
}

impl From<CreateMessageParams> for InputRequest {
    fn from(params: CreateMessageParams) -> Self {
        Self::CreateMessage(Box::new(params))
    }
}

impl InputRequest {
    /// The request's `method` on the wire.
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
/// The client's answers of one round, under the keys its input requests were asked with. Each answer stays
/// the JSON text the client sent: only the asker knows which result type a key holds, and it reads the text
/// straight into that type ([`read`](Self::read)), with no `Value` tree built in between.
///
/// Being raw text, it deserializes with serde_json's own deserializers (`from_str`, `from_slice`,
/// `from_value`, `from_reader`), and not through serde's internal buffer: not inside an untagged or internally
/// tagged enum, nor a struct with a `#[serde(flatten)]` field.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct InputResponses(BTreeMap<String, Box<RawValue>>);

impl InputResponses {
    /// No answers.
    pub fn new() -> Self {
        Self::default()
    }

    /// The answer under `key`, as the client's JSON text.
    pub fn get(&self, key: &str) -> Option<&RawValue> {
        self.0.get(key).map(|raw| &**raw)
    }

    /// The answer under `key` read as `T`; `None` when there is none.
    pub fn read<'a, T: Deserialize<'a>>(&'a self, key: &str) -> Option<serde_json::Result<T>> {
        self.0.get(key).map(|raw| serde_json::from_str(raw.get()))
    }

    /// Sets the answer under `key` to this JSON text, returning the one it replaces.
    pub fn insert(&mut self, key: impl Into<String>, answer: Box<RawValue>) -> Option<Box<RawValue>> {
        self.0.insert(key.into(), answer)
    }

    /// Sets the answer under `key` to `answer` serialized (an `ElicitResult`, a `CreateMessageResult`, a
    /// `serde_json::Value`, …). Fails only where serde_json does: a map whose keys are not strings.
    pub fn insert_value<T: Serialize + ?Sized>(
        &mut self,
        key: impl Into<String>,
        answer: &T,
    ) -> serde_json::Result<()> {
        self.0.insert(key.into(), serde_json::value::to_raw_value(answer)?);
        Ok(())
    }

    /// Takes out the answer under `key`.
    pub fn remove(&mut self, key: &str) -> Option<Box<RawValue>> {
        self.0.remove(key)
    }

    /// Whether there is an answer under `key`.
    pub fn contains_key(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    /// The answers with their keys, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &RawValue)> {
        self.0.iter().map(|(key, raw)| (key.as_str(), &**raw))
    }

    /// The answers whose keys start with `prefix`, in key order.
    pub fn with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a str, &'a RawValue)> {
        self.0
            .range::<str, _>((Bound::Included(prefix), Bound::Unbounded))
            .take_while(move |(key, _)| key.starts_with(prefix))
            .map(|(key, raw)| (key.as_str(), &**raw))
    }

    /// How many answers there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Equal when they hold the same keys with the same JSON texts (byte for byte: `{"a":1}` is not `{ "a": 1 }`).
impl PartialEq for InputResponses {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|((k, a), (l, b))| k == l && a.get() == b.get())
    }
}

impl FromIterator<(String, Box<RawValue>)> for InputResponses {
    fn from_iter<I: IntoIterator<Item = (String, Box<RawValue>)>>(answers: I) -> Self {
        Self(answers.into_iter().collect())
    }
}

impl IntoIterator for InputResponses {
    type Item = (String, Box<RawValue>);
    type IntoIter = std::collections::btree_map::IntoIter<String, Box<RawValue>>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// `resultType: "input_required"`: the round ends here; the client answers and retries.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// `inputRequests` on the wire: what the client must fulfil before it retries, under server-chosen keys its
    /// `inputResponses` repeat. Absent in a state-only round (load shedding), where the client may retry at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// `requestState` on the wire: opaque state the client must echo byte-exact on the retry (and must not invent when
    /// absent). The spec requires at least one of the two fields; this type does not enforce it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

/// How an elicitation asks (`mode` on the wire; 2025-11-25+, before which every elicitation was a form).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitMode {
    /// `"form"`: the client renders a form from `requestedSchema` and returns what the user entered. Must not be used
    /// to ask for secrets (passwords, API keys, tokens, payment details); URL mode is for those.
    Form,
    /// `"url"`: the client sends the user to `url` for an out-of-band interaction; accepting only means consent. Only
    /// for clients declaring the `elicitation.url` capability.
    Url,
}

/// `elicitation/create` params, form or URL mode (missing `mode` means form).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitParams {
    /// `mode` on the wire; absent means form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ElicitMode>,
    /// What the user is told: why the input is needed and what it is for.
    pub message: String,
    /// Form mode: a flat object schema of primitive properties. Shared: an `#[elicit]` form's asks all hold
    /// its one schema ([`ElicitForm::shared_schema`](crate::flow::ElicitForm::shared_schema)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Arc<JsonObject>>,
    /// URL mode (required there): the page the user should open; absent in form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// URL mode on the 2025-11-25 wire only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
}

/// What the user did with an elicitation (`action` on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// `"accept"`: the user submitted the form (the values are in `content`) or, in URL mode, consented to go on.
    Accept,
    /// `"decline"`: the user explicitly declined.
    Decline,
    /// `"cancel"`: the user dismissed the request without an explicit choice.
    Cancel,
}

/// The answer to `elicitation/create`: a legacy JSON-RPC result, or a modern input response value. Declining or
/// cancelling is the only negative answer an embedded request has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// The user's choice; only an accepted form carries `content`.
    pub action: ElicitAction,
    /// The submitted form values (strings, numbers, booleans or string arrays, keyed by the schema's properties):
    /// present only when a form-mode request was accepted.
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

    /// The user declined: `action: "decline"`, no content.
    pub fn decline() -> Self {
        Self { action: ElicitAction::Decline, content: None, meta: None }
    }

    /// The user dismissed the request: `action: "cancel"`, no content.
    pub fn cancel() -> Self {
        Self { action: ElicitAction::Cancel, content: None, meta: None }
    }
}

/// `sampling/createMessage` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageParams {
    /// The conversation for the model to continue, in order.
    pub messages: Vec<SamplingMessage>,
    /// `modelPreferences` on the wire: advisory hints for the client's choice of model, which it may ignore; absent
    /// means no preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// `systemPrompt` on the wire: a system prompt the server asks for; the client may modify or omit it. Absent means
    /// none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// `includeContext` on the wire: which servers' context to attach to the prompt; absent means `none`. The other
    /// values are deprecated (2025-11-25) and meant only for clients declaring `sampling.context`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Sampling temperature; absent leaves it to the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// `maxTokens` on the wire (required): the most tokens to sample, against runaway completions. The client may
    /// sample fewer.
    pub max_tokens: u32,
    /// `stopSequences` on the wire: sequences at which sampling should stop; absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata for the client to pass through to its LLM provider; absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Tools the model may call while generating (2025-11-25+). Only for clients declaring `sampling.tools`; others
    /// must return an error. Absent means no tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// `toolChoice` on the wire (2025-11-25+): how the model may use `tools`; absent means `{"mode": "auto"}`. Also
    /// needs `sampling.tools`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
}

/// Which MCP servers' context the client should attach to a sampling prompt (`includeContext` on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    /// `"none"`: no extra context. The default, and the only value not deprecated.
    None,
    /// `"thisServer"`: context from the requesting server. Deprecated since 2025-11-25.
    ThisServer,
    /// `"allServers"`: context from every server the client is connected to. Deprecated since 2025-11-25.
    AllServers,
}

/// The server's model-selection preferences for sampling (`modelPreferences`). All advisory: the client decides
/// how to interpret and weigh them. Priorities run from `0` (unimportant) to `1` (most important).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Model-name hints, to be evaluated in order (first match wins) and preferred over the numeric priorities; absent
    /// means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// `costPriority` on the wire, 0–1: how much a cheap model matters; absent means unspecified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// `speedPriority` on the wire, 0–1: how much low latency matters; absent means unspecified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// `intelligencePriority` on the wire, 0–1: how much capability matters; absent means unspecified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

/// A hint toward a model, one entry of `hints`. Other keys are left to clients by the spec; they are dropped here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A substring of a model name (`sonnet` matches `claude-3-5-sonnet-20241022`); the client may map it to a similar
    /// model of another provider. Absent means no name hint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// How a sampled model may use the request's `tools` (`toolChoice` on the wire; 2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// `"auto"` (the model decides; also what absent means), `"required"` (it must use a tool before completing) or
    /// `"none"` (it must not use tools). A plain string, not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
}

/// One message of a sampling conversation, to or from the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who wrote it: the user, or the model as assistant.
    pub role: Role,
    /// One block, or (2025-11-25+) several.
    pub content: SamplingContent,
    /// `_meta` on the wire: free-form metadata, passed through untouched; absent means none.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// One block or several (2025-11-25+ allows arrays).
///
/// `One` is unboxed although a block is far bigger than a `Vec`: it mirrors the wire's `block | block[]`, and a
/// message holds exactly one of these, so the size difference costs nothing worth an indirection.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SamplingContent {
    /// A single block: `content` is an object.
    One(SamplingBlock),
    /// Several blocks: `content` is an array (2025-11-25+).
    Many(Vec<SamplingBlock>),
}

/// A sampling content block: the plain content kinds plus tool use and tool results.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SamplingBlock {
    /// `tool_use` or `tool_result` (2025-11-25+).
    Tool(ToolBlock),
    /// Any other content block. The schema allows only text, image and audio here; resource blocks are read too.
    Content(ContentBlock),
}

// Both read by shape rather than `untagged`, which buffers the content again for each variant it tries and
// builds an error for each that fails (a sampling answer's text block failed `ToolBlock` first, every round);
// a malformed block is also told by its own error, not "did not match any variant".
impl<'de> Deserialize<'de> for SamplingContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Blocks;
        impl<'de> Visitor<'de> for Blocks {
            type Value = SamplingContent;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a sampling content block or an array of them")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<SamplingContent, A::Error> {
                tagged::from_map(map).map(SamplingContent::One)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SamplingContent, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(16));
                while let Some(block) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(SamplingContent::Many(blocks))
            }
        }
        d.deserialize_any(Blocks)
    }
}

impl<'de> Deserialize<'de> for SamplingBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        tagged::deserialize(d)
    }
}

impl Tagged for SamplingBlock {
    const EXPECTING: &'static str = "a sampling content block";

    /// By the block's `type`: one of the tool kinds, or else a content block.
    fn of_kind<'de, D: Deserializer<'de>>(kind: &str, fields: D) -> Result<Self, D::Error> {
        match kind {
            // Rare, and read as before: through a value, the tag put back for `ToolBlock`'s own reading.
            "tool_use" | "tool_result" => {
                let mut fields = JsonObject::deserialize(fields)?;
                fields.insert("type".to_owned(), Value::String(kind.to_owned()));
                ToolBlock::deserialize(Value::Object(fields)).map(Self::Tool).map_err(D::Error::custom)
            }
            _ => ContentBlock::of_kind(kind, fields).map(Self::Content),
        }
    }
}

/// The sampling-only blocks (2025-11-25+): a model's tool call and the result fed back to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolBlock {
    /// `type: "tool_use"`: the model asks to call one of the request's `tools`.
    ToolUse {
        /// Identifies this call; the `tool_result` answering it repeats it as `toolUseId`.
        id: String,
        /// The tool to call.
        name: String,
        /// The arguments, conforming to the tool's input schema.
        input: JsonObject,
        /// `_meta` on the wire: clients should keep it when they send the tool use back in later requests (it enables
        /// caching); absent means none.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    /// `type: "tool_result"`: a tool's result, given back to the model.
    #[serde(rename_all = "camelCase")]
    ToolResult {
        /// `toolUseId` on the wire: the `id` of the `tool_use` this answers.
        tool_use_id: String,
        /// The unstructured result, in the same blocks as a `tools/call` result's `content`.
        content: Vec<ContentBlock>,
        /// `structuredContent` on the wire: any JSON value, conforming to the tool's output schema if it has one;
        /// absent means none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        structured_content: Option<Value>,
        /// `isError` on the wire: whether the tool use failed (then `content` describes the error); absent means
        /// `false`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        is_error: Option<bool>,
        /// `_meta` on the wire: clients should keep it when they send the result back in later requests (it enables
        /// caching); absent means none.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
}

/// The answer to `sampling/createMessage`: the sampled message, the model that wrote it and why it stopped. A legacy
/// JSON-RPC result, or a modern input response value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who wrote the message; the model's answer is `Assistant`.
    pub role: Role,
    /// The sampled content: one block or several (`tool_use` blocks when the model wants tools called).
    pub content: SamplingContent,
    /// The name of the model that generated the message.
    pub model: String,
    /// `stopReason` on the wire, if known: `"endTurn"`, `"stopSequence"`, `"maxTokens"`, `"toolUse"`, or any
    /// provider-specific string. Absent means unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// `_meta` on the wire: free-form metadata, passed through untouched; absent means none.
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

/// The answer to `roots/list`: a legacy JSON-RPC result, or a modern input response value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The directories and files the client lets the server operate on.
    pub roots: Vec<Root>,
    /// Legacy only, as on [`ElicitResult`]: 2025-11-25 `ListRootsResult extends Result`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A directory or file the client lets the server operate on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// The root's URI; for now it must be a `file://` URI (not checked here).
    pub uri: String,
    /// A human-readable name, for display or to refer to the root; absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `_meta` on the wire: free-form metadata, passed through untouched; absent means none.
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

    /// Content is one block or an array of them; a block is a tool kind by its `type`, else a content block
    /// (resource blocks read too). Each reads from text and from a `Value` alike, and writes back unchanged.
    #[test]
    fn sampling_content_is_read_by_its_shape_and_type() {
        let text = json!({"type": "text", "text": "notes"});
        let tool_use = json!({"type": "tool_use", "id": "u1", "name": "add", "input": {"a": 1}});
        let tool_result = json!({"type": "tool_result", "toolUseId": "u1", "content": [text.clone()]});
        let link = json!({"type": "resource_link", "uri": "file:///a", "name": "a"});
        for (wire, shape) in [
            (text.clone(), "one content block"),
            (tool_use.clone(), "one tool block"),
            (json!([tool_use, tool_result, text, link]), "several"),
        ] {
            let read: SamplingContent = serde_json::from_value(wire.clone()).unwrap();
            let from_text: SamplingContent = serde_json::from_str(&wire.to_string()).unwrap();
            assert_eq!(read, from_text, "{shape}");
            assert_eq!(serde_json::to_value(&read).unwrap(), wire, "{shape}");
        }
        let one: SamplingContent = serde_json::from_value(json!({"type": "text", "text": "x"})).unwrap();
        assert!(matches!(one, SamplingContent::One(SamplingBlock::Content(ContentBlock::Text { .. }))));
        let many: SamplingContent = serde_json::from_value(json!([{"type": "tool_use", "id": "u", "name": "n",
            "input": {}}]))
        .unwrap();
        assert!(matches!(&many, SamplingContent::Many(blocks) if matches!(blocks[..], [SamplingBlock::Tool(_)])));
    }

    /// A malformed block is refused with what is wrong with it, at any depth.
    #[test]
    fn a_malformed_sampling_block_says_what_is_wrong() {
        let no_id = json!({"type": "tool_use", "name": "add", "input": {}});
        let e = serde_json::from_value::<SamplingContent>(no_id.clone()).unwrap_err().to_string();
        assert!(e.contains("missing field `id`"), "{e}");
        let e = serde_json::from_value::<SamplingContent>(json!([{"type": "text", "text": "a"}, no_id])).unwrap_err();
        assert!(e.to_string().contains("missing field `id`"), "{e}");
        let e = serde_json::from_str::<SamplingContent>(r#"{"type": "video"}"#).unwrap_err().to_string();
        assert!(e.contains("unknown variant `video`"), "{e}");
        assert!(serde_json::from_str::<SamplingContent>("7").is_err(), "not a block");
        let answer = json!({"role": "assistant", "content": {"type": "text"}, "model": "m"});
        let e = serde_json::from_value::<CreateMessageResult>(answer).unwrap_err().to_string();
        assert!(e.contains("missing field `text`"), "{e}");
    }

    #[test]
    fn an_input_request_without_its_params_or_of_an_unknown_method_is_refused() {
        let missing = serde_json::from_value::<InputRequest>(json!({"method": "elicitation/create"}));
        assert!(missing.unwrap_err().to_string().contains("missing field `params`"));
        let unknown = serde_json::from_value::<InputRequest>(json!({"method": "tools/call", "params": {}}));
        assert!(unknown.unwrap_err().to_string().contains("unknown input request method `tools/call`"));
    }

    #[test]
    fn input_responses_keep_each_answer_as_its_text() {
        let text =
            r#"{"b/x":{"action":"accept","content":{"go":true}},"a":{ "roots": [] },"b/y":{"action":"decline"}}"#;
        let responses: InputResponses = serde_json::from_str(text).unwrap();
        assert_eq!(responses.keys().collect::<Vec<_>>(), ["a", "b/x", "b/y"]);
        // As the client wrote it, spaces and all.
        assert_eq!(responses.get("a").unwrap().get(), r#"{ "roots": [] }"#);
        let accepted: ElicitResult = responses.read("b/x").unwrap().unwrap();
        assert_eq!(accepted.action, ElicitAction::Accept);
        assert!(responses.read::<ElicitResult>("a").unwrap().is_err(), "roots are not an elicitation's answer");
        assert!(responses.read::<ElicitResult>("c").is_none());
        let under_b: Vec<_> = responses.with_prefix("b/").map(|(key, _)| key).collect();
        assert_eq!(under_b, ["b/x", "b/y"]);

        // Written back as read, and `from_value` reads it too (as compact text: a `Value` keeps no spacing).
        let written =
            r#"{"a":{ "roots": [] },"b/x":{"action":"accept","content":{"go":true}},"b/y":{"action":"decline"}}"#;
        assert_eq!(serde_json::to_string(&responses).unwrap(), written);
        let again: InputResponses = serde_json::from_value(serde_json::to_value(&responses).unwrap()).unwrap();
        assert_eq!(again.get("a").unwrap().get(), r#"{"roots":[]}"#);
        assert_eq!(serde_json::to_value(&again).unwrap(), serde_json::to_value(&responses).unwrap());

        let mut built = InputResponses::new();
        built.insert_value("a", &json!({"roots": []})).unwrap();
        assert_ne!(built, responses);
        built.insert("a", RawValue::from_string(r#"{ "roots": [] }"#.into()).unwrap());
        built.insert_value("b/x", &json!({"action": "accept", "content": {"go": true}})).unwrap();
        built.insert_value("b/y", &ElicitResult::decline()).unwrap();
        assert_eq!(built, responses, "same keys, same texts");
        assert_eq!(built.remove("b/y").map(|raw| raw.get().to_owned()).as_deref(), Some(r#"{"action":"decline"}"#));
        assert_eq!(built.len(), 2);
    }
}

//! `prompts/*`: listing prompt templates and getting one filled in as messages.

use super::{ContentBlock, Icon, InputResponses, JsonObject, Role};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A prompt or prompt template the server offers, as `prompts/list` describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// The prompt's programmatic name, unique within the server; what `prompts/get` names and `Mcp-Name`
    /// mirrors. The display name too when `title` is absent.
    pub name: String,
    /// A human-readable display name (2025-06-18 on); absent means display `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt provides; optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments `prompts/get` can fill the template with; absent when it takes none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Sized icons a client may display (2025-11-25 on); optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Free-form metadata (`_meta` on the wire); optional.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// One argument a prompt accepts. Argument values are always strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgument {
    /// The argument's name: its key in `prompts/get`'s `arguments` and in `completion/complete`.
    pub name: String,
    /// A human-readable display name (2025-06-18 on); absent means display `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the argument means; optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether `prompts/get` must supply it; absent means optional. A missing required argument is `-32602`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

/// The `prompts/list` result: one page of prompts. On the modern wire the server adds `resultType`, `ttlMs`
/// and `cacheScope` around these fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPromptsResult {
    /// This page's prompts.
    pub prompts: Vec<Prompt>,
    /// The opaque cursor for the next page (`nextCursor` on the wire); absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// `prompts/get` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptParams {
    /// The prompt to get, as `prompts/list` names it; an unknown name is `-32602`.
    pub name: String,
    /// Values for the prompt's arguments, by argument name; all strings. Absent means none given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Modern only (`inputResponses` on the wire): on a retry after an `input_required` result, the client's
    /// answers to its `inputRequests`, by key; absent on a first request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// Modern only (`requestState` on the wire): the opaque state an `input_required` result carried, echoed
    /// byte for byte on the retry; absent when there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Request metadata (`_meta` on the wire): the per-request envelope on a modern request (required there),
    /// and optionally a `progressToken` on a legacy one.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The `prompts/get` result: the prompt filled in. On the modern wire the server adds `resultType` (and a get
/// may instead end `input_required`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetPromptResult {
    /// A description of the prompt as filled in; optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The conversation the prompt expands to, in order.
    pub messages: Vec<PromptMessage>,
}

/// One message of a filled-in prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who says it: `"user"` or `"assistant"`.
    pub role: Role,
    /// What is said: one content block (text, image, audio, resource link or embedded resource).
    pub content: ContentBlock,
}

impl PromptMessage {
    /// A message from the user.
    pub fn user(content: impl Into<ContentBlock>) -> Self {
        Self { role: Role::User, content: content.into() }
    }

    /// A message from the assistant.
    pub fn assistant(content: impl Into<ContentBlock>) -> Self {
        Self { role: Role::Assistant, content: content.into() }
    }
}

impl From<String> for ContentBlock {
    fn from(text: String) -> Self {
        ContentBlock::text(text)
    }
}

impl From<&str> for ContentBlock {
    fn from(text: &str) -> Self {
        ContentBlock::text(text)
    }
}

//! `tools/list` and `tools/call`.

use super::{ContentBlock, Icon, InputResponses, JsonObject};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

/// A tool as `tools/list` describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// The tool's programmatic name, unique within the server; what `tools/call` names and `Mcp-Name` mirrors.
    /// Case-sensitive; a fastmcp server rejects one that is not 1–128 characters of `[A-Za-z0-9_.-]`.
    pub name: String,
    /// A human-readable display name (2025-06-18 on). Clients display `title`, then `annotations.title`, then
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, a hint to the model; optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Sized icons a client may display (2025-11-25 on); optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// The JSON Schema (`inputSchema` on the wire) that `tools/call`'s `arguments` must match; required, with
    /// `"type": "object"` at the root, dialect 2020-12 unless `$schema` says otherwise. Modern property
    /// schemas may carry `x-mcp-header` to mirror an argument into an `Mcp-Param-*` header.
    pub input_schema: JsonObject,
    /// The JSON Schema (`outputSchema` on the wire, 2025-06-18 on) that `structuredContent` matches; absent
    /// when the tool returns no structured result. Legacy revisions need an object root; fastmcp wraps any
    /// other as `{"result": …}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Behaviour hints (2025-03-26 on); optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// 2025-11-25 task support; opaque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<JsonObject>,
    /// Free-form metadata (`_meta` on the wire); optional.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Hints about a tool's behaviour. Untrusted from the client's view; ours to state honestly.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A human-readable title, displayed when the tool has no top-level `title`; optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `readOnlyHint`: `true` if the tool does not modify its environment. Absent means `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// `destructiveHint`: `true` if the tool may destroy or overwrite, `false` if it only adds; meaningful only
    /// when not read-only. Absent means `true`. fastmcp serves a tool marked `true` as a one-time flow: its
    /// final round's `requestState` is accepted once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// `idempotentHint`: `true` if repeating a call with the same arguments has no further effect; meaningful
    /// only when not read-only. Absent means `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// `openWorldHint`: `true` if the tool reaches an open world of external entities (web search), `false`
    /// if its domain is closed (a memory store). Absent means `true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// Paginated list params, shared by every `*/list` method.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedParams {
    /// The opaque `nextCursor` of the previous page; absent (or, to fastmcp, `""`) asks for the first page. A
    /// cursor that names no page is `-32602`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Request `_meta`: every modern list request carries its envelope here (the spec's
    /// `PaginatedRequestParams` example does), and legacy ones may carry a `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The `tools/list` result: one page of tools. On the modern wire the server adds `resultType`, `ttlMs` and
/// `cacheScope` around these fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// This page's tools.
    pub tools: Vec<Tool>,
    /// The opaque cursor for the next page (`nextCursor` on the wire); absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// `tools/call` params. `arguments` stay raw so they deserialize once, straight into the tool's own type.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolParams {
    /// The tool to call, as `tools/list` names it; an unknown name is `-32602`.
    pub name: String,
    /// The arguments, a JSON object matching the tool's `inputSchema`; absent means none. Anything but an
    /// object is `-32602`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Box<RawValue>>,
    /// Modern only (`inputResponses` on the wire): on a retry after an `input_required` result, the client's
    /// answers to its `inputRequests`, by key; absent on a first request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// Modern only (`requestState` on the wire): the opaque state an `input_required` result carried, echoed
    /// byte for byte on the retry; absent when there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// 2025-11-25 task augmentation; opaque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<JsonObject>,
    /// Request metadata (`_meta` on the wire): the per-request envelope on a modern request (required there),
    /// and optionally a `progressToken` on a legacy one.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The `tools/call` result. On the modern wire the server adds `resultType` (and a call may instead end
/// `input_required`, or become a task).
///
/// The structured result and `_meta` are boxed: a result is moved out through every layer between the
/// handler and the response (the handler's future, the request's scope, the panic guard, dispatch), and
/// with the two inline it was 176 bytes, copied by `memcpy` at each move. Boxed, it is 48, and most results
/// have neither. Compare them with `as_deref()`: `result.structured_content.as_deref() == Some(&value)`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// The unstructured result, content blocks the model reads. A tool with structured output should also put
    /// it here as serialized JSON text, for clients that ignore `structuredContent`.
    pub content: Vec<ContentBlock>,
    /// The structured result (`structuredContent` on the wire, 2025-06-18 on), matching the tool's
    /// `outputSchema`; absent when the tool has none. Legacy revisions need an object; modern allows any JSON
    /// value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Box<Value>>,
    /// `isError`: `true` when the tool itself failed (including invalid input), so the model can see the error
    /// in `content` and retry. Absent means `false`. Failing to find the tool is a JSON-RPC error instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Free-form metadata (`_meta` on the wire); optional. On the modern wire the server adds its
    /// `io.modelcontextprotocol/serverInfo` to it.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<JsonObject>>,
}

impl CallToolResult {
    /// A successful result holding one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self { content: vec![ContentBlock::text(text)], ..Self::default() }
    }

    /// A tool-level failure the model can read and act on (`isError: true`).
    pub fn error(message: impl Into<String>) -> Self {
        Self { content: vec![ContentBlock::text(message)], is_error: Some(true), ..Self::default() }
    }
}

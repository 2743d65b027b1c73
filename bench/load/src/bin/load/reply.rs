//! The answers the load reads: a JSON-RPC response (typed, only the fields the checks look at) from a JSON
//! body, an SSE stream's `data:` events, or a stdio line.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize)]
pub struct Reply {
    pub id: Option<Value>,
    pub result: Option<ResultBody>,
    pub error: Option<Value>,
}

impl Reply {
    /// The id as the load sends them (numbers).
    pub fn id(&self) -> Option<i64> {
        self.id.as_ref().and_then(Value::as_i64)
    }
}

/// A result of any of the methods the load calls: `initialize`, `tools/call` (complete or input required),
/// `tools/list`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultBody {
    pub result_type: Option<String>,
    #[serde(default)]
    pub content: Vec<Content>,
    pub is_error: Option<bool>,
    #[serde(default)]
    pub tools: Vec<Tool>,
    pub input_requests: Option<BTreeMap<String, InputRequest>>,
    pub request_state: Option<String>,
    /// `initialize`'s.
    pub protocol_version: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct Content {
    #[serde(rename = "type")]
    pub kind: String,
    pub text: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct Tool {
    pub name: String,
    /// Kept unparsed (the checks read only `add`'s), so that checking a list costs the client little.
    #[serde(rename = "inputSchema")]
    pub input_schema: Option<Box<serde_json::value::RawValue>>,
}

/// An embedded request of an `input_required` result.
#[derive(Debug, Deserialize)]
pub struct InputRequest {
    pub method: String,
    #[serde(default)]
    pub params: InputParams,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputParams {
    /// An elicitation's message.
    pub message: Option<String>,
    /// An elicitation's form.
    pub requested_schema: Option<Value>,
    /// A sampling request's conversation.
    #[serde(default)]
    pub messages: Vec<SamplingMessage>,
}

#[derive(Debug, Deserialize)]
pub struct SamplingMessage {
    pub role: String,
    /// One content block or an array of them.
    pub content: Value,
}

/// Parses one JSON-RPC response.
pub fn parse(json: &[u8]) -> Result<Reply, String> {
    serde_json::from_slice(json).map_err(|e| format!("not a JSON-RPC response ({e}): {}", excerpt(json)))
}

/// The response to request `id` in an HTTP answer: the JSON body, or the SSE `data:` event that carries it.
pub fn from_http(content_type: Option<&str>, body: &[u8], id: i64) -> Result<Reply, String> {
    let sse = content_type.is_some_and(|t| t.starts_with("text/event-stream"));
    if !sse {
        let reply = parse(body)?;
        return if reply.id() == Some(id) {
            Ok(reply)
        } else {
            Err(format!("a response to another id: {}", excerpt(body)))
        };
    }
    let text = std::str::from_utf8(body).map_err(|_| "SSE body is not UTF-8".to_owned())?;
    // Events are separated by a blank line; a message's data may span several `data:` lines.
    for event in text.split("\n\n") {
        let data: Vec<&str> =
            event.lines().filter_map(|l| l.strip_prefix("data:")).map(|d| d.strip_prefix(' ').unwrap_or(d)).collect();
        let data = data.join("\n");
        if data.trim().is_empty() {
            continue;
        }
        if let Ok(reply) = serde_json::from_str::<Reply>(&data)
            && reply.id() == Some(id)
        {
            return Ok(reply);
        }
    }
    Err(format!("no response to id {id} in the SSE stream: {}", excerpt(body)))
}

/// The start of a body, for error messages.
pub fn excerpt(body: &[u8]) -> String {
    const MAX: usize = 300;
    let text = String::from_utf8_lossy(&body[..body.len().min(MAX)]);
    if body.len() > MAX { format!("{text}…") } else { text.into_owned() }
}

//! The floors' request handling, shared by `bare_server` over HTTP and `bare_server --stdio`: what any
//! JSON-RPC server must do to answer the benchmark's modern (2026-07-28) requests, by hand, with no MCP
//! framework, so that `x / bare` says what a framework costs on top.
//!
//! Per message: serde_json parses it into a typed, borrowed request (`jsonrpc`, `id`, `method`, `params`;
//! `id` and `params` kept as raw JSON slices), checks `jsonrpc` is `"2.0"` and the id a string or number,
//! then by method:
//!
//! - `tools/call`: the params into a typed struct (`name`, `arguments` raw, `_meta`'s protocol version,
//!   which must be 2026-07-28), the name must be `add`, the arguments parse into `{a: i64, b: i64}`; the
//!   result (one text block, `resultType`, the server's info: fastmcp's shape) is serialized by serde_json;
//! - `tools/list`: the params' `_meta` version is checked the same way (no cursor: there is one page), and
//!   the result is the list serialized once at start (as fastmcp does), written after the id.
//!
//! Anything else gets a JSON-RPC error (-32700, -32600, -32601 or -32602). A notification (no id,
//! `notifications/…`) gets no answer. Left out on purpose, as framework work: HTTP header checks, a tool
//! registry and schemas built from code, the legacy era, sessions, SSE, MRTR.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::MODERN;

// JSON-RPC 2.0 error codes.
const PARSE_ERROR: i32 = -32700;
const INVALID_REQUEST: i32 = -32600;
const METHOD_NOT_FOUND: i32 = -32601;
const INVALID_PARAMS: i32 = -32602;

/// What became of a message, for the HTTP floor's status code (stdio writes the answer, if any, as a line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// An answer to a request (a result or a JSON-RPC error for its id): HTTP 200.
    Answered,
    /// Not a request one can answer by id (unparsable, no id, a wrong id type): HTTP 400, the error has
    /// `id: null`.
    Refused,
    /// A notification: nothing to send (HTTP 202).
    Notification,
}

/// The floor: its pre-serialized `tools/list` result and the server info it puts in results.
pub struct Floor {
    list: Box<RawValue>,
    name: &'static str,
}

impl Floor {
    /// The floor named `name` in its results' `serverInfo`. Its `tools/list` lists what fastmcp_server
    /// lists, in fastmcp's shape (`add` and `deploy`), so the list cell compares answers of the same size.
    pub fn new(name: &'static str) -> Self {
        let list = serde_json::json!({
            "tools": [
                {
                    "name": "add",
                    "description": "Add two integers.",
                    "inputSchema": {
                        "type": "object",
                        "properties": {
                            "a": {"type": "integer", "format": "int64", "description": "The first addend."},
                            "b": {"type": "integer", "format": "int64", "description": "The second addend."}
                        },
                        "required": ["a", "b"],
                        "$schema": "https://json-schema.org/draft/2020-12/schema"
                    },
                    "annotations": {"readOnlyHint": true, "idempotentHint": true}
                },
                {
                    "name": "deploy",
                    "description": "Deploy a service, asking the user first.",
                    "inputSchema": {
                        "type": "object",
                        "properties": {
                            "service": {"type": "string", "description": "The service to deploy."},
                            "replicas": {
                                "type": "integer", "format": "uint32", "minimum": 0,
                                "description": "How many replicas to run."
                            }
                        },
                        "required": ["service", "replicas"],
                        "$schema": "https://json-schema.org/draft/2020-12/schema"
                    },
                    "annotations": {"destructiveHint": true}
                }
            ],
            "resultType": "complete",
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": name, "version": "0.0.0"}}
        });
        let list = serde_json::value::to_raw_value(&list).expect("the list serializes");
        Self { list, name }
    }

    /// Answers one message, writing the answer's JSON (no newline) to `out`, which is cleared first (empty
    /// for a notification).
    pub fn answer(&self, message: &[u8], out: &mut Vec<u8>) -> Outcome {
        out.clear();
        let request: RpcRequest<'_> = match serde_json::from_slice(message) {
            Ok(request) => request,
            Err(e) => {
                // Valid JSON of the wrong shape is an invalid request; anything else does not parse.
                let code = if e.is_data() { INVALID_REQUEST } else { PARSE_ERROR };
                write_error(out, None, code, &e.to_string());
                return Outcome::Refused;
            }
        };
        let Some(id) = request.id else {
            if request.method.starts_with("notifications/") {
                return Outcome::Notification;
            }
            write_error(out, None, INVALID_REQUEST, "expected a request with an id");
            return Outcome::Refused;
        };
        // A request's id is a string or a number.
        if !id.get().starts_with(|c: char| c == '"' || c == '-' || c.is_ascii_digit()) {
            write_error(out, None, INVALID_REQUEST, "expected a string or number id");
            return Outcome::Refused;
        }
        let served = if request.jsonrpc != "2.0" {
            Err((INVALID_REQUEST, format!("unsupported jsonrpc version {:?}", request.jsonrpc)))
        } else {
            match &*request.method {
                "tools/call" => call(request.params).map(Reply::Text),
                "tools/list" => list(request.params).map(|()| Reply::List),
                other => Err((METHOD_NOT_FOUND, format!("Method not found: {other} (the floor serves tools/*)"))),
            }
        };
        match served {
            Ok(Reply::Text(text)) => {
                let result = RpcResult {
                    jsonrpc: "2.0",
                    id,
                    result: CallResult {
                        content: [TextContent { kind: "text", text }],
                        result_type: "complete",
                        meta: ResultMeta { server_info: ServerInfo { name: self.name, version: "0.0.0" } },
                    },
                };
                serde_json::to_writer(&mut *out, &result).expect("a result serializes");
            }
            Ok(Reply::List) => {
                let result = RpcResult { jsonrpc: "2.0", id, result: &*self.list };
                serde_json::to_writer(&mut *out, &result).expect("a result serializes");
            }
            Err((code, message)) => write_error(out, Some(id), code, &message),
        }
        Outcome::Answered
    }
}

enum Reply {
    /// `tools/call add`'s text.
    Text(String),
    /// The pre-serialized `tools/list` result.
    List,
}

type Refusal = (i32, String);

/// Serves `tools/call`: the tool's text.
fn call(params: Option<&RawValue>) -> Result<String, Refusal> {
    let params = params.ok_or((INVALID_PARAMS, "tools/call needs params".to_owned()))?;
    let params: CallParams<'_> =
        serde_json::from_str(params.get()).map_err(|e| (INVALID_PARAMS, format!("Invalid params: {e}")))?;
    check_version(params.meta.as_ref())?;
    if params.name != "add" {
        return Err((INVALID_PARAMS, format!("Unknown tool: {}", params.name)));
    }
    let arguments = params.arguments.map_or("{}", RawValue::get);
    let AddArgs { a, b } = serde_json::from_str(arguments)
        .map_err(|e| (INVALID_PARAMS, format!("Invalid arguments for tool `add`: {e}")))?;
    Ok(crate::add_text(a, b))
}

/// Checks `tools/list`'s params (one page: no cursor).
fn list(params: Option<&RawValue>) -> Result<(), Refusal> {
    let params = params.ok_or((INVALID_PARAMS, "a modern tools/list needs params with _meta".to_owned()))?;
    let params: ListParams<'_> =
        serde_json::from_str(params.get()).map_err(|e| (INVALID_PARAMS, format!("Invalid params: {e}")))?;
    check_version(params.meta.as_ref())?;
    if params.cursor.is_some() {
        return Err((INVALID_PARAMS, "Invalid cursor".to_owned()));
    }
    Ok(())
}

fn check_version(meta: Option<&RequestMeta<'_>>) -> Result<(), Refusal> {
    if meta.and_then(|m| m.protocol_version.as_deref()) != Some(MODERN) {
        return Err((INVALID_PARAMS, format!("the floor serves _meta protocolVersion {MODERN} only")));
    }
    Ok(())
}

fn write_error(out: &mut Vec<u8>, id: Option<&RawValue>, code: i32, message: &str) {
    out.clear();
    let error = RpcError { jsonrpc: "2.0", id, error: ErrorBody { code, message } };
    serde_json::to_writer(&mut *out, &error).expect("an error serializes");
}

/// A JSON-RPC request, borrowed from the message. `id` is echoed back as sent; `params` stays unparsed until
/// the method says what they are.
#[derive(Deserialize)]
struct RpcRequest<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
}

/// `tools/call` params: `arguments` stays unparsed until the tool name says what they are.
#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "_meta", borrow)]
    meta: Option<RequestMeta<'a>>,
}

#[derive(Deserialize)]
struct ListParams<'a> {
    #[serde(borrow)]
    cursor: Option<Cow<'a, str>>,
    #[serde(rename = "_meta", borrow)]
    meta: Option<RequestMeta<'a>>,
}

/// The part of the modern `_meta` envelope the floor reads; the other keys are skipped (still parsed).
#[derive(Deserialize)]
struct RequestMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow)]
    protocol_version: Option<Cow<'a, str>>,
}

/// `add`'s arguments: integers only (a float, a string or an out-of-range number is refused).
#[derive(Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Serialize)]
struct RpcResult<'a, R> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: R,
}

/// A modern `tools/call` result, the shape fastmcp answers: one text block, `resultType`, the server's info.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallResult {
    content: [TextContent; 1],
    result_type: &'static str,
    #[serde(rename = "_meta")]
    meta: ResultMeta,
}

#[derive(Serialize)]
struct TextContent {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

#[derive(Serialize)]
struct ResultMeta {
    #[serde(rename = "io.modelcontextprotocol/serverInfo")]
    server_info: ServerInfo,
}

#[derive(Serialize)]
struct ServerInfo {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
struct RpcError<'a> {
    jsonrpc: &'static str,
    /// `null` when the request's id could not be read.
    id: Option<&'a RawValue>,
    error: ErrorBody<'a>,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    code: i32,
    message: &'a str,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(message: &str) -> (Outcome, serde_json::Value) {
        let mut out = Vec::new();
        let outcome = Floor::new("t").answer(message.as_bytes(), &mut out);
        let json = if out.is_empty() { serde_json::Value::Null } else { serde_json::from_slice(&out).unwrap() };
        (outcome, json)
    }

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;

    #[test]
    fn calls_add() {
        let (outcome, json) = answer(&format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"add","arguments":{{"a":2,"b":3}},{META}}}}}"#
        ));
        assert_eq!(outcome, Outcome::Answered);
        assert_eq!(json["id"], 7);
        assert_eq!(json["result"]["content"][0]["text"], "2 + 3 = 5");
        assert_eq!(json["result"]["resultType"], "complete");
    }

    #[test]
    fn lists_the_tools() {
        let (outcome, json) =
            answer(&format!(r#"{{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{{{META}}}}}"#));
        assert_eq!(outcome, Outcome::Answered);
        assert_eq!(json["id"], "x");
        assert_eq!(json["result"]["tools"][0]["name"], "add");
        assert_eq!(json["result"]["tools"][1]["name"], "deploy");
    }

    #[test]
    fn refuses_what_it_does_not_serve() {
        let legacy =
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#;
        assert_eq!(answer(legacy).1["error"]["code"], INVALID_PARAMS);
        let float = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"add","arguments":{{"a":1.5,"b":2}},{META}}}}}"#
        );
        assert_eq!(answer(&float).1["error"]["code"], INVALID_PARAMS);
        assert_eq!(answer(r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#).1["error"]["code"], METHOD_NOT_FOUND);
        assert_eq!(answer("{").0, Outcome::Refused);
        assert_eq!(answer(r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#).0, Outcome::Refused);
        assert_eq!(answer(r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#).0, Outcome::Notification);
    }
}

//! JSON-RPC 2.0: ids, inbound message classification, outbound envelopes, error objects and codes.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use std::fmt;
use std::io::Write as _;

/// The JSON-RPC error codes MCP uses: JSON-RPC 2.0's own (`-32700`, `-32600` … `-32603`) and MCP's.
pub mod codes {
    /// `-32700`, both eras: the text is not JSON. fastmcp answers it, with `"id": null`, to a stdio line or HTTP
    /// body that does not parse.
    pub const PARSE_ERROR: i32 = -32700;
    /// `-32600`, both eras: JSON that is not a valid JSON-RPC 2.0 message (not an object, `jsonrpc` not
    /// `"2.0"`, a bad `id`, `method` or `params`; an empty batch). fastmcp also answers it to a legacy request
    /// before `initialize` or a second `initialize`, an unsupported legacy `MCP-Protocol-Version` header, an
    /// access refusal (with `data.requiredScopes` when scopes would lift it) and a rate-limited request (with
    /// `data.retryAfterMs`).
    pub const INVALID_REQUEST: i32 = -32600;
    /// `-32601`, both eras: fastmcp does not serve the method, or not on the request's era (methods removed in
    /// 2026-07-28, such as `initialize`, `ping` or `resources/subscribe`, sent as modern requests); on modern
    /// HTTP those come with status 404.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// `-32602`, both eras: the params do not fit the method (an unknown tool or prompt, a missing or invalid
    /// argument, an invalid cursor, `arguments` that are not an object), `inputResponses` or `requestState`
    /// that do not verify, an unknown task. Modern: also a missing or malformed required `_meta` key (HTTP
    /// 400), and a resource that does not exist (with `data.uri`).
    pub const INVALID_PARAMS: i32 = -32602;
    /// `-32603`, both eras: the server failed: a handler error that carries no JSON-RPC code of its own, a
    /// result that could not be serialized, an unreachable shared store.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// `-32002`, legacy era only: no resource has the URI `resources/read` (or `resources/subscribe`) names;
    /// fastmcp sends it with `data.uri`. 2026-07-28 reserves the code, so the modern era reports a missing
    /// resource as `INVALID_PARAMS` with `data.uri`.
    pub const RESOURCE_NOT_FOUND: i32 = -32002;
    /// `-32020`, modern era (HTTP): `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` or an `Mcp-Param-*` header
    /// is missing where required, malformed, or disagrees with the body; fastmcp answers with HTTP 400.
    pub const HEADER_MISMATCH: i32 = -32020;
    /// `-32021`, modern era: serving the request needs a client capability the request's `_meta` did not
    /// declare (an elicitation, sampling or roots input request; the tasks extension); `data.requiredCapabilities`
    /// names it in the shape of client capabilities; always HTTP 400. fastmcp uses it too when a legacy
    /// session's capabilities do not cover an input request a handler makes.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;
    /// `-32022`, modern era: the `_meta` protocol version is not a modern revision fastmcp serves;
    /// `data.supported` lists the ones it does and `data.requested` echoes the one asked for; HTTP 400.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
    /// `-32042`, 2025-11-25 only (reserved after): the request cannot proceed until a URL-mode elicitation
    /// completes; `data.elicitations` lists them. fastmcp never sends it itself; a handler error carrying it
    /// keeps its code through `NormalizeErrors`.
    pub const URL_ELICITATION_REQUIRED: i32 = -32042;
}

/// A request id: a string or an integer, never null.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id. Only integers that fit an `i64` read as ids; fractions and exponents do not.
    Number(i64),
    /// A string id, compared exactly.
    String(String),
}

/// Reads what `#[serde(untagged)]` would (an integer that fits an `i64`, or a string), without buffering
/// the value first: every message has an id.
impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Id;
        impl serde::de::Visitor<'_> for Id {
            type Value = RequestId;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an integer")
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(n))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<RequestId, E> {
                i64::try_from(n)
                    .map(RequestId::Number)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(n), &self))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(s.to_owned()))
            }
            fn visit_string<E: serde::de::Error>(self, s: String) -> Result<RequestId, E> {
                Ok(RequestId::String(s))
            }
        }
        d.deserialize_any(Id)
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::String(s) => f.write_str(s),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        Self::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        Self::String(s.to_owned())
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code, one of [`codes`] or an implementation-defined one; clients branch on it.
    pub code: i32,
    /// A short human-readable description, what a client shows or logs.
    pub message: String,
    /// Structured detail clients can act on (`data.uri` for a missing resource, `data.supported` for an
    /// unsupported version, …); omitted from the wire when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

// `#[cold]` as `Error`'s constructors are (see there).
impl ErrorObject {
    /// An error with this code and message and no `data`.
    #[cold]
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), data: None }
    }

    /// Sets `data`, replacing any already there.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700`, message `Parse error: {detail}`: the text is not JSON.
    #[cold]
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(codes::PARSE_ERROR, format!("Parse error: {detail}"))
    }

    /// `-32600`, message `Invalid request: {detail}`: not a valid JSON-RPC message, or not allowed now.
    #[cold]
    pub fn invalid_request(detail: impl fmt::Display) -> Self {
        Self::new(codes::INVALID_REQUEST, format!("Invalid request: {detail}"))
    }

    /// `-32601`, message `Method not found: {method}`.
    #[cold]
    pub fn method_not_found(method: &str) -> Self {
        Self::new(codes::METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }

    /// `-32602` with `message` as is: the params do not fit the method.
    #[cold]
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_PARAMS, message)
    }

    /// `-32603` with `message` as is: the server failed.
    #[cold]
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(codes::INTERNAL_ERROR, message)
    }

    /// `-32021`: serving the request needs a capability the client did not declare; `required` has the shape
    /// of client capabilities (`{"sampling": {}}`).
    #[cold]
    pub fn missing_capability(message: impl Into<String>, required: Value) -> Self {
        Self::new(codes::MISSING_REQUIRED_CLIENT_CAPABILITY, message)
            .with_data(serde_json::json!({ "requiredCapabilities": required }))
    }
}

/// One inbound message, classified. Params and results stay raw so each method deserializes straight into
/// its own type.
#[derive(Debug)]
pub enum Inbound {
    /// A message with a `method` and an `id`: owed exactly one response echoing that id.
    Request(Request),
    /// A message with a `method` and no `id`: never answered.
    Notification(Notification),
    /// A response to a request the server sent (legacy era only).
    Response {
        /// The id of the request this answers.
        id: RequestId,
        /// The raw `result` (`Ok`), or the `error` object (`Err`).
        outcome: Result<Box<RawValue>, ErrorObject>,
    },
}

/// An inbound JSON-RPC request: a method call that expects a response carrying the same id.
#[derive(Debug)]
pub struct Request {
    /// The id the response must echo; unique among the sender's outstanding requests.
    pub id: RequestId,
    /// The method called, e.g. `tools/call`.
    pub method: String,
    /// The raw `params`, an object or an array (checked); `None` when absent. Each method deserializes
    /// them into its own type.
    pub params: Option<Box<RawValue>>,
}

/// An inbound JSON-RPC notification: a method call with no id, which gets no response.
#[derive(Debug)]
pub struct Notification {
    /// The notification's method, e.g. `notifications/cancelled`.
    pub method: String,
    /// The raw `params`, an object or an array (checked); `None` when absent.
    pub params: Option<Box<RawValue>>,
}

/// Why an inbound message could not be classified: the error to answer with, and the id to echo if one
/// could be read.
#[derive(Debug)]
pub struct Rejected {
    /// The id to echo in the error response; `None` (written `"id": null`) when none could be read.
    pub id: Option<RequestId>,
    /// The error to answer with: `-32700` or `-32600`.
    pub error: ErrorObject,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Box<RawValue>>,
    result: Option<Box<RawValue>>,
    error: Option<Value>,
}

/// Distinguishes `"id": null` (present, `Some(Null)`) from a missing id (`None`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl Inbound {
    /// Classifies one JSON text as a request, notification or response. Errors carry the JSON-RPC code to
    /// answer with: `-32700` for text that is not JSON, `-32600` for JSON that is not a JSON-RPC message.
    ///
    /// `Rejected` is returned unboxed: it is built at most once per inbound message, on a path that ends in an
    /// error response, so its size does not matter.
    #[allow(clippy::result_large_err)]
    pub fn parse(text: &str) -> Result<Inbound, Rejected> {
        let env: Envelope = match serde_json::from_str(text) {
            // A derived struct also deserializes from a JSON array, field by position, so
            // `["2.0", 1, "tools/list", {}, null, null]` would pass as a request. A JSON-RPC message is an object.
            Ok(_) if !text.trim_start().starts_with('{') => {
                return Err(Rejected {
                    id: None,
                    error: ErrorObject::invalid_request("expected a JSON-RPC 2.0 object"),
                });
            }
            Ok(env) => env,
            Err(e) if e.is_syntax() || e.is_eof() => {
                return Err(Rejected { id: None, error: ErrorObject::parse_error(e) });
            }
            // The envelope's shape is refused before the end of the text is read (`[{…}] x`, a repeated
            // key before a syntax error), so whether the text is JSON at all is asked apart.
            Err(_) => {
                let error = match serde_json::from_str::<serde::de::IgnoredAny>(text) {
                    Err(e) => ErrorObject::parse_error(e),
                    Ok(_) => ErrorObject::invalid_request("expected a JSON-RPC 2.0 object"),
                };
                return Err(Rejected { id: None, error });
            }
        };
        let id = match env.id {
            None => None,
            Some(value) => match serde_json::from_value::<RequestId>(value) {
                Ok(id) => Some(id),
                Err(_) => {
                    return Err(Rejected {
                        id: None,
                        error: ErrorObject::invalid_request("id must be a string or an integer"),
                    });
                }
            },
        };
        let reject =
            |id: &Option<RequestId>, msg: &str| Rejected { id: id.clone(), error: ErrorObject::invalid_request(msg) };
        if env.jsonrpc.map(RawValue::get) != Some("\"2.0\"") {
            return Err(reject(&id, "jsonrpc must be \"2.0\""));
        }
        if let Some(method) = env.method {
            let Value::String(method) = method else {
                return Err(reject(&id, "method must be a string"));
            };
            if let Some(params) = &env.params {
                let first = params.get().trim_start().as_bytes().first();
                if !matches!(first, Some(b'{') | Some(b'[')) {
                    return Err(reject(&id, "params must be an object or an array"));
                }
            }
            return Ok(match id {
                Some(id) => Inbound::Request(Request { id, method, params: env.params }),
                None => Inbound::Notification(Notification { method, params: env.params }),
            });
        }
        let Some(id) = id else {
            return Err(reject(&None, "a message needs a method, or an id with a result or error"));
        };
        match (env.result, env.error) {
            (Some(result), None) => Ok(Inbound::Response { id, outcome: Ok(result) }),
            (None, Some(error)) => match serde_json::from_value::<ErrorObject>(error) {
                Ok(error) => Ok(Inbound::Response { id, outcome: Err(error) }),
                Err(_) => Err(reject(&Some(id), "error must be an object with an integer code and a message")),
            },
            _ => Err(reject(&Some(id), "a response carries exactly one of result and error")),
        }
    }
}

/// An outbound response or error. Serialization writes the envelope around the payload directly.
#[derive(Debug, Serialize)]
pub struct OutboundResponse<'a, R: Serialize> {
    /// The protocol version, always `"2.0"`.
    pub jsonrpc: &'static str,
    /// The id of the request this answers.
    pub id: &'a RequestId,
    /// The method's result, written as `result`.
    pub result: R,
}

/// An outbound error response: `{"jsonrpc": "2.0", "id": …, "error": {…}}`.
#[derive(Debug, Serialize)]
pub struct OutboundError<'a> {
    /// The protocol version, always `"2.0"`.
    pub jsonrpc: &'static str,
    /// `null` when the request's id could not be read.
    pub id: Option<&'a RequestId>,
    /// The error, written as `error`.
    pub error: &'a ErrorObject,
}

/// An outbound request or notification (legacy server-to-client traffic and all notifications).
#[derive(Debug, Serialize)]
pub struct OutboundMessage<'a, P: Serialize> {
    /// The protocol version, always `"2.0"`.
    pub jsonrpc: &'static str,
    /// The request's id, which the peer's response will echo; `None` (omitted) makes the message a
    /// notification.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'a RequestId>,
    /// The method, e.g. `sampling/createMessage` or `notifications/progress`.
    pub method: &'a str,
    /// The message's `params`; omitted when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

/// Renders a response line's JSON text.
pub fn response_json<R: Serialize>(id: &RequestId, result: R) -> String {
    let msg = OutboundResponse { jsonrpc: "2.0", id, result };
    serde_json::to_string(&msg).unwrap_or_else(|e| {
        error_json(Some(id), &ErrorObject::internal(format!("result could not be serialized: {e}")))
    })
}

/// Puts a response's head (`{"jsonrpc":"2.0","id":…,"result":`) in front of `result`, the JSON text of its
/// result followed by the response's closing `}`: the response is made in the result's own buffer.
pub(crate) fn into_response(id: &RequestId, mut result: String) -> String {
    const BEFORE: &str = "{\"jsonrpc\":\"2.0\",\"id\":";
    const AFTER: &str = ",\"result\":";
    // Written on the stack first, so the buffer moves its contents once.
    let mut head = [0u8; 96];
    let mut cursor = std::io::Cursor::new(&mut head[..]);
    let written = cursor
        .write_all(BEFORE.as_bytes())
        .and_then(|()| serde_json::to_writer(&mut cursor, id).map_err(std::io::Error::other))
        .and_then(|()| cursor.write_all(AFTER.as_bytes()));
    let len = usize::try_from(cursor.position()).unwrap_or(usize::MAX);
    match written.ok().and_then(|()| std::str::from_utf8(head.get(..len)?).ok()) {
        Some(head) => result.insert_str(0, head),
        // An id too long for the stack.
        None => {
            let id = serde_json::to_string(id).expect("an id serializes");
            result.insert_str(0, &format!("{BEFORE}{id}{AFTER}"));
        }
    }
    result
}

/// Renders an error response's JSON text.
pub fn error_json(id: Option<&RequestId>, error: &ErrorObject) -> String {
    serde_json::to_string(&OutboundError { jsonrpc: "2.0", id, error }).expect("an error object always serializes")
}

/// Renders a notification's JSON text.
pub fn notification_json<P: Serialize>(method: &str, params: P) -> serde_json::Result<String> {
    serde_json::to_string(&OutboundMessage { jsonrpc: "2.0", id: None, method, params: Some(params) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(text: &str) -> i32 {
        Inbound::parse(text).expect_err("refused").error.code
    }

    /// Found by the `jsonrpc` fuzz target: text whose envelope shape fails before its syntax does was
    /// answered `-32600`, though JSON-RPC gives `-32700` to anything that is not JSON.
    #[test]
    fn text_that_is_not_json_is_a_parse_error_even_when_its_shape_fails_first() {
        assert_eq!(
            code("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n{\"jsonrpc\":\"2.0\"}"),
            codes::PARSE_ERROR
        );
        assert_eq!(code(r#"{"id":1,"id":2,"#), codes::PARSE_ERROR);
        // JSON of the wrong shape is still an invalid request.
        assert_eq!(code(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#), codes::INVALID_REQUEST);
        assert_eq!(code(r#"{"id":1,"id":2}"#), codes::INVALID_REQUEST);
        assert_eq!(code("\"text\""), codes::INVALID_REQUEST);
    }

    #[test]
    fn an_id_is_an_integer_that_fits_an_i64_or_a_string() {
        let id = |json: &str| serde_json::from_str::<RequestId>(json).ok();
        assert_eq!(id("7"), Some(RequestId::Number(7)));
        assert_eq!(id("-9223372036854775808"), Some(RequestId::Number(i64::MIN)));
        assert_eq!(id(r#""a\"b""#), Some(RequestId::String("a\"b".into())));
        for refused in ["9223372036854775808", "1.0", "1e3", "null", "true", "[1]", "{}"] {
            assert_eq!(id(refused), None, "{refused}");
        }
        assert_eq!(
            serde_json::from_value::<RequestId>(serde_json::json!("x")).ok(),
            Some(RequestId::String("x".into()))
        );
    }
}

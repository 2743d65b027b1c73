//! One inbound message, classified once: which era a request belongs to, its params parsed (once, by
//! method, into the shape every later step reads), and what a transport needs to know to carry its answer.
//!
//! The spec's rule: a request whose `params._meta` claims a protocol version is modern and served
//! statelessly; `initialize` opens a legacy session. On HTTP a modern `MCP-Protocol-Version` header claims
//! the modern era too (a body without the envelope then lacks it, rather than being legacy).

use super::request_meta::RequestMeta;
use crate::auth::{AccessToken, Refusal};
use crate::context::HttpRequest;
use crate::error::Error;
use crate::protocol::{
    CompleteParams, Era, ErrorObject, GetPromptParams, Inbound, InitializeParams, InputResponses, JsonObject,
    ListenParams, LoggingLevel, METHOD_LISTEN, METHOD_TASKS_CANCEL, METHOD_TASKS_GET, METHOD_TASKS_UPDATE, MetaParams,
    Notification, ProgressToken, ProtocolVersion, ReadResourceParams, Rejected, RequestId, ResourceUriParams,
    SetLevelParams, TaskParams, UpdateTaskParams, error_json,
};
use crate::server::access::refused;
use crate::server::call::{Call, List};
use crate::server::registry::Registry;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use std::sync::Arc;

/// What a transport knows of a message besides its body: its HTTP headers (stdio has none). Names are
/// lowercase; a value is `None` when the header is absent.
pub(crate) trait Headers: Send + Sync {
    /// The header's first value, and whether it is sent more than once: a cross-checked header must say one
    /// thing, since a gateway may route on another of its values than the one checked. One lookup for both.
    fn first(&self, name: &str) -> (Option<&[u8]>, bool);

    /// The header's first value.
    fn get(&self, name: &str) -> Option<&[u8]> {
        self.first(name).0
    }

    /// A header's value as text, optional whitespace trimmed; `None` if absent or not visible ASCII.
    fn text(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(text)
    }
}

/// A header value as text, optional whitespace trimmed; `None` if it is not visible ASCII.
pub(crate) fn text(value: &[u8]) -> Option<&str> {
    if !value.iter().all(|b| is_visible(*b)) {
        return None;
    }
    std::str::from_utf8(value).ok().map(str::trim)
}

fn is_visible(b: u8) -> bool {
    b == b'\t' || (b' '..=b'~').contains(&b)
}

/// `MCP-Protocol-Version`: a cross-check of the body on modern requests, the version of a legacy request
/// served without a session.
pub(crate) const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";
/// The modern request's standard headers besides the version, cross-checked against its body.
pub(crate) const METHOD_HEADER: &str = "mcp-method";
pub(crate) const NAME_HEADER: &str = "mcp-name";

/// One inbound message.
pub(crate) enum Message {
    Request(Box<Classified>),
    Notification(Notification),
    /// A response to a request the server sent (legacy era only).
    Response {
        id: RequestId,
        outcome: Result<Box<RawValue>, ErrorObject>,
    },
}

/// Classifies one JSON-RPC message (`-32700`/`-32600` for text that is not one).
#[allow(clippy::result_large_err)] // see `Inbound::parse`: built at most once, on the way to an error response
pub(crate) fn parse(text: &str, headers: Option<&dyn Headers>) -> Result<Message, Rejected> {
    Ok(match Inbound::parse(text)? {
        Inbound::Request(req) => Message::Request(Box::new(classify(req.id, req.method, req.params, headers))),
        Inbound::Notification(note) => Message::Notification(note),
        Inbound::Response { id, outcome } => Message::Response { id, outcome },
    })
}

/// Reads a JSON-RPC batch (text that starts with `[`) into its entries, each still raw, refusing with one
/// `-32600` an empty batch or one of more than `max` entries. Counting stops at entry `max + 1`, so a huge
/// batch is refused without keeping its entries.
pub(crate) fn batch(text: &str, max: usize) -> Result<Vec<Box<RawValue>>, ErrorObject> {
    use serde::de::{DeserializeSeed, Error as _, SeqAccess, Visitor};

    struct Entries<'a> {
        max: usize,
        over: &'a std::cell::Cell<bool>,
    }
    impl<'de> DeserializeSeed<'de> for Entries<'_> {
        type Value = Vec<Box<RawValue>>;
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_seq(self)
        }
    }
    impl<'de> Visitor<'de> for Entries<'_> {
        type Value = Vec<Box<RawValue>>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an array of JSON-RPC messages")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut entries = Vec::new();
            while let Some(entry) = seq.next_element::<Box<RawValue>>()? {
                if entries.len() == self.max {
                    self.over.set(true);
                    return Err(A::Error::custom("too many entries"));
                }
                entries.push(entry);
            }
            Ok(entries)
        }
    }

    let over = std::cell::Cell::new(false);
    let mut de = serde_json::Deserializer::from_str(text);
    let read = Entries { max, over: &over }.deserialize(&mut de).and_then(|entries| de.end().map(|()| entries));
    match read {
        Ok(entries) if entries.is_empty() => Err(ErrorObject::invalid_request("an empty batch")),
        Ok(entries) => Ok(entries),
        Err(_) if over.get() => Err(ErrorObject::invalid_request(format!(
            "a batch of more than {max} entries, the server's limit (FastMcp::max_batch_size)"
        ))),
        Err(e) if e.is_syntax() || e.is_eof() => Err(ErrorObject::parse_error(e)),
        Err(_) => Err(ErrorObject::invalid_request("a batch is an array of JSON-RPC messages")),
    }
}

/// Which era adapter serves a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    Modern,
    Legacy,
    /// `server/discover` without the modern envelope: a probe, answered in either era so clients find us.
    Probe,
}

/// A request, classified.
pub(crate) struct Classified {
    pub id: RequestId,
    pub method: String,
    pub route: Route,
    /// What `_meta` says: the modern envelope, or a legacy request's `progressToken`.
    pub meta: RequestMeta,
    /// The params, parsed once for the method (or why they could not be).
    pub body: Body,
    /// Who sent it: the access token the transport verified (HTTP), or the connection's (stdio).
    pub caller: Option<Arc<AccessToken>>,
    /// The HTTP request it came in, for the handler's context (HTTP transports set it; stdio has none).
    pub http: Option<HttpRequest>,
}

/// A request's params, parsed for its method.
pub(crate) enum Body {
    Initialize(Box<InitializeParams>),
    /// `ping`, and `server/discover`: nothing but `_meta`.
    Bare,
    SetLevel(LoggingLevel),
    Subscribe(String),
    Unsubscribe(String),
    Listen(ListenParams),
    TaskGet(String),
    TaskUpdate {
        task_id: String,
        responses: InputResponses,
    },
    TaskCancel(String),
    /// What dispatch serves, and what a modern retry carries beside it.
    Serve {
        call: Call,
        retry: Retry,
    },
    /// The params do not parse for the method (`-32602`, reported in the order each era checks things).
    Invalid(Error),
    /// A method no era serves.
    Unknown,
}

/// What a modern retry of a call brings besides the call itself.
#[derive(Debug, Default)]
pub(crate) struct Retry {
    pub input_responses: Option<InputResponses>,
    pub request_state: Option<String>,
}

/// Whether a legacy HTTP request needs the session its `Mcp-Session-Id` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SessionUse {
    /// Modern: stateless, a session id it carries is ignored.
    None,
    /// `initialize`: opens one.
    Opens,
    /// Served alone without a session id; with one, in that session.
    Optional,
    /// Every other legacy request.
    Required,
}

/// How the answer travels on HTTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delivery {
    /// One JSON response.
    Json,
    /// An SSE stream: notifications while the request runs, then the response. `keep_alive` for streams that
    /// may stay idle for long (subscriptions).
    Stream { keep_alive: bool },
}

/// The HTTP status the spec gives an answer (stdio has none and ignores it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Status {
    Ok,
    /// Modern envelope, version, header, capability and unreadable-params errors; a legacy request alone
    /// naming a version the server does not serve.
    BadRequest,
    /// A method the modern protocol doesn't have.
    NotFound,
    /// The caller may not use what it asked for: 401, or 403 with the scopes to step up to.
    Refused(Refusal),
}

/// A request's answer: the JSON-RPC response's text, and the HTTP status it goes with.
#[derive(Debug)]
pub(crate) struct Answer {
    pub json: String,
    pub status: Status,
}

impl Answer {
    pub fn ok(json: String) -> Self {
        Self { json, status: Status::Ok }
    }
}

fn classify(id: RequestId, method: String, params: Option<Box<RawValue>>, headers: Option<&dyn Headers>) -> Classified {
    let raw = params.as_deref().map_or("{}", RawValue::get);
    let (body, meta) = parse_body(&method, raw);
    // Params that do not parse still say which era they meant, read leniently, so the error is shaped for it.
    let meta = meta.or_else(|| serde_json::from_str::<MetaIn>(raw).ok().and_then(|p| p.meta)).unwrap_or_default();
    let claimed = meta.claims_modern()
        || headers
            .and_then(|h| h.text(PROTOCOL_VERSION_HEADER))
            .and_then(ProtocolVersion::parse)
            .is_some_and(|v| v.era() == Era::Modern);
    let route = match (claimed, method.as_str()) {
        (true, _) => Route::Modern,
        (false, "server/discover") => Route::Probe,
        (false, _) => Route::Legacy,
    };
    Classified { id, method, route, meta, body, caller: None, http: None }
}

/// Whether JSON text (valid already) is an object. A derived struct also deserializes from an array, field by
/// position; MCP's params, and a tool's arguments, are objects.
fn is_object(json: &str) -> bool {
    json.trim_start().starts_with('{')
}

/// `_meta` alone, read from params that do not parse for their method.
#[derive(Deserialize)]
struct MetaIn {
    #[serde(rename = "_meta", default)]
    meta: Option<RequestMeta>,
}

/// `tools/call` params as the server reads them: as [`CallToolParams`](crate::protocol::CallToolParams), with
/// `_meta` left unparsed but for its envelope's keys.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallToolIn {
    name: String,
    #[serde(default)]
    arguments: Option<Box<RawValue>>,
    #[serde(default)]
    input_responses: Option<InputResponses>,
    #[serde(default)]
    request_state: Option<String>,
    /// 2025-11-25 task augmentation: opaque, but an object.
    #[serde(default, rename = "task")]
    _task: Option<JsonObject>,
    #[serde(rename = "_meta", default)]
    meta: Option<RequestMeta>,
}

/// `*/list` params as the server reads them: as [`PaginatedParams`](crate::protocol::PaginatedParams), with
/// `_meta` left unparsed but for its envelope's keys.
#[derive(Deserialize)]
struct PageIn {
    #[serde(default)]
    cursor: Option<String>,
    #[serde(rename = "_meta", default)]
    meta: Option<RequestMeta>,
}

/// A params type's `_meta`, as the keys the server reads.
trait IntoMeta {
    fn into_meta(self) -> RequestMeta;
}

impl IntoMeta for RequestMeta {
    fn into_meta(self) -> RequestMeta {
        self
    }
}

impl IntoMeta for JsonObject {
    fn into_meta(self) -> RequestMeta {
        RequestMeta::from_object(self)
    }
}

/// Parses params for `method`, returning them with their `_meta` taken out.
fn parse_body(method: &str, raw: &str) -> (Body, Option<RequestMeta>) {
    fn typed<T: DeserializeOwned>(method: &str, raw: &str) -> Result<T, Error> {
        let invalid =
            |why: &dyn std::fmt::Display| Error::invalid_params(format!("Invalid params for {method}: {why}"));
        if !is_object(raw) {
            return Err(invalid(&"expected an object"));
        }
        serde_json::from_str(raw).map_err(|e| invalid(&e))
    }
    macro_rules! parse {
        ($ty:ty, |$p:ident| $body:expr) => {
            match typed::<$ty>(method, raw) {
                Ok(mut $p) => {
                    let meta = $p.meta.take().map(IntoMeta::into_meta);
                    ($body, meta)
                }
                Err(e) => (Body::Invalid(e), None),
            }
        };
    }
    if let Some(list) = List::of(method) {
        return parse!(PageIn, |p| Body::Serve {
            call: Call::List { list, cursor: p.cursor },
            retry: Retry::default()
        });
    }
    match method {
        // The tool's own type would read an array field by field: what `Mcp-Param-*` mirrors is by name.
        "tools/call" => parse!(CallToolIn, |p| match p.arguments.as_deref().filter(|a| !is_object(a.get())) {
            Some(_) =>
                Body::Invalid(Error::invalid_params("Invalid params for tools/call: `arguments` must be an object")),
            None => Body::Serve {
                call: Call::Tool { name: p.name, arguments: p.arguments },
                retry: Retry { input_responses: p.input_responses, request_state: p.request_state },
            },
        }),
        "prompts/get" => parse!(GetPromptParams, |p| Body::Serve {
            call: Call::Prompt { name: p.name, arguments: p.arguments },
            retry: Retry { input_responses: p.input_responses, request_state: p.request_state },
        }),
        "resources/read" => parse!(ReadResourceParams, |p| Body::Serve {
            call: Call::Read { uri: p.uri },
            retry: Retry { input_responses: p.input_responses, request_state: p.request_state },
        }),
        "completion/complete" => {
            parse!(CompleteParams, |p| Body::Serve { call: Call::Complete(Box::new(p)), retry: Retry::default() })
        }
        "initialize" => parse!(InitializeParams, |p| Body::Initialize(Box::new(p))),
        "ping" | "server/discover" => parse!(MetaParams, |p| Body::Bare),
        "logging/setLevel" => parse!(SetLevelParams, |p| Body::SetLevel(p.level)),
        "resources/subscribe" => parse!(ResourceUriParams, |p| Body::Subscribe(p.uri)),
        "resources/unsubscribe" => parse!(ResourceUriParams, |p| Body::Unsubscribe(p.uri)),
        METHOD_LISTEN => parse!(ListenParams, |p| Body::Listen(p)),
        METHOD_TASKS_GET => parse!(TaskParams, |p| Body::TaskGet(p.task_id)),
        METHOD_TASKS_CANCEL => parse!(TaskParams, |p| Body::TaskCancel(p.task_id)),
        METHOD_TASKS_UPDATE => {
            parse!(UpdateTaskParams, |p| Body::TaskUpdate { task_id: p.task_id, responses: p.input_responses })
        }
        _ => (Body::Unknown, None),
    }
}

impl Classified {
    /// Whether a legacy HTTP request needs a session.
    pub fn session_use(&self) -> SessionUse {
        match (self.route, self.method.as_str()) {
            (Route::Modern, _) => SessionUse::None,
            (Route::Probe, _) => SessionUse::Optional,
            (Route::Legacy, "initialize") => SessionUse::Opens,
            (Route::Legacy, _) => SessionUse::Required,
        }
    }

    /// How the answer travels on HTTP. Modern requests stream when they need to (progress, logs and
    /// subscriptions travel on the response); legacy calls on a session stream on a resumable stream that
    /// carries the handler's logs, progress and the shim's requests to the client.
    pub fn delivery(&self) -> Delivery {
        match self.route {
            Route::Modern if self.method == METHOD_LISTEN => Delivery::Stream { keep_alive: true },
            Route::Modern if self.meta.progress_token.is_some() || self.meta.log_level.is_some() => {
                Delivery::Stream { keep_alive: false }
            }
            Route::Legacy
                if matches!(
                    self.body,
                    Body::Serve { call: Call::Tool { .. } | Call::Prompt { .. } | Call::Read { .. }, .. }
                ) =>
            {
                Delivery::Stream { keep_alive: false }
            }
            Route::Modern | Route::Legacy | Route::Probe => Delivery::Json,
        }
    }

    /// Requests that change connection state must finish before the next message is read.
    pub fn is_sequential(&self) -> bool {
        self.method == "initialize"
    }

    /// The span an application's `tracing` subscriber sees the request under, at debug level (as tower-http's
    /// request spans): its method, the tool, prompt, resource URI or task it names, its era, its id and, on a
    /// legacy HTTP session, the session's id.
    pub fn span(&self, session: Option<&str>) -> tracing::Span {
        let era = match self.route {
            Route::Modern => "modern",
            Route::Legacy => "legacy",
            Route::Probe => "probe",
        };
        let name = match &self.body {
            Body::Serve { call, .. } => call.target(),
            Body::TaskGet(task) | Body::TaskCancel(task) | Body::TaskUpdate { task_id: task, .. } => {
                Some(task.as_str())
            }
            Body::Subscribe(uri) | Body::Unsubscribe(uri) => Some(uri.as_str()),
            _ => None,
        };
        tracing::debug_span!("mcp.request", method = %self.method, name, era, id = %self.id, session)
    }

    /// Refuses a request for a component its caller may not use, before anything runs: so HTTP can answer
    /// with the status and challenge (a stream, once open, can't). Dispatch refuses the same calls again
    /// whatever the transport ([`Server::prepare`](crate::server::Server::prepare)).
    pub fn refusal(&self, registry: &Registry) -> Result<(), Answer> {
        let caller = self.caller.as_deref();
        let decided = match &self.body {
            Body::Serve { call, .. } => registry.authorize(call, caller),
            Body::Subscribe(uri) => registry.may_read(uri, caller),
            _ => Ok(()),
        };
        decided.map_err(|refusal| Answer {
            json: error_json(Some(&self.id), &refused(&refusal).to_error_object(self.era())),
            status: Status::Refused(refusal),
        })
    }

    /// The era its errors are shaped for.
    pub fn era(&self) -> Era {
        if self.route == Route::Modern { Era::Modern } else { Era::Legacy }
    }

    /// A legacy request's `_meta.progressToken` (a modern one's is part of the envelope).
    pub fn progress_token(&self) -> Option<ProgressToken> {
        self.meta.progress_token.as_deref().and_then(|raw| serde_json::from_str(raw.get()).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::batch;
    use crate::protocol::codes;

    fn refused(text: &str, max: usize) -> (i32, String) {
        let e = batch(text, max).expect_err(text);
        (e.code, e.message)
    }

    #[test]
    fn batches_are_read_up_to_their_limit() {
        assert_eq!(batch(r#"[1, {"a": [2]}, "x"]"#, 3).unwrap().len(), 3);
        let (code, message) = refused("[1, 2, 3, 4]", 3);
        assert_eq!(code, codes::INVALID_REQUEST);
        assert!(message.contains("more than 3 entries") && message.contains("max_batch_size"), "{message}");
        // Counting stops at the limit: what follows is not read, so it need not even be JSON.
        assert_eq!(refused("[1, 2, 3, 4, not json", 3).0, codes::INVALID_REQUEST);
        assert_eq!(refused("[]", 3), (codes::INVALID_REQUEST, "Invalid request: an empty batch".into()));
        assert_eq!(refused("[1, 2", 3).0, codes::PARSE_ERROR);
        assert_eq!(refused("[1] [2]", 3).0, codes::PARSE_ERROR, "one JSON value per line");
    }
}

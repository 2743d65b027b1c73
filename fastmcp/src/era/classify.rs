//! One inbound message, classified once: which era a request belongs to, its params parsed (once, by
//! method, into the shape every later step reads), and what a transport needs to know to carry its answer.
//!
//! The spec's rule: a request whose `params._meta` claims a protocol version is modern and served
//! statelessly; `initialize` opens a legacy session. On HTTP a modern `MCP-Protocol-Version` header claims
//! the modern era too (a body without the envelope then lacks it, rather than being legacy).

use super::params::{self, MetaIn};
pub(crate) use super::params::{Body, Retry};
use super::request_meta::{Lenient, RequestMeta, Slot};
use crate::auth::{AccessToken, Refusal};
use crate::context::HttpRequest;
use crate::protocol::{
    Era, ErrorObject, Inbound, METHOD_LISTEN, Notification, ProgressToken, ProtocolVersion, Rejected, RequestId,
    error_json,
};
use crate::server::access::refused;
use crate::server::call::Call;
use crate::server::registry::Registry;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
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
    // Visible ASCII and tabs: `trim_ascii` trims what `str::trim` would, without decoding characters.
    std::str::from_utf8(value.trim_ascii()).ok()
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
    // Boxed where it is read: the request's parts are ~400 bytes, moved out through every layer of the parse.
    let classified = |id, method, (body, meta)| Box::new(classify(id, method, body, meta, headers));
    if let Some(req) = one_pass(text, classified) {
        return Ok(Message::Request(req));
    }
    Ok(match read_generally(text)? {
        General::Request(id, method, (body, meta)) => {
            Message::Request(Box::new(classify(id, method, body, meta, headers)))
        }
        General::Other(inbound) => inbound,
    })
}

/// A request's params as [`params::parse_body`] reads them, with their `_meta`.
type Params = (Body, Option<RequestMeta>);

/// A message read the general way: a request's parts, or a message that is no request.
enum General {
    Request(RequestId, Cow<'static, str>, Params),
    Other(Message),
}

/// The envelope first ([`Inbound::parse`]), then a request's params from their own text.
#[allow(clippy::result_large_err)] // as `parse`
fn read_generally(text: &str) -> Result<General, Rejected> {
    Ok(match Inbound::parse(text)? {
        Inbound::Request(req) => {
            let raw = req.params.as_deref().map_or("{}", RawValue::get);
            let (body, meta) = params::parse_text(&req.method, raw);
            // Params that do not parse still say which era they meant, read leniently, so the error is shaped
            // for it.
            let meta =
                meta.or_else(|| serde_json::from_str::<MetaIn<Lenient>>(raw).ok().and_then(|p| p.meta).map(|m| m.0));
            General::Request(req.id, params::method_name(req.method.into()), (body, meta))
        }
        Inbound::Notification(note) => General::Other(Message::Notification(note)),
        Inbound::Response { id, outcome } => General::Other(Message::Response { id, outcome }),
    })
}

/// A request read in one pass: its params parsed for its method as the message is (`_meta`'s values into
/// their types), none copied, its parts given to `made` where they are read. Clients write the method before
/// the params; for anything else (params first, a notification or response, a method no era serves, a value
/// that does not read, a repeated key) it is `None`, and [`parse`] reads the message the general way, which
/// words the errors. So this pass only ever agrees with that one: it answers only where every check passes.
fn one_pass<T>(text: &str, made: impl FnOnce(RequestId, Cow<'static, str>, Params) -> T) -> Option<T> {
    use serde::de::{DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, Visitor};

    #[derive(Deserialize)]
    #[serde(field_identifier, rename_all = "lowercase")]
    enum Field {
        Jsonrpc,
        Id,
        Method,
        Params,
        Result,
        Error,
        #[serde(other)]
        Other,
    }

    struct ParamsOf<'m>(&'m str);
    impl<'de> DeserializeSeed<'de> for ParamsOf<'_> {
        type Value = Params;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            params::parse_body(self.0, params::Stream(d))
        }
    }

    struct Envelope<F>(F);
    impl<'de, T, F: FnOnce(RequestId, Cow<'static, str>, Params) -> T> Visitor<'de> for Envelope<F> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON-RPC request")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            // The method borrowed: a served one is kept as its static name ([`params::method_name`]), and one with
            // escapes is read the general way.
            let (mut jsonrpc, mut id, mut method, mut params) = (false, None, None::<&'de str>, None);
            let unread = || A::Error::custom("not read in one pass");
            while let Some(field) = map.next_key::<Field>()? {
                match field {
                    Field::Jsonrpc if !jsonrpc => {
                        jsonrpc = map.next_value::<&'de RawValue>()?.get() == "\"2.0\"";
                        if !jsonrpc {
                            return Err(unread());
                        }
                    }
                    Field::Id if id.is_none() => id = Some(map.next_value::<RequestId>()?),
                    Field::Method if method.is_none() => method = Some(map.next_value()?),
                    Field::Params if params.is_none() => {
                        let method = method.ok_or_else(unread)?;
                        params = Some(map.next_value_seed(ParamsOf(method))?);
                    }
                    Field::Other => {
                        map.next_value::<IgnoredAny>()?;
                    }
                    _ => return Err(unread()),
                }
            }
            let (true, Some(id), Some(method)) = (jsonrpc, id, method) else { return Err(unread()) };
            let params = params.unwrap_or_else(|| params::parse_text(method, "{}"));
            Ok(self.0(id, params::method_name(Cow::Borrowed(method)), params))
        }
    }

    let mut de = serde_json::Deserializer::from_str(text);
    let read = de.deserialize_map(Envelope(made)).ok()?;
    de.end().ok()?;
    Some(read)
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
    /// A served method's name ([`params::method_name`]), or the request's own text.
    pub method: Cow<'static, str>,
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
    /// The client holds its share already: 429, with `Retry-After` in these seconds.
    TooMany(u64),
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

fn classify(
    id: RequestId,
    method: Cow<'static, str>,
    body: Body,
    meta: Option<RequestMeta>,
    headers: Option<&dyn Headers>,
) -> Classified {
    let meta = meta.unwrap_or_default();
    let claimed = meta.claims_modern()
        || headers
            .and_then(|h| h.text(PROTOCOL_VERSION_HEADER))
            .and_then(ProtocolVersion::parse)
            .is_some_and(|v| v.era() == Era::Modern);
    let route = match (claimed, &*method) {
        (true, _) => Route::Modern,
        (false, "server/discover") => Route::Probe,
        (false, _) => Route::Legacy,
    };
    Classified { id, method, route, meta, body, caller: None, http: None }
}

impl Classified {
    /// Whether a legacy HTTP request needs a session.
    pub fn session_use(&self) -> SessionUse {
        match (self.route, &*self.method) {
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
        self.meta.progress_token.as_ref().and_then(Slot::read).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::{General, batch, one_pass, read_generally};
    use crate::protocol::codes;

    /// The one pass answers only where it agrees with the general read, and reads what clients send.
    #[test]
    fn the_one_pass_read_agrees_with_the_general_one() {
        const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"progressToken":"p","x":[1,{"y":null}]}"#;
        let read = [
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}},{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":"s\"1","method":"tools/list","params":{{"cursor":"c",{META}}},"x":1}}"#),
            format!(r#" {{"id":2,"method":"tools/call","jsonrpc":"2.0","params":{{{META},"name":"n","requestState":"s","inputResponses":{{"a":{{"x":1}}}}}}}} "#),
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#.into(),
            r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"progressToken":7}}}"#.into(),
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":[1,2]}}"#.into(),
            r#"{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"p","_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}"#.into(),
            r#"{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#.into(),
        ];
        let general = [
            // Params first; a notification; a response; a method no era serves.
            r#"{"jsonrpc":"2.0","id":1,"params":{},"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"nope","params":{}}"#,
            // A method with an escape (the general way unescapes it).
            r#"{"jsonrpc":"2.0","id":1,"method":"tools\/list"}"#,
            // Values that do not read: in `_meta`, in the params, the envelope's.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":7}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":1.5}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.1","id":1,"method":"ping"}"#,
            r#"{"id":1,"method":"ping"}"#,
            // Repeated keys, trailing text, not an object.
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","result":1,"result":2}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#,
            r#"["2.0",1,"ping"]"#,
        ];
        let shown =
            |(id, method, parsed): &(_, std::borrow::Cow<'static, str>, _)| format!("{id:?} {method} {parsed:?}");
        for text in &read {
            let one = one_pass(text, |id, method, parsed| (id, method, parsed))
                .unwrap_or_else(|| panic!("not read in one pass: {text}"));
            let Ok(General::Request(id, method, parsed)) = read_generally(text) else { panic!("no request: {text}") };
            assert_eq!(shown(&one), shown(&(id, method, parsed)), "{text}");
        }
        for text in general {
            assert!(one_pass(text, |_, _, _| ()).is_none(), "read in one pass: {text}");
        }
        // Either way, a served method is kept as its name, not a copy of the text.
        for text in
            [r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, r#"{"jsonrpc":"2.0","id":1,"method":"tools\/list"}"#]
        {
            let Ok(super::Message::Request(req)) = super::parse(text, None) else { panic!("no request: {text}") };
            assert!(matches!(req.method, std::borrow::Cow::Borrowed("tools/list")), "{text}: {:?}", req.method);
        }
    }

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

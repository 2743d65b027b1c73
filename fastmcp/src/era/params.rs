//! A request's params, read once for its method into the shape every later step reads ([`Body`]), with
//! their `_meta` taken out.
//!
//! Read two ways, by one [`parse_body`]: from the message as it is parsed ([`Stream`]: one pass, `_meta`
//! read strictly, and anything that does not read fails the whole pass), or from the params' own text
//! ([`Text`]: the general way, which keeps what does not read and words the errors).

use super::request_meta::{Lenient, RequestMeta};
use crate::error::Error;
use crate::protocol::{
    CompleteParams, GetPromptParams, InitializeParams, InputResponses, JsonObject, ListenParams, LoggingLevel,
    METHOD_LISTEN, METHOD_TASKS_CANCEL, METHOD_TASKS_GET, METHOD_TASKS_UPDATE, ReadResourceParams, ResourceUriParams,
    SetLevelParams, TaskParams, UpdateTaskParams,
};
use crate::server::call::{Call, List};
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, Error as _, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// A request's params, parsed for its method.
#[derive(Debug)]
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

/// Params for `method` read from their own text, `{}` when the request has none; a failure is
/// [`Body::Invalid`].
pub(crate) fn parse_text(method: &str, raw: &str) -> (Body, Option<RequestMeta>) {
    parse_body(method, Text { method, raw }).unwrap_or_else(|e| (Body::Invalid(e), None))
}

/// Where params are read from.
pub(crate) trait Reader<'de> {
    /// How `_meta` is read.
    type Meta: Deserialize<'de> + IntoMeta;
    type Error;
    /// The params, as `T`; they must be an object (a derived struct also reads an array, field by position).
    fn read<T: Deserialize<'de>>(self) -> Result<T, Self::Error>;
    /// What a method no era serves reads as.
    fn unknown(self) -> Result<(Body, Option<RequestMeta>), Self::Error>;
}

/// The params' own text (valid JSON already): `_meta` read leniently, a failure worded for the method.
struct Text<'a> {
    method: &'a str,
    raw: &'a str,
}

impl<'a> Reader<'a> for Text<'a> {
    type Meta = Lenient;
    type Error = Error;

    fn read<T: Deserialize<'a>>(self) -> Result<T, Error> {
        let invalid =
            |why: &dyn fmt::Display| Error::invalid_params(format!("Invalid params for {}: {why}", self.method));
        if !is_object(self.raw) {
            return Err(invalid(&"expected an object"));
        }
        serde_json::from_str(self.raw).map_err(|e| invalid(&e))
    }

    fn unknown(self) -> Result<(Body, Option<RequestMeta>), Error> {
        Ok((Body::Unknown, None))
    }
}

/// The params' value in the message being parsed: `_meta` read strictly; a method no era serves fails the
/// parse as a value that does not read does (the message is then read again as [`Text`]).
pub(crate) struct Stream<D>(pub D);

impl<'de, D: Deserializer<'de>> Reader<'de> for Stream<D> {
    type Meta = RequestMeta;
    type Error = D::Error;

    fn read<T: Deserialize<'de>>(self) -> Result<T, D::Error> {
        struct Object<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Object<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map))
            }
        }
        self.0.deserialize_map(Object(PhantomData))
    }

    fn unknown(self) -> Result<(Body, Option<RequestMeta>), D::Error> {
        Err(D::Error::custom("a method no era serves"))
    }
}

/// Whether JSON text (valid already) is an object. JSON's whitespace is ASCII.
pub(crate) fn is_object(json: &str) -> bool {
    json.trim_ascii_start().starts_with('{')
}

/// `_meta` alone: `ping` and `server/discover`, and the era a request that does not parse meant (read
/// leniently, so its error is shaped for that era).
#[derive(Deserialize)]
#[serde(bound = "M: Deserialize<'de>")]
pub(crate) struct MetaIn<M> {
    #[serde(rename = "_meta", default = "none")]
    pub meta: Option<M>,
}

/// `tools/call` params as the server reads them: as [`CallToolParams`](crate::protocol::CallToolParams), with
/// `_meta` read for its envelope's keys only.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", bound = "M: Deserialize<'de>")]
struct CallToolIn<M> {
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
    #[serde(rename = "_meta", default = "none")]
    meta: Option<M>,
}

/// `*/list` params as the server reads them: as [`PaginatedParams`](crate::protocol::PaginatedParams), with
/// `_meta` read for its envelope's keys only.
#[derive(Deserialize)]
#[serde(bound = "M: Deserialize<'de>")]
struct PageIn<M> {
    #[serde(default)]
    cursor: Option<String>,
    #[serde(rename = "_meta", default = "none")]
    meta: Option<M>,
}

/// An absent `_meta` (a `default` that asks nothing of the meta type).
fn none<M>() -> Option<M> {
    None
}

/// A params type's `_meta`, as the keys the server reads.
pub(crate) trait IntoMeta {
    fn into_meta(self) -> RequestMeta;
}

impl IntoMeta for RequestMeta {
    fn into_meta(self) -> RequestMeta {
        self
    }
}

impl IntoMeta for Lenient {
    fn into_meta(self) -> RequestMeta {
        self.0
    }
}

impl IntoMeta for JsonObject {
    fn into_meta(self) -> RequestMeta {
        RequestMeta::from_object(self)
    }
}

/// Every method [`parse_body`] serves but the lists, whose names [`List::method`] has (tools/call first: it is
/// the one most requests name). A request keeps its method as one of these rather than a copy of its text
/// ([`method_name`]); a name missing here costs only that copy.
const SERVED: [&str; 14] = [
    "tools/call",
    "prompts/get",
    "resources/read",
    "completion/complete",
    "initialize",
    "ping",
    "server/discover",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    METHOD_LISTEN,
    METHOD_TASKS_GET,
    METHOD_TASKS_CANCEL,
    METHOD_TASKS_UPDATE,
];

/// A request's method as it is kept: the served name it is, or its own text.
pub(crate) fn method_name(text: Cow<'_, str>) -> Cow<'static, str> {
    let served = SERVED.into_iter().find(|served| *served == text).or_else(|| List::of(&text).map(List::method));
    match served {
        Some(served) => Cow::Borrowed(served),
        None => Cow::Owned(text.into_owned()),
    }
}

/// Parses params for `method`, returning them with their `_meta` taken out.
pub(crate) fn parse_body<'de, R: Reader<'de>>(
    method: &str,
    reader: R,
) -> Result<(Body, Option<RequestMeta>), R::Error> {
    macro_rules! parse {
        ($ty:ty, |$p:ident| $body:expr) => {{
            let mut $p: $ty = reader.read()?;
            let meta = $p.meta.take().map(IntoMeta::into_meta);
            Ok(($body, meta))
        }};
    }
    if let Some(list) = List::of(method) {
        return parse!(PageIn<R::Meta>, |p| Body::Serve {
            call: Call::List { list, cursor: p.cursor },
            retry: Retry::default()
        });
    }
    match method {
        // The tool's own type would read an array field by field: what `Mcp-Param-*` mirrors is by name.
        "tools/call" => {
            parse!(CallToolIn<R::Meta>, |p| match p.arguments.as_deref().filter(|a| !is_object(a.get())) {
                Some(_) =>
                    Body::Invalid(Error::invalid_params("Invalid params for tools/call: `arguments` must be an object")),
                None => Body::Serve {
                    call: Call::Tool { name: p.name, arguments: p.arguments },
                    retry: Retry { input_responses: p.input_responses, request_state: p.request_state },
                },
            })
        }
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
        "ping" | "server/discover" => parse!(MetaIn<R::Meta>, |p| Body::Bare),
        "logging/setLevel" => parse!(SetLevelParams, |p| Body::SetLevel(p.level)),
        "resources/subscribe" => parse!(ResourceUriParams, |p| Body::Subscribe(p.uri)),
        "resources/unsubscribe" => parse!(ResourceUriParams, |p| Body::Unsubscribe(p.uri)),
        METHOD_LISTEN => parse!(ListenParams, |p| Body::Listen(p)),
        METHOD_TASKS_GET => parse!(TaskParams, |p| Body::TaskGet(p.task_id)),
        METHOD_TASKS_CANCEL => parse!(TaskParams, |p| Body::TaskCancel(p.task_id)),
        METHOD_TASKS_UPDATE => {
            parse!(UpdateTaskParams, |p| Body::TaskUpdate { task_id: p.task_id, responses: p.input_responses })
        }
        _ => reader.unknown(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kept_name_is_a_served_method() {
        let lists = ["tools/list", "prompts/list", "resources/list", "resources/templates/list"];
        for name in SERVED.into_iter().chain(lists) {
            let (body, _) = parse_text(name, "{}");
            assert!(!matches!(body, Body::Unknown), "{name} is kept as served, but parse_body does not serve it");
            assert!(matches!(method_name(Cow::Owned(name.to_owned())), Cow::Borrowed(kept) if kept == name));
        }
        let (body, _) = parse_text("tools/calls", "{}");
        assert!(matches!(body, Body::Unknown));
        assert!(matches!(method_name(Cow::Borrowed("tools/calls")), Cow::Owned(text) if text == "tools/calls"));
    }
}

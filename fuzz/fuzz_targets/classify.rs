//! Era classification and the modern admission ladder (envelope, `MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name`, `Mcp-Param-*`) over a real server with a tool that mirrors three arguments into headers.
//!
//! Inputs are requests assembled from fuzzed parts (method, `_meta` keys, arguments, headers), or raw text.
//! Invariants: a message is legacy only if neither its `_meta` nor its headers claim the modern era; a
//! modern request is admitted only if its envelope names a modern version and capabilities, and (over
//! HTTP) every standard header equals what the body says and every `Mcp-Param-*` header decodes to the
//! argument it mirrors; a refusal is a JSON-RPC error with a code the ladder gives, and a 400 goes with an
//! envelope, version, header or params code, a 404 with `-32601`.
#![no_main]

use fastmcp::__fuzz::{Admission, AnswerStatus, Endpoint, HeaderList, decode_param_header};
use fastmcp::prelude::*;
use fastmcp_fuzz::Json;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};
use std::sync::LazyLock;

/// Routes a job; `region`, `count` and `dry` travel as `Mcp-Param-Region`, `-Count` and `-Dry` too.
#[tool]
async fn route(
    #[schemars(extend("x-mcp-header" = "Region"))] region: String,
    #[schemars(extend("x-mcp-header" = "Count"))] count: i64,
    #[schemars(extend("x-mcp-header" = "Dry"))] dry: bool,
) -> String {
    format!("{region} {count} {dry}")
}

static ENDPOINT: LazyLock<Endpoint> =
    LazyLock::new(|| Endpoint::new(FastMcp::new("fuzz").tool(route).build().expect("the server builds")));

const META: [&str; 6] = [
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/logLevel",
    "progressToken",
    "other",
];
const METHODS: [&str; 12] = [
    "tools/call",
    "tools/list",
    "prompts/get",
    "resources/read",
    "resources/list",
    "initialize",
    "ping",
    "server/discover",
    "subscriptions/listen",
    "tasks/get",
    "completion/complete",
    "nope",
];
const HEADERS: [&str; 7] =
    ["mcp-protocol-version", "mcp-method", "mcp-name", "mcp-param-region", "mcp-param-count", "mcp-param-dry", "x"];
const ARGS: [&str; 4] = ["region", "count", "dry", "extra"];
const VERSIONS: [&str; 4] = ["2026-07-28", "2025-11-25", "2024-11-05", "1999-01-01"];

#[derive(Debug, Arbitrary)]
enum MetaValue {
    Version(u8),
    Capabilities,
    Any(Json),
}

#[derive(Debug, Arbitrary)]
enum HeaderValue {
    /// What the body says for this header (a version, the method, the name, the argument), maybe encoded.
    Mirror {
        base64: bool,
        pad: bool,
    },
    Text(String),
    Bytes(Vec<u8>),
}

#[derive(Debug, Arbitrary)]
enum Body {
    Raw(String),
    Built {
        method: u8,
        id: Option<i8>,
        name: Option<String>,
        meta: Option<Vec<(u8, MetaValue)>>,
        args: Option<Vec<(u8, Json)>>,
    },
}

#[derive(Debug, Arbitrary)]
struct Input {
    body: Body,
    headers: Option<Vec<(u8, HeaderValue)>>,
}

fn pick<'a>(list: &[&'a str], i: u8) -> &'a str {
    list[usize::from(i) % list.len()]
}

fn build(body: &Body) -> String {
    let Body::Built { method, id, name, meta, args } = body else { unreachable!() };
    let method = pick(&METHODS, *method);
    let mut params = Map::new();
    if let Some(name) = name {
        let key = if method == "resources/read" { "uri" } else { "name" };
        params.insert(key.into(), Value::from(name.as_str()));
    } else if method == "tools/call" {
        params.insert("name".into(), "route".into());
    }
    if let Some(meta) = meta {
        let meta: Map<String, Value> = meta
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    MetaValue::Version(i) => Value::from(pick(&VERSIONS, *i)),
                    MetaValue::Capabilities => json!({"sampling": {}, "elicitation": {"form": {}}}),
                    MetaValue::Any(Json(v)) => v.clone(),
                };
                (pick(&META, *k).to_owned(), v)
            })
            .collect();
        params.insert("_meta".into(), Value::Object(meta));
    }
    if let Some(args) = args {
        let args: Map<String, Value> =
            args.iter().map(|(k, Json(v))| (pick(&ARGS, *k).to_owned(), v.clone())).collect();
        params.insert("arguments".into(), Value::Object(args));
    }
    let mut message = json!({"jsonrpc": "2.0", "method": method, "params": params});
    if let Some(id) = id {
        message["id"] = Value::from(*id);
    }
    message.to_string()
}

/// What the body says that `header` mirrors, as text.
fn mirrored(header: &str, body: &Value) -> Option<String> {
    let params = &body["params"];
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    };
    match header {
        "mcp-protocol-version" => text(&params["_meta"]["io.modelcontextprotocol/protocolVersion"]),
        "mcp-method" => text(&body["method"]),
        "mcp-name" => text(&params["name"]).or_else(|| text(&params["uri"])),
        "mcp-param-region" => text(&params["arguments"]["region"]),
        "mcp-param-count" => text(&params["arguments"]["count"]),
        "mcp-param-dry" => text(&params["arguments"]["dry"]),
        _ => None,
    }
}

fn headers(list: &[(u8, HeaderValue)], body: &Value) -> HeaderList {
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for (name, value) in list {
        let name = pick(&HEADERS, *name);
        let value = match value {
            HeaderValue::Mirror { base64, pad } => {
                let Some(text) = mirrored(name, body) else { continue };
                let text = if *base64 { fastmcp::__fuzz::encode_param_header(&text) } else { text };
                if *pad { format!(" {text}\t").into_bytes() } else { text.into_bytes() }
            }
            HeaderValue::Text(t) => t.clone().into_bytes(),
            HeaderValue::Bytes(b) => b.clone(),
        };
        // One value per name, as a header map's `get` returns the first.
        if !out.iter().any(|(n, _)| n == name) {
            out.push((name.to_owned(), value));
        }
    }
    HeaderList(out)
}

/// A header's value as the adapters read it: visible ASCII, optional whitespace trimmed.
fn text<'a>(headers: &'a HeaderList, name: &str) -> Option<&'a str> {
    let (_, v) = headers.0.iter().find(|(n, _)| n == name)?;
    let v = std::str::from_utf8(v).ok()?;
    v.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b)).then(|| v.trim())
}

fn check(text_in: &str, headers: Option<&HeaderList>) {
    let admission = ENDPOINT.admit(text_in, headers);
    let body = serde_json::from_str::<Value>(text_in).ok();
    let claims_modern = |meta: &Map<String, Value>| META[..3].iter().any(|k| meta.contains_key(*k));
    let header_modern = headers.and_then(|h| text(h, "mcp-protocol-version")) == Some("2026-07-28");
    match admission {
        Admission::Rejected(r) => assert!(matches!(r.error.code, -32700 | -32600), "{r:?}"),
        Admission::Notification | Admission::Response => {}
        Admission::Legacy { .. } => {
            assert!(!header_modern, "legacy despite a modern MCP-Protocol-Version: {text_in}");
            // A `_meta` read from the JSON (which keeps the last of repeated keys, where the params' parser
            // refuses them) that claims the modern era must have made the request modern.
            let repeated = text_in.matches("\"_meta\"").count() > 1;
            if let Some(meta) = body.as_ref().and_then(|b| b["params"]["_meta"].as_object()).filter(|_| !repeated) {
                assert!(!claims_modern(meta), "legacy despite a modern _meta: {text_in}");
            }
        }
        Admission::Admitted { method, meta, .. } => {
            let version = meta.get("io.modelcontextprotocol/protocolVersion").and_then(Value::as_str);
            assert_eq!(version, Some("2026-07-28"), "admitted without a modern version: {text_in}");
            assert!(meta.contains_key("io.modelcontextprotocol/clientCapabilities"), "{text_in}");
            if let Some(h) = headers {
                assert_eq!(text(h, "mcp-protocol-version"), version, "{text_in} {h:?}");
                assert_eq!(text(h, "mcp-method"), Some(method.as_str()), "{text_in} {h:?}");
                let body = body.expect("an admitted request is JSON");
                if method == "tools/call" && body["params"]["name"] == "route" {
                    for (header, arg) in
                        [("mcp-param-region", "region"), ("mcp-param-count", "count"), ("mcp-param-dry", "dry")]
                    {
                        let arg = &body["params"]["arguments"][arg];
                        let sent = h.0.iter().find(|(n, _)| n == header).map(|(_, v)| v.as_slice());
                        match (sent, arg) {
                            (None, Value::Null) => {}
                            (Some(v), Value::String(s)) => assert_eq!(&decode_param_header(v).unwrap(), s),
                            (Some(v), Value::Number(n)) => {
                                assert_eq!(decode_param_header(v).unwrap().parse::<i64>().ok(), n.as_i64())
                            }
                            (Some(v), Value::Bool(b)) => assert_eq!(decode_param_header(v).unwrap(), b.to_string()),
                            other => panic!("admitted with {header} {other:?}: {text_in}"),
                        }
                    }
                }
            }
        }
        Admission::Refused { json, status, meta } => {
            let answer: Value = serde_json::from_str(&json).expect("the answer is JSON");
            let code = answer["error"]["code"].as_i64().expect("an error code");
            assert!(header_modern || claims_modern(&meta), "refused as modern without a claim: {text_in}");
            match status {
                AnswerStatus::BadRequest => {
                    assert!(matches!(code, -32020 | -32022 | -32602), "400 with {code}: {json}")
                }
                AnswerStatus::NotFound => assert_eq!(code, -32601, "404 with {code}: {json}"),
                AnswerStatus::Ok => assert!(matches!(code, -32602 | -32021), "200 with {code}: {json}"),
                AnswerStatus::Refused => {}
                // Only a one-time round over its client's share is answered 429, and admission runs none.
                AnswerStatus::TooMany => panic!("429 at admission: {json}"),
            }
        }
    }
}

/// Text input (the seed corpus's form): `name: value` header lines, a blank line, the body; or a body alone.
fn from_text(data: &[u8]) -> Option<(String, Option<HeaderList>)> {
    let text = std::str::from_utf8(data).ok()?;
    Some(match text.split_once("\n\n") {
        Some((head, body)) => {
            let list = head
                .lines()
                .filter_map(|l| l.split_once(':'))
                .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.as_bytes().to_vec()))
                .collect();
            (body.to_owned(), Some(HeaderList(list)))
        }
        None => (text.to_owned(), None),
    })
}

fuzz_target!(|data: &[u8]| {
    // A leading 0xFF selects typed input; anything else is text.
    let (text, headers) = match data.split_first() {
        Some((0xFF, rest)) => {
            let Ok(input) = Input::arbitrary_take_rest(arbitrary::Unstructured::new(rest)) else { return };
            let text = match &input.body {
                Body::Raw(raw) => raw.clone(),
                built => build(built),
            };
            let headers = input.headers.as_ref().map(|list| {
                let body = serde_json::from_str::<Value>(&text).unwrap_or(Value::Null);
                headers(list, &body)
            });
            (text, headers)
        }
        _ => match from_text(data) {
            Some(parsed) => parsed,
            None => return,
        },
    };
    check(&text, None);
    check(&text, headers.as_ref());
});

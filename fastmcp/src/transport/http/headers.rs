//! What the HTTP headers of a request must say: DNS-rebinding checks, and on the modern protocol the standard
//! headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) and `Mcp-Param-*` mirrored arguments, each
//! equal to what the body says.

use crate::protocol::{Era, JsonObject, META_PROTOCOL_VERSION, ProtocolVersion, Request};
use crate::server::Server;
use crate::server::param_headers::{ParamHeader, ParamKind};
use base64::Engine as _;
use hyper::header::{self, HeaderMap};
use serde_json::Value;

pub(crate) const SESSION: &str = "mcp-session-id";
pub(crate) const PROTOCOL_VERSION: &str = "mcp-protocol-version";
const METHOD: &str = "mcp-method";
const NAME: &str = "mcp-name";
pub(crate) const LAST_EVENT_ID: &str = "last-event-id";

/// A header's value as text, with optional whitespace trimmed; `None` if absent or not visible ASCII.
pub(crate) fn text<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim)
}

/// DNS-rebinding protection for local servers: `Host` must name the loopback, and an `Origin`, if sent,
/// must be a loopback origin.
pub(crate) fn local_origin(headers: &HeaderMap) -> bool {
    let host = text(headers, header::HOST.as_str()).unwrap_or("");
    let host_ok = host.is_empty() || is_loopback_authority(host);
    let origin_ok = headers.get(header::ORIGIN).is_none_or(|o| {
        o.to_str()
            .ok()
            .and_then(|o| o.strip_prefix("http://").or_else(|| o.strip_prefix("https://")))
            .is_some_and(is_loopback_authority)
    });
    host_ok && origin_ok
}

/// `localhost`, `127.x.y.z` or `[::1]`, with an optional port.
fn is_loopback_authority(authority: &str) -> bool {
    let host = if let Some(rest) = authority.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        authority
            .rsplit_once(':')
            .map_or(authority, |(host, port)| if port.bytes().all(|b| b.is_ascii_digit()) { host } else { authority })
    };
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// An `MCP-Protocol-Version` header naming a modern revision.
pub(crate) fn claims_modern(headers: &HeaderMap) -> bool {
    text(headers, PROTOCOL_VERSION).and_then(ProtocolVersion::parse).is_some_and(|v| v.era() == Era::Modern)
}

/// The params fields a modern request's headers mirror.
#[derive(serde::Deserialize)]
struct Mirrored {
    name: Option<String>,
    uri: Option<String>,
    #[serde(rename = "taskId")]
    task_id: Option<String>,
    /// Parsed only for a tool that mirrors arguments into headers.
    arguments: Option<Box<serde_json::value::RawValue>>,
}

/// A modern request's headers against its body: `MCP-Protocol-Version` equals the `_meta` version,
/// `Mcp-Method` the method, `Mcp-Name` the name, URI or task id where the method has one, and every
/// `Mcp-Param-*` the argument it mirrors. Names compare case-insensitively (hyper's header map), values
/// exactly after trimming optional whitespace. The error says what disagrees (`-32020` on the wire).
pub(crate) fn check_modern(
    server: &Server,
    headers: &HeaderMap,
    req: &Request,
    meta: &JsonObject,
) -> Result<(), String> {
    let body_version = meta.get(META_PROTOCOL_VERSION).and_then(Value::as_str);
    match (text(headers, PROTOCOL_VERSION), body_version) {
        (None, _) => return Err("MCP-Protocol-Version is required on modern requests".into()),
        (Some(h), Some(b)) if h != b => return Err(format!("MCP-Protocol-Version is {h} but _meta says {b}")),
        _ => {}
    }
    match text(headers, METHOD) {
        None => return Err("Mcp-Method is required".into()),
        Some(m) if m != req.method => return Err(format!("Mcp-Method is {m} but the body's method is {}", req.method)),
        _ => {}
    }
    let key = match req.method.as_str() {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return Ok(()),
    };
    let mirrored: Option<Mirrored> = req.params.as_deref().and_then(|p| serde_json::from_str(p.get()).ok());
    let (body, arguments) = match mirrored {
        Some(m) => (
            match key {
                "name" => m.name,
                "uri" => m.uri,
                _ => m.task_id,
            },
            m.arguments,
        ),
        None => (None, None),
    };
    match (text(headers, NAME), &body) {
        (None, _) => return Err(format!("Mcp-Name is required for {}", req.method)),
        (Some(h), Some(b)) if h != b => return Err(format!("Mcp-Name is {h} but the body's {key} is {b}")),
        _ => {}
    }
    if req.method == "tools/call"
        && let Some(tool) = body.as_deref().and_then(|name| server.inner.registry.tools.get(name))
        && !tool.param_headers.is_empty()
    {
        let arguments = arguments.and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or(Value::Null);
        for param in &tool.param_headers {
            check_param(headers, param, &arguments)?;
        }
    }
    Ok(())
}

/// One `Mcp-Param-*` header against the argument it mirrors: present exactly when the argument is, and
/// equal to it once decoded (`=?base64?…?=` values are Base64 of the UTF-8 text; integers compare as numbers).
fn check_param(headers: &HeaderMap, param: &ParamHeader, arguments: &Value) -> Result<(), String> {
    let name = param.header();
    let header = headers
        .get(&name)
        .map(|v| decode(v.as_bytes()))
        .transpose()
        .map_err(|why| format!("Mcp-Param-{} {why}", param.name))?;
    match (header.as_deref(), param.value(arguments)) {
        (None, None) => Ok(()),
        (None, Some(_)) => {
            Err(format!("Mcp-Param-{} is required: the body has argument `{}`", param.name, param.path.join(".")))
        }
        (Some(_), None) => {
            Err(format!("Mcp-Param-{} is sent but the body has no argument `{}`", param.name, param.path.join(".")))
        }
        (Some(h), Some(body)) => {
            let equal = match (param.kind, body) {
                (ParamKind::String, Value::String(s)) => h == s,
                (ParamKind::Integer, Value::Number(n)) => h.parse::<i64>().ok().is_some_and(|h| n.as_i64() == Some(h)),
                (ParamKind::Boolean, Value::Bool(b)) => h == if *b { "true" } else { "false" },
                // A body value of the wrong type fails the tool's own argument check; the header can't match it.
                _ => false,
            };
            if equal {
                Ok(())
            } else {
                Err(format!("Mcp-Param-{} is {h:?} but the body's `{}` is {body}", param.name, param.path.join(".")))
            }
        }
    }
}

/// A mirrored header's text: literal (optional whitespace trimmed), or `=?base64?…?=` decoded exactly
/// (strict alphabet and padding). Only the complete wrapper marks Base64; anything else is literal.
fn decode(raw: &[u8]) -> Result<String, String> {
    let text = std::str::from_utf8(raw).map_err(|_| "is not valid text".to_owned())?.trim();
    let Some(encoded) = text.strip_prefix("=?base64?").and_then(|rest| rest.strip_suffix("?=")) else {
        return Ok(text.to_owned());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|e| format!("has invalid Base64 in its =?base64?…?= value: {e}"))?;
    String::from_utf8(bytes).map_err(|_| "decodes to bytes that are not UTF-8".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_authorities() {
        for ok in ["localhost", "localhost:8000", "127.0.0.1", "127.0.0.1:3000", "[::1]", "[::1]:8000", "LOCALHOST"] {
            assert!(is_loopback_authority(ok), "{ok}");
        }
        for bad in ["evil.com", "evil.com:80", "10.0.0.1", "localhost.evil.com", "[::2]:80", ""] {
            assert!(!is_loopback_authority(bad), "{bad}");
        }
    }

    #[test]
    fn base64_values() {
        assert_eq!(decode(b"=?base64?SGVsbG8=?=").unwrap(), "Hello");
        assert!(decode(b"=?base64?SGVsbG8?=").unwrap_err().contains("Base64"), "missing padding");
        assert!(decode(b"=?base64?SGVs!!!bG8=?=").is_err(), "outside the alphabet");
        // Without the full wrapper the value is literal.
        assert_eq!(decode(b"SGVsbG8=").unwrap(), "SGVsbG8=");
        assert_eq!(decode(b"=?base64?SGVsbG8=").unwrap(), "=?base64?SGVsbG8=");
        assert_eq!(decode("=?base64?5pel5pys?=".as_bytes()).unwrap(), "日本");
    }
}

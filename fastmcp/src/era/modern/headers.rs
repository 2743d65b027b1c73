//! What the HTTP headers of a modern request must say: the standard headers (`MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name`) and the `Mcp-Param-*` mirrored arguments, each equal to what the body says, as
//! the body was parsed (once) for dispatch, so what gateways route on is what the server serves.

use crate::era::classify::{Body, Headers, METHOD_HEADER, NAME_HEADER, PROTOCOL_VERSION_HEADER, text};
use crate::era::request_meta::{RequestMeta, Slot, Version};
use crate::protocol::param_headers::{ParamHeader, ParamKind, decode};
use crate::server::registry::ToolEntry;
use serde_json::Value;
use serde_json::value::RawValue;

/// A cross-checked header is sent at most once (`shown` is its name as the spec spells it): its value, if sent.
fn sent_once<'h>(
    headers: &'h dyn Headers,
    name: &str,
    shown: &dyn std::fmt::Display,
) -> Result<Option<&'h [u8]>, String> {
    match headers.first(name) {
        (_, true) => Err(format!("{shown} is sent more than once")),
        (value, false) => Ok(value),
    }
}

/// A cross-checked header's text.
fn single<'h>(headers: &'h dyn Headers, name: &str, shown: &str) -> Result<Option<&'h str>, String> {
    Ok(sent_once(headers, name, &shown)?.and_then(text))
}

/// The classification rung: `MCP-Protocol-Version` is sent and equals the `_meta` version.
pub(crate) fn check_version(headers: &dyn Headers, meta: &RequestMeta) -> Result<(), String> {
    let body = meta.protocol_version.as_ref().and_then(Slot::read).map(Version::as_str);
    match (single(headers, PROTOCOL_VERSION_HEADER, "MCP-Protocol-Version")?, body) {
        (None, _) => Err("MCP-Protocol-Version is required on modern requests".into()),
        (Some(h), Some(b)) if h != b => Err(format!("MCP-Protocol-Version is {h} but _meta says {b}")),
        _ => Ok(()),
    }
}

/// What `Mcp-Name` mirrors for a method that has one: the tool or prompt name, the resource URI, the task id.
pub(crate) fn mirrored(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// The standard headers rung: `Mcp-Method` equals the method, and `Mcp-Name` the name, URI or task id the
/// params name, where the method has one. Names compare case-insensitively (header maps), values exactly
/// after trimming optional whitespace. The error says what disagrees (`-32020` on the wire).
pub(crate) fn check_standard(headers: &dyn Headers, method: &str, body: &Body) -> Result<(), String> {
    match single(headers, METHOD_HEADER, "Mcp-Method")? {
        None => return Err("Mcp-Method is required".into()),
        Some(m) if m != method => return Err(format!("Mcp-Method is {m} but the body's method is {method}")),
        _ => {}
    }
    let Some(key) = mirrored(method) else { return Ok(()) };
    let named = match body {
        Body::Serve { call, .. } => call.target(),
        Body::TaskGet(id) | Body::TaskCancel(id) | Body::TaskUpdate { task_id: id, .. } => Some(id.as_str()),
        _ => None,
    };
    match (single(headers, NAME_HEADER, "Mcp-Name")?, named) {
        (None, _) => Err(format!("Mcp-Name is required for {method}")),
        (Some(h), Some(b)) if h != b => Err(format!("Mcp-Name is {h} but the body's {key} is {b}")),
        _ => Ok(()),
    }
}

/// Every `Mcp-Param-*` header of a tool that mirrors arguments, against the call's arguments.
pub(crate) fn check_params(
    headers: &dyn Headers,
    tool: &ToolEntry,
    arguments: Option<&RawValue>,
) -> Result<(), String> {
    if tool.param_headers.is_empty() {
        return Ok(());
    }
    // The arguments are JSON already (the params parsed): this reads them as values, nothing more lenient.
    let arguments = match arguments {
        Some(raw) => {
            serde_json::from_str(raw.get()).map_err(|e| format!("the body's arguments are unreadable: {e}"))?
        }
        None => Value::Null,
    };
    tool.param_headers.iter().try_for_each(|param| check_param(headers, param, &arguments))
}

/// One `Mcp-Param-*` header against the argument it mirrors: present exactly when the argument is, and
/// equal to it once decoded (`=?base64?…?=` values are Base64 of the UTF-8 text; integers compare as numbers).
fn check_param(headers: &dyn Headers, param: &ParamHeader, arguments: &Value) -> Result<(), String> {
    let name = param.header();
    let header = sent_once(headers, &name, &format_args!("Mcp-Param-{}", param.name))?;
    let header = header.map(decode).transpose().map_err(|why| format!("Mcp-Param-{} {why}", param.name))?;
    let body = param.find(arguments).map_err(|why| format!("Mcp-Param-{} can't be checked: {why}", param.name))?;
    match (header.as_deref(), body) {
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

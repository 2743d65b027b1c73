//! A modern outcome on the wire, serialized in one pass: the result's fields, `resultType`, the cache hints
//! where the spec requires them, and `serverInfo` (serialized once at start-up) in `_meta`.

use super::Wire;
use crate::protocol::{CacheScope, Era, JsonObject, META_SERVER_INFO, RequestId, error_json, response_json};
use crate::server::Server;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// Renders an outcome on the modern wire, with the modern codes for errors.
pub(super) fn render(server: &Server, id: &RequestId, wire: Wire) -> String {
    let (reply, result_type) = match wire {
        Wire::Complete(reply) => (reply, "complete"),
        Wire::InputRequired(asking) => (asking.into_reply(), "input_required"),
        Wire::Task(reply) => (reply, "task"),
        Wire::Error(e) => return error_json(Some(id), &e.to_error_object(Era::Modern)),
    };
    let inner = &server.inner;
    let cache = reply.cache.filter(|_| result_type == "complete").map(|hint| {
        // What a protected server answers depends on who asks: never for shared caches.
        let scope = if inner.gate.is_some() { CacheScope::Private } else { hint.scope };
        (hint.ttl_ms(), scope)
    });
    let server_info = &*inner.server_info_meta;
    // A result with a `_meta` of its own, or one of the fields this sets, is read as a map to merge them.
    // `input_required` has only its own two fields, whatever its input requests hold.
    if result_type != "input_required" && reply.mentions_any(&OURS) {
        let fields = reply.fields();
        return response_json(id, ModernResult { fields: &fields, result_type, cache, server_info });
    }
    reply.into_response(id, |out| {
        out.push_str(",\"resultType\":\"");
        out.push_str(result_type);
        out.push('"');
        if let Some((ttl_ms, scope)) = cache {
            use std::fmt::Write as _;
            let scope = match scope {
                CacheScope::Public => "public",
                CacheScope::Private => "private",
            };
            let _ = write!(out, ",\"ttlMs\":{ttl_ms},\"cacheScope\":\"{scope}\"");
        }
        out.push_str(",\"_meta\":{\"");
        out.push_str(META_SERVER_INFO);
        out.push_str("\":");
        out.push_str(server_info.get());
        out.push('}');
    })
}

/// The fields a modern result gets here, which a reply that has them already must have merged or replaced.
const OURS: [&str; 4] = ["_meta", "resultType", "ttlMs", "cacheScope"];

/// The result object of a reply read as a map: its own fields in their order (a `_meta` of its own keeps its place, with
/// `serverInfo` added), then `resultType`, `ttlMs` and `cacheScope`, then `_meta` if the reply had none.
struct ModernResult<'a> {
    fields: &'a JsonObject,
    result_type: &'static str,
    cache: Option<(u64, CacheScope)>,
    server_info: &'a RawValue,
}

impl Serialize for ModernResult<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        let mut has_meta = false;
        for (key, value) in self.fields {
            match key.as_str() {
                "resultType" => {}
                // A result's own `ttlMs` (a task's) stays, unless cache hints replace it.
                "ttlMs" | "cacheScope" if self.cache.is_some() => {}
                "_meta" => {
                    has_meta = true;
                    map.serialize_entry(key, &Meta { own: value.as_object(), server_info: self.server_info })?;
                }
                _ => map.serialize_entry(key, value)?,
            }
        }
        map.serialize_entry("resultType", self.result_type)?;
        if let Some((ttl_ms, scope)) = self.cache {
            map.serialize_entry("ttlMs", &ttl_ms)?;
            map.serialize_entry("cacheScope", &scope)?;
        }
        if !has_meta {
            map.serialize_entry("_meta", &Meta { own: None, server_info: self.server_info })?;
        }
        map.end()
    }
}

/// A result's `_meta`: its own keys, then `serverInfo`.
struct Meta<'a> {
    own: Option<&'a JsonObject>,
    server_info: &'a RawValue,
}

impl Serialize for Meta<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for (key, value) in self.own.into_iter().flatten().filter(|(key, _)| *key != META_SERVER_INFO) {
            map.serialize_entry(key, value as &Value)?;
        }
        map.serialize_entry(META_SERVER_INFO, self.server_info)?;
        map.end()
    }
}

//! A complete result, serialized once: the handler's value becomes JSON text when it is returned, and each
//! era writes that text into its response with its own fields beside it, with no `Value` tree between.

use crate::error::Error;
use crate::protocol::{CacheHint, JsonObject};
use serde::Serialize;
use serde_json::value::RawValue;
use std::sync::Arc;

/// A complete result's body, before the era adapter adds its own fields.
pub(crate) struct Reply {
    /// A field whose JSON was serialized once at start-up (a `*/list` page), written first.
    raw: Option<(&'static str, Arc<RawValue>)>,
    /// The result's own fields: a JSON object's text, as serde_json writes it (no whitespace). A `String`,
    /// not a `Box<RawValue>`: boxing would shrink (reallocate) the text serde_json wrote, on every call.
    object: String,
    /// List, read and discover results carry cache hints on the modern wire: these.
    pub cache: Option<CacheHint>,
}

impl Reply {
    pub fn new(result: impl Serialize, cache: Option<CacheHint>) -> Result<Self, Error> {
        let object = serde_json::to_string(&result)?;
        if !object.starts_with('{') {
            return Err(Error::internal(format!("a result must be a JSON object, not {object}")));
        }
        Ok(Self { raw: None, object, cache })
    }

    /// `{}`: what `ping`, `logging/setLevel` and the like answer.
    pub fn empty() -> Self {
        Self::new(JsonObject::new(), None).expect("an empty object serializes")
    }

    /// A `*/list` page: its items serialized at start-up under `key`, and the cursor of the next page.
    pub fn page(key: &'static str, page: Arc<RawValue>, next_cursor: Option<String>, hint: CacheHint) -> Self {
        #[derive(Serialize)]
        struct Next {
            #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
            next_cursor: Option<String>,
        }
        let mut reply = Self::new(Next { next_cursor }, Some(hint)).expect("a cursor serializes");
        reply.raw = Some((key, page));
        reply
    }

    /// Whether the result names one of `keys` anywhere as a key (`"key":`; not text inside a string, where
    /// serde_json escapes a quote). A cheap test before the rare result that needs reading as a map: one pass
    /// over the colons, not a substring search per key.
    pub fn mentions_any(&self, keys: &[&str]) -> bool {
        let text = self.object.as_bytes();
        let named = |before: &[u8]| {
            keys.iter().any(|key| before.strip_suffix(key.as_bytes()).is_some_and(|rest| rest.ends_with(b"\"")))
        };
        (1..text.len()).any(|at| text[at] == b':' && text[at - 1] == b'"' && named(&text[..at - 1]))
    }

    /// The result's fields, read as a map (for the rare result whose fields an era must change).
    pub fn fields(&self) -> JsonObject {
        serde_json::from_str(&self.object).unwrap_or_default()
    }

    /// `isError: true`: a tool's failure.
    pub fn is_tool_error(&self) -> bool {
        #[derive(serde::Deserialize)]
        struct IsError {
            #[serde(rename = "isError", default)]
            is_error: Option<serde_json::Value>,
        }
        serde_json::from_str::<IsError>(&self.object).is_ok_and(|r| r.is_error == Some(serde_json::Value::Bool(true)))
    }

    /// Writes the result object into `out`: the start-up field, the result's own fields, then whatever
    /// `extra` writes (each entry it writes starts with a comma).
    pub fn write(&self, out: &mut String, extra: impl FnOnce(&mut String)) {
        let inner = &self.object[1..self.object.len() - 1];
        out.push('{');
        let mut empty = true;
        if let Some((key, raw)) = &self.raw {
            out.push('"');
            out.push_str(key);
            out.push_str("\":");
            out.push_str(raw.get());
            empty = false;
        }
        if !inner.is_empty() {
            if !empty {
                out.push(',');
            }
            out.push_str(inner);
            empty = false;
        }
        let mark = out.len();
        extra(out);
        // `extra`'s entries each start with a comma, which an object with nothing before them must lose.
        if empty && out.len() > mark {
            out.remove(mark);
        }
        out.push('}');
    }

    /// The result object's text.
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(self.len());
        self.write(&mut out, |_| {});
        out
    }

    /// About how long the written object is, to size buffers.
    pub fn len(&self) -> usize {
        self.object.len() + self.raw.as_ref().map_or(0, |(key, raw)| key.len() + raw.get().len() + 4)
    }
}

#[cfg(test)]
mod tests {
    use super::Reply;
    use serde_json::json;

    const KEYS: [&str; 2] = ["_meta", "ttlMs"];

    fn mentions(result: serde_json::Value) -> bool {
        Reply::new(result, None).unwrap().mentions_any(&KEYS)
    }

    #[test]
    fn a_key_is_found_at_any_depth_and_text_is_not_a_key() {
        assert!(mentions(json!({"content": [], "_meta": {}})));
        assert!(mentions(json!({"content": [{"type": "text", "text": "x", "ttlMs": 1}]})));
        assert!(!mentions(json!({"content": [{"type": "text", "text": "_meta"}]})));
        assert!(!mentions(json!({"text": "\"_meta\":1, \"ttlMs\": 2"})));
        assert!(!mentions(json!({"x_meta": 1, "ttlMsx": 2, "url": "https://h:1/_meta"})));
        assert!(!mentions(json!({})));
    }
}

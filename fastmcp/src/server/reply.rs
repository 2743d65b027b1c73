//! A complete result, serialized once: the handler's value becomes JSON text when it is returned, and each
//! era writes that text into its response with its own fields beside it, with no `Value` tree between.

use crate::error::Error;
use crate::protocol::{CacheHint, JsonObject, RequestId, into_response};
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
    /// What a result's buffer is made with: room for a small result, the response's head and the modern
    /// wire's fields (`resultType`, cache hints, `serverInfo`) without growing.
    pub const ROOM: usize = 512;

    pub fn new(result: impl Serialize, cache: Option<CacheHint>) -> Result<Self, Error> {
        // With room for what the response adds around a small result (see `into_response`). Made as bytes,
        // which are checked once as UTF-8: a scan of the result, against the reallocation and copy that
        // `to_string`'s 128 bytes would cost it here.
        let mut text = Vec::with_capacity(Self::ROOM);
        serde_json::to_writer(&mut text, &result)?;
        let object = String::from_utf8(text).map_err(|e| Error::internal(format!("a result serialized to {e}")))?;
        if !object.starts_with('{') {
            return Err(Error::internal(format!("a result must be a JSON object, not {object}")));
        }
        Ok(Self { raw: None, object, cache })
    }

    /// A result whose object text was written by hand (`{…}`, valid JSON), in a buffer with room for what
    /// the response adds around it.
    pub fn object(object: String) -> Self {
        debug_assert!(object.starts_with('{') && object.ends_with('}'), "{object}");
        Self { raw: None, object, cache: None }
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

    /// The JSON-RPC response to `id` with this result, `extra`'s fields after the result's own (each entry it
    /// writes starts with a comma). Made in the buffer the result was serialized into, which has room for
    /// what a small result gets around it: one allocation and one copy of the result fewer a response.
    pub fn into_response(self, id: &RequestId, extra: impl FnOnce(&mut String)) -> String {
        let mut text = if self.raw.is_none() { self.object } else { self.text() };
        // `text` is `{…}`: `extra`'s fields go before its `}`, the response's own `}` after it.
        text.pop();
        let mark = text.len();
        extra(&mut text);
        // An object with nothing before them loses the comma of `extra`'s first entry.
        if mark == 1 && text.len() > mark {
            text.remove(mark);
        }
        text.push_str("}}");
        into_response(id, text)
    }

    /// The result object's text: the start-up field, then the result's own fields.
    pub fn text(&self) -> String {
        let Some((key, raw)) = &self.raw else { return self.object.clone() };
        let inner = &self.object[1..self.object.len() - 1];
        let mut out = String::with_capacity(self.len());
        out.push_str("{\"");
        out.push_str(key);
        out.push_str("\":");
        out.push_str(raw.get());
        if !inner.is_empty() {
            out.push(',');
            out.push_str(inner);
        }
        out.push('}');
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
    use crate::protocol::RequestId;
    use serde_json::json;
    use serde_json::value::RawValue;
    use std::sync::Arc;

    const KEYS: [&str; 2] = ["_meta", "ttlMs"];

    fn mentions(result: serde_json::Value) -> bool {
        Reply::new(result, None).unwrap().mentions_any(&KEYS)
    }

    #[test]
    fn a_response_is_made_around_the_result_for_any_id() {
        let extra = |out: &mut String| out.push_str(",\"resultType\":\"complete\"");
        let reply = || Reply::new(json!({"content": []}), None).unwrap();
        let long = RequestId::String(format!("q\"{}", "x".repeat(200)));
        for id in [RequestId::Number(-7), RequestId::String("a\"b\\c\u{1}".into()), long] {
            let line = reply().into_response(&id, extra);
            let parsed: serde_json::Value = serde_json::from_str(&line).unwrap();
            let expected = json!({"jsonrpc": "2.0", "id": id, "result": {"content": [], "resultType": "complete"}});
            assert_eq!(parsed, expected, "{line}");
        }
        let empty = Reply::new(json!({}), None).unwrap().into_response(&RequestId::Number(1), extra);
        assert_eq!(empty, r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}"#);
        let hint = crate::protocol::CacheHint::NONE;
        let page = Reply::page("tools", Arc::from(RawValue::from_string("[1]".into()).unwrap()), None, hint);
        let line = page.into_response(&RequestId::Number(2), |_| {});
        assert_eq!(line, r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[1]}}"#);
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

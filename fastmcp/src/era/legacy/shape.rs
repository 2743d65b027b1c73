//! Input requests adapted to a legacy session's revision: URL-mode elicitation needs an `elicitationId` on
//! the 2025-11-25 wire, and revisions before it know no `mode` for forms and no titled `oneOf` selects (they
//! get `enum` + `enumNames`).

use crate::protocol::{ElicitMode, InputRequest, JsonObject, ProtocolVersion};
use serde_json::Value;

/// `request` as a session at `version` expects it.
pub(crate) fn input_request(mut request: InputRequest, version: ProtocolVersion) -> InputRequest {
    if let InputRequest::Elicit(params) = &mut request {
        match params.mode {
            Some(ElicitMode::Url) => params.elicitation_id = Some(elicitation_id()),
            Some(ElicitMode::Form) if version < ProtocolVersion::V2025_11_25 => {
                params.mode = None;
                if let Some(schema) = &mut params.requested_schema {
                    legacy_enum_names(std::sync::Arc::make_mut(schema));
                }
            }
            _ => {}
        }
    }
    request
}

fn elicitation_id() -> String {
    crate::ids::random().unwrap_or_else(|_| {
        // Uniqueness within the session is what matters; the clock is a fallback, never a secret.
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        crate::ids::hex(&nanos.as_nanos().to_le_bytes())
    })
}

/// Rewrites titled single selects (`oneOf: [{const, title}]`) as the legacy `enum` + `enumNames`, the only
/// titled enum that 2025-06-18 clients know. Other properties are left as they are.
fn legacy_enum_names(schema: &mut JsonObject) {
    let Some(Value::Object(properties)) = schema.get_mut("properties") else { return };
    for property in properties.values_mut() {
        if let Value::Object(p) = property {
            titles_as_enum_names(p);
        }
    }
}

/// One property's `oneOf: [{const, title}]` as `enum` + `enumNames`; other properties are left alone.
fn titles_as_enum_names(p: &mut JsonObject) {
    let Some(Value::Array(one_of)) = p.remove("oneOf") else { return };
    let mut values = Vec::with_capacity(one_of.len());
    let mut names = Vec::with_capacity(one_of.len());
    for choice in &one_of {
        values.push(choice.get("const").cloned().unwrap_or(Value::Null));
        names.push(choice.get("title").or_else(|| choice.get("const")).cloned().unwrap_or(Value::Null));
    }
    p.insert("enum".into(), Value::Array(values));
    p.insert("enumNames".into(), Value::Array(names));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> JsonObject {
        v.as_object().cloned().unwrap_or_default()
    }

    /// A form's schema is shared by all its asks: rewriting one request's for an old client leaves the
    /// schema every other request holds as it was.
    #[test]
    fn an_old_clients_rewrite_leaves_the_shared_schema_alone() {
        let shared = std::sync::Arc::new(object(json!({"type": "object", "properties": {
            "p": {"type": "string", "oneOf": [{"const": "a", "title": "A"}]}
        }})));
        let params = crate::protocol::ElicitParams {
            mode: Some(ElicitMode::Form),
            message: "Pick".into(),
            requested_schema: Some(std::sync::Arc::clone(&shared)),
            url: None,
            elicitation_id: None,
        };
        let InputRequest::Elicit(old) = input_request(params.into(), ProtocolVersion::V2025_06_18) else {
            panic!("still an elicitation")
        };
        let rewritten = old.requested_schema.as_deref().expect("a schema");
        assert_eq!(rewritten["properties"]["p"], json!({"type": "string", "enum": ["a"], "enumNames": ["A"]}));
        assert_eq!(shared["properties"]["p"], json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}]}));
    }

    #[test]
    fn legacy_titles() {
        let mut schema = object(json!({"type": "object", "properties": {
            "p": {"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]},
            "q": {"type": "string", "enum": ["x"]}
        }}));
        legacy_enum_names(&mut schema);
        assert_eq!(
            Value::Object(schema),
            json!({"type": "object", "properties": {
                "p": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]},
                "q": {"type": "string", "enum": ["x"]}
            }})
        );
    }

    /// The `priority` and `size` fields of `tests/tests/elicit.rs`'s `Order`, as its `requested_schema()`
    /// writes them (that file compares the whole schema): a titled select with a `default` and a variant
    /// whose title is its value, and an untitled select.
    #[test]
    fn legacy_enum_names_for_old_clients() {
        let mut s = object(json!({"type": "object", "properties": {
            "size": {"type": "string", "enum": ["Small", "Medium", "Large"]},
            "priority": {
                "type": "string",
                "oneOf": [
                    {"const": "low", "title": "Whenever you get to it"},
                    {"const": "very_high", "title": "Right now"},
                    {"const": "meh", "title": "meh"}
                ],
                "default": "low"
            }
        }}));
        legacy_enum_names(&mut s);
        assert_eq!(
            s["properties"]["priority"],
            json!({
                "type": "string",
                "enum": ["low", "very_high", "meh"],
                "enumNames": ["Whenever you get to it", "Right now", "meh"],
                "default": "low"
            })
        );
        assert_eq!(s["properties"]["size"], json!({"type": "string", "enum": ["Small", "Medium", "Large"]}));
    }
}

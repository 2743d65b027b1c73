//! Tool arguments mirrored into HTTP headers: a property annotated `"x-mcp-header": "Region"` in a tool's
//! input schema travels as `Mcp-Param-Region` too, so gateways can route on it without parsing the body.
//!
//! The annotations are read and checked once, when the registry is built; the HTTP transport compares each
//! modern `tools/call`'s headers against its arguments, and the client sets them from its arguments. A
//! value that is not plain visible ASCII travels as `=?base64?…?=` (Base64 of its UTF-8 text), both ways.

use super::JsonObject;
use base64::Engine as _;
use serde_json::Value;

/// The JSON kinds a mirrored argument may have (the spec rules out `number`, objects and arrays).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// `"type": "string"`: sent as is, or as `=?base64?…?=` when not plain visible ASCII.
    String,
    /// `"type": "integer"`: sent in decimal.
    Integer,
    /// `"type": "boolean"`: sent as `true` or `false`.
    Boolean,
}

/// One argument a tool mirrors into a header.
#[derive(Debug, Clone)]
pub struct ParamHeader {
    /// The `x-mcp-header` value: the header is `Mcp-Param-{name}`.
    pub name: String,
    /// The `properties` keys leading to the argument, outermost first.
    pub path: Vec<String>,
    /// The property's declared `type`, which decides how its value is written into the header.
    pub kind: ParamKind,
}

impl ParamHeader {
    /// The header's name, lowercased (`mcp-param-region`), for looking it up among a request's headers.
    pub fn header(&self) -> String {
        format!("mcp-param-{}", self.name.to_ascii_lowercase())
    }

    /// The argument's value in the call's arguments (`None` when absent or null: then no header is due).
    pub fn value<'a>(&self, arguments: &'a Value) -> Option<&'a Value> {
        self.find(arguments).ok().flatten()
    }

    /// [`value`](Self::value), strictly: a value on the way that is neither an object nor absent (null) is an
    /// error naming its path, because a derived type reads an array there field by field, by position, and
    /// the header would go unchecked while the tool reads the argument anyway.
    pub fn find<'a>(&self, arguments: &'a Value) -> Result<Option<&'a Value>, String> {
        let mut value = arguments;
        for (depth, key) in self.path.iter().enumerate() {
            value = match value {
                Value::Object(fields) => match fields.get(key) {
                    Some(next) => next,
                    None => return Ok(None),
                },
                Value::Null => return Ok(None),
                _ if depth == 0 => return Err("the body's arguments are not an object".into()),
                _ => return Err(format!("the body's `{}` is not an object", self.path[..depth].join("."))),
            };
        }
        Ok((!value.is_null()).then_some(value))
    }
}

/// The headers a tool's input schema declares, checked against the spec's rules: a non-empty token, unique
/// (case-insensitively) per tool, on a string, integer or boolean property reached through `properties` alone.
pub fn collect(tool: &str, schema: &JsonObject) -> Result<Vec<ParamHeader>, String> {
    let mut found = Vec::new();
    walk(schema, &mut Vec::new(), &mut found);
    let mut headers: Vec<ParamHeader> = Vec::new();
    for (path, annotation, property) in found {
        let at = path.join(".");
        let Some(name) = annotation.as_str().filter(|n| is_token(n)) else {
            return Err(format!(
                "tool `{tool}`: `x-mcp-header` on `{at}` must be a non-empty header token (letters, digits and \
                 !#$%&'*+-.^_`|~), not {annotation}"
            ));
        };
        let kind = match property.get("type").and_then(Value::as_str) {
            Some("string") => ParamKind::String,
            Some("integer") => ParamKind::Integer,
            Some("boolean") => ParamKind::Boolean,
            other => {
                return Err(format!(
                    "tool `{tool}`: `x-mcp-header` is only allowed on string, integer or boolean properties, and \
                     `{at}` has type {}",
                    other.map_or("(none)".to_owned(), |t| format!("`{t}`"))
                ));
            }
        };
        if headers.iter().any(|h| h.name.eq_ignore_ascii_case(name)) {
            return Err(format!("tool `{tool}`: two properties declare `x-mcp-header: {name}`"));
        }
        headers.push(ParamHeader { name: name.to_owned(), path, kind });
    }
    Ok(headers)
}

/// Finds annotated properties reachable through `properties` keys only (the spec ignores any others).
fn walk<'a>(schema: &'a JsonObject, path: &mut Vec<String>, found: &mut Vec<(Vec<String>, &'a Value, &'a JsonObject)>) {
    let Some(Value::Object(properties)) = schema.get("properties") else { return };
    for (key, property) in properties {
        let Value::Object(property) = property else { continue };
        path.push(key.clone());
        if let Some(annotation) = property.get("x-mcp-header") {
            found.push((path.clone(), annotation, property));
        }
        walk(property, path, found);
        path.pop();
    }
}

/// An RFC 9110 token.
fn is_token(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> JsonObject {
        match v {
            Value::Object(o) => o,
            _ => unreachable!(),
        }
    }

    #[test]
    fn collects_nested_and_checks_rules() {
        let s = schema(json!({"type":"object","properties":{
            "region":{"type":"string","x-mcp-header":"Region"},
            "opts":{"type":"object","properties":{"dry":{"type":"boolean","x-mcp-header":"Dry-Run"}}},
            "items":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"X"}}}}
        }}));
        let headers = collect("t", &s).unwrap();
        let names: Vec<_> = headers.iter().map(|h| (h.name.as_str(), h.path.join("."), h.kind)).collect();
        assert_eq!(
            names,
            [("Region", "region".into(), ParamKind::String), ("Dry-Run", "opts.dry".into(), ParamKind::Boolean)]
        );
        assert_eq!(headers[1].header(), "mcp-param-dry-run");
        assert_eq!(headers[1].value(&json!({"opts":{"dry":true}})), Some(&json!(true)));
        assert_eq!(headers[0].value(&json!({"region":null})), None);
        // Strictly, what a derived type would read by position is refused, naming where.
        assert_eq!(headers[1].find(&json!({"opts":null})), Ok(None));
        assert_eq!(headers[1].find(&json!({"opts":{}})), Ok(None));
        assert_eq!(headers[1].find(&json!({"opts":[true]})).unwrap_err(), "the body's `opts` is not an object");
        assert_eq!(headers[0].find(&json!(["us"])).unwrap_err(), "the body's arguments are not an object");

        let number = schema(json!({"properties":{"n":{"type":"number","x-mcp-header":"N"}}}));
        assert!(collect("t", &number).unwrap_err().contains("`n` has type `number`"));
        let dup = schema(
            json!({"properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}}),
        );
        assert!(collect("t", &dup).unwrap_err().contains("two properties"));
        let bad = schema(json!({"properties":{"a":{"type":"string","x-mcp-header":"has space"}}}));
        assert!(collect("t", &bad).unwrap_err().contains("header token"));
    }
}

/// A header value as it travels: itself when it is visible ASCII (spaces inside) without surrounding space,
/// else `=?base64?…?=`.
pub fn encode(text: &str) -> String {
    let plain = text.bytes().all(|b| (b' '..=b'~').contains(&b))
        && !text.starts_with(' ')
        && !text.ends_with(' ')
        && !text.starts_with("=?base64?");
    if plain {
        text.to_owned()
    } else {
        format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(text))
    }
}

/// A header value's text: literal (HTTP's optional whitespace, spaces and tabs, trimmed), or `=?base64?…?=`
/// decoded exactly (strict alphabet and padding). Only the complete wrapper marks Base64; anything else is
/// literal.
pub fn decode(raw: &[u8]) -> Result<String, String> {
    let text = std::str::from_utf8(raw).map_err(|_| "is not valid text".to_owned())?;
    // Only what RFC 9110 calls OWS: a literal UTF-8 value may end in other whitespace (U+3000) of its own.
    let text = text.trim_matches([' ', '\t']);
    let Some(encoded) = text.strip_prefix("=?base64?").and_then(|rest| rest.strip_suffix("?=")) else {
        return Ok(text.to_owned());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|e| format!("has invalid Base64 in its =?base64?…?= value: {e}"))?;
    String::from_utf8(bytes).map_err(|_| "decodes to bytes that are not UTF-8".to_owned())
}

impl ParamHeader {
    /// The header this argument's value travels as (`None` when absent, null, or of a kind no header carries).
    pub fn render(&self, arguments: &Value) -> Option<(String, String)> {
        let text = match (self.kind, self.value(arguments)?) {
            (ParamKind::String, Value::String(s)) => encode(s),
            (ParamKind::Integer, Value::Number(n)) => n.to_string(),
            (ParamKind::Boolean, Value::Bool(b)) => b.to_string(),
            _ => return None,
        };
        Some((format!("Mcp-Param-{}", self.name), text))
    }
}

#[cfg(test)]
mod value_tests {
    use super::*;

    #[test]
    fn values_travel_plain_or_as_base64_and_decode_back() {
        assert_eq!(decode(b"=?base64?SGVsbG8=?=").unwrap(), "Hello");
        assert!(decode(b"=?base64?SGVsbG8?=").unwrap_err().contains("Base64"), "missing padding");
        assert!(decode(b"=?base64?SGVs!!!bG8=?=").is_err(), "outside the alphabet");
        // Without the full wrapper the value is literal.
        assert_eq!(decode(b"SGVsbG8=").unwrap(), "SGVsbG8=");
        assert_eq!(decode(b"=?base64?SGVsbG8=").unwrap(), "=?base64?SGVsbG8=");
        assert_eq!(decode("=?base64?5pel5pys?=".as_bytes()).unwrap(), "日本");
        // Spaces and tabs around a literal value are HTTP's; any other whitespace is the value's own.
        assert_eq!(decode(b" \tus-west-1\t ").unwrap(), "us-west-1");
        assert_eq!(decode(" 日本\u{3000}".as_bytes()).unwrap(), "日本\u{3000}");
        assert_eq!(decode("\u{a0}x".as_bytes()).unwrap(), "\u{a0}x");
        for text in ["us-west-1", "日本", " padded ", "", "=?base64?trick?=", "tab\there"] {
            let encoded = encode(text);
            assert!(encoded.bytes().all(|b| (b' '..=b'~').contains(&b)), "{encoded:?}");
            assert_eq!(decode(encoded.as_bytes()).unwrap(), text, "{encoded:?}");
        }
    }
}

#[cfg(test)]
mod proptests;

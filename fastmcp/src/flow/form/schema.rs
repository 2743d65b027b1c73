//! The schema side of a form: the property each kind of field writes, the `requestedSchema` built from them
//! ([`FormSchema`]), and the JSON spelling of options, bounds and numbers.
//!
//! Separate from validation because it only writes what the form says; it reads no client input. The
//! validation of answers reads the bounds and spellings it writes here.

use super::{Bound, Choice, ElicitChoice, FieldOptions, Format};
use crate::protocol::JsonObject;
use serde_json::{Number, Value};

impl Format {
    /// The schema's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Email => "email",
            Format::Uri => "uri",
            Format::Date => "date",
            Format::DateTime => "date-time",
        }
    }
}

impl Bound {
    /// The bound as the schema writes it.
    pub(super) fn to_value(self) -> Value {
        match self {
            Bound::Int(i) => int_value(i),
            Bound::Float(f) => float_value(f),
        }
    }
}

// ---- strings and booleans ------------------------------------------------------------------------------

pub(super) fn string(options: &FieldOptions) -> JsonObject {
    let mut p = base("string", options);
    put(&mut p, "minLength", options.min_length.map(Value::from));
    put(&mut p, "maxLength", options.max_length.map(Value::from));
    put(&mut p, "format", options.format.map(|f| Value::from(f.as_str())));
    p
}

pub(super) fn boolean(options: &FieldOptions) -> JsonObject {
    base("boolean", options)
}

// ---- numbers -------------------------------------------------------------------------------------------

/// The largest integer a JSON number holds exactly in every client (JavaScript's `Number.MAX_SAFE_INTEGER`).
/// A type's own limit goes into the schema only when it is at most this big.
const MAX_SAFE_INTEGER: i128 = (1 << 53) - 1;

/// The bounds an integer field enforces: the type's range narrowed by the field's options.
pub(super) fn int_bounds(options: &FieldOptions, type_min: i128, type_max: i128) -> (i128, i128) {
    let min = match options.minimum {
        Some(Bound::Int(i)) => i.max(type_min),
        Some(Bound::Float(f)) => ceil_int(f).max(type_min),
        None => type_min,
    };
    let max = match options.maximum {
        Some(Bound::Int(i)) => i.min(type_max),
        Some(Bound::Float(f)) => floor_int(f).min(type_max),
        None => type_max,
    };
    (min, max)
}

fn ceil_int(f: f64) -> i128 {
    // `as` saturates, which is what a bound wants.
    f.ceil() as i128
}

fn floor_int(f: f64) -> i128 {
    f.floor() as i128
}

pub(super) fn integer(options: &FieldOptions, type_min: i128, type_max: i128) -> JsonObject {
    let (min, max) = int_bounds(options, type_min, type_max);
    let mut p = base("integer", options);
    // `unsigned_abs`: `i128::MIN` has no `abs` (an `i128` field's own lower limit).
    let show_min = options.minimum.is_some() || min.unsigned_abs() <= MAX_SAFE_INTEGER.unsigned_abs();
    let show_max = options.maximum.is_some() || max.unsigned_abs() <= MAX_SAFE_INTEGER.unsigned_abs();
    put(&mut p, "minimum", show_min.then(|| int_value(min)));
    put(&mut p, "maximum", show_max.then(|| int_value(max)));
    p
}

/// An integer as a JSON number (exact when it fits in 64 bits).
pub(super) fn int_value(i: i128) -> Value {
    if let Ok(i) = i64::try_from(i) {
        Value::from(i)
    } else if let Ok(u) = u64::try_from(i) {
        Value::from(u)
    } else {
        float_value(i as f64)
    }
}

/// A float as a JSON number; `null` for NaN and the infinities, which JSON has no number for.
pub(super) fn float_value(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

pub(super) fn number(options: &FieldOptions) -> JsonObject {
    let mut p = base("number", options);
    put(&mut p, "minimum", options.minimum.map(Bound::to_value));
    put(&mut p, "maximum", options.maximum.map(Bound::to_value));
    p
}

// ---- selects -------------------------------------------------------------------------------------------

fn titled(choices: &[Choice]) -> bool {
    choices.iter().any(|c| c.title.is_some())
}

/// `[{const, title}]` (a choice without a title shows its value) or `[value, ..]`.
fn choice_list(choices: &[Choice], titled: bool) -> Value {
    if titled {
        let items = choices.iter().map(|c| {
            let mut item = JsonObject::new();
            item.insert("const".into(), c.value.into());
            item.insert("title".into(), c.title.unwrap_or(c.value).into());
            Value::Object(item)
        });
        Value::Array(items.collect())
    } else {
        Value::Array(choices.iter().map(|c| Value::from(c.value)).collect())
    }
}

/// A single select's property: `{type: "string", enum}` or, with titles, `{type: "string", oneOf}` (or, with
/// `enum_names`, the titles as the legacy `{type: "string", enum, enumNames}`).
#[doc(hidden)]
pub fn select_property<E: ElicitChoice>(options: &FieldOptions) -> JsonObject {
    let mut p = base("string", options);
    let titled = titled(E::CHOICES);
    if titled && options.enum_names {
        // Written from the choices, not by rewriting the `oneOf` as the legacy era adapter does to whole forms
        // (`legacy.rs`): `flow` does not call into an era adapter.
        let names = E::CHOICES.iter().map(|c| Value::from(c.title.unwrap_or(c.value)));
        p.insert("enum".into(), choice_list(E::CHOICES, false));
        p.insert("enumNames".into(), Value::Array(names.collect()));
    } else {
        p.insert(if titled { "oneOf" } else { "enum" }.into(), choice_list(E::CHOICES, titled));
    }
    p
}

pub(super) fn multi_select<E: ElicitChoice>(options: &FieldOptions) -> JsonObject {
    let mut p = base("array", options);
    put(&mut p, "minItems", options.min_items.map(Value::from));
    put(&mut p, "maxItems", options.max_items.map(Value::from));
    let mut items = JsonObject::new();
    if titled(E::CHOICES) {
        items.insert("anyOf".into(), choice_list(E::CHOICES, true));
    } else {
        items.insert("type".into(), "string".into());
        items.insert("enum".into(), choice_list(E::CHOICES, false));
    }
    p.insert("items".into(), Value::Object(items));
    p
}

// ---- the form ------------------------------------------------------------------------------------------

/// Builds a form's `requestedSchema`, one property at a time, in field order.
#[doc(hidden)]
pub struct FormSchema {
    title: Option<&'static str>,
    properties: JsonObject,
    required: Vec<Value>,
}

impl FormSchema {
    pub fn new(title: Option<&'static str>) -> Self {
        Self { title, properties: JsonObject::new(), required: Vec::new() }
    }

    pub fn property(&mut self, key: &'static str, required: bool, mut property: JsonObject, default: Option<Value>) {
        if let Some(default) = default {
            property.insert("default".into(), default);
        }
        self.properties.insert(key.into(), Value::Object(property));
        if required {
            self.required.push(key.into());
        }
    }

    pub fn finish(self) -> JsonObject {
        let mut schema = JsonObject::new();
        schema.insert("type".into(), "object".into());
        if let Some(title) = self.title {
            schema.insert("title".into(), title.into());
        }
        schema.insert("properties".into(), Value::Object(self.properties));
        // Omitted rather than empty: older JSON Schema drafts want at least one entry.
        if !self.required.is_empty() {
            schema.insert("required".into(), Value::Array(self.required));
        }
        schema
    }
}

/// The `default` of property `key` in a built schema.
#[doc(hidden)]
pub fn default_of<'a>(schema: &'a JsonObject, key: &str) -> Option<&'a Value> {
    schema.get("properties")?.get(key)?.get("default")
}

// ---- helpers -------------------------------------------------------------------------------------------

/// `{type, title?, description?}`.
fn base(ty: &str, options: &FieldOptions) -> JsonObject {
    let mut p = JsonObject::new();
    p.insert("type".into(), ty.into());
    put(&mut p, "title", options.title.map(Value::from));
    put(&mut p, "description", options.description.map(Value::from));
    p
}

fn put(p: &mut JsonObject, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        p.insert(key.into(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::super::FormField;
    use super::*;

    #[test]
    fn integer_schema_shows_safe_type_limits_only() {
        let p = |o: &FieldOptions| Value::Object(<u8 as FormField>::property(o));
        assert_eq!(p(&FieldOptions::NONE), serde_json::json!({"type": "integer", "minimum": 0, "maximum": 255}));
        let o =
            FieldOptions { minimum: Some(Bound::Float(0.5)), maximum: Some(Bound::Int(1000)), ..FieldOptions::NONE };
        assert_eq!(p(&o), serde_json::json!({"type": "integer", "minimum": 1, "maximum": 255}));
        assert_eq!(
            Value::Object(<u64 as FormField>::property(&FieldOptions::NONE)),
            serde_json::json!({"type": "integer", "minimum": 0})
        );
        assert_eq!(
            Value::Object(<i64 as FormField>::property(&FieldOptions::NONE)),
            serde_json::json!({"type": "integer"})
        );
    }

    /// Found by the `form_validate` fuzz target: an `i128` field's schema took `i128::MIN.abs()`, which
    /// overflows (a panic where overflow checks are on).
    #[test]
    fn an_i128_field_has_a_schema() {
        assert_eq!(
            Value::Object(<i128 as FormField>::property(&FieldOptions::NONE)),
            serde_json::json!({"type": "integer"})
        );
    }
}

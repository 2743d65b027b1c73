//! The fields of an elicitation form: what a field of an `#[elicit]` struct may be, the property schema
//! (a `PrimitiveSchemaDefinition`) each kind of field produces, and the validation of the client's value.
//!
//! A form is flat (`mcp-wire.md` §2.7): every property is a string (with length bounds and an optional
//! `format`), an integer or number (with bounds), a boolean, a single select (`enum` or titled `oneOf`) or a
//! multi-select (`type: "array"` of an enum). [`FormField`] is implemented for exactly those Rust types:
//! `String`, `bool`, the integer types, `f32`/`f64`, `#[elicit]` enums, `Vec` of an `#[elicit]` enum, and
//! `Option` of any of these. Answers are untrusted, so [`FormField::from_value`] checks everything the
//! schema says.

use crate::protocol::JsonObject;
use serde_json::{Number, Value};

/// What `#[elicit(...)]` on a field says about it (its `default` goes into the schema separately, through
/// [`FormField::default_value`]). Options that don't apply to a field's kind are rejected at compile time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldOptions {
    pub title: Option<&'static str>,
    /// The field's doc comment.
    pub description: Option<&'static str>,
    /// Strings: at least this many characters (Unicode scalar values, as JSON Schema counts them).
    pub min_length: Option<u64>,
    /// Strings: at most this many characters.
    pub max_length: Option<u64>,
    /// Strings: the `format` the value must have.
    pub format: Option<Format>,
    /// Integers and numbers: the smallest allowed value.
    pub minimum: Option<Bound>,
    /// Integers and numbers: the largest allowed value.
    pub maximum: Option<Bound>,
    /// Multi-selects: at least this many choices.
    pub min_items: Option<u64>,
    /// Multi-selects: at most this many choices.
    pub max_items: Option<u64>,
    /// Titled single selects: written as the legacy `enum` + `enumNames` rather than `oneOf` (for clients
    /// that know only that form). Other fields ignore it.
    pub enum_names: bool,
}

impl FieldOptions {
    /// No options (usable in `const`s, with `..FieldOptions::NONE`).
    pub const NONE: FieldOptions = FieldOptions {
        title: None,
        description: None,
        min_length: None,
        max_length: None,
        format: None,
        minimum: None,
        maximum: None,
        min_items: None,
        max_items: None,
        enum_names: false,
    };
}

impl Default for FieldOptions {
    fn default() -> Self {
        Self::NONE
    }
}

/// The string formats the restricted schema allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `name@example.com`: one `@` with text on both sides.
    Email,
    /// An absolute URI: a scheme (`https:`, `mailto:`, `urn:`) and something after it.
    Uri,
    /// An ISO 8601 calendar date, `2025-12-31`.
    Date,
    /// An ISO 8601 date and time, `2025-12-31T23:59:00Z` (seconds and offset optional).
    DateTime,
}

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

    /// Whether `s` has this format (loosely: the shape, not every rule of the RFCs).
    pub fn matches(self, s: &str) -> bool {
        match self {
            Format::Email => is_email(s),
            Format::Uri => is_uri(s),
            Format::Date => parse_date(s).is_some_and(str::is_empty),
            Format::DateTime => is_date_time(s),
        }
    }

    fn expected(self) -> &'static str {
        match self {
            Format::Email => "an email address like name@example.com",
            Format::Uri => "a URI with a scheme, like https://example.com",
            Format::Date => "a date like 2025-12-31",
            Format::DateTime => "a date and time like 2025-12-31T23:59:00Z",
        }
    }
}

/// A `minimum` or `maximum` as written: an integer or a number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    Int(i128),
    Float(f64),
}

impl Bound {
    fn as_f64(self) -> f64 {
        match self {
            // Exactness does not matter for comparing with a float.
            Bound::Int(i) => i as f64,
            Bound::Float(f) => f,
        }
    }

    fn to_value(self) -> Value {
        match self {
            Bound::Int(i) => int_value(i),
            Bound::Float(f) => Number::from_f64(f).map_or(Value::Null, Value::Number),
        }
    }
}

/// One choice of a select: the value on the wire and the title the client shows (if any).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    pub value: &'static str,
    pub title: Option<&'static str>,
}

impl Choice {
    pub const fn new(value: &'static str, title: Option<&'static str>) -> Self {
        Self { value, title }
    }
}

/// An enum of unit variants the user picks from. Derived by `#[elicit]` on the enum; a field of the enum
/// is a single select, a `Vec` of it a multi-select.
///
/// A variant's wire value is its name, or `#[elicit(rename = "..")]`, or the enum's
/// `#[elicit(rename_all = "snake_case")]` (serde's rules). Its title is `#[elicit(title = "..")]` or its doc
/// comment; when any variant has one, the select is titled (`oneOf` / `anyOf` of `{const, title}`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an `#[elicit]` enum of unit variants",
    label = "a `Vec` field is a multi-select, so its items must be an `#[elicit]` enum",
    note = "elicitation forms are flat: a field is a primitive (`String`, `bool`, an integer, `f32`, `f64`), an enum of unit variants marked `#[elicit]`, a `Vec` of such an enum (a multi-select), or an `Option` of one of these"
)]
pub trait ElicitChoice: Sized + Send + 'static {
    /// The choices in declaration order.
    const CHOICES: &'static [Choice];
    /// The variant whose wire value is `value`.
    fn from_choice(value: &str) -> Option<Self>;
    /// This variant's wire value.
    fn choice(&self) -> &'static str;
}

/// A type that can be one field of an `#[elicit]` struct: it produces the field's property schema and
/// validates the client's value for it.
///
/// | field type | property | options besides `title`, `rename`, `default` |
/// | --- | --- | --- |
/// | `String` | `{type: "string"}` | `min_length`, `max_length`, `format = "email" \| "uri" \| "date" \| "date-time"` |
/// | `bool` | `{type: "boolean"}` | |
/// | `u8` … `i128`, `usize`, `isize` | `{type: "integer"}`, with the type's own limits when a JSON number holds them exactly | `minimum`, `maximum` |
/// | `f32`, `f64` | `{type: "number"}` | `minimum`, `maximum` |
/// | `#[elicit]` enum | `{type: "string", enum}`, or `oneOf: [{const, title}]` when a variant has a title | |
/// | `Vec<E>` of an `#[elicit]` enum | `{type: "array", items: {type: "string", enum}}` or `items: {anyOf}` | `min_items`, `max_items` |
/// | `Option<T>` of any of these | as `T`, and not in `required` | as `T` |
///
/// The field's doc comment is the property's `description`. A field the answer leaves out (or sends as
/// `null`) takes its `default` if it has one, is `None` if it is an `Option`, and is an error otherwise.
/// Keys the form does not ask for are ignored.
#[diagnostic::on_unimplemented(
    message = "`{Self}` can't be a field of an elicitation form",
    label = "not a form field",
    note = "elicitation forms are flat: a field is a primitive (`String`, `bool`, an integer, `f32`, `f64`), an enum of unit variants marked `#[elicit]`, a `Vec` of such an enum (a multi-select), or an `Option` of one of these",
    note = "to ask for nested data, flatten its fields into this struct or ask with a second form"
)]
pub trait FormField: Sized {
    /// What `#[elicit(default = ..)]` takes for this field: `&str` for strings and selects, `&[&str]` for
    /// multi-selects, the type itself for `bool` and numbers.
    type Default;
    /// Whether the form requires the field; `Option` fields are optional.
    const REQUIRED: bool = true;
    /// The choices of a select, else empty. `#[elicit]` checks string `default`s against them.
    const SELECTABLE: &'static [Choice] = &[];

    /// The property schema of this field with `options`.
    fn property(options: &FieldOptions) -> JsonObject;

    /// The schema value of `default`.
    fn default_value(default: Self::Default) -> Value;

    /// Checks the client's value against the schema this field's `property` makes and converts it. The
    /// error says what is wrong with the value; the caller names the field.
    fn from_value(value: Value, options: &FieldOptions) -> Result<Self, String>;

    /// The value of a field the answer leaves out (or sends as `null`), if that is allowed.
    fn absent() -> Option<Self> {
        None
    }

    /// Takes field `key` out of the answer: validated, or its `default` when left out, or
    /// [`absent`](FormField::absent). Every error names the field.
    #[doc(hidden)]
    fn take(
        content: &mut JsonObject,
        key: &str,
        options: &FieldOptions,
        default: Option<&Value>,
    ) -> Result<Self, String> {
        match content.remove(key) {
            None | Some(Value::Null) => match default {
                Some(default) => {
                    Self::from_value(default.clone(), options).map_err(|e| format!("field `{key}` (its default): {e}"))
                }
                None => Self::absent().ok_or_else(|| format!("field `{key}` is required but missing")),
            },
            Some(value) => Self::from_value(value, options).map_err(|e| format!("field `{key}`: {e}")),
        }
    }
}

/// Fields that take `min_length`, `max_length` and `format`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a string field, so it takes no `min_length`, `max_length` or `format`",
    label = "`min_length`, `max_length` and `format` apply to `String` fields"
)]
pub trait TextField: FormField {}

/// Fields that take `minimum` and `maximum`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number field, so it takes no `minimum` or `maximum`",
    label = "`minimum` and `maximum` apply to integer and float fields"
)]
pub trait NumberField: FormField {}

/// Fields that take `min_items` and `max_items`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a multi-select field, so it takes no `min_items` or `max_items`",
    label = "`min_items` and `max_items` apply to `Vec` fields of an `#[elicit]` enum"
)]
pub trait MultiSelectField: FormField {}

/// Fields that take `enum_names`: single selects.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a single-select field, so it takes no `enum_names`",
    label = "`enum_names` applies to fields whose type is an `#[elicit]` enum"
)]
pub trait SelectField: FormField {}

/// `#[elicit]` names these where it can't tell a field's kind from its type: an option of the wrong kind
/// is then an error on the option, with the marker trait's message.
#[doc(hidden)]
pub fn require_text<T: TextField>() {}
#[doc(hidden)]
pub fn require_number<T: NumberField>() {}
#[doc(hidden)]
pub fn require_multi_select<T: MultiSelectField>() {}
#[doc(hidden)]
pub fn require_select<T: SelectField>() {}

// ---- strings and booleans ------------------------------------------------------------------------------

impl FormField for String {
    type Default = &'static str;

    fn property(options: &FieldOptions) -> JsonObject {
        let mut p = base("string", options);
        put(&mut p, "minLength", options.min_length.map(Value::from));
        put(&mut p, "maxLength", options.max_length.map(Value::from));
        put(&mut p, "format", options.format.map(|f| Value::from(f.as_str())));
        p
    }

    fn default_value(default: &'static str) -> Value {
        Value::from(default)
    }

    fn from_value(value: Value, options: &FieldOptions) -> Result<Self, String> {
        let Value::String(s) = value else {
            return Err(format!("must be a string, got {}", describe(&value)));
        };
        let chars = s.chars().count() as u64;
        if let Some(min) = options.min_length.filter(|min| chars < *min) {
            return Err(format!("must be at least {min} {}, got {chars}", plural(min, "character")));
        }
        if let Some(max) = options.max_length.filter(|max| chars > *max) {
            return Err(format!("must be at most {max} {}, got {chars}", plural(max, "character")));
        }
        if let Some(format) = options.format.filter(|f| !f.matches(&s)) {
            return Err(format!("must be {}, got {}", format.expected(), describe(&Value::String(s))));
        }
        Ok(s)
    }
}

impl TextField for String {}

impl FormField for bool {
    type Default = bool;

    fn property(options: &FieldOptions) -> JsonObject {
        base("boolean", options)
    }

    fn default_value(default: bool) -> Value {
        Value::Bool(default)
    }

    fn from_value(value: Value, _: &FieldOptions) -> Result<Self, String> {
        value.as_bool().ok_or_else(|| format!("must be true or false, got {}", describe(&value)))
    }
}

// ---- numbers -------------------------------------------------------------------------------------------

/// The largest integer a JSON number holds exactly in every client (JavaScript's `Number.MAX_SAFE_INTEGER`).
/// A type's own limit goes into the schema only when it is at most this big.
const MAX_SAFE_INTEGER: i128 = (1 << 53) - 1;

/// The bounds an integer field enforces: the type's range narrowed by the field's options.
fn int_bounds(options: &FieldOptions, type_min: i128, type_max: i128) -> (i128, i128) {
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

fn int_property(options: &FieldOptions, type_min: i128, type_max: i128) -> JsonObject {
    let (min, max) = int_bounds(options, type_min, type_max);
    let mut p = base("integer", options);
    let show_min = options.minimum.is_some() || min.abs() <= MAX_SAFE_INTEGER;
    let show_max = options.maximum.is_some() || max.abs() <= MAX_SAFE_INTEGER;
    put(&mut p, "minimum", show_min.then(|| int_value(min)));
    put(&mut p, "maximum", show_max.then(|| int_value(max)));
    p
}

fn int_from_value(value: &Value, options: &FieldOptions, type_min: i128, type_max: i128) -> Result<i128, String> {
    let n = match value {
        Value::Number(n) => n,
        other => return Err(format!("must be an integer, got {}", describe(other))),
    };
    let i = if let Some(i) = n.as_i64() {
        i128::from(i)
    } else if let Some(u) = n.as_u64() {
        i128::from(u)
    } else {
        // JSON Schema's `integer` is any number with no fractional part, so `3.0` is 3.
        let f = n.as_f64().unwrap_or(f64::NAN);
        if !f.is_finite() || f.fract() != 0.0 {
            return Err(format!("must be an integer, got {n}"));
        }
        if f.abs() >= 1.7e38 {
            return Err(format!("{n} is out of range"));
        }
        f as i128
    };
    let (min, max) = int_bounds(options, type_min, type_max);
    if i < min {
        return Err(format!("must be at least {min}, got {n}"));
    }
    if i > max {
        return Err(format!("must be at most {max}, got {n}"));
    }
    Ok(i)
}

/// An integer as a JSON number (exact when it fits in 64 bits).
fn int_value(i: i128) -> Value {
    if let Ok(i) = i64::try_from(i) {
        Value::from(i)
    } else if let Ok(u) = u64::try_from(i) {
        Value::from(u)
    } else {
        Number::from_f64(i as f64).map_or(Value::Null, Value::Number)
    }
}

macro_rules! integer_fields {
    ($($ty:ty),*) => {$(
        impl FormField for $ty {
            type Default = $ty;

            fn property(options: &FieldOptions) -> JsonObject {
                int_property(options, <$ty>::MIN as i128, saturating_i128(<$ty>::MAX))
            }

            fn default_value(default: $ty) -> Value {
                int_value(saturating_i128(default))
            }

            fn from_value(value: Value, options: &FieldOptions) -> Result<Self, String> {
                let i = int_from_value(&value, options, <$ty>::MIN as i128, saturating_i128(<$ty>::MAX))?;
                <$ty>::try_from(i).map_err(|_| format!("{i} is out of range"))
            }
        }

        impl NumberField for $ty {}
    )*};
}

/// `u128::MAX` does not fit in `i128`; no JSON number reaches either limit anyway.
fn saturating_i128<T: TryInto<i128>>(v: T) -> i128 {
    v.try_into().unwrap_or(i128::MAX)
}

integer_fields!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

fn float_property(options: &FieldOptions) -> JsonObject {
    let mut p = base("number", options);
    put(&mut p, "minimum", options.minimum.map(Bound::to_value));
    put(&mut p, "maximum", options.maximum.map(Bound::to_value));
    p
}

fn float_from_value(value: &Value, options: &FieldOptions, type_max: f64) -> Result<f64, String> {
    let Some(f) = value.as_f64() else {
        return Err(format!("must be a number, got {}", describe(value)));
    };
    if f.abs() > type_max {
        return Err(format!("{f} is out of range"));
    }
    if let Some(min) = options.minimum.filter(|min| f < min.as_f64()) {
        return Err(format!("must be at least {}, got {f}", min.to_value()));
    }
    if let Some(max) = options.maximum.filter(|max| f > max.as_f64()) {
        return Err(format!("must be at most {}, got {f}", max.to_value()));
    }
    Ok(f)
}

impl FormField for f64 {
    type Default = f64;

    fn property(options: &FieldOptions) -> JsonObject {
        float_property(options)
    }

    fn default_value(default: f64) -> Value {
        Number::from_f64(default).map_or(Value::Null, Value::Number)
    }

    fn from_value(value: Value, options: &FieldOptions) -> Result<Self, String> {
        float_from_value(&value, options, f64::MAX)
    }
}

impl NumberField for f64 {}

impl FormField for f32 {
    type Default = f32;

    fn property(options: &FieldOptions) -> JsonObject {
        float_property(options)
    }

    fn default_value(default: f32) -> Value {
        Number::from_f64(f64::from(default)).map_or(Value::Null, Value::Number)
    }

    fn from_value(value: Value, options: &FieldOptions) -> Result<Self, String> {
        // Within f32's range (checked), so only precision is lost.
        float_from_value(&value, options, f64::from(f32::MAX)).map(|f| f as f32)
    }
}

impl NumberField for f32 {}

// ---- optional fields -----------------------------------------------------------------------------------

impl<T: FormField> FormField for Option<T> {
    type Default = T::Default;
    const REQUIRED: bool = false;
    const SELECTABLE: &'static [Choice] = T::SELECTABLE;

    fn property(options: &FieldOptions) -> JsonObject {
        T::property(options)
    }

    fn default_value(default: T::Default) -> Value {
        T::default_value(default)
    }

    fn from_value(value: Value, options: &FieldOptions) -> Result<Self, String> {
        T::from_value(value, options).map(Some)
    }

    fn absent() -> Option<Self> {
        Some(None)
    }
}

impl<T: TextField> TextField for Option<T> {}
impl<T: NumberField> NumberField for Option<T> {}
impl<T: MultiSelectField> MultiSelectField for Option<T> {}
impl<T: SelectField> SelectField for Option<T> {}

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

fn one_of(choices: &[Choice]) -> String {
    let values: Vec<String> = choices.iter().map(|c| format!("\"{}\"", c.value)).collect();
    values.join(", ")
}

fn parse_choice<E: ElicitChoice>(value: &Value) -> Result<E, String> {
    let Value::String(s) = value else {
        return Err(format!("must be one of {}, got {}", one_of(E::CHOICES), describe(value)));
    };
    E::from_choice(s).ok_or_else(|| format!("must be one of {}, got {}", one_of(E::CHOICES), describe(value)))
}

/// A single select's property: `{type: "string", enum}` or, with titles, `{type: "string", oneOf}`.
#[doc(hidden)]
pub fn select_property<E: ElicitChoice>(options: &FieldOptions) -> JsonObject {
    let mut p = base("string", options);
    let titled = titled(E::CHOICES);
    p.insert(if titled { "oneOf" } else { "enum" }.into(), choice_list(E::CHOICES, titled));
    if options.enum_names {
        titles_as_enum_names(&mut p);
    }
    p
}

/// A single select's value: one of the choices.
#[doc(hidden)]
pub fn select_from_value<E: ElicitChoice>(value: Value) -> Result<E, String> {
    parse_choice(&value)
}

/// A multi-select: `{type: "array", items: {type: "string", enum}}` or, with titles,
/// `{type: "array", items: {anyOf: [{const, title}]}}`.
impl<E: ElicitChoice> FormField for Vec<E> {
    type Default = &'static [&'static str];
    const SELECTABLE: &'static [Choice] = E::CHOICES;

    fn property(options: &FieldOptions) -> JsonObject {
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

    fn default_value(default: &'static [&'static str]) -> Value {
        Value::Array(default.iter().map(|s| Value::from(*s)).collect())
    }

    fn from_value(value: Value, options: &FieldOptions) -> Result<Self, String> {
        let Value::Array(items) = value else {
            return Err(format!("must be a list of choices from {}, got {}", one_of(E::CHOICES), describe(&value)));
        };
        let n = items.len() as u64;
        if let Some(min) = options.min_items.filter(|min| n < *min) {
            return Err(format!("must have at least {min} {}, got {n}", plural(min, "choice")));
        }
        if let Some(max) = options.max_items.filter(|max| n > *max) {
            return Err(format!("must have at most {max} {}, got {n}", plural(max, "choice")));
        }
        let mut out = Vec::with_capacity(items.len());
        let mut seen: Vec<&str> = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let choice: E = parse_choice(item).map_err(|e| format!("item {i} {e}"))?;
            let wire = choice.choice();
            if seen.contains(&wire) {
                return Err(format!("lists \"{wire}\" more than once"));
            }
            seen.push(wire);
            out.push(choice);
        }
        Ok(out)
    }
}

impl<E: ElicitChoice> MultiSelectField for Vec<E> {}

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

/// Collects every field's error, so one answer reports all that is wrong with it.
#[doc(hidden)]
#[derive(Default)]
pub struct FormErrors(Vec<String>);

impl FormErrors {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn check<T>(&mut self, result: Result<T, String>) -> Option<T> {
        result.map_err(|e| self.0.push(e)).ok()
    }

    pub fn into_message(self) -> String {
        self.0.join("; ")
    }
}

/// Whether `value` is one of `choices`, or there are no choices (the field is not a select). `#[elicit]`
/// checks string `default`s with it at compile time.
#[doc(hidden)]
pub const fn has_choice(choices: &[Choice], value: &str) -> bool {
    if choices.is_empty() {
        return true;
    }
    let mut i = 0;
    while i < choices.len() {
        if str_eq(choices[i].value, value) {
            return true;
        }
        i += 1;
    }
    false
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Rewrites titled single selects (`oneOf: [{const, title}]`) as the legacy `enum` + `enumNames`, the only
/// titled enum that 2025-06-18 clients know. Other properties are left as they are.
pub fn legacy_enum_names(schema: &mut JsonObject) {
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

fn plural(n: u64, word: &str) -> String {
    if n == 1 { word.to_owned() } else { format!("{word}s") }
}

/// A client's value in an error message, bounded: answers are untrusted and may be large.
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => {
            let mut shown: String = s.chars().take(40).collect();
            if shown.len() < s.len() {
                shown.push('…');
            }
            format!("{shown:?}")
        }
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}

// ---- formats -------------------------------------------------------------------------------------------

fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else { return false };
    !local.is_empty()
        && !domain.is_empty()
        && !domain.contains('@')
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// RFC 3986: `scheme ":" rest`, the scheme a letter then letters, digits, `+`, `-`, `.`.
fn is_uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else { return false };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.is_empty()
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// `n` ASCII digits at the start of `s`, and the rest.
fn digits(s: &str, n: usize) -> Option<(u32, &str)> {
    let head = s.get(..n)?;
    if !head.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((head.parse().ok()?, &s[n..]))
}

/// `YYYY-MM-DD` with a real month and day; the rest of `s`.
fn parse_date(s: &str) -> Option<&str> {
    let (year, s) = digits(s, 4)?;
    let (month, s) = digits(s.strip_prefix('-')?, 2)?;
    let (day, s) = digits(s.strip_prefix('-')?, 2)?;
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days).contains(&day).then_some(s)
}

/// `HH:MM`, and the rest.
fn hour_minute(s: &str) -> Option<(u32, u32, &str)> {
    let (h, s) = digits(s, 2)?;
    let (m, s) = digits(s.strip_prefix(':')?, 2)?;
    (h <= 23 && m <= 59).then_some((h, m, s))
}

/// `date T HH:MM[:SS[.frac]][Z | ±HH:MM | ±HHMM]`: RFC 3339, with seconds and offset optional as ISO 8601
/// (and HTML's `datetime-local`) allow.
fn is_date_time(s: &str) -> bool {
    let Some(s) = parse_date(s) else { return false };
    let Some(s) = s.strip_prefix(['T', 't']) else { return false };
    let Some((_, _, mut s)) = hour_minute(s) else { return false };
    if let Some(rest) = s.strip_prefix(':') {
        let Some((sec, rest)) = digits(rest, 2) else { return false };
        if sec > 60 {
            return false;
        }
        s = rest;
        if let Some(frac) = s.strip_prefix('.') {
            let n = frac.bytes().take_while(u8::is_ascii_digit).count();
            if n == 0 {
                return false;
            }
            s = &frac[n..];
        }
    }
    match s.as_bytes().first() {
        None => true,
        Some(b'Z' | b'z') => s.len() == 1,
        Some(b'+' | b'-') => {
            let offset = &s[1..];
            if let Some((_, _, rest)) = hour_minute(offset) {
                rest.is_empty()
            } else {
                matches!(digits(offset, 4), Some((hhmm, "")) if hhmm / 100 <= 23 && hhmm % 100 <= 59)
            }
        }
        Some(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        for ok in ["a@b", "first.last+tag@example.co.uk"] {
            assert!(Format::Email.matches(ok), "{ok}");
        }
        for bad in ["", "@b", "a@", "ab", "a@b@c", "a b@c", "a@b c"] {
            assert!(!Format::Email.matches(bad), "{bad}");
        }
        for ok in ["https://example.com", "mailto:a@b", "urn:isbn:0451450523", "file:///tmp/x", "a+b.c-d:x"] {
            assert!(Format::Uri.matches(ok), "{ok}");
        }
        for bad in ["", "example.com", "://x", "1http://x", "http:", "http://a b", "ht_tp://x"] {
            assert!(!Format::Uri.matches(bad), "{bad}");
        }
        for ok in ["2025-12-31", "2024-02-29", "2000-02-29", "0001-01-01"] {
            assert!(Format::Date.matches(ok), "{ok}");
        }
        for bad in [
            "2025-13-01",
            "2025-00-10",
            "2025-02-29",
            "1900-02-29",
            "2025-04-31",
            "2025-1-01",
            "25-01-01",
            "2025-01-01x",
            "2025/01/01",
            "２０２５-01-01",
        ] {
            assert!(!Format::Date.matches(bad), "{bad}");
        }
        for ok in [
            "2025-12-31T23:59:00Z",
            "2025-12-31t23:59:60z",
            "2025-12-31T23:59:00.123+02:00",
            "2025-12-31T23:59-0530",
            "2025-12-31T23:59",
            "2025-12-31T23:59:00",
        ] {
            assert!(Format::DateTime.matches(ok), "{ok}");
        }
        for bad in [
            "2025-12-31",
            "2025-12-31 23:59:00Z",
            "2025-12-31T24:00:00Z",
            "2025-12-31T23:60Z",
            "2025-12-31T23:59:61Z",
            "2025-12-31T23:59:00.Z",
            "2025-12-31T23:59:00+2",
            "2025-12-31T23:59:00Zx",
            "2025-12-31T23:59:00+24:00",
        ] {
            assert!(!Format::DateTime.matches(bad), "{bad}");
        }
    }

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

    #[test]
    fn integers() {
        let o = FieldOptions::NONE;
        assert_eq!(u8::from_value(serde_json::json!(255), &o), Ok(255));
        assert_eq!(u8::from_value(serde_json::json!(3.0), &o), Ok(3));
        assert!(u8::from_value(serde_json::json!(256), &o).unwrap_err().contains("at most 255"));
        assert!(u8::from_value(serde_json::json!(-1), &o).unwrap_err().contains("at least 0"));
        assert!(i64::from_value(serde_json::json!(2.5), &o).unwrap_err().contains("must be an integer"));
        assert!(u64::from_value(serde_json::json!(1e20), &o).unwrap_err().contains("at most 18446744073709551615"));
        assert_eq!(u64::from_value(serde_json::json!(u64::MAX), &o), Ok(u64::MAX));
        assert_eq!(i128::from_value(serde_json::json!(i64::MIN), &o), Ok(i128::from(i64::MIN)));
        assert!(i32::from_value(serde_json::json!(1e300), &o).unwrap_err().contains("out of range"));
        assert!(f32::from_value(serde_json::json!(1e300), &o).unwrap_err().contains("out of range"));
    }

    #[test]
    fn legacy_titles() {
        let mut schema = serde_json::json!({"type": "object", "properties": {
            "p": {"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]},
            "q": {"type": "string", "enum": ["x"]}
        }})
        .as_object()
        .cloned()
        .unwrap_or_default();
        legacy_enum_names(&mut schema);
        assert_eq!(
            Value::Object(schema),
            serde_json::json!({"type": "object", "properties": {
                "p": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]},
                "q": {"type": "string", "enum": ["x"]}
            }})
        );
    }
}

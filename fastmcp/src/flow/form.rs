//! The fields of an elicitation form: what a field of an `#[elicit]` struct may be, the property schema
//! (a `PrimitiveSchemaDefinition`) each kind of field produces, and the validation of the client's value.
//!
//! A form is flat (`mcp-wire.md` §2.7): every property is a string (with length bounds and an optional
//! `format`), an integer or number (with bounds), a boolean, a single select (`enum` or titled `oneOf`) or a
//! multi-select (`type: "array"` of an enum). [`FormField`] is implemented for exactly those Rust types:
//! `String`, `bool`, the integer types, `f32`/`f64`, `#[elicit]` enums, `Vec` of an `#[elicit]` enum, and
//! `Option` of any of these. Answers are untrusted, so [`FormField::from_value`] checks everything the
//! schema says.
//!
//! This file holds what the two jobs share: the traits, the options a field takes, and which Rust types are
//! fields (each impl hands its `property` to `schema` and its `from_value` to `validate`). The jobs
//! themselves live apart, so the schema can be read without the checks of untrusted input and the other way
//! round: `schema` writes what the form says, `validate` checks an answer against it (and reads `schema`'s
//! bounds and spellings, never the reverse). Rewriting a built form for an old client is the legacy era
//! adapter's (`era::legacy::shape`). (This file is `form.rs` beside `form/` rather than `form/mod.rs`
//! because the compile-fail goldens in `tests/ui/` quote these traits and impls at this path.)

mod schema;
mod validate;

pub use schema::{FormSchema, default_of, select_property};
pub use validate::{FormErrors, has_choice, select_from_value};

use crate::protocol::JsonObject;
use serde_json::Value;

/// What `#[elicit(...)]` on a field says about it (its `default` goes into the schema separately, through
/// [`FormField::default_value`]). Options that don't apply to a field's kind are rejected at compile time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldOptions {
    /// `#[elicit(title = "..")]`: the label the client shows for the field.
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

/// A `minimum` or `maximum` as written: an integer or a number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// An integer bound (`minimum = 1`).
    Int(i128),
    /// A bound written as a float literal (`maximum = 0.5`).
    Float(f64),
}

/// One choice of a select: the value on the wire and the title the client shows (if any).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The value the client sends back when the user picks this choice.
    pub value: &'static str,
    /// The label shown instead of the value; with any titled choice, the select is written as `oneOf`.
    pub title: Option<&'static str>,
}

impl Choice {
    /// A choice with this wire value and title (what `#[elicit]` on an enum generates for each variant).
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
        schema::string(options)
    }

    fn default_value(default: &'static str) -> Value {
        Value::from(default)
    }

    fn from_value(value: Value, options: &FieldOptions) -> Result<Self, String> {
        validate::string(value, options)
    }
}

impl TextField for String {}

impl FormField for bool {
    type Default = bool;

    fn property(options: &FieldOptions) -> JsonObject {
        schema::boolean(options)
    }

    fn default_value(default: bool) -> Value {
        Value::Bool(default)
    }

    fn from_value(value: Value, _: &FieldOptions) -> Result<Self, String> {
        validate::boolean(value)
    }
}

// ---- numbers -------------------------------------------------------------------------------------------

macro_rules! integer_fields {
    ($($ty:ty),*) => {$(
        impl FormField for $ty {
            type Default = $ty;

            fn property(options: &FieldOptions) -> JsonObject {
                schema::integer(options, <$ty>::MIN as i128, saturating_i128(<$ty>::MAX))
            }

            fn default_value(default: $ty) -> Value {
                schema::int_value(saturating_i128(default))
            }

            fn from_value(value: Value, options: &FieldOptions) -> Result<Self, String> {
                validate::integer(&value, options, <$ty>::MIN as i128, saturating_i128(<$ty>::MAX))
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

impl FormField for f64 {
    type Default = f64;

    fn property(options: &FieldOptions) -> JsonObject {
        schema::number(options)
    }

    fn default_value(default: f64) -> Value {
        schema::float_value(default)
    }

    fn from_value(value: Value, options: &FieldOptions) -> Result<Self, String> {
        validate::number(&value, options, f64::MAX)
    }
}

impl NumberField for f64 {}

impl FormField for f32 {
    type Default = f32;

    fn property(options: &FieldOptions) -> JsonObject {
        schema::number(options)
    }

    fn default_value(default: f32) -> Value {
        schema::float_value(f64::from(default))
    }

    fn from_value(value: Value, options: &FieldOptions) -> Result<Self, String> {
        // Within f32's range (checked), so only precision is lost.
        validate::number(&value, options, f64::from(f32::MAX)).map(|f| f as f32)
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

// ---- multi-selects -------------------------------------------------------------------------------------

/// A multi-select: `{type: "array", items: {type: "string", enum}}` or, with titles,
/// `{type: "array", items: {anyOf: [{const, title}]}}`.
impl<E: ElicitChoice> FormField for Vec<E> {
    type Default = &'static [&'static str];
    const SELECTABLE: &'static [Choice] = E::CHOICES;

    fn property(options: &FieldOptions) -> JsonObject {
        schema::multi_select::<E>(options)
    }

    fn default_value(default: &'static [&'static str]) -> Value {
        Value::Array(default.iter().map(|s| Value::from(*s)).collect())
    }

    fn from_value(value: Value, options: &FieldOptions) -> Result<Self, String> {
        validate::multi_select(value, options)
    }
}

impl<E: ElicitChoice> MultiSelectField for Vec<E> {}

//! Validation of elicitation answers: the values a client sends back for a form's fields, against the
//! options the form was declared with.
//!
//! Invariants: a value is accepted exactly when it satisfies the property schema the same field and options
//! produce (type, `minLength`/`maxLength` and `format`, `minimum`/`maximum`, `enum`, `minItems`/`maxItems`,
//! distinct items), and what comes back is the value sent.
#![no_main]

use fastmcp::__fuzz::{Bound, Choice, ElicitChoice, FieldOptions, FormField, Format, select_from_value};
use fastmcp_fuzz::Json;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Color {
    Red,
    Green,
    Blue,
}

impl ElicitChoice for Color {
    const CHOICES: &'static [Choice] =
        &[Choice::new("red", None), Choice::new("green", Some("Green")), Choice::new("blue", None)];

    fn from_choice(value: &str) -> Option<Self> {
        match value {
            "red" => Some(Self::Red),
            "green" => Some(Self::Green),
            "blue" => Some(Self::Blue),
            _ => None,
        }
    }

    fn choice(&self) -> &'static str {
        match self {
            Self::Red => "red",
            Self::Green => "green",
            Self::Blue => "blue",
        }
    }
}

#[derive(Debug, Arbitrary)]
enum FuzzBound {
    Int(i64),
    Float(f64),
}

#[derive(Debug, Arbitrary)]
struct Options {
    min_length: Option<u8>,
    max_length: Option<u8>,
    format: Option<u8>,
    minimum: Option<FuzzBound>,
    maximum: Option<FuzzBound>,
    min_items: Option<u8>,
    max_items: Option<u8>,
}

impl Options {
    fn field_options(&self) -> FieldOptions {
        let bound = |b: &FuzzBound| match *b {
            FuzzBound::Int(i) => Some(Bound::Int(i.into())),
            FuzzBound::Float(f) => f.is_finite().then_some(Bound::Float(f)),
        };
        FieldOptions {
            min_length: self.min_length.map(u64::from),
            max_length: self.max_length.map(u64::from),
            format: self
                .format
                .map(|f| [Format::Email, Format::Uri, Format::Date, Format::DateTime][usize::from(f % 4)]),
            minimum: self.minimum.as_ref().and_then(bound),
            maximum: self.maximum.as_ref().and_then(bound),
            min_items: self.min_items.map(u64::from),
            max_items: self.max_items.map(u64::from),
            ..FieldOptions::NONE
        }
    }
}

#[derive(Debug, Arbitrary)]
enum Kind {
    Text,
    Flag,
    U8,
    I32,
    I64,
    U64,
    I128,
    F32,
    F64,
    Select,
    MultiSelect,
    /// Through `take`, as the generated code reads a field from the answer object.
    OptionalText {
        present: bool,
    },
}

#[derive(Debug, Arbitrary)]
enum Answer {
    Json(Json),
    Text(String),
    Number(f64),
    Integer(i128),
    Choices(Vec<u8>),
}

impl Answer {
    fn value(self) -> Value {
        match self {
            Answer::Json(Json(v)) => v,
            Answer::Text(s) => Value::String(s),
            Answer::Number(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
            Answer::Integer(i) => serde_json::from_str(&i.to_string()).unwrap_or(Value::Null),
            Answer::Choices(c) => {
                let names = ["red", "green", "blue", "purple", "Red"];
                Value::Array(c.iter().map(|i| Value::from(names[usize::from(*i) % names.len()])).collect())
            }
        }
    }
}

fn u(v: Option<&Value>) -> Option<u64> {
    v.and_then(Value::as_u64)
}

/// What the property schema says of a string.
fn string_allowed(property: &Map<String, Value>, options: &FieldOptions, s: &str) -> bool {
    let n = s.chars().count() as u64;
    u(property.get("minLength")).is_none_or(|m| n >= m)
        && u(property.get("maxLength")).is_none_or(|m| n <= m)
        && options.format.is_none_or(|f| f.matches(s))
}

/// Whether `n` is within the property's `minimum`/`maximum` (read as the JSON numbers they are).
fn within(property: &Map<String, Value>, n: &serde_json::Number) -> bool {
    let cmp = |bound: &Value, below: bool| {
        let Value::Number(b) = bound else { return true };
        let ordering = match (n.as_i128(), b.as_i128()) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => n.as_f64().unwrap().partial_cmp(&b.as_f64().unwrap()).unwrap(),
        };
        if below { ordering.is_ge() } else { ordering.is_le() }
    };
    property.get("minimum").is_none_or(|b| cmp(b, true)) && property.get("maximum").is_none_or(|b| cmp(b, false))
}

/// [`within`] for a number field, which compares as `f64` (a bound past 2^53 is as exact as the float).
fn within_f64(property: &Map<String, Value>, f: f64) -> bool {
    property.get("minimum").and_then(Value::as_f64).is_none_or(|m| f >= m)
        && property.get("maximum").and_then(Value::as_f64).is_none_or(|m| f <= m)
}

fn integral(n: &serde_json::Number) -> bool {
    n.as_i128().is_some() || n.as_f64().is_some_and(|f| f.fract() == 0.0 && f.abs() < 1.7e38)
}

/// The schema leaves out a type's own limits where no JSON number holds them exactly (`i64`'s), so the
/// type's range is checked besides the property.
fn check_integer<T: FormField + Into<i128> + std::fmt::Debug>(
    value: Value,
    options: &FieldOptions,
    range: (i128, i128),
) {
    let property = T::property(options);
    let result = T::from_value(value.clone(), options);
    let as_int = |n: &serde_json::Number| n.as_i128().or_else(|| n.as_f64().map(|f| f as i128));
    let allowed = match &value {
        Value::Number(n) => {
            integral(n) && within(&property, n) && as_int(n).is_some_and(|i| range.0 <= i && i <= range.1)
        }
        _ => false,
    };
    match result {
        Ok(got) => {
            assert!(allowed, "{value} accepted against {property:?}");
            let got: i128 = got.into();
            let sent = value.as_number().and_then(|n| n.as_i128().or_else(|| n.as_f64().map(|f| f as i128)));
            assert_eq!(Some(got), sent, "{value} came back as {got}");
        }
        Err(e) => assert!(!allowed, "{value} refused against {property:?}: {e}"),
    }
}

fn check_float<T: FormField + Into<f64> + std::fmt::Debug>(value: Value, options: &FieldOptions, type_max: f64) {
    let property = T::property(options);
    let result = T::from_value(value.clone(), options);
    let allowed = match &value {
        Value::Number(n) => n.as_f64().unwrap().abs() <= type_max && within_f64(&property, n.as_f64().unwrap()),
        _ => false,
    };
    match result {
        Ok(got) => {
            assert!(allowed, "{value} accepted against {property:?}");
            let got: f64 = got.into();
            let sent = value.as_f64().unwrap();
            assert!(got == sent || (got as f32) == (sent as f32), "{value} came back as {got}");
        }
        Err(e) => assert!(!allowed, "{value} refused against {property:?}: {e}"),
    }
}

fn check_text(value: Value, options: &FieldOptions) {
    let property = String::property(options);
    let result = String::from_value(value.clone(), options);
    let allowed = value.as_str().is_some_and(|s| string_allowed(&property, options, s));
    match result {
        Ok(got) => {
            assert!(allowed, "{value} accepted against {property:?}");
            assert_eq!(Some(got.as_str()), value.as_str());
            if options.format == Some(Format::Date) {
                let b = got.as_bytes();
                assert!(b.len() == 10 && b[4] == b'-' && b[7] == b'-', "{got:?} is a date");
            }
        }
        Err(e) => {
            assert!(!allowed, "{value} refused against {property:?}: {e}");
            assert!(!e.is_empty());
        }
    }
}

fuzz_target!(|input: (Kind, Options, Answer)| {
    let (kind, options, answer) = input;
    let options = options.field_options();
    let value = answer.value();
    match kind {
        Kind::Text => check_text(value, &options),
        Kind::Flag => assert_eq!(bool::from_value(value.clone(), &options).ok(), value.as_bool()),
        Kind::U8 => check_integer::<u8>(value, &options, (u8::MIN.into(), u8::MAX.into())),
        Kind::I32 => check_integer::<i32>(value, &options, (i32::MIN.into(), i32::MAX.into())),
        Kind::I64 => check_integer::<i64>(value, &options, (i64::MIN.into(), i64::MAX.into())),
        Kind::U64 => check_integer::<u64>(value, &options, (u64::MIN.into(), u64::MAX.into())),
        Kind::I128 => check_integer::<i128>(value, &options, (i128::MIN, i128::MAX)),
        Kind::F32 => check_float::<f32>(value, &options, f64::from(f32::MAX)),
        Kind::F64 => check_float::<f64>(value, &options, f64::MAX),
        Kind::Select => {
            let got = select_from_value::<Color>(value.clone());
            assert_eq!(got.ok().map(|c| c.choice()), value.as_str().filter(|s| Color::from_choice(s).is_some()));
        }
        Kind::MultiSelect => {
            let got = Vec::<Color>::from_value(value.clone(), &options);
            let allowed = value.as_array().is_some_and(|items| {
                let n = items.len() as u64;
                let mut seen = Vec::new();
                options.min_items.is_none_or(|m| n >= m)
                    && options.max_items.is_none_or(|m| n <= m)
                    && items.iter().all(|i| {
                        let fresh = !seen.contains(i);
                        seen.push(i.clone());
                        fresh && i.as_str().is_some_and(|s| Color::from_choice(s).is_some())
                    })
            });
            match got {
                Ok(colors) => {
                    assert!(allowed, "{value} accepted");
                    let wire: Vec<Value> = colors.iter().map(|c| Value::from(c.choice())).collect();
                    assert_eq!(Some(&wire), value.as_array());
                }
                Err(e) => assert!(!allowed, "{value} refused: {e}"),
            }
        }
        Kind::OptionalText { present } => {
            let mut content = Map::new();
            if present {
                content.insert("note".into(), value.clone());
            }
            let got = <Option<String> as FormField>::take(&mut content, "note", &options, None);
            assert!(!content.contains_key("note"), "take removes the field");
            match (present, &value) {
                (false, _) | (true, Value::Null) => assert_eq!(got, Ok(None)),
                (true, v) => {
                    let property = String::property(&options);
                    let allowed = v.as_str().is_some_and(|s| string_allowed(&property, &options, s));
                    match got {
                        Ok(s) => assert!(allowed && s.as_deref() == v.as_str(), "{v} accepted as {s:?}"),
                        Err(e) => assert!(!allowed && e.starts_with("field `note`"), "{v}: {e}"),
                    }
                }
            }
        }
    }
});

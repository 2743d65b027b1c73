//! The validation side of a form: checking the client's answer against what the schema says (type, bounds,
//! length, `format`, membership of the choices) and converting it, with an error that says what is wrong.
//!
//! Separate from the schema because this is where untrusted input is read: every check of a value and its
//! error text is here (`FormField::take` names the field and reports a required one left out; `FormErrors`
//! gathers the errors). It reads the bounds and spellings the schema writes (`super::schema`); the schema
//! reads nothing from here.

use super::schema::int_bounds;
use super::{Bound, Choice, ElicitChoice, FieldOptions, Format};
use serde_json::Value;

impl Format {
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

impl Bound {
    fn as_f64(self) -> f64 {
        match self {
            // Exactness does not matter for comparing with a float.
            Bound::Int(i) => i as f64,
            Bound::Float(f) => f,
        }
    }
}

// ---- strings and booleans ------------------------------------------------------------------------------

pub(super) fn string(value: Value, options: &FieldOptions) -> Result<String, String> {
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

pub(super) fn boolean(value: Value) -> Result<bool, String> {
    value.as_bool().ok_or_else(|| format!("must be true or false, got {}", describe(&value)))
}

// ---- numbers -------------------------------------------------------------------------------------------

/// An integer within the type's range (`type_min..=type_max`, narrowed by the options), as `T`.
pub(super) fn integer<T: TryFrom<i128>>(
    value: &Value,
    options: &FieldOptions,
    type_min: i128,
    type_max: i128,
) -> Result<T, String> {
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
    T::try_from(i).map_err(|_| format!("{i} is out of range"))
}

pub(super) fn number(value: &Value, options: &FieldOptions, type_max: f64) -> Result<f64, String> {
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

// ---- selects -------------------------------------------------------------------------------------------

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

/// A single select's value: one of the choices.
#[doc(hidden)]
pub fn select_from_value<E: ElicitChoice>(value: Value) -> Result<E, String> {
    parse_choice(&value)
}

/// A multi-select's value: a list of distinct choices, as many as `min_items` and `max_items` allow.
pub(super) fn multi_select<E: ElicitChoice>(value: Value, options: &FieldOptions) -> Result<Vec<E>, String> {
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

// ---- the form ------------------------------------------------------------------------------------------

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

// ---- helpers -------------------------------------------------------------------------------------------

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
    use super::super::FormField;
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
}

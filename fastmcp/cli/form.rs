//! The server's forms (`elicitation/create`) at the terminal: one question per field of the requested schema
//! (strings, integers, numbers, booleans, single and multiple choice), defaults shown and taken on an empty
//! line, required fields insisted on, invalid input asked again with the reason. `--answer key=value` fills
//! fields without asking, `--accept` takes answers and defaults without asking, `--decline` declines.
//! Without a terminal, a form whose required fields the answers don't cover is declined, with the flags
//! that would answer it on stderr.

use crate::args::json_or_string;
use fastmcp::protocol::{ElicitMode, ElicitParams, ElicitResult, JsonObject};
use serde_json::{Number, Value};
use std::io::{BufRead, Write};

/// How forms are answered.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// `--answer key=value`, as typed.
    pub answers: Vec<(String, String)>,
    /// `--accept`: answers and defaults, never a question.
    pub accept: bool,
    /// `--decline`.
    pub decline: bool,
    /// Questions may be asked: stdin is a terminal.
    pub terminal: bool,
}

impl Policy {
    fn asks(&self) -> bool {
        self.terminal && !self.accept && !self.decline
    }

    fn answer(&self, name: &str) -> Option<&str> {
        self.answers.iter().rev().find(|(key, _)| key == name).map(|(_, text)| text.as_str())
    }
}

/// Answers one form: questions on `out`, replies read from `input`. Decisions the user should know about
/// (a decline for want of answers) are written to `out` too.
pub fn fill(params: &ElicitParams, policy: &Policy, input: &mut dyn BufRead, out: &mut dyn Write) -> ElicitResult {
    if policy.decline {
        return ElicitResult::decline();
    }
    if params.mode == Some(ElicitMode::Url) {
        return open_url(params, policy, input, out);
    }
    let fields = params.requested_schema.as_deref().map(fields).unwrap_or_default();
    if policy.asks() {
        let _ = writeln!(out, "{}", params.message);
    }
    let mut content = JsonObject::new();
    let mut missing: Vec<&Field> = Vec::new();
    for field in &fields {
        let mut complaint = None;
        if let Some(text) = policy.answer(&field.name) {
            match field.kind.parse(&unquote(text)) {
                Ok(value) => {
                    content.insert(field.name.clone(), value);
                    continue;
                }
                Err(why) if policy.asks() => complaint = Some(format!("--answer {}={text}: {why}", field.name)),
                Err(why) => {
                    let _ = writeln!(
                        out,
                        "fastmcp: declined the server's form {:?}: --answer {}={text}: {why}",
                        params.message, field.name
                    );
                    return ElicitResult::decline();
                }
            }
        }
        if policy.asks() {
            match ask(field, complaint, input, out) {
                Some(Some(value)) => {
                    content.insert(field.name.clone(), value);
                }
                Some(None) => {}
                None => {
                    let _ = writeln!(out, "\n  cancelled");
                    return ElicitResult::cancel();
                }
            }
        } else if let Some(default) = &field.default {
            content.insert(field.name.clone(), default.clone());
        } else if field.required {
            missing.push(field);
        }
    }
    if !missing.is_empty() {
        let needs: Vec<String> = missing.iter().map(|f| format!("`{}` ({})", f.name, f.kind.hint())).collect();
        let flags: Vec<String> = missing.iter().map(|f| format!("--answer {}=VALUE", f.name)).collect();
        let why = if policy.accept { "with --accept" } else { "with no terminal to ask at" };
        let _ = writeln!(
            out,
            "fastmcp: declined the server's form {:?} {why}: it needs {}; answer with {}",
            params.message,
            needs.join(", "),
            flags.join(" ")
        );
        return ElicitResult::decline();
    }
    ElicitResult::accept(content)
}

/// A URL-mode request: the user is to open a page. Asked at a terminal; accepted without asking with
/// `--accept`; declined otherwise.
fn open_url(params: &ElicitParams, policy: &Policy, input: &mut dyn BufRead, out: &mut dyn Write) -> ElicitResult {
    let url = params.url.as_deref().unwrap_or("(no URL given)");
    let _ = writeln!(out, "{}\n  open: {url}", params.message);
    if policy.accept {
        return ElicitResult { action: fastmcp::protocol::ElicitAction::Accept, content: None, meta: None };
    }
    if !policy.asks() {
        let _ = writeln!(out, "fastmcp: declined (no terminal to ask at); --accept accepts it without asking");
        return ElicitResult::decline();
    }
    let _ = write!(out, "  press Enter once done there, or type n to decline > ");
    let _ = out.flush();
    match read_line(input) {
        None => ElicitResult::cancel(),
        Some(line) if matches!(line.trim().to_ascii_lowercase().as_str(), "n" | "no") => ElicitResult::decline(),
        Some(_) => ElicitResult { action: fastmcp::protocol::ElicitAction::Accept, content: None, meta: None },
    }
}

/// Asks for one field until the reply is valid. `Some(None)`: left empty (optional, no default); `None`:
/// the input ended.
fn ask(
    field: &Field,
    mut complaint: Option<String>,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Option<Option<Value>> {
    let _ = writeln!(out, "{}", field.question());
    if let Kind::Choice(options) | Kind::Choices { options, .. } = &field.kind {
        for (i, option) in options.iter().enumerate() {
            let _ = writeln!(out, "    {}) {}", i + 1, option.label());
        }
    }
    loop {
        if let Some(why) = complaint.take() {
            let _ = writeln!(out, "  ! {why}");
        }
        let _ = write!(out, "  > ");
        let _ = out.flush();
        let line = read_line(input)?;
        let text = line.trim();
        if text.is_empty() {
            match (&field.default, field.required) {
                (Some(default), _) => return Some(Some(default.clone())),
                (None, false) => return Some(None),
                (None, true) => {
                    complaint = Some("a value is required".into());
                    continue;
                }
            }
        }
        match field.kind.parse(text) {
            Ok(value) => return Some(Some(value)),
            Err(why) => complaint = Some(why),
        }
    }
}

fn read_line(input: &mut dyn BufRead) -> Option<String> {
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end_matches(['\r', '\n']).to_owned()),
    }
}

/// An `--answer` value given as a JSON string literal (`name="Ada"`) is that string.
fn unquote(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::String(s)) if text.trim_start().starts_with('"') => s,
        _ => text.to_owned(),
    }
}

/// One field of a form.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub kind: Kind,
    pub required: bool,
    pub default: Option<Value>,
}

/// What a field takes.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Text {
        min_length: Option<u64>,
        max_length: Option<u64>,
        format: Option<String>,
    },
    Integer {
        minimum: Option<f64>,
        maximum: Option<f64>,
    },
    Number {
        minimum: Option<f64>,
        maximum: Option<f64>,
    },
    Boolean,
    /// One of these.
    Choice(Vec<Choice>),
    /// Any of these (an array of them).
    Choices {
        options: Vec<Choice>,
        min_items: Option<u64>,
        max_items: Option<u64>,
    },
    /// A schema this form doesn't know: JSON where it parses, else text.
    Any,
}

/// An option of a choice: its value and the title shown for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub value: Value,
    pub title: Option<String>,
}

impl Choice {
    fn value_text(&self) -> String {
        match &self.value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }
    }

    fn label(&self) -> String {
        match &self.title {
            Some(title) if *title != self.value_text() => format!("{title} [{}]", self.value_text()),
            _ => self.value_text(),
        }
    }
}

/// The fields of a requested schema, in its order (`properties`, with `required`).
pub fn fields(schema: &JsonObject) -> Vec<Field> {
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return Vec::new() };
    properties
        .iter()
        .map(|(name, property)| Field {
            name: name.clone(),
            title: text(property, "title"),
            description: text(property, "description"),
            kind: kind(property),
            required: required.contains(&name.as_str()),
            default: property.get("default").cloned(),
        })
        .collect()
}

fn text(property: &Value, key: &str) -> Option<String> {
    property.get(key).and_then(Value::as_str).map(str::to_owned).filter(|s| !s.is_empty())
}

fn number(property: &Value, key: &str) -> Option<f64> {
    property.get(key).and_then(Value::as_f64)
}

fn count(property: &Value, key: &str) -> Option<u64> {
    property.get(key).and_then(Value::as_u64)
}

fn kind(property: &Value) -> Kind {
    if let Some(options) = choices(property) {
        return Kind::Choice(options);
    }
    match property.get("type").and_then(Value::as_str) {
        Some("string") => Kind::Text {
            min_length: count(property, "minLength"),
            max_length: count(property, "maxLength"),
            format: text(property, "format"),
        },
        Some("integer") => Kind::Integer { minimum: number(property, "minimum"), maximum: number(property, "maximum") },
        Some("number") => Kind::Number { minimum: number(property, "minimum"), maximum: number(property, "maximum") },
        Some("boolean") => Kind::Boolean,
        Some("array") => match property.get("items").and_then(choices) {
            Some(options) => Kind::Choices {
                options,
                min_items: count(property, "minItems"),
                max_items: count(property, "maxItems"),
            },
            None => Kind::Any,
        },
        _ => Kind::Any,
    }
}

/// The options of an enum schema: `enum` (with the legacy `enumNames` as titles), or `oneOf` / `anyOf` of
/// `{const, title}`.
fn choices(schema: &Value) -> Option<Vec<Choice>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        let title = |i: usize| names.and_then(|n| n.get(i)).and_then(Value::as_str).map(str::to_owned);
        return Some(values.iter().enumerate().map(|(i, v)| Choice { value: v.clone(), title: title(i) }).collect());
    }
    let options = schema.get("oneOf").or_else(|| schema.get("anyOf")).and_then(Value::as_array)?;
    let options: Vec<Choice> = options
        .iter()
        .filter_map(|o| Some(Choice { value: o.get("const")?.clone(), title: text(o, "title") }))
        .collect();
    (!options.is_empty()).then_some(options)
}

impl Field {
    /// The question line: `  name: description [hint, required, default: x]`.
    fn question(&self) -> String {
        let label = match &self.title {
            Some(title) if *title != self.name => format!("{title} ({})", self.name),
            _ => self.name.clone(),
        };
        let mut notes = vec![self.kind.hint()];
        if self.required {
            notes.push("required".into());
        }
        if let Some(default) = &self.default {
            notes.push(format!("default: {}", self.kind.show(default)));
        }
        match &self.description {
            Some(description) => format!("  {label}: {description} [{}]", notes.join(", ")),
            None => format!("  {label} [{}]", notes.join(", ")),
        }
    }
}

impl Kind {
    /// What the field takes, in a few words.
    pub fn hint(&self) -> String {
        match self {
            Kind::Text { format: Some(format), .. } => format!("text, {format}"),
            Kind::Text { min_length, max_length, .. } => match (min_length, max_length) {
                (Some(min), Some(max)) => format!("text, {min} to {max} characters"),
                (Some(min), None) => format!("text, at least {min} characters"),
                (None, Some(max)) => format!("text, at most {max} characters"),
                (None, None) => "text".into(),
            },
            Kind::Integer { minimum, maximum } => format!("whole number{}", range(*minimum, *maximum)),
            Kind::Number { minimum, maximum } => format!("number{}", range(*minimum, *maximum)),
            Kind::Boolean => "yes/no".into(),
            Kind::Choice(options) => format!("one of 1-{}", options.len()),
            Kind::Choices { options, .. } => format!("any of 1-{}, comma-separated", options.len()),
            Kind::Any => "JSON or text".into(),
        }
    }

    /// A value as the user would type it.
    fn show(&self, value: &Value) -> String {
        match (self, value) {
            (Kind::Boolean, Value::Bool(b)) => if *b { "yes" } else { "no" }.into(),
            (Kind::Choice(options), v) => {
                options.iter().find(|o| o.value == *v).map_or_else(|| v.to_string(), Choice::label)
            }
            (_, Value::String(s)) => s.clone(),
            (_, v) => v.to_string(),
        }
    }

    /// The value for what was typed, or why it won't do.
    pub fn parse(&self, text: &str) -> Result<Value, String> {
        match self {
            Kind::Text { min_length, max_length, format } => {
                let length = text.chars().count() as u64;
                if let Some(min) = min_length.filter(|min| length < *min) {
                    return Err(format!("at least {min} characters, please ({length} given)"));
                }
                if let Some(max) = max_length.filter(|max| length > *max) {
                    return Err(format!("at most {max} characters, please ({length} given)"));
                }
                if let Some(format) = format {
                    check_format(format, text)?;
                }
                Ok(Value::String(text.to_owned()))
            }
            Kind::Integer { minimum, maximum } => {
                let n: i64 = text.trim().parse().map_err(|_| format!("expected a whole number, not {text:?}"))?;
                in_range(n as f64, *minimum, *maximum)?;
                Ok(Value::from(n))
            }
            Kind::Number { minimum, maximum } => {
                let trimmed = text.trim();
                let n: f64 = trimmed
                    .parse()
                    .ok()
                    .filter(|n: &f64| n.is_finite())
                    .ok_or(format!("expected a number, not {text:?}"))?;
                in_range(n, *minimum, *maximum)?;
                Ok(trimmed
                    .parse::<i64>()
                    .map(Value::from)
                    .unwrap_or_else(|_| Number::from_f64(n).map_or(Value::Null, Value::Number)))
            }
            Kind::Boolean => match text.trim().to_ascii_lowercase().as_str() {
                "y" | "yes" | "true" | "1" | "on" => Ok(Value::Bool(true)),
                "n" | "no" | "false" | "0" | "off" => Ok(Value::Bool(false)),
                _ => Err(format!("expected yes or no, not {text:?}")),
            },
            Kind::Choice(options) => pick(options, text),
            Kind::Choices { options, min_items, max_items } => {
                let items: Vec<String> = match serde_json::from_str::<Vec<String>>(text) {
                    Ok(items) => items,
                    Err(_) => text.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect(),
                };
                let mut picked: Vec<Value> = Vec::new();
                for item in items {
                    let value = pick(options, &item)?;
                    if !picked.contains(&value) {
                        picked.push(value);
                    }
                }
                let n = picked.len() as u64;
                if let Some(min) = min_items.filter(|min| n < *min) {
                    return Err(format!("pick at least {min}"));
                }
                if let Some(max) = max_items.filter(|max| n > *max) {
                    return Err(format!("pick at most {max}"));
                }
                Ok(Value::Array(picked))
            }
            Kind::Any => Ok(json_or_string(text)),
        }
    }
}

/// An option by its number (1-based), its value, or its title (either case-insensitively).
fn pick(options: &[Choice], text: &str) -> Result<Value, String> {
    let text = text.trim();
    if let Ok(n) = text.parse::<usize>()
        && (1..=options.len()).contains(&n)
        && !options.iter().any(|o| o.value_text() == text)
    {
        return Ok(options[n - 1].value.clone());
    }
    let same = |s: &str| s.eq_ignore_ascii_case(text);
    options
        .iter()
        .find(|o| o.value_text() == text)
        .or_else(|| options.iter().find(|o| same(&o.value_text()) || o.title.as_deref().is_some_and(same)))
        .map(|o| o.value.clone())
        .ok_or_else(|| {
            let values: Vec<String> = options.iter().map(Choice::value_text).collect();
            format!("expected one of {} (or its number), not {text:?}", values.join(", "))
        })
}

fn range(minimum: Option<f64>, maximum: Option<f64>) -> String {
    match (minimum, maximum) {
        (Some(min), Some(max)) => format!(", {min} to {max}"),
        (Some(min), None) => format!(", at least {min}"),
        (None, Some(max)) => format!(", at most {max}"),
        (None, None) => String::new(),
    }
}

fn in_range(n: f64, minimum: Option<f64>, maximum: Option<f64>) -> Result<(), String> {
    if let Some(min) = minimum.filter(|min| n < *min) {
        return Err(format!("at least {min}, please"));
    }
    if let Some(max) = maximum.filter(|max| n > *max) {
        return Err(format!("at most {max}, please"));
    }
    Ok(())
}

/// The spec's string formats, checked loosely (the server validates for real).
fn check_format(format: &str, text: &str) -> Result<(), String> {
    let date = |s: &str| {
        let b = s.as_bytes();
        b.len() == 10
            && b[4] == b'-'
            && b[7] == b'-'
            && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
    };
    let ok = match format {
        "email" => text.split_once('@').is_some_and(|(user, host)| !user.is_empty() && host.contains('.')),
        "uri" => text.split_once(':').is_some_and(|(scheme, rest)| {
            !rest.is_empty()
                && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        }),
        "date" => date(text),
        "date-time" => text.len() > 11 && date(&text[..10]) && matches!(text.as_bytes()[10], b'T' | b't'),
        _ => true,
    };
    if ok { Ok(()) } else { Err(format!("expected {}, not {text:?}", article(format))) }
}

fn article(format: &str) -> String {
    match format {
        "email" => "an email address".into(),
        "uri" => "a URI such as https://example.com".into(),
        "date" => "a date, YYYY-MM-DD".into(),
        "date-time" => "a date and time, YYYY-MM-DDThh:mm:ssZ".into(),
        other => format!("a {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastmcp::protocol::ElicitAction;
    use serde_json::json;

    fn form(schema: Value) -> ElicitParams {
        ElicitParams {
            mode: None,
            message: "Tell me".into(),
            requested_schema: schema.as_object().cloned().map(std::sync::Arc::new),
            url: None,
            elicitation_id: None,
        }
    }

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "confirm": {"type": "boolean", "description": "Go ahead?"},
                "name": {"type": "string", "title": "Full name", "minLength": 2, "default": "Ada"},
                "count": {"type": "integer", "minimum": 1, "maximum": 5},
                "colour": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]},
                "size": {"type": "string", "enum": ["s", "m", "l"]},
                "tags": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}},
                "ratio": {"type": "number"},
            },
            "required": ["confirm", "count"],
        })
    }

    fn run(params: &ElicitParams, policy: &Policy, typed: &str) -> (ElicitResult, String) {
        let mut input = std::io::Cursor::new(typed.as_bytes().to_vec());
        let mut out = Vec::new();
        let result = fill(params, policy, &mut input, &mut out);
        (result, String::from_utf8(out).unwrap())
    }

    fn answers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn a_form_at_the_terminal_reasks_with_reasons_and_takes_defaults() {
        let terminal = Policy { terminal: true, ..Policy::default() };
        // confirm: "maybe" then "y"; name: empty (default); count: empty (required), 9 (too big), 3;
        // colour: 2; size: M (case-insensitive value); tags: "a, b"; ratio: empty (optional, skipped).
        let typed = "maybe\ny\n\n\n9\n3\n2\nM\na, b\n\n";
        let (result, shown) = run(&form(schema()), &terminal, typed);
        assert_eq!(result.action, ElicitAction::Accept, "{shown}");
        assert_eq!(
            Value::Object(result.content.unwrap()),
            json!({"confirm": true, "name": "Ada", "count": 3, "colour": "g", "size": "m", "tags": ["a", "b"]})
        );
        assert!(shown.starts_with("Tell me\n"), "{shown}");
        assert!(shown.contains("  confirm: Go ahead? [yes/no, required]"), "{shown}");
        assert!(shown.contains("  ! expected yes or no, not \"maybe\""), "{shown}");
        assert!(shown.contains("  Full name (name) [text, at least 2 characters, default: Ada]"), "{shown}");
        assert!(shown.contains("  ! a value is required"), "{shown}");
        assert!(shown.contains("  ! at most 5, please"), "{shown}");
        assert!(shown.contains("    2) Green [g]"), "{shown}");
    }

    #[test]
    fn answers_fill_fields_and_bad_ones_are_asked_again_at_a_terminal() {
        let policy = Policy {
            answers: answers(&[("confirm", "true"), ("count", "7"), ("ratio", "0.5"), ("tags", r#"["b"]"#)]),
            terminal: true,
            ..Policy::default()
        };
        // Asked: name (empty: default), count (the answer 7 is too big: asked, 2), colour r, size empty.
        let (result, shown) = run(&form(schema()), &policy, "\n2\nr\n\n");
        assert_eq!(
            Value::Object(result.content.unwrap()),
            json!({"confirm": true, "name": "Ada", "count": 2, "colour": "r", "ratio": 0.5, "tags": ["b"]})
        );
        assert!(shown.contains("  ! --answer count=7: at most 5, please"), "{shown}");
        assert!(!shown.contains("  confirm:"), "an answered field is not asked: {shown}");
    }

    #[test]
    fn without_a_terminal_answers_and_defaults_or_a_decline_naming_the_flag() {
        let none = Policy { answers: answers(&[("confirm", "yes"), ("count", "1")]), ..Policy::default() };
        let (result, shown) = run(&form(schema()), &none, "");
        assert_eq!(Value::Object(result.content.unwrap()), json!({"confirm": true, "name": "Ada", "count": 1}));
        assert_eq!(shown, "");

        let short = Policy { answers: answers(&[("confirm", "yes")]), ..Policy::default() };
        let (result, shown) = run(&form(schema()), &short, "");
        assert_eq!(result.action, ElicitAction::Decline);
        assert!(shown.contains("needs `count` (whole number, 1 to 5); answer with --answer count=VALUE"), "{shown}");

        let bad = Policy { answers: answers(&[("confirm", "perhaps"), ("count", "1")]), ..Policy::default() };
        let (result, shown) = run(&form(schema()), &bad, "");
        assert_eq!(result.action, ElicitAction::Decline);
        assert!(shown.contains("--answer confirm=perhaps: expected yes or no"), "{shown}");

        let accept = Policy { accept: true, terminal: true, ..short };
        let (result, shown) = run(&form(schema()), &accept, "y\n3\n");
        assert_eq!(result.action, ElicitAction::Decline, "--accept never asks");
        assert!(shown.contains("with --accept"), "{shown}");

        let decline = Policy { decline: true, terminal: true, ..Policy::default() };
        assert_eq!(run(&form(schema()), &decline, "").0.action, ElicitAction::Decline);
    }

    #[test]
    fn the_end_of_input_cancels() {
        let terminal = Policy { terminal: true, ..Policy::default() };
        let (result, shown) = run(&form(schema()), &terminal, "y\n");
        assert_eq!(result.action, ElicitAction::Cancel);
        assert!(shown.ends_with("cancelled\n"), "{shown}");
    }

    #[test]
    fn kinds_parse_and_check() {
        let text = |format: &str| Kind::Text { min_length: None, max_length: Some(20), format: Some(format.into()) };
        assert!(text("email").parse("ada@example.com").is_ok());
        assert!(text("email").parse("ada").is_err());
        assert!(text("uri").parse("https://x.y").is_ok());
        assert!(text("uri").parse("nope").is_err());
        assert!(text("date").parse("2026-07-28").is_ok());
        assert!(text("date").parse("28.7.2026").is_err());
        assert!(text("date-time").parse("2026-07-28T10:00:00Z").is_ok());
        assert!(text("email").parse("a-very-long-name@example.com").is_err(), "maxLength");
        let number = Kind::Number { minimum: Some(0.0), maximum: None };
        assert_eq!(number.parse("2").unwrap(), json!(2));
        assert_eq!(number.parse("2.5").unwrap(), json!(2.5));
        assert!(number.parse("-1").is_err());
        assert!(number.parse("NaN").is_err());
        // A number that is also a value is the value.
        let numbered =
            Kind::Choice(vec![Choice { value: json!("2"), title: None }, Choice { value: json!("1"), title: None }]);
        assert_eq!(numbered.parse("1").unwrap(), json!("1"));
        assert_eq!(Kind::Any.parse("[1]").unwrap(), json!([1]));
        assert_eq!(Kind::Any.parse("hi").unwrap(), json!("hi"));
        assert_eq!(unquote(r#""42""#), "42");
        assert_eq!(unquote("42"), "42");
    }

    #[test]
    fn legacy_enum_names_title_the_options() {
        let fields = fields(
            json!({"properties": {"s": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]}}})
                .as_object()
                .unwrap(),
        );
        assert_eq!(fields[0].kind.parse("beta").unwrap(), json!("b"));
        assert!(!fields[0].required);
    }
}

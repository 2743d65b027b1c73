//! Resource URI templates: parsing a template and matching a client's URI against it.
//!
//! Inputs are a template and a URI (free text, or the template expanded with fuzzed values). Invariants:
//! neither panics; an expansion of a template with every value percent-encoded matches it and gives back
//! exactly those values; and whatever a URI matches with re-expands (values encoded) to a URI that matches
//! with the same values.
#![no_main]

use fastmcp::__fuzz::UriTemplate;
use fastmcp_fuzz::encode_all;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use std::collections::BTreeMap;

#[derive(Debug, Arbitrary)]
enum Piece {
    Literal(String),
    /// `{name}`, `{+name}` (reserved) or `{name*}` (explode): operator 0, 1, 2.
    Var {
        operator: u8,
    },
}

#[derive(Debug, Arbitrary)]
enum Input {
    Free { template: String, uri: String },
    Built { pieces: Vec<Piece>, query: u8, values: Vec<String> },
}

/// The parts of a built template: literals (kept free of `%`, `{`, `}` so they are plain text) and
/// variables named `v0`, `v1`, …, then `q0`, … in a trailing `{?…}`.
struct Built {
    template: String,
    /// `None` for a literal.
    parts: Vec<(Option<String>, String)>,
    query: Vec<String>,
}

fn build(pieces: &[Piece], query: u8) -> Built {
    let mut template = String::new();
    let mut parts = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::Literal(text) => {
                let text: String = text.chars().filter(|c| !matches!(c, '%' | '{' | '}' | '?')).collect();
                template.push_str(&text);
                parts.push((None, text));
            }
            Piece::Var { operator } => {
                let name = format!("v{i}");
                template.push_str(&match operator % 3 {
                    0 => format!("{{{name}}}"),
                    1 => format!("{{+{name}}}"),
                    _ => format!("{{{name}*}}"),
                });
                parts.push((Some(name), String::new()));
            }
        }
    }
    let query: Vec<String> = (0..query % 4).map(|i| format!("q{i}")).collect();
    if !query.is_empty() {
        template.push_str(&format!("{{?{}}}", query.join(",")));
    }
    Built { template, parts, query }
}

/// `template` expanded with `vars`, every value percent-encoded; query variables only where present.
fn expand(built: &Built, vars: &BTreeMap<String, String>) -> String {
    let mut uri = String::new();
    for (name, literal) in &built.parts {
        match name {
            Some(name) => uri.push_str(&encode_all(&vars[name])),
            None => uri.push_str(literal),
        }
    }
    let pairs: Vec<String> =
        built.query.iter().filter_map(|q| vars.get(q).map(|v| format!("{q}={}", encode_all(v)))).collect();
    if !pairs.is_empty() {
        uri.push('?');
        uri.push_str(&pairs.join("&"));
    }
    uri
}

fuzz_target!(|data: &[u8]| {
    // A leading 0xFF selects typed input; anything else is `template\nuri` text (the seed corpus's form).
    let input = match data.split_first() {
        Some((0xFF, rest)) => match Input::arbitrary_take_rest(arbitrary::Unstructured::new(rest)) {
            Ok(input) => input,
            Err(_) => return,
        },
        _ => {
            let Ok(text) = std::str::from_utf8(data) else { return };
            let (template, uri) = text.split_once('\n').unwrap_or((text, ""));
            Input::Free { template: template.to_owned(), uri: uri.to_owned() }
        }
    };
    match input {
        Input::Free { template, uri } => {
            if let Ok(t) = UriTemplate::parse(&template) {
                let _ = t.match_uri(&uri);
            }
        }
        Input::Built { pieces, query, values } => {
            // Bounded so the built template stays one a reader of a failing input can follow.
            let built = build(&pieces[..pieces.len().min(8)], query);
            let template = UriTemplate::parse(&built.template).expect("a built template parses");
            // Values for every variable (path ones non-empty, as the matcher requires); some query ones left out.
            let mut values = values.into_iter().cycle();
            let mut vars = BTreeMap::new();
            for name in built.parts.iter().filter_map(|(n, _)| n.as_ref()) {
                let v: String = values.next().unwrap_or_default().chars().take(16).collect();
                vars.insert(name.clone(), if v.is_empty() { "x".to_owned() } else { v });
            }
            for (i, q) in built.query.iter().enumerate() {
                if let Some(v) = values.next().filter(|_| i % 2 == 0).map(|v| v.chars().take(16).collect()) {
                    vars.insert(q.clone(), v);
                }
            }
            let uri = expand(&built, &vars);
            let matched = template.match_uri(&uri);
            // Adjacent variables may split the same text differently; re-expanding what matched is exact.
            let Some(matched) = matched else { panic!("{uri:?} does not match {:?}", built.template) };
            if !has_adjacent_vars(&built) {
                assert_eq!(matched, vars, "{uri:?} against {:?}", built.template);
            }
            let again = expand(&built, &matched);
            assert_eq!(template.match_uri(&again).as_ref(), Some(&matched), "{again:?} against {:?}", built.template);
        }
    }
});

/// Whether two variables touch (no literal text between them): then one text has several splits.
fn has_adjacent_vars(built: &Built) -> bool {
    let parts: Vec<bool> =
        built.parts.iter().filter(|(n, l)| n.is_some() || !l.is_empty()).map(|(n, _)| n.is_some()).collect();
    parts.windows(2).any(|w| w[0] && w[1])
}

//! Properties of matching: a URI expanded from a template with arbitrary values (RFC 6570 simple `{v}`,
//! reserved `{+v}`, explode `{v*}` and the query form `{?a,b}`) matches it and gives back exactly those
//! values.

use super::*;
use proptest::prelude::*;

/// How a variable is written, and what its expansion leaves unencoded besides RFC 3986's unreserved
/// characters: reserved and explode expansions keep `/`.
#[derive(Debug, Clone, Copy)]
enum Op {
    Simple,
    Reserved,
    Explode,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![Just(Op::Simple), Just(Op::Reserved), Just(Op::Explode)]
}

/// Percent-encodes all but unreserved characters (and `/` where kept), as RFC 6570 expands a value.
fn encode(value: &str, keep_slash: bool) -> String {
    let mut out = String::new();
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || (keep_slash && b == b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A template: `s://`, then variables each followed by a separator literal (none after the last), then
/// maybe a query expression. Separators are characters an expansion always encodes (and, after a
/// variable that keeps `/`, not `/`), so every value ends where its separator starts.
#[derive(Debug, Clone)]
struct Case {
    path: Vec<(Op, String, String)>,
    query: Vec<(String, Option<String>)>,
}

fn case() -> impl Strategy<Value = Case> {
    case_with(prop::collection::vec(prop::option::of("\\PC{0,12}"), 0..4))
}

/// A case whose query values (each maybe left out) are `query`.
fn case_with(query: impl Strategy<Value = Vec<Option<String>>>) -> impl Strategy<Value = Case> {
    let var = (op(), "\\PC{1,12}", "[:,;=!@$()]{1,2}[a-z0-9]{0,3}", "[/:,;=!@$()]{1,2}[a-z0-9]{0,3}");
    (prop::collection::vec(var, 1..5), query).prop_map(|(path, query)| Case {
        path: path
            .into_iter()
            .map(|(op, value, sep, sep_slash)| match op {
                Op::Simple => (op, value, sep_slash),
                Op::Reserved | Op::Explode => (op, value, sep),
            })
            .collect(),
        query: query.into_iter().enumerate().map(|(i, v)| (format!("q{i}"), v)).collect(),
    })
}

impl Case {
    fn template_and_uri(&self) -> (String, String) {
        let (mut template, mut uri) = ("s://".to_owned(), "s://".to_owned());
        for (i, (op, value, sep)) in self.path.iter().enumerate() {
            let last = i + 1 == self.path.len();
            let sep = if last { "" } else { sep.as_str() };
            let (expr, keep_slash) = match op {
                Op::Simple => (format!("{{v{i}}}"), false),
                Op::Reserved => (format!("{{+v{i}}}"), true),
                Op::Explode => (format!("{{v{i}*}}"), true),
            };
            template.push_str(&expr);
            template.push_str(sep);
            uri.push_str(&encode(value, keep_slash));
            uri.push_str(sep);
        }
        if !self.query.is_empty() {
            let names: Vec<&str> = self.query.iter().map(|(n, _)| n.as_str()).collect();
            template.push_str(&format!("{{?{}}}", names.join(",")));
            let pairs: Vec<String> = self
                .query
                .iter()
                .filter_map(|(n, v)| v.as_ref().map(|v| format!("{n}={}", encode(v, false))))
                .collect();
            if !pairs.is_empty() {
                uri.push('?');
                uri.push_str(&pairs.join("&"));
            }
        }
        (template, uri)
    }

    fn vars(&self) -> BTreeMap<String, String> {
        let path = self.path.iter().enumerate().map(|(i, (_, v, _))| (format!("v{i}"), v.clone()));
        let query = self.query.iter().filter_map(|(n, v)| v.clone().map(|v| (n.clone(), v)));
        path.chain(query).collect()
    }
}

proptest! {
    #[test]
    fn an_expansion_matches_with_its_values(case in case()) {
        let (template, uri) = case.template_and_uri();
        let parsed = UriTemplate::parse(&template).unwrap();
        prop_assert_eq!(parsed.match_uri(&uri), Some(case.vars()), "{} against {}", uri, template);
    }

    #[test]
    fn query_pairs_match_in_any_order(
        case in case_with(prop::collection::vec("\\PC{0,12}".prop_map(Some), 2..5)),
        seed in any::<u64>(),
    ) {
        let (template, uri) = case.template_and_uri();
        let (path, query) = uri.split_once('?').unwrap();
        let mut pairs: Vec<&str> = query.split('&').collect();
        let by = (seed % pairs.len() as u64) as usize;
        pairs.rotate_left(by);
        let reordered = format!("{path}?{}", pairs.join("&"));
        prop_assert_eq!(UriTemplate::parse(&template).unwrap().match_uri(&reordered), Some(case.vars()));
    }

    #[test]
    fn a_simple_variable_never_spans_a_segment(value in "[a-z]{1,8}", rest in "[a-z]{1,8}") {
        let parsed = UriTemplate::parse("s://{v}").unwrap();
        prop_assert_eq!(parsed.match_uri(&format!("s://{value}/{rest}")), None);
        let reserved = UriTemplate::parse("s://{+v}").unwrap();
        let spanned = reserved.match_uri(&format!("s://{value}/{rest}")).unwrap();
        prop_assert_eq!(&spanned["v"], &format!("{value}/{rest}"));
    }
}

/// The matcher's semantics stated plainly, by trying every split (exponential; small inputs only): each
/// variable, first to last, takes the longest non-empty value that stays in one segment (unless reserved),
/// decodes, and lets the rest match.
fn backtrack(parts: &[Part], input: &str, vars: &mut BTreeMap<String, String>) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return input.is_empty();
    };
    match first {
        Part::Literal(lit) => input.strip_prefix(lit.as_str()).is_some_and(|tail| backtrack(rest, tail, vars)),
        Part::Var { name, reserved } => {
            let limit = if *reserved { input.len() } else { input.find(['/', '?', '#']).unwrap_or(input.len()) };
            (1..=limit).rev().filter(|&end| input.is_char_boundary(end)).any(|end| {
                match percent_decode(&input[..end]) {
                    Some(value) if backtrack(rest, &input[end..], vars) => {
                        vars.insert(name.clone(), value);
                        true
                    }
                    _ => false,
                }
            })
        }
    }
}

/// Text made of what matching turns on: separators, escapes (whole, cut short, of parts of a character),
/// plain multi-byte characters.
fn text(tokens: std::ops::Range<usize>) -> impl Strategy<Value = String> {
    let token = prop::sample::select(
        &[
            "a", "-", "/", "?", "#", "+", "4", "%", "%41", "%2F", "%4", "%+4", "%C3", "%BC", "%E2", "%82", "%AC", "ü",
            "€",
        ][..],
    );
    prop::collection::vec(token, tokens).prop_map(|t| t.concat())
}

/// A template of literals and variables of each kind (adjacent ones too), and a URI: either free text or
/// the template with text from the same alphabet in place of each variable, so that many split.
fn template_and_uri() -> impl Strategy<Value = (String, String)> {
    // `Ok`: literal text; `Err`: a variable `{v}`, `{+v}` or `{v*}`.
    let piece = prop_oneof![text(1..3).prop_map(Ok), (0..3u8).prop_map(Err)];
    prop::collection::vec(piece, 0..6)
        .prop_flat_map(|pieces| {
            let values = prop::collection::vec(text(1..4), pieces.len());
            (Just(pieces), values, prop::option::of(text(0..10)))
        })
        .prop_map(|(pieces, values, free)| {
            let (mut template, mut uri) = (String::new(), String::new());
            for (i, (piece, value)) in pieces.iter().zip(&values).enumerate() {
                match piece {
                    Ok(literal) => {
                        template.push_str(literal);
                        uri.push_str(literal);
                    }
                    Err(op) => {
                        template
                            .push_str(&[format!("{{v{i}}}"), format!("{{+v{i}}}"), format!("{{v{i}*}}")][*op as usize]);
                        uri.push_str(value);
                    }
                }
            }
            (template, free.unwrap_or(uri))
        })
}

proptest! {
    #[test]
    fn matching_agrees_with_backtracking((template, uri) in template_and_uri()) {
        let parsed = UriTemplate::parse(&template).unwrap();
        let mut expected = BTreeMap::new();
        let expected = backtrack(&parsed.parts, &uri, &mut expected).then_some(expected);
        prop_assert_eq!(match_parts(&parsed.parts, &uri), expected, "{} against {}", uri, template);
    }
}

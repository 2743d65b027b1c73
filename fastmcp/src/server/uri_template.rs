//! Matching URIs against resource templates (RFC 6570 subset: `{var}`, `{+var}`, `{var*}`, `{?a,b}`).
//!
//! The macro checks template syntax at compile time; this parses again at registration (templates may also
//! come from hand-written handlers) and matches at read time.

use std::collections::{BTreeMap, HashSet};

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct UriTemplate {
    parts: Vec<Part>,
    /// Variables of a trailing `{?…}` expression.
    query: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Literal(String),
    /// A variable; `reserved` ones (`{+v}`, `{v*}`) may contain `/`.
    Var {
        name: String,
        reserved: bool,
    },
}

impl UriTemplate {
    pub(crate) fn parse(template: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut query = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find(['{', '}']) {
            if rest.as_bytes()[open] == b'}' {
                return Err(format!("unmatched `}}` in `{template}`"));
            }
            if !query.is_empty() {
                return Err(format!("a `{{?…}}` query expression must come last in `{template}`"));
            }
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let after = &rest[open + 1..];
            let close = after.find('}').ok_or_else(|| format!("unclosed `{{` in `{template}`"))?;
            let expr = &after[..close];
            if expr.contains('{') {
                return Err(format!("unclosed `{{` in `{template}`"));
            }
            match expr.as_bytes().first() {
                None => return Err(format!("empty expression `{{}}` in `{template}`")),
                Some(b'?') => {
                    for name in expr[1..].split(',') {
                        query.push(var_name(name, template)?.to_owned());
                    }
                }
                Some(b'+') => parts.push(Part::Var { name: var_name(&expr[1..], template)?.into(), reserved: true }),
                Some(b'#' | b'.' | b'/' | b';' | b'&') => {
                    return Err(format!("unsupported operator `{}` in `{template}`", &expr[..1]));
                }
                Some(_) => match expr.strip_suffix('*') {
                    Some(name) => parts.push(Part::Var { name: var_name(name, template)?.into(), reserved: true }),
                    None => parts.push(Part::Var { name: var_name(expr, template)?.into(), reserved: false }),
                },
            }
            rest = &after[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        let mut names: Vec<&str> = parts
            .iter()
            .filter_map(|p| match p {
                Part::Var { name, .. } => Some(name.as_str()),
                Part::Literal(_) => None,
            })
            .chain(query.iter().map(String::as_str))
            .collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("variable `{}` appears twice in `{template}`", w[0]));
        }
        Ok(Self { parts, query })
    }

    /// The variables a URI binds, percent-decoded; `None` if the URI doesn't match.
    pub(crate) fn match_uri(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let (path, query) = match (self.query.is_empty(), uri.split_once('?')) {
            (false, Some((path, query))) => (path, Some(query)),
            _ => (uri, None),
        };
        let mut vars = BTreeMap::new();
        if !match_parts(&self.parts, path, &mut vars, &mut HashSet::new()) {
            return None;
        }
        for pair in query.into_iter().flat_map(|q| q.split('&')) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            if self.query.iter().any(|q| q == key) {
                vars.insert(key.to_owned(), percent_decode(value)?);
            }
        }
        Some(vars)
    }
}

fn var_name<'a>(name: &'a str, template: &str) -> Result<&'a str, String> {
    let mut chars = name.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if valid { Ok(name) } else { Err(format!("invalid variable name `{name}` in `{template}`")) }
}

/// Matches `input` against `parts`, each variable taking the longest value that lets the rest match.
///
/// `failed` holds the (parts left, input left) pairs known not to match, so each is tried once: without it,
/// adjacent or repeated-literal variables made matching exponential in the variables and a long URI took
/// minutes (found by the `uri_template` fuzz target). For the same reason a value is decoded only once the
/// rest matches after it, not for every candidate length. Still quadratic in the URI's length where two
/// variables are separated by text the URI repeats (`{a}-{b}.json` against 16 KiB of `-`: about 2 s).
fn match_parts(
    parts: &[Part],
    input: &str,
    vars: &mut BTreeMap<String, String>,
    failed: &mut HashSet<(usize, usize)>,
) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return input.is_empty();
    };
    match first {
        // A literal is checked in the time it takes to compare it; only variables are worth remembering.
        Part::Literal(lit) => {
            input.strip_prefix(lit.as_str()).is_some_and(|tail| match_parts(rest, tail, vars, failed))
        }
        Part::Var { name, reserved } => {
            if failed.contains(&(parts.len(), input.len())) {
                return false;
            }
            // A value is non-empty and, unless reserved, stays within one path segment.
            let limit = if *reserved { input.len() } else { input.find(['/', '?', '#']).unwrap_or(input.len()) };
            let matched = (1..=limit).rev().filter(|&end| input.is_char_boundary(end)).any(|end| {
                // A rest that matched sets all of its variables, so a later success overwrites any it left.
                match_parts(rest, &input[end..], vars, failed)
                    && percent_decode(&input[..end]).map(|value| vars.insert(name.clone(), value)).is_some()
            });
            if !matched {
                failed.insert((parts.len(), input.len()));
            }
            matched
        }
    }
}

fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_owned());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(t: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(t).unwrap().match_uri(uri).map(|m| m.into_iter().collect())
    }

    fn pairs(p: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(p.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    #[test]
    fn simple_variables_stay_in_one_segment() {
        assert_eq!(vars("test://template/{id}/data", "test://template/123/data"), pairs(&[("id", "123")]));
        assert_eq!(vars("test://template/{id}/data", "test://template/1/2/data"), None);
        assert_eq!(vars("test://template/{id}/data", "test://template//data"), None);
        assert_eq!(vars("greeting/{name}", "greeting/J%C3%BCrgen"), pairs(&[("name", "Jürgen")]));
        assert_eq!(vars("a/{x}-{y}", "a/1-2-3"), pairs(&[("x", "1-2"), ("y", "3")]));
    }

    #[test]
    fn reserved_variables_span_segments() {
        assert_eq!(vars("file:///{+path}", "file:///a/b/c.txt"), pairs(&[("path", "a/b/c.txt")]));
        assert_eq!(vars("file:///{path*}", "file:///a/b"), pairs(&[("path", "a/b")]));
    }

    #[test]
    fn query_variables_are_optional() {
        assert_eq!(vars("s://search/{q}{?lang,n}", "s://search/x?lang=en"), pairs(&[("lang", "en"), ("q", "x")]));
        assert_eq!(vars("s://search/{q}{?lang}", "s://search/x"), pairs(&[("q", "x")]));
    }

    /// Found by the `uri_template` fuzz target: each candidate length of each variable re-matched the rest,
    /// so a URI of 2 000 dashes against three dash-separated variables took 100 s (release) and 64 KiB of
    /// one segment decoded a quadratic number of bytes. Now each (variable, offset) is tried once.
    #[test]
    fn matching_is_not_exponential_in_the_variables() {
        let dashes = format!("s://{}", "-".repeat(2_000));
        assert_eq!(vars("s://{a}-{b}-{c}.json", &dashes), None);
        assert_eq!(vars("s://{a}{b}{c}.json", &dashes[..500]), None);
        let segment = format!("users://{}", "a".repeat(64 * 1024));
        assert_eq!(vars("users://{id}/profile", &segment), None);
        // Still the longest value that lets the rest match, and the rest decoded as before.
        assert_eq!(vars("s://{a}-{b}-{c}.json", "s://1-2-3-4.json"), pairs(&[("a", "1-2"), ("b", "3"), ("c", "4")]));
        assert_eq!(vars("s://{a}-{b}", "s://%41-%42-%43"), pairs(&[("a", "A-B"), ("b", "C")]));
        assert_eq!(vars("s://{a}-{b}", "s://%41-%ZZ"), None);
    }

    #[test]
    fn bad_templates_are_rejected() {
        for bad in ["a/{id", "a/id}", "a/{}", "a/{#x}", "a/{1x}", "a/{x}/{x}", "a/{?q}/{x}", "a/{{x}}"] {
            assert!(UriTemplate::parse(bad).is_err(), "{bad} should be rejected");
        }
    }
}

#[cfg(test)]
mod proptests;

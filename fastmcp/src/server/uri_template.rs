//! Matching URIs against resource templates (RFC 6570 subset: `{var}`, `{+var}`, `{var*}`, `{?a,b}`).
//!
//! The macro checks template syntax at compile time; this parses again at registration (templates may also
//! come from hand-written handlers) and matches at read time.

use std::collections::BTreeMap;

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
        let mut vars = match_parts(&self.parts, path)?;
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

/// Matches `input` against `parts`, each variable (first to last) taking the longest value that lets the
/// rest match, and returns the values percent-decoded.
///
/// Backtracking, even remembering the (part, offset) pairs that failed, was quadratic in the length: a
/// variable at one offset tried every end. Here `ok[i][p]` (does `parts[i..]` match `input[p..]`?) is filled
/// from the last part back, one pass over the offsets per part. A value must percent-decode to UTF-8, so its
/// possible ends from `p` are the ends of the characters it decodes to one after another (`char_end`): a
/// chain, on which the furthest end the rest matches after is known for every `p` from one pass right to
/// left. That makes matching O(length × template length), with one decoding per value, in (parts + 1) ×
/// (length + 1) flags; the caller bounds the length (`Options::max_uri_bytes`).
fn match_parts(parts: &[Part], input: &str) -> Option<BTreeMap<String, String>> {
    // Templates are tried in turn until one matches, and most differ from the URI in their first literal:
    // checked once here, not at every offset below.
    let (parts, input) = match parts.split_first() {
        Some((Part::Literal(lit), rest)) => (rest, input.strip_prefix(lit.as_str())?),
        _ => (parts, input),
    };
    let n = input.len();
    let is_stop = |k: usize| matches!(input.as_bytes().get(k), Some(b'/' | b'?' | b'#'));
    let width = n + 1;
    let mut ok = vec![false; (parts.len() + 1) * width];
    ok[parts.len() * width + n] = true;
    // furthest[k]: the furthest end on the chain from `k` (itself included), within the value's bound,
    // where the rest matches.
    let mut furthest = vec![None; width];
    for (i, part) in parts.iter().enumerate().rev() {
        let (row, rest) = ok[i * width..].split_at_mut(width);
        match part {
            Part::Literal(lit) => {
                for (p, cell) in row.iter_mut().enumerate() {
                    let after = p + lit.len();
                    *cell = after <= n && rest[after] && input.as_bytes()[p..].starts_with(lit.as_bytes());
                }
            }
            Part::Var { reserved, .. } => {
                // A value is non-empty and, unless reserved, stays within one path segment: it ends by the
                // next `/`, `?` or `#` (`bound`). No decoded character spans one, so a chain stops at it.
                let mut bound = n;
                for k in (0..width).rev() {
                    if !reserved && is_stop(k) {
                        bound = k;
                    }
                    let from_here = if k < bound { char_end(input, k).and_then(|m| furthest[m]) } else { None };
                    row[k] = from_here.is_some();
                    furthest[k] = from_here.or(rest[k].then_some(k));
                }
            }
        }
    }
    if !ok[0] {
        return None;
    }
    // Walk the table from the start, each variable taking the furthest end the rest matches after.
    let mut vars = BTreeMap::new();
    let mut p = 0;
    for (i, part) in parts.iter().enumerate() {
        match part {
            Part::Literal(lit) => p += lit.len(),
            Part::Var { name, reserved } => {
                let bound = if *reserved { n } else { (p..n).find(|&k| is_stop(k)).unwrap_or(n) };
                let (mut end, mut at) = (p, char_end(input, p));
                while let Some(m) = at.filter(|&m| m <= bound) {
                    if ok[(i + 1) * width + m] {
                        end = m;
                    }
                    at = if m < bound { char_end(input, m) } else { None };
                }
                // On the chain, so it decodes.
                vars.insert(name.clone(), percent_decode(&input[p..end])?);
                p = end;
            }
        }
    }
    Some(vars)
}

/// Where the character that `s` encodes from `at` ends: one to four bytes, each plain or `%XX`, that
/// decode to one UTF-8 character; `None` if they don't, as [`percent_decode`] would refuse them.
fn char_end(s: &str, mut at: usize) -> Option<usize> {
    // Most of a URI is plain ASCII.
    if s.as_bytes().get(at).is_some_and(|&b| b.is_ascii() && b != b'%') {
        return Some(at + 1);
    }
    let mut buf = [0; 4];
    for len in 1..=4 {
        let (byte, width) = decoded_byte(s, at)?;
        buf[len - 1] = byte;
        at += width;
        match std::str::from_utf8(&buf[..len]) {
            Ok(_) => return Some(at),
            // The start of a longer character goes on; anything else stays invalid.
            Err(e) if e.error_len().is_none() => {}
            Err(_) => return None,
        }
    }
    None
}

/// The byte `s` encodes at `at`, and the bytes encoding it: a plain byte, or `%` and two hex digits.
fn decoded_byte(s: &str, at: usize) -> Option<(u8, usize)> {
    match *s.as_bytes().get(at)? {
        b'%' => Some((u8::from_str_radix(s.get(at + 1..at + 3)?, 16).ok()?, 3)),
        byte => Some((byte, 1)),
    }
}

fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_owned());
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let (byte, width) = decoded_byte(s, i)?;
        out.push(byte);
        i += width;
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
    /// one segment decoded a quadratic number of bytes. Remembering failed (variable, offset) pairs still
    /// left a variable trying every end (`{a}-{b}.json` against 16 KiB of `-`: 2 s); now each part takes one
    /// pass over the offsets.
    #[test]
    fn matching_is_not_exponential_in_the_variables() {
        let dashes = format!("s://{}", "-".repeat(2_000));
        assert_eq!(vars("s://{a}-{b}-{c}.json", &dashes), None);
        assert_eq!(vars("s://{a}{b}{c}.json", &dashes[..500]), None);
        let long = format!("s://{}", "-".repeat(16 * 1024));
        assert_eq!(vars("s://{a}-{b}.json", &long), None);
        assert_eq!(vars("s://{a}{b}{c}{+d}{e}{f}.json", &long), None);
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

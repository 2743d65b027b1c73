//! The macro's reading of a resource URI: a fixed URI, or an RFC 6570 template in the subset fastmcp
//! matches. Only syntax is checked here; matching URIs against templates is the runtime's job.
//!
//! Supported expressions: `{var}` (one path segment), `{+var}` and `{var*}` (may span `/`), and `{?a,b}`
//! (query parameters, each optional). Variable names are Rust identifiers, so each can name a parameter.

/// How a template variable matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarKind {
    /// `{var}`: one segment, never empty, never containing `/`.
    Simple,
    /// `{+var}` or `{var*}`: may contain `/`.
    Reserved,
    /// `{?var}`: a query parameter, which may be absent.
    Query,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Var {
    pub name: String,
    pub kind: VarKind,
}

/// A parsed resource URI: `vars` is empty for a fixed URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    pub is_template: bool,
    pub vars: Vec<Var>,
}

impl UriTemplate {
    pub fn var(&self, name: &str) -> Option<&Var> {
        self.vars.iter().find(|v| v.name == name)
    }
}

const SUPPORTED: &str = "supported expressions are `{var}`, `{+var}`, `{var*}` and `{?a,b}`";

/// Parses `uri`; each problem found is one message (the caller spans them all on the literal).
pub fn parse(uri: &str) -> Result<UriTemplate, Vec<String>> {
    let mut errors = Vec::new();
    let mut vars: Vec<Var> = Vec::new();
    let is_template = uri.contains('{') || uri.contains('}');

    check_scheme(uri, &mut errors);

    let mut rest = uri;
    let mut offset = 0;
    while let Some(pos) = rest.find(['{', '}']) {
        let at = offset + pos;
        if rest[pos..].starts_with('}') {
            errors.push(format!("unbalanced braces: the `}}` at offset {at} has no matching `{{`"));
            offset = at + 1;
            rest = &uri[offset..];
            continue;
        }
        let after = &rest[pos + 1..];
        match after.find(['{', '}']) {
            Some(end) if after[end..].starts_with('}') => {
                let expr = &after[..end];
                parse_expression(expr, &mut vars, &mut errors);
                offset = at + 1 + end + 1;
                if expr.starts_with('?') && offset < uri.len() {
                    errors.push(format!(
                        "the query expression `{{{expr}}}` must come last in the template: nothing may follow it"
                    ));
                }
            }
            Some(end) => {
                errors.push(format!("unbalanced braces: the `{{` at offset {at} is not closed before the next `{{`"));
                offset = at + 1 + end;
            }
            None => {
                errors.push(format!("unbalanced braces: the `{{` at offset {at} is never closed"));
                break;
            }
        }
        rest = &uri[offset..];
    }

    if errors.is_empty() { Ok(UriTemplate { is_template, vars }) } else { Err(errors) }
}

fn parse_expression(expr: &str, vars: &mut Vec<Var>, errors: &mut Vec<String>) {
    let shown = format!("{{{expr}}}");
    let Some(first) = expr.chars().next() else {
        errors.push(format!("empty expression `{{}}` in the template; {SUPPORTED}"));
        return;
    };
    let (kind, list) = match first {
        '+' => (VarKind::Reserved, &expr[1..]),
        '?' => (VarKind::Query, &expr[1..]),
        '#' | '.' | '/' | ';' | '&' | '=' | ',' | '!' | '@' | '|' => {
            errors.push(format!("unsupported operator `{first}` in `{shown}`; {SUPPORTED}"));
            return;
        }
        _ => (VarKind::Simple, expr),
    };
    let specs: Vec<&str> = list.split(',').collect();
    if kind != VarKind::Query && specs.len() > 1 {
        errors.push(format!(
            "`{shown}` lists several variables; only query expressions may (`{{?a,b}}`), so write one expression per variable"
        ));
        return;
    }
    for spec in specs {
        let (name, kind) = match spec.strip_suffix('*') {
            Some(name) if kind == VarKind::Query => {
                errors.push(format!("the explode modifier `*` is not supported in the query expression `{shown}`"));
                (name, kind)
            }
            Some(name) if kind == VarKind::Reserved => {
                errors.push(format!("`{shown}` is reserved twice over: write `{{+{name}}}` or `{{{name}*}}`"));
                (name, kind)
            }
            Some(name) => (name, VarKind::Reserved),
            None => (spec, kind),
        };
        if let Some((name, _)) = name.split_once(':') {
            errors.push(format!("prefix modifiers are not supported: write `{{{name}}}` instead of `{shown}`"));
            continue;
        }
        if name.is_empty() {
            errors.push(format!("empty variable name in `{shown}`"));
            continue;
        }
        if !is_var_name(name) {
            errors.push(format!(
                "invalid variable name `{name}` in `{shown}`: a variable is a Rust identifier (letters, digits and `_`, not starting with a digit) so that it can name a parameter"
            ));
            continue;
        }
        if vars.iter().any(|v| v.name == name) {
            errors.push(format!("duplicate variable `{name}`: each variable may appear once in the template"));
            continue;
        }
        vars.push(Var { name: name.to_owned(), kind });
    }
}

fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A URI starts with a scheme (`file:`, `config:`), unless a template starts with a variable.
fn check_scheme(uri: &str, errors: &mut Vec<String>) {
    if uri.starts_with('{') {
        return;
    }
    let scheme = uri.split_once(':').map(|(scheme, _)| scheme).filter(|s| !s.contains(['{', '/', '?', '#']));
    let valid = scheme.is_some_and(|s| {
        let mut chars = s.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if !valid {
        errors.push(format!(
            "`{uri}` has no URI scheme: a resource URI starts with one, like `file:///path` or `config://app`"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(uri: &str) -> Vec<(String, VarKind)> {
        parse(uri).unwrap_or_else(|e| panic!("{uri}: {e:?}")).vars.into_iter().map(|v| (v.name, v.kind)).collect()
    }

    fn err(uri: &str) -> String {
        parse(uri).expect_err(uri).join(" | ")
    }

    #[test]
    fn fixed_uris() {
        let t = parse("config://app/settings").unwrap();
        assert!(!t.is_template);
        assert!(t.vars.is_empty());
        assert!(parse("file:///etc/hosts").is_ok());
    }

    #[test]
    fn expressions() {
        use VarKind::*;
        assert_eq!(vars("users://{id}/profile"), vec![("id".into(), Simple)]);
        assert_eq!(vars("file:///{+path}"), vec![("path".into(), Reserved)]);
        assert_eq!(vars("file:///{path*}"), vec![("path".into(), Reserved)]);
        assert_eq!(vars("search://items{?q,page}"), vec![("q".into(), Query), ("page".into(), Query)]);
        assert_eq!(vars("{+uri}"), vec![("uri".into(), Reserved)]);
    }

    #[test]
    fn errors() {
        assert!(err("users://{id").contains("never closed"));
        assert!(err("users://id}").contains("no matching `{`"));
        assert!(err("users://{a{b}").contains("not closed before the next"));
        assert!(err("users://{}").contains("empty expression"));
        assert!(err("users://{1d}").contains("invalid variable name `1d`"));
        assert!(err("users://{a-b}").contains("invalid variable name `a-b`"));
        assert!(err("users://{id}/{id}").contains("duplicate variable `id`"));
        assert!(err("users://{#frag}").contains("unsupported operator `#`"));
        assert!(err("users://x{.ext}").contains("unsupported operator `.`"));
        assert!(err("users://{a,b}").contains("several variables"));
        assert!(err("users://{?a*}").contains("explode"));
        assert!(err("users://{a:3}").contains("prefix modifiers"));
        assert!(err("users://{?a,}").contains("empty variable name"));
        assert!(err("users/{id}").contains("no URI scheme"));
        assert!(err("users://{?a}/{b}").contains("must come last"));
        assert!(err("users://x{?a}{?b}").contains("must come last"));
        assert!(err("users://{+a*}").contains("reserved twice"));
    }

    #[test]
    fn reports_every_problem() {
        assert_eq!(parse("x://{#a}/{1b}/{c").unwrap_err().len(), 3);
    }
}

//! The macros' own attribute syntax: which macro it is ([`Kind`]), the options in `#[tool(...)]` / `#[prompt(...)]` / `#[resource(...)]`, and
//! the attributes a parameter may carry.
//!
//! Tokio's rules: a duplicate key is an error, an unknown key lists the valid ones (and suggests the closest),
//! and a malformed value says what it should look like. Every problem is recorded and parsing goes on.

use crate::ctxt::Ctxt;
use crate::docs::{self, Description};
use crate::meta::{closest, list, path_string, string};
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, Expr, ExprArray, ExprLit, Lit, LitStr, Meta, Token};

/// The options given to one of the macros. Which keys are valid depends on the macro ([`Kind::keys`]).
#[derive(Default)]
pub struct Options {
    pub uri: Option<LitStr>,
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub mime_type: Option<LitStr>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    /// `once`: the final round of the flow runs at most once per token (implied by `destructive`).
    pub once: Option<bool>,
    /// `timeout = "30s"`: how long one round of a tool call may run, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// `task = "optional"`: whether the tool's calls may run as tasks.
    pub task: Option<TaskSupport>,
    /// `scopes = ["deploy:write"]`: the scopes a caller's token must all have.
    pub scopes: Option<Strings>,
    /// `auth = path::to::check`: the author's own check of the caller's token (a `fastmcp::auth::Check`).
    pub auth: Option<syn::Path>,
    /// `tags = ["admin"]`: what a server may include or exclude the component by.
    pub tags: Option<Strings>,
    /// `ttl = "5m"`: how long modern results that return the component stay fresh, in milliseconds.
    pub ttl_ms: Option<u64>,
    /// `cache_scope = "public"`: whether shared caches may keep those results.
    pub cache_scope: Option<CacheScope>,
}

/// The values of `cache_scope = "..."`, named as the runtime's `CacheScope` variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheScope {
    Public,
    Private,
}

impl CacheScope {
    pub fn variant(self) -> &'static str {
        match self {
            CacheScope::Public => "Public",
            CacheScope::Private => "Private",
        }
    }
}

/// `scopes = [..]` or `tags = [..]` as written: the array (to span errors about all of it on) and the
/// string literals in it (the other elements have recorded errors). Whether each is valid is `check`'s to
/// say.
pub struct Strings {
    pub array: ExprArray,
    pub items: Vec<LitStr>,
}

/// How an array-of-strings option is named in messages.
struct ArrayOption {
    key: &'static str,
    /// One element, as a noun.
    item: &'static str,
    /// The elements of a well-written array.
    example: &'static str,
}

const SCOPES: ArrayOption = ArrayOption { key: "scopes", item: "scope", example: r#""deploy:read", "deploy:write""# };
const TAGS: ArrayOption = ArrayOption { key: "tags", item: "tag", example: r#""admin", "beta""# };

/// The values of `task = "..."`, named as the runtime's `TaskSupport` variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    Forbidden,
    Optional,
    Required,
}

impl TaskSupport {
    pub fn variant(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "Forbidden",
            TaskSupport::Optional => "Optional",
            TaskSupport::Required => "Required",
        }
    }
}

/// Which macro is expanding: each has its own options and its own rules for parameters.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Tool,
    Prompt,
    Resource,
    /// `#[elicit]` on an `async fn`: a sub-flow a handler awaits with `.ask()`.
    SubFlow,
}

impl Kind {
    /// How the attribute is written, for messages.
    pub fn attr(self) -> &'static str {
        match self {
            Kind::Tool => "#[tool]",
            Kind::Prompt => "#[prompt]",
            Kind::Resource => "#[resource]",
            Kind::SubFlow => "#[elicit]",
        }
    }

    /// The option keys this macro accepts (the resource URI may also be given first, without a key).
    pub fn keys(self) -> &'static [&'static str] {
        match self {
            Kind::Tool => &[
                "name",
                "title",
                "description",
                "read_only",
                "destructive",
                "idempotent",
                "open_world",
                "once",
                "timeout",
                "task",
                "scopes",
                "auth",
                "tags",
                "ttl",
                "cache_scope",
            ],
            Kind::Prompt => &["name", "title", "description", "scopes", "auth", "tags", "ttl", "cache_scope"],
            Kind::Resource => {
                &["uri", "name", "title", "description", "mime_type", "scopes", "auth", "tags", "ttl", "cache_scope"]
            }
            Kind::SubFlow => &[],
        }
    }
}

enum Arg {
    Positional(Lit),
    Option(Box<Meta>),
}

fn parse_args(input: ParseStream) -> syn::Result<Vec<Arg>> {
    let mut args = Vec::new();
    while !input.is_empty() {
        if input.peek(Lit) {
            args.push(Arg::Positional(input.parse()?));
        } else {
            args.push(Arg::Option(Box::new(input.parse()?)));
        }
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(args)
}

impl Options {
    /// Parses the macro's arguments. A syntax error leaves the defaults (and is recorded).
    pub fn parse(cx: &Ctxt, kind: Kind, args: TokenStream) -> Options {
        let mut options = Options::default();
        let args = match parse_args.parse2(args) {
            Ok(args) => args,
            Err(e) => {
                cx.syn_error(e);
                return options;
            }
        };
        let mut seen: Vec<String> = Vec::new();
        for (i, arg) in args.into_iter().enumerate() {
            match arg {
                Arg::Positional(Lit::Str(uri)) if kind == Kind::Resource && i == 0 => {
                    seen.push("uri".into());
                    options.uri = Some(uri);
                }
                Arg::Positional(lit) => positional_error(cx, kind, &lit),
                Arg::Option(meta) => {
                    let key = path_string(meta.path());
                    if !kind.keys().contains(&key.as_str()) {
                        unknown_key(cx, kind, &meta, &key);
                    } else if seen.contains(&key) {
                        let what = match key.as_str() {
                            "uri" => "the resource URI is given twice".into(),
                            "scopes" => "duplicate option `scopes`: list every scope the caller needs in one \
                                         array, `scopes = [\"a\", \"b\"]`"
                                .into(),
                            "tags" => "duplicate option `tags`: list every tag in one array, \
                                       `tags = [\"a\", \"b\"]`"
                                .into(),
                            "auth" => "duplicate option `auth`: a component has one check fn; call both checks \
                                       from one fn and give its path"
                                .into(),
                            _ => format!("duplicate option `{key}`"),
                        };
                        cx.error_spanned_by(meta.path(), what);
                    } else {
                        seen.push(key.clone());
                        options.set(cx, &key, &meta);
                    }
                }
            }
        }
        options
    }

    fn set(&mut self, cx: &Ctxt, key: &str, meta: &Meta) {
        match key {
            "uri" => self.uri = string(cx, key, meta),
            "name" => self.name = string(cx, key, meta),
            "title" => self.title = string(cx, key, meta),
            "description" => self.description = string(cx, key, meta),
            "mime_type" => self.mime_type = string(cx, key, meta),
            "read_only" => self.read_only = flag(cx, key, meta),
            "destructive" => self.destructive = flag(cx, key, meta),
            "idempotent" => self.idempotent = flag(cx, key, meta),
            "open_world" => self.open_world = flag(cx, key, meta),
            "once" => self.once = flag(cx, key, meta),
            "timeout" => self.timeout_ms = string(cx, key, meta).and_then(|lit| duration_ms(cx, key, &lit, 1)),
            // `ttl = "0s"`: stale at once, a component that must not be cached under a longer default.
            "ttl" => self.ttl_ms = string(cx, key, meta).and_then(|lit| duration_ms(cx, key, &lit, 0)),
            "cache_scope" => self.cache_scope = string(cx, key, meta).and_then(|lit| cache_scope(cx, &lit)),
            "task" => self.task = string(cx, key, meta).and_then(|lit| task_support(cx, &lit)),
            "scopes" => self.scopes = strings(cx, meta, &SCOPES),
            "tags" => self.tags = strings(cx, meta, &TAGS),
            "auth" => self.auth = auth(cx, meta),
            _ => {}
        }
    }
}

/// A duration like `"500ms"`, `"30s"` or `"2m"`, in milliseconds; at least `min`.
fn duration_ms(cx: &Ctxt, key: &str, lit: &LitStr, min: u64) -> Option<u64> {
    let text = lit.value();
    let digits = text.trim().trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &text.trim()[digits.len()..];
    let scale = match unit {
        "ms" => Some(1),
        "s" => Some(1_000),
        "m" => Some(60_000),
        "h" => Some(3_600_000),
        _ => None,
    };
    let error = match (digits.parse::<u64>().ok(), scale) {
        (Some(n), Some(scale)) if n >= min => match n.checked_mul(scale) {
            Some(ms) => return Some(ms),
            None => format!("`{key}` = {text:?} is too long: it overflows a count of milliseconds"),
        },
        _ => {
            let number = if min > 0 { "a positive whole number" } else { "a whole number" };
            format!("`{key}` is {number} with a unit: \"500ms\", \"30s\", \"2m\" or \"1h\", not {text:?}")
        }
    };
    cx.error_spanned_by(lit, error);
    None
}

/// `"forbidden"`, `"optional"` or `"required"`.
fn task_support(cx: &Ctxt, lit: &LitStr) -> Option<TaskSupport> {
    match lit.value().as_str() {
        "forbidden" => Some(TaskSupport::Forbidden),
        "optional" => Some(TaskSupport::Optional),
        "required" => Some(TaskSupport::Required),
        other => {
            let e = format!(
                "`task` is \"optional\" (a task when the client supports them), \"required\" (only as a task) or \
                 \"forbidden\" (the default), not {other:?}"
            );
            cx.error_spanned_by(lit, e);
            None
        }
    }
}

/// `"public"` or `"private"`.
fn cache_scope(cx: &Ctxt, lit: &LitStr) -> Option<CacheScope> {
    match lit.value().as_str() {
        "public" => Some(CacheScope::Public),
        "private" => Some(CacheScope::Private),
        other => {
            let e = format!(
                "`cache_scope` is \"public\" (any cache may keep the results) or \"private\" (only the caller's), \
                 not {other:?}"
            );
            cx.error_spanned_by(lit, e);
            None
        }
    }
}

/// `scopes = ["a", "b"]`, `tags = [..]`: an array of string literals.
fn strings(cx: &Ctxt, meta: &Meta, option: &ArrayOption) -> Option<Strings> {
    let ArrayOption { key, item, example } = option;
    let usage = format!("`{key}` is an array of string literals: `{key} = [{example}]`");
    let value = match meta {
        Meta::NameValue(nv) => &nv.value,
        Meta::List(list) => {
            let fix = format!("write `{key} = [{}]`", list.tokens);
            cx.error_spanned_by(meta, format!("{usage}; {fix}"));
            return None;
        }
        Meta::Path(_) => {
            cx.error_spanned_by(meta, usage);
            return None;
        }
    };
    let array = match value {
        Expr::Array(array) => array,
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => {
            let fix = match s.value().split_whitespace().collect::<Vec<_>>()[..] {
                [] | [_] => format!("`{key} = [{}]`", s.to_token_stream()),
                ref several => {
                    let quoted: Vec<String> = several.iter().map(|w| format!("{w:?}")).collect();
                    format!("`{key} = [{}]` (one string per {item})", quoted.join(", "))
                }
            };
            let e = format!("`{key}` is an array of string literals, even for one {item}: write {fix}");
            cx.error_spanned_by(s, e);
            return None;
        }
        other => {
            cx.error_spanned_by(other, usage);
            return None;
        }
    };
    let mut items = Vec::new();
    for elem in &array.elems {
        match elem {
            Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => items.push(s.clone()),
            Expr::Path(path) if path.path.get_ident().is_some() => {
                let ident = path.path.to_token_stream().to_string();
                let e = format!(
                    "a {item} is a string literal (the macro reads and checks it), not a name: write `\"{ident}\"`"
                );
                cx.error_spanned_by(elem, e);
            }
            other => {
                let one = example.split(", ").next().unwrap_or_default();
                cx.error_spanned_by(other, format!("a {item} is a string literal, like `{one}`"));
            }
        }
    }
    Some(Strings { array: array.clone(), items })
}

/// `auth = path::to::check`: the path of a check fn.
fn auth(cx: &Ctxt, meta: &Meta) -> Option<syn::Path> {
    const USAGE: &str =
        "`auth` takes the path of a check fn, `fn(&AccessToken) -> Result<(), Denied>`: `auth = path::to::check`";
    let Meta::NameValue(nv) = meta else {
        cx.error_spanned_by(meta, USAGE);
        return None;
    };
    match &nv.value {
        Expr::Path(path) if path.qself.is_none() => Some(path.path.clone()),
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => {
            let fix = match syn::parse_str::<syn::Path>(&s.value()) {
                Ok(path) => {
                    format!("write `auth = {}`, without quotes", path.to_token_stream().to_string().replace(' ', ""))
                }
                Err(_) => "write `auth = path::to::check`, without quotes".into(),
            };
            cx.error_spanned_by(s, format!("`auth` takes the path of a check fn, not a string: {fix}"));
            None
        }
        other => {
            cx.error_spanned_by(other, USAGE);
            None
        }
    }
}

fn flag(cx: &Ctxt, key: &str, meta: &Meta) -> Option<bool> {
    match meta {
        Meta::Path(_) => Some(true),
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(ExprLit { lit: Lit::Bool(b), .. }) => Some(b.value),
            other => {
                cx.error_spanned_by(
                    other,
                    format!("`{key}` is a flag: write `{key}`, `{key} = true` or `{key} = false`"),
                );
                None
            }
        },
        Meta::List(_) => {
            cx.error_spanned_by(meta, format!("`{key}` is a flag: write `{key}`, `{key} = true` or `{key} = false`"));
            None
        }
    }
}

fn positional_error(cx: &Ctxt, kind: Kind, lit: &Lit) {
    let msg = match kind {
        Kind::Resource => {
            "unexpected literal: the resource URI comes first, and the other options are `key = value`".to_string()
        }
        _ => format!("unexpected literal: {} options are `key = value` ({})", kind.attr(), list(kind.keys())),
    };
    cx.error_spanned_by(lit, msg);
}

fn unknown_key(cx: &Ctxt, kind: Kind, meta: &Meta, key: &str) {
    let mut msg = format!("unknown option `{key}` for {}", kind.attr());
    if let Some(close) = closest(key, kind.keys()) {
        msg.push_str(&format!(": did you mean `{close}`?"));
    }
    match kind.keys() {
        [] => msg.push_str(": a sub-flow takes no options"),
        keys => msg.push_str(&format!(" (valid options: {})", list(keys))),
    }
    cx.error_spanned_by(meta.path(), msg);
}

/// A `#[complete(...)]` on a prompt argument or template variable.
#[derive(Clone)]
pub enum Completer {
    /// `#[complete(["rust", "go"])]`: the entries that start with what was typed.
    List(ExprArray),
    /// `#[complete(complete_fn)]`: an async fn (or any expression callable so) from `CompletionQuery`.
    Fn(Expr),
}

/// What a parameter's attributes say.
#[derive(Default)]
pub struct ParamAttrs {
    pub docs: Option<Description>,
    pub complete: Option<(Attribute, Completer)>,
    /// Attributes forwarded to the generated arguments field (`#[serde(..)]`, `#[schemars(..)]`, ...).
    pub forwarded: Vec<Attribute>,
}

/// Lint attributes are the only ones besides docs that rustc allows on fn parameters; they stay there.
pub fn stays_on_param(attr: &Attribute) -> bool {
    ["allow", "warn", "deny", "forbid", "expect"].iter().any(|lint| attr.path().is_ident(lint))
}

impl ParamAttrs {
    pub fn parse(cx: &Ctxt, kind: Kind, attrs: &[Attribute]) -> ParamAttrs {
        let mut out = ParamAttrs { docs: docs::description(attrs), ..ParamAttrs::default() };
        for attr in attrs {
            let path = attr.path();
            if path.is_ident("doc") || stays_on_param(attr) {
                continue;
            }
            if path.is_ident("complete") {
                if out.complete.is_some() {
                    cx.error_spanned_by(attr, "duplicate `#[complete]`: a parameter has one completer");
                } else if let Some(completer) = completer(cx, attr) {
                    out.complete = Some((attr.clone(), completer));
                }
            } else if path.is_ident("cfg") || path.is_ident("cfg_attr") {
                cx.error_spanned_by(
                    attr,
                    format!(
                        "`#[{}]` on a parameter is not supported by {}; put it on the whole fn",
                        path_string(path),
                        kind.attr()
                    ),
                );
            } else {
                out.forwarded.push(attr.clone());
            }
        }
        out
    }
}

fn completer(cx: &Ctxt, attr: &Attribute) -> Option<Completer> {
    const USAGE: &str = "expected `#[complete([\"a\", \"b\"])]` (a list of values) or `#[complete(complete_fn)]` (an async fn taking a `CompletionQuery`)";
    let Meta::List(list) = &attr.meta else {
        cx.error_spanned_by(attr, USAGE);
        return None;
    };
    match syn::parse2::<Expr>(list.tokens.clone()) {
        Ok(Expr::Array(array)) => Some(Completer::List(array)),
        Ok(expr) => Some(Completer::Fn(expr)),
        Err(_) => {
            cx.error_spanned_by(attr, USAGE);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn errors(kind: Kind, args: TokenStream) -> Vec<String> {
        let cx = Ctxt::new();
        let _ = Options::parse(&cx, kind, args);
        match cx.check() {
            Ok(()) => vec![],
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn parses_options() {
        let cx = Ctxt::new();
        let o = Options::parse(&cx, Kind::Tool, quote!(name = "x", read_only, destructive = false));
        assert!(cx.check().is_ok());
        assert_eq!(o.name.map(|n| n.value()).as_deref(), Some("x"));
        assert_eq!((o.read_only, o.destructive, o.idempotent), (Some(true), Some(false), None));

        let cx = Ctxt::new();
        let o = Options::parse(&cx, Kind::Resource, quote!("config://app", mime_type = "text/plain"));
        assert!(cx.check().is_ok());
        assert_eq!(o.uri.map(|n| n.value()).as_deref(), Some("config://app"));
    }

    #[test]
    fn reports_problems() {
        let e = errors(Kind::Tool, quote!(nmae = "x"));
        assert!(
            e[0].contains("unknown option `nmae` for #[tool]: did you mean `name`? (valid options: `name`,"),
            "{e:?}"
        );
        assert!(e[0].contains("`open_world`"), "{e:?}");
        let e = errors(Kind::Tool, quote!(readOnlyHint));
        assert!(e[0].contains("did you mean `read_only`?"), "{e:?}");
        let e = errors(Kind::Resource, quote!("a://b", mime = "text/plain"));
        assert!(e[0].contains("did you mean `mime_type`?"), "{e:?}");
        let e = errors(Kind::Tool, quote!(colour));
        assert!(e[0].starts_with("unknown option `colour` for #[tool] (valid options:"), "{e:?}");
        let e = errors(Kind::Tool, quote!(name = "a", name = "b", read_only = "yes", title = 3));
        assert_eq!(e.len(), 3, "{e:?}");
        assert!(e[0].contains("duplicate option `name`"));
        assert!(e[1].contains("`read_only` is a flag"));
        assert!(e[2].contains("`title` takes a string literal"));
        let e = errors(Kind::Resource, quote!("a://b", uri = "c://d"));
        assert!(e[0].contains("given twice"), "{e:?}");
        let e = errors(Kind::Prompt, quote!("x"));
        assert!(e[0].contains("unexpected literal"), "{e:?}");
    }

    #[test]
    fn parses_access_options() {
        for kind in [Kind::Tool, Kind::Prompt, Kind::Resource] {
            let cx = Ctxt::new();
            let o = Options::parse(
                &cx,
                kind,
                quote!(scopes = ["deploy:write", "deploy:read"], auth = crate::checks::admin),
            );
            assert!(cx.check().is_ok(), "{kind:?}");
            let scopes: Vec<String> = o.scopes.expect("scopes").items.iter().map(LitStr::value).collect();
            assert_eq!(scopes, ["deploy:write", "deploy:read"]);
            assert_eq!(path_string(&o.auth.expect("auth")), "crate::checks::admin");
        }
        let e = errors(Kind::SubFlow, quote!(scopes = ["a"]));
        assert!(e[0].starts_with("unknown option `scopes` for #[elicit]"), "{e:?}");
        let e = errors(Kind::Tool, quote!(scope = ["a"]));
        assert!(e[0].contains("did you mean `scopes`?"), "{e:?}");
    }

    #[test]
    fn reports_access_problems() {
        let e = errors(Kind::Tool, quote!(scopes = "admin"));
        assert_eq!(e, [r#"`scopes` is an array of string literals, even for one scope: write `scopes = ["admin"]`"#]);
        let e = errors(Kind::Tool, quote!(scopes = "deploy write"));
        assert!(e[0].ends_with(r#"write `scopes = ["deploy", "write"]` (one string per scope)"#), "{e:?}");
        let e = errors(Kind::Tool, quote!(scopes("admin")));
        assert!(e[0].ends_with(r#"write `scopes = ["admin"]`"#), "{e:?}");
        let e = errors(Kind::Prompt, quote!(scopes = ["a", admin, 3]));
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(e[0].ends_with(r#"not a name: write `"admin"`"#), "{e:?}");
        assert!(e[1].starts_with("a scope is a string literal"), "{e:?}");
        let e = errors(Kind::Tool, quote!(scopes = ["a"], scopes = ["b"]));
        assert!(e[0].starts_with("duplicate option `scopes`: list every scope"), "{e:?}");
        let e = errors(Kind::Resource, quote!("a://b", auth = "checks::admin"));
        assert_eq!(
            e,
            ["`auth` takes the path of a check fn, not a string: write `auth = checks::admin`, without quotes"]
        );
        let e = errors(Kind::Tool, quote!(auth = |t| Ok(())));
        assert!(e[0].starts_with("`auth` takes the path of a check fn, `fn(&AccessToken)"), "{e:?}");
        let e = errors(Kind::Tool, quote!(auth));
        assert!(e[0].starts_with("`auth` takes the path of a check fn"), "{e:?}");
        let e = errors(Kind::Tool, quote!(auth = a, auth = b));
        assert!(e[0].starts_with("duplicate option `auth`: a component has one check fn"), "{e:?}");
    }
}

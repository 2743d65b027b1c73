//! Semantic checks on the model. Each records its errors, spanned on the user's tokens, and returns, so one
//! compile shows every problem of the fn.

use crate::attr::{Kind, TaskSupport};
use crate::ctxt::Ctxt;
use crate::flow::Flow;
use crate::flow::scope::LocalKind;
use crate::model::{Handler, ParamKind};
use crate::uri_template::VarKind;
use syn::Signature;
use syn::visit::{self, Visit};

/// The checks on the model. [`signature`] runs first, on the fn as written, so errors read in source order.
pub fn run(cx: &Ctxt, h: &Handler, flow: Option<&Flow>) {
    name(cx, h);
    params(cx, h);
    carried(cx, flow);
    task_step(cx, h);
    once(cx, h, flow);
    scopes(cx, h);
    tags(cx, h);
    match h.kind {
        Kind::Tool => tool(cx, h),
        Kind::Prompt => returns(cx, h, "its messages, like `-> String`"),
        Kind::Resource => {
            returns(cx, h, "its contents, like `-> String`");
            resource(cx, h);
        }
        Kind::SubFlow => {}
    }
}

/// `scopes = [..]`: at least one, each an RFC 6749 scope-token (§3.3), none twice.
fn scopes(cx: &Ctxt, h: &Handler) {
    let Some(scopes) = &h.options.scopes else { return };
    if scopes.array.elems.is_empty() {
        cx.error_spanned_by(
            &scopes.array,
            "`scopes = []` requires nothing: list the scopes a caller needs, like `scopes = [\"deploy:read\"]`, or leave `scopes` out",
        );
    }
    let mut seen: Vec<String> = Vec::new();
    for lit in &scopes.items {
        let scope = lit.value();
        if let Some(problem) = scope_token_problem(&scope) {
            cx.error_spanned_by(lit, problem);
        } else if seen.contains(&scope) {
            cx.error_spanned_by(lit, format!("duplicate scope {scope:?}: list each scope once"));
        } else {
            seen.push(scope);
        }
    }
}

/// `tags = [..]`: each a non-empty string, none twice.
fn tags(cx: &Ctxt, h: &Handler) {
    let Some(tags) = &h.options.tags else { return };
    let mut seen: Vec<String> = Vec::new();
    for lit in &tags.items {
        let tag = lit.value();
        if tag.trim().is_empty() {
            cx.error_spanned_by(lit, "a tag can't be empty");
        } else if seen.contains(&tag) {
            cx.error_spanned_by(lit, format!("duplicate tag {tag:?}: list each tag once"));
        } else {
            seen.push(tag);
        }
    }
}

/// What makes `scope` no RFC 6749 scope-token (`1*NQCHAR`, NQCHAR = %x21 / %x23-5B / %x5D-7E), if anything.
pub fn scope_token_problem(scope: &str) -> Option<String> {
    if scope.trim().is_empty() {
        return Some("a scope can't be empty".into());
    }
    if scope.contains(char::is_whitespace) {
        let words: Vec<String> = scope.split_whitespace().map(|w| format!("{w:?}")).collect();
        let problem = match words.len() {
            1 => format!("{scope:?} has spaces, which a scope can't have (on the wire, spaces separate scopes)"),
            _ => format!(
                "{scope:?} is not one scope: a scope has no spaces (on the wire, spaces separate scopes), so each scope is its own string"
            ),
        };
        return Some(format!("{problem}: write {}", words.join(", ")));
    }
    let bad = scope.chars().find(|&c| !matches!(c, '\x21' | '\x23'..='\x5B' | '\x5D'..='\x7E'))?;
    Some(format!(
        "invalid scope {scope:?} (found {bad:?}): a scope is printable ASCII other than `\"` and `\\`, without spaces (RFC 6749 §3.3)"
    ))
}

/// `run_as_task()` only means something in a tool that may run as a task.
fn task_step(cx: &Ctxt, h: &Handler) {
    let Some(span) = crate::flow::find::task_step(h.item.body.stream()) else { return };
    let why = match h.kind {
        Kind::Tool => match h.options.task {
            Some(TaskSupport::Optional | TaskSupport::Required) => return,
            _ => {
                "`run_as_task()` is where a call becomes a task, but this tool never runs as one: add `task = \"optional\"` or `task = \"required\"` to its #[tool]"
            }
        },
        _ => "`run_as_task()` can only stand in a #[tool]: only tool calls run as tasks",
    };
    cx.error_at(span, why);
}

/// `once` guards the final round of a flow that asks, and a destructive tool is one-time whatever it says.
fn once(cx: &Ctxt, h: &Handler, flow: Option<&Flow>) {
    let Some(once) = h.options.once else { return };
    if !once && h.options.destructive == Some(true) {
        cx.error_spanned_by(
            &h.item.sig.ident,
            "`once = false` can't exempt a `destructive` tool: replaying the final round of a destructive flow is always refused",
        );
    } else if once && flow.is_none() {
        cx.error_spanned_by(
            &h.item.sig.ident,
            "`once` refuses a replayed final round, but this tool never asks (`.ask().await`): each call is a fresh call; remove `once`",
        );
    }
}

/// Prompts and resources produce something; `()` is not a prompt or contents.
fn returns(cx: &Ctxt, h: &Handler, what: &str) {
    if h.ret.is_none() {
        cx.error_spanned_by(&h.item.sig.ident, format!("a {} fn returns {what}: add a return type", h.kind.attr()));
    }
}

/// What the fn must be: a free, non-generic `async fn`.
pub fn signature(cx: &Ctxt, kind: Kind, sig: &Signature) {
    let attr = kind.attr();
    if sig.asyncness.is_none() {
        let msg = match kind {
            Kind::SubFlow => format!(
                "{attr} on a fn makes a sub-flow, which needs an `async fn`: add `async` before `fn` (a form or a choice is a struct or an enum)"
            ),
            _ => format!("{attr} needs an `async fn`: add `async` before `fn`"),
        };
        cx.error_at(sig.fn_token.span, msg);
    }
    if let Some(c) = &sig.constness {
        cx.error_spanned_by(c, format!("{attr} fns can't be `const`"));
    }
    if let Some(u) = &sig.unsafety {
        cx.error_spanned_by(
            u,
            format!("{attr} fns can't be `unsafe`: the runtime calls them with no way to uphold their safety contract"),
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(abi, format!("{attr} fns can't declare an ABI"));
    }
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            format!("{attr} fns can't be generic: the handler is registered as one concrete fn; use concrete types"),
        );
    } else if let Some(wc) = &sig.generics.where_clause {
        cx.error_spanned_by(wc, format!("{attr} fns can't have a `where` clause"));
    }
    if let Some(recv) = sig.receiver() {
        cx.error_spanned_by(
            recv,
            format!("methods aren't supported yet: put {attr} on a free `async fn` (outside the `impl` block) instead"),
        );
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned_by(v, format!("{attr} fns can't be variadic"));
    }
}

fn name(cx: &Ctxt, h: &Handler) {
    let (name, span) = h.name();
    match h.kind {
        Kind::Tool => {
            let bad: Vec<char> = name.chars().filter(|c| !is_tool_name_char(*c)).collect();
            let len = name.chars().count();
            if len == 0 || len > 128 || !bad.is_empty() {
                let mut msg = format!(
                    "invalid tool name `{name}`: a tool name is 1 to 128 characters from A-Z, a-z, 0-9, `_`, `-` and `.`"
                );
                if len > 128 {
                    msg.push_str(&format!(" (this one has {len})"));
                }
                if let Some(c) = bad.first() {
                    msg.push_str(&format!(" (found {c:?})"));
                }
                if h.options.name.is_none() {
                    msg.push_str("; set one with `#[tool(name = \"...\")]`");
                }
                cx.error_spanned_by(span, msg);
            }
        }
        Kind::SubFlow => {}
        Kind::Prompt | Kind::Resource => {
            if name.is_empty() {
                cx.error_spanned_by(span, "the name can't be empty");
            }
        }
    }
}

fn is_tool_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// What the syntax shows of the parameters' attributes. Whether a named parameter is an argument is its
/// type's to say: the expansion checks that at compile time (`expand::params`).
fn params(cx: &Ctxt, h: &Handler) {
    for p in &h.params {
        if let Some((complete, _)) = &p.attrs.complete {
            match (&p.kind, h.kind) {
                (_, Kind::SubFlow) => {
                    cx.error_spanned_by(complete, "`#[complete]` is for prompt arguments and resource template variables")
                }
                (_, Kind::Tool) => cx.error_spanned_by(
                    complete,
                    "`#[complete]` is for prompt arguments and resource template variables; tools have no argument completion",
                ),
                (ParamKind::Named(_), _) => {}
                (ParamKind::Unnamed, _) => cx.error_spanned_by(complete, "`#[complete]` goes on a `name: T` argument"),
            }
        }
        if h.kind == Kind::SubFlow && matches!(p.ty, syn::Type::Reference(_)) {
            cx.error_spanned_by(
                &p.ty,
                "a sub-flow's arguments travel in the request state, so they own their value: take `String` for `&str`, `Vec<T>` for `&[T]`",
            );
        }
        let forwarded_ok = h.kind == Kind::Tool && matches!(p.kind, ParamKind::Named(_));
        if !forwarded_ok {
            for a in &p.attrs.forwarded {
                let why = match h.kind {
                    Kind::Tool => FORWARDED_TO_ARGUMENTS,
                    _ => {
                        "attributes other than doc comments and `#[complete]` are only forwarded for #[tool] parameters"
                    }
                };
                cx.error_spanned_by(a, format!("this attribute has no effect here: {why}"));
            }
        }
    }
}

/// Where a `#[tool]` parameter's attributes go (also the words of the compile-time error for a named
/// parameter that turns out to be supplied by the runtime).
pub const FORWARDED_TO_ARGUMENTS: &str =
    "only a plain `name: Type` parameter's attributes are forwarded (to its field in the arguments struct)";

fn tool(cx: &Ctxt, h: &Handler) {
    if let Some(ret) = &h.ret {
        let mut finder = ImplTraitFinder(None);
        finder.visit_type(ret);
        if let Some(it) = finder.0 {
            cx.error_spanned_by(
                it,
                "name the return type: #[tool] reads it to build the output schema, so `impl Trait` can't stand here",
            );
        }
    }
}

struct ImplTraitFinder<'a>(Option<&'a syn::TypeImplTrait>);

impl<'a> Visit<'a> for ImplTraitFinder<'a> {
    fn visit_type_impl_trait(&mut self, it: &'a syn::TypeImplTrait) {
        self.0.get_or_insert(it);
    }
}

fn resource(cx: &Ctxt, h: &Handler) {
    let Some(uri) = &h.uri else {
        cx.error_at(
            proc_macro2::Span::call_site(),
            "#[resource] needs the resource's URI first: `#[resource(\"scheme://path\")]` or a template like `#[resource(\"scheme://items/{id}\")]`",
        );
        return;
    };
    let Some(template) = &uri.template else { return };
    // A parameter that is no variable must be supplied by the runtime: its type says (`expand::params`).
    if !template.is_template {
        return;
    }
    for var in &template.vars {
        if !h.named().any(|(_, v)| v.name == var.name) {
            cx.error_spanned_by(
                &uri.lit,
                format!(
                    "template variable `{}` has no parameter: add `{}: String` (or another `FromStr` type) to `fn {}`",
                    var.name, var.name, h.item.sig.ident
                ),
            );
        }
    }
    for (p, v) in h.named() {
        if let Some(var) = template.var(&v.name)
            && var.kind != VarKind::Query
            && v.option_inner.is_some()
        {
            cx.error_spanned_by(
                &p.ty,
                format!(
                    "`{}` is a path variable, present in every URI the template matches, so it can't be `Option`; only query variables (`{{?{}}}`) may be absent",
                    v.name, v.name
                ),
            );
        }
    }
}

/// A `for` loop that asks carries the items it has yet to visit, so they can't be borrows either.
fn borrowed_for_loops(cx: &Ctxt, body: &syn::Block) {
    struct Loops<'c>(&'c Ctxt);
    impl<'a> Visit<'a> for Loops<'_> {
        fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
            let borrowed = match &*f.expr {
                syn::Expr::Reference(_) => true,
                syn::Expr::MethodCall(m) => m.method == "iter" || m.method == "iter_mut",
                _ => false,
            };
            if borrowed && crate::flow::syntax::for_index(&f.attrs).is_some() {
                self.0.error_spanned_by(
                    &f.expr,
                    "this `for` loop asks, so the items it has yet to visit travel to the next round in the request state, and they can't be borrows: iterate over owned items (`.clone()`, `.into_iter()` of an owned collection) or over indices",
                );
            }
            visit::visit_expr_for_loop(self, f);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    Loops(cx).visit_block(body);
}

/// A borrow can't be carried across `.ask()`: the next round runs in another request, where what it borrows
/// from is gone. (Borrows the syntax doesn't show are caught by the `Carried` bound, on the same binding.)
fn carried(cx: &Ctxt, flow: Option<&Flow>) {
    let Some(flow) = flow else { return };
    borrowed_for_loops(cx, &flow.body);
    for id in flow.carried_locals() {
        let local = &flow.locals[id];
        let LocalKind::Binding { by_ref, borrowed, .. } = &local.kind else { continue };
        let name = crate::flow::scope::name(local);
        let how = if *by_ref {
            "is a `ref` binding"
        } else if *borrowed {
            "is a borrow"
        } else {
            continue;
        };
        cx.error_at(
            local.span,
            format!(
                "`{name}` {how}, and it is used after an `.ask()`: a borrow can't be carried to the next round (that round runs in another request, where what it borrows from is gone); hold an owned value instead (`.clone()`, `.to_owned()`), or borrow again after the `.ask()`"
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::attr::{Kind, Options};
    use crate::ctxt::Ctxt;
    use crate::flow::Flow;
    use crate::model::{Handler, ItemFn};

    /// The errors a `#[tool]` fn has, through the checks.
    fn errors(source: &str) -> Vec<String> {
        let cx = Ctxt::new();
        let item: ItemFn = syn::parse_str(source).expect("parses");
        let h = Handler::new(&cx, Kind::Tool, Options::default(), item);
        let flow = Flow::new(&cx, &h);
        super::run(&cx, &h, flow.as_ref());
        match cx.check() {
            Ok(()) => vec![],
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    /// The errors the checks find in `#[tool(<args>)] async fn f() {}`.
    fn option_errors(args: proc_macro2::TokenStream) -> Vec<String> {
        let cx = Ctxt::new();
        let item: ItemFn = syn::parse_str("async fn f() {}").expect("parses");
        let options = Options::parse(&cx, Kind::Tool, args);
        let h = Handler::new(&cx, Kind::Tool, options, item);
        super::run(&cx, &h, None);
        match cx.check() {
            Ok(()) => vec![],
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn scopes_are_scope_tokens_listed_once() {
        use quote::quote;
        assert!(option_errors(quote!(scopes = ["deploy:read", "a!#[]^~", "urn:x:y/z"])).is_empty());
        let e = option_errors(quote!(scopes = []));
        assert!(e[0].starts_with("`scopes = []` requires nothing"), "{e:?}");
        let e = option_errors(quote!(scopes = ["deploy write", " admin", "", "café", "a\\b", "q\"", "x", "x"]));
        assert_eq!(e.len(), 7, "{e:?}");
        assert!(e[0].starts_with(r#""deploy write" is not one scope"#), "{e:?}");
        assert!(e[0].ends_with(r#"write "deploy", "write""#), "{e:?}");
        assert!(e[1].starts_with(r#"" admin" has spaces"#) && e[1].ends_with(r#"write "admin""#), "{e:?}");
        assert_eq!(e[2], "a scope can't be empty");
        assert!(e[3].starts_with(r#"invalid scope "café" (found 'é'): a scope is printable ASCII"#), "{e:?}");
        assert!(e[4].contains(r"(found '\\')"), "{e:?}");
        assert!(e[5].contains(r#"(found '"')"#), "{e:?}");
        assert_eq!(e[6], r#"duplicate scope "x": list each scope once"#);
    }

    #[test]
    fn borrows_carried_across_an_ask_are_errors() {
        let errors =
            errors("async fn f(v: Vec<u8>) -> R { let a = &v; let ref b = v; let c = &v; A.ask().await?; Ok((a, b)) }");
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].starts_with("`a` is a borrow") && errors[1].starts_with("`b` is a `ref` binding"));
    }
}

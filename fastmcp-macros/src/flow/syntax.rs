//! Syntax helpers of the lowering: what an ask looks like, the marks the finder leaves on the asks it can
//! lower (and on the `for` loops it materialises), the order in which an expression evaluates its operands,
//! and which statements diverge.

use proc_macro2::Span;
use quote::quote;
use syn::visit::{self, Visit};
use syn::{Attribute, Block, Expr, ExprAwait, ExprMethodCall, Label, LitInt, Local, Pat, Stmt};

/// The mark on an `.ask().await` the lowering compiles: `#[__fastmcp_ask(k)]`, k counting from 1.
const ASK_MARK: &str = "__fastmcp_ask";
/// The mark on a `for` loop whose body suspends: `#[__fastmcp_for(n)]`, n counting from 0.
const FOR_MARK: &str = "__fastmcp_for";

/// `<builder>.ask().await` or `<builder>.ask_as("key").await`: the builder and the method's span.
pub fn ask_parts(e: &Expr) -> Option<(&Expr, Span)> {
    let Expr::Await(ExprAwait { base, .. }) = e else { return None };
    let Expr::MethodCall(ExprMethodCall { receiver, method, turbofish: None, args, .. }) = &**base else {
        return None;
    };
    let named = method == "ask_as"
        && args.len() == 1
        && matches!(args.first(), Some(Expr::Lit(l)) if matches!(l.lit, syn::Lit::Str(_)));
    (method == "ask" && args.is_empty() || named).then(|| (&**receiver, method.span()))
}

/// The key an author gave an ask with `.ask_as("key")`, if any (else the key comes from its position).
pub fn ask_key(e: &Expr) -> Option<syn::LitStr> {
    let Expr::Await(ExprAwait { base, .. }) = e else { return None };
    let Expr::MethodCall(ExprMethodCall { method, args, .. }) = &**base else { return None };
    match args.first() {
        Some(Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(key), .. })) if method == "ask_as" => Some(key.clone()),
        _ => None,
    }
}

pub fn is_ask(e: &Expr) -> bool {
    ask_parts(e).is_some()
}

fn mark(name: &str, index: usize) -> Attribute {
    let path = syn::Ident::new(name, Span::call_site());
    let index = LitInt::new(&index.to_string(), Span::call_site());
    syn::parse_quote!(#[#path(#index)])
}

fn marked(attrs: &[Attribute], name: &str) -> Option<usize> {
    attrs.iter().find(|a| a.path().is_ident(name)).and_then(|a| a.parse_args::<LitInt>().ok()?.base10_parse().ok())
}

pub fn mark_ask(e: &mut Expr, index: usize) {
    if let Expr::Await(a) = e {
        a.attrs.push(mark(ASK_MARK, index));
    }
}

pub fn mark_for(e: &mut Expr, index: usize) {
    if let Expr::ForLoop(f) = e {
        f.attrs.push(mark(FOR_MARK, index));
    }
}

/// The index of a marked ask.
pub fn ask_index(e: &Expr) -> Option<usize> {
    match e {
        Expr::Await(a) => marked(&a.attrs, ASK_MARK),
        _ => None,
    }
}

/// The index of a `for` loop whose body suspends.
pub fn for_index(attrs: &[Attribute]) -> Option<usize> {
    marked(attrs, FOR_MARK)
}

pub fn is_marked_await(a: &ExprAwait) -> bool {
    marked(&a.attrs, ASK_MARK).is_some()
}

/// Finds marked asks (all, or one). Marks are only ever in the fn's own control flow.
struct Finder {
    target: Option<usize>,
    found: bool,
}

impl<'a> Visit<'a> for Finder {
    fn visit_expr_await(&mut self, a: &'a ExprAwait) {
        if let Some(k) = marked(&a.attrs, ASK_MARK)
            && self.target.is_none_or(|t| t == k)
        {
            self.found = true;
        }
        if !self.found {
            visit::visit_expr_await(self, a);
        }
    }

    fn visit_item(&mut self, _: &'a syn::Item) {}
}

fn find(target: Option<usize>, f: impl FnOnce(&mut Finder)) -> bool {
    let mut finder = Finder { target, found: false };
    f(&mut finder);
    finder.found
}

/// Whether `e` holds a suspension point in its own control flow.
pub fn suspends(e: &Expr) -> bool {
    find(None, |f| f.visit_expr(e))
}

pub fn block_suspends(b: &Block) -> bool {
    find(None, |f| f.visit_block(b))
}

pub fn stmt_suspends(s: &Stmt) -> bool {
    find(None, |f| f.visit_stmt(s))
}

/// Whether `e` holds ask `k`.
pub fn contains(e: &Expr, k: usize) -> bool {
    find(Some(k), |f| f.visit_expr(e))
}

pub fn block_contains(b: &Block, k: usize) -> bool {
    find(Some(k), |f| f.visit_block(b))
}

pub fn stmt_contains(s: &Stmt, k: usize) -> bool {
    find(Some(k), |f| f.visit_stmt(s))
}

/// The blocks whose statements the lowering walks: plain, labelled and `unsafe` blocks, `if`, `match` and
/// the three loops.
pub fn is_construct(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Block(_)
            | Expr::Unsafe(_)
            | Expr::If(_)
            | Expr::Match(_)
            | Expr::Loop(_)
            | Expr::While(_)
            | Expr::ForLoop(_)
    )
}

/// The operands of an expression that isn't a construct, in the order Rust evaluates them.
pub fn operands_mut(e: &mut Expr) -> Vec<&mut Expr> {
    match e {
        Expr::Try(x) => vec![&mut *x.expr],
        Expr::Await(x) => vec![&mut *x.base],
        Expr::Field(x) => vec![&mut *x.base],
        Expr::Paren(x) => vec![&mut *x.expr],
        Expr::Group(x) => vec![&mut *x.expr],
        Expr::Cast(x) => vec![&mut *x.expr],
        Expr::Unary(x) => vec![&mut *x.expr],
        Expr::Reference(x) => vec![&mut *x.expr],
        Expr::Let(x) => vec![&mut *x.expr],
        Expr::MethodCall(x) => std::iter::once(&mut *x.receiver).chain(x.args.iter_mut()).collect(),
        Expr::Call(x) => std::iter::once(&mut *x.func).chain(x.args.iter_mut()).collect(),
        Expr::Binary(x) => vec![&mut *x.left, &mut *x.right],
        // The assigned value is evaluated before the place it goes to.
        Expr::Assign(x) => vec![&mut *x.right, &mut *x.left],
        Expr::Index(x) => vec![&mut *x.expr, &mut *x.index],
        Expr::Tuple(x) => x.elems.iter_mut().collect(),
        Expr::Array(x) => x.elems.iter_mut().collect(),
        Expr::Struct(x) => x.fields.iter_mut().map(|f| &mut f.expr).chain(x.rest.as_deref_mut()).collect(),
        Expr::Return(x) => x.expr.as_deref_mut().into_iter().collect(),
        Expr::Break(x) => x.expr.as_deref_mut().into_iter().collect(),
        _ => Vec::new(),
    }
}

/// The suspension point a statement's expression reaches first: an ask, or a construct whose blocks suspend
/// (an `if` or `while` whose condition suspends, a `match` whose scrutinee does, a `for` whose iterator does,
/// lead on to the ask in there). The finder only marks asks where this leads.
pub fn head_mut(e: &mut Expr) -> Option<&mut Expr> {
    if !suspends(e) {
        return None;
    }
    if is_ask(e) {
        return Some(e);
    }
    let descend = match &*e {
        Expr::If(x) => suspends(&x.cond),
        Expr::While(x) => suspends(&x.cond),
        Expr::Match(x) => suspends(&x.expr),
        Expr::ForLoop(x) => suspends(&x.expr),
        _ => false,
    };
    if descend {
        return match e {
            Expr::If(x) => head_mut(&mut x.cond),
            Expr::While(x) => head_mut(&mut x.cond),
            Expr::Match(x) => head_mut(&mut x.expr),
            Expr::ForLoop(x) => head_mut(&mut x.expr),
            _ => None,
        };
    }
    if is_construct(e) {
        return Some(e);
    }
    operands_mut(e).into_iter().find(|op| suspends(op)).and_then(head_mut)
}

/// The expression of an expression statement or a `let` initialiser.
pub fn stmt_expr_mut(s: &mut Stmt) -> Option<&mut Expr> {
    match s {
        Stmt::Local(Local { init: Some(init), .. }) => Some(&mut init.expr),
        Stmt::Expr(e, _) => Some(e),
        _ => None,
    }
}

/// Operands whose evaluation has no effect and reads the same in every round: literals and paths (a local,
/// a fn, a unit variant), their fields and references to them. An ask may follow them in its statement.
pub fn is_inert(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Field(x) => is_inert(&x.base),
        Expr::Reference(x) => is_inert(&x.expr),
        Expr::Paren(x) => is_inert(&x.expr),
        Expr::Group(x) => is_inert(&x.expr),
        _ => false,
    }
}

/// Whether a statement certainly diverges, so the ones after it are unreachable: a suspension (it ends in an
/// empty `match`), `return`, `break`, `continue`, a panicking macro, or a construct all of whose ways out do.
pub fn stmt_diverges(s: &Stmt) -> bool {
    match s {
        Stmt::Local(Local { init: Some(init), .. }) => diverges(&init.expr),
        Stmt::Expr(e, _) => diverges(e),
        Stmt::Macro(m) => is_panic_macro(&m.mac),
        _ => false,
    }
}

pub fn diverges(e: &Expr) -> bool {
    match e {
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
        Expr::Macro(m) => is_panic_macro(&m.mac),
        Expr::Match(m) => diverges(&m.expr) || m.arms.iter().all(|arm| diverges(&arm.body)),
        Expr::Block(b) => b.label.is_none() && b.block.stmts.iter().any(stmt_diverges),
        Expr::Unsafe(b) => b.block.stmts.iter().any(stmt_diverges),
        Expr::If(i) => {
            diverges(&i.cond)
                || i.else_branch
                    .as_ref()
                    .is_some_and(|(_, els)| i.then_branch.stmts.iter().any(stmt_diverges) && diverges(els))
        }
        Expr::Loop(l) => !breaks_out(&l.body, l.label.as_ref()),
        Expr::While(w) => diverges(&w.cond),
        Expr::ForLoop(f) => diverges(&f.expr),
        Expr::Paren(x) => diverges(&x.expr),
        Expr::Let(x) => diverges(&x.expr),
        Expr::Try(x) => diverges(&x.expr),
        Expr::Assign(x) => diverges(&x.right),
        Expr::Call(_) | Expr::MethodCall(_) | Expr::Binary(_) | Expr::Tuple(_) | Expr::Array(_) => {
            let mut e = e.clone();
            operands_mut(&mut e).into_iter().any(|op| diverges(op))
        }
        _ => false,
    }
}

fn is_panic_macro(mac: &syn::Macro) -> bool {
    mac.path
        .segments
        .last()
        .is_some_and(|s| ["panic", "unreachable", "todo", "unimplemented"].iter().any(|m| s.ident == m))
}

/// Whether a `break` in `body` leaves the loop it is the body of (unlabelled and not inside an inner loop, or
/// naming `label`).
fn breaks_out(body: &Block, label: Option<&Label>) -> bool {
    struct Breaks<'l> {
        label: Option<&'l syn::Lifetime>,
        depth: usize,
        found: bool,
    }
    impl<'a> Visit<'a> for Breaks<'_> {
        fn visit_expr_break(&mut self, b: &'a syn::ExprBreak) {
            match &b.label {
                None if self.depth == 0 => self.found = true,
                Some(l) if Some(l) == self.label => self.found = true,
                _ => {}
            }
            visit::visit_expr_break(self, b);
        }
        fn visit_expr_loop(&mut self, l: &'a syn::ExprLoop) {
            self.depth += 1;
            visit::visit_expr_loop(self, l);
            self.depth -= 1;
        }
        fn visit_expr_while(&mut self, w: &'a syn::ExprWhile) {
            self.visit_expr(&w.cond);
            self.depth += 1;
            self.visit_block(&w.body);
            self.depth -= 1;
        }
        fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
            self.visit_expr(&f.expr);
            self.depth += 1;
            self.visit_block(&f.body);
            self.depth -= 1;
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'a syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut breaks = Breaks { label: label.map(|l| &l.name), depth: 0, found: false };
    breaks.visit_block(body);
    breaks.found
}

/// Whether a `break` or `continue` in `block` names `label`.
pub fn uses_label(block: &Block, label: &Label) -> bool {
    struct Uses<'l>(&'l syn::Lifetime, bool);
    impl<'a> Visit<'a> for Uses<'_> {
        fn visit_expr_break(&mut self, b: &'a syn::ExprBreak) {
            self.1 |= b.label.as_ref() == Some(self.0);
            visit::visit_expr_break(self, b);
        }
        fn visit_expr_continue(&mut self, c: &'a syn::ExprContinue) {
            self.1 |= c.label.as_ref() == Some(self.0);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut uses = Uses(&label.name, false);
    uses.visit_block(block);
    uses.1
}

/// The variables a pattern binds: `(ident, by_ref, mutable)`. Capitalised identifiers are constants and
/// unit variants (`None`), not bindings.
pub fn bindings(pat: &Pat) -> Vec<(syn::Ident, bool, bool)> {
    struct Bindings(Vec<(syn::Ident, bool, bool)>);
    impl<'a> Visit<'a> for Bindings {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            let name = p.ident.to_string();
            let binds = p.subpat.is_some()
                || p.by_ref.is_some()
                || p.mutability.is_some()
                || !name.trim_start_matches("r#").starts_with(|c: char| c.is_uppercase());
            if binds {
                self.0.push((p.ident.clone(), p.by_ref.is_some(), p.mutability.is_some()));
            }
            visit::visit_pat_ident(self, p);
        }
        // Paths and literals in patterns are not bindings.
        fn visit_expr(&mut self, _: &'a Expr) {}
    }
    let mut b = Bindings(Vec::new());
    b.visit_pat(pat);
    b.0
}

/// `()`, the placeholder for an answer in a continuation read only for the names it uses.
pub fn unit() -> Expr {
    Expr::Verbatim(quote!(()))
}

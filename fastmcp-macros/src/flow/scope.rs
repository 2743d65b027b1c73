//! Step 3, liveness: the locals in scope at each suspension point ([`in_scope`]), and the names a
//! continuation reads before binding them ([`free_names`]). A local is carried when both hold.

use super::syntax::{ask_index, bindings, for_index};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::BTreeSet;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Block, Expr, Ident, Item, Local as SynLocal, Pat, Stmt, Token};

/// A variable the body can see.
#[derive(Clone)]
pub struct Local {
    /// As bound, with the binding's span.
    pub ident: Ident,
    pub mutable: bool,
    pub kind: LocalKind,
    /// Where errors about carrying it point: the binding (or a `for` loop's iterator).
    pub span: Span,
}

#[derive(Clone)]
pub enum LocalKind {
    /// A fn parameter: sent again (or supplied again) every round, so it is carried only when `mut` (it may
    /// have changed). `whole`: the binding is the parameter itself (`name: T`), not a part of it.
    Param { whole: bool },
    /// A `let`, `match` arm, `if let`, `while let` or `for` binding.
    Binding {
        /// The type a `let name: Type` annotates.
        ty: Option<Box<syn::Type>>,
        by_ref: bool,
        /// The `let`'s initialiser is a borrow (`&x`, `&mut x`).
        borrowed: bool,
        /// `let name = <literal>;` (or `let name: T = <literal>;`): evaluated again instead of carried.
        literal: Option<Box<(Option<syn::Type>, Expr)>>,
    },
    /// The queue a `for` loop whose body suspends is materialised into.
    ForQueue,
}

pub type LocalId = usize;

/// The locals of the body, and for each ask (by index − 1) the ones in scope there, in declaration order.
pub struct Scopes {
    pub locals: Vec<Local>,
    pub at_ask: Vec<Vec<LocalId>>,
}

/// The name of the queue of the `for` loop with this index.
pub fn for_queue(index: usize) -> Ident {
    Ident::new(&format!("__fastmcp_iter{index}"), Span::call_site())
}

/// Walks the body's own control flow with its scopes, recording what is in scope at each marked ask.
pub fn in_scope(params: Vec<Local>, body: &Block, asks: usize) -> Scopes {
    let mut w = ScopeWalk { locals: Vec::new(), scopes: vec![Vec::new()], at_ask: vec![Vec::new(); asks] };
    for p in params {
        w.push(p);
    }
    w.visit_block(body);
    Scopes { locals: w.locals, at_ask: w.at_ask }
}

struct ScopeWalk {
    locals: Vec<Local>,
    scopes: Vec<Vec<LocalId>>,
    at_ask: Vec<Vec<LocalId>>,
}

impl ScopeWalk {
    fn push(&mut self, local: Local) {
        self.locals.push(local);
        let id = self.locals.len() - 1;
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(id);
        }
    }

    fn bind(&mut self, pat: &Pat, borrowed: bool, literal: Option<(Option<syn::Type>, Expr)>) {
        let names = bindings(pat);
        let single = names.len() == 1;
        let literal = if single { literal } else { None };
        let ty = match pat {
            Pat::Type(t) if single => Some(t.ty.clone()),
            _ => None,
        };
        for (ident, by_ref, mutable) in names {
            let literal = literal.clone().filter(|_| !mutable).map(Box::new);
            let kind = LocalKind::Binding { ty: ty.clone(), by_ref, borrowed, literal };
            self.push(Local { span: ident.span(), ident, mutable, kind });
        }
    }

    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        self.scopes.push(Vec::new());
        f(self);
        self.scopes.pop();
    }

    /// The visible locals, the latest binding of each name, in declaration order.
    fn visible(&self) -> Vec<LocalId> {
        let mut by_name: Vec<(String, LocalId)> = Vec::new();
        for id in self.scopes.iter().flatten() {
            let name = self.locals[*id].ident.to_string();
            by_name.retain(|(n, _)| *n != name);
            by_name.push((name, *id));
        }
        let mut ids: Vec<LocalId> = by_name.into_iter().map(|(_, id)| id).collect();
        ids.sort_unstable();
        ids
    }
}

/// `let x = <literal>;` with a single plain binding: what to evaluate again instead of carrying.
fn literal_init(local: &SynLocal) -> Option<(Option<syn::Type>, Expr)> {
    let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
    let is_literal = match &*init.expr {
        Expr::Lit(_) => true,
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && matches!(&*u.expr, Expr::Lit(_)),
        _ => false,
    };
    if !is_literal {
        return None;
    }
    match &local.pat {
        Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => Some((None, (*init.expr).clone())),
        Pat::Type(t) if matches!(&*t.pat, Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none()) => {
            Some((Some((*t.ty).clone()), (*init.expr).clone()))
        }
        _ => None,
    }
}

impl<'a> Visit<'a> for ScopeWalk {
    fn visit_block(&mut self, b: &'a Block) {
        self.scoped(|w| {
            for stmt in &b.stmts {
                w.visit_stmt(stmt);
            }
        });
    }

    fn visit_local(&mut self, local: &'a SynLocal) {
        if let Some(init) = &local.init {
            self.visit_expr(&init.expr);
            if let Some((_, els)) = &init.diverge {
                self.visit_expr(els);
            }
        }
        let borrowed = local.init.as_ref().is_some_and(|i| matches!(&*i.expr, Expr::Reference(_)));
        self.bind(&local.pat, borrowed, literal_init(local));
    }

    fn visit_expr(&mut self, e: &'a Expr) {
        if let Some(k) = ask_index(e) {
            self.at_ask[k - 1] = self.visible();
            return;
        }
        match e {
            Expr::If(x) => {
                self.scoped(|w| {
                    w.visit_expr(&x.cond);
                    w.visit_block(&x.then_branch);
                });
                if let Some((_, els)) = &x.else_branch {
                    self.visit_expr(els);
                }
            }
            Expr::Match(x) => {
                self.visit_expr(&x.expr);
                for arm in &x.arms {
                    self.scoped(|w| {
                        w.bind(&arm.pat, false, None);
                        if let Some((_, guard)) = &arm.guard {
                            w.visit_expr(guard);
                        }
                        w.visit_expr(&arm.body);
                    });
                }
            }
            Expr::While(x) => self.scoped(|w| {
                w.visit_expr(&x.cond);
                w.visit_block(&x.body);
            }),
            Expr::ForLoop(x) => {
                self.visit_expr(&x.expr);
                self.scoped(|w| {
                    if let Some(n) = for_index(&x.attrs) {
                        let span = x.expr.span();
                        w.push(Local { ident: for_queue(n), mutable: true, kind: LocalKind::ForQueue, span });
                    }
                    w.bind(&x.pat, false, None);
                    w.visit_block(&x.body);
                });
            }
            Expr::Let(x) => {
                self.visit_expr(&x.expr);
                self.bind(&x.pat, false, None);
            }
            // Not the fn's own control flow: no marks in there.
            Expr::Closure(_) | Expr::Async(_) | Expr::Const(_) | Expr::Macro(_) => {}
            _ => visit::visit_expr(self, e),
        }
    }

    fn visit_item(&mut self, _: &'a Item) {}
}

/// What a continuation does with the names it doesn't bind itself.
pub struct Uses {
    /// Read before being bound or assigned (a superset: identifiers in macro arguments that don't parse as
    /// expressions count too, as do inline format arguments like `{plan}`): their values must be carried.
    pub reads: BTreeSet<String>,
    /// Assigned (`x = ..`) before being read: they must exist, but their values are dead.
    pub writes: BTreeSet<String>,
}

pub fn uses(block: &Block) -> Uses {
    let mut f = Free { bound: vec![Vec::new()], free: BTreeSet::new(), assigned: BTreeSet::new() };
    f.visit_block(block);
    Uses { reads: f.free, writes: f.assigned }
}

struct Free {
    bound: Vec<Vec<String>>,
    free: BTreeSet<String>,
    assigned: BTreeSet<String>,
}

impl Free {
    fn reads(&mut self, name: String) {
        if !self.bound.iter().flatten().any(|b| *b == name) {
            self.free.insert(name);
        }
    }

    fn bind(&mut self, pat: &Pat) {
        let names = bindings(pat).into_iter().map(|(i, _, _)| i.to_string());
        if let Some(scope) = self.bound.last_mut() {
            scope.extend(names);
        }
    }

    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        self.bound.push(Vec::new());
        f(self);
        self.bound.pop();
    }

    fn tokens(&mut self, tokens: TokenStream) {
        self.literals(tokens.clone());
        let parsed = Punctuated::<Expr, Token![,]>::parse_terminated.parse2(tokens.clone());
        match parsed {
            Ok(args) => {
                for arg in &args {
                    self.visit_expr(arg);
                }
            }
            Err(_) => self.idents(tokens),
        }
    }

    fn idents(&mut self, tokens: TokenStream) {
        for t in tokens {
            match t {
                TokenTree::Ident(i) => self.reads(i.to_string()),
                TokenTree::Group(g) => self.idents(g.stream()),
                TokenTree::Literal(_) | TokenTree::Punct(_) => {}
            }
        }
    }

    fn literals(&mut self, tokens: TokenStream) {
        for t in tokens {
            match t {
                TokenTree::Literal(l) => self.format_args(&l.to_string()),
                TokenTree::Group(g) => self.literals(g.stream()),
                TokenTree::Ident(_) | TokenTree::Punct(_) => {}
            }
        }
    }

    /// Inline format arguments in a string literal: `{name}`, `{name:?}`.
    fn format_args(&mut self, literal: &str) {
        if !literal.contains('"') {
            return;
        }
        let mut rest = literal;
        while let Some(open) = rest.find('{') {
            rest = &rest[open + 1..];
            if let Some(stripped) = rest.strip_prefix('{') {
                rest = stripped;
                continue;
            }
            let end = rest.find(['}', ':']).unwrap_or(rest.len());
            let name = rest[..end].trim();
            if !name.is_empty()
                && name.chars().all(|c| c.is_alphanumeric() || c == '_')
                && !name.starts_with(char::is_numeric)
            {
                self.reads(name.to_owned());
            }
        }
    }
}

impl<'a> Visit<'a> for Free {
    fn visit_block(&mut self, b: &'a Block) {
        self.scoped(|f| {
            for stmt in &b.stmts {
                f.visit_stmt(stmt);
            }
        });
    }

    fn visit_stmt(&mut self, s: &'a Stmt) {
        match s {
            Stmt::Local(local) => {
                if let Some(init) = &local.init {
                    self.visit_expr(&init.expr);
                    if let Some((_, els)) = &init.diverge {
                        self.visit_expr(els);
                    }
                }
                self.bind(&local.pat);
            }
            Stmt::Item(_) => {}
            Stmt::Expr(e, _) => self.visit_expr(e),
            Stmt::Macro(m) => self.tokens(m.mac.tokens.clone()),
        }
    }

    fn visit_expr(&mut self, e: &'a Expr) {
        match e {
            Expr::Path(p) if p.qself.is_none() && p.path.leading_colon.is_none() && p.path.segments.len() == 1 => {
                if let Some(seg) = p.path.segments.first() {
                    self.reads(seg.ident.to_string());
                }
            }
            // `x = ..` overwrites `x`: from here on in this block, `x` holds a value this round made.
            Expr::Assign(a) if matches!(&*a.left, Expr::Path(p) if p.path.get_ident().is_some()) => {
                self.visit_expr(&a.right);
                if let Expr::Path(p) = &*a.left
                    && let Some(name) = p.path.get_ident().map(ToString::to_string)
                    && !self.bound.iter().flatten().any(|b| *b == name)
                {
                    self.assigned.insert(name.clone());
                    if let Some(scope) = self.bound.last_mut() {
                        scope.push(name);
                    }
                }
            }
            Expr::Macro(m) => self.tokens(m.mac.tokens.clone()),
            Expr::Closure(c) => self.scoped(|f| {
                for input in &c.inputs {
                    f.bind(input);
                }
                f.visit_expr(&c.body);
            }),
            Expr::If(x) => {
                self.scoped(|f| {
                    f.visit_expr(&x.cond);
                    f.visit_block(&x.then_branch);
                });
                if let Some((_, els)) = &x.else_branch {
                    self.visit_expr(els);
                }
            }
            Expr::Match(x) => {
                self.visit_expr(&x.expr);
                for arm in &x.arms {
                    self.scoped(|f| {
                        f.bind(&arm.pat);
                        if let Some((_, guard)) = &arm.guard {
                            f.visit_expr(guard);
                        }
                        f.visit_expr(&arm.body);
                    });
                }
            }
            Expr::While(x) => self.scoped(|f| {
                f.visit_expr(&x.cond);
                f.visit_block(&x.body);
            }),
            Expr::ForLoop(x) => {
                self.visit_expr(&x.expr);
                self.scoped(|f| {
                    f.bind(&x.pat);
                    f.visit_block(&x.body);
                });
            }
            Expr::Let(x) => {
                self.visit_expr(&x.expr);
                self.bind(&x.pat);
            }
            _ => visit::visit_expr(self, e),
        }
    }

    fn visit_item(&mut self, _: &'a Item) {}

    fn visit_macro(&mut self, m: &'a syn::Macro) {
        self.tokens(m.tokens.clone());
    }
}

/// Tokens of a local's binding, for messages.
pub fn name(local: &Local) -> String {
    local.ident.to_token_stream().to_string()
}

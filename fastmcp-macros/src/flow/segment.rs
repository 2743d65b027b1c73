//! Step 2: segment the body at its suspension points.
//!
//! Arm 0 runs the body from the start ([`Segmenter::start`]); arm k resumes after ask k
//! ([`Segmenter::resume`]): the answer stands in place of the `.ask().await` (the rest of the user's
//! expression, `?` and method calls, stays as written), then the rest of the enclosing block runs, then the
//! rest of each enclosing construct outward, then the rest of the fn. A loop is resumed by entering it again
//! with a flag that makes its first iteration the rest of the interrupted one, so `continue` and `break` in
//! there keep their meaning. In either kind of arm every other ask reached suspends: its statement becomes a
//! block that evaluates the builder, records the suspension and waits forever, and the statements after it in
//! that block are dropped (they run in the arm that resumes there).
//!
//! Without a [`Lower`] the segmenter builds the plain continuation of an ask instead: the code that runs
//! after it, as the user wrote it. Liveness reads which names that continuation uses.

use super::scope::for_queue;
use super::syntax::{
    ask_index, ask_key, ask_parts, block_contains, contains, for_index, head_mut, operands_mut, stmt_contains,
    stmt_diverges, stmt_expr_mut, stmt_suspends, suspends, unit, uses_label,
};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Block, Expr, ExprBlock, ExprForLoop, Label, Stmt};

/// What a suspension point becomes in the arms: the codegen's to say, so that the segmenter only moves the
/// user's code around and names nothing of the runtime.
pub trait Lower {
    /// The diverging block that stands for the statement of ask `k` on the way forward: it evaluates the
    /// ask's `builder`, records the suspension under `key` and never completes. `span`: the `ask`'s.
    fn suspend(&self, k: usize, key: &str, builder: &Expr, span: Span) -> Expr;
    /// What stands in place of ask `k`'s `<builder>.ask().await` in the arm that resumes there.
    fn answer(&self, k: usize, key: &str, span: Span) -> Expr;
}

pub struct Segmenter<'f> {
    /// `None`: build plain continuations (for liveness), not code.
    lower: Option<&'f dyn Lower>,
}

/// The key of ask `k` in the `inputRequests` of its round: the author's (`.ask_as("key")`), else `ask{k}`.
fn key_of(ask: &Expr, k: usize) -> String {
    ask_key(ask).map_or_else(|| format!("ask{k}"), |key| key.value())
}

impl<'f> Segmenter<'f> {
    pub fn plain() -> Self {
        Segmenter { lower: None }
    }

    pub fn lower(lower: &'f dyn Lower) -> Self {
        Segmenter { lower: Some(lower) }
    }

    /// Arm 0.
    pub fn start(&self, body: &Block) -> Block {
        self.forward_block(body)
    }

    /// Arm k, from the answer on (the restored locals come first, from the caller).
    pub fn resume(&self, body: &Block, k: usize) -> Block {
        self.resume_block(body, k)
    }

    fn forward_block(&self, b: &Block) -> Block {
        let mut stmts = Vec::new();
        let mut rest = b.stmts.iter();
        for s in rest.by_ref() {
            let (s, diverged) = self.forward_stmt(s);
            stmts.push(s);
            if diverged {
                break;
            }
        }
        finish(stmts, rest, b)
    }

    /// A statement on the way forward, and whether it certainly diverges.
    fn forward_stmt(&self, s: &Stmt) -> (Stmt, bool) {
        if self.lower.is_none() {
            // A continuation keeps later asks as written, but stops where the user's code leaves the block.
            return (s.clone(), stmt_diverges(s));
        }
        if !stmt_suspends(s) {
            return (s.clone(), stmt_diverges(s));
        }
        let mut s = s.clone();
        let Some(head) = stmt_expr_mut(&mut s).and_then(head_mut) else { return (s, false) };
        if let Some(k) = ask_index(head) {
            return (Stmt::Expr(self.suspension(head, k), None), true);
        }
        // A loop whose body suspends may not loop in this arm (it loops in the arm that resumes in it).
        let looping = matches!(head, Expr::Loop(_) | Expr::While(_) | Expr::ForLoop(_));
        *head = self.forward_construct(head);
        let diverged = stmt_diverges(&s);
        if diverged && let Stmt::Local(local) = &s {
            // Its pattern would bind nothing: keep the initialiser only (no unused bindings in this arm).
            if let Some(init) = &local.init {
                s = Stmt::Expr((*init.expr).clone(), Some(Default::default()));
            }
        }
        if looping {
            allow_never_loop(&mut s);
        }
        (s, diverged)
    }

    /// An expression that stands like a statement (a match arm's body, an `else` branch) on the way forward.
    fn forward_expr(&self, e: &Expr) -> Expr {
        if self.lower.is_none() || !suspends(e) {
            return e.clone();
        }
        let mut e = e.clone();
        let Some(head) = head_mut(&mut e) else { return e };
        if let Some(k) = ask_index(head) {
            return self.suspension(head, k);
        }
        *head = self.forward_construct(head);
        e
    }

    /// A construct whose blocks suspend, on the way forward (its condition, scrutinee or iterator doesn't).
    fn forward_construct(&self, e: &Expr) -> Expr {
        let mut e = e.clone();
        match &mut e {
            Expr::Block(x) => {
                x.block = self.forward_block(&x.block);
                x.label = live_label(&x.label, &x.block);
            }
            Expr::Unsafe(x) => x.block = self.forward_block(&x.block),
            Expr::If(x) => {
                x.then_branch = self.forward_block(&x.then_branch);
                if let Some((_, els)) = &mut x.else_branch {
                    **els = self.forward_expr(els);
                }
            }
            Expr::Match(x) => {
                for arm in &mut x.arms {
                    *arm.body = self.forward_expr(&arm.body);
                }
            }
            Expr::Loop(x) => {
                x.body = self.forward_block(&x.body);
                x.label = live_label(&x.label, &x.body);
            }
            Expr::While(x) => {
                x.body = self.forward_block(&x.body);
                x.label = live_label(&x.label, &x.body);
            }
            Expr::ForLoop(x) if for_index(&x.attrs).is_some() => return self.materialize(x),
            _ => {}
        }
        e
    }

    /// A `for` loop whose body suspends: its iterator is collected into a queue the suspensions carry.
    fn materialize(&self, f: &ExprForLoop) -> Expr {
        let queue = for_queue(for_index(&f.attrs).unwrap_or(0));
        let ExprForLoop { label, pat, expr, body, .. } = f;
        let body = self.forward_block(body);
        let label = live_label(label, &body);
        let span = expr.span();
        let collect = quote_spanned! {span=>
            let mut #queue: ::std::collections::VecDeque<_> = ::core::iter::IntoIterator::into_iter(#expr).collect();
        };
        expr_block(quote! {
            #collect
            #label while let ::core::option::Option::Some(#pat) = #queue.pop_front() #body
        })
    }

    fn resume_block(&self, b: &Block, k: usize) -> Block {
        let Some(i) = b.stmts.iter().position(|s| stmt_contains(s, k)) else { return b.clone() };
        // Items are visible in the whole block, so the continuation keeps the ones before the ask.
        let mut stmts: Vec<Stmt> = b.stmts[..i].iter().filter(|s| matches!(s, Stmt::Item(_))).cloned().collect();
        let mut s = b.stmts[i].clone();
        if let Some(e) = stmt_expr_mut(&mut s) {
            self.resume_in(e, k);
        }
        let mut diverged = stmt_diverges(&s);
        stmts.push(s);
        let mut rest = b.stmts[i + 1..].iter();
        while !diverged {
            let Some(s) = rest.next() else { break };
            let (s, d) = self.forward_stmt(s);
            stmts.push(s);
            diverged = d;
        }
        finish(stmts, rest, b)
    }

    /// Rewrites `e`, which holds ask `k`, into what runs once ask `k` is answered.
    fn resume_in(&self, e: &mut Expr, k: usize) {
        if ask_index(e) == Some(k) {
            *e = self.answer(e, k);
            return;
        }
        match e {
            Expr::Block(x) => {
                x.block = self.resume_block(&x.block, k);
                x.label = live_label(&x.label, &x.block);
            }
            Expr::Unsafe(x) => x.block = self.resume_block(&x.block, k),
            Expr::If(x) => {
                if contains(&x.cond, k) {
                    self.resume_in(&mut x.cond, k);
                    x.then_branch = self.forward_block(&x.then_branch);
                    if let Some((_, els)) = &mut x.else_branch {
                        **els = self.forward_expr(els);
                    }
                } else if block_contains(&x.then_branch, k) {
                    *e = Expr::Block(ExprBlock {
                        attrs: Vec::new(),
                        label: None,
                        block: self.resume_block(&x.then_branch, k),
                    });
                } else if let Some((_, els)) = &mut x.else_branch {
                    let mut els = (**els).clone();
                    self.resume_in(&mut els, k);
                    *e = els;
                }
            }
            Expr::Match(x) => {
                if contains(&x.expr, k) {
                    self.resume_in(&mut x.expr, k);
                    for arm in &mut x.arms {
                        *arm.body = self.forward_expr(&arm.body);
                    }
                } else if let Some(arm) = x.arms.iter().find(|arm| contains(&arm.body, k)) {
                    let mut body = (*arm.body).clone();
                    self.resume_in(&mut body, k);
                    *e = body;
                }
            }
            Expr::Loop(x) => {
                let resumed = self.resume_block(&x.body, k);
                let next = self.forward_block(&x.body);
                *e = reentry(&x.label, resumed, quote!(#next));
            }
            Expr::While(x) => {
                // `while c { b }` is `loop { if c { b } else { break } }`, and resumes so.
                let (cond, body) = (&x.cond, &x.body);
                let iteration: Expr = syn::parse_quote!(if #cond #body else { break; });
                let resumed = if contains(cond, k) {
                    let mut resumed = iteration.clone();
                    self.resume_in(&mut resumed, k);
                    syn::parse_quote!({ #resumed })
                } else {
                    self.resume_block(body, k)
                };
                let next = self.forward_expr(&iteration);
                *e = reentry(&x.label, resumed, quote!({ #next }));
            }
            Expr::ForLoop(x) => {
                if contains(&x.expr, k) {
                    self.resume_in(&mut x.expr, k);
                    if self.lower.is_some() && for_index(&x.attrs).is_some() {
                        *e = self.materialize(x);
                    }
                } else {
                    let queue = for_queue(for_index(&x.attrs).unwrap_or(0));
                    let resumed = self.resume_block(&x.body, k);
                    let pat = &x.pat;
                    let body = self.forward_block(&x.body);
                    let next = quote!({
                        if let ::core::option::Option::Some(#pat) = #queue.pop_front() #body else { break; }
                    });
                    *e = reentry(&x.label, resumed, next);
                }
            }
            _ => {
                if let Some(op) = operands_mut(e).into_iter().find(|op| contains(op, k)) {
                    self.resume_in(op, k);
                }
            }
        }
    }

    /// The diverging block an ask's statement becomes on the way forward.
    fn suspension(&self, ask: &Expr, k: usize) -> Expr {
        let (Some(lower), Some((builder, span))) = (self.lower, ask_parts(ask)) else { return unit() };
        lower.suspend(k, &key_of(ask, k), builder, span)
    }

    /// What stands in place of ask `k`'s `.ask().await` in the arm that resumes there.
    fn answer(&self, ask: &Expr, k: usize) -> Expr {
        let (Some(lower), Some((_, span))) = (self.lower, ask_parts(ask)) else { return unit() };
        lower.answer(k, &key_of(ask, k), span)
    }
}

/// A block of the kept statements; the items among the dropped ones are kept too (first: an item is visible
/// in its whole block). A block holding a suspension point is copied into several arms, and an item of it
/// may be used in some copies only: those copies are allowed to be unused.
fn finish<'a>(mut stmts: Vec<Stmt>, rest: impl Iterator<Item = &'a Stmt>, b: &Block) -> Block {
    let items: Vec<Stmt> = rest.filter(|s| matches!(s, Stmt::Item(_))).cloned().collect();
    if !items.is_empty() {
        stmts.splice(0..0, items);
    }
    for s in &mut stmts {
        if let Stmt::Item(item) = s {
            allow_unused(item);
        }
    }
    Block { brace_token: b.brace_token, stmts }
}

fn allow_unused(item: &mut syn::Item) {
    let allow: syn::Attribute = syn::parse_quote!(#[allow(dead_code, unused_imports, unused_macros)]);
    let attrs = match item {
        syn::Item::Const(i) => &mut i.attrs,
        syn::Item::Enum(i) => &mut i.attrs,
        syn::Item::Fn(i) => &mut i.attrs,
        syn::Item::Impl(i) => &mut i.attrs,
        syn::Item::Macro(i) => &mut i.attrs,
        syn::Item::Mod(i) => &mut i.attrs,
        syn::Item::Static(i) => &mut i.attrs,
        syn::Item::Struct(i) => &mut i.attrs,
        syn::Item::Trait(i) => &mut i.attrs,
        syn::Item::Type(i) => &mut i.attrs,
        syn::Item::Union(i) => &mut i.attrs,
        syn::Item::Use(i) => &mut i.attrs,
        _ => return,
    };
    attrs.push(allow);
}

fn allow_never_loop(s: &mut Stmt) {
    let allow: syn::Attribute = syn::parse_quote!(#[allow(clippy::never_loop)]);
    match s {
        Stmt::Local(local) => local.attrs.push(allow),
        Stmt::Expr(e, _) => match e {
            Expr::Loop(x) => x.attrs.push(allow),
            Expr::While(x) => x.attrs.push(allow),
            Expr::ForLoop(x) => x.attrs.push(allow),
            Expr::Block(x) => x.attrs.push(allow),
            _ => {}
        },
        _ => {}
    }
}

/// The label, if the (rewritten) block still uses it.
fn live_label(label: &Option<Label>, block: &Block) -> Option<Label> {
    label.as_ref().filter(|l| uses_label(block, l)).cloned()
}

/// A loop entered again, its first iteration being the rest of the interrupted one.
fn reentry(label: &Option<Label>, resumed: Block, next: TokenStream) -> Expr {
    let body: Block = syn::parse_quote!({ #resumed #next });
    let label = live_label(label, &body);
    expr_block(quote! {
        let mut __fastmcp_resuming = true;
        #label loop {
            if ::core::mem::replace(&mut __fastmcp_resuming, false) #resumed else #next
        }
    })
}

fn expr_block(stmts: TokenStream) -> Expr {
    syn::parse2(quote!({ #stmts })).unwrap_or_else(|_| Expr::Verbatim(quote!({ #stmts })))
}

//! Step 1: find the suspension points, only in the fn's own control flow (async-stream's discipline).
//!
//! [`mark`] walks the places an `.ask().await` can be compiled into a resumable step and marks each ask it
//! finds there with its index; [`report_unmarked`] then reports every ask left unmarked, spanned on it, with
//! what is wrong with its place: a closure, a nested `async` block, a nested fn, a macro call, or a position
//! in its statement that is not evaluated first.

use super::syntax::{block_suspends, is_ask, is_inert, mark_ask, mark_for};
use crate::ctxt::Ctxt;
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::visit::{self, Visit};
use syn::{Block, Expr, Item, Stmt};

/// Where `.ask()` may stand, for messages.
pub const WHERE: &str = "`.ask().await` must be the first thing a statement of the handler evaluates: a `let` \
initialiser, an expression statement or the condition of an `if`/`while`, in the fn's body or in a block of \
an if/else, a match arm, or a loop/while/for body that stands as a statement";

/// Counts of what [`mark`] marked.
#[derive(Default)]
pub struct Marks {
    pub asks: usize,
    pub fors: usize,
}

/// Marks every ask the lowering can compile (in source order, from 1) and every `for` loop whose body
/// suspends (from 0).
pub fn mark(body: &mut Block) -> Marks {
    let mut marks = Marks::default();
    marks.block(body);
    marks
}

/// Where an expression stands in its statement.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pos {
    /// Evaluated before anything else of the statement (a path callee like `Ok` aside): an ask, or a block
    /// that holds asks, may stand here.
    First,
    /// Evaluated after inert operands (`answers.push(..)`, `f(x, ..)`): an ask may stand here, but not a
    /// block holding asks, since the operands before it are evaluated on the way to a suspension in there.
    AfterInert,
}

impl Marks {
    fn block(&mut self, block: &mut Block) {
        for stmt in &mut block.stmts {
            match stmt {
                Stmt::Local(local) => {
                    if let Some(init) = &mut local.init {
                        self.head(&mut init.expr, Pos::First);
                    }
                }
                Stmt::Expr(e, _) => self.head(e, Pos::First),
                Stmt::Item(_) | Stmt::Macro(_) => {}
            }
        }
    }

    /// Follows the operands a statement evaluates first, down to an ask or into a construct.
    fn head(&mut self, e: &mut Expr, pos: Pos) {
        if is_ask(e) {
            self.asks += 1;
            mark_ask(e, self.asks);
            return;
        }
        let first = pos == Pos::First;
        match e {
            Expr::Block(x) if first => self.block(&mut x.block),
            Expr::Unsafe(x) if first => self.block(&mut x.block),
            Expr::If(x) if first => {
                self.head(&mut x.cond, Pos::First);
                self.block(&mut x.then_branch);
                if let Some((_, els)) = &mut x.else_branch {
                    self.head(els, Pos::First);
                }
            }
            Expr::Match(x) if first => {
                self.head(&mut x.expr, Pos::First);
                for arm in &mut x.arms {
                    self.head(&mut arm.body, Pos::First);
                }
            }
            Expr::Loop(x) if first => self.block(&mut x.body),
            Expr::While(x) if first => {
                self.head(&mut x.cond, Pos::First);
                self.block(&mut x.body);
            }
            Expr::ForLoop(x) if first => {
                self.head(&mut x.expr, Pos::First);
                self.block(&mut x.body);
                if block_suspends(&x.body) {
                    mark_for(e, self.fors);
                    self.fors += 1;
                }
            }
            Expr::Try(x) => self.head(&mut x.expr, pos),
            Expr::Await(x) => self.head(&mut x.base, pos),
            Expr::Field(x) => self.head(&mut x.base, pos),
            Expr::Paren(x) => self.head(&mut x.expr, pos),
            Expr::Group(x) => self.head(&mut x.expr, pos),
            Expr::Cast(x) => self.head(&mut x.expr, pos),
            Expr::Unary(x) => self.head(&mut x.expr, pos),
            Expr::Reference(x) => self.head(&mut x.expr, pos),
            Expr::Let(x) => self.head(&mut x.expr, pos),
            Expr::Assign(x) => self.head(&mut x.right, pos),
            Expr::Return(x) => {
                if let Some(e) = &mut x.expr {
                    self.head(e, pos);
                }
            }
            Expr::Break(x) => {
                if let Some(e) = &mut x.expr {
                    self.head(e, pos);
                }
            }
            Expr::MethodCall(x) => {
                if is_inert(&x.receiver) {
                    self.after_inert(x.args.iter_mut());
                } else {
                    self.head(&mut x.receiver, pos);
                }
            }
            Expr::Call(x) => {
                if matches!(&*x.func, Expr::Path(_)) {
                    let mut args = x.args.iter_mut();
                    if let Some(arg) = args.next() {
                        let inert = is_inert(arg);
                        self.head(arg, pos);
                        if inert {
                            self.after_inert(args);
                        }
                    }
                } else {
                    self.head(&mut x.func, pos);
                }
            }
            Expr::Binary(x) => {
                if is_inert(&x.left) {
                    self.head(&mut x.right, Pos::AfterInert);
                } else {
                    self.head(&mut x.left, pos);
                }
            }
            Expr::Index(x) => {
                if is_inert(&x.expr) {
                    self.head(&mut x.index, Pos::AfterInert);
                } else {
                    self.head(&mut x.expr, pos);
                }
            }
            Expr::Tuple(x) => self.operands(x.elems.iter_mut(), pos),
            Expr::Array(x) => self.operands(x.elems.iter_mut(), pos),
            Expr::Struct(x) => self.operands(x.fields.iter_mut().map(|f| &mut f.expr), pos),
            _ => {}
        }
    }

    /// Operands evaluated in order: the first one like its parent, the next ones after inert ones.
    fn operands<'a>(&mut self, mut ops: impl Iterator<Item = &'a mut Expr>, pos: Pos) {
        if let Some(first) = ops.next() {
            let inert = is_inert(first);
            self.head(first, pos);
            if inert {
                self.after_inert(ops);
            }
        }
    }

    fn after_inert<'a>(&mut self, ops: impl Iterator<Item = &'a mut Expr>) {
        for op in ops {
            let inert = is_inert(op);
            self.head(op, Pos::AfterInert);
            if !inert {
                break;
            }
        }
    }
}

/// Where an unmarked ask is.
#[derive(Clone, Copy)]
enum Context {
    Own,
    Closure,
    Async,
    Item,
}

/// Reports every `.ask().await` [`mark`] left unmarked, each spanned on its `ask`.
pub fn report_unmarked(cx: &Ctxt, body: &Block, attr: &str) {
    let mut r = Report { cx, attr, context: Context::Own };
    r.visit_block(body);
}

struct Report<'c> {
    cx: &'c Ctxt,
    attr: &'c str,
    context: Context,
}

impl Report<'_> {
    fn nested(&mut self, context: Context, f: impl FnOnce(&mut Self)) {
        let outer = std::mem::replace(&mut self.context, context);
        f(self);
        self.context = outer;
    }

    fn message(&self) -> String {
        let attr = self.attr;
        match self.context {
            Context::Own => format!(
                "`.ask().await` can't be compiled into a resumable step here: {WHERE}; bind the answer first: `let answer = ....ask().await?;`"
            ),
            Context::Closure => format!(
                "`.ask().await` can't stand inside a closure: only the {attr} fn's own body is compiled into resumable steps; ask in the fn's body and use the answer in the closure"
            ),
            Context::Async => format!(
                "`.ask().await` can't stand inside a nested `async` block or closure: only the {attr} fn's own body is compiled into resumable steps; ask in the fn's body itself"
            ),
            Context::Item => format!(
                "`.ask().await` can't stand inside a nested fn: only the {attr} fn's own body is compiled into resumable steps; ask in the handler and pass the answer in"
            ),
        }
    }
}

impl<'a> Visit<'a> for Report<'_> {
    fn visit_expr_await(&mut self, a: &'a syn::ExprAwait) {
        let e = Expr::Await(a.clone());
        if let Some((_, span)) = super::syntax::ask_parts(&e)
            && !super::syntax::is_marked_await(a)
        {
            self.cx.error_at(span, self.message());
        }
        if let Some(key) = super::syntax::ask_key(&e) {
            let value = key.value();
            if value.is_empty() || value.contains('/') {
                self.cx.error_at(
                    key.span(),
                    "an `.ask_as` key is a non-empty string without `/` (`/` separates a sub-flow's keys)",
                );
            }
        }
        visit::visit_expr_await(self, a);
    }

    fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
        let context = if c.asyncness.is_some() { Context::Async } else { Context::Closure };
        self.nested(context, |r| visit::visit_expr_closure(r, c));
    }

    fn visit_expr_async(&mut self, a: &'a syn::ExprAsync) {
        self.nested(Context::Async, |r| visit::visit_expr_async(r, a));
    }

    fn visit_expr_const(&mut self, c: &'a syn::ExprConst) {
        self.nested(Context::Item, |r| visit::visit_expr_const(r, c));
    }

    fn visit_item(&mut self, item: &'a Item) {
        // A nested handler is compiled by its own macro.
        if let Item::Fn(f) = item
            && f.attrs.iter().any(|a| ["tool", "prompt", "resource", "elicit"].iter().any(|m| a.path().is_ident(m)))
        {
            return;
        }
        self.nested(Context::Item, |r| visit::visit_item(r, item));
    }

    fn visit_macro(&mut self, mac: &'a syn::Macro) {
        for span in asks_in_tokens(mac.tokens.clone()) {
            let name = mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            self.cx.error_at(
                span,
                format!(
                    "`.ask().await` can't stand inside a macro call (`{name}!`): bind the answer with `let answer = ....ask().await?;` first, then use `answer`"
                ),
            );
        }
    }
}

/// The spans of `ask` in every `. ask ( ) . await` of a token stream (a macro's arguments).
fn asks_in_tokens(tokens: TokenStream) -> Vec<Span> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut found = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Group(g) => found.extend(asks_in_tokens(g.stream())),
            TokenTree::Ident(id) if id == "ask" || id == "ask_as" => {
                let rest = &tokens[i + 1..];
                let named = id == "ask_as";
                let called = matches!(rest.first(), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis && g.stream().is_empty() != named);
                let dot = matches!(rest.get(1), Some(TokenTree::Punct(p)) if p.as_char() == '.');
                let awaited = matches!(rest.get(2), Some(TokenTree::Ident(a)) if a == "await");
                if called && dot && awaited {
                    found.push(id.span());
                }
            }
            _ => {}
        }
    }
    found
}

/// Whether the fn's body tokens hold an `.ask().await` anywhere, so the macro parses the body at all.
pub fn has_ask(tokens: TokenStream) -> bool {
    !asks_in_tokens(tokens).is_empty()
}

/// Where the body calls `run_as_task()` (the point a tool's call becomes a task; `fastmcp::flow`), by name:
/// the runtime must know before the first round whether the body places that point itself.
pub fn task_step(tokens: TokenStream) -> Option<Span> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    tokens.iter().enumerate().find_map(|(i, token)| match token {
        TokenTree::Group(g) => task_step(g.stream()),
        TokenTree::Ident(id) if id == "run_as_task" => {
            let called =
                matches!(tokens.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis);
            called.then(|| id.span())
        }
        _ => None,
    })
}

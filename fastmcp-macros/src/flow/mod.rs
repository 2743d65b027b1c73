//! The analysis of a handler body that asks: its suspension points, the locals each one carries, and its
//! segments, one per step of the resumable state machine (DESIGN.md §3.1). It reads the fn and writes no
//! runtime path: what a suspension point becomes in code is `expand`'s (through [`segment::Lower`]).
//!
//! - [`forgotten`] reports a question for the client awaited without `.ask()`, and puts the `.ask()` in.
//! - [`find`] marks each `.ask().await` in the fn's own control flow where it can be compiled, and reports
//!   the others (step 1).
//! - [`segment`] cuts the body into one arm per step (step 2).
//! - [`scope`] finds the locals in scope at each ask; the ones the ask's continuation reads are carried
//!   (step 3).
//!
//! A fn without `.ask()` has no [`Flow`] and expands exactly as it would without this module.

pub mod find;
pub mod forgotten;
pub mod scope;
pub mod segment;
pub mod syntax;

use crate::ctxt::Ctxt;
use crate::model::{Handler, Param, ParamKind};
use proc_macro2::Span;
use quote::ToTokens;
use scope::{Local, LocalId, LocalKind};
use segment::Segmenter;
use syn::{Block, Ident};

/// A handler body with suspension points.
pub struct Flow {
    /// The body's own items (nested fns, `use`s, ...): emitted once, ahead of the steps, since an item is
    /// visible in its whole block anyway.
    pub items: Vec<syn::Stmt>,
    /// The body as written without those items, with the asks and suspending `for` loops marked.
    pub body: Block,
    /// Ask k is `asks[k - 1]`.
    pub asks: Vec<AskSite>,
    /// Every local of the body (and the parameters), indexed by [`LocalId`].
    pub locals: Vec<Local>,
}

pub struct AskSite {
    /// The locals carried to the arm that resumes here, in declaration order.
    pub carried: Vec<LocalId>,
    /// Locals bound to a literal that the resuming arm binds again instead of carrying.
    pub literals: Vec<LocalId>,
    /// Locals the resuming arm assigns before reading: declared there, uninitialised, not carried.
    pub declared: Vec<LocalId>,
}

impl Flow {
    /// The flow of the handler's body; `None` when it has no `.ask().await`, or doesn't parse (then rustc
    /// reports the syntax error).
    pub fn new(cx: &Ctxt, h: &Handler) -> Option<Flow> {
        let tokens = h.item.body.to_token_stream();
        if !find::has_ask(tokens.clone()) {
            return None;
        }
        let mut body: Block = syn::parse2(tokens).ok()?;
        let marks = find::mark(&mut body);
        find::report_unmarked(cx, &body, h.kind.attr());
        if marks.asks == 0 {
            return None;
        }
        let scopes = scope::in_scope(param_locals(&h.params), &body, marks.asks);
        let asks = (1..=marks.asks)
            .map(|k| {
                let continuation = Segmenter::plain().resume(&body, k);
                let uses = scope::uses(&continuation);
                let named = |id: LocalId, names: &std::collections::BTreeSet<String>| {
                    names.contains(&scopes.locals[id].ident.to_string())
                };
                let in_scope = &scopes.at_ask[k - 1];
                let live: Vec<LocalId> = in_scope
                    .iter()
                    .copied()
                    .filter(|&id| named(id, &uses.reads) && travels(&scopes.locals[id]))
                    .collect();
                let (literals, carried) = live
                    .into_iter()
                    .partition(|&id| matches!(scopes.locals[id].kind, LocalKind::Binding { literal: Some(_), .. }));
                let declared = in_scope
                    .iter()
                    .copied()
                    .filter(|&id| named(id, &uses.writes) && !named(id, &uses.reads))
                    .filter(|&id| matches!(scopes.locals[id].kind, LocalKind::Binding { .. }))
                    .collect();
                AskSite { carried, literals, declared }
            })
            .collect();
        let (items, stmts) = body.stmts.into_iter().partition(|s| matches!(s, syn::Stmt::Item(_)));
        body.stmts = stmts;
        Some(Flow { items, body, asks, locals: scopes.locals })
    }

    /// The witness of a carried local, named after it: `__fastmcp_carry_plan` (with the local's id when two
    /// carried locals share a name).
    pub fn witness(&self, id: LocalId) -> Ident {
        let base = |id: LocalId| {
            let name = self.locals[id].ident.to_string();
            name.trim_start_matches("r#").trim_start_matches("__fastmcp_").to_owned()
        };
        let name = base(id);
        let shared = self.carried_locals().into_iter().any(|other| other != id && base(other) == name);
        let name = if shared { format!("__fastmcp_carry_{name}_{id}") } else { format!("__fastmcp_carry_{name}") };
        Ident::new(&name, Span::call_site())
    }

    /// Every local some ask carries, once, in declaration order.
    pub fn carried_locals(&self) -> Vec<LocalId> {
        let mut ids: Vec<LocalId> = self.asks.iter().flat_map(|a| a.carried.iter().copied()).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

/// Parameters come again with every round, so only a `mut` one (it may have changed) travels; one the
/// runtime supplies is supplied again instead, as its type says (`Resumed`, in the expansion).
fn travels(local: &Local) -> bool {
    match local.kind {
        LocalKind::Param { .. } => local.mutable,
        _ => true,
    }
}

fn param_locals(params: &[Param]) -> Vec<Local> {
    params
        .iter()
        .flat_map(|p| {
            let whole = matches!(p.kind, ParamKind::Named(_));
            syntax::bindings(&p.pat).into_iter().map(move |(ident, _, mutable)| Local {
                span: ident.span(),
                ident,
                mutable,
                kind: LocalKind::Param { whole },
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::Flow;
    use crate::attr::{Kind, Options};
    use crate::ctxt::Ctxt;
    use crate::model::{Handler, ItemFn};

    /// The flow of a `#[tool]` fn, and the errors the model and the analysis report.
    fn flow(source: &str) -> (Option<Flow>, Vec<String>) {
        let cx = Ctxt::new();
        let item: ItemFn = syn::parse_str(source).expect("parses");
        let h = Handler::new(&cx, Kind::Tool, Options::default(), item);
        let flow = Flow::new(&cx, &h);
        let errors = match cx.check() {
            Ok(()) => vec![],
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        };
        (flow, errors)
    }

    /// Per ask: the carried locals, then the ones bound again from their literal.
    fn carried(source: &str) -> Vec<(Vec<String>, Vec<String>)> {
        let (flow, errors) = flow(source);
        assert!(errors.is_empty(), "{errors:?}");
        let flow = flow.expect("a flow");
        let names = |ids: &[usize]| ids.iter().map(|&id| flow.locals[id].ident.to_string()).collect::<Vec<_>>();
        flow.asks.iter().map(|a| (names(&a.carried), names(&a.literals))).collect()
    }

    fn only_carried(source: &str) -> Vec<Vec<String>> {
        carried(source).into_iter().map(|(c, _)| c).collect()
    }

    #[test]
    fn no_ask_no_flow() {
        let (flow, errors) = flow("async fn f(x: u32) -> u32 { let ask = x; ask }");
        assert!(flow.is_none() && errors.is_empty());
    }

    #[test]
    fn carries_what_the_continuation_reads() {
        let got = only_carried(
            "async fn f(service: String, mut n: u32, ctx: Context) -> R {
                let plan = format!(\"{service}\");
                let unused_later = 1u8;
                let _ = unused_later;
                n += 1;
                let a = A.ask().await?;
                let b = B::new(&plan).ask().await?;
                let _ = ctx;
                Ok(format!(\"{plan} {a} {} {n}\", b.x))
            }",
        );
        // `service` and `ctx` come again with every round; `mut n` may have changed, so it travels.
        assert_eq!(got, [vec!["n", "plan"], vec!["n", "plan", "a"]]);
    }

    #[test]
    fn shadowed_and_rebound_names_are_not_carried() {
        let got = only_carried(
            "async fn f() -> R {
                let plan = 1u32;
                let x = vec![plan];
                A.ask().await?;
                let plan = 2u32;
                let f = |x: u32| x + plan;
                Ok(f(3))
            }",
        );
        assert_eq!(got, [Vec::<String>::new()]);
    }

    #[test]
    fn literals_are_bound_again_not_carried() {
        let got = carried(
            "async fn f() -> R { let label = \"x\"; let n: i64 = -3; A.ask().await?; Ok(format!(\"{label}{n}\")) }",
        );
        assert_eq!(got, [(vec![], vec!["label".to_owned(), "n".to_owned()])]);
    }

    #[test]
    fn loops_carry_their_queue_and_loop_carried_locals() {
        let got = only_carried(
            "async fn f(qs: Vec<String>) -> R {
                let mut answers = Vec::new();
                let mut tries = 0;
                for q in qs {
                    tries += 1;
                    let a = A::new(q.clone()).ask().await?;
                    answers.push(a);
                }
                while tries > 0 {
                    tries -= 1;
                    let m = match tries { 0 => M.ask().await?, n => n };
                }
                Ok(answers)
            }",
        );
        assert_eq!(got, [vec!["answers", "tries", "__fastmcp_iter0"], vec!["answers", "tries"]]);
    }

    #[test]
    fn match_arm_bindings_are_carried() {
        let got = only_carried(
            "async fn f(k: String) -> R { match k.parse::<u32>() { Ok(n) => { A.ask().await?; Ok(n) } Err(e) => Err(e) } }",
        );
        assert_eq!(got, [vec!["n"]]);
    }

    #[test]
    fn where_asks_may_stand() {
        let ok = [
            "let a = A.ask().await?.b().c(x);",
            "A.ask().await?;",
            "answers.push(A.ask().await?);",
            "f(x, 1, A.ask().await?);",
            "let x = Ok(if c { A.ask().await? } else { 1 });",
            "if A.ask().await?.ok { B.ask().await?; }",
            "while let Some(x) = A.ask().await?.next() { B.ask().await?; }",
            "for x in A.ask().await? { B.ask().await?; }",
            "let y = 'l: { if c { break 'l 1; } A.ask().await? };",
            "total += A.ask().await?;",
            "x = match A.ask().await? { 1 => B.ask().await?, _ => 0 };",
            "return A.ask().await;",
        ];
        for stmt in ok {
            let (flow, errors) = flow(&format!("async fn f() -> R {{ {stmt} Ok(()) }}"));
            assert!(errors.is_empty() && flow.is_some(), "{stmt}: {errors:?}");
        }
        let bad = [
            ("let p = (g(), A.ask().await?);", "first thing a statement"),
            ("let n = g() + A.ask().await?;", "first thing a statement"),
            ("let n = x.f(if c { A.ask().await? } else { 0 });", "first thing a statement"),
            ("let n = A.ask().await?.f(B.ask().await?);", "first thing a statement"),
            ("match x { y if A.ask().await.is_ok() => {} _ => {} }", "first thing a statement"),
            ("let v = xs.iter().map(|x| A.ask().await);", "inside a closure"),
            ("let v = async { A.ask().await };", "nested `async` block"),
            ("fn g() { let _ = A.ask().await; }", "nested fn"),
            ("println!(\"{:?}\", A.ask().await);", "macro call (`println!`)"),
        ];
        for (stmt, why) in bad {
            let (_, errors) = flow(&format!("async fn f() -> R {{ {stmt} Ok(()) }}"));
            assert!(errors.len() == 1 && errors[0].contains(why), "{stmt}: {errors:?}");
        }
        // A handler declared inside compiles its own asks.
        let (_, errors) = flow("async fn f() -> R { #[tool] async fn g() -> R { A.ask().await } Ok(()) }");
        assert!(errors.is_empty(), "{errors:?}");
    }
}

//! The body of a handler that asks: its suspension points, the locals each one carries, and the lowering of
//! the body into a resumable state machine (DESIGN.md §3.1).
//!
//! - [`find`] marks each `.ask().await` in the fn's own control flow where it can be compiled, and reports
//!   the others (step 1).
//! - [`segment`] rewrites the body into one arm per step (step 2).
//! - [`scope`] finds the locals in scope at each ask; the ones the ask's continuation reads are carried
//!   (step 3).
//!
//! A fn without `.ask()` has no [`Flow`] and expands exactly as it would without this module.

pub mod find;
pub mod scope;
pub mod segment;
pub mod syntax;

use crate::ctxt::Ctxt;
use crate::model::{Kind, Param, ParamKind};
use proc_macro2::{Group, Span, TokenStream};
use syn::Ident;
use quote::ToTokens;
use scope::{Local, LocalId, LocalKind};
use segment::Segmenter;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr};

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
}

impl Flow {
    /// `None` when the body has no `.ask().await`, or doesn't parse (then rustc reports the syntax error).
    pub fn new(cx: &Ctxt, kind: Kind, params: &[Param], body: &Group) -> Option<Flow> {
        let tokens = body.to_token_stream();
        if !find::has_ask(tokens.clone()) {
            return None;
        }
        let mut body: Block = syn::parse2(tokens).ok()?;
        let marks = find::mark(&mut body);
        find::report_unmarked(cx, &body, kind.attr());
        if marks.asks == 0 {
            return None;
        }
        let scopes = scope::in_scope(param_locals(params), &body, marks.asks);
        let asks = (1..=marks.asks)
            .map(|k| {
                let continuation = Segmenter::plain().resume(&body, k);
                let reads = scope::free_names(&continuation);
                let live: Vec<LocalId> = scopes.at_ask[k - 1]
                    .iter()
                    .copied()
                    .filter(|&id| reads.contains(&scopes.locals[id].ident.to_string()))
                    .filter(|&id| travels(&scopes.locals[id]))
                    .collect();
                let (literals, carried) = live.into_iter().partition(|&id| {
                    matches!(scopes.locals[id].kind, LocalKind::Binding { literal: Some(_), .. })
                });
                AskSite { carried, literals }
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

/// Parameters come again with every round, so only a `mut` one (it may have changed) travels.
fn travels(local: &Local) -> bool {
    match local.kind {
        LocalKind::Param { context } => local.mutable && !context,
        _ => true,
    }
}

fn param_locals(params: &[Param]) -> Vec<Local> {
    params
        .iter()
        .flat_map(|p| {
            let context = matches!(p.kind, ParamKind::Context { .. });
            syntax::bindings(&p.pat).into_iter().map(move |(ident, _, mutable)| Local {
                span: ident.span(),
                ident,
                mutable,
                kind: LocalKind::Param { context },
            })
        })
        .collect()
}

/// The body with every `.ask().await` replaced by a call that type-checks, for the copy of the fn emitted
/// next to compile errors (so each ask doesn't add an error of its own). `None` if there is nothing to replace.
pub fn unlowered_body(body: &Group) -> Option<TokenStream> {
    let tokens = body.to_token_stream();
    if !find::has_ask(tokens.clone()) {
        return None;
    }
    let mut block: Block = syn::parse2(tokens).ok()?;
    struct Replace;
    impl VisitMut for Replace {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            visit_mut::visit_expr_mut(self, e);
            if let Some((builder, span)) = syntax::ask_parts(e) {
                let p = crate::expand::private();
                *e = syn::parse_quote_spanned!(span=> #p::Slot::unlowered(#builder));
            }
        }
    }
    Replace.visit_block_mut(&mut block);
    Some(block.to_token_stream())
}

/// FNV-1a, 64 bits: the fingerprint of a flow's tokens, stable across builds of the same source.
pub fn fingerprint(tokens: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in tokens.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::fingerprint;

    #[test]
    fn fnv1a_reference_values() {
        assert_eq!(fingerprint(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fingerprint("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fingerprint("foobar"), 0x85944171f73967e8);
    }
}

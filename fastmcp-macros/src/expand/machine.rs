//! The state machine of a handler that asks (DESIGN.md §3.1, steps 4 to 7).
//!
//! The user's fn becomes a hidden `async fn __fastmcp_machine` with the same parameters and return type, plus
//! the round's slot and resume; `?` and `return` keep their meaning. Its body declares one witness per ask
//! (`__fastmcp_a{k}`, `None` and typed by inference from the arm that suspends there: the ask's type, which
//! decodes its answer) and one per carried local (`__fastmcp_carry_{name}`, built by `carried()`: the one
//! check that the local can travel, and its encoder and decoder), then dispatches on the step: arm 0 runs from
//! the start, arm k restores what ask k carried and runs on from its answer. The handler's `call` (or `get`,
//! or `read`) drives one round of it: `Step::Suspend` passes through, `Step::Complete` is converted as usual.

use super::private;
use crate::flow::scope::LocalKind;
use crate::flow::segment::{Lower, Segmenter};
use crate::flow::{Flow, find, syntax};
use crate::model::Handler;
use proc_macro2::{Group, Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, FnArg, Ident, LitInt};

/// The round's slot, which the body's suspensions fill and the driver reads.
pub fn slot() -> Ident {
    Ident::new("__fastmcp_slot", Span::call_site())
}

/// The witness of ask `k`: typed by the arm that suspends there, it decodes the answer where the next resumes.
fn ask_witness(k: usize) -> Ident {
    format_ident!("__fastmcp_a{}", k)
}

/// The runtime's side of each suspension point of one flow.
struct Lowering<'f> {
    flow: &'f Flow,
}

impl Lower for Lowering<'_> {
    fn suspend(&self, k: usize, key: &str, builder: &Expr, span: Span) -> Expr {
        let flow = self.flow;
        let site = &flow.asks[k - 1];
        let p = private();
        let slot = slot();
        // `&mut` for a `mut` local: it counts as a mutable use, so `let mut` isn't unused in this arm.
        let carries = site.carried.iter().map(|&id| {
            let local = &flow.locals[id];
            let witness = flow.witness(id);
            let name = &local.ident;
            let value = match local.mutable {
                true => quote!(&mut #name),
                false => quote!(&#name),
            };
            match local.kind {
                // A parameter carries what its type says (nothing, for what the runtime supplies).
                LocalKind::Param { whole: true } => {
                    quote_spanned!(local.span=> #witness.carry(#p::Resumed::travels(#value)))
                }
                _ => quote!(#witness.carry(#value)),
            }
        });
        // Bound again where the round resumes: read here, so the binding isn't unused in this arm.
        let literals = site.literals.iter().chain(&site.declared).map(|&id| &flow.locals[id].ident);
        let a = ask_witness(k);
        let step = LitInt::new(&k.to_string(), span);
        let block = quote_spanned! {span=>
            let __fastmcp_ask = #builder;
            #(let _ = &#literals;)*
            #a = #p::witness(&__fastmcp_ask);
            match #p::suspend(#slot, #step, #key, __fastmcp_ask, [#(#carries),*]).await {}
        };
        syn::parse2(quote!({ #block })).unwrap_or_else(|_| Expr::Verbatim(quote!({ #block })))
    }

    fn answer(&self, k: usize, key: &str, span: Span) -> Expr {
        let p = private();
        let slot = slot();
        let a = ask_witness(k);
        syn::parse_quote_spanned!(span=> #p::answer(#slot, &#a, #key, &mut __fastmcp_responses).await)
    }
}

/// The hidden fn the body is compiled into, as an inherent associated fn of the handler's unit struct.
pub fn machine_fn(h: &Handler, flow: &Flow) -> TokenStream {
    machine_fn_of(h, flow, &h.item.sig.ident)
}

/// The same, as an inherent associated fn of `ident` (a sub-flow's arguments struct).
pub fn machine_fn_of(h: &Handler, flow: &Flow, ident: &Ident) -> TokenStream {
    let p = private();
    let slot = slot();
    let mut sig = h.item.sig.clone();
    super::strip_param_attrs(&mut sig);
    sig.ident = Ident::new("__fastmcp_machine", h.item.sig.ident.span());
    let extra: [FnArg; 2] =
        [syn::parse_quote!(#slot: &#p::Slot), syn::parse_quote!(__fastmcp_resume: ::core::option::Option<#p::Resume>)];
    sig.inputs.extend(extra);
    let attrs = h.item.attrs.iter().filter(|a| !a.path().is_ident("doc") && !a.path().is_ident("cfg"));

    let asks = (1..=flow.asks.len()).map(ask_witness);
    let carried = flow.carried_locals();
    // Every token of a local's witness on the local's binding: rustc reports there a local that can't
    // travel (the `Carried` bound of `carried()`), once.
    let locals = carried.iter().map(|&id| {
        let span = flow.locals[id].span;
        let witness = Ident::new(&flow.witness(id).to_string(), span);
        quote_spanned!(span=> let #witness = ::fastmcp::__private::carried();)
    });
    let locals_binding = if carried.is_empty() { quote!(_) } else { quote!(__fastmcp_locals) };

    let items = &flow.items;
    let lowering = Lowering { flow };
    let lower = Segmenter::lower(&lowering);
    let start = lower.start(&flow.body);
    let arms = flow.asks.iter().enumerate().map(|(i, site)| {
        let k = i + 1;
        let step = LitInt::new(&k.to_string(), Span::call_site());
        let open = (!site.carried.is_empty())
            .then(|| quote!(let mut __fastmcp_carried = #p::restore(#slot, &__fastmcp_locals).await;));
        let restores = site.carried.iter().map(|&id| {
            let local = &flow.locals[id];
            let name = &local.ident;
            let witness = flow.witness(id);
            let taken = quote!(__fastmcp_carried.take(#slot, &#witness).await);
            // A parameter is what travelled, or (supplied by the runtime) the one this round was given.
            let value = match local.kind {
                LocalKind::Param { whole: true } => quote_spanned!(local.span=> #p::Resumed::resume(#taken, #name)),
                _ => taken,
            };
            match local.mutable {
                true => quote! {
                    #[allow(unused_mut)]
                    let mut #name = #value;
                },
                false => quote!(let #name = #value;),
            }
        });
        let literals = site.literals.iter().filter_map(|&id| {
            let local = &flow.locals[id];
            let LocalKind::Binding { literal: Some(literal), .. } = &local.kind else { return None };
            let (ty, lit) = &**literal;
            let name = &local.ident;
            let ty = ty.as_ref().map(|ty| quote!(: #ty));
            Some(quote!(let #name #ty = #lit;))
        });
        let declared = site.declared.iter().map(|&id| {
            let local = &flow.locals[id];
            let name = &local.ident;
            let ty = match &local.kind {
                LocalKind::Binding { ty: Some(ty), .. } => Some(quote!(: #ty)),
                _ => None,
            };
            quote! {
                #[allow(unused_mut)]
                let mut #name #ty;
            }
        });
        let stmts = lower.resume(&flow.body, k).stmts;
        quote! {
            #step => {
                #open
                #(#restores)*
                #(#literals)*
                #(#declared)*
                #(#stmts)*
            }
        }
    });

    quote! {
        impl #ident {
            #(#attrs)*
            #[doc(hidden)]
            #sig {
                #(#items)*
                #(let mut #asks = ::core::option::Option::None;)*
                #(#locals)*
                let (__fastmcp_step, #locals_binding, mut __fastmcp_responses) = #p::resume_parts(__fastmcp_resume);
                match __fastmcp_step {
                    0 => #start
                    #(#arms)*
                    _ => match #slot.unknown_step(__fastmcp_step).await {},
                }
            }
        }
    }
}

/// One round of the machine, inside the handler's future: `source` is the call (get, read) the resume is
/// taken from, `reads` the statements that bind the machine's arguments `args` from it, `complete` what a
/// complete step's output `__fastmcp_out` becomes (a `HandlerResult`).
///
/// A body that reaches a sub-flow stops with `Pass::Again` and runs again at once from there, in the same
/// round: the loop binds the arguments afresh (the body consumed them) and passes the resume on.
pub fn run_round(
    h: &Handler,
    source: &Ident,
    reads: TokenStream,
    args: &[TokenStream],
    complete: TokenStream,
) -> TokenStream {
    let p = private();
    let ident = &h.item.sig.ident;
    // The `Send` bound of `drive`, the whole call spanned on the fn's name: a body that isn't `Send` is
    // reported there (axum's `check_future_send`), with rustc's note on what is held across which await.
    let span = ident.span();
    let drive = quote_spanned!(span=> ::fastmcp::__private::drive(&__fastmcp_slot, __fastmcp_body).await);
    quote! {
        let mut __fastmcp_resume = #source.take_resume();
        loop {
            #reads
            let __fastmcp_slot = #p::Slot::new();
            let __fastmcp_body = #ident::__fastmcp_machine(#(#args,)* &__fastmcp_slot, __fastmcp_resume);
            match #drive? {
                #p::Pass::Complete(__fastmcp_out) => break #complete,
                #p::Pass::Suspend(__fastmcp_suspension) => {
                    break ::core::result::Result::Ok(#p::Step::Suspend(__fastmcp_suspension));
                }
                #p::Pass::Again(__fastmcp_again) => __fastmcp_resume = ::core::option::Option::Some(__fastmcp_again),
            }
        }
    }
}

/// `fn fingerprint`: a hash of the fn's signature and body, so request state minted by another build of
/// the flow is refused.
pub fn fingerprint_method(h: &Handler) -> TokenStream {
    let hash = fingerprint_lit(h);
    quote! {
        fn fingerprint(&self) -> u64 {
            #hash
        }
    }
}

/// The hash of the fn's signature and body, as a `u64` literal.
pub fn fingerprint_lit(h: &Handler) -> LitInt {
    let sig = &h.item.sig;
    let body = &h.item.body;
    let tokens = quote!(#sig #body).to_string();
    let hash = fingerprint(&tokens);
    LitInt::new(&format!("{hash:#018x}u64"), Span::call_site())
}

/// The handler's parameter the round's resume comes from, taken mutably when the handler asks.
pub fn source_param(flow: Option<&Flow>, source: &Ident) -> TokenStream {
    match flow {
        Some(_) => quote!(mut #source),
        None => source.to_token_stream(),
    }
}

/// FNV-1a, 64 bits: the fingerprint of a flow's tokens, stable across builds of the same source.
fn fingerprint(tokens: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in tokens.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
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
                let p = private();
                *e = syn::parse_quote_spanned!(span=> #p::Slot::unlowered(#builder));
            }
        }
    }
    Replace.visit_block_mut(&mut block);
    Some(block.to_token_stream())
}

#[cfg(test)]
mod tests {
    use super::fingerprint;

    #[test]
    fn fnv1a_reference_values() {
        assert_eq!(fingerprint(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fingerprint("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fingerprint("foobar"), 0x8594_4171_f739_67e8);
    }
}

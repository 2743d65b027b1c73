//! `#[elicit]` on an `async fn`: a sub-flow, awaited in a handler (or another sub-flow) with `.ask()`.
//!
//! `async fn double_check(what: String) -> R` becomes a fn of the same name and parameters that returns
//! `SubFlowCall<__FastmcpFlow_double_check>`: the hidden struct holds the arguments (they travel in the
//! sub-flow's state, since the client doesn't send them again) and implements the runtime's `SubFlow`, whose
//! `machine` is the body compiled exactly like a handler's (`machine::machine_fn_of`). How a caller runs it,
//! round after round, is the runtime's business (`fastmcp::flow::subflow`): the caller's lowering doesn't
//! change.

use super::{machine, params, private, strip_param_attrs};
use crate::flow::Flow;
use crate::model::{Handler, ItemFn};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::{FnArg, Ident};

pub fn expand(h: &Handler, flow: Option<&Flow>) -> TokenStream {
    let p = private();
    let ItemFn { attrs, vis, sig, body } = &h.item;
    let ident = &sig.ident;
    let flow_ty = format_ident!("__FastmcpFlow_{}", ident.unraw());
    let docs = attrs.iter().filter(|a| a.path().is_ident("doc"));
    let cfgs: Vec<_> = attrs.iter().filter(|a| a.path().is_ident("cfg")).collect();
    let fields: Vec<&Ident> = h.named().map(|(_, v)| &v.ident).collect();
    let types: Vec<&syn::Type> = h.named().map(|(param, _)| &param.ty).collect();
    let ret = match &h.ret {
        Some(ty) => quote!(#ty),
        None => quote!(()),
    };
    let slot = machine::slot();

    let machine = match flow {
        Some(flow) => machine::machine_fn_of(h, flow, &flow_ty),
        // No `.ask()`: the body as written; it completes in the pass that reaches it.
        None => {
            let mut sig = sig.clone();
            strip_param_attrs(&mut sig);
            sig.ident = Ident::new("__fastmcp_machine", ident.span());
            let extra: [FnArg; 2] =
                [syn::parse_quote!(_: &#p::Slot), syn::parse_quote!(_: ::core::option::Option<#p::Resume>)];
            sig.inputs.extend(extra);
            let attrs = attrs.iter().filter(|a| !a.path().is_ident("doc") && !a.path().is_ident("cfg"));
            quote! {
                impl #flow_ty {
                    #(#attrs)*
                    #[doc(hidden)]
                    #sig #body
                }
            }
        }
    };
    let hash = machine::fingerprint_lit(h);
    let checks = params::checks(h);
    // Spanned on the fn's name: a body that isn't `Send` (the bound on `machine`) is reported there.
    let machine_method = quote_spanned! {ident.span()=>
        fn machine<'s>(
            self,
            #slot: &'s #p::Slot,
            __fastmcp_resume: ::core::option::Option<#p::Resume>,
        ) -> impl ::core::future::Future<Output = Self::Output> + ::core::marker::Send + 's {
            let Self { #(#fields),* } = self;
            Self::__fastmcp_machine(#(#fields,)* #slot, __fastmcp_resume)
        }
    };
    // The checks come first, so that what they say is the first thing rustc says.
    quote! {
        #(#cfgs)*
        const _: () = {
            #checks
        };

        #(#docs)*
        #(#cfgs)*
        #vis fn #ident(#(#fields: #types),*) -> #p::SubFlowCall<#flow_ty> {
            #p::SubFlowCall::new(#flow_ty { #(#fields),* })
        }

        #(#cfgs)*
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #[derive(#p::serde::Serialize, #p::serde::Deserialize)]
        #[serde(crate = "::fastmcp::__private::serde")]
        #vis struct #flow_ty {
            #(#fields: #types,)*
        }

        #(#cfgs)*
        const _: () = {
            #machine

            impl #p::SubFlow for #flow_ty {
                type Output = #ret;

                fn fingerprint() -> u64 {
                    #hash
                }

                #machine_method
            }
        };
    }
}

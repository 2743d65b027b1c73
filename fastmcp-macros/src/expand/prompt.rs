//! `#[prompt]`: the unit struct, its `invoke` and `impl PromptHandler`.

use super::{
    access_method, arg_local, boxed_future, caching_method, complete_method, dummy_const, duplicate_guard, machine,
    option, params, private, struct_and_invoke, tags_method,
};
use crate::attr::Kind;
use crate::flow::Flow;
use crate::model::{Handler, ParamKind};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

pub fn expand(h: &Handler, flow: Option<&Flow>) -> TokenStream {
    let p = private();
    let ident = &h.item.sig.ident;
    let (name, _) = h.name();
    let title = option(h.options.title.as_ref());
    let description = option(h.description());
    let get = Ident::new("__fastmcp_get", Span::call_site());

    // Each named parameter's entry, kept if its type says it is an argument (an `Option` is one).
    let arguments = h.named().map(|(param, named)| {
        let arg = &named.name;
        let description = option(param.attrs.docs.as_ref());
        let (role, required) = match named.option_inner {
            Some(_) => (quote!(#p::Role::Argument), false),
            None => (params::item_of(Kind::Prompt, param, "ROLE"), true),
        };
        quote!((#role, #p::prompt_argument(#arg, #description, #required)))
    });

    let mut reads = Vec::new();
    let mut call_args = Vec::new();
    for (i, param) in h.params.iter().enumerate() {
        let local = arg_local(i);
        let read = match &param.kind {
            ParamKind::Named(named) => {
                let arg = &named.name;
                match &named.option_inner {
                    Some(inner) => quote_spanned!(inner.span()=> #get.optional::<#inner>(#arg)?),
                    None => {
                        let take = params::take(Kind::Prompt, param, quote!(&#get, #arg));
                        quote!(#take?)
                    }
                }
            }
            ParamKind::Unnamed => {
                let take = params::take(Kind::Prompt, param, quote!(&#get, ""));
                quote!(#take?)
            }
        };
        reads.push(quote!(let #local = #read;));
        call_args.push(local.into_token_stream());
    }

    // A body that uses `.ask()` is its own flow; one that doesn't may return a hand-written one (`Flow`).
    let convert = match flow {
        Some(_) => quote!(prompt_result),
        None => quote!(prompt_step),
    };
    let result = match &h.ret {
        Some(ty) => quote_spanned!(ty.span()=> #p::#convert::<#ty>),
        None => quote!(#p::#convert::<()>),
    };
    let complete = complete_method(h);

    let done = quote!(#result(__fastmcp_out, #description));
    let run = match flow {
        Some(_) => machine::run_round(h, &get, quote!(#(#reads)*), &call_args, done),
        None => quote! {
            #(#reads)*
            let __fastmcp_out = #ident::invoke(#(#call_args),*).await;
            #done
        },
    };
    let future = boxed_future(h, run);
    let get_param = machine::source_param(flow, &get);
    let machine = flow.map(|flow| machine::machine_fn(h, flow));
    let fingerprint = flow.map(|_| machine::fingerprint_method(h));

    let access = access_method(h);
    let tags = tags_method(h);
    let caching = caching_method(h);
    let checks = params::checks(h);
    let impl_items = quote! {
        #checks

        #machine

        impl #p::PromptHandler for #ident {
            fn definition(&self) -> #p::Prompt {
                #p::prompt_definition(
                    #name,
                    #title,
                    #description,
                    #p::prompt_arguments([#(#arguments),*]),
                )
            }

            fn get(&self, #get_param: #p::PromptGet) -> #p::BoxFuture<#p::HandlerResult<#p::GetPromptResult>> {
                #future
            }

            #fingerprint

            #complete

            #access
            #tags
            #caching
        }
    };

    let items = struct_and_invoke(h, flow);
    let guard = duplicate_guard(h, "prompt");
    let imp = dummy_const(h, impl_items);
    quote!(#items #guard #imp)
}

//! `#[resource("...")]`: the unit struct, its `invoke` and `impl ResourceHandler`.

use super::{
    access_method, arg_local, boxed_future, caching_method, complete_method, dummy_const, machine, option, params,
    private, struct_and_invoke, tags_method,
};
use crate::attr::Kind;
use crate::flow::Flow;
use crate::model::{Handler, ParamKind};
use crate::uri_template::VarKind;
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
    let mime_type = option(h.options.mime_type.as_ref());
    let read = Ident::new("__fastmcp_read", Span::call_site());
    // `check` made sure the URI is there and parses.
    let Some(uri) = &h.uri else { return TokenStream::new() };
    let uri_lit = &uri.lit;
    let template = uri.template.as_ref();
    let constructor = if uri.is_template() { quote!(resource_template) } else { quote!(static_resource) };

    let mut reads = Vec::new();
    let mut call_args = Vec::new();
    for (i, param) in h.params.iter().enumerate() {
        let local = arg_local(i);
        let variable = match &param.kind {
            ParamKind::Named(named) => template.and_then(|t| t.var(&named.name)).map(|var| (named, var)),
            ParamKind::Unnamed => None,
        };
        let value_read = match variable {
            Some((named, var)) => {
                let name = &named.name;
                match (&named.option_inner, var.kind == VarKind::Query) {
                    (Some(inner), true) => {
                        quote_spanned!(inner.span()=> #p::optional_variable::<#inner>(&#read, #name)?)
                    }
                    _ => {
                        let ty = &param.ty;
                        quote_spanned!(ty.span()=> #read.variable::<#ty>(#name)?)
                    }
                }
            }
            // Not a variable: supplied by the runtime, as `params::checks` makes sure.
            None => {
                let name = param.named().map_or("", |n| n.name.as_str());
                let take = params::take(Kind::Resource, param, quote!(&#read, #name));
                quote!(#take?)
            }
        };
        reads.push(quote!(let #local = #value_read;));
        call_args.push(local.into_token_stream());
    }

    // A body that uses `.ask()` is its own flow; one that doesn't may return a hand-written one (`Flow`).
    let convert = match flow {
        Some(_) => quote!(resource_result),
        None => quote!(resource_step),
    };
    let result = match &h.ret {
        Some(ty) => quote_spanned!(ty.span()=> #p::#convert::<#ty>),
        None => quote!(#p::#convert::<()>),
    };
    let complete = complete_method(h);

    let done = quote!(#result(__fastmcp_out, #read.uri(), #mime_type));
    let run = match flow {
        Some(_) => machine::run_round(h, &read, quote!(#(#reads)*), &call_args, done),
        None => quote! {
            #(#reads)*
            let __fastmcp_out = #ident::invoke(#(#call_args),*).await;
            #done
        },
    };
    let future = boxed_future(h, run);
    let read_param = machine::source_param(flow, &read);
    let machine = flow.map(|flow| machine::machine_fn(h, flow));
    let fingerprint = flow.map(|_| machine::fingerprint_method(h));

    let access = access_method(h);
    let tags = tags_method(h);
    let caching = caching_method(h);
    let checks = params::checks(h);
    let impl_items = quote! {
        #checks

        #machine

        impl #p::ResourceHandler for #ident {
            fn definition(&self) -> #p::ResourceDefinition {
                #p::#constructor(#uri_lit, #name, #title, #description, #mime_type)
            }

            fn read(&self, #read_param: #p::ResourceRead) -> #p::BoxFuture<#p::HandlerResult<#p::ReadResourceResult>> {
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
    let imp = dummy_const(h, impl_items);
    quote!(#items #imp)
}

//! `#[tool]`: the unit struct, its `invoke`, the arguments struct and `impl ToolHandler`.

use super::{
    arg_local, boxed_future, context_arg, dummy_const, duplicate_guard, machine, option, private, struct_and_invoke,
};
use crate::flow::Flow;
use crate::model::{Handler, ParamKind};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, Ident, Meta, Token, punctuated::Punctuated};

pub fn expand(h: &Handler, flow: Option<&Flow>) -> TokenStream {
    let p = private();
    let ident = &h.item.sig.ident;
    let (name, _) = h.name();
    let title = option(h.options.title.as_ref());
    let description = option(h.description());
    let call = Ident::new("__fastmcp_call", Span::call_site());
    let parsed = Ident::new("__fastmcp_args", Span::call_site());
    let args_struct = Ident::new("__FastmcpArgs", Span::call_site());

    // What `call` passes to `invoke`, in parameter order.
    let call_args: Vec<TokenStream> = h
        .params
        .iter()
        .enumerate()
        .map(|(i, param)| match &param.kind {
            ParamKind::Context { by_ref } => context_arg(param, *by_ref, &call),
            ParamKind::Args { .. } => quote!(#p::Args(#parsed)),
            ParamKind::Value(_) => arg_local(i).into_token_stream(),
        })
        .collect();

    // The arguments type: the `Args<T>`'s `T`, or a struct of the value parameters.
    let whole = h.params.iter().find_map(|param| match &param.kind {
        ParamKind::Args { inner } => Some(inner),
        _ => None,
    });
    let (args_ty, args_def, destructure) = match whole {
        Some(inner) => (inner.to_token_stream(), TokenStream::new(), TokenStream::new()),
        None => {
            let fields = h.params.iter().filter_map(|param| {
                let ParamKind::Value(value) = &param.kind else { return None };
                let field = &value.ident;
                let ty = &param.ty;
                let forwarded = &param.attrs.forwarded;
                let description = param
                    .attrs
                    .docs
                    .as_ref()
                    .filter(|_| !has_schemars_description(forwarded))
                    .map(|d| quote!(#[schemars(description = #d)]));
                Some(quote!(#(#forwarded)* #description #field: #ty))
            });
            let bindings = h.params.iter().enumerate().filter_map(|(i, param)| {
                let ParamKind::Value(value) = &param.kind else { return None };
                let field = &value.ident;
                let local = arg_local(i);
                Some(quote!(#field: #local))
            });
            let def = quote! {
                #[derive(#p::serde::Deserialize, #p::schemars::JsonSchema)]
                #[serde(crate = "::fastmcp::__private::serde")]
                #[schemars(crate = "::fastmcp::__private::schemars")]
                struct #args_struct {
                    #(#fields,)*
                }
            };
            let destructure = quote!(let #args_struct { #(#bindings,)* } = #parsed;);
            (args_struct.to_token_stream(), def, destructure)
        }
    };

    let (ret, ret_span) = match &h.ret {
        Some(ty) => (ty.to_token_stream(), ty.span()),
        None => (quote!(()), Span::call_site()),
    };
    let output_schema = quote_spanned!(ret_span=> <#ret as #p::IntoToolResult>::output_schema());
    let into_result = quote_spanned!(ret_span=> <#ret as #p::IntoToolResult>::into_tool_result);
    let annotations = annotations(h);

    let complete = quote!(::core::result::Result::Ok(#p::Step::Complete(#into_result(__fastmcp_out))));
    let reads = quote! {
        let #parsed: #args_ty = match #call.parse_arguments() {
            ::core::result::Result::Ok(__fastmcp_ok) => __fastmcp_ok,
            ::core::result::Result::Err(__fastmcp_err) => {
                return #p::invalid_arguments(#name, __fastmcp_err);
            }
        };
        #destructure
    };
    let run = match flow {
        Some(_) => machine::run_round(h, &call, reads, &call_args, complete),
        None => quote! {
            #reads
            let __fastmcp_out = #ident::invoke(#(#call_args),*).await;
            #complete
        },
    };
    let future = boxed_future(h, run);
    let call_param = machine::source_param(flow, &call);
    let machine = flow.map(|flow| machine::machine_fn(h, flow));
    let fingerprint = flow.map(|_| machine::fingerprint_method(h));
    let timeout = h.options.timeout_ms.map(|ms| {
        quote! {
            fn timeout(&self) -> ::core::option::Option<::core::time::Duration> {
                ::core::option::Option::Some(::core::time::Duration::from_millis(#ms))
            }
        }
    });

    let task_support = h.options.task.map(|support| {
        let variant = Ident::new(support.variant(), Span::call_site());
        quote! {
            fn task_support(&self) -> #p::TaskSupport {
                #p::TaskSupport::#variant
            }
        }
    });
    let task_step = crate::flow::find::task_step(h.item.body.stream()).map(|_| {
        quote! {
            fn has_task_step(&self) -> bool {
                true
            }
        }
    });

    let impl_items = quote! {
        #args_def

        #machine

        impl #p::ToolHandler for #ident {
            fn definition(&self) -> #p::Tool {
                #p::tool_definition(
                    #name,
                    #title,
                    #description,
                    #p::input_schema::<#args_ty>(),
                    #output_schema,
                    #annotations,
                )
            }

            fn call(&self, #call_param: #p::ToolCall) -> #p::BoxFuture<#p::HandlerResult<#p::CallToolResult>> {
                #future
            }

            #fingerprint

            #timeout

            #task_support

            #task_step
        }
    };

    let items = struct_and_invoke(h, flow);
    let guard = duplicate_guard(h, "tool");
    let imp = dummy_const(h, impl_items);
    quote!(#items #guard #imp)
}

fn annotations(h: &Handler) -> TokenStream {
    let p = private();
    let o = &h.options;
    let hints = [
        ("read_only_hint", o.read_only),
        ("destructive_hint", o.destructive),
        ("idempotent_hint", o.idempotent),
        ("open_world_hint", o.open_world),
    ];
    let set: Vec<TokenStream> = hints
        .iter()
        .filter_map(|(field, value)| {
            let field = Ident::new(field, Span::call_site());
            value.map(|v| quote!(#field: ::core::option::Option::Some(#v),))
        })
        .collect();
    if set.is_empty() {
        return quote!(::core::option::Option::None);
    }
    quote! {
        ::core::option::Option::Some(#p::ToolAnnotations {
            #(#set)*
            ..::core::default::Default::default()
        })
    }
}

/// Whether a forwarded `#[schemars(..)]` already sets the description (then the doc comment must not, or
/// schemars reports a duplicate).
fn has_schemars_description(attrs: &[Attribute]) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("schemars")).any(|a| {
        a.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            .is_ok_and(|metas| metas.iter().any(|m| m.path().is_ident("description")))
    })
}

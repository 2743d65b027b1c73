//! `#[tool]`: the unit struct, its `invoke`, the arguments struct and `impl ToolHandler`.

use super::{
    access_method, arg_local, boxed_future, caching_method, dummy_const, duplicate_guard, machine, option, params,
    private, struct_and_invoke, tags_method,
};
use crate::flow::Flow;
use crate::model::{Handler, Param, ParamKind};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Attribute, Ident, Lifetime, Meta, Token, Type, punctuated::Punctuated};

pub fn expand(h: &Handler, flow: Option<&Flow>) -> TokenStream {
    let p = private();
    let ident = &h.item.sig.ident;
    let (name, _) = h.name();
    let title = option(h.options.title.as_ref());
    let description = option(h.description());
    let call = Ident::new("__fastmcp_call", Span::call_site());

    let input = input(h);
    let locals: Vec<Ident> = (0..h.params.len()).map(arg_local).collect();
    // What `call` passes to `invoke`, in parameter order.
    let call_args: Vec<TokenStream> = locals.iter().map(ToTokens::to_token_stream).collect();
    let args_def = param_items(h);

    let (ret, ret_span) = match &h.ret {
        Some(ty) => (ty.to_token_stream(), ty.span()),
        None => (quote!(()), Span::call_site()),
    };
    let output_schema = quote_spanned!(ret_span=> <#ret as #p::IntoToolResult>::output_schema());
    let annotations = annotations(h);

    // A body that uses `.ask()` is its own flow; one that doesn't may return a hand-written one (`Flow`).
    let complete = match flow {
        Some(_) => {
            let into_result = quote_spanned!(ret_span=> <#ret as #p::IntoToolResult>::into_tool_result);
            quote!(::core::result::Result::Ok(#p::Step::Complete(#into_result(__fastmcp_out))))
        }
        None => {
            let into_step = quote_spanned!(ret_span=> <#ret as #p::IntoToolResult>::into_tool_step);
            quote!(#into_step(__fastmcp_out))
        }
    };
    let reads = quote! {
        let (#(#locals,)*) = match #input.values(&#call) {
            ::core::result::Result::Ok(__fastmcp_ok) => __fastmcp_ok,
            ::core::result::Result::Err(__fastmcp_err) => {
                return #p::invalid_arguments(#name, __fastmcp_err);
            }
        };
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

    let once = (h.options.once == Some(true)).then(|| {
        quote! {
            fn once(&self) -> bool {
                true
            }
        }
    });

    let access = access_method(h);
    let tags = tags_method(h);
    let caching = caching_method(h);

    let impl_items = quote! {
        #args_def

        #machine

        impl #p::ToolHandler for #ident {
            fn definition(&self) -> #p::Tool {
                #p::tool_definition(
                    #name,
                    #title,
                    #description,
                    #input.input_schema(),
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

            #once

            #access
            #tags
            #caching
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

/// The items that make the tool's parameters of their types: the arguments struct, `__fastmcp_input`, and
/// the checks by type (with the roles constant they read). Emitted on errors too, so the checks report in
/// the same compile.
pub fn param_items(h: &Handler) -> TokenStream {
    let p = private();
    let input_fn = input_fn(h);
    let roles = (!h.params.is_empty()).then(|| {
        let name = params::roles();
        let n = h.params.len();
        let input = input(h);
        quote!(const #name: [#p::Role; #n] = #input.roles;)
    });
    let checks = params::checks(h);
    quote! {
        #input_fn

        #roles

        #checks
    }
}

/// `__fastmcp_input::<'_, T0, T1, ..>()`: the tool's `ToolInput`, from its parameters' types. Every use of
/// the types goes through this one call, with the same tokens (spanned on the user's types), so rustc
/// reports a type that is not a parameter once, where the user wrote it.
fn input(h: &Handler) -> TokenStream {
    let types = h.params.iter().map(|param| &param.ty);
    let input = quote!(__fastmcp_input::<'_, #(#types),*>());
    let borrows = params::borrows(h);
    match borrows.is_empty() {
        true => input,
        false => quote!({ #borrows #input }),
    }
}

/// The arguments struct and the `const fn __fastmcp_input` that is generic over the parameters' types.
///
/// The struct has one field per parameter, of the type its `ToolParam` says (the argument itself, or a
/// marker the input schema leaves out), as a type parameter: the struct and its derives are well-formed
/// whatever the types, and only `__fastmcp_input`'s bounds check them. A parameter with attributes keeps
/// its own type, since they may name functions of that type (`#[serde(default = "..")]`); the bound then
/// says its field is that type.
fn input_fn(h: &Handler) -> TokenStream {
    let p = private();
    let args_struct = Ident::new("__FastmcpArgs", Span::call_site());
    let n = h.params.len();
    let type_params: Vec<Ident> = (0..n).map(|i| format_ident!("__T{}", i)).collect();
    let generic = |param: &Param| param.attrs.forwarded.is_empty();
    let struct_params: Vec<Ident> = h
        .params
        .iter()
        .enumerate()
        .filter(|(_, param)| generic(param))
        .map(|(i, _)| format_ident!("__F{}", i))
        .collect();
    let fields = h.params.iter().enumerate().map(|(i, param)| {
        let field = field(i, param);
        let ty = match generic(param) {
            true => format_ident!("__F{}", i).into_token_stream(),
            false => static_type(&param.ty).into_token_stream(),
        };
        let forwarded = &param.attrs.forwarded;
        let description = param
            .attrs
            .docs
            .as_ref()
            .filter(|_| !has_schemars_description(forwarded))
            .map(|d| quote!(#[schemars(description = #d)]));
        quote!(#(#forwarded)* #description #field: #ty)
    });
    let bounds = h.params.iter().zip(&type_params).map(|(param, t)| match generic(param) {
        true => quote!(#t: #p::ToolParam<'r>),
        false => {
            let ty = static_type(&param.ty);
            quote!(#t: #p::ToolParam<'r, Field = #ty>)
        }
    });
    let struct_args = h.params.iter().zip(&type_params).filter(|(param, _)| generic(param)).map(|(_, t)| t);
    let struct_ty = match struct_params.is_empty() {
        true => quote!(#args_struct),
        false => quote!(#args_struct<#(<#struct_args as #p::ToolParam<'r>>::Field),*>),
    };
    let struct_generics = (!struct_params.is_empty()).then(|| quote!(<#(#struct_params),*>));
    let bindings = h.params.iter().enumerate().map(|(i, param)| {
        let field = field(i, param);
        let local = arg_local(i);
        quote!(#field: #local)
    });
    let takes = type_params.iter().enumerate().map(|(i, t)| {
        let local = arg_local(i);
        quote!(<#t as #p::ToolParam<'r>>::take(#local, __fastmcp_call))
    });
    let roles = type_params.iter().map(|t| quote!(<#t as #p::ToolParam<'r>>::ROLE));
    quote! {
        #[derive(#p::serde::Deserialize, #p::schemars::JsonSchema)]
        #[serde(crate = "::fastmcp::__private::serde")]
        #[schemars(crate = "::fastmcp::__private::schemars")]
        struct #args_struct #struct_generics {
            #(#fields,)*
        }

        const fn __fastmcp_input<'r, #(#bounds),*>() -> #p::ToolInput<'r, (#(#type_params,)*), #n> {
            #p::ToolInput {
                roles: [#(#roles),*],
                schema: #p::input_schema::<#struct_ty>,
                values: |__fastmcp_call, __fastmcp_roles| {
                    let #args_struct { #(#bindings,)* } =
                        #p::parse_arguments::<#struct_ty>(__fastmcp_call, __fastmcp_roles)?;
                    ::core::result::Result::Ok((#(#takes,)*))
                },
            }
        }
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

/// `ty` with its elided lifetimes made `'static`, so it can be named in an item (a struct field, a bound):
/// `&str` becomes `&'static str` (a handler's signature can name no other lifetime). Lifetimes a `fn(&T)` or
/// an `Fn(&T)` elides are its own, and stay.
fn static_type(ty: &Type) -> Type {
    struct Static;
    impl VisitMut for Static {
        fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
            if r.lifetime.is_none() {
                r.lifetime = Some(Lifetime::new("'static", r.and_token.span));
            }
            visit_mut::visit_type_reference_mut(self, r);
        }
        fn visit_lifetime_mut(&mut self, l: &mut Lifetime) {
            if l.ident == "_" {
                *l = Lifetime::new("'static", l.span());
            }
        }
        fn visit_type_bare_fn_mut(&mut self, _: &mut syn::TypeBareFn) {}
        fn visit_parenthesized_generic_arguments_mut(&mut self, _: &mut syn::ParenthesizedGenericArguments) {}
    }
    let mut ty = ty.clone();
    Static.visit_type_mut(&mut ty);
    ty
}

/// The field of a parameter in a tool's arguments struct: its name, or one made up for an unnamed one.
fn field(i: usize, param: &Param) -> Ident {
    match &param.kind {
        ParamKind::Named(named) => named.ident.clone(),
        ParamKind::Unnamed => format_ident!("__fastmcp_param_{}", i),
    }
}

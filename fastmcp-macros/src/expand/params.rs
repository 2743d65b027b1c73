//! What each parameter is, asked of its type: the expansion names every parameter's type in the runtime's
//! traits (`ToolParam`, `PromptParam`, `ResourceParam`, `SubFlowParam`), spanned on the user's tokens, and
//! emits the checks that only the type can settle as constants rustc evaluates. So an error about a
//! parameter is found by the compiler and lands on the parameter, whatever name its type is written with.

use super::private;
use crate::attr::Kind;
use crate::check::FORWARDED_TO_ARGUMENTS;
use crate::model::{Handler, Param, ParamKind, unsupported_pattern_message};
use proc_macro2::{Delimiter, Group, Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Type};

/// The runtime's trait for a parameter of this kind of handler.
fn param_trait(kind: Kind) -> Ident {
    let name = match kind {
        Kind::Tool => "ToolParam",
        Kind::Prompt => "PromptParam",
        Kind::Resource => "ResourceParam",
        Kind::SubFlow => "SubFlowParam",
    };
    Ident::new(name, Span::call_site())
}

/// `<T as Trait<'_>>::…` for a parameter, spanned on its type: an item of the parameter's trait. Every use
/// of a type is written so, with the same tokens, so rustc reports a type that is not a parameter once.
pub fn item_of(kind: Kind, param: &Param, item: &str) -> TokenStream {
    let p = private();
    let ty = &param.ty;
    let tr = param_trait(kind);
    let item = Ident::new(item, Span::call_site());
    quote_spanned!(ty.span()=> <#ty as #p::#tr<'_>>::#item)
}

/// The handler's value of a parameter, from what the trait's `take` gets (`args`), spanned on its type.
pub fn take(kind: Kind, param: &Param, args: TokenStream) -> TokenStream {
    let p = private();
    let ty = &param.ty;
    let tr = param_trait(kind);
    quote_spanned!(ty.span()=> <#ty as #p::#tr<'_>>::take(#args))
}

/// The name of a tool's roles constant (`[Role; N]`, from its `ToolInput`).
pub fn roles() -> Ident {
    Ident::new("__FASTMCP_ROLES", Span::call_site())
}

/// The checks of `h`'s parameters that their types settle, one constant each: rustc stops evaluating a
/// constant at its first panic, and reports every constant that panics. (A tool's read its roles constant.)
pub fn checks(h: &Handler) -> TokenStream {
    let checks = match h.kind {
        Kind::Tool => tool_checks(h),
        Kind::Prompt => prompt_checks(h),
        Kind::Resource => resource_checks(h),
        Kind::SubFlow => {
            let p = private();
            let checks = h.params.iter().map(|param| {
                let ty = &param.ty;
                quote_spanned!(ty.span()=> let _: fn() = #p::subflow_param::<#ty>;)
            });
            vec![quote!(const _: () = { #(#checks)* };)]
        }
    };
    quote!(#(#checks)*)
}

/// The check that each borrowed parameter (`&T`) of a tool is one the runtime supplies. `ToolParam`'s bound
/// on a borrow (`&str: Deserialize` for every lifetime) would fail only at borrow checking, with words about
/// lifetimes; this one fails in type checking, with plain ones, and stops the borrow checking of the body it
/// stands in (so it stands in each body that names the tool's parameter types: see `tool::input`).
pub fn borrows(h: &Handler) -> TokenStream {
    borrows_where(h, |_| true)
}

/// The borrow checks of the parameters whose types name none of the fn's own generic parameters: for the
/// expansion of a generic fn next to its errors, where those names mean nothing.
pub fn borrows_outside(h: &Handler) -> TokenStream {
    let generics: Vec<String> = h.item.sig.generics.params.iter().map(generic_name).collect();
    let checks = borrows_where(h, |ty| !mentions(ty.to_token_stream(), &generics));
    quote!(const _: () = { #checks };)
}

fn borrows_where(h: &Handler, keep: impl Fn(&Type) -> bool) -> TokenStream {
    let p = private();
    let checks = h.params.iter().filter(|param| keep(&param.ty)).filter_map(|param| {
        let ty = &param.ty;
        matches!(ty, Type::Reference(_)).then(|| quote_spanned!(ty.span()=> let _: fn() = #p::borrowed_param::<#ty>;))
    });
    quote!(#(#checks)*)
}

fn generic_name(param: &syn::GenericParam) -> String {
    match param {
        syn::GenericParam::Type(t) => t.ident.to_string(),
        // In tokens, a lifetime is a `'` and then its ident.
        syn::GenericParam::Lifetime(l) => l.lifetime.ident.to_string(),
        syn::GenericParam::Const(c) => c.ident.to_string(),
    }
}

fn mentions(tokens: TokenStream, names: &[String]) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => names.contains(&i.to_string()),
        proc_macro2::TokenTree::Group(g) => mentions(g.stream(), names),
        _ => false,
    })
}

/// `const _: () = if <cond> { panic!(<message>) };`, spanned on `at`: rustc reports the message there,
/// under all of `at` (the `panic!` call starts on its first token and ends on its last).
fn fails_if(cond: TokenStream, at: &impl ToTokens, message: &str) -> TokenStream {
    let tokens: Vec<_> = at.to_token_stream().into_iter().collect();
    let first = tokens.first().map_or_else(Span::call_site, |t| t.span());
    let last = tokens.last().map_or(first, |t| t.span());
    // The message is a format string.
    let message = message.replace('{', "{{").replace('}', "}}");
    let mut args = Group::new(Delimiter::Parenthesis, quote!(#message));
    args.set_span(last);
    quote_spanned!(first=> const _: () = if #cond { ::core::panic! #args };)
}

fn tool_checks(h: &Handler) -> Vec<TokenStream> {
    let p = private();
    let roles = roles();
    let mut checks = Vec::new();
    for (i, param) in h.params.iter().enumerate() {
        let role = quote!(#roles[#i]);
        let beside = match &param.kind {
            ParamKind::Unnamed => {
                let message = unsupported_pattern_message(h.kind);
                checks.push(fails_if(quote!(#role.is_argument()), &param.pat, &message));
                // Not an argument, so beside an `Args<T>` it is a second one.
                "a tool takes at most one `Args<T>` parameter: it is the whole arguments object".to_owned()
            }
            ParamKind::Named(named) => {
                for attr in &param.attrs.forwarded {
                    let message = format!("this attribute has no effect here: {FORWARDED_TO_ARGUMENTS}");
                    checks.push(fails_if(quote!(!#role.is_argument()), attr, &message));
                }
                let name = &named.name;
                format!(
                    "`{name}` can't be a parameter next to `Args<T>`: with `Args<T>` the arguments object is `T`, so make `{name}` a field of `T`"
                )
            }
        };
        if h.params.len() > 1 {
            checks.push(fails_if(quote!(#p::Role::beside_arguments(&#roles, #i)), &param.pat, &beside));
        }
    }
    checks
}

fn prompt_checks(h: &Handler) -> Vec<TokenStream> {
    let mut checks = Vec::new();
    for param in &h.params {
        let role = item_of(h.kind, param, "ROLE");
        match &param.kind {
            ParamKind::Unnamed => {
                checks.push(fails_if(quote!(#role.is_argument()), &param.pat, &unsupported_pattern_message(h.kind)))
            }
            // An optional argument, as its syntax says.
            ParamKind::Named(named) if named.option_inner.is_some() => {}
            ParamKind::Named(_) => checks.extend(complete_on_argument(param, &role)),
        }
    }
    checks
}

/// `#[complete]` on a parameter whose role is `role` completes an argument.
fn complete_on_argument(param: &Param, role: &TokenStream) -> Option<TokenStream> {
    let (attr, _) = param.attrs.complete.as_ref()?;
    Some(fails_if(quote!(!#role.is_argument()), attr, "`#[complete]` goes on a `name: T` argument"))
}

/// A resource's parameters that are not variables of its URI template must be supplied by the runtime.
fn resource_checks(h: &Handler) -> Vec<TokenStream> {
    let Some(uri) = &h.uri else { return Vec::new() };
    let Some(template) = &uri.template else { return Vec::new() };
    let uri_text = uri.lit.value();
    let mut checks = Vec::new();
    for param in &h.params {
        let role = item_of(h.kind, param, "ROLE");
        let message = match &param.kind {
            ParamKind::Named(named) if template.var(&named.name).is_some() => continue,
            ParamKind::Named(named) if !template.is_template => {
                let name = &named.name;
                format!(
                    "`{uri_text}` is a fixed URI, so the resource takes no parameters besides the context; to take `{name}`, make the URI a template with `{{{name}}}` in it"
                )
            }
            ParamKind::Named(named) => {
                let name = &named.name;
                format!(
                    "parameter `{name}` is not a variable of the URI template `{uri_text}`: add `{{{name}}}` to the template or remove the parameter"
                )
            }
            ParamKind::Unnamed => unsupported_pattern_message(h.kind),
        };
        checks.push(fails_if(quote!(#role.is_argument()), &param.pat, &message));
        checks.extend(complete_on_argument(param, &role));
    }
    checks
}

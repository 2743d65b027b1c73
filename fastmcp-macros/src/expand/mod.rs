//! Codegen, and the only place that names the runtime (`::fastmcp::__private`). `run` drives parse → model
//! → analysis → check → expand for one attribute; the submodules emit each macro's items from a checked
//! [`Handler`] (and the [`Flow`] of a body that asks).
//!
//! Every macro turns `fn name` into a unit struct `name` (what `.tool(name)` registers) with the user's fn
//! as its inherent `name::invoke`, and implements the runtime's handler trait inside `const _: () = {..}`.
//! On any error the user's fn is emitted as written (minus the parameter attributes only the macro
//! understands) next to the errors, so rust-analyzer keeps resolving it.

mod choice;
mod form;
#[cfg(test)]
mod golden;
mod machine;
mod params;
mod prompt;
mod resource;
mod subflow;
mod tool;

use crate::attr::{Completer, Kind, Options, stays_on_param};
use crate::check;
use crate::ctxt::Ctxt;
use crate::flow::{Flow, forgotten};
use crate::model::{Handler, ItemFn};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, Ident, Item, Signature};

/// `#[tool]`, `#[prompt]`, `#[resource]`, and `#[elicit]` on a fn.
pub fn run(kind: Kind, args: TokenStream, item: TokenStream) -> TokenStream {
    let out = match syn::parse2::<ItemFn>(item.clone()) {
        Ok(item) => expand(kind, args, item),
        Err(e) => not_a_fn(kind, item, e),
    };
    dump(kind.attr(), &out);
    out
}

/// `#[elicit]`: a form on a struct, a choice on an enum, a sub-flow on an `async fn`.
pub fn elicit(args: TokenStream, item: TokenStream) -> TokenStream {
    let out = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Struct(s)) => form::expand(args, s),
        Ok(Item::Enum(e)) => choice::expand(args, e),
        // A sub-flow: compiled like a handler's body (a fn whose body doesn't parse yet is reported by rustc).
        Ok(Item::Fn(_)) => return run(Kind::SubFlow, args, item),
        Err(_) if syn::parse2::<ItemFn>(item.clone()).is_ok() => return run(Kind::SubFlow, args, item),
        Ok(other) => {
            let span = match &other {
                Item::Fn(f) => f.sig.fn_token.span,
                Item::Union(u) => u.union_token.span,
                Item::Type(t) => t.type_token.span,
                other => other.span(),
            };
            let what = "#[elicit] goes on a struct with named fields (a form), an enum of unit variants (a choice) or an `async fn` (a sub-flow)";
            let error = syn::Error::new(span, what).to_compile_error();
            quote!(#item #error)
        }
        Err(e) => {
            let error = e.to_compile_error();
            quote!(#item #error)
        }
    };
    dump("#[elicit]", &out);
    out
}

/// `FASTMCP_MACROS_DEBUG=1` prints every expansion to stderr.
fn dump(attr: &str, out: &TokenStream) {
    if std::env::var_os("FASTMCP_MACROS_DEBUG").is_some() {
        eprintln!("// ---- {attr} expansion\n{out}");
    }
}

fn expand(kind: Kind, args: TokenStream, mut item: ItemFn) -> TokenStream {
    let cx = Ctxt::new();
    item.body = forgotten::add_asks(&cx, &item.body);
    let options = Options::parse(&cx, kind, args);
    check::signature(&cx, kind, &item.sig);
    let handler = Handler::new(&cx, kind, options, item);
    let flow = Flow::new(&cx, &handler);
    check::run(&cx, &handler, flow.as_ref());
    match cx.check() {
        Ok(()) => {
            let flow = flow.as_ref();
            match kind {
                Kind::Tool => tool::expand(&handler, flow),
                Kind::Prompt => prompt::expand(&handler, flow),
                Kind::Resource => resource::expand(&handler, flow),
                Kind::SubFlow => subflow::expand(&handler, flow),
            }
        }
        Err(errors) => {
            // The checks by type still run, so what they find comes in the same compile. They name the
            // parameters' types outside the fn, so not in a method (in an `impl` block, which takes no such
            // items), and for a generic fn only those of types that don't name its generics.
            let sig = &handler.item.sig;
            let auth = check_item(&handler);
            let checks = match (sig.receiver(), sig.generics.params.is_empty()) {
                (Some(_), _) => TokenStream::new(),
                (None, true) => {
                    let items = param_items(&handler);
                    dummy_const(&handler, quote!(#auth #items))
                }
                (None, false) => {
                    let items = params::borrows_outside(&handler);
                    dummy_const(&handler, quote!(#auth #items))
                }
            };
            let mut item = handler.item;
            strip_param_attrs(&mut item.sig);
            let errors = errors.to_compile_error();
            let errors = quote!(#errors #checks);
            let body = machine::unlowered_body(&item.body).unwrap_or_else(|| item.body.to_token_stream());
            let ItemFn { attrs, vis, sig, .. } = &item;
            match (kind, sig.receiver()) {
                // A method or a sub-flow is never registered: it stays as written.
                (Kind::SubFlow, _) | (_, Some(_)) => quote!(#(#attrs)* #vis #sig #body #errors),
                _ => stand_in(&item, body, errors),
            }
        }
    }
}

/// A handler whose macro reported an error: its name stands for a stand-in that every registration
/// accepts, so the macro's errors are the only ones (no second error at `.tool(name)`), and the fn, kept
/// out of the way in an anonymous const, is still type-checked for the IDE.
fn stand_in(item: &ItemFn, body: TokenStream, errors: TokenStream) -> TokenStream {
    let ItemFn { attrs, vis, sig, .. } = item;
    let ident = &sig.ident;
    let cfgs = attrs.iter().filter(|a| a.path().is_ident("cfg"));
    let private = private();
    quote! {
        #(#cfgs)*
        #[allow(non_upper_case_globals)]
        #vis const #ident: #private::Unexpanded = #private::Unexpanded;
        const _: () = {
            #(#attrs)*
            #[allow(dead_code)]
            #sig #body
        };
        #errors
    }
}

/// The items that check the parameters by type (and, for a tool, read its arguments).
fn param_items(h: &Handler) -> TokenStream {
    match h.kind {
        Kind::Tool => tool::param_items(h),
        _ => params::checks(h),
    }
}

/// The attribute is on something that is not a fn (or a fn syn can't read yet): keep it as written.
fn not_a_fn(kind: Kind, item: TokenStream, parse_error: syn::Error) -> TokenStream {
    let is_fn = item.clone().into_iter().any(|t| matches!(&t, TokenTree::Ident(i) if i == "fn"));
    let error = if is_fn {
        parse_error
    } else {
        // Span the item's first token after its attributes (`struct`, `pub`, ...).
        let mut tokens = item.clone().into_iter();
        let mut span = Span::call_site();
        while let Some(t) = tokens.next() {
            match &t {
                TokenTree::Punct(p) if p.as_char() == '#' => {
                    tokens.next();
                }
                _ => {
                    span = t.span();
                    break;
                }
            }
        }
        syn::Error::new(span, format!("{} goes on an `async fn`", kind.attr()))
    };
    let error = error.to_compile_error();
    quote!(#item #error)
}

/// Removes from parameters the attributes only the macro reads (docs, `#[complete]`, forwarded ones);
/// lint attributes stay.
pub fn strip_param_attrs(sig: &mut Signature) {
    for arg in sig.inputs.iter_mut() {
        if let FnArg::Typed(pt) = arg {
            pt.attrs.retain(stays_on_param);
        }
    }
}

/// The path generated code reaches the runtime through.
pub fn private() -> TokenStream {
    quote!(::fastmcp::__private)
}

/// `Some(x)` / `None` as an expression.
pub fn option<T: ToTokens>(value: Option<T>) -> TokenStream {
    match value {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

fn cfg_attrs(h: &Handler) -> Vec<&Attribute> {
    h.item.attrs.iter().filter(|a| a.path().is_ident("cfg")).collect()
}

fn doc_attrs(h: &Handler) -> Vec<&Attribute> {
    h.item.attrs.iter().filter(|a| a.path().is_ident("doc")).collect()
}

/// The unit struct named after the fn, and the user's fn as its inherent `invoke` (unless the fn asks: then
/// its body is compiled into the machine, which can't be called on its own).
pub fn struct_and_invoke(h: &Handler, flow: Option<&Flow>) -> TokenStream {
    let ItemFn { attrs, vis, sig, body } = &h.item;
    let ident = &sig.ident;
    let docs = doc_attrs(h);
    let cfgs = cfg_attrs(h);
    let mut invoke = sig.clone();
    invoke.ident = Ident::new("invoke", sig.ident.span());
    strip_param_attrs(&mut invoke);
    let invoke = flow.is_none().then(|| {
        quote! {
            #(#cfgs)*
            impl #ident {
                #(#attrs)*
                // The macro requires `async`, awaited or not.
                #[allow(clippy::unused_async)]
                #vis #invoke #body
            }
        }
    });
    quote! {
        #(#docs)*
        #(#cfgs)*
        #[allow(non_camel_case_types)]
        #[derive(
            ::core::fmt::Debug,
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::default::Default
        )]
        #vis struct #ident;

        #invoke
    }
}

/// Wraps the trait impl and its private items so they add no names to the user's module.
pub fn dummy_const(h: &Handler, items: TokenStream) -> TokenStream {
    let cfgs = cfg_attrs(h);
    quote! {
        #(#cfgs)*
        const _: () = {
            #items
        };
    }
}

/// A hidden item whose name encodes the registered name, so two handlers of one kind and name in one
/// module are rustc's "defined multiple times" error, spanned on the second one's name.
pub fn duplicate_guard(h: &Handler, prefix: &str) -> TokenStream {
    let (name, name_tokens) = h.name();
    let span = name_tokens.into_iter().next().map_or_else(Span::call_site, |t| t.span());
    let guard = Ident::new(&format!("__fastmcp_{prefix}_name_{}", encode_name(&name)), span);
    let cfgs = cfg_attrs(h);
    // All of the item on the name's span: rustc points its "defined multiple times" at the item's span.
    quote_spanned! {span=>
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(dead_code, non_upper_case_globals)]
        const #guard: () = ();
    }
}

/// `Box::pin(async move { body })`, spanned on the fn's name: when the user's future is not `Send`, rustc's
/// "future cannot be sent between threads safely" points there (its notes point into the body).
pub fn boxed_future(h: &Handler, body: TokenStream) -> TokenStream {
    quote_spanned! {h.item.sig.ident.span()=>
        ::std::boxed::Box::pin(async move { #body })
    }
}

/// Letters and digits stay; `_` doubles; anything else is `_<hex>_`. Unambiguous: after a `_` comes either
/// another `_` or hex digits closed by `_`.
fn encode_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            c if c.is_ascii_alphanumeric() => out.push(c),
            '_' => out.push_str("__"),
            c => out.push_str(&format!("_{:x}_", c as u32)),
        }
    }
    out
}

/// The local a parameter's value is bound to before the call.
pub fn arg_local(index: usize) -> Ident {
    format_ident!("__fastmcp_arg_{}", index)
}

/// The `access` method of a handler with `scopes` or `auth`: `Access::new(&[..], Some(check))`. The check
/// fn is bound to a `Check` on its path's span, so a fn of another signature is rustc's "mismatched types"
/// on the path the user wrote.
pub fn access_method(h: &Handler) -> Option<TokenStream> {
    let o = &h.options;
    if o.scopes.is_none() && o.auth.is_none() {
        return None;
    }
    let p = private();
    let scopes = o.scopes.iter().flat_map(|s| &s.items);
    let check = match &o.auth {
        Some(path) => {
            let check = check_binding(path);
            quote!({ #check ::core::option::Option::Some(__fastmcp_check) })
        }
        None => quote!(::core::option::Option::None),
    };
    Some(quote! {
        fn access(&self) -> #p::Access {
            #p::Access::new(&[#(#scopes),*], #check)
        }
    })
}

/// The `tags` method of a handler with `tags = [..]`.
pub fn tags_method(h: &Handler) -> Option<TokenStream> {
    let tags = &h.options.tags.as_ref()?.items;
    Some(quote! {
        fn tags(&self) -> ::std::vec::Vec<::std::string::String> {
            ::std::vec![#(::std::string::String::from(#tags)),*]
        }
    })
}

/// The `caching` method of a handler with `ttl` or `cache_scope`.
pub fn caching_method(h: &Handler) -> Option<TokenStream> {
    let o = &h.options;
    if o.ttl_ms.is_none() && o.cache_scope.is_none() {
        return None;
    }
    let p = private();
    let ttl = option(o.ttl_ms.map(|ms| quote!(::std::time::Duration::from_millis(#ms))));
    let scope = option(o.cache_scope.map(|scope| {
        let variant = format_ident!("{}", scope.variant());
        quote!(#p::CacheScope::#variant)
    }));
    Some(quote! {
        fn caching(&self) -> #p::Caching {
            #p::Caching { ttl: #ttl, scope: #scope }
        }
    })
}

/// `let __fastmcp_check: Check = path;`, all of it on the path's span (the type too, so rustc's "expected
/// due to this" points there rather than at the whole attribute).
fn check_binding(path: &syn::Path) -> TokenStream {
    let span = path.span();
    let p = private();
    let check = respan(quote!(#p::Check), span);
    quote_spanned! {span=>
        let __fastmcp_check: #check = #path;
    }
}

/// `tokens` with every token on `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let TokenTree::Group(g) = &tree {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tree = TokenTree::Group(group);
            } else {
                tree.set_span(span);
            }
            tree
        })
        .collect()
}

/// The check of an `auth` fn's type by itself, for an expansion that stops at other errors.
fn check_item(h: &Handler) -> Option<TokenStream> {
    let path = h.options.auth.as_ref()?;
    let check = check_binding(path);
    Some(quote!(fn __fastmcp_auth_check() { #check let _ = __fastmcp_check; }))
}

/// The `complete` method of prompts and resource templates, when some parameter declares a completer.
pub fn complete_method(h: &Handler) -> Option<TokenStream> {
    let p = private();
    let query = Ident::new("__fastmcp_query", Span::call_site());
    let arms: Vec<TokenStream> = h
        .params
        .iter()
        .filter_map(|param| {
            let named = param.named()?;
            let (_, completer) = param.attrs.complete.as_ref()?;
            let name = &named.name;
            let completion = match completer {
                Completer::List(list) => quote!(#p::complete_from_list(&#list, &#query.value)),
                Completer::Fn(f) => quote_spanned! {f.span()=>
                    #p::IntoCompletion::into_completion((#f)(#query).await)
                },
            };
            Some(quote!(#name => ::core::result::Result::Ok(#completion),))
        })
        .collect();
    if arms.is_empty() {
        return None;
    }
    Some(quote! {
        fn complete(
            &self,
            #query: #p::CompletionQuery,
        ) -> #p::BoxFuture<::core::result::Result<#p::Completion, #p::Error>> {
            ::std::boxed::Box::pin(async move {
                match #query.argument.as_str() {
                    #(#arms)*
                    _ => ::core::result::Result::Ok(::core::default::Default::default()),
                }
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::encode_name;

    #[test]
    fn encodes_names_unambiguously() {
        assert_eq!(encode_name("greet"), "greet");
        assert_eq!(encode_name("a_b"), "a__b");
        assert_eq!(encode_name("a.b"), "a_2e_b");
        assert_eq!(encode_name("a-b"), "a_2d_b");
        assert_ne!(encode_name("a_2e_b"), encode_name("a.b"));
        assert_ne!(encode_name("a__b"), encode_name("a_b"));
    }
}

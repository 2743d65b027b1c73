//! `#[elicit]` on a struct: `ElicitForm`, a flat form with one property per field, built once per type, and
//! `from_content`, which checks the client's untrusted answer against it and builds the struct.

use super::{option, private};
use crate::ctxt::Ctxt;
use crate::elicit::model::{DefaultLit, Field, Form};
use crate::elicit::options::{Given, Number, strip_ours};
use crate::elicit::ty::Shape;
use proc_macro2::{Literal, Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Ident, ItemStruct, LitStr};

/// Model, check, and the struct (minus the macro's attributes) with its impl; on errors, the errors and a
/// stub impl.
pub fn expand(args: TokenStream, item: ItemStruct) -> TokenStream {
    let cx = Ctxt::new();
    let form = Form::new(&cx, args, item);
    crate::elicit::check::form(&cx, &form);
    let mut item = form.item.clone();
    for field in item.fields.iter_mut() {
        strip_ours(&mut field.attrs);
    }
    match cx.check() {
        Ok(()) => {
            let impls = generate(&form);
            quote!(#item #impls)
        }
        Err(errors) => {
            let errors = errors.to_compile_error();
            let stub = stub(&item);
            quote!(#item #errors #stub)
        }
    }
}

/// The `default` as an expression of the field's `FormField::Default` type, and the string defaults of
/// other types (selects), to check against the choices at compile time. The checks passed.
fn default_tokens(field: &Field) -> (Option<TokenStream>, Option<(Span, Vec<LitStr>)>) {
    let (Some(given), Some(lit)) = (&field.options.default, &field.default) else { return (None, None) };
    let expr = &given.value;
    let span = expr.span();
    match (field.kind.shape, lit) {
        (Shape::Text | Shape::Other, DefaultLit::Str(s)) => {
            let choices = (field.kind.shape == Shape::Other).then(|| (span, vec![s.clone()]));
            (Some(s.to_token_stream()), choices)
        }
        // An integer literal for a float field: written as a float so it has the field's type.
        (Shape::Float, DefaultLit::Number(Number::Int(n))) => (Some(float_literal(*n as f64, span)), None),
        (Shape::Multi | Shape::Other, DefaultLit::Strs(items)) => {
            (Some(quote_spanned!(span=> &[#(#items),*])), Some((span, items.clone())))
        }
        _ => (Some(expr.to_token_stream()), None),
    }
}

fn float_literal(f: f64, span: Span) -> TokenStream {
    let mut lit = Literal::f64_unsuffixed(f.abs());
    lit.set_span(span);
    if f < 0.0 { quote_spanned!(span=> -#lit) } else { lit.into_token_stream() }
}

fn bound(private: &TokenStream, n: &Option<Given<Number>>) -> TokenStream {
    option(n.as_ref().map(|n| match n.value {
        Number::Int(i) => {
            let lit = Literal::i128_unsuffixed(i);
            quote!(#private::form::Bound::Int(#lit))
        }
        Number::Float(f) => {
            let lit = float_literal(f, Span::call_site());
            quote!(#private::form::Bound::Float(#lit))
        }
    }))
}

fn count(n: &Option<Given<u64>>) -> TokenStream {
    option(n.as_ref().map(|n| Literal::u64_suffixed(n.value)))
}

/// `FieldOptions { .. }` for one field.
fn field_options(private: &TokenStream, field: &Field) -> TokenStream {
    let o = &field.options;
    let title = option(o.title.as_ref().map(|t| &t.value));
    let description = option(field.docs.as_ref());
    let format = option(o.format.as_ref().map(|f| {
        let variant = Ident::new(f.value.variant(), Span::call_site());
        quote!(#private::form::Format::#variant)
    }));
    let (min_length, max_length) = (count(&o.min_length), count(&o.max_length));
    let (min_items, max_items) = (count(&o.min_items), count(&o.max_items));
    let (minimum, maximum) = (bound(private, &o.minimum), bound(private, &o.maximum));
    let enum_names = o.enum_names.is_some();
    quote! {
        #private::form::FieldOptions {
            title: #title,
            description: #description,
            min_length: #min_length,
            max_length: #max_length,
            format: #format,
            minimum: #minimum,
            maximum: #maximum,
            min_items: #min_items,
            max_items: #max_items,
            enum_names: #enum_names,
        }
    }
}

/// `tokens` with every token moved to `span`, so an error about them points at `span` (the option).
fn respan(tokens: &impl ToTokens, span: Span) -> TokenStream {
    fn go(tokens: TokenStream, span: Span) -> TokenStream {
        tokens
            .into_iter()
            .map(|mut t| {
                if let TokenTree::Group(g) = &t {
                    let mut group = proc_macro2::Group::new(g.delimiter(), go(g.stream(), span));
                    group.set_span(span);
                    t = TokenTree::Group(group);
                } else {
                    t.set_span(span);
                }
                t
            })
            .collect()
    }
    go(tokens.to_token_stream(), span)
}

fn generate(form: &Form) -> TokenStream {
    let private = private();
    let ident = &form.item.ident;
    let fields = &form.fields;
    let title = option(form.options.title.as_ref().map(|t| &t.value));
    let mut consts = Vec::new();
    let mut checks = Vec::new();
    let mut properties = Vec::new();
    let mut takes = Vec::new();
    let mut names = Vec::new();
    let mut idents = Vec::new();
    for (i, field) in fields.iter().enumerate() {
        let ty = &field.ty;
        let key = &field.key;
        let opts = format_ident!("__FASTMCP_FIELD_{}", i);
        let value = format_ident!("__fastmcp_field_{}", i);
        let field_options = field_options(&private, field);
        consts.push(quote!(const #opts: #private::form::FieldOptions = #field_options;));

        // Options the syntax could not check (the field's type is an enum, an alias, ..) are checked by
        // the traits, with the error on the option.
        let o = &field.options;
        let marker = [
            (o.min_length.as_ref().map(Given::span), "require_text"),
            (o.max_length.as_ref().map(Given::span), "require_text"),
            (o.format.as_ref().map(Given::span), "require_text"),
            (o.minimum.as_ref().map(Given::span), "require_number"),
            (o.maximum.as_ref().map(Given::span), "require_number"),
            (o.min_items.as_ref().map(Given::span), "require_multi_select"),
            (o.max_items.as_ref().map(Given::span), "require_multi_select"),
            (o.enum_names.as_ref().map(Given::span), "require_select"),
        ];
        if field.kind.shape == Shape::Other {
            for (span, marker) in marker {
                let Some(span) = span else { continue };
                let marker = Ident::new(marker, span);
                let ty = respan(ty, span);
                checks.push(quote_spanned!(span=> const _: fn() = #private::form::#marker::<#ty>;));
            }
        }
        let (default_tokens, default_choices) = default_tokens(field);
        if let Some((span, choices)) = &default_choices {
            // Evaluated at compile time; the panic is the error, on the `default`.
            let private = respan(&private, *span);
            let ty = respan(ty, *span);
            for choice in choices {
                let message = format!(
                    "`default = {:?}`: {:?} is not one of the choices of field `{}` (the wire values of its enum)",
                    choice.value(),
                    choice.value(),
                    field.ident.unraw()
                );
                checks.push(quote_spanned! {*span=>
                    const _: () = if !#private::form::has_choice(<#ty as #private::form::FormField>::SELECTABLE, #choice) {
                        ::core::panic!(#message)
                    };
                });
            }
        }

        let field_trait = quote_spanned!(ty.span()=> <#ty as #private::form::FormField>);
        // Spanned on the `default`, so a literal of the wrong type is an error there alone.
        let default = option(default_tokens.as_ref().zip(o.default.as_ref()).map(|(d, given)| {
            let span = given.value.span();
            let (ty, private) = (respan(ty, span), respan(&private, span));
            quote_spanned!(span=> <#ty as #private::form::FormField>::default_value(#d))
        }));
        properties.push(quote! {
            schema.property(#key, #field_trait::REQUIRED, #field_trait::property(&#opts), #default);
        });
        let default_ref = if default_tokens.is_some() {
            quote!(#private::form::default_of(__fastmcp_schema(), #key))
        } else {
            quote!(::core::option::Option::None)
        };
        takes.push(quote! {
            let #value = errors.check(#field_trait::take(&mut content, #key, &#opts, #default_ref));
        });
        names.push(value);
        idents.push(&field.ident);
    }
    let from_content = if fields.is_empty() {
        quote! {
            let _ = content;
            ::core::result::Result::Ok(Self {})
        }
    } else {
        quote! {
            let mut errors = #private::form::FormErrors::new();
            #(#takes)*
            match (#(#names,)*) {
                (#(::core::option::Option::Some(#names),)*) => ::core::result::Result::Ok(Self { #(#idents: #names),* }),
                _ => ::core::result::Result::Err(errors.into_message()),
            }
        }
    };
    quote! {
        const _: () = {
            #(#consts)*
            #(#checks)*

            fn __fastmcp_schema() -> &'static ::std::sync::Arc<#private::JsonObject> {
                static SCHEMA: ::std::sync::OnceLock<::std::sync::Arc<#private::JsonObject>> =
                    ::std::sync::OnceLock::new();
                SCHEMA.get_or_init(|| {
                    let mut schema = #private::form::FormSchema::new(#title);
                    #(#properties)*
                    ::std::sync::Arc::new(schema.finish())
                })
            }

            #[automatically_derived]
            impl #private::ElicitForm for #ident {
                fn requested_schema() -> #private::JsonObject {
                    ::core::clone::Clone::clone(&**__fastmcp_schema())
                }

                fn shared_schema() -> ::std::sync::Arc<#private::JsonObject> {
                    ::std::sync::Arc::clone(__fastmcp_schema())
                }

                fn from_content(
                    mut content: #private::JsonObject,
                ) -> ::core::result::Result<Self, ::std::string::String> {
                    #from_content
                }
            }
        };
    }
}

/// On errors: an `ElicitForm` that compiles (so uses of the type don't add errors of their own) and asks
/// for nothing.
fn stub(item: &ItemStruct) -> TokenStream {
    if !item.generics.params.is_empty() {
        return TokenStream::new();
    }
    let private = private();
    let ident = &item.ident;
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #private::ElicitForm for #ident {
                fn requested_schema() -> #private::JsonObject {
                    #private::JsonObject::new()
                }

                fn from_content(
                    _: #private::JsonObject,
                ) -> ::core::result::Result<Self, ::std::string::String> {
                    ::core::result::Result::Err(::std::string::String::from("this form did not compile"))
                }
            }
        };
    }
}

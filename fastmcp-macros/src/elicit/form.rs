//! `#[elicit]` on a struct: `ElicitForm`, a flat form with one property per field.

use super::options::{Given, Number, Options, Place, number_literal};
use super::ty::{FieldType, Shape, classify};
use super::{name_span, no_cfg, no_generics, strip};
use crate::ctxt::Ctxt;
use crate::docs::{self, Description};
use crate::expand::{option, private};
use proc_macro2::{Literal, Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Expr, ExprArray, ExprLit, Fields, Ident, ItemStruct, Lit, LitStr, Type};

/// One field as the form sees it.
struct Field {
    ident: Ident,
    ty: Type,
    /// The property name on the wire.
    key: String,
    key_span: Span,
    kind: FieldType,
    docs: Option<Description>,
    options: Options,
    /// The `default` as an expression of the field's `FormField::Default` type.
    default: Option<TokenStream>,
    /// The string `default`s to check against the field's choices at compile time.
    default_choices: Option<(Span, Vec<LitStr>)>,
}

pub fn expand(args: TokenStream, mut item: ItemStruct) -> TokenStream {
    let cx = Ctxt::new();
    let options = Options::from_args(&cx, Place::Struct, args);
    no_generics(&cx, &item.generics, "structs");
    let rename_all = options.rename_all.as_ref().map(|r| r.value);
    let fields: Vec<Field> = match &item.fields {
        Fields::Named(named) => named
            .named
            .iter()
            .filter_map(|f| {
                let ident = f.ident.clone()?;
                no_cfg(&cx, &f.attrs, "a field");
                let field_options = Options::from_attrs(&cx, Place::Field, &f.attrs);
                let key = match (&field_options.rename, rename_all) {
                    (Some(r), _) => r.value.value(),
                    (None, Some(rule)) => rule.apply_to_field(&ident.unraw().to_string()),
                    (None, None) => ident.unraw().to_string(),
                };
                let mut field = Field {
                    key_span: name_span(field_options.rename.as_ref(), &ident),
                    ident,
                    ty: f.ty.clone(),
                    key,
                    kind: classify(&f.ty),
                    docs: docs::description(&f.attrs),
                    options: field_options,
                    default: None,
                    default_choices: None,
                };
                check_field(&cx, &mut field);
                Some(field)
            })
            .collect(),
        Fields::Unnamed(unnamed) => {
            cx.error_spanned_by(
                unnamed,
                "an #[elicit] struct needs named fields: each field is one property of the form, named after it",
            );
            Vec::new()
        }
        Fields::Unit => {
            cx.error_spanned_by(
                &item.ident,
                format!(
                    "an #[elicit] struct needs named fields, one per property of the form (for a form with no fields, write `struct {} {{}}`)",
                    item.ident
                ),
            );
            Vec::new()
        }
    };
    for (i, field) in fields.iter().enumerate() {
        if fields[..i].iter().any(|f| f.key == field.key) {
            cx.error_at(field.key_span, format!("two fields of this form are named `{}` on the wire", field.key));
        }
    }
    for field in item.fields.iter_mut() {
        strip(&mut field.attrs);
    }
    match cx.check() {
        Ok(()) => {
            let form = generate(&item, &options, &fields);
            quote!(#item #form)
        }
        Err(errors) => {
            let errors = errors.to_compile_error();
            let stub = stub(&item);
            quote!(#item #errors #stub)
        }
    }
}

/// The checks the syntax allows: options that don't apply to the field's kind, bounds that cross, a
/// `default` of the wrong kind or out of bounds. Fills in the field's `default` tokens.
fn check_field(cx: &Ctxt, field: &mut Field) {
    let shape = field.kind.shape;
    let o = &field.options;
    for (name, key) in o.given_keys() {
        if !shape.options().contains(&name) {
            let mut valid: Vec<String> = ["title", "rename", "default"].iter().map(|k| format!("`{k}`")).collect();
            valid.extend(shape.options().iter().map(|k| format!("`{k}`")));
            cx.error_spanned_by(
                key,
                format!(
                    "`{name}` applies to {}, and `{}` is {} (its options: {})",
                    Shape::owner_of(name),
                    field.ident.unraw(),
                    shape.describe(),
                    valid.join(", ")
                ),
            );
        }
    }
    crossed(cx, "min_length", &o.min_length, "max_length", &o.max_length, |n| *n as f64);
    crossed(cx, "min_items", &o.min_items, "max_items", &o.max_items, |n| *n as f64);
    crossed(cx, "minimum", &o.minimum, "maximum", &o.maximum, |n| n.as_f64());
    if let Shape::Int(name, min, max) = shape {
        if let Some(m) = o.minimum.as_ref().filter(|m| m.value.as_f64() > max as f64) {
            cx.error_at(m.span(), format!("`minimum` is more than the largest `{name}` ({max})"));
        }
        if let Some(m) = o.maximum.as_ref().filter(|m| m.value.as_f64() < min as f64) {
            cx.error_at(m.span(), format!("`maximum` is less than the smallest `{name}` ({min})"));
        }
    }
    if let Some(default) = &o.default {
        let (tokens, choices) = default_tokens(cx, field, default);
        field.default = tokens;
        field.default_choices = choices;
    }
}

fn crossed<T>(cx: &Ctxt, lo: &str, min: &Option<Given<T>>, hi: &str, max: &Option<Given<T>>, f: impl Fn(&T) -> f64) {
    if let (Some(min), Some(max)) = (min, max)
        && f(&min.value) > f(&max.value)
    {
        cx.error_at(max.span(), format!("`{hi}` is less than `{lo}`: no value could satisfy both"));
    }
}

type DefaultTokens = (Option<TokenStream>, Option<(Span, Vec<LitStr>)>);

/// The `default` as an expression of the field's `FormField::Default` type, checked where the field's
/// kind is known; string defaults of other types (selects) are checked against the choices at compile time.
fn default_tokens(cx: &Ctxt, field: &Field, default: &Given<Expr>) -> DefaultTokens {
    let expr = &default.value;
    let o = &field.options;
    let fail = |what: &str| {
        cx.error_spanned_by(expr, format!("`default` of {} is {what}", field.kind.shape.describe()));
        (None, None)
    };
    match field.kind.shape {
        Shape::Text => {
            let Some(s) = str_lit(expr) else { return fail("a string literal, like `default = \"...\"`") };
            let chars = s.value().chars().count() as u64;
            if let Some(min) = o.min_length.as_ref().filter(|m| chars < m.value) {
                cx.error_spanned_by(expr, format!("this `default` is shorter than `min_length = {}`", min.value));
            }
            if let Some(max) = o.max_length.as_ref().filter(|m| chars > m.value) {
                cx.error_spanned_by(expr, format!("this `default` is longer than `max_length = {}`", max.value));
            }
            (Some(s.to_token_stream()), None)
        }
        Shape::Bool => match expr {
            Expr::Lit(ExprLit { lit: Lit::Bool(_), .. }) => (Some(expr.to_token_stream()), None),
            _ => fail("`true` or `false`"),
        },
        Shape::Int(..) | Shape::Float => {
            let number = number_literal(expr);
            let is_int = matches!(number, Some(Number::Int(_)));
            let tokens = match (field.kind.shape, number) {
                (Shape::Int(..), Some(Number::Int(_))) => expr.to_token_stream(),
                (Shape::Int(..), _) => return fail("an integer literal, like `default = 1`"),
                // An integer literal for a float field: written as a float so it has the field's type.
                (_, Some(n)) if is_int => float_literal(n.as_f64(), expr.span()),
                (_, Some(_)) => expr.to_token_stream(),
                (_, None) => return fail("a number literal, like `default = 0.5`"),
            };
            let value = number.map_or(0.0, Number::as_f64);
            if o.minimum.as_ref().is_some_and(|m| value < m.value.as_f64()) {
                cx.error_spanned_by(expr, "this `default` is less than `minimum`");
            }
            if o.maximum.as_ref().is_some_and(|m| value > m.value.as_f64()) {
                cx.error_spanned_by(expr, "this `default` is more than `maximum`");
            }
            (Some(tokens), None)
        }
        Shape::Multi => {
            let Some(items) = str_array(expr) else {
                return fail("a list of the enum's choices, like `default = [\"a\", \"b\"]`");
            };
            let n = items.len() as u64;
            if o.min_items.as_ref().is_some_and(|m| n < m.value) || o.max_items.as_ref().is_some_and(|m| n > m.value) {
                cx.error_spanned_by(expr, "this `default` has a number of choices outside `min_items`..`max_items`");
            }
            (Some(quote_spanned!(expr.span()=> &[#(#items),*])), Some((expr.span(), items)))
        }
        Shape::Other => {
            if let Some(s) = str_lit(expr) {
                (Some(s.to_token_stream()), Some((expr.span(), vec![s.clone()])))
            } else if let Some(items) = str_array(expr) {
                (Some(quote_spanned!(expr.span()=> &[#(#items),*])), Some((expr.span(), items)))
            } else {
                (Some(expr.to_token_stream()), None)
            }
        }
    }
}

fn str_lit(expr: &Expr) -> Option<&LitStr> {
    match expr {
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Some(s),
        _ => None,
    }
}

fn str_array(expr: &Expr) -> Option<Vec<LitStr>> {
    let Expr::Array(ExprArray { elems, .. }) = expr else { return None };
    elems.iter().map(|e| str_lit(e).cloned()).collect()
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

fn generate(item: &ItemStruct, options: &Options, fields: &[Field]) -> TokenStream {
    let private = private();
    let ident = &item.ident;
    let title = option(options.title.as_ref().map(|t| &t.value));
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
        if let Some((span, choices)) = &field.default_choices {
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
        let default = option(field.default.as_ref().zip(o.default.as_ref()).map(|(d, given)| {
            let span = given.value.span();
            let (ty, private) = (respan(ty, span), respan(&private, span));
            quote_spanned!(span=> <#ty as #private::form::FormField>::default_value(#d))
        }));
        properties.push(quote! {
            schema.property(#key, #field_trait::REQUIRED, #field_trait::property(&#opts), #default);
        });
        let default_ref = if field.default.is_some() {
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

            fn __fastmcp_schema() -> &'static #private::JsonObject {
                static SCHEMA: ::std::sync::OnceLock<#private::JsonObject> = ::std::sync::OnceLock::new();
                SCHEMA.get_or_init(|| {
                    let mut schema = #private::form::FormSchema::new(#title);
                    #(#properties)*
                    schema.finish()
                })
            }

            #[automatically_derived]
            impl #private::ElicitForm for #ident {
                fn requested_schema() -> #private::JsonObject {
                    ::core::clone::Clone::clone(__fastmcp_schema())
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

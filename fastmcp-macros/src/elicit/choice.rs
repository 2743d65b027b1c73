//! `#[elicit]` on an enum of unit variants: `ElicitChoice` (the choices, and the conversion from and to wire
//! values, with no serde involved) and `FormField` (a single select; `Vec` of it is a multi-select).

use super::options::{Options, Place};
use super::{name_span, no_cfg, no_generics, strip};
use crate::ctxt::Ctxt;
use crate::docs::{self, Description};
use crate::expand::{option, private};
use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::ext::IdentExt;
use syn::{Fields, Ident, ItemEnum};

struct Variant {
    ident: Ident,
    /// The value on the wire.
    value: String,
    title: Option<Description>,
}

pub fn expand(args: TokenStream, mut item: ItemEnum) -> TokenStream {
    let cx = Ctxt::new();
    let options = Options::from_args(&cx, Place::Enum, args);
    no_generics(&cx, &item.generics, "enums");
    let rename_all = options.rename_all.as_ref().map(|r| r.value);
    if item.variants.is_empty() {
        cx.error_spanned_by(&item.ident, "an #[elicit] enum needs at least one variant to choose from");
    }
    let mut variants: Vec<Variant> = Vec::new();
    for v in &item.variants {
        no_cfg(&cx, &v.attrs, "a variant");
        let variant_options = Options::from_attrs(&cx, Place::Variant, &v.attrs);
        if !matches!(v.fields, Fields::Unit) {
            let name = v.ident.unraw();
            cx.error_spanned_by(
                &v.fields,
                format!(
                    "the variants of an #[elicit] enum are the choices of a select, so they can't carry data: make `{name}` a unit variant (ask for the data with a form of its own)"
                ),
            );
        }
        let value = match (&variant_options.rename, rename_all) {
            (Some(r), _) => r.value.value(),
            (None, Some(rule)) => rule.apply_to_variant(&v.ident.unraw().to_string()),
            (None, None) => v.ident.unraw().to_string(),
        };
        let span = name_span(variant_options.rename.as_ref(), &v.ident);
        if variants.iter().any(|other| other.value == value) {
            cx.error_at(span, format!("two variants of this enum have the wire value `{value}`"));
        }
        let title = match variant_options.title {
            Some(t) => Some(Description::text(t.value.value())),
            None => docs::description(&v.attrs),
        };
        variants.push(Variant { ident: v.ident.clone(), value, title });
    }
    for v in item.variants.iter_mut() {
        strip(&mut v.attrs);
    }
    match cx.check() {
        Ok(()) => {
            let choice = generate(&item, &variants);
            quote!(#item #choice)
        }
        Err(errors) => {
            let errors = errors.to_compile_error();
            // Keeps uses of the enum (as a field, `Vec<_>`) from adding errors of their own.
            let stub = if item.generics.params.is_empty() { generate(&item, &[]) } else { TokenStream::new() };
            quote!(#item #errors #stub)
        }
    }
}

/// The impls; with no `variants` (after an error), an `ElicitChoice` with no choices.
fn generate(item: &ItemEnum, variants: &[Variant]) -> TokenStream {
    let private = private();
    let ident = &item.ident;
    let choices = variants.iter().map(|v| {
        let value = &v.value;
        let title = option(v.title.as_ref().map(ToTokens::to_token_stream));
        quote!(#private::form::Choice::new(#value, #title))
    });
    let values: Vec<&String> = variants.iter().map(|v| &v.value).collect();
    let idents: Vec<&Ident> = variants.iter().map(|v| &v.ident).collect();
    let choice_body = if variants.is_empty() {
        quote!(match *self {
            _ => "",
        })
    } else {
        quote!(match *self { #(Self::#idents => #values,)* })
    };
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #private::form::ElicitChoice for #ident {
                const CHOICES: &'static [#private::form::Choice] = &[#(#choices),*];

                fn from_choice(value: &str) -> ::core::option::Option<Self> {
                    match value {
                        #(#values => ::core::option::Option::Some(Self::#idents),)*
                        _ => ::core::option::Option::None,
                    }
                }

                fn choice(&self) -> &'static str {
                    #choice_body
                }
            }

            #[automatically_derived]
            impl #private::form::FormField for #ident {
                type Default = &'static str;
                const SELECTABLE: &'static [#private::form::Choice] =
                    <Self as #private::form::ElicitChoice>::CHOICES;

                fn property(options: &#private::form::FieldOptions) -> #private::JsonObject {
                    #private::form::select_property::<Self>(options)
                }

                fn default_value(default: &'static str) -> #private::serde_json::Value {
                    #private::serde_json::Value::from(default)
                }

                fn from_value(
                    value: #private::serde_json::Value,
                    _: &#private::form::FieldOptions,
                ) -> ::core::result::Result<Self, ::std::string::String> {
                    #private::form::select_from_value::<Self>(value)
                }
            }

            #[automatically_derived]
            impl #private::form::SelectField for #ident {}
        };
    }
}

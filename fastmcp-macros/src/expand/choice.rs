//! `#[elicit]` on an enum of unit variants: `ElicitChoice` (the choices, and the conversion from and to wire
//! values, with no serde involved) and `FormField` (a single select; `Vec` of it is a multi-select).

use super::{option, private};
use crate::ctxt::Ctxt;
use crate::elicit::model::{Choice, Variant};
use crate::elicit::options::strip_ours;
use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Ident, ItemEnum};

/// Model, check, and the enum (minus the macro's attributes) with its impls; on errors, the errors and impls
/// with no choices.
pub fn expand(args: TokenStream, item: ItemEnum) -> TokenStream {
    let cx = Ctxt::new();
    let choice = Choice::new(&cx, args, item);
    crate::elicit::check::choice(&cx, &choice);
    let mut item = choice.item.clone();
    for v in item.variants.iter_mut() {
        strip_ours(&mut v.attrs);
    }
    match cx.check() {
        Ok(()) => {
            let impls = generate(&item, &choice.variants);
            quote!(#item #impls)
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

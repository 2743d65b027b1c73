//! `#[elicit]`: the restricted elicitation form schema and the validation of answers; on an `async fn`, a
//! sub-flow (compiled by `expand::subflow`, like a handler's body).
//!
//! On a struct with named fields it implements `ElicitForm` (`form.rs`): a flat `requestedSchema` built once
//! per type, and `from_content`, which checks the client's untrusted answer against it and builds the
//! struct. On an enum of unit variants it implements `ElicitChoice` and `FormField` (`choice.rs`), so a
//! field of the enum is a single select and a `Vec` of it a multi-select.
//!
//! What a field's type may be is the runtime's `FormField` trait, whose `on_unimplemented` message says what
//! a form may hold; the macro checks what the syntax shows (an option on the wrong kind of field, a
//! `default` of the wrong kind, bounds that cross) and leaves the rest to the traits. Errors accumulate and
//! are emitted next to the item, minus the `#[elicit(..)]` attributes only the macro understands.

mod case;
mod choice;
mod form;
mod options;
mod ty;

use crate::ctxt::Ctxt;
use options::is_ours;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::{Attribute, Generics, Item};

pub fn run(args: TokenStream, item: TokenStream) -> TokenStream {
    let out = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Struct(s)) => form::expand(args, s),
        Ok(Item::Enum(e)) => choice::expand(args, e),
        // A sub-flow: compiled like a handler's body (a fn whose body doesn't parse yet is reported by rustc).
        Ok(Item::Fn(_)) => return crate::expand::run(crate::model::Kind::SubFlow, args, item),
        Err(_) if syn::parse2::<crate::model::ItemFn>(item.clone()).is_ok() => {
            return crate::expand::run(crate::model::Kind::SubFlow, args, item);
        }
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
    if std::env::var_os("FASTMCP_MACROS_DEBUG").is_some() {
        eprintln!("// ---- #[elicit] expansion\n{out}");
    }
    out
}

/// The form's schema is built once per type, so the type can't be generic.
fn no_generics(cx: &Ctxt, generics: &Generics, what: &str) {
    if !generics.params.is_empty() {
        cx.error_spanned_by(
            generics,
            format!("#[elicit] {what} can't be generic: its schema is built once for the type; use concrete types"),
        );
    } else if let Some(wc) = &generics.where_clause {
        cx.error_spanned_by(wc, format!("#[elicit] {what} can't have a `where` clause"));
    }
}

/// Rejects `#[cfg]` on a field or variant: the schema and the conversion must see the same members.
fn no_cfg(cx: &Ctxt, attrs: &[Attribute], what: &str) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr")) {
        cx.error_spanned_by(attr, format!("`#[cfg]` on {what} is not supported by #[elicit]"));
    }
}

/// Removes the macro's own attributes; everything else (docs, serde, lints) stays on the item.
fn strip(attrs: &mut Vec<Attribute>) {
    attrs.retain(|a| !is_ours(a));
}

/// The span a duplicate-name error points at: the `rename` if there is one, else the member's name.
fn name_span(rename: Option<&options::Given<syn::LitStr>>, ident: &syn::Ident) -> Span {
    rename.map_or_else(|| ident.span(), |r| r.value.span())
}

//! The model of an `#[elicit]` struct (a form) or enum (a choice): each field or variant as the form sees it,
//! built from the syntax and the `#[elicit(..)]` options, with the errors of what can't be modelled
//! recorded. `elicit::check` validates it; `expand::form` and `expand::choice` generate from it.

use super::options::{Given, Number, Options, Place, number_literal};
use super::ty::{FieldType, classify};
use crate::ctxt::Ctxt;
use crate::docs::{self, Description};
use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::{Attribute, Expr, ExprArray, ExprLit, Fields, Ident, ItemEnum, ItemStruct, Lit, LitStr, Type};

/// An `#[elicit]` struct.
pub struct Form {
    pub item: ItemStruct,
    pub options: Options,
    /// Its named fields (none when it has unnamed ones, or none: that error is recorded).
    pub fields: Vec<Field>,
}

/// One field as the form sees it.
pub struct Field {
    pub ident: Ident,
    pub ty: Type,
    /// The property name on the wire.
    pub key: String,
    /// Where an error about the name points: the `rename`, if any, else the field's name.
    pub key_span: Span,
    pub kind: FieldType,
    pub docs: Option<Description>,
    pub options: Options,
    /// What its `default` literal is, if it has one.
    pub default: Option<DefaultLit>,
    /// `#[cfg]` and `#[cfg_attr]` on the field (which `#[elicit]` refuses).
    pub cfgs: Vec<Attribute>,
}

/// A `default = ..` as its literal reads: the checks hold it against the field's kind, the codegen writes
/// it out.
pub enum DefaultLit {
    Str(LitStr),
    /// `["a", "b"]`.
    Strs(Vec<LitStr>),
    Bool,
    Number(Number),
    /// Anything else (an expression the field's type must take).
    Other,
}

/// An `#[elicit]` enum: the choices of a select.
pub struct Choice {
    pub item: ItemEnum,
    pub variants: Vec<Variant>,
}

pub struct Variant {
    pub ident: Ident,
    /// The value on the wire.
    pub value: String,
    /// Where an error about the value points: the `rename`, if any, else the variant's name.
    pub value_span: Span,
    pub title: Option<Description>,
    /// The variant's data, which a choice can't carry.
    pub fields: Fields,
    pub cfgs: Vec<Attribute>,
}

impl Form {
    pub fn new(cx: &Ctxt, args: TokenStream, item: ItemStruct) -> Form {
        let options = Options::from_args(cx, Place::Struct, args);
        let rename_all = options.rename_all.as_ref().map(|r| r.value);
        let fields = match &item.fields {
            Fields::Named(named) => named
                .named
                .iter()
                .filter_map(|f| {
                    let ident = f.ident.clone()?;
                    let options = Options::from_attrs(cx, Place::Field, &f.attrs);
                    let key = match (&options.rename, rename_all) {
                        (Some(r), _) => r.value.value(),
                        (None, Some(rule)) => rule.apply_to_field(&ident.unraw().to_string()),
                        (None, None) => ident.unraw().to_string(),
                    };
                    Some(Field {
                        key_span: name_span(options.rename.as_ref(), &ident),
                        key,
                        ty: f.ty.clone(),
                        kind: classify(&f.ty),
                        docs: docs::description(&f.attrs),
                        default: options.default.as_ref().map(|d| DefaultLit::of(&d.value)),
                        cfgs: cfgs(&f.attrs),
                        options,
                        ident,
                    })
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
        Form { item, options, fields }
    }
}

impl Choice {
    pub fn new(cx: &Ctxt, args: TokenStream, item: ItemEnum) -> Choice {
        let options = Options::from_args(cx, Place::Enum, args);
        let rename_all = options.rename_all.as_ref().map(|r| r.value);
        let variants = item
            .variants
            .iter()
            .map(|v| {
                let options = Options::from_attrs(cx, Place::Variant, &v.attrs);
                let value = match (&options.rename, rename_all) {
                    (Some(r), _) => r.value.value(),
                    (None, Some(rule)) => rule.apply_to_variant(&v.ident.unraw().to_string()),
                    (None, None) => v.ident.unraw().to_string(),
                };
                let title = match &options.title {
                    Some(t) => Some(Description::text(t.value.value())),
                    None => docs::description(&v.attrs),
                };
                Variant {
                    ident: v.ident.clone(),
                    value,
                    value_span: name_span(options.rename.as_ref(), &v.ident),
                    title,
                    fields: v.fields.clone(),
                    cfgs: cfgs(&v.attrs),
                }
            })
            .collect();
        Choice { item, variants }
    }
}

impl DefaultLit {
    fn of(expr: &Expr) -> DefaultLit {
        if let Some(s) = str_lit(expr) {
            return DefaultLit::Str(s.clone());
        }
        if let Expr::Array(ExprArray { elems, .. }) = expr
            && let Some(items) = elems.iter().map(|e| str_lit(e).cloned()).collect::<Option<Vec<_>>>()
        {
            return DefaultLit::Strs(items);
        }
        if let Expr::Lit(ExprLit { lit: Lit::Bool(_), .. }) = expr {
            return DefaultLit::Bool;
        }
        number_literal(expr).map_or(DefaultLit::Other, DefaultLit::Number)
    }
}

fn str_lit(expr: &Expr) -> Option<&LitStr> {
    match expr {
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Some(s),
        _ => None,
    }
}

fn cfgs(attrs: &[Attribute]) -> Vec<Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr")).cloned().collect()
}

/// The span a duplicate-name error points at: the `rename` if there is one, else the member's name.
fn name_span(rename: Option<&Given<LitStr>>, ident: &Ident) -> Span {
    rename.map_or_else(|| ident.span(), |r| r.value.span())
}

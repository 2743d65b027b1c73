//! The checks the syntax allows on a modelled form or choice: options that don't apply to a field's kind,
//! bounds that cross, a `default` of the wrong kind or out of bounds, names that clash on the wire, and the
//! shapes `#[elicit]` refuses. What a field's type may be is left to the runtime's `FormField` trait, whose
//! `on_unimplemented` message says what a form may hold.

use super::model::{Choice, DefaultLit, Field, Form};
use super::options::{Given, Number};
use super::ty::Shape;
use crate::ctxt::Ctxt;
use syn::ext::IdentExt;
use syn::{Attribute, Fields, Generics};

pub fn form(cx: &Ctxt, form: &Form) {
    no_generics(cx, &form.item.generics, "structs");
    for field in &form.fields {
        no_cfg(cx, &field.cfgs, "a field");
        options_apply(cx, field);
        bounds(cx, field);
        default(cx, field);
    }
    for (i, field) in form.fields.iter().enumerate() {
        if form.fields[..i].iter().any(|f| f.key == field.key) {
            cx.error_at(field.key_span, format!("two fields of this form are named `{}` on the wire", field.key));
        }
    }
}

pub fn choice(cx: &Ctxt, choice: &Choice) {
    no_generics(cx, &choice.item.generics, "enums");
    if choice.variants.is_empty() {
        cx.error_spanned_by(&choice.item.ident, "an #[elicit] enum needs at least one variant to choose from");
    }
    for (i, v) in choice.variants.iter().enumerate() {
        no_cfg(cx, &v.cfgs, "a variant");
        if !matches!(v.fields, Fields::Unit) {
            let name = v.ident.unraw();
            cx.error_spanned_by(
                &v.fields,
                format!(
                    "the variants of an #[elicit] enum are the choices of a select, so they can't carry data: make `{name}` a unit variant (ask for the data with a form of its own)"
                ),
            );
        }
        if choice.variants[..i].iter().any(|other| other.value == v.value) {
            cx.error_at(v.value_span, format!("two variants of this enum have the wire value `{}`", v.value));
        }
    }
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
fn no_cfg(cx: &Ctxt, cfgs: &[Attribute], what: &str) {
    for attr in cfgs {
        cx.error_spanned_by(attr, format!("`#[cfg]` on {what} is not supported by #[elicit]"));
    }
}

/// Each option given applies to the field's kind (as far as the syntax shows it).
fn options_apply(cx: &Ctxt, field: &Field) {
    let shape = field.kind.shape;
    for (name, key) in field.options.given_keys() {
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
}

/// Bounds some value can satisfy, within the range of an integer field.
fn bounds(cx: &Ctxt, field: &Field) {
    let o = &field.options;
    crossed(cx, "min_length", &o.min_length, "max_length", &o.max_length, |n| *n as f64);
    crossed(cx, "min_items", &o.min_items, "max_items", &o.max_items, |n| *n as f64);
    crossed(cx, "minimum", &o.minimum, "maximum", &o.maximum, |n| n.as_f64());
    if let Shape::Int(name, min, max) = field.kind.shape {
        if let Some(m) = o.minimum.as_ref().filter(|m| m.value.as_f64() > max as f64) {
            cx.error_at(m.span(), format!("`minimum` is more than the largest `{name}` ({max})"));
        }
        if let Some(m) = o.maximum.as_ref().filter(|m| m.value.as_f64() < min as f64) {
            cx.error_at(m.span(), format!("`maximum` is less than the smallest `{name}` ({min})"));
        }
    }
}

fn crossed<T>(cx: &Ctxt, lo: &str, min: &Option<Given<T>>, hi: &str, max: &Option<Given<T>>, f: impl Fn(&T) -> f64) {
    if let (Some(min), Some(max)) = (min, max)
        && f(&min.value) > f(&max.value)
    {
        cx.error_at(max.span(), format!("`{hi}` is less than `{lo}`: no value could satisfy both"));
    }
}

/// The `default` is of the field's kind and within its bounds, where the kind is known; string defaults of
/// other types (selects) are checked against the choices at compile time, by the expansion.
fn default(cx: &Ctxt, field: &Field) {
    let (Some(given), Some(lit)) = (&field.options.default, &field.default) else { return };
    let expr = &given.value;
    let o = &field.options;
    let fail =
        |what: &str| cx.error_spanned_by(expr, format!("`default` of {} is {what}", field.kind.shape.describe()));
    match (field.kind.shape, lit) {
        (Shape::Text, DefaultLit::Str(s)) => {
            let chars = s.value().chars().count() as u64;
            if let Some(min) = o.min_length.as_ref().filter(|m| chars < m.value) {
                cx.error_spanned_by(expr, format!("this `default` is shorter than `min_length = {}`", min.value));
            }
            if let Some(max) = o.max_length.as_ref().filter(|m| chars > m.value) {
                cx.error_spanned_by(expr, format!("this `default` is longer than `max_length = {}`", max.value));
            }
        }
        (Shape::Text, _) => fail("a string literal, like `default = \"...\"`"),
        (Shape::Bool, DefaultLit::Bool) => {}
        (Shape::Bool, _) => fail("`true` or `false`"),
        (Shape::Int(..), DefaultLit::Number(n @ Number::Int(_))) | (Shape::Float, DefaultLit::Number(n)) => {
            let value = n.as_f64();
            if o.minimum.as_ref().is_some_and(|m| value < m.value.as_f64()) {
                cx.error_spanned_by(expr, "this `default` is less than `minimum`");
            }
            if o.maximum.as_ref().is_some_and(|m| value > m.value.as_f64()) {
                cx.error_spanned_by(expr, "this `default` is more than `maximum`");
            }
        }
        (Shape::Int(..), _) => fail("an integer literal, like `default = 1`"),
        (Shape::Float, _) => fail("a number literal, like `default = 0.5`"),
        (Shape::Multi, DefaultLit::Strs(items)) => {
            let n = items.len() as u64;
            if o.min_items.as_ref().is_some_and(|m| n < m.value) || o.max_items.as_ref().is_some_and(|m| n > m.value) {
                cx.error_spanned_by(expr, "this `default` has a number of choices outside `min_items`..`max_items`");
            }
        }
        (Shape::Multi, _) => fail("a list of the enum's choices, like `default = [\"a\", \"b\"]`"),
        (Shape::Other, _) => {}
    }
}

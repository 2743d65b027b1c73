//! `#[elicit(...)]` options: on the struct or enum (the macro's arguments), on a field, on a variant.
//!
//! The rules of `attr.rs`: a duplicate key is an error, an unknown key lists the valid ones and suggests the
//! closest, a malformed value says what it should look like, and parsing goes on after every problem.

use super::case::RenameRule;
use crate::ctxt::Ctxt;
use crate::meta::{closest, list, path_string, string};
use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, ExprUnary, Lit, LitStr, Meta, Path, Token, UnOp};

/// Where options stand; each place has its own keys.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Struct,
    Enum,
    Field,
    Variant,
}

impl Place {
    pub fn keys(self) -> &'static [&'static str] {
        match self {
            Place::Struct => &["title", "rename_all"],
            Place::Enum => &["rename_all"],
            Place::Field => &[
                "title",
                "rename",
                "default",
                "min_length",
                "max_length",
                "format",
                "minimum",
                "maximum",
                "min_items",
                "max_items",
                "enum_names",
            ],
            Place::Variant => &["title", "rename"],
        }
    }

    fn what(self) -> &'static str {
        match self {
            Place::Struct => "#[elicit] on a struct",
            Place::Enum => "#[elicit] on an enum",
            Place::Field => "a field of an #[elicit] struct",
            Place::Variant => "a variant of an #[elicit] enum",
        }
    }
}

/// An option's value and the key it was given under (errors about the option point at the key).
pub struct Given<T> {
    pub key: Path,
    pub value: T,
}

impl<T> Given<T> {
    fn at(meta: &Meta, value: T) -> Self {
        Given { key: meta.path().clone(), value }
    }

    pub fn span(&self) -> Span {
        self.key.span()
    }
}

/// A `minimum` / `maximum` literal.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Number {
    Int(i128),
    Float(f64),
}

impl Number {
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }
}

/// The `format`s the restricted schema allows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Email,
    Uri,
    Date,
    DateTime,
}

impl Format {
    const NAMES: &'static [&'static str] = &["email", "uri", "date", "date-time"];

    fn parse(s: &str) -> Option<Format> {
        Some(match s {
            "email" => Format::Email,
            "uri" => Format::Uri,
            "date" => Format::Date,
            "date-time" => Format::DateTime,
            _ => return None,
        })
    }

    pub fn variant(self) -> &'static str {
        match self {
            Format::Email => "Email",
            Format::Uri => "Uri",
            Format::Date => "Date",
            Format::DateTime => "DateTime",
        }
    }
}

/// Every option any place takes; each place fills only its own keys.
#[derive(Default)]
pub struct Options {
    pub title: Option<Given<LitStr>>,
    pub rename: Option<Given<LitStr>>,
    pub rename_all: Option<Given<RenameRule>>,
    pub default: Option<Given<Expr>>,
    pub min_length: Option<Given<u64>>,
    pub max_length: Option<Given<u64>>,
    pub format: Option<Given<Format>>,
    pub minimum: Option<Given<Number>>,
    pub maximum: Option<Given<Number>>,
    pub min_items: Option<Given<u64>>,
    pub max_items: Option<Given<u64>>,
    /// A titled single select as the legacy `enum` + `enumNames` instead of `oneOf`.
    pub enum_names: Option<Given<bool>>,
}

impl Options {
    /// The macro's own arguments: `#[elicit(title = "..")]`.
    pub fn from_args(cx: &Ctxt, place: Place, args: TokenStream) -> Options {
        let mut options = Options::default();
        match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args) {
            Ok(metas) => options.add_all(cx, place, metas),
            Err(e) => cx.syn_error(e),
        }
        options
    }

    /// The `#[elicit(...)]` attributes of a field or variant. Other attributes are left alone.
    pub fn from_attrs(cx: &Ctxt, place: Place, attrs: &[Attribute]) -> Options {
        let mut options = Options::default();
        for attr in attrs.iter().filter(|a| is_ours(a)) {
            let Meta::List(_) = &attr.meta else {
                cx.error_spanned_by(
                    attr,
                    format!("expected options, like `#[elicit(title = \"...\")]` (valid: {})", list(place.keys())),
                );
                continue;
            };
            match attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) {
                Ok(metas) => options.add_all(cx, place, metas),
                Err(e) => cx.syn_error(e),
            }
        }
        options
    }

    fn add_all(&mut self, cx: &Ctxt, place: Place, metas: Punctuated<Meta, Token![,]>) {
        for meta in metas {
            let key = path_string(meta.path());
            if !place.keys().contains(&key.as_str()) {
                unknown_key(cx, place, &meta, &key);
            } else if self.has(&key) {
                cx.error_spanned_by(meta.path(), format!("duplicate option `{key}`"));
            } else {
                self.set(cx, &key, &meta);
            }
        }
    }

    fn has(&self, key: &str) -> bool {
        match key {
            "title" => self.title.is_some(),
            "rename" => self.rename.is_some(),
            "rename_all" => self.rename_all.is_some(),
            "default" => self.default.is_some(),
            "min_length" => self.min_length.is_some(),
            "max_length" => self.max_length.is_some(),
            "format" => self.format.is_some(),
            "minimum" => self.minimum.is_some(),
            "maximum" => self.maximum.is_some(),
            "min_items" => self.min_items.is_some(),
            "max_items" => self.max_items.is_some(),
            "enum_names" => self.enum_names.is_some(),
            _ => false,
        }
    }

    fn set(&mut self, cx: &Ctxt, key: &str, meta: &Meta) {
        match key {
            "title" => self.title = string(cx, key, meta).map(|v| Given::at(meta, v)),
            "rename" => self.rename = non_empty(cx, key, string(cx, key, meta)).map(|v| Given::at(meta, v)),
            "rename_all" => self.rename_all = rename_rule(cx, meta).map(|v| Given::at(meta, v)),
            "default" => {
                self.default =
                    value(cx, key, meta, "a literal, like `default = 5`").cloned().map(|v| Given::at(meta, v))
            }
            "min_length" => self.min_length = count(cx, key, meta).map(|v| Given::at(meta, v)),
            "max_length" => self.max_length = count(cx, key, meta).map(|v| Given::at(meta, v)),
            "min_items" => self.min_items = count(cx, key, meta).map(|v| Given::at(meta, v)),
            "max_items" => self.max_items = count(cx, key, meta).map(|v| Given::at(meta, v)),
            "format" => self.format = format(cx, meta).map(|v| Given::at(meta, v)),
            "minimum" => self.minimum = number(cx, key, meta).map(|v| Given::at(meta, v)),
            "maximum" => self.maximum = number(cx, key, meta).map(|v| Given::at(meta, v)),
            "enum_names" => match meta {
                Meta::Path(_) => self.enum_names = Some(Given::at(meta, true)),
                _ => cx.error_spanned_by(meta, "`enum_names` is a flag: write `#[elicit(enum_names)]`"),
            },
            _ => {}
        }
    }

    /// The keys given, with their paths, in a fixed order (for the "doesn't apply here" checks).
    pub fn given_keys(&self) -> Vec<(&'static str, &Path)> {
        let keys = [
            ("min_length", self.min_length.as_ref().map(|g| &g.key)),
            ("max_length", self.max_length.as_ref().map(|g| &g.key)),
            ("format", self.format.as_ref().map(|g| &g.key)),
            ("minimum", self.minimum.as_ref().map(|g| &g.key)),
            ("maximum", self.maximum.as_ref().map(|g| &g.key)),
            ("min_items", self.min_items.as_ref().map(|g| &g.key)),
            ("max_items", self.max_items.as_ref().map(|g| &g.key)),
            ("enum_names", self.enum_names.as_ref().map(|g| &g.key)),
        ];
        keys.into_iter().filter_map(|(name, key)| Some((name, key?))).collect()
    }
}

/// Whether an attribute is one of the macro's own (`#[elicit(...)]`), to read and then strip.
fn is_ours(attr: &Attribute) -> bool {
    attr.path().is_ident("elicit")
}

/// Removes the macro's own attributes; everything else (docs, serde, lints) stays on the item.
pub fn strip_ours(attrs: &mut Vec<Attribute>) {
    attrs.retain(|a| !is_ours(a));
}

fn unknown_key(cx: &Ctxt, place: Place, meta: &Meta, key: &str) {
    let keys = place.keys();
    let mut msg = format!("unknown option `{key}` for {}", place.what());
    if key == "description" && matches!(place, Place::Field | Place::Variant) {
        msg.push_str(": the description is the doc comment (`/// ...`)");
    } else if let Some(close) = closest(key, keys) {
        msg.push_str(&format!(": did you mean `{close}`?"));
    }
    msg.push_str(&format!(" (valid options: {})", list(keys)));
    cx.error_spanned_by(meta.path(), msg);
}

fn value<'a>(cx: &Ctxt, key: &str, meta: &'a Meta, what: &str) -> Option<&'a Expr> {
    match meta {
        Meta::NameValue(nv) => Some(&nv.value),
        _ => {
            cx.error_spanned_by(meta, format!("`{key}` takes a value: {what}"));
            None
        }
    }
}

fn non_empty(cx: &Ctxt, key: &str, s: Option<LitStr>) -> Option<LitStr> {
    let s = s?;
    if s.value().is_empty() {
        cx.error_spanned_by(&s, format!("`{key}` can't be empty"));
        return None;
    }
    Some(s)
}

fn count(cx: &Ctxt, key: &str, meta: &Meta) -> Option<u64> {
    let usage = format!("`{key}` takes a whole number, like `{key} = 1`");
    let expr = value(cx, key, meta, &usage)?;
    if let Expr::Lit(ExprLit { lit: Lit::Int(i), .. }) = expr
        && let Ok(n) = i.base10_parse::<u64>()
    {
        return Some(n);
    }
    cx.error_spanned_by(expr, usage);
    None
}

fn number(cx: &Ctxt, key: &str, meta: &Meta) -> Option<Number> {
    let usage = format!("`{key}` takes a number literal, like `{key} = 0` or `{key} = 0.5`");
    let expr = value(cx, key, meta, &usage)?;
    let n = number_literal(expr);
    if n.is_none() {
        cx.error_spanned_by(expr, usage);
    }
    n
}

/// An integer or float literal, possibly negated.
pub fn number_literal(expr: &Expr) -> Option<Number> {
    match expr {
        Expr::Lit(ExprLit { lit: Lit::Int(i), .. }) => i.base10_parse::<i128>().ok().map(Number::Int),
        Expr::Lit(ExprLit { lit: Lit::Float(f), .. }) => {
            f.base10_parse::<f64>().ok().filter(|f| f.is_finite()).map(Number::Float)
        }
        Expr::Unary(ExprUnary { op: UnOp::Neg(_), expr, .. }) => match number_literal(expr)? {
            Number::Int(i) => Some(Number::Int(-i)),
            Number::Float(f) => Some(Number::Float(-f)),
        },
        Expr::Paren(p) => number_literal(&p.expr),
        Expr::Group(g) => number_literal(&g.expr),
        _ => None,
    }
}

fn format(cx: &Ctxt, meta: &Meta) -> Option<Format> {
    let s = string(cx, "format", meta)?;
    let value = s.value();
    if let Some(format) = Format::parse(&value) {
        return Some(format);
    }
    let mut msg = format!("unknown format `{value}`");
    let suggestion = match value.to_ascii_lowercase().as_str() {
        "url" | "uri-reference" | "iri" => Some("uri"),
        "datetime" | "date_time" | "timestamp" => Some("date-time"),
        other => closest(other, Format::NAMES),
    };
    if let Some(s) = suggestion {
        msg.push_str(&format!(": did you mean `{s}`?"));
    }
    msg.push_str(&format!(" (elicitation forms allow {})", list(Format::NAMES)));
    cx.error_spanned_by(&s, msg);
    None
}

fn rename_rule(cx: &Ctxt, meta: &Meta) -> Option<RenameRule> {
    let s = string(cx, "rename_all", meta)?;
    let value = s.value();
    if let Some(rule) = RenameRule::parse(&value) {
        return Some(rule);
    }
    let mut msg = format!("unknown `rename_all` rule `{value}`");
    if let Some(close) = closest(&value, RenameRule::NAMES) {
        msg.push_str(&format!(": did you mean `{close}`?"));
    }
    msg.push_str(&format!(" (valid rules: {})", list(RenameRule::NAMES)));
    cx.error_spanned_by(&s, msg);
    None
}

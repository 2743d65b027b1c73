//! The typed model of an annotated fn: what each parameter is to the macro, built from the syntax with every
//! problem recorded. The analysis of a body that asks (`flow`), the checks in `check.rs` and the codegen in
//! `expand/` read this; the model itself knows nothing of them.

use crate::attr::{Kind, Options, ParamAttrs};
use crate::ctxt::Ctxt;
use crate::docs::Description;
use crate::uri_template::{self, UriTemplate};
use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::{
    Attribute, FnArg, GenericArgument, Ident, LitStr, Pat, PatIdent, PathArguments, ReturnType, Signature, Type,
    TypePath, Visibility,
};

/// A fn as written. The body stays raw tokens: the macro never reads it, and a body that does not parse yet
/// (the user is mid-edit) must not stop the expansion, so rustc and rust-analyzer report on it themselves.
#[derive(Clone)]
pub struct ItemFn {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub sig: Signature,
    pub body: Group,
}

impl Parse for ItemFn {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis = input.parse()?;
        let sig: Signature = input.parse()?;
        let body = match input.parse::<TokenTree>() {
            Ok(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => g,
            Ok(other) => return Err(syn::Error::new_spanned(other, "expected the fn's body `{ ... }`")),
            Err(_) => return Err(syn::Error::new_spanned(&sig, "expected the fn's body `{ ... }`")),
        };
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the fn's body"));
        }
        Ok(ItemFn { attrs, vis, sig, body })
    }
}

impl ToTokens for ItemFn {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        for attr in &self.attrs {
            attr.to_tokens(tokens);
        }
        self.vis.to_tokens(tokens);
        self.sig.to_tokens(tokens);
        self.body.to_tokens(tokens);
    }
}

/// The annotated fn, modelled.
pub struct Handler {
    pub kind: Kind,
    pub options: Options,
    /// `#[resource]` only: its URI, if given.
    pub uri: Option<ResourceUri>,
    pub item: ItemFn,
    /// From the fn's doc comments.
    pub docs: Option<Description>,
    /// The parameters the model understood; the others have recorded errors.
    pub params: Vec<Param>,
    /// The declared return type; `None` for `()`.
    pub ret: Option<Type>,
}

pub struct Param {
    pub pat: Pat,
    pub ty: Type,
    pub kind: ParamKind,
    pub attrs: ParamAttrs,
}

pub enum ParamKind {
    /// `ctx: Context` or `ctx: &Context`: supplied by the runtime, not part of any schema.
    Context { by_ref: bool },
    /// `Args(args): Args<T>`: the whole arguments object, deserialized into `inner`.
    Args { inner: Type },
    /// `name: T`: one named argument.
    Value(Value),
}

pub struct Value {
    pub ident: Ident,
    /// The name on the wire: the ident without `r#`.
    pub name: String,
    /// `T` when the parameter's type is `Option<T>`.
    pub option_inner: Option<Type>,
}

/// A resource's URI literal and what it parsed to (`None` when it has errors, which are recorded).
pub struct ResourceUri {
    pub lit: LitStr,
    pub template: Option<UriTemplate>,
}

impl ResourceUri {
    pub fn is_template(&self) -> bool {
        self.template.as_ref().is_some_and(|t| t.is_template)
    }
}

impl Handler {
    pub fn new(cx: &Ctxt, kind: Kind, options: Options, item: ItemFn) -> Handler {
        let uri = options.uri.clone().map(|lit| {
            let template = match uri_template::parse(&lit.value()) {
                Ok(t) => Some(t),
                Err(errors) => {
                    for e in errors {
                        cx.error_spanned_by(&lit, e);
                    }
                    None
                }
            };
            ResourceUri { lit, template }
        });
        let params: Vec<Param> = item
            .sig
            .inputs
            .iter()
            .filter_map(|arg| match arg {
                // Rejected in `check::signature`.
                FnArg::Receiver(_) => None,
                FnArg::Typed(pt) => Param::new(cx, kind, pt),
            })
            .collect();
        let ret = match &item.sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) => Some((**ty).clone()),
        };
        Handler { kind, options, uri, docs: crate::docs::description(&item.attrs), params, ret, item }
    }

    /// The registered name (the `name` option, else the fn's ident without `r#`) and the tokens to span
    /// errors about it on.
    pub fn name(&self) -> (String, TokenStream) {
        match &self.options.name {
            Some(lit) => (lit.value(), lit.to_token_stream()),
            None => (self.item.sig.ident.unraw().to_string(), self.item.sig.ident.to_token_stream()),
        }
    }

    /// The description: the `description` option, else the doc comments.
    pub fn description(&self) -> Option<Description> {
        match &self.options.description {
            Some(lit) => Some(Description::text(lit.value())),
            None => self.docs.clone(),
        }
    }

    pub fn values(&self) -> impl Iterator<Item = (&Param, &Value)> {
        self.params.iter().filter_map(|p| p.value().map(|v| (p, v)))
    }
}

impl Param {
    /// `None` (with the error recorded) for a parameter the macro can't use.
    fn new(cx: &Ctxt, kind: Kind, pt: &syn::PatType) -> Option<Param> {
        let attrs = ParamAttrs::parse(cx, kind, &pt.attrs);
        let pat = (*pt.pat).clone();
        let ty = (*pt.ty).clone();
        let param_kind = classify(cx, kind, &pat, &ty)?;
        Some(Param { pat, ty, kind: param_kind, attrs })
    }

    pub fn value(&self) -> Option<&Value> {
        match &self.kind {
            ParamKind::Value(v) => Some(v),
            _ => None,
        }
    }
}

fn classify(cx: &Ctxt, kind: Kind, pat: &Pat, ty: &Type) -> Option<ParamKind> {
    if let Some(by_ref) = context_type(cx, ty) {
        return match pat {
            Pat::Ident(PatIdent { by_ref: None, subpat: None, .. }) | Pat::Wild(_) => {
                Some(ParamKind::Context { by_ref })
            }
            _ => {
                unsupported_pattern(cx, kind, pat);
                None
            }
        };
    }
    if let Some(inner) = last_segment_arg(ty, "Args") {
        let pat_ok = match pat {
            Pat::Ident(PatIdent { by_ref: None, subpat: None, .. }) => true,
            Pat::TupleStruct(ts) => ts.path.segments.last().is_some_and(|s| s.ident == "Args") && ts.elems.len() == 1,
            _ => false,
        };
        if !pat_ok {
            unsupported_pattern(cx, kind, pat);
            return None;
        }
        return Some(ParamKind::Args { inner: inner.clone() });
    }
    let ident = match pat {
        Pat::Ident(PatIdent { by_ref: None, subpat: None, ident, .. }) => ident.clone(),
        _ => {
            unsupported_pattern(cx, kind, pat);
            return None;
        }
    };
    if !owned_type(cx, ty) {
        return None;
    }
    let option_inner = last_segment_arg(ty, "Option").cloned();
    Some(ParamKind::Value(Value { name: ident.unraw().to_string(), ident, option_inner }))
}

fn unsupported_pattern(cx: &Ctxt, kind: Kind, pat: &Pat) {
    let hint = match kind {
        Kind::Tool => "use `name: Type`, or `Args(args): Args<T>` to take all arguments as one struct",
        Kind::Prompt | Kind::Resource | Kind::SubFlow => "use `name: Type`",
    };
    cx.error_spanned_by(pat, format!("unsupported parameter pattern in a {} fn: {hint}", kind.attr()));
}

/// `Some(by_ref)` when the type is (a reference to) a type named `Context`.
fn context_type(cx: &Ctxt, ty: &Type) -> Option<bool> {
    match ty {
        Type::Reference(r) if is_context(&r.elem) => {
            if r.mutability.is_some() {
                cx.error_spanned_by(ty, "take the context as `Context` or `&Context`; it cannot be borrowed mutably");
            }
            Some(true)
        }
        Type::Paren(p) => context_type(cx, &p.elem),
        _ if is_context(ty) => Some(false),
        _ => None,
    }
}

fn is_context(ty: &Type) -> bool {
    match ty {
        Type::Path(TypePath { qself: None, path }) => {
            path.segments.last().is_some_and(|s| s.ident == "Context" && matches!(s.arguments, PathArguments::None))
        }
        Type::Paren(p) => is_context(&p.elem),
        _ => false,
    }
}

/// `T` when `ty` is `…::Name<T>`.
pub fn last_segment_arg<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let Type::Path(TypePath { qself: None, path }) = ty else { return None };
    let last = path.segments.last()?;
    if last.ident != name {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    let mut types = args.args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let first = types.next()?;
    if types.next().is_some() || args.args.len() != 1 {
        return None;
    }
    Some(first)
}

/// Arguments come from the request, so a parameter owns its value: references and `impl Trait` are errors.
fn owned_type(cx: &Ctxt, ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => {
            let owned = match &*r.elem {
                Type::Path(p) if p.path.is_ident("str") => "String".to_string(),
                Type::Path(p) if p.path.is_ident("Path") => "PathBuf".to_string(),
                Type::Slice(s) => format!("Vec<{}>", tokens_string(&s.elem)),
                other => tokens_string(other),
            };
            cx.error_spanned_by(
                ty,
                format!(
                    "parameters are parsed from the request and must own their value: use `{owned}` instead of `{}`",
                    tokens_string(ty)
                ),
            );
            false
        }
        Type::ImplTrait(_) => {
            cx.error_spanned_by(
                ty,
                "`impl Trait` parameters are generic, which is not supported: name a concrete type",
            );
            false
        }
        Type::Paren(p) => owned_type(cx, &p.elem),
        _ => true,
    }
}

/// Tokens as a human would write them: `&'a str`, `Vec<u8>`.
pub fn tokens_string(t: &impl ToTokens) -> String {
    let raw = t.to_token_stream().to_string();
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ' ' {
            let prev = out.chars().last();
            let next = chars.peek().copied();
            let glue_prev = matches!(prev, Some('&' | '<' | '(' | '[' | ':' | '\''));
            let glue_next = matches!(next, Some('<' | '>' | ',' | ')' | ']' | ':' | ';'));
            if glue_prev || glue_next {
                continue;
            }
        }
        out.push(c);
    }
    out
}

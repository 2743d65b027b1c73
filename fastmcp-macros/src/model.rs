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

/// What the syntax says of a parameter. Whether it is an argument or supplied by the runtime (the
/// request's `Context`, `Args<T>`) is its type's to say, through the runtime's traits: the expansion asks
/// them, and never reads the name a type is written with.
pub enum ParamKind {
    /// `name: T`.
    Named(Box<Named>),
    /// `_: T` or a destructuring `Args(args): T`: with no name, it can't be an argument, so `T` must be
    /// supplied by the runtime (a compile-time check of the expansion).
    Unnamed,
}

pub struct Named {
    pub ident: Ident,
    /// The name on the wire: the ident without `r#`.
    pub name: String,
    /// `T` when the parameter's type is `Option<T>` (an optional prompt argument or query variable).
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

    pub fn named(&self) -> impl Iterator<Item = (&Param, &Named)> {
        self.params.iter().filter_map(|p| p.named().map(|n| (p, n)))
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

    pub fn named(&self) -> Option<&Named> {
        match &self.kind {
            ParamKind::Named(n) => Some(n),
            ParamKind::Unnamed => None,
        }
    }
}

fn classify(cx: &Ctxt, kind: Kind, pat: &Pat, ty: &Type) -> Option<ParamKind> {
    let param_kind = match pat {
        Pat::Ident(PatIdent { by_ref: None, subpat: None, ident, .. }) => {
            let option_inner = last_segment_arg(ty, "Option").cloned();
            ParamKind::Named(Box::new(Named { name: ident.unraw().to_string(), ident: ident.clone(), option_inner }))
        }
        // A sub-flow's parameters are fields of its state: each needs a name.
        Pat::Wild(_) | Pat::TupleStruct(_) if kind != Kind::SubFlow => ParamKind::Unnamed,
        _ => {
            unsupported_pattern(cx, kind, pat);
            return None;
        }
    };
    if let Some(it) = impl_trait(ty) {
        cx.error_spanned_by(it, "`impl Trait` parameters are generic, which is not supported: name a concrete type");
        return None;
    }
    if let Type::Reference(r) = ty
        && r.mutability.is_some()
    {
        cx.error_spanned_by(
            ty,
            "a parameter can't be a mutable borrow: take an argument by value, and the request's context as `Context` or `&Context`",
        );
        return None;
    }
    Some(param_kind)
}

/// The words of the error on a pattern a parameter can't have (also the compile-time one, for an unnamed
/// parameter whose type turns out to be an argument).
pub fn unsupported_pattern_message(kind: Kind) -> String {
    let hint = match kind {
        Kind::Tool => "use `name: Type`, or `Args(args): Args<T>` to take all arguments as one struct",
        Kind::Prompt | Kind::Resource | Kind::SubFlow => "use `name: Type`",
    };
    format!("unsupported parameter pattern in a {} fn: {hint}", kind.attr())
}

fn unsupported_pattern(cx: &Ctxt, kind: Kind, pat: &Pat) {
    cx.error_spanned_by(pat, unsupported_pattern_message(kind));
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

/// A parameter's `impl Trait` (the fn would be generic).
fn impl_trait(ty: &Type) -> Option<&Type> {
    match ty {
        Type::ImplTrait(_) => Some(ty),
        Type::Paren(p) => impl_trait(&p.elem),
        _ => None,
    }
}

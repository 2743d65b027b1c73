//! Doc comments to description strings.
//!
//! Each `///` line loses the one space rustdoc puts after the slashes; lines keep their breaks and blank
//! lines keep paragraphs apart, so Markdown reads as written. Leading and trailing blank lines go.
//! A `#[doc = include_str!(..)]` (or any other non-literal doc) is kept as an expression via `concat!`.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// A description taken from doc comments: a literal when every doc attribute is one, else an expression.
#[derive(Clone)]
pub enum Description {
    Text(String),
    Expr(TokenStream),
}

impl Description {
    pub fn text(text: impl Into<String>) -> Self {
        Description::Text(text.into())
    }
}

impl ToTokens for Description {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            Description::Text(text) => text.to_tokens(tokens),
            Description::Expr(expr) => expr.to_tokens(tokens),
        }
    }
}

enum Part {
    Lines(Vec<String>),
    Expr(Expr),
}

/// The description the doc comments among `attrs` make, if any.
pub fn description(attrs: &[Attribute]) -> Option<Description> {
    let mut parts: Vec<Part> = Vec::new();
    for attr in attrs {
        let Meta::NameValue(nv) = &attr.meta else { continue };
        if !nv.path.is_ident("doc") {
            continue;
        }
        match &nv.value {
            Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => {
                // `split`, not `lines`: an empty `///` is a blank line that separates paragraphs.
                let lines = s.value().split('\n').map(|line| strip_one_space(line).trim_end().to_owned()).collect();
                match parts.last_mut() {
                    Some(Part::Lines(prev)) => prev.extend(lines),
                    _ => parts.push(Part::Lines(lines)),
                }
            }
            other => parts.push(Part::Expr(other.clone())),
        }
    }
    trim_blank_ends(&mut parts);
    match parts.as_slice() {
        [] => None,
        [Part::Lines(lines)] => Some(Description::Text(lines.join("\n"))),
        _ => {
            let mut pieces = Vec::new();
            for (i, part) in parts.iter().enumerate() {
                if i > 0 {
                    pieces.push(quote!("\n"));
                }
                match part {
                    Part::Lines(lines) => pieces.push(lines.join("\n").into_token_stream()),
                    Part::Expr(expr) => pieces.push(expr.into_token_stream()),
                }
            }
            Some(Description::Expr(quote!(::core::concat!(#(#pieces),*))))
        }
    }
}

fn strip_one_space(line: &str) -> &str {
    line.strip_prefix(' ').unwrap_or(line)
}

fn trim_blank_ends(parts: &mut Vec<Part>) {
    if let Some(Part::Lines(lines)) = parts.first_mut() {
        let blank = lines.iter().take_while(|l| l.is_empty()).count();
        lines.drain(..blank);
    }
    if let Some(Part::Lines(lines)) = parts.last_mut() {
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
    }
    parts.retain(|p| !matches!(p, Part::Lines(lines) if lines.is_empty()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn text(attrs: Vec<Attribute>) -> Option<String> {
        match description(&attrs) {
            Some(Description::Text(t)) => Some(t),
            Some(Description::Expr(e)) => Some(format!("expr: {e}")),
            None => None,
        }
    }

    #[test]
    fn joins_lines_and_keeps_paragraphs() {
        let attrs: Vec<Attribute> = vec![
            parse_quote!(#[doc = " First line."]),
            parse_quote!(#[doc = "  indented"]),
            parse_quote!(#[doc = ""]),
            parse_quote!(#[doc = " Second paragraph.   "]),
            parse_quote!(#[doc = ""]),
        ];
        assert_eq!(text(attrs).as_deref(), Some("First line.\n indented\n\nSecond paragraph."));
    }

    #[test]
    fn none_without_docs() {
        assert_eq!(text(vec![parse_quote!(#[inline])]), None);
        assert_eq!(text(vec![parse_quote!(#[doc = ""])]), None);
    }

    #[test]
    fn block_doc() {
        assert_eq!(text(vec![parse_quote!(#[doc = "\n Block.\n More.\n "])]).as_deref(), Some("Block.\nMore."));
    }

    #[test]
    fn macro_docs_become_concat() {
        let got = text(vec![parse_quote!(#[doc = " Intro."]), parse_quote!(#[doc = include_str!("x.md")])]);
        let got = got.unwrap_or_default();
        assert!(got.starts_with("expr: :: core :: concat !"), "{got}");
    }
}

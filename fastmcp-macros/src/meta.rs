//! Reading the options of an attribute, for both syntaxes (`attr` for the fn macros, `elicit::options` for
//! `#[elicit]`): a path as written, the value of a `key = "..."` option, and for a key that is not one of
//! the valid ones, the one it most likely meant.

use crate::ctxt::Ctxt;
use syn::{Expr, ExprLit, Lit, LitStr, Meta};

/// A path as written: `schemars`, `a::b`.
pub fn path_string(path: &syn::Path) -> String {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    segments.join("::")
}

/// The value of a `key = "..."` option (the error, if it has another form, is recorded).
pub fn string(cx: &Ctxt, key: &str, meta: &Meta) -> Option<LitStr> {
    if let Meta::NameValue(nv) = meta {
        if let Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) = &nv.value {
            return Some(s.clone());
        }
        cx.error_spanned_by(&nv.value, format!("`{key}` takes a string literal: `{key} = \"...\"`"));
    } else {
        cx.error_spanned_by(meta, format!("`{key}` takes a string literal: `{key} = \"...\"`"));
    }
    None
}

/// Keys for a message: `` `a`, `b` ``.
pub fn list(keys: &[&str]) -> String {
    keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
}

/// The valid key a typo or a wire spelling (`readOnlyHint`, `mimeType`) most likely meant.
pub fn closest<'a>(key: &str, keys: &[&'a str]) -> Option<&'a str> {
    fn normalize(s: &str) -> String {
        let s = s.to_ascii_lowercase().replace('_', "");
        s.strip_suffix("hint").map(str::to_owned).unwrap_or(s)
    }
    let wanted = normalize(key);
    // A valid key this one abbreviates (`mime` for `mime_type`), else the nearest by edit distance.
    if let Some(k) = keys.iter().find(|k| wanted.len() >= 3 && normalize(k).starts_with(&wanted)) {
        return Some(k);
    }
    keys.iter()
        .map(|k| (levenshtein(&wanted, &normalize(k)), *k))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb { prev } else { 1 + prev.min(row[j]).min(row[j + 1]) };
            prev = cur;
        }
    }
    row[b.len()]
}

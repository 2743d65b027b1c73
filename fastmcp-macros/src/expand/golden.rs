//! Golden expansions, pin-project style but without cargo-expand: each `tests/expand/<shape>.rs` of the
//! workspace is expanded by the macros' own entry point ([`super::run`]), pretty-printed with prettyplease
//! and compared with the checked-in `<shape>.expanded.rs`. `FASTMCP_BLESS=1 cargo test -p fast-mcp-macros`
//! writes them instead; read the diff before committing.

use super::run;
use crate::attr::Kind;
use proc_macro2::TokenStream;
use quote::ToTokens;
use std::path::{Path, PathBuf};
use syn::{Attribute, Item, Meta};

fn kind(attr: &Attribute) -> Option<Kind> {
    let path = attr.path();
    [("tool", Kind::Tool), ("prompt", Kind::Prompt), ("resource", Kind::Resource), ("elicit", Kind::SubFlow)]
        .into_iter()
        .find_map(|(name, kind)| path.is_ident(name).then_some(kind))
}

/// Every handler fn of the file replaced by its expansion; the other items as they are.
fn expand_file(source: &str) -> String {
    let file: syn::File = syn::parse_str(source).expect("the input parses");
    let items = file.items.into_iter().flat_map(expand_item).collect();
    prettyplease::unparse(&syn::File { shebang: None, attrs: file.attrs, items })
}

fn expand_item(item: Item) -> Vec<Item> {
    let Item::Fn(mut f) = item else { return vec![item] };
    let Some(position) = f.attrs.iter().position(|a| kind(a).is_some()) else { return vec![Item::Fn(f)] };
    let attr = f.attrs.remove(position);
    let Some(kind) = kind(&attr) else { return vec![] };
    let args = match attr.meta {
        Meta::List(list) => list.tokens,
        _ => TokenStream::new(),
    };
    let out = run(kind, args, f.to_token_stream());
    syn::parse2::<syn::File>(out).expect("the expansion parses").items
}

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("tests/expand exists")
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name.ends_with(".rs") && !name.ends_with(".expanded.rs")
        })
        .collect();
    inputs.sort();
    inputs
}

#[test]
fn golden_expansions() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/expand");
    let bless = std::env::var_os("FASTMCP_BLESS").is_some();
    let mut failures = Vec::new();
    let inputs = inputs(&dir);
    assert!(!inputs.is_empty(), "no inputs in {}", dir.display());
    for input in inputs {
        let source = std::fs::read_to_string(&input).expect("readable input");
        let expanded = expand_file(&source);
        let golden = input.with_extension("expanded.rs");
        if bless {
            std::fs::write(&golden, &expanded).expect("writable golden file");
            continue;
        }
        match std::fs::read_to_string(&golden) {
            Ok(expected) if expected == expanded => {}
            Ok(expected) => {
                failures.push(format!("{}: differs\n{}", golden.display(), first_difference(&expected, &expanded)))
            }
            Err(_) => failures.push(format!("{}: missing (run with FASTMCP_BLESS=1)", golden.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "golden expansions out of date (FASTMCP_BLESS=1 rewrites them):\n{}",
        failures.join("\n")
    );
}

fn first_difference(expected: &str, actual: &str) -> String {
    let line = expected
        .lines()
        .zip(actual.lines())
        .position(|(e, a)| e != a)
        .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
    format!(
        "  first difference at line {}:\n  expected: {}\n  actual:   {}",
        line + 1,
        expected.lines().nth(line).unwrap_or("<end>"),
        actual.lines().nth(line).unwrap_or("<end>")
    )
}

//! The module layering of a crate (DESIGN.md §2): the edges between its modules, read from the source, and
//! a check of them against a table of layers.
//!
//! Every `.rs` file under `src/` is a module (`foo.rs` and `foo/mod.rs` are `foo`, `foo/bar.rs` is
//! `foo::bar`, `lib.rs` is the crate root; `src/bin/` holds other crates and is skipped). An edge goes from a
//! file's module to each module that a path in it names: a path starting with `crate::`, `super::` or
//! `self::`, or with a child module's name, in `use` trees (groups, globs, renames) and anywhere in the code
//! (types, expressions, patterns, bounds, visibilities, and attributes whose arguments parse as meta items).
//! The target is the longest prefix of the path that is a module; a name the crate root re-exports is
//! followed to the module it comes from. Tokens inside macro invocations (`quote!`, `format!`, …) are not
//! parsed, so paths in there are not seen. Inline modules (`#[cfg(test)] mod tests { .. }`) count as
//! their file's module; `super::` inside one is resolved from the inline module.
//!
//! A table has one row per module path prefix: `(prefix, layer)`, the layer being DESIGN's layer number
//! with an optional rank inside it (`"3"`, `"0.1"`); the longest matching prefix decides a module's row.
//! An edge within one row is allowed; any other edge goes strictly downward, to a lower rank. Two rows of
//! the same rank are siblings and may not import each other. The crate root is exempt (it declares and
//! re-exports everything); every other module must have a row.

use proc_macro2::Span;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use syn::visit::{self, Visit};

/// A module path without `crate::`: `"flow::scope"`; the crate root is `""`.
pub type ModulePath = String;

/// The rows of a layering table: `(module path prefix, layer)`.
pub type Table = [(&'static str, &'static str)];

/// One source file and the module it is.
#[derive(Debug, Clone)]
pub struct Module {
    pub path: ModulePath,
    pub file: PathBuf,
}

/// A path in `from`'s file that names a module of the crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    pub from: ModulePath,
    pub to: ModulePath,
    pub file: PathBuf,
    pub line: usize,
}

/// A crate's modules and the edges between them.
#[derive(Debug)]
pub struct Crate {
    pub modules: Vec<Module>,
    pub edges: Vec<Edge>,
}

impl Crate {
    /// Reads every module under `src` (a crate's `src` directory). Files are named from the directory that
    /// holds the crate: `fastmcp-macros/src/model.rs`.
    pub fn read(src: &Path) -> Result<Crate, String> {
        let src = src.canonicalize().map_err(|e| format!("{}: {e}", src.display()))?;
        let base = src.parent().and_then(Path::parent).unwrap_or(&src).to_path_buf();
        let mut files = Vec::new();
        rust_files(&src, &src, &mut files).map_err(|e| format!("{}: {e}", src.display()))?;
        let mut sources = Vec::new();
        for file in files {
            let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            let relative = file.strip_prefix(&src).unwrap_or(&file).to_path_buf();
            let shown = file.strip_prefix(&base).unwrap_or(&file).to_path_buf();
            sources.push((relative, shown, text));
        }
        Crate::from_sources(
            sources.iter().map(|(relative, file, text)| (relative.as_path(), file.as_path(), text.as_str())),
        )
    }

    /// The crate made of these files: (path relative to `src`, path to report, contents).
    pub fn from_sources<'a>(sources: impl IntoIterator<Item = (&'a Path, &'a Path, &'a str)>) -> Result<Crate, String> {
        let sources: Vec<(ModulePath, &Path, &str)> = sources
            .into_iter()
            .filter_map(|(relative, file, text)| Some((module_path(relative)?, file, text)))
            .collect();
        let modules: BTreeSet<ModulePath> = sources.iter().map(|(path, ..)| path.clone()).collect();
        let mut parsed = Vec::new();
        for (path, file, text) in &sources {
            let ast = syn::parse_file(text).map_err(|e| {
                let at = e.span().start();
                format!("{}:{}:{}: {e}", file.display(), at.line, at.column + 1)
            })?;
            parsed.push((path.clone(), *file, ast));
        }
        let reexports = parsed
            .iter()
            .find(|(path, ..)| path.is_empty())
            .map(|(_, _, root)| root_reexports(root, &modules))
            .unwrap_or_default();
        let resolver = Resolver { modules: &modules, reexports };
        let mut edges = Vec::new();
        for (path, file, ast) in &parsed {
            let mut collect =
                Collect { resolver: &resolver, file_module: path, scope: path.clone(), file, edges: &mut edges };
            collect.visit_file(ast);
        }
        let modules = parsed.into_iter().map(|(path, file, _)| Module { path, file: file.to_path_buf() }).collect();
        Ok(Crate { modules, edges })
    }

    /// Edges between different modules, with how many paths make each, in order.
    pub fn edge_counts(&self) -> BTreeMap<(ModulePath, ModulePath), Vec<&Edge>> {
        let mut counts: BTreeMap<(ModulePath, ModulePath), Vec<&Edge>> = BTreeMap::new();
        for edge in &self.edges {
            counts.entry((edge.from.clone(), edge.to.clone())).or_default().push(edge);
        }
        counts
    }
}

/// `src`'s `.rs` files, except those of `src/bin` (each one another crate).
fn rust_files(src: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if dir != src || path.file_name() != Some("bin".as_ref()) {
                rust_files(src, &path, out)?;
            }
        } else if path.extension() == Some("rs".as_ref()) {
            out.push(path);
        }
    }
    Ok(())
}

/// The module a file under `src` is: `a/b.rs` and `a/b/mod.rs` are `a::b`, `lib.rs` and `main.rs` the root.
pub fn module_path(relative: &Path) -> Option<ModulePath> {
    let mut parts: Vec<String> =
        relative.components().map(|c| c.as_os_str().to_str().map(str::to_owned)).collect::<Option<_>>()?;
    let file = parts.pop()?;
    let stem = file.strip_suffix(".rs")?;
    let root = parts.is_empty() && (stem == "lib" || stem == "main");
    if stem != "mod" && !root {
        parts.push(stem.to_owned());
    }
    Some(parts.join("::"))
}

/// Joins a module path and a name: `join("", "a") == "a"`.
fn join(base: &str, name: &str) -> ModulePath {
    if base.is_empty() { name.to_owned() } else { format!("{base}::{name}") }
}

fn parent(module: &str) -> Option<ModulePath> {
    if module.is_empty() {
        return None;
    }
    Some(module.rsplit_once("::").map_or_else(String::new, |(parent, _)| parent.to_owned()))
}

/// What the crate root re-exports, by name, to the module each name comes from.
fn root_reexports(root: &syn::File, modules: &BTreeSet<ModulePath>) -> BTreeMap<String, ModulePath> {
    let resolver = Resolver { modules, reexports: BTreeMap::new() };
    let mut out = BTreeMap::new();
    for item in &root.items {
        let syn::Item::Use(u) = item else { continue };
        for (segments, name, _) in use_paths(&u.tree) {
            if let Some(target) = resolver.resolve("", &segments, true).filter(|t| !t.is_empty()) {
                out.insert(name, target);
            }
        }
    }
    out
}

/// The full paths a `use` tree imports, each with the name it binds (`*` for a glob) and its first span.
fn use_paths(tree: &syn::UseTree) -> Vec<(Vec<String>, String, Span)> {
    fn walk(tree: &syn::UseTree, prefix: &mut Vec<(String, Span)>, out: &mut Vec<(Vec<String>, String, Span)>) {
        let mut leaf = |prefix: &[(String, Span)], last: Option<(&syn::Ident, String)>| {
            let mut segments: Vec<(String, Span)> = prefix.to_vec();
            let name = match last {
                // `use a::b::{self}` imports `a::b`.
                Some((ident, name)) if ident == "self" => name_or_last(&segments, name),
                Some((ident, name)) => {
                    segments.push((ident.to_string(), ident.span()));
                    name
                }
                None => "*".to_owned(),
            };
            let span = segments.first().map_or_else(Span::call_site, |(_, s)| *s);
            out.push((segments.into_iter().map(|(s, _)| s).collect(), name, span));
        };
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push((p.ident.to_string(), p.ident.span()));
                walk(&p.tree, prefix, out);
                prefix.pop();
            }
            syn::UseTree::Name(n) => leaf(prefix, Some((&n.ident, n.ident.to_string()))),
            syn::UseTree::Rename(r) => leaf(prefix, Some((&r.ident, r.rename.to_string()))),
            syn::UseTree::Glob(_) => leaf(prefix, None),
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    walk(tree, prefix, out);
                }
            }
        }
    }
    fn name_or_last(segments: &[(String, Span)], name: String) -> String {
        if name == "self" { segments.last().map_or(name, |(s, _)| s.clone()) } else { name }
    }
    let mut out = Vec::new();
    walk(tree, &mut Vec::new(), &mut out);
    out
}

struct Resolver<'m> {
    modules: &'m BTreeSet<ModulePath>,
    reexports: BTreeMap<String, ModulePath>,
}

impl Resolver<'_> {
    /// The module `segments`, written in module `scope`, names, if it names one of the crate's.
    /// `relative_child`: whether a path may start with the name of a child module of `scope` (a `use` tree,
    /// or a path of two or more segments).
    fn resolve(&self, scope: &str, segments: &[String], relative_child: bool) -> Option<ModulePath> {
        let (first, _) = segments.split_first()?;
        let (mut base, mut rest) = match first.as_str() {
            "crate" => (String::new(), &segments[1..]),
            "self" => (scope.to_owned(), &segments[1..]),
            "super" => {
                let mut base = parent(scope)?;
                let mut rest = &segments[1..];
                while rest.first().is_some_and(|s| s == "super") {
                    base = parent(&base)?;
                    rest = &rest[1..];
                }
                (base, rest)
            }
            name if relative_child && self.modules.contains(&join(scope, name)) => (scope.to_owned(), segments),
            _ => return None,
        };
        while let Some((next, tail)) = rest.split_first() {
            let candidate = join(&base, next);
            if !self.modules.contains(&candidate) {
                break;
            }
            base = candidate;
            rest = tail;
        }
        if base.is_empty()
            && let Some(reexported) = rest.first().and_then(|name| self.reexports.get(name))
        {
            return Some(reexported.clone());
        }
        Some(base)
    }
}

/// Collects the edges of one file.
struct Collect<'a> {
    resolver: &'a Resolver<'a>,
    /// The file's module: edges go from here.
    file_module: &'a str,
    /// The module the code being visited is in (an inline module of the file, or the file's).
    scope: ModulePath,
    file: &'a Path,
    edges: &'a mut Vec<Edge>,
}

impl Collect<'_> {
    fn edge(&mut self, segments: &[String], span: Span, relative_child: bool) {
        // The crate root is exempt, and declares everything anyway.
        if self.file_module.is_empty() {
            return;
        }
        let Some(to) = self.resolver.resolve(&self.scope, segments, relative_child) else { return };
        if to.is_empty() || to == self.file_module {
            return;
        }
        let edge =
            Edge { from: self.file_module.to_owned(), to, file: self.file.to_path_buf(), line: span.start().line };
        self.edges.push(edge);
    }
}

impl<'ast> Visit<'ast> for Collect<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_none() {
            return;
        }
        let inner = join(&self.scope, &m.ident.to_string());
        let outer = std::mem::replace(&mut self.scope, inner);
        visit::visit_item_mod(self, m);
        self.scope = outer;
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        for attr in &u.attrs {
            self.visit_attribute(attr);
        }
        for (segments, _, span) in use_paths(&u.tree) {
            self.edge(&segments, span, true);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let span = path.segments.first().map_or_else(Span::call_site, |s| s.ident.span());
        if path.leading_colon.is_none() {
            self.edge(&segments, span, segments.len() > 1);
        }
        visit::visit_path(self, path);
    }

    /// `pub(super)` and `pub(in crate::a)` say who may see an item, not what it uses.
    fn visit_vis_restricted(&mut self, _: &'ast syn::VisRestricted) {}

    /// Attribute arguments are tokens to syn; those that read as meta items (`#[derive(crate::X)]`,
    /// `#[allow(..)]`) are visited as such.
    fn visit_meta_list(&mut self, list: &'ast syn::MetaList) {
        self.visit_path(&list.path);
        let parser = syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated;
        if let Ok(metas) = syn::parse::Parser::parse2(parser, list.tokens.clone()) {
            for meta in &metas {
                self.visit_meta(meta);
            }
        }
    }
}

/// A layer and its rank inside it: `"3"` is `3.0`, `"0.1"` is `0.1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Layer {
    pub number: u32,
    pub rank: u32,
}

impl Layer {
    pub fn parse(text: &str) -> Result<Layer, String> {
        let (number, rank) = text.split_once('.').unwrap_or((text, "0"));
        match (number.parse(), rank.parse()) {
            (Ok(number), Ok(rank)) => Ok(Layer { number, rank }),
            _ => Err(format!("`{text}` is not a layer: write the layer number, with an optional rank (`3`, `0.1`)")),
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rank == 0 { write!(f, "{}", self.number) } else { write!(f, "{}.{}", self.number, self.rank) }
    }
}

/// A table, checked and ready to place modules.
pub struct Layers {
    rows: Vec<(&'static str, Layer)>,
}

impl Layers {
    pub fn new(table: &Table) -> Result<Layers, String> {
        let rows =
            table.iter().map(|&(prefix, layer)| Ok((prefix, Layer::parse(layer)?))).collect::<Result<_, String>>()?;
        Ok(Layers { rows })
    }

    /// The row of a module: the longest prefix (whole segments) that matches it.
    pub fn row(&self, module: &str) -> Option<(&'static str, Layer)> {
        self.rows
            .iter()
            .filter(|(prefix, _)| module == *prefix || module.starts_with(&format!("{prefix}::")))
            .max_by_key(|(prefix, _)| prefix.len())
            .copied()
    }

    /// Why an edge breaks the layering, if it does. Edges from the crate root are exempt.
    pub fn judge(&self, from: &str, to: &str) -> Option<String> {
        if from.is_empty() {
            return None;
        }
        let (Some((from_row, from_layer)), Some((to_row, to_layer))) = (self.row(from), self.row(to)) else {
            return Some("a module without a row in the table".to_owned());
        };
        if from_row == to_row || from_layer > to_layer {
            return None;
        }
        Some(if from_layer == to_layer {
            format!("`{from_row}` and `{to_row}` are siblings in layer {from_layer} and may not import each other")
        } else {
            format!("layer {from_layer} may not import layer {to_layer}")
        })
    }
}

/// Everything in a crate that breaks its table: modules without a row, then edges, each on one line.
pub fn violations(krate: &Crate, table: &Table) -> Result<Vec<String>, String> {
    let layers = Layers::new(table)?;
    let mut out: Vec<String> = krate
        .modules
        .iter()
        .filter(|m| !m.path.is_empty() && layers.row(&m.path).is_none())
        .map(|m| format!("{} ({}): no row in the table places this module", m.path, m.file.display()))
        .collect();
    for edge in &krate.edges {
        if let Some(why) = layers.judge(&edge.from, &edge.to) {
            out.push(format!("{} -> {} ({}:{}): {why}", edge.from, edge.to, edge.file.display(), edge.line));
        }
    }
    Ok(out)
}

/// Reads the crate at `src` and panics with every violation of `table`, one per line.
pub fn assert_layers(src: &Path, table: &Table) {
    let krate = Crate::read(src).unwrap_or_else(|e| panic!("reading {}: {e}", src.display()));
    let violations = violations(&krate, table).unwrap_or_else(|e| panic!("the table: {e}"));
    let name = src.canonicalize().ok().and_then(|s| Some(s.parent()?.file_name()?.to_string_lossy().into_owned()));
    assert!(
        violations.is_empty(),
        "{} breaks its layering ({} violation{}; the table is in tests/tests/layering.rs):\n{}",
        name.unwrap_or_else(|| src.display().to_string()),
        violations.len(),
        if violations.len() == 1 { "" } else { "s" },
        violations.join("\n")
    );
}

/// The files under `src`, other than those under `allowed` (a directory of `src`), whose tokens hold
/// `needle`: an identifier, or a string literal containing it. Comments, doc comments included, are not
/// tokens here.
pub fn files_mentioning(src: &Path, needle: &str, allowed: &str) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    rust_files(src, src, &mut files).map_err(|e| format!("{}: {e}", src.display()))?;
    let allowed = src.join(allowed);
    let mut out = Vec::new();
    for file in files.into_iter().filter(|f| !f.starts_with(&allowed)) {
        let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let tokens: proc_macro2::TokenStream = text.parse().map_err(|e| format!("{}: {e:?}", file.display()))?;
        if mentions(tokens, needle) {
            out.push(file);
        }
    }
    Ok(out)
}

fn mentions(tokens: proc_macro2::TokenStream, needle: &str) -> bool {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            // `#[doc = ".."]` and `#![doc = ".."]`: what doc comments become.
            TokenTree::Punct(p) if p.as_char() == '#' => {
                let group = match (tokens.get(i + 1), tokens.get(i + 2)) {
                    (Some(TokenTree::Punct(bang)), Some(TokenTree::Group(g))) if bang.as_char() == '!' => Some((g, 3)),
                    (Some(TokenTree::Group(g)), _) => Some((g, 2)),
                    _ => None,
                };
                if let Some((g, len)) = group
                    && matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(id)) if id == "doc")
                {
                    i += len;
                    continue;
                }
            }
            TokenTree::Ident(id) if id == needle => return true,
            TokenTree::Literal(lit) if lit.to_string().contains(needle) => return true,
            TokenTree::Group(g) if mentions(g.stream(), needle) => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn krate(files: &[(&str, &str)]) -> Crate {
        let files: Vec<(&Path, &Path, &str)> = files.iter().map(|(p, t)| (Path::new(*p), Path::new(*p), *t)).collect();
        Crate::from_sources(files).expect("parses")
    }

    fn edges(files: &[(&str, &str)]) -> Vec<String> {
        krate(files).edges.iter().map(|e| format!("{} -> {} :{}", e.from, e.to, e.line)).collect()
    }

    #[test]
    fn files_map_to_modules() {
        let m = |p: &str| module_path(Path::new(p));
        assert_eq!(m("lib.rs").as_deref(), Some(""));
        assert_eq!(m("foo.rs").as_deref(), Some("foo"));
        assert_eq!(m("foo/mod.rs").as_deref(), Some("foo"));
        assert_eq!(m("foo/bar.rs").as_deref(), Some("foo::bar"));
        assert_eq!(m("foo/bar/mod.rs").as_deref(), Some("foo::bar"));
        assert_eq!(m("foo/lib.rs").as_deref(), Some("foo::lib"));
        assert_eq!(m("notes.txt"), None);
    }

    #[test]
    fn use_trees_and_paths_are_edges() {
        let got = edges(&[
            ("lib.rs", "mod a; mod b; mod c;"),
            ("b.rs", "pub mod inner; pub struct B;"),
            ("b/inner.rs", "pub struct I;"),
            ("c.rs", "pub trait C {}"),
            (
                "a.rs",
                "use crate::{b::{self, inner::I as J}, c::*};\n\
                 fn f(x: crate::b::B) -> impl crate::c::C { let _ = crate::b::inner::I; }\n\
                 #[derive(crate::c::C)] struct S;\n\
                 fn g() { let crate::b::B = x; quote!(crate::c::C); }",
            ),
        ]);
        assert_eq!(
            got,
            [
                "a -> b :1",
                "a -> b::inner :1",
                "a -> c :1",
                "a -> b :2",
                "a -> c :2",
                "a -> b::inner :2",
                "a -> c :3",
                "a -> b :4"
            ]
        );
    }

    #[test]
    fn super_self_and_child_paths_resolve_from_their_module() {
        let got = edges(&[
            ("lib.rs", "mod a;"),
            ("a/mod.rs", "mod x; mod y; use x::X; fn f() { self::y::g(); }"),
            ("a/x.rs", "pub struct X; use super::y::g; #[cfg(test)] mod tests { use super::X; use super::super::y; }"),
            ("a/y.rs", "pub fn g() {}"),
        ]);
        assert_eq!(got, ["a -> a::x :1", "a -> a::y :1", "a::x -> a::y :1", "a::x -> a::y :1"]);
    }

    #[test]
    fn root_reexports_lead_to_their_module() {
        let got = edges(&[
            ("lib.rs", "mod a; mod b; pub use b::Thing;"),
            ("a.rs", "use crate::Thing;"),
            ("b.rs", "pub struct Thing;"),
        ]);
        assert_eq!(got, ["a -> b :1"]);
    }

    const TABLE: &Table = &[("leaf", "0"), ("low", "1.0"), ("low::deep", "1.1"), ("mid", "2"), ("side", "2")];

    #[test]
    fn judges_edges_by_rows() {
        let layers = Layers::new(TABLE).expect("a table");
        assert_eq!(layers.row("low::deep::x").map(|(p, _)| p), Some("low::deep"));
        assert_eq!(layers.row("lower"), None);
        assert_eq!(layers.judge("mid", "low::deep"), None);
        assert_eq!(layers.judge("low", "low::x"), None, "one row");
        assert_eq!(layers.judge("low::deep", "low"), None, "a higher rank of the same layer");
        assert_eq!(layers.judge("", "mid"), None, "the crate root is exempt");
        assert_eq!(layers.judge("low", "low::deep").as_deref(), Some("layer 1 may not import layer 1.1"));
        assert_eq!(layers.judge("leaf", "mid").as_deref(), Some("layer 0 may not import layer 2"));
        assert_eq!(
            layers.judge("mid", "side").as_deref(),
            Some("`mid` and `side` are siblings in layer 2 and may not import each other")
        );
        assert!(Layers::new(&[("x", "one")]).is_err());
    }

    #[test]
    fn reports_edges_and_unplaced_modules() {
        let k = krate(&[
            ("lib.rs", "mod leaf; mod mid; mod stray;"),
            ("leaf.rs", "use crate::mid::M;"),
            ("mid.rs", "pub struct M; use crate::leaf;"),
            ("stray.rs", ""),
        ]);
        let got = violations(&k, TABLE).expect("a table");
        assert_eq!(
            got,
            [
                "stray (stray.rs): no row in the table places this module",
                "leaf -> mid (leaf.rs:1): layer 0 may not import layer 2"
            ]
        );
    }

    #[test]
    fn finds_tokens_not_comments() {
        let t = |s: &str| mentions(s.parse().expect("tokens"), "__private");
        assert!(t("fn f() { quote!(::fastmcp::__private::X) }"));
        assert!(t("#[serde(crate = \"::fastmcp::__private::serde\")] struct S;"));
        assert!(!t("/// Reaches `::fastmcp::__private`.\n//! Also here.\n// and here\nfn f() {} /* __private */"));
    }
}

//! The crates keep their one-way shape (DESIGN.md §2): every edge between two modules (a `crate::`,
//! `super::` or `self::` path; see `fastmcp_tests::layers`) goes down the table below, and only the macro
//! crate's `expand/` names the runtime's `::fastmcp::__private`.
//!
//! A row is `(module path prefix, layer)`: DESIGN's layer number, with a rank inside the layer where its
//! modules are ordered too. The longest prefix places a module; a new module needs a row. Within a row
//! anything goes; across rows an edge goes to a strictly lower rank, and rows of equal rank are siblings
//! that don't import each other. `cargo run -q -p fastmcp-tests --bin import-graph -- <crate>/src` prints
//! a crate's graph against its table.

use std::path::{Path, PathBuf};

/// The macro crate: `lib.rs` (entry points) → parse → analysis → check → expand, as serde_derive.
pub const FASTMCP_MACROS: &[(&str, &str)] = &[
    // 0: leaves.
    ("ctxt", "0.0"),
    ("docs", "0.0"),
    ("uri_template", "0.0"),
    ("elicit::case", "0.0"),
    ("meta", "0.1"),
    // 1: parse. The macros' options, then the model of the item.
    ("attr", "1.0"),
    ("elicit::options", "1.0"),
    ("elicit::ty", "1.0"),
    ("model", "1.1"),
    ("elicit::model", "1.1"),
    // `elicit/mod.rs` only declares its modules.
    ("elicit", "1.2"),
    // 2: analysis of a body that asks: reads the fn, writes no runtime path.
    ("flow::syntax", "2.0"),
    ("flow::find", "2.1"),
    ("flow::scope", "2.1"),
    ("flow::segment", "2.2"),
    ("flow", "2.3"),
    // 3: checks.
    ("check", "3"),
    ("elicit::check", "3"),
    // 4: codegen, the only place that emits `::fastmcp::__private`.
    ("expand", "4"),
];

/// The runtime crate: leaves → flow → context → handler → server → era → transport → serve (DESIGN.md §2).
pub const FASTMCP: &[(&str, &str)] = &[
    // 0: leaves. The wire types, minted ids, the error type, request-state tokens, input schemas.
    ("protocol", "0.0"),
    ("ids", "0.0"),
    // Locks that a panic leaves usable: the one place a poisoned mutex is taken over.
    ("sync", "0.0"),
    // Rate-limited logging of floods (refused tokens, failing accepts).
    ("log_every", "0.1"),
    // Each client's share of what outlives its requests (a one-time flow's consumed rounds), ended by the clock.
    ("leases", "0.1"),
    // A request's cancellation: an atomic flag, the handler's CancellationToken made only when asked for.
    ("cancel", "0.1"),
    // Authorization: tokens, verifiers, access rules, the edge; knows nothing of MCP messages.
    ("auth", "0.2"),
    // Who a client is (its principal, else its address) and each client's share of a bounded resource
    // (connections, streams, requests).
    ("shares", "0.3"),
    ("error", "0.1"),
    ("state", "0.2"),
    // The shared store (memory, Redis): keys with expiry, insert-if-absent, publish/subscribe.
    ("store", "0.2"),
    ("schema", "0.2"),
    // The fuzz targets' entry (feature `fuzzing`): reaches into every layer, so it sits above them all.
    ("fuzzing", "8"),
    // 1: what handler bodies compile to.
    ("flow", "1"),
    // 2: the request's Context, which reaches the client only through traits the layers above implement.
    ("context", "2"),
    // 3: the handler traits, and the helpers only macro expansions call.
    ("handler", "3.0"),
    ("macro_support", "3.1"),
    // 4: builder, registry, dispatch: no era, no token, no transport.
    ("server", "4"),
    // 5: the eras. Classification first; the two adapters never import each other; then what holds both.
    // What a request's `_meta` says, read before classification uses it.
    ("era::request_meta", "4.9"),
    // A request's params, read for its method (from the message as it is parsed, or from their own text).
    ("era::params", "4.95"),
    ("era::classify", "5.0"),
    ("era::legacy", "5.1"),
    ("era::modern", "5.1"),
    ("era::engine", "5.2"),
    // A connection's requests in flight, by id.
    ("era::flights", "5.2"),
    ("era::connection", "5.3"),
    ("era", "5.4"),
    // 6: bytes and HTTP. The client ranks above the server's transports only because its unit tests run it
    // against our own endpoint; its code uses `protocol` and `auth` and nothing else of the server (the
    // import graph shows it: `cargo run -p fastmcp-tests --bin import-graph -- fastmcp/src`).
    ("transport", "6.0"),
    ("client", "6.1"),
    // A server whose handlers are a client's calls: above both the client and the server's builder.
    ("proxy", "6.2"),
    // 7: the serve entry points.
    ("serve", "7"),
];

/// A crate's `src` directory, from this package's.
pub fn src(krate: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(krate).join("src")
}

#[test]
fn macro_crate_layers() {
    fastmcp_tests::layers::assert_layers(&src("fastmcp-macros"), FASTMCP_MACROS);
}

#[test]
fn only_expand_names_the_runtime_internals() {
    let src = src("fastmcp-macros");
    let found = fastmcp_tests::layers::files_mentioning(&src, "__private", "expand").expect("readable sources");
    assert!(found.is_empty(), "outside fastmcp-macros/src/expand, these name `__private`: {found:?}");
}

#[test]
fn runtime_crate_layers() {
    fastmcp_tests::layers::assert_layers(&src("fastmcp"), FASTMCP);
}

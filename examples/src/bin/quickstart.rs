//! The quickstart server (its handlers are in `examples/src/quickstart.rs`): two tools, a resource, a resource
//! template and a prompt, served on stdio.
//!
//! Build it with `cargo build -p fastmcp-examples --bin quickstart` and point an MCP client at the binary
//! (`target/debug/quickstart`): started from a terminal, it prints how to connect the common clients, and
//! `--help` lists what it serves and reads. `FASTMCP_TRANSPORT=http` serves Streamable HTTP instead.

use fastmcp_examples::cli::{Help, LOG_ENV, RUN_ENV, RUN_TRANSPORTS};

/// `quickstart --help`.
const HELP: Help = Help {
    usage: "quickstart [--help]",
    serves: "The quickstart MCP server:\n\
             \x20 tools              greet(name), add(a, b)\n\
             \x20 resources          quickstart://readme, quickstart://greeting/{name} (a template)\n\
             \x20 prompt             review_code(code, language?)\n\
             An MCP client starts it: run it from a terminal to see how to connect one.",
    transports: RUN_TRANSPORTS,
    env: &[RUN_ENV, LOG_ENV],
};

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    HELP.check_args();
    fastmcp_examples::quickstart::server().run().await
}

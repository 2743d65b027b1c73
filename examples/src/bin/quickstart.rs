//! The quickstart server (its handlers are in `examples/src/quickstart.rs`): two tools, a resource, a resource
//! template and a prompt, served on stdio.
//!
//! Run it with `cargo run -p fastmcp-examples --bin quickstart`, then point any MCP client at that command.
//! `FASTMCP_TRANSPORT=http` serves Streamable HTTP instead (see the README).

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    fastmcp_examples::quickstart::server().run().await
}

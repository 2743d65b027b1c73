//! Serves the server of `src/lib.rs` on stdio (MCP clients start it as a command), or Streamable HTTP
//! with `FASTMCP_TRANSPORT=http` (at `FASTMCP_HOST`, `FASTMCP_PORT`, `FASTMCP_PATH`).

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    my_mcp_server::server().run().await
}

//! The benchmark's fastmcp server: one tool, `add`, over Streamable HTTP on 127.0.0.1:`--port`.

use fastmcp::prelude::*;
use fastmcp::{HttpOptions, Transport};
use fastmcp_bench_load::{ServerArgs, add_text, init_logging};

/// Add two integers.
#[tool(read_only, idempotent)]
async fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> String {
    add_text(a, b)
}

fn main() -> fastmcp::Result<()> {
    let args = ServerArgs::parse();
    init_logging();
    let options = HttpOptions { addr: args.addr, sessions: !args.stateless, ..HttpOptions::default() };
    args.runtime()
        .block_on(FastMcp::new("bench-fastmcp").version("0.0.0").tool(add).transport(Transport::Http(options)).run())
}

//! The floors: the benchmark's modern requests (`tools/call add`, `tools/list`) answered by hand with
//! serde_json and no MCP framework, over HTTP (`--port`, bare hyper 1) or stdio (`--stdio`, a plain tokio
//! line loop). Both answer through [`fastmcp_bench_load::floor`], the one copy of the parse/check/serialize
//! work, so the two floors differ only in their transport.
//!
//! Same command line and runtime as the other servers (a multi-thread tokio runtime with `--workers`
//! threads; `--stateless` is accepted and changes nothing: modern requests are stateless). There is no
//! signal handling: SIGTERM's default action ends the process; on stdio, end of input ends it.

mod http;
mod stdio;

use fastmcp_bench_load::floor::Floor;
use fastmcp_bench_load::{Listen, ServerArgs};

fn main() -> std::io::Result<()> {
    let args = ServerArgs::parse();
    args.refuse_session_limits("bare_server");
    let floor = Floor::new("bench-bare");
    match args.listen {
        Listen::Http(addr) => args.runtime().block_on(http::serve(addr, floor)),
        Listen::Stdio => args.runtime().block_on(stdio::serve(floor)),
    }
}

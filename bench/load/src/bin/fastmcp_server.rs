//! The benchmark's fastmcp server: `add` and a `deploy`-shaped flow, over Streamable HTTP on
//! 127.0.0.1:`--port` or over stdio (`--stdio`), with fastmcp's defaults but for what the flags set.
//!
//! `deploy` is `examples/src/bin/deploy.rs` with the bench's texts: two `.ask()`s (a confirm form, then a
//! sampling prompt), so a modern client sees three rounds: `input_required`, `input_required`, complete.
//! It is `destructive`, as there, which makes it a one-time flow (its final round's token is consumed in
//! the store), part of what a deploy costs.
//!
//! The load generator is one client (one address) standing in for many, and its MRTR cell completes more
//! one-time flows within a token's TTL than one client's share holds by default (100 000); so the share
//! is raised out of reach here, still counted on every final round as it is for any client.

use fastmcp::prelude::*;
use fastmcp::{HttpOptions, Transport};
use fastmcp_bench_load::{Listen, ServerArgs, add_text, deploy as texts, init_logging};

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

/// Answer to the deployment question (rendered by the client as a form).
#[elicit]
struct Confirm {
    /// Go ahead with the deployment?
    confirm: bool,
}

/// Deploy a service, asking the user first.
#[tool(destructive)]
async fn deploy(
    /// The service to deploy.
    service: String,
    /// How many replicas to run.
    replicas: u32,
) -> Result<String> {
    let plan = texts::plan(&service, replicas); // runs once, in the first round
    let answer = Confirm::elicit(texts::confirm_message(&plan)).ask().await?;
    let Some(Confirm { confirm: true }) = answer.accepted() else {
        return Ok(format!("Deployment of {service} cancelled."));
    };
    let notes = Sample::prompt(texts::notes_prompt(&plan)).max_tokens(texts::NOTES_MAX_TOKENS).ask().await?;
    Ok(texts::deployed(&plan, &notes.text())) // `plan` came back from the request state
}

fn main() -> fastmcp::Result<()> {
    let args = ServerArgs::parse();
    init_logging();
    let mut server = FastMcp::new("bench-fastmcp")
        .version("0.0.0")
        .tool(add)
        .tool(deploy)
        .max_one_time_rounds_per_client(usize::MAX);
    if let Some(sessions) = args.max_sessions {
        server = server.max_sessions(sessions);
    }
    let transport = match args.listen {
        Listen::Stdio => Transport::Stdio,
        Listen::Http(addr) => {
            let defaults = HttpOptions::default();
            Transport::Http(HttpOptions {
                addr,
                sessions: !args.stateless,
                max_sessions_per_client: args.max_sessions_per_client.unwrap_or(defaults.max_sessions_per_client),
                ..defaults
            })
        }
    };
    args.runtime().block_on(server.transport(transport).run())
}

//! A tool that asks before it acts: one handler, resumable at each `.ask()`.
//!
//! Round 1 asks the user to confirm; round 2 asks the client's model for release notes. On the modern
//! protocol each round ends with `input_required` and the plan travels in signed request state; the work
//! before an ask never runs twice.

use fastmcp::prelude::*;
use fastmcp_examples::cli::{Help, LOG_ENV, RUN_ENV, RUN_TRANSPORTS};

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
    let plan = format!("{service} x{replicas}"); // runs once, in the first round
    let answer = Confirm::elicit(format!("Deploy {plan}?")).ask().await?;
    let Some(Confirm { confirm: true }) = answer.accepted() else {
        return Ok(format!("Deployment of {service} cancelled."));
    };
    let notes = Sample::prompt(format!("Write release notes for {plan}")).max_tokens(200).ask().await?;
    Ok(format!("Deployed {plan}: {}", notes.text())) // `plan` came back from the request state
}

/// `deploy --help`.
const HELP: Help = Help {
    usage: "deploy [--help]",
    serves: "One tool that asks before it acts: deploy(service, replicas) asks the user to confirm (a form),\n\
             then asks the client's model for release notes (sampling).",
    transports: RUN_TRANSPORTS,
    env: &[RUN_ENV, LOG_ENV],
};

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    HELP.check_args();
    FastMcp::new("deploy").version(env!("CARGO_PKG_VERSION")).tool(deploy).run().await
}

//! A tool that asks in a loop: one question per round, the answers so far carried in request state.

use fastmcp::prelude::*;
use fastmcp_examples::cli::{Help, LOG_ENV, RUN_ENV, RUN_TRANSPORTS};

/// One answer.
#[elicit]
struct Reply {
    /// Your answer.
    answer: String,
}

/// Ask each question in turn and report the answers.
#[tool]
async fn survey(
    /// The questions, asked in order.
    questions: Vec<String>,
) -> Result<String> {
    let mut answers = Vec::new();
    for question in questions {
        let reply = Reply::elicit(question.clone()).ask().await?;
        let answer = reply.accepted().map(|r| r.answer).unwrap_or_default();
        answers.push(format!("{question}={answer}"));
    }
    Ok(answers.join("; "))
}

/// `survey --help`.
const HELP: Help = Help {
    usage: "survey [--help]",
    serves: "One tool: survey(questions) asks the user each question in turn, one form per round, and\n\
             reports the answers.",
    transports: RUN_TRANSPORTS,
    env: &[RUN_ENV, LOG_ENV],
};

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    HELP.check_args();
    FastMcp::new("survey").version(env!("CARGO_PKG_VERSION")).tool(survey).run().await
}

//! A tool that asks in a loop: one question per round, the answers so far carried in request state.

use fastmcp::prelude::*;

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

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    FastMcp::new("survey").version(env!("CARGO_PKG_VERSION")).tool(survey).run().await
}

//! An ask in a `for` loop: the iterator is collected into a queue the suspension carries with the answers so
//! far; the resumed round finishes the interrupted iteration, then enters the loop again.
use fastmcp::prelude::*;

#[tool]
async fn survey(questions: Vec<String>) -> Result<String> {
    let mut answers = Vec::new();
    for question in questions {
        let reply = Reply::elicit(question.clone()).ask().await?;
        let answer = reply.accepted().map(|r| r.answer).unwrap_or_default();
        answers.push(format!("{question}={answer}"));
    }
    Ok(answers.join("; "))
}

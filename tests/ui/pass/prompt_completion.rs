#![deny(warnings)]

use fastmcp::prelude::*;

/// Explain some code.
#[prompt(title = "Explain code")]
async fn explain(
    /// The code's language.
    #[complete(["rust", "go", "python"])]
    language: String,
    /// A topic, completed by a fn.
    #[complete(complete_topic)]
    topic: Option<String>,
    /// How detailed.
    level: Option<u8>,
    _ctx: Context,
) -> String {
    format!("{language} {topic:?} {level:?}")
}

async fn complete_topic(query: CompletionQuery) -> Vec<String> {
    vec![format!("{}-suggestion", query.value)]
}

#[prompt(name = "plain")]
async fn messages() -> Result<Vec<PromptMessage>> {
    Ok(vec![PromptMessage::user("hi")])
}

fn main() {
    let _server = FastMcp::new("pass").prompt(explain).prompt(messages);
}

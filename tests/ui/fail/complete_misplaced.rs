use fastmcp::prelude::*;

#[tool]
async fn tool_with_completion(#[complete(["a"])] value: String) -> String {
    value
}

#[prompt]
async fn prompt_with_bad_completer(
    #[complete] a: String,
    #[complete(["x"])]
    #[complete(["y"])]
    b: String,
    #[serde(default)] c: String,
) -> String {
    format!("{a}{b}{c}")
}

fn main() {}

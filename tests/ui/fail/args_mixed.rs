use fastmcp::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Query {
    text: String,
}

#[tool]
async fn search(Args(query): Args<Query>, limit: u32, Args(again): Args<Query>) -> String {
    format!("{} {limit} {}", query.text, again.text)
}

#[prompt]
async fn prompt_args(Args(query): Args<Query>) -> String {
    query.text
}

fn main() {}

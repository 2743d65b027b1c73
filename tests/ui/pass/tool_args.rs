#![deny(warnings)]

use fastmcp::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Query {
    /// Text to look for.
    text: String,
    limit: Option<u32>,
}

/// Search, taking the whole arguments object as one struct.
#[tool]
async fn search(Args(query): Args<Query>, _ctx: &Context) -> String {
    format!("{} {:?}", query.text, query.limit)
}

#[tool]
async fn search_again(query: fastmcp::Args<Query>) -> String {
    query.0.text
}

fn main() {
    let _server = FastMcp::new("pass").tool(search).tool(search_again);
}

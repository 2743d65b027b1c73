#![deny(warnings)]

use fastmcp::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema)]
struct Sum {
    total: i64,
}

#[tool]
async fn json(a: i64, b: i64) -> Json<Sum> {
    Json(Sum { total: a + b })
}

#[tool]
async fn fallible(a: i64) -> Result<Json<Sum>, std::io::Error> {
    Ok(Json(Sum { total: a }))
}

#[tool]
async fn fastmcp_result() -> fastmcp::Result<String> {
    Err(Error::msg("nope"))
}

#[tool]
async fn content() -> Vec<ContentBlock> {
    vec![ContentBlock::text("a"), ContentBlock::text("b")]
}

#[tool]
async fn raw() -> CallToolResult {
    CallToolResult::text("raw")
}

#[tool]
async fn unit() {}

#[tool]
async fn str_slice() -> &'static str {
    "static"
}

fn main() {
    let _server = FastMcp::new("pass")
        .tool(json)
        .tool(fallible)
        .tool(fastmcp_result)
        .tool(content)
        .tool(raw)
        .tool(unit)
        .tool(str_slice);
}

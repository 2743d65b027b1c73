use fastmcp::prelude::*;

#[tool(timeout = "soon")]
async fn wait() -> String {
    String::new()
}

#[tool(timeout = "0s")]
async fn never() -> String {
    String::new()
}

#[tool(timeout = "999999999999999999m")]
async fn forever() -> String {
    String::new()
}

fn main() {}

use fastmcp::prelude::*;

#[tool(readOnlyHint, nmae = "x", colour = "blue")]
async fn paint() {}

#[resource("config://app", mime = "text/plain")]
async fn config() -> String {
    String::new()
}

fn main() {}

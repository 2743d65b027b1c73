use fastmcp::handler::{PromptHandler, ResourceHandler, ToolHandler};
use fastmcp::prelude::*;

/// Tagged.
#[tool(tags = ["admin", "beta"])]
async fn tagged() -> String {
    String::new()
}

#[prompt(tags = ["ops"])]
async fn ops() -> String {
    String::new()
}

#[resource("config://app", tags = ["ops"])]
async fn config() -> String {
    String::new()
}

fn main() {
    assert_eq!(tagged.tags(), ["admin", "beta"]);
    assert_eq!(ops.tags(), ["ops"]);
    assert_eq!(config.tags(), ["ops"]);
}

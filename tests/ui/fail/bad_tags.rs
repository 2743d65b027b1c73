use fastmcp::prelude::*;

/// One tag is still an array.
#[tool(tags = "admin")]
async fn one() -> String {
    String::new()
}

/// Elements that are not string literals.
#[prompt(tags = [admin, 3])]
async fn names() -> String {
    String::new()
}

/// An empty tag and a duplicate.
#[resource("config://app", tags = ["", "ops", "ops"])]
async fn config() -> String {
    String::new()
}

/// Given twice.
#[tool(tags = ["a"], tags = ["b"])]
async fn twice() -> String {
    String::new()
}

fn main() {}

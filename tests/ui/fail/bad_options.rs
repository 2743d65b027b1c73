use fastmcp::prelude::*;

#[tool(name = "a", name = "b", read_only = "yes", title = 5)]
async fn one() {}

#[tool(name = "has space")]
async fn two() {}

#[prompt("positional")]
async fn three() -> String {
    String::new()
}

#[resource(name = "no uri")]
async fn four() -> String {
    String::new()
}

fn main() {}

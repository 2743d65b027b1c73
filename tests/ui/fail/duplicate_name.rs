use fastmcp::prelude::*;

#[tool(name = "search")]
async fn search_web(q: String) -> String {
    q
}

#[tool(name = "search")]
async fn search_docs(q: String) -> String {
    q
}

#[prompt]
async fn summary() -> String {
    String::new()
}

#[prompt(name = "summary")]
async fn summarize() -> String {
    String::new()
}

fn main() {}

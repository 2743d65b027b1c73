use fastmcp::prelude::*;

#[tool]
async unsafe fn not_safe() {}

#[tool]
async fn bounded(x: String) -> String
where
    String: Clone,
{
    x
}

#[tool]
async fn opaque() -> impl IntoToolResult {
    String::new()
}

#[tool]
async fn generic_arg(x: impl Into<String>) -> String {
    x.into()
}

#[tool]
async fn grüße() {}

#[tool(
    name = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
)]
async fn long() {}

#[prompt]
async fn no_return() {}

fn main() {}

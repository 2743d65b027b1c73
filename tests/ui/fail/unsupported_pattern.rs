use fastmcp::prelude::*;

#[tool]
async fn pair((a, b): (u32, u32), _: String) -> String {
    format!("{a}{b}")
}

fn main() {}

use fastmcp::prelude::*;

#[tool]
async fn pick() -> Result<String> {
    checkpoint().ask_as("a/b").await?;
    checkpoint().ask_as("").await?;
    Ok(String::new())
}

fn main() {}

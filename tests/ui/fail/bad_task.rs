use fastmcp::prelude::*;

#[tool(task = "sometimes")]
async fn render() -> String {
    String::new()
}

#[tool(task = true)]
async fn encode() -> String {
    String::new()
}

/// `run_as_task()` in a tool that never runs as a task.
#[tool]
async fn compress() -> Result<String> {
    run_as_task().ask().await?;
    Ok(String::new())
}

/// Only tools run as tasks.
#[prompt]
async fn summary() -> Result<String> {
    run_as_task().ask().await?;
    Ok(String::new())
}

fn main() {}

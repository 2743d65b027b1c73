use fastmcp::handler::{TaskSupport, ToolHandler};
use fastmcp::prelude::*;

#[elicit]
struct Quality {
    /// Render quality, 1 to 10.
    level: u32,
}

#[tool(task = "optional")]
async fn sometimes() -> String {
    String::new()
}

#[tool(task = "forbidden")]
async fn never() -> String {
    String::new()
}

/// Asks in an ordinary round, then carries `scene` and `level` into the task.
#[tool(task = "required", read_only)]
async fn render(scene: String) -> Result<String> {
    let level = Quality::elicit("Quality?").ask().await?.accepted().map_or(5, |q| q.level);
    fastmcp::flow::run_as_task().ask().await?;
    Ok(format!("{scene} at {level}"))
}

fn main() {
    assert_eq!(sometimes.task_support(), TaskSupport::Optional);
    assert!(!sometimes.has_task_step());
    assert_eq!(never.task_support(), TaskSupport::Forbidden);
    assert_eq!(render.task_support(), TaskSupport::Required);
    assert!(render.has_task_step());
}

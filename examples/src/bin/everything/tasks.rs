//! The tasks extension's fixtures (`io.modelcontextprotocol/tasks`, SEP-2663): the tools the suite's
//! `tasks-*` scenarios call, by the suite's names.
//!
//! `task = "optional"` makes a call a task for a client that declared the extension and a plain call for
//! the others; `task = "required"` refuses the others (`-32021`). A task runs the handler in the
//! background, and an `.ask()` inside it parks the task in `input_required` until the client answers with
//! `tasks/update`. `run_as_task()` lets a tool gather input in ordinary rounds first.

use fastmcp::prelude::*;
use std::time::Duration;

/// Greets at once: a plain tool, never a task.
#[tool(read_only)]
pub async fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Sleeps for `seconds` (at most an hour), then reports; a task for clients that support them. Cancelling
/// the task stops the sleep.
#[tool(read_only, task = "optional")]
pub async fn slow_compute(
    /// How long to work, in seconds (0: at once).
    seconds: f64,
    /// A label echoed in the result.
    label: Option<String>,
) -> String {
    let pause = Duration::try_from_secs_f64(seconds.clamp(0.0, 3600.0)).unwrap_or_default();
    tokio::time::sleep(pause).await;
    format!("Computed {} after {} ms", label.as_deref().unwrap_or("result"), pause.as_millis())
}

/// Works for about a second, then fails with a tool error (a `completed` task with `isError`).
#[tool(task = "required")]
pub async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("The job failed: the input could not be processed".into())
}

/// Simulates a crash: the handler panics, which is a protocol-level error (a `failed` task, or a `-32603`
/// `isError` result when called synchronously). The server keeps serving.
#[tool(task = "optional")]
pub async fn protocol_error_job() -> Result<String> {
    tokio::time::sleep(Duration::from_millis(200)).await;
    panic!("protocol_error_job: simulated crash");
}

/// The answer to "delete this file?".
#[elicit]
struct ConfirmDelete {
    /// Delete the file?
    confirm: bool,
}

/// Asks once (inside the task) whether to delete `filename`, then reports what it did.
#[tool(destructive, task = "optional")]
pub async fn confirm_delete(
    /// The file to delete.
    filename: String,
) -> Result<String> {
    let answer = ConfirmDelete::elicit(format!("Delete {filename}?")).ask().await?;
    Ok(match answer.accepted() {
        Some(ConfirmDelete { confirm: true }) => format!("Deleted {filename}"),
        _ => format!("Kept {filename}"),
    })
}

/// A name.
#[elicit]
struct Name {
    /// Your name.
    name: String,
}

/// A yes or no.
#[elicit]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}

/// Asks two things at once, so two input requests are pending together.
#[tool(task = "optional")]
pub async fn multi_input() -> Result<String> {
    let (name, go) = (Name::elicit("What is your name?"), Confirm::elicit("Go ahead?")).ask().await?;
    let name = name.accepted().map(|n| n.name).unwrap_or_else(|| "nobody".into());
    let go = go.accepted().is_some_and(|c| c.confirm);
    Ok(format!("Multi-input complete: name={name}, confirm={go}"))
}

/// Asks for a name in an ordinary round, then becomes a task that greets with it.
#[tool(task = "required")]
pub async fn test_tool_with_task() -> Result<String> {
    let answer = Name::elicit("What is your name?").ask_as("user_name").await?;
    let name = answer.accepted().map(|n| n.name).unwrap_or_else(|| "stranger".into());
    run_as_task().ask().await?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    Ok(format!("Task completed for {name}"))
}

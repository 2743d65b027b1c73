//! Helpers that only macro expansions call (re-exported from `__private`).

use crate::flow::Step;
use crate::handler::HandlerResult;
use crate::protocol::CallToolResult;

/// The `isError` result for arguments that do not match a tool's input schema.
pub fn invalid_arguments(tool: &str, error: serde_json::Error) -> HandlerResult<CallToolResult> {
    Ok(Step::Complete(CallToolResult::error(format!("Invalid arguments for tool `{tool}`: {error}"))))
}

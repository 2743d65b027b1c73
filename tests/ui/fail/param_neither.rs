//! A parameter's type is an argument or supplied by the runtime; the error for one that is neither is on
//! the type, and says which.
use fastmcp::prelude::*;

struct Plain;

#[tool]
async fn tool_param(name: String, plain: Plain) -> String {
    let _ = plain;
    name
}

#[prompt]
async fn prompt_param(plain: Plain) -> String {
    let _ = plain;
    String::new()
}

#[resource("notes://{id}")]
async fn resource_param(id: u32, plain: Plain) -> String {
    let _ = plain;
    id.to_string()
}

/// Unnamed, so it would have to be supplied.
#[tool]
async fn unnamed(_: u32) -> String {
    String::new()
}

fn main() {}

use fastmcp::prelude::*;

/// Every problem of the fn is reported in one compile.
#[tool(colour = "red")]
fn everything<T>((a, b): (u32, u32), name: &str, #[complete(["x"])] other: String) -> String {
    format!("{a}{b}{name}{other}")
}

fn main() {}

//! A body that does not parse yet (mid-edit): rustc reports the syntax error, and the macro still expands
//! (no error of its own, and `greet` stays a registrable tool).
use fastmcp::prelude::*;

#[tool]
async fn greet(name: String) -> String {
    let x = ;
    name
}

fn main() {
    let _server = FastMcp::new("x").tool(greet);
}

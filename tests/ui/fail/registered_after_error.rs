//! A handler whose macro reports an error is still registrable: the macro's error is the only one, with no
//! second error at `.tool(..)`, `.prompt(..)` or `.resource(..)`.
use fastmcp::prelude::*;

#[tool(colour = "red")]
async fn greet(name: String) -> String {
    name
}

#[prompt]
fn explain(code: String) -> String {
    code
}

#[resource("notes://{id}")]
async fn note() -> String {
    String::new()
}

fn main() {
    let _server = FastMcp::new("x").tool(greet).prompt(explain).resource(note);
}

use fastmcp::prelude::*;

#[tool]
async fn greet(name: &str, items: &[u8], ctx: &mut Context) -> String {
    format!("{name} {items:?} {:?}", ctx.request_id())
}

/// Alone, so the macro expands it: the error comes from the type check, as plainly.
#[tool]
async fn borrowed(name: &str) -> String {
    name.to_owned()
}

fn main() {}

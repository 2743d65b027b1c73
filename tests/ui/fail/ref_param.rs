use fastmcp::prelude::*;

#[tool]
async fn greet(name: &str, items: &[u8], ctx: &mut Context) -> String {
    format!("{name} {items:?} {:?}", ctx.request_id())
}

fn main() {}

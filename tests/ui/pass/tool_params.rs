#![deny(warnings)]

use fastmcp::prelude::*;

/// Greet someone.
#[tool(read_only, open_world = false)]
pub async fn greet(
    /// Who to greet.
    name: String,
    /// How many times.
    times: Option<u32>,
    ctx: Context,
    _same: &fastmcp::Context,
    #[allow(unused_mut)] mut tag: Vec<String>,
    r#type: bool,
) -> String {
    let _ = (ctx.request_id(), r#type);
    tag.push(name);
    tag.join(",").repeat(times.unwrap_or(1) as usize)
}

mod nested {
    use fastmcp::prelude::*;

    /// Private tools work too, and two modules may each have a tool named `greet`.
    #[tool(name = "greet", idempotent)]
    pub(crate) async fn hello(_: Context) {}
}

fn main() {
    let _server = FastMcp::new("pass").tool(greet).tool(nested::hello);
    let _ = greet::invoke;
}

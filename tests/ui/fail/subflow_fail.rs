use fastmcp::prelude::*;

#[elicit]
fn not_async(what: String) -> bool {
    what.is_empty()
}

#[elicit]
async fn with_context(what: String, ctx: Context) -> bool {
    let _ = ctx;
    what.is_empty()
}

#[elicit(name = "x")]
async fn with_options() -> bool {
    true
}

#[elicit]
async fn fine(what: String) -> bool {
    what.is_empty()
}

async fn not_a_handler() -> bool {
    fine("x".into()).ask().await.unwrap_or_default()
}

fn main() {
    let _ = not_a_handler();
}

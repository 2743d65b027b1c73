use fastmcp::prelude::*;
use std::rc::Rc;

#[tool]
async fn holds_rc() -> String {
    let rc = Rc::new(1);
    tokio::task::yield_now().await;
    rc.to_string()
}

fn main() {}

use fastmcp::prelude::*;

#[resource("users://{org}/{id}")]
async fn user(id: u64) -> String {
    id.to_string()
}

fn main() {}

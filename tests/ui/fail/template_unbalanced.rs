use fastmcp::prelude::*;

#[resource("users://{id/profile")]
async fn profile(id: String) -> String {
    id
}

fn main() {}

use fastmcp::prelude::*;

#[resource("users://{id}")]
async fn user(id: u64, verbose: bool) -> String {
    format!("{id} {verbose}")
}

#[resource("config://app")]
async fn config(section: String) -> String {
    section
}

#[resource("users://{id}/posts{?page}")]
async fn posts(id: Option<u64>, page: Option<u32>) -> String {
    format!("{id:?} {page:?}")
}

fn main() {}

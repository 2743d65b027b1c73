use fastmcp::prelude::*;

#[resource("files://{#frag}/{1st}/{a,b}/{}/{x}{x}")]
async fn files(x: String) -> String {
    x
}

#[resource("no-scheme/{id}")]
async fn no_scheme(id: String) -> String {
    id
}

#[resource("items://{?page}/{id}")]
async fn query_first(page: Option<u32>, id: String) -> String {
    format!("{page:?}{id}")
}

fn main() {}

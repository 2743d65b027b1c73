use fastmcp::prelude::*;

/// One scope is still an array.
#[tool(scopes = "admin")]
async fn one() -> String {
    String::new()
}

/// A string of several scopes: each is its own string.
#[prompt(scopes = "deploy:read deploy:write")]
async fn several() -> String {
    String::new()
}

/// Elements that are not string literals.
#[resource("config://app", scopes = [admin, 3])]
async fn config() -> String {
    String::new()
}

/// An empty array requires nothing.
#[tool(scopes = [])]
async fn nothing() -> String {
    String::new()
}

/// A space inside one string, a character outside RFC 6749's scope-token, an empty scope and a duplicate.
#[resource("users://{id}", scopes = ["deploy write", "caf\u{e9}", "", "users:read", "users:read"])]
async fn user(id: u64) -> String {
    id.to_string()
}

/// Given twice.
#[tool(scopes = ["a"], scopes = ["b"])]
async fn twice() -> String {
    String::new()
}

fn main() {}

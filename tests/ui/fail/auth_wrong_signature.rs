use fastmcp::auth::AccessToken;
use fastmcp::prelude::*;

mod checks {
    use fastmcp::auth::AccessToken;

    /// Returns `bool`, not `Result<(), Denied>`.
    pub fn is_admin(token: &AccessToken) -> bool {
        token.has_scope("admin")
    }
}

/// Takes the token by value.
fn by_value(_: AccessToken) -> Result<(), fastmcp::auth::Denied> {
    Ok(())
}

#[tool(scopes = ["admin"], auth = checks::is_admin)]
async fn reset() -> String {
    String::new()
}

#[prompt(auth = by_value)]
async fn summary() -> String {
    String::new()
}

/// Still checked when the expansion stops at another error.
#[tool(auth = by_value, colour = "blue")]
async fn other_error() -> String {
    String::new()
}

fn main() {}

//! Access: `scopes` and `auth` become the handler's `access()`; the check fn is bound to a `Check` on its
//! own path, so a fn of another signature is an error there. A resource with scopes alone has no check.
use fastmcp::auth::{AccessToken, Denied};
use fastmcp::prelude::*;

fn on_call(token: &AccessToken) -> Result<(), Denied> {
    if token.subject.is_some() { Ok(()) } else { Err(Denied::new("no subject")) }
}

#[tool(scopes = ["deploy:write", "deploy:read"], auth = on_call)]
async fn deploy(service: String) -> String {
    service
}

#[resource("logs://{service}", scopes = ["logs:read"])]
async fn logs(service: String) -> String {
    service
}

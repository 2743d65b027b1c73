//! Authorization from the environment, shared by the `auth` and `axum` examples: tokens are JWTs from the
//! authorization server `FASTMCP_AUTH_ISSUER` (its metadata gives the signing keys), issued for this
//! server's URL — `FASTMCP_AUTH_AUDIENCE`, by default the URL the server serves on — with scope `mcp`.

use fastmcp::auth::{JwtVerifier, ProtectedResource};

/// The protection the environment asks for: `None` without `FASTMCP_AUTH_ISSUER`. `served_at` is the
/// server's own URL when the caller knows it before serving (an app that bound its listener).
pub fn from_env(served_at: Option<String>) -> Option<ProtectedResource> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let issuer = var("FASTMCP_AUTH_ISSUER")?;
    let mut auth = ProtectedResource::new(JwtVerifier::new(&issuer))
        .authorization_server(issuer)
        .scopes_supported(["mcp"])
        .required_scopes(["mcp"])
        .resource_name("fastmcp auth example");
    if let Some(resource) = var("FASTMCP_AUTH_AUDIENCE").or(served_at) {
        auth = auth.resource(resource);
    }
    Some(auth)
}

//! Authorization: the server as an OAuth 2.1 protected resource, as the MCP spec defines it for HTTP
//! (revisions 2025-06-18 on).
//!
//! Configure a [`ProtectedResource`] on the builder ([`FastMcp::auth`](crate::FastMcp::auth)). Then every
//! HTTP request needs `Authorization: Bearer <token>` that its [`TokenVerifier`] accepts as issued for this
//! server (401 with a `WWW-Authenticate` challenge naming the metadata otherwise); the metadata (RFC 9728)
//! is served at `/.well-known/oauth-protected-resource[/path]`. Components ask for scopes with
//! `#[tool(scopes = ["deploy:write"])]` or a check of their own (`auth = fn`): callers without them don't see
//! them in lists and are refused them (403 `insufficient_scope`, naming the scopes, so a client can step
//! up). Handlers read the caller with [`Context::auth`](crate::Context::auth); request state, tasks and
//! legacy sessions are bound to the caller's [`Principal`]. On stdio the spec says to take credentials from
//! the environment: a token in `FASTMCP_AUTH_TOKEN` is verified once, at start, and is the whole process's.

mod access;
mod challenge;
#[cfg(feature = "oauth")]
mod claims;
// Issuer metadata discovery: the verifiers' key source; its URL order is the client's too.
#[cfg(any(feature = "oauth", feature = "client"))]
#[cfg_attr(not(feature = "oauth"), allow(dead_code))]
pub(crate) mod discovery;
// The HTTP client of the verifiers and of the client's OAuth flow.
#[cfg(any(feature = "oauth", feature = "client"))]
pub(crate) mod fetch;
// The edge's HTTP side (challenges, metadata) goes unused in a stdio-only build, which verifies one token.
#[cfg_attr(not(feature = "http"), allow(dead_code, unused_imports))]
mod gate;
#[cfg(feature = "oauth")]
mod introspect;
#[cfg(feature = "oauth")]
mod jwks;
#[cfg(feature = "oauth")]
mod jwt;
mod resource;
#[cfg(all(test, any(feature = "oauth", feature = "client")))]
pub(crate) mod test_as;
mod token;
mod verify;

pub use access::{Access, Check, Denied, Refusal};
pub use challenge::{Challenge, ParsedChallenge, Presented, bearer_token, parse_challenges};
#[cfg_attr(not(feature = "http"), allow(unused_imports))]
pub(crate) use gate::{Gate, Refused};
#[cfg(feature = "oauth")]
pub use introspect::Introspection;
#[cfg(feature = "oauth")]
pub use jsonwebtoken::Algorithm;
#[cfg(feature = "oauth")]
pub use jwt::JwtVerifier;
pub use resource::{METADATA_PATH, ProtectedResource, STDIO_TOKEN_VAR, check_scope};
pub use token::{AccessToken, Principal};
pub use verify::{AnyOf, Rejected, StaticTokens, TokenVerifier, VerifyFuture};

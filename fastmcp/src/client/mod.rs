//! The Rust client (feature `client`): talk to any MCP server over stdio or Streamable HTTP, in either era.

mod authorize;
mod error;
mod oauth;
pub(crate) mod transport;

pub use authorize::{Authorizer, BearerToken};
pub use error::ClientError;
pub use oauth::{
    AuthorizationCode, AuthorizationRequest, AuthorizationResponse, ClientMetadata, MemoryTokenStore, OAuth,
    OAuthConfig, Open, TokenStore, Tokens,
};

//! What the HTTP transport asks of whatever holds the client's credentials: the `Authorization` header for
//! a request, and what to do when the server refuses one (401, or 403 `insufficient_scope`).

use super::error::ClientError;
use super::transport::BoxFuture;

/// Credentials for a protected server. A fixed token, or the OAuth 2.1 client (discovery, registration,
/// PKCE, refresh, step-up) — the transport only asks.
pub trait Authorizer: Send + Sync + 'static {
    /// The `Authorization` value for the next request to `url`, if there is one yet.
    fn authorization(&self, url: &str) -> BoxFuture<'_, Result<Option<String>, ClientError>>;
    /// The server at `url` refused a request with `status` (401 or 403) and this `WWW-Authenticate` value:
    /// get credentials that may do better. `Ok(true)`: retry the request; `Ok(false)`: give up (the
    /// refusal is the answer).
    fn refused<'a>(
        &'a self,
        url: &'a str,
        status: u16,
        www_authenticate: Option<&'a str>,
    ) -> BoxFuture<'a, Result<bool, ClientError>>;
}

/// One bearer token, sent as it is (`fastmcp --token T`); a refusal is final.
pub struct BearerToken(pub String);

impl Authorizer for BearerToken {
    fn authorization(&self, _url: &str) -> BoxFuture<'_, Result<Option<String>, ClientError>> {
        let value = format!("Bearer {}", self.0);
        Box::pin(async move { Ok(Some(value)) })
    }

    fn refused<'a>(&'a self, _: &'a str, _: u16, _: Option<&'a str>) -> BoxFuture<'a, Result<bool, ClientError>> {
        Box::pin(async { Ok(false) })
    }
}

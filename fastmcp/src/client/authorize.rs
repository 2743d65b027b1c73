//! What the HTTP transport asks of whatever holds the client's credentials: the headers for a request
//! (`Authorization`, and a DPoP proof of possession), what to do when the server refuses one (401, or 403
//! `insufficient_scope`), and what the server's other answers said (a new DPoP nonce). The transport
//! attaches what it is given and decides nothing about credentials.

use super::error::ClientError;
use super::transport::BoxFuture;
use http::{HeaderMap, Method};
use std::fmt;

/// The request credentials are asked for: a proof of possession (DPoP, RFC 9449) covers its method and URL.
#[derive(Clone, Copy, Debug)]
pub struct RequestTarget<'a> {
    /// The request's HTTP method (`POST` for messages, `GET` for a server stream, `DELETE` to end a session).
    pub method: &'a Method,
    /// The endpoint's URL, as the transport was given it.
    pub url: &'a str,
}

/// What the transport attaches to one request, as it is.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    /// The `Authorization` value: `Bearer <token>`, `DPoP <token>`, or another scheme's.
    pub authorization: Option<String>,
    /// The `DPoP` header: a proof for this one request (RFC 9449 §4), made afresh each time.
    pub dpop: Option<String>,
}

impl Credentials {
    /// `Authorization: Bearer <token>`.
    pub fn bearer(token: &str) -> Self {
        Self { authorization: Some(format!("Bearer {token}")), dpop: None }
    }
}

/// Values are not shown: they are credentials.
impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = self.authorization.as_deref().map(|value| value.split(' ').next().unwrap_or_default());
        f.debug_struct("Credentials").field("scheme", &scheme).field("dpop", &self.dpop.is_some()).finish()
    }
}

/// A server's refusal of a request: its status (401 or 403), its headers (`WWW-Authenticate`, a
/// `DPoP-Nonce`), and the credentials the refused request carried.
#[derive(Clone, Copy, Debug)]
pub struct Refusal<'a> {
    /// The HTTP status: 401 (no or a bad token) or 403 (`insufficient_scope`).
    pub status: u16,
    /// The refusal's headers, `WWW-Authenticate` and `DPoP-Nonce` among them.
    pub headers: &'a HeaderMap,
    /// What the refused request carried, so an authorizer can tell a stale token from one already replaced.
    pub sent: &'a Credentials,
}

/// Credentials for a protected server. A fixed token, or the OAuth 2.1 client (discovery, registration,
/// PKCE, DPoP, refresh, step-up) — the transport only asks.
pub trait Authorizer: Send + Sync + 'static {
    /// The credentials for `request`, about to be sent (none yet: [`Credentials::default`]).
    fn authorization<'a>(&'a self, request: RequestTarget<'a>) -> BoxFuture<'a, Result<Credentials, ClientError>>;

    /// The server refused `request`: get credentials that may do better. `Ok(true)`: retry the request
    /// (asking for credentials again); `Ok(false)`: give up (the refusal is the answer).
    fn refused<'a>(
        &'a self,
        request: RequestTarget<'a>,
        refusal: Refusal<'a>,
    ) -> BoxFuture<'a, Result<bool, ClientError>>;

    /// Any other answer to `request`, by its headers (a `DPoP-Nonce` to use from now on). Nothing by default.
    fn answered(&self, request: RequestTarget<'_>, headers: &HeaderMap) {
        let _ = (request, headers);
    }
}

/// One bearer token, sent as it is (`fastmcp --token T`); a refusal is final.
pub struct BearerToken(pub String);

impl Authorizer for BearerToken {
    fn authorization<'a>(&'a self, _: RequestTarget<'a>) -> BoxFuture<'a, Result<Credentials, ClientError>> {
        let credentials = Credentials::bearer(&self.0);
        Box::pin(async move { Ok(credentials) })
    }

    fn refused<'a>(&'a self, _: RequestTarget<'a>, _: Refusal<'a>) -> BoxFuture<'a, Result<bool, ClientError>> {
        Box::pin(async { Ok(false) })
    }
}

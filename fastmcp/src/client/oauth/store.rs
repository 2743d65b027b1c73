//! Where the client keeps each server's tokens between requests — and, with a store of your own (a file, a
//! keychain), between runs.

use crate::client::ClientError;
use crate::sync::lock;
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What one authorization (or refresh) gave for one server. Secrets: `Debug` shows none of them, and the
/// client never logs them.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// The access token, sent with each request (as `Bearer`, or as `DPoP` when [`dpop`](Self::dpop) is set).
    pub access_token: String,
    /// The refresh token, if the authorization server gave one: used to renew the access token before it expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch (its `expires_in` counted from
    /// receipt); none if the authorization server did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted, space-separated: the token response's `scope`, else those requested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The issuer of the authorization server that issued them: a refresh token goes back to it only
    /// (credentials are never carried from one authorization server to another).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// Whether the access token is bound to the client's DPoP key (its `token_type` is `DPoP`, RFC 9449):
    /// it is sent only with a proof of that key, under the `DPoP` scheme — never as a Bearer token.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dpop: bool,
}

fn is_false(value: &bool) -> bool {
    !value
}

impl Tokens {
    /// Whether the access token has expired, or will within `margin`. Without an expiry it never does
    /// (until the server refuses it).
    pub fn expires_within(&self, margin: Duration) -> bool {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        self.expires_at.is_some_and(|at| now + margin >= Duration::from_secs(at))
    }

    /// The granted scopes, one by one.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scope.as_deref().unwrap_or("").split_ascii_whitespace()
    }
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokens")
            .field("access_token", &"<redacted>")
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "<redacted>"))
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .field("issuer", &self.issuer)
            .field("dpop", &self.dpop)
            .finish()
    }
}

/// The tokens of each server, by the server URL the transport connects to. Asynchronous and fallible, so a
/// store may write a file or ask a keychain; it should keep them as confidential as passwords.
pub trait TokenStore: Send + Sync + 'static {
    /// The tokens kept for `server`, if any.
    fn get<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<Option<Tokens>, ClientError>>;
    /// Keeps `tokens` for `server`, or forgets its tokens (`None`).
    fn set<'a>(&'a self, server: &'a str, tokens: Option<Tokens>) -> BoxFuture<'a, Result<(), ClientError>>;
}

/// The default store: tokens in memory, gone with the process.
#[derive(Default)]
pub struct MemoryTokenStore {
    tokens: Mutex<HashMap<String, Tokens>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Tokens>> {
        lock(&self.tokens)
    }
}

impl TokenStore for MemoryTokenStore {
    fn get<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<Option<Tokens>, ClientError>> {
        let tokens = self.map().get(server).cloned();
        Box::pin(async move { Ok(tokens) })
    }

    fn set<'a>(&'a self, server: &'a str, tokens: Option<Tokens>) -> BoxFuture<'a, Result<(), ClientError>> {
        match tokens {
            Some(tokens) => self.map().insert(server.to_owned(), tokens),
            None => self.map().remove(server),
        };
        Box::pin(async { Ok(()) })
    }
}

/// A shared store (`Arc<MemoryTokenStore>`) is a store: the application keeps a handle to it.
impl<T: TokenStore> TokenStore for Arc<T> {
    fn get<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<Option<Tokens>, ClientError>> {
        (**self).get(server)
    }

    fn set<'a>(&'a self, server: &'a str, tokens: Option<Tokens>) -> BoxFuture<'a, Result<(), ClientError>> {
        (**self).set(server, tokens)
    }
}

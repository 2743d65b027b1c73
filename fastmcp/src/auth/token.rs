//! What a verified access token says: who it speaks for, for which client, with which scopes, until when.

use serde_json::{Map, Value};
use std::time::SystemTime;

/// A verified access token, as a [`TokenVerifier`](super::TokenVerifier) reads it. Handlers see it as
/// [`Context::auth`](crate::Context::auth). The raw token is not kept: an MCP server must never pass it on.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct AccessToken {
    /// The authorization server that issued it (`iss`).
    pub issuer: Option<String>,
    /// The resource owner it speaks for (`sub`).
    pub subject: Option<String>,
    /// The OAuth client it was issued to (`client_id`, `azp`).
    pub client_id: Option<String>,
    /// The scopes it grants.
    pub scopes: Vec<String>,
    /// When it stops being valid (`exp`); past it the token is refused at the edge.
    pub expires_at: Option<SystemTime>,
    /// Every claim (a JWT's payload, an introspection response), for checks of your own.
    pub claims: Map<String, Value>,
}

impl AccessToken {
    /// An empty token (no claims, no scopes), to fill in with the setters: what a verifier of your own returns, or
    /// a test's caller.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`issuer`](Self::issuer).
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Sets [`subject`](Self::subject).
    pub fn subject(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// Sets [`client_id`](Self::client_id).
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Sets [`scopes`](Self::scopes), replacing any set before.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`expires_at`](Self::expires_at).
    pub fn expires_at(mut self, at: SystemTime) -> Self {
        self.expires_at = Some(at);
        self
    }

    /// Sets [`claims`](Self::claims), replacing any set before.
    pub fn claims(mut self, claims: Map<String, Value>) -> Self {
        self.claims = claims;
        self
    }

    /// Whether the token grants `scope` exactly (no prefix or wildcard matching; a server's
    /// `ProtectedResource::scope_implies` hierarchy has been applied by the time a handler sees the token).
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// Who this token speaks for: a refreshed token of the same user and client is the same principal.
    pub fn principal(&self) -> Principal {
        let parts = [&self.issuer, &self.subject, &self.client_id];
        // A JSON array: unambiguous whatever the parts contain.
        Principal(serde_json::to_string(&parts).unwrap_or_default())
    }

    /// Whether it has expired at `now`.
    pub fn is_expired(&self, now: SystemTime) -> bool {
        self.expires_at.is_some_and(|at| at <= now)
    }
}

/// The identity a token speaks for — issuer, subject and client — as one comparable key. Request state,
/// tasks and legacy sessions are bound to it, so one user's flow is refused to another.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Principal(String);

impl Principal {
    /// The key as text (a JSON array of issuer, subject and client ID): for logs, or to key your own per-user data.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The principal an [`as_str`](Self::as_str) stored (a session record in a shared store) names.
    pub(crate) fn from_stored(stored: String) -> Self {
        Self(stored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn principal_is_issuer_subject_and_client() {
        let alice = AccessToken::new().issuer("https://as").subject("alice").client_id("app");
        let refreshed = alice.clone().scopes(["more"]).expires_at(SystemTime::now());
        assert_eq!(alice.principal(), refreshed.principal(), "scopes and expiry are not identity");
        for other in [
            alice.clone().subject("bob"),
            alice.clone().client_id("other-app"),
            alice.clone().issuer("https://other-as"),
            AccessToken::new().subject("alice"),
        ] {
            assert_ne!(alice.principal(), other.principal(), "{other:?}");
        }
        // Parts cannot run into each other.
        let a = AccessToken::new().issuer("a\",\"b").subject("c");
        let b = AccessToken::new().issuer("a").subject("b\",\"c");
        assert_ne!(a.principal(), b.principal());
    }
}

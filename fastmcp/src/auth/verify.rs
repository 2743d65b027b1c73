//! The one trait every way of checking a bearer token implements, and the two verifiers that need no
//! network: static tokens (development) and several verifiers tried in order.

use super::token::AccessToken;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// What [`TokenVerifier::verify`] returns, boxed so verifiers stay object safe.
pub type VerifyFuture<'a> = Pin<Box<dyn Future<Output = Result<AccessToken, Rejected>> + Send + 'a>>;

/// Checks a bearer token. `resource` is this server's canonical URI (RFC 8707): a verifier must refuse a
/// token that was not issued for it (its audience), so a token minted for another server is never accepted
/// here. Expiry past [`AccessToken::expires_at`] is checked again by the server, whatever the verifier did.
pub trait TokenVerifier: Send + Sync + 'static {
    /// Checks `token`, a bearer token as the client sent it, for the server whose canonical URI is `resource`, and
    /// returns what it grants; a refusal's [`Display`](std::fmt::Display) text is what the client is told.
    fn verify<'a>(&'a self, token: &'a str, resource: &'a str) -> VerifyFuture<'a>;
}

impl<V: TokenVerifier + ?Sized> TokenVerifier for Arc<V> {
    fn verify<'a>(&'a self, token: &'a str, resource: &'a str) -> VerifyFuture<'a> {
        (**self).verify(token, resource)
    }
}

impl<V: TokenVerifier + ?Sized> TokenVerifier for Box<V> {
    fn verify<'a>(&'a self, token: &'a str, resource: &'a str) -> VerifyFuture<'a> {
        (**self).verify(token, resource)
    }
}

/// Why a token was refused. The client sees only the short [`Display`](std::fmt::Display) text (as the
/// challenge's `error_description`); the detail goes to tracing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Rejected {
    /// Not a token this verifier can read (not a JWT, say).
    #[error("The access token is malformed")]
    Malformed(String),
    /// Read, but not valid here: its signature, issuer, audience or algorithm.
    #[error("The access token is invalid")]
    Invalid(String),
    /// Past its expiry (`exp`).
    #[error("The access token has expired")]
    Expired,
    /// Before its not-before time (`nbf`).
    #[error("The access token is not valid yet")]
    NotYetValid,
    /// No verifier knows it (an unknown static token, an inactive introspected one).
    #[error("The access token is not recognised")]
    Unknown,
    /// It could not be checked: the authorization server (its keys, its introspection endpoint) did not
    /// answer. Not the client's fault, so HTTP 503, not 401.
    #[error("The access token could not be verified now; try again later")]
    Unavailable(String),
}

impl Rejected {
    /// The detail behind the message, for logs.
    pub fn detail(&self) -> &str {
        match self {
            Rejected::Malformed(why) | Rejected::Invalid(why) | Rejected::Unavailable(why) => why,
            Rejected::Expired | Rejected::NotYetValid | Rejected::Unknown => "",
        }
    }
}

/// Fixed tokens, for development and tests: each maps to the access token it stands for. Lookups go by the
/// token's SHA-256, so timing does not reveal how much of a guess matched.
#[derive(Clone, Default)]
pub struct StaticTokens {
    tokens: HashMap<[u8; 32], AccessToken>,
}

impl StaticTokens {
    /// No tokens yet: add them with [`token`](Self::token). Any other token is [`Rejected::Unknown`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Accepts `token` as `access`.
    pub fn token(mut self, token: impl AsRef<str>, access: AccessToken) -> Self {
        self.tokens.insert(digest(token.as_ref()), access);
        self
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl TokenVerifier for StaticTokens {
    fn verify<'a>(&'a self, token: &'a str, _resource: &'a str) -> VerifyFuture<'a> {
        let found = self.tokens.get(&digest(token)).cloned().ok_or(Rejected::Unknown);
        Box::pin(async move { found })
    }
}

/// Several verifiers, tried in order: the first that accepts the token wins (JWTs from one issuer,
/// introspection for another's opaque tokens, say). When all refuse, the most telling refusal is given: one
/// that could not check it (unavailable) over one that read and refused it, over "not recognised".
pub struct AnyOf {
    verifiers: Vec<Box<dyn TokenVerifier>>,
}

impl AnyOf {
    /// No verifiers yet: add them with [`or`](Self::or). With none, every token is [`Rejected::Unknown`].
    pub fn new() -> Self {
        Self { verifiers: Vec::new() }
    }

    /// Tries `verifier` after the ones before it.
    pub fn or(mut self, verifier: impl TokenVerifier) -> Self {
        self.verifiers.push(Box::new(verifier));
        self
    }
}

impl Default for AnyOf {
    fn default() -> Self {
        Self::new()
    }
}

impl TokenVerifier for AnyOf {
    fn verify<'a>(&'a self, token: &'a str, resource: &'a str) -> VerifyFuture<'a> {
        Box::pin(async move {
            let mut refusal = Rejected::Unknown;
            for verifier in &self.verifiers {
                match verifier.verify(token, resource).await {
                    Ok(access) => return Ok(access),
                    Err(why) => {
                        if rank(&why) > rank(&refusal) {
                            refusal = why;
                        }
                    }
                }
            }
            Err(refusal)
        })
    }
}

fn rank(why: &Rejected) -> u8 {
    match why {
        Rejected::Unknown => 0,
        Rejected::Malformed(_) => 1,
        Rejected::Invalid(_) | Rejected::Expired | Rejected::NotYetValid => 2,
        Rejected::Unavailable(_) => 3,
    }
}

/// Refuses a token its verifier passed whose `exp` is behind `now` by more than `leeway`: the server's own
/// last check, so a cached or static access token cannot outlive its expiry.
pub(crate) fn check_expiry(access: &AccessToken, now: SystemTime, leeway: Duration) -> Result<(), Rejected> {
    match access.expires_at {
        Some(at) if at + leeway <= now => Err(Rejected::Expired),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block<T>(fut: impl Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().build().expect("runtime").block_on(fut)
    }

    #[test]
    fn static_tokens_accept_only_their_own() {
        let alice = AccessToken::new().subject("alice").scopes(["read"]);
        let tokens = StaticTokens::new().token("dev-alice", alice.clone());
        assert_eq!(block(tokens.verify("dev-alice", "http://x/mcp")), Ok(alice));
        assert_eq!(block(tokens.verify("dev-alicE", "http://x/mcp")), Err(Rejected::Unknown));
        assert_eq!(block(tokens.verify("", "http://x/mcp")), Err(Rejected::Unknown));
    }

    struct Always(Result<AccessToken, Rejected>);
    impl TokenVerifier for Always {
        fn verify<'a>(&'a self, _: &'a str, _: &'a str) -> VerifyFuture<'a> {
            let out = self.0.clone();
            Box::pin(async move { out })
        }
    }

    #[test]
    fn any_of_takes_the_first_acceptance_and_else_the_most_telling_refusal() {
        let bob = AccessToken::new().subject("bob");
        let first = AnyOf::new()
            .or(Always(Err(Rejected::Unknown)))
            .or(Always(Ok(bob.clone())))
            .or(Always(Ok(AccessToken::new().subject("never"))));
        assert_eq!(block(first.verify("t", "r")), Ok(bob));
        let refused = AnyOf::new()
            .or(Always(Err(Rejected::Malformed("not a JWT".into()))))
            .or(Always(Err(Rejected::Expired)))
            .or(Always(Err(Rejected::Unknown)));
        assert_eq!(block(refused.verify("t", "r")), Err(Rejected::Expired));
        let down = AnyOf::new().or(Always(Err(Rejected::Expired))).or(Always(Err(Rejected::Unavailable("x".into()))));
        assert!(matches!(block(down.verify("t", "r")), Err(Rejected::Unavailable(_))));
        assert_eq!(block(AnyOf::new().verify("t", "r")), Err(Rejected::Unknown));
    }

    #[test]
    fn expiry_is_checked_with_leeway() {
        let now = SystemTime::now();
        let past = AccessToken::new().expires_at(now - Duration::from_secs(10));
        assert_eq!(check_expiry(&past, now, Duration::ZERO), Err(Rejected::Expired));
        assert_eq!(check_expiry(&past, now, Duration::from_secs(30)), Ok(()));
        assert_eq!(check_expiry(&AccessToken::new(), now, Duration::ZERO), Ok(()));
    }
}

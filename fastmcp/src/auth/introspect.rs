//! Opaque access tokens, checked by asking the authorization server (token introspection, RFC 7662), with
//! a bounded cache of the answers so a busy server does not ask once per request.

use super::claims;
use super::fetch::{DEFAULT_MAX_BODY, DEFAULT_TIMEOUT, Fetcher};
use super::token::AccessToken;
use super::verify::{Rejected, TokenVerifier, VerifyFuture};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

/// Verifies tokens with the authorization server's introspection endpoint.
///
/// ```no_run
/// # use fastmcp::auth::{Introspection, ProtectedResource};
/// let verifier = Introspection::new("https://auth.example.com/oauth/introspect")
///     .client_credentials("mcp-server", "secret");
/// let auth = ProtectedResource::new(verifier).authorization_server("https://auth.example.com");
/// # let _ = fastmcp::FastMcp::new("x").auth(auth);
/// ```
pub struct Introspection {
    endpoint: String,
    credentials: Option<(String, String)>,
    audiences: Option<Vec<String>>,
    require_audience: bool,
    issuer: Option<String>,
    fetcher: Fetcher,
    cache: Cache,
}

impl Introspection {
    /// Asks `endpoint` (the authorization server's `introspection_endpoint`).
    pub fn new(endpoint: impl Into<String>) -> Self {
        Self {
            endpoint: endpoint.into(),
            credentials: None,
            audiences: None,
            require_audience: false,
            issuer: None,
            fetcher: Fetcher::new(DEFAULT_TIMEOUT, DEFAULT_MAX_BODY),
            cache: Cache::new(10_000, Duration::from_secs(60)),
        }
    }

    /// Authenticates to the endpoint as this client, with HTTP Basic (RFC 7662 §2.1): most authorization
    /// servers refuse anonymous introspection.
    pub fn client_credentials(mut self, client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        self.credentials = Some((client_id.into(), client_secret.into()));
        self
    }

    /// The audiences an answer's `aud` must name one of, instead of the server's canonical URI (default).
    pub fn audience<S: Into<String>>(mut self, audiences: impl IntoIterator<Item = S>) -> Self {
        self.audiences = Some(audiences.into_iter().map(Into::into).collect());
        self
    }

    /// Refuses answers without an `aud` (default: an answer without one is accepted, as RFC 7662 makes it
    /// optional; with one, it must name this server). Turn on if your server always sends it.
    pub fn require_audience(mut self, required: bool) -> Self {
        self.require_audience = required;
        self
    }

    /// The `iss` an answer must carry, when the endpoint serves several issuers.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Keeps at most `max_entries` accepted answers for at most `ttl`, and never past the token's `exp`
    /// (default 10 000 for 60 s; 0 entries turns caching off). A revoked token is accepted until its entry
    /// expires: the TTL is that window. Refusals are not cached.
    pub fn cache(mut self, max_entries: usize, ttl: Duration) -> Self {
        self.cache = Cache::new(max_entries, ttl);
        self
    }

    /// How long one request to the endpoint may take (default 10 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.fetcher = self.fetcher.with_timeout(timeout);
        self
    }

    async fn check(&self, token: &str, resource: &str) -> Result<AccessToken, Rejected> {
        // The cache is keyed by the token's digest: it never holds a token someone could lift from memory.
        let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(access) = self.cache.get(&key) {
            self.admit(&access.claims, resource)?;
            return Ok(access);
        }
        let form = form_urlencoded::Serializer::new(String::new())
            .append_pair("token", token)
            .append_pair("token_type_hint", "access_token")
            .finish();
        let basic = self.credentials.as_ref().map(|(id, secret)| (id.as_str(), secret.as_str()));
        let answer: Map<String, Value> = self.fetcher.post_form(&self.endpoint, form, basic).await?;
        if answer.get("active") != Some(&Value::Bool(true)) {
            return Err(Rejected::Unknown);
        }
        self.admit(&answer, resource)?;
        let access = claims::access_token(answer);
        self.cache.put(key, &access);
        Ok(access)
    }

    /// The checks of an active token's answer: its issuer and audience.
    fn admit(&self, answer: &Map<String, Value>, resource: &str) -> Result<(), Rejected> {
        if let Some(issuer) = &self.issuer
            && answer.get("iss").and_then(Value::as_str) != Some(issuer)
        {
            return Err(Rejected::Invalid(format!("not issued by `{issuer}`")));
        }
        let accepted = match &self.audiences {
            Some(audiences) => audiences.clone(),
            None => vec![resource.to_owned(), format!("{resource}/")],
        };
        match claims::audience_names(answer, &accepted) {
            Some(true) => Ok(()),
            None if !self.require_audience => Ok(()),
            None => Err(Rejected::Invalid("the introspection answer names no audience (aud)".to_owned())),
            Some(false) => Err(Rejected::Invalid(format!("not issued for `{}` (aud)", accepted[0]))),
        }
    }
}

impl TokenVerifier for Introspection {
    fn verify<'a>(&'a self, token: &'a str, resource: &'a str) -> VerifyFuture<'a> {
        Box::pin(self.check(token, resource))
    }
}

/// Accepted answers by token digest, bounded in count (the oldest goes first) and in time.
struct Cache {
    max_entries: usize,
    ttl: Duration,
    entries: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    map: HashMap<[u8; 32], Entry>,
    /// Insertion order, for eviction; an item whose `seq` no longer matches its entry is skipped.
    order: VecDeque<([u8; 32], u64)>,
    next: u64,
}

struct Entry {
    access: AccessToken,
    until: Instant,
    seq: u64,
}

impl Cache {
    fn new(max_entries: usize, ttl: Duration) -> Self {
        Self { max_entries, ttl, entries: Mutex::default() }
    }

    fn entries(&self) -> MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn get(&self, key: &[u8; 32]) -> Option<AccessToken> {
        let mut entries = self.entries();
        match entries.map.get(key) {
            Some(entry) if entry.until > Instant::now() => Some(entry.access.clone()),
            Some(_) => {
                entries.map.remove(key);
                None
            }
            None => None,
        }
    }

    fn put(&self, key: [u8; 32], access: &AccessToken) {
        let now = Instant::now();
        let mut until = now + self.ttl;
        if let Some(exp) = access.expires_at {
            match exp.duration_since(SystemTime::now()) {
                Ok(left) => until = until.min(now + left),
                Err(_) => return, // Already expired: the server refuses it, and so it stays.
            }
        }
        if self.max_entries == 0 || until <= now {
            return;
        }
        let mut entries = self.entries();
        let entries = &mut *entries;
        while entries.map.len() >= self.max_entries && !entries.map.contains_key(&key) {
            let Some((oldest, seq)) = entries.order.pop_front() else { break };
            if entries.map.get(&oldest).is_some_and(|e| e.seq == seq) {
                entries.map.remove(&oldest);
            }
        }
        let seq = entries.next;
        entries.next += 1;
        entries.map.insert(key, Entry { access: access.clone(), until, seq });
        entries.order.push_back((key, seq));
        if entries.order.len() > 2 * self.max_entries {
            let map = &entries.map;
            entries.order.retain(|(key, seq)| map.get(key).is_some_and(|e| e.seq == *seq));
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries().map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::test_as::{MockAs, Seen};
    use base64::Engine as _;
    use serde_json::json;
    use std::time::UNIX_EPOCH;

    const RESOURCE: &str = "https://mcp.example.com/mcp";

    fn now() -> u64 {
        SystemTime::now().duration_since(UNIX_EPOCH).expect("after 1970").as_secs()
    }

    /// An endpoint at `/introspect` that answers each token with what `answer` makes of it.
    async fn endpoint(answer: impl Fn(&str) -> Value + Send + Sync + 'static) -> (MockAs, Introspection) {
        let mock = MockAs::start().await;
        mock.handle("/introspect", move |seen: &Seen| (200, answer(&seen.form()["token"]).to_string()));
        let verifier = Introspection::new(mock.url("/introspect"));
        (mock, verifier)
    }

    fn active(sub: &str) -> Value {
        json!({"active": true, "sub": sub, "client_id": "app", "scope": "read write", "iss": "https://as",
            "aud": RESOURCE, "exp": now() + 3600, "token_type": "Bearer"})
    }

    #[tokio::test]
    async fn an_active_token_is_read_from_the_answer() {
        let (mock, verifier) = endpoint(active).await;
        let access = verifier.verify("alice+token/=", RESOURCE).await.expect("accepted");
        assert_eq!(access.subject.as_deref(), Some("alice+token/="));
        assert_eq!(access.client_id.as_deref(), Some("app"));
        assert_eq!(access.issuer.as_deref(), Some("https://as"));
        assert_eq!(access.scopes, ["read", "write"]);
        assert!(access.expires_at.is_some());
        assert_eq!(access.claims["token_type"], "Bearer");
        let seen = &mock.requests()[0];
        assert_eq!(seen.method, "POST");
        assert_eq!(seen.body, "token=alice%2Btoken%2F%3D&token_type_hint=access_token");
        assert_eq!(seen.header("authorization"), None, "no credentials configured");
    }

    #[tokio::test]
    async fn sends_client_credentials_with_basic() {
        let (mock, verifier) = endpoint(active).await;
        let verifier = verifier.client_credentials("mcp server", "p@ss:word");
        verifier.verify("t", RESOURCE).await.expect("accepted");
        let expected =
            format!("Basic {}", base64::engine::general_purpose::STANDARD.encode("mcp+server:p%40ss%3Aword"));
        assert_eq!(mock.requests()[0].header("authorization"), Some(expected.as_str()));
    }

    #[tokio::test]
    async fn an_inactive_token_is_unknown_and_not_cached() {
        let (mock, verifier) = endpoint(|_| json!({"active": false})).await;
        assert_eq!(verifier.verify("t", RESOURCE).await, Err(Rejected::Unknown));
        assert_eq!(verifier.verify("t", RESOURCE).await, Err(Rejected::Unknown));
        assert_eq!(mock.hits("/introspect"), 2);
        let (_mock, odd) = endpoint(|_| json!({"active": "true", "sub": "x"})).await;
        assert_eq!(odd.verify("t", RESOURCE).await, Err(Rejected::Unknown), "only a JSON true is active");
    }

    #[tokio::test]
    async fn the_audience_must_name_this_server() {
        let (_mock, verifier) = endpoint(|token| match token {
            "other" => json!({"active": true, "aud": ["https://other/mcp"]}),
            "listed" => json!({"active": true, "aud": ["https://other/mcp", RESOURCE]}),
            _ => json!({"active": true, "sub": "no-aud"}),
        })
        .await;
        let refused = verifier.verify("other", RESOURCE).await;
        assert_eq!(refused, Err(Rejected::Invalid(format!("not issued for `{RESOURCE}` (aud)"))));
        assert!(verifier.verify("listed", RESOURCE).await.is_ok());
        assert!(verifier.verify("bare", RESOURCE).await.is_ok(), "aud is optional by default");
        let verifier = verifier.require_audience(true);
        assert!(matches!(verifier.verify("bare", RESOURCE).await, Err(Rejected::Invalid(_))));
        let verifier = verifier.audience(["https://other/mcp"]);
        assert!(verifier.verify("other", RESOURCE).await.is_ok());
    }

    #[tokio::test]
    async fn a_cached_answer_is_still_checked_against_the_resource() {
        let (mock, verifier) = endpoint(active).await;
        assert!(verifier.verify("t", RESOURCE).await.is_ok());
        assert!(matches!(verifier.verify("t", "https://other/mcp").await, Err(Rejected::Invalid(_))));
        assert_eq!(mock.hits("/introspect"), 1);
    }

    #[tokio::test]
    async fn the_issuer_is_checked_when_configured() {
        let (_mock, verifier) = endpoint(active).await;
        assert!(verifier.verify("t", RESOURCE).await.is_ok());
        let verifier = verifier.issuer("https://as").cache(0, Duration::ZERO);
        assert!(verifier.verify("t", RESOURCE).await.is_ok());
        let verifier = verifier.issuer("https://other-as");
        assert!(
            matches!(verifier.verify("t", RESOURCE).await, Err(Rejected::Invalid(why)) if why.contains("other-as"))
        );
    }

    #[tokio::test]
    async fn answers_are_cached_by_digest() {
        let (mock, verifier) = endpoint(active).await;
        let first = verifier.verify("t1", RESOURCE).await.expect("accepted");
        assert_eq!(verifier.verify("t1", RESOURCE).await, Ok(first));
        assert_eq!(mock.hits("/introspect"), 1, "a cache hit asks nothing");
        assert!(verifier.verify("t2", RESOURCE).await.is_ok());
        assert_eq!(mock.hits("/introspect"), 2);
        let digest: [u8; 32] = Sha256::digest(b"t1").into();
        assert!(verifier.cache.entries().map.contains_key(&digest));
    }

    #[tokio::test]
    async fn the_cache_is_bounded_oldest_first() {
        let (mock, verifier) = endpoint(active).await;
        let verifier = verifier.cache(2, Duration::from_secs(60));
        for token in ["a", "b", "c"] {
            verifier.verify(token, RESOURCE).await.expect("accepted");
        }
        assert_eq!((verifier.cache.len(), mock.hits("/introspect")), (2, 3));
        verifier.verify("c", RESOURCE).await.expect("cached");
        verifier.verify("b", RESOURCE).await.expect("cached");
        assert_eq!(mock.hits("/introspect"), 3);
        verifier.verify("a", RESOURCE).await.expect("asked again");
        assert_eq!(mock.hits("/introspect"), 4, "the oldest went first");
        for i in 0..50 {
            verifier.verify(&format!("t{i}"), RESOURCE).await.expect("accepted");
        }
        assert_eq!(verifier.cache.len(), 2);
        assert!(verifier.cache.entries().order.len() <= 4, "the eviction order stays bounded too");
        let off = Introspection::new(mock.url("/introspect")).cache(0, Duration::from_secs(60));
        off.verify("a", RESOURCE).await.expect("accepted");
        off.verify("a", RESOURCE).await.expect("accepted");
        assert_eq!(mock.hits("/introspect"), 4 + 50 + 2, "0 entries: no cache");
    }

    #[tokio::test]
    async fn entries_expire_at_their_ttl_and_never_after_exp() {
        let (mock, verifier) = endpoint(|token| match token {
            "soon" => json!({"active": true, "exp": now() + 1}),
            "gone" => json!({"active": true, "exp": now() - 5}),
            _ => json!({"active": true}),
        })
        .await;
        let verifier = verifier.cache(100, Duration::from_millis(600));
        verifier.verify("forever", RESOURCE).await.expect("accepted");
        verifier.verify("forever", RESOURCE).await.expect("cached");
        assert_eq!(mock.hits("/introspect"), 1);
        tokio::time::sleep(Duration::from_millis(700)).await;
        verifier.verify("forever", RESOURCE).await.expect("asked again");
        assert_eq!(mock.hits("/introspect"), 2, "past the TTL");
        // Past exp is never cached (the server's own expiry check refuses it); up to exp only.
        verifier.verify("gone", RESOURCE).await.expect("the AS said active");
        verifier.verify("gone", RESOURCE).await.expect("the AS said active");
        assert_eq!(mock.hits("/introspect"), 4);
        let verifier = verifier.cache(100, Duration::from_secs(60));
        verifier.verify("soon", RESOURCE).await.expect("accepted");
        tokio::time::sleep(Duration::from_millis(1100)).await;
        verifier.verify("soon", RESOURCE).await.expect("the AS said active");
        assert_eq!(mock.hits("/introspect"), 6, "the 60 s TTL is cut at exp");
    }

    #[tokio::test]
    async fn an_endpoint_that_fails_is_unavailable() {
        let mock = MockAs::start().await;
        mock.reply("/introspect", 401, r#"{"error":"invalid_client"}"#);
        let verifier = Introspection::new(mock.url("/introspect")).client_credentials("id", "wrong");
        let refused = verifier.verify("t", RESOURCE).await;
        assert!(
            matches!(&refused, Err(Rejected::Unavailable(why)) if why.ends_with("HTTP 401 (invalid_client)")),
            "{refused:?}"
        );
        let down = Introspection::new(format!("http://{}/introspect", MockAs::dead_addr()));
        assert!(matches!(down.verify("t", RESOURCE).await, Err(Rejected::Unavailable(_))));
        mock.hang("/introspect");
        let slow = Introspection::new(mock.url("/introspect")).timeout(Duration::from_millis(100));
        assert!(
            matches!(slow.verify("t", RESOURCE).await, Err(Rejected::Unavailable(why)) if why.contains("no answer within"))
        );
    }
}

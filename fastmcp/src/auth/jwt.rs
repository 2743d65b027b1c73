//! JWT access tokens checked locally against the issuer's published keys: signature, issuer, audience
//! (RFC 8707: issued for this server), lifetime. The authorization server is asked only for its keys.

use super::claims;
use super::fetch::{DEFAULT_MAX_BODY, DEFAULT_TIMEOUT, Fetcher};
use super::jwks::{KeyCache, Source};
use super::token::AccessToken;
use super::verify::{Rejected, TokenVerifier, VerifyFuture};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, AlgorithmFamily, Validation};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::time::Duration;

/// The asymmetric algorithms: a public key can check them and cannot make them.
const ASYMMETRIC: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Verifies JWT access tokens issued by one authorization server, with the keys of its JWKS.
///
/// The JWKS is found through the issuer's metadata (RFC 8414, else OpenID Connect discovery) on the first
/// verify, not at construction, so the server starts while its authorization server is down; until the keys
/// are fetched, tokens are answered as unavailable (503) and the fetch is retried.
///
/// ```no_run
/// # use fastmcp::auth::{JwtVerifier, ProtectedResource};
/// let auth = ProtectedResource::new(JwtVerifier::new("https://auth.example.com"))
///     .resource("https://mcp.example.com/mcp")
///     .authorization_server("https://auth.example.com");
/// # let _ = fastmcp::FastMcp::new("x").auth(auth);
/// ```
pub struct JwtVerifier {
    issuer: String,
    audiences: Option<Vec<String>>,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    max_token_size: usize,
    keys: KeyCache,
}

impl JwtVerifier {
    /// Tokens of `issuer` (its exact issuer identifier, the tokens' `iss`).
    pub fn new(issuer: impl Into<String>) -> Self {
        // jsonwebtoken picks its crypto by crate features and panics on every decode when an application has
        // enabled both backends; name ours, unless the application installed its own.
        if jsonwebtoken::crypto::CryptoProvider::try_get_default().is_none() {
            let _ = jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER.install_default();
        }
        let issuer = issuer.into();
        let keys = KeyCache::new(Source::Issuer(issuer.clone()), Fetcher::new(DEFAULT_TIMEOUT, DEFAULT_MAX_BODY));
        Self {
            issuer,
            audiences: None,
            algorithms: ASYMMETRIC.to_vec(),
            leeway: Duration::from_secs(30),
            max_token_size: 16 * 1024,
            keys,
        }
    }

    /// Takes the keys from `url` instead of discovering it through the issuer's metadata.
    pub fn jwks_uri(mut self, url: impl Into<String>) -> Self {
        self.keys.source = Source::JwksUri(url.into());
        self
    }

    /// The audiences a token must name one of, instead of the server's canonical URI (default). For an
    /// authorization server that does not put the resource (RFC 8707) in `aud`.
    pub fn audience<S: Into<String>>(mut self, audiences: impl IntoIterator<Item = S>) -> Self {
        self.audiences = Some(audiences.into_iter().map(Into::into).collect());
        self
    }

    /// The signing algorithms accepted (default: RS256/384/512, PS256/384/512, ES256/384, EdDSA). HMAC
    /// algorithms are never accepted, whatever this says: their key would be the published one.
    pub fn algorithms(mut self, algorithms: impl IntoIterator<Item = Algorithm>) -> Self {
        self.algorithms = algorithms.into_iter().filter(|a| a.family() != AlgorithmFamily::Hmac).collect();
        self
    }

    /// How far past `exp` and before `nbf` a token is still accepted, for clock skew (default 30 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The longest token read, in bytes (default 16 KiB); longer ones are refused unread.
    pub fn max_token_size(mut self, bytes: usize) -> Self {
        self.max_token_size = bytes;
        self
    }

    /// The least time between two fetches of the keys for an unknown key id (default 60 s). A failed
    /// fetch is retried after 5 s, or this if shorter.
    pub fn refetch_interval(mut self, interval: Duration) -> Self {
        self.keys.refetch_interval = interval;
        self
    }

    /// How long fetched keys are used before they are fetched again (default 10 min). If that fetch fails,
    /// the keys in hand go on being used until one succeeds.
    pub fn key_max_age(mut self, age: Duration) -> Self {
        self.keys.max_age = age;
        self
    }

    /// How long one request to the authorization server may take (default 10 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.keys.fetcher = self.keys.fetcher.clone().with_timeout(timeout);
        self
    }

    async fn check(&self, token: &str, resource: &str) -> Result<AccessToken, Rejected> {
        if token.len() > self.max_token_size {
            return Err(Rejected::Malformed(format!(
                "{} bytes, over the {}-byte cap",
                token.len(),
                self.max_token_size
            )));
        }
        let header = jsonwebtoken::decode_header(token).map_err(|e| match named_algorithm(token) {
            Some(alg) => Rejected::Invalid(format!("algorithm `{alg}` refused")),
            None => Rejected::Malformed(format!("not a JWT: {e}")),
        })?;
        let alg = header.alg;
        if alg.family() == AlgorithmFamily::Hmac {
            return Err(Rejected::Invalid(format!(
                "{alg:?} refused: a symmetric algorithm cannot be checked with a public key"
            )));
        }
        if !self.algorithms.contains(&alg) {
            return Err(Rejected::Invalid(format!("algorithm {alg:?} not allowed")));
        }
        let key = self.keys.key(header.kid.as_deref(), alg).await?;
        let mut validation = Validation::new(alg);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.required_spec_claims = HashSet::from(["exp", "iss", "aud"].map(str::to_owned));
        validation.set_issuer(&[&self.issuer]);
        match &self.audiences {
            Some(audiences) => validation.set_audience(audiences),
            // The canonical URI is configured without a trailing slash; an AS may have kept one.
            None => validation.set_audience(&[resource.to_owned(), format!("{resource}/")]),
        }
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation).map_err(|e| {
            let audience = self.audiences.as_ref().map_or_else(|| resource.to_owned(), |a| a.join(" or "));
            refusal(e.into_kind(), &self.issuer, &audience)
        })?;
        Ok(claims::access_token(data.claims))
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str, resource: &'a str) -> VerifyFuture<'a> {
        Box::pin(self.check(token, resource))
    }
}

/// The `alg` a JWT's header names when jsonwebtoken has no such algorithm (`none`, say).
fn named_algorithm(token: &str) -> Option<String> {
    let header = URL_SAFE_NO_PAD.decode(token.split('.').next()?).ok()?;
    let header: Map<String, Value> = serde_json::from_slice(&header).ok()?;
    let alg = header.get("alg")?.as_str()?;
    alg.parse::<Algorithm>().is_err().then(|| alg.to_owned())
}

/// What each of jsonwebtoken's refusals means here.
fn refusal(kind: ErrorKind, issuer: &str, audience: &str) -> Rejected {
    match kind {
        ErrorKind::ExpiredSignature => Rejected::Expired,
        ErrorKind::ImmatureSignature => Rejected::NotYetValid,
        ErrorKind::InvalidSignature => Rejected::Invalid("bad signature".to_owned()),
        ErrorKind::InvalidIssuer => Rejected::Invalid(format!("not issued by `{issuer}`")),
        ErrorKind::InvalidAudience => Rejected::Invalid(format!("not issued for `{audience}` (aud)")),
        ErrorKind::MissingRequiredClaim(claim) => Rejected::Invalid(format!("no `{claim}` claim")),
        ErrorKind::InvalidClaimFormat(claim) => Rejected::Invalid(format!("the `{claim}` claim is malformed")),
        ErrorKind::InvalidAlgorithm => Rejected::Invalid("the algorithm does not fit the key".to_owned()),
        ErrorKind::InvalidToken | ErrorKind::Base64(_) | ErrorKind::Json(_) | ErrorKind::Utf8(_) => {
            Rejected::Malformed(format!("not a JWT: {kind:?}"))
        }
        other => Rejected::Invalid(format!("{other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::test_as::{MockAs, TestKey, jwks};
    use jsonwebtoken::EncodingKey;
    use serde_json::json;
    use std::time::{SystemTime, UNIX_EPOCH};

    const RESOURCE: &str = "https://mcp.example.com/mcp";
    const METADATA: &str = "/.well-known/oauth-authorization-server";

    fn now() -> i64 {
        SystemTime::now().duration_since(UNIX_EPOCH).expect("after 1970").as_secs() as i64
    }

    /// An authorization server at the mock's root publishing `keys`, and its issuer.
    async fn issuer_with(keys: &[&TestKey]) -> (MockAs, String) {
        let mock = MockAs::start().await;
        let issuer = mock.url("");
        mock.json(METADATA, json!({"issuer": issuer, "jwks_uri": mock.url("/jwks")}));
        mock.json("/jwks", jwks(keys));
        (mock, issuer)
    }

    fn claims(issuer: &str) -> Value {
        json!({"iss": issuer, "sub": "alice", "aud": RESOURCE, "exp": now() + 3600, "iat": now(),
            "client_id": "app", "scope": "read write"})
    }

    /// `claims` with `name` set to `value` (removed for null).
    fn with(mut claims: Value, name: &str, value: Value) -> Value {
        let object = claims.as_object_mut().expect("object");
        if value.is_null() {
            object.remove(name);
        } else {
            object.insert(name.to_owned(), value);
        }
        claims
    }

    fn invalid(result: Result<AccessToken, Rejected>) -> String {
        match result {
            Err(Rejected::Invalid(why)) => why,
            other => panic!("expected Invalid, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn accepts_valid_tokens_of_each_key_type() {
        let (rsa, ps, ec, ed) = (
            TestKey::rsa_a("rsa"),
            TestKey::rsa_b("ps").with_alg(Algorithm::PS256),
            TestKey::ec("ec"),
            TestKey::ed("ed"),
        );
        let (mock, issuer) = issuer_with(&[&rsa, &ps, &ec, &ed]).await;
        let verifier = JwtVerifier::new(&issuer);
        for key in [&rsa, &ps, &ec, &ed] {
            // The claims signed, kept: made again later, `iat` may have moved on a second (debug-build RSA is slow).
            let signed = claims(&issuer);
            let access = verifier.verify(&key.sign(&signed), RESOURCE).await.expect("accepted");
            assert_eq!(access.issuer.as_deref(), Some(issuer.as_str()));
            assert_eq!(access.subject.as_deref(), Some("alice"));
            assert_eq!(access.client_id.as_deref(), Some("app"));
            assert_eq!(access.scopes, ["read", "write"]);
            let exp = access.expires_at.expect("exp").duration_since(UNIX_EPOCH).expect("after 1970").as_secs();
            assert_eq!(Some(exp), signed["exp"].as_u64());
            assert_eq!(access.claims["iat"], signed["iat"]);
        }
        assert_eq!((mock.hits(METADATA), mock.hits("/jwks")), (1, 1), "discovered once, keys cached");
    }

    #[tokio::test]
    async fn maps_scp_and_azp() {
        let key = TestKey::ec("ec");
        let (_mock, issuer) = issuer_with(&[&key]).await;
        let mut scp = claims(&issuer);
        for (name, value) in
            [("scope", Value::Null), ("client_id", Value::Null), ("scp", json!(["a", "b"])), ("azp", json!("spa"))]
        {
            scp = with(scp, name, value);
        }
        let token = key.sign(&scp);
        let access = JwtVerifier::new(&issuer).verify(&token, RESOURCE).await.expect("accepted");
        assert_eq!((access.scopes, access.client_id.as_deref()), (vec!["a".to_owned(), "b".to_owned()], Some("spa")));
    }

    #[tokio::test]
    async fn refuses_a_token_signed_by_another_key() {
        let key = TestKey::rsa_a("k1");
        let (_mock, issuer) = issuer_with(&[&key]).await;
        let forged = TestKey::rsa_b("k1").sign(&claims(&issuer));
        assert_eq!(invalid(JwtVerifier::new(&issuer).verify(&forged, RESOURCE).await), "bad signature");
        // A valid token with its signature swapped for another token's.
        let good = key.sign(&claims(&issuer));
        let other = key.sign(&with(claims(&issuer), "sub", json!("mallory")));
        let spliced = format!("{}.{}", other.rsplit_once('.').expect("jwt").0, good.rsplit_once('.').expect("jwt").1);
        assert_eq!(invalid(JwtVerifier::new(&issuer).verify(&spliced, RESOURCE).await), "bad signature");
    }

    #[tokio::test]
    async fn refuses_another_issuer_or_none() {
        let key = TestKey::rsa_a("k1");
        let (_mock, issuer) = issuer_with(&[&key]).await;
        let verifier = JwtVerifier::new(&issuer);
        let token = key.sign(&with(claims(&issuer), "iss", json!("https://evil.example.com")));
        assert!(invalid(verifier.verify(&token, RESOURCE).await).starts_with("not issued by"));
        let token = key.sign(&with(claims(&issuer), "iss", json!(format!("{issuer}/"))));
        assert!(invalid(verifier.verify(&token, RESOURCE).await).starts_with("not issued by"), "exact match");
        let token = key.sign(&with(claims(&issuer), "iss", Value::Null));
        assert_eq!(invalid(verifier.verify(&token, RESOURCE).await), "no `iss` claim");
    }

    #[tokio::test]
    async fn requires_the_resource_as_audience() {
        let key = TestKey::rsa_a("k1");
        let (_mock, issuer) = issuer_with(&[&key]).await;
        let verifier = JwtVerifier::new(&issuer);
        let aud = |aud: Value| key.sign(&with(claims(&issuer), "aud", aud));
        for other in [json!("https://other.example.com/mcp"), json!(["a", "b"]), json!("https://mcp.example.com")] {
            let why = invalid(verifier.verify(&aud(other.clone()), RESOURCE).await);
            assert_eq!(why, format!("not issued for `{RESOURCE}` (aud)"), "{other}");
        }
        assert_eq!(invalid(verifier.verify(&aud(Value::Null), RESOURCE).await), "no `aud` claim");
        for ok in [json!(["other", RESOURCE]), json!(format!("{RESOURCE}/"))] {
            assert!(verifier.verify(&aud(ok.clone()), RESOURCE).await.is_ok(), "{ok}");
        }
        // The same token is refused by a server with another canonical URI.
        assert!(matches!(verifier.verify(&aud(json!(RESOURCE)), "https://other/mcp").await, Err(Rejected::Invalid(_))));
    }

    #[tokio::test]
    async fn configured_audiences_replace_the_resource() {
        let key = TestKey::rsa_a("k1");
        let (_mock, issuer) = issuer_with(&[&key]).await;
        let verifier = JwtVerifier::new(&issuer).audience(["api://mcp", "api://tools"]);
        let aud = |aud: Value| key.sign(&with(claims(&issuer), "aud", aud));
        assert!(verifier.verify(&aud(json!("api://tools")), RESOURCE).await.is_ok());
        assert!(verifier.verify(&aud(json!(["x", "api://mcp"])), RESOURCE).await.is_ok());
        let why = invalid(verifier.verify(&aud(json!(RESOURCE)), RESOURCE).await);
        assert_eq!(why, "not issued for `api://mcp or api://tools` (aud)");
    }

    #[tokio::test]
    async fn lifetime_is_checked_with_leeway() {
        let key = TestKey::ec("ec");
        let (_mock, issuer) = issuer_with(&[&key]).await;
        let lenient = JwtVerifier::new(&issuer);
        let strict = JwtVerifier::new(&issuer).leeway(Duration::ZERO);
        let expired = key.sign(&with(claims(&issuer), "exp", json!(now() - 3600)));
        assert_eq!(lenient.verify(&expired, RESOURCE).await, Err(Rejected::Expired));
        let just_expired = key.sign(&with(claims(&issuer), "exp", json!(now() - 10)));
        assert!(lenient.verify(&just_expired, RESOURCE).await.is_ok(), "within the 30 s default leeway");
        assert_eq!(strict.verify(&just_expired, RESOURCE).await, Err(Rejected::Expired));
        let early = key.sign(&with(claims(&issuer), "nbf", json!(now() + 3600)));
        assert_eq!(lenient.verify(&early, RESOURCE).await, Err(Rejected::NotYetValid));
        let almost = key.sign(&with(claims(&issuer), "nbf", json!(now() + 10)));
        assert!(lenient.verify(&almost, RESOURCE).await.is_ok());
        assert_eq!(strict.verify(&almost, RESOURCE).await, Err(Rejected::NotYetValid));
        let forever = key.sign(&with(claims(&issuer), "exp", Value::Null));
        assert_eq!(invalid(lenient.verify(&forever, RESOURCE).await), "no `exp` claim");
    }

    #[tokio::test]
    async fn refuses_unsigned_tokens_without_asking_for_keys() {
        let key = TestKey::rsa_a("k1");
        let (mock, issuer) = issuer_with(&[&key]).await;
        let part = |v: Value| URL_SAFE_NO_PAD.encode(v.to_string());
        let verifier = JwtVerifier::new(&issuer);
        for alg in ["none", "None", "nOnE"] {
            let unsigned = format!("{}.{}.", part(json!({"alg": alg, "typ": "JWT"})), part(claims(&issuer)));
            assert_eq!(invalid(verifier.verify(&unsigned, RESOURCE).await), format!("algorithm `{alg}` refused"));
        }
        // With a kid and a signature copied from a real token: still refused by its header alone.
        let real = key.sign(&claims(&issuer));
        let forged = format!(
            "{}.{}.{}",
            part(json!({"alg": "none", "kid": "k1"})),
            part(claims(&issuer)),
            real.rsplit('.').next().expect("sig")
        );
        assert!(invalid(verifier.verify(&forged, RESOURCE).await).contains("none"));
        assert!(mock.requests().is_empty());
    }

    #[tokio::test]
    async fn refuses_hmac_tokens_whatever_the_keys_say() {
        let key = TestKey::rsa_a("k1");
        let (mock, issuer) = issuer_with(&[&key]).await;
        // The JWKS also carries a symmetric key: it must not be usable.
        let mut set = jwks(&[&key]);
        let secret = b"a shared secret that is now public";
        set["keys"]
            .as_array_mut()
            .expect("keys")
            .push(json!({"kty": "oct", "kid": "hmac", "alg": "HS256", "k": URL_SAFE_NO_PAD.encode(secret)}));
        mock.json("/jwks", set);
        let hs = |kid: &str| {
            let mut header = jsonwebtoken::Header::new(Algorithm::HS256);
            header.kid = Some(kid.to_owned());
            jsonwebtoken::encode(&header, &claims(&issuer), &EncodingKey::from_secret(secret).expect("key"))
                .expect("signs")
        };
        let verifier = JwtVerifier::new(&issuer).algorithms([Algorithm::HS256, Algorithm::RS256]);
        for kid in ["hmac", "k1"] {
            assert!(invalid(verifier.verify(&hs(kid), RESOURCE).await).starts_with("HS256 refused"), "{kid}");
        }
        assert!(mock.requests().is_empty(), "refused before any key is fetched");
        // The RSA key still works, and the oct key was dropped from the set.
        assert!(verifier.verify(&key.sign(&claims(&issuer)), RESOURCE).await.is_ok());
        let ec_as_hmac = TestKey::ec("hmac").sign(&claims(&issuer));
        assert!(invalid(verifier.verify(&ec_as_hmac, RESOURCE).await).contains("not allowed"));
    }

    #[tokio::test]
    async fn algorithms_must_be_allowed_and_fit_the_key() {
        let (rsa, ec) = (TestKey::rsa_a("rsa"), TestKey::ec("ec"));
        let (mock, issuer) = issuer_with(&[&rsa, &ec]).await;
        let es_only = JwtVerifier::new(&issuer).algorithms([Algorithm::ES256]);
        assert_eq!(invalid(es_only.verify(&rsa.sign(&claims(&issuer)), RESOURCE).await), "algorithm RS256 not allowed");
        assert!(es_only.verify(&ec.sign(&claims(&issuer)), RESOURCE).await.is_ok());
        let verifier = JwtVerifier::new(&issuer);
        // An RSA key's id on an ES256 token; the RSA key re-labelled PS256 while its JWK says RS256.
        let ec_under_rsa_kid = TestKey::ec("rsa").sign(&claims(&issuer));
        assert!(invalid(verifier.verify(&ec_under_rsa_kid, RESOURCE).await).contains("not its key's RS256"));
        let mut set = jwks(&[&rsa]);
        set["keys"][0].as_object_mut().expect("jwk").remove("alg");
        mock.json("/jwks", set);
        let unlabelled = JwtVerifier::new(&issuer);
        let ec_token = TestKey::ec("rsa").sign(&claims(&issuer));
        assert!(invalid(unlabelled.verify(&ec_token, RESOURCE).await).contains("does not fit its Rsa key"));
        let ps = TestKey::rsa_a("rsa").with_alg(Algorithm::PS256).sign(&claims(&issuer));
        assert!(unlabelled.verify(&ps, RESOURCE).await.is_ok(), "a JWK without alg fits its family");
    }

    #[tokio::test]
    async fn a_token_without_kid_uses_the_only_key() {
        let (a, b) = (TestKey::rsa_a("a"), TestKey::rsa_b("b"));
        let (mock, issuer) = issuer_with(&[&a]).await;
        let token = a.sign_without_kid(&claims(&issuer));
        assert!(JwtVerifier::new(&issuer).verify(&token, RESOURCE).await.is_ok());
        mock.json("/jwks", jwks(&[&a, &b]));
        let why = invalid(JwtVerifier::new(&issuer).verify(&token, RESOURCE).await);
        assert_eq!(why, "the token names no key id and the JWKS has 2 usable keys");
    }

    #[tokio::test]
    async fn an_unknown_kid_refetches_once_per_interval() {
        let (old, new) = (TestKey::rsa_a("2024"), TestKey::rsa_b("2025"));
        let (mock, issuer) = issuer_with(&[&old]).await;
        let verifier = JwtVerifier::new(&issuer);
        assert!(verifier.verify(&old.sign(&claims(&issuer)), RESOURCE).await.is_ok());
        assert_eq!(mock.hits("/jwks"), 1);
        // The issuer rotates: the new key's first token makes one refetch, which finds it.
        mock.json("/jwks", jwks(&[&old, &new]));
        assert!(verifier.verify(&new.sign(&claims(&issuer)), RESOURCE).await.is_ok());
        assert_eq!(mock.hits("/jwks"), 2);
        // Another unknown kid within the interval: no fetch.
        let stranger = TestKey::ec("2026").sign(&claims(&issuer));
        assert_eq!(
            invalid(verifier.verify(&stranger, RESOURCE).await),
            "unknown key id `2026` (not in the issuer's JWKS)"
        );
        assert_eq!(mock.hits("/jwks"), 2);
        assert_eq!((mock.hits(METADATA), mock.hits("/jwks")), (1, 2));
    }

    #[tokio::test]
    async fn concurrent_verifies_share_one_fetch() {
        let (old, new) = (TestKey::rsa_a("old"), TestKey::ec("new"));
        let (mock, issuer) = issuer_with(&[&old]).await;
        let verifier = JwtVerifier::new(&issuer);
        let token = old.sign(&claims(&issuer));
        let all = futures_util::future::join_all((0..16).map(|_| verifier.verify(&token, RESOURCE))).await;
        assert!(all.iter().all(Result::is_ok), "{all:?}");
        assert_eq!((mock.hits(METADATA), mock.hits("/jwks")), (1, 1), "the first verifies wait for one fetch");
        mock.json("/jwks", jwks(&[&old, &new]));
        let token = new.sign(&claims(&issuer));
        let all = futures_util::future::join_all((0..16).map(|_| verifier.verify(&token, RESOURCE))).await;
        assert!(all.iter().all(Result::is_ok), "{all:?}");
        assert_eq!(mock.hits("/jwks"), 2, "one refetch for all sixteen");
    }

    #[tokio::test]
    async fn refetches_again_after_the_interval() {
        let key = TestKey::rsa_a("k1");
        let (mock, issuer) = issuer_with(&[&key]).await;
        let verifier = JwtVerifier::new(&issuer).refetch_interval(Duration::from_millis(600));
        let stranger = TestKey::rsa_b("k2").sign(&claims(&issuer));
        let unknown = |result| invalid(result).starts_with("unknown key id `k2`");
        assert!(unknown(verifier.verify(&stranger, RESOURCE).await));
        assert_eq!(mock.hits("/jwks"), 1, "keys just fetched are not fetched again");
        assert!(unknown(verifier.verify(&stranger, RESOURCE).await));
        assert!(unknown(verifier.verify(&stranger, RESOURCE).await));
        assert_eq!(mock.hits("/jwks"), 2, "one refetch in the interval");
        tokio::time::sleep(Duration::from_millis(700)).await;
        assert!(unknown(verifier.verify(&stranger, RESOURCE).await));
        assert_eq!(mock.hits("/jwks"), 3);
    }

    #[tokio::test]
    async fn keys_are_refreshed_after_their_max_age_and_kept_if_that_fails() {
        let key = TestKey::ec("k1");
        let (mock, issuer) = issuer_with(&[&key]).await;
        let verifier = JwtVerifier::new(&issuer).key_max_age(Duration::from_millis(600));
        let token = key.sign(&claims(&issuer));
        assert!(verifier.verify(&token, RESOURCE).await.is_ok());
        assert!(verifier.verify(&token, RESOURCE).await.is_ok());
        assert_eq!(mock.hits("/jwks"), 1);
        tokio::time::sleep(Duration::from_millis(700)).await;
        assert!(verifier.verify(&token, RESOURCE).await.is_ok());
        assert_eq!(mock.hits("/jwks"), 2, "refreshed when old");
        // The key set is removed: once the keys are old, the refresh drops the key.
        mock.json("/jwks", jwks(&[&TestKey::rsa_a("k9")]));
        tokio::time::sleep(Duration::from_millis(700)).await;
        assert!(invalid(verifier.verify(&token, RESOURCE).await).starts_with("unknown key id `k1`"));
        assert_eq!(mock.hits("/jwks"), 3);
        // The AS fails: the old keys stay in use, and the failure is not retried at once.
        mock.json("/jwks", jwks(&[&key]));
        let verifier = JwtVerifier::new(&issuer).key_max_age(Duration::from_millis(600));
        assert!(verifier.verify(&token, RESOURCE).await.is_ok());
        mock.reply("/jwks", 500, "");
        tokio::time::sleep(Duration::from_millis(700)).await;
        assert!(verifier.verify(&token, RESOURCE).await.is_ok(), "stale keys serve while the AS is down");
        assert!(verifier.verify(&token, RESOURCE).await.is_ok());
        assert_eq!(mock.hits("/jwks"), 5);
    }

    #[tokio::test]
    async fn old_keys_serve_while_a_slow_refresh_is_under_way() {
        let key = TestKey::ec("k1");
        let (mock, issuer) = issuer_with(&[&key]).await;
        let verifier =
            JwtVerifier::new(&issuer).key_max_age(Duration::from_millis(300)).timeout(Duration::from_secs(2));
        let token = key.sign(&claims(&issuer));
        assert!(verifier.verify(&token, RESOURCE).await.is_ok());
        mock.hang("/jwks");
        tokio::time::sleep(Duration::from_millis(400)).await;
        let started = std::time::Instant::now();
        let (refreshing, meanwhile) = tokio::join!(verifier.verify(&token, RESOURCE), async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            (verifier.verify(&token, RESOURCE).await, started.elapsed())
        });
        assert!(meanwhile.0.is_ok() && meanwhile.1 < Duration::from_secs(1), "{meanwhile:?}: not held up");
        assert!(refreshing.is_ok(), "the refresh timed out, and the old keys were used");
        assert!(started.elapsed() >= Duration::from_secs(2));
        assert_eq!(mock.hits("/jwks"), 2);
    }

    #[tokio::test]
    async fn an_unreachable_issuer_is_unavailable_and_retried_later() {
        let down = format!("http://{}", MockAs::dead_addr());
        let key = TestKey::rsa_a("k1");
        let result = JwtVerifier::new(&down).verify(&key.sign(&claims(&down)), RESOURCE).await;
        assert!(matches!(&result, Err(Rejected::Unavailable(why)) if why.contains("request failed")), "{result:?}");
        // An AS that answers 503 at first: each retry waits for its turn, then the keys are found.
        let (mock, issuer) = issuer_with(&[&key]).await;
        mock.reply(METADATA, 503, r#"{"error":"temporarily_unavailable"}"#);
        let verifier = JwtVerifier::new(&issuer).refetch_interval(Duration::from_millis(600));
        let token = key.sign(&claims(&issuer));
        let Err(Rejected::Unavailable(why)) = verifier.verify(&token, RESOURCE).await else {
            panic!("not unavailable")
        };
        assert!(why.contains("HTTP 503 (temporarily_unavailable)"), "{why}");
        assert!(matches!(verifier.verify(&token, RESOURCE).await, Err(Rejected::Unavailable(_))));
        assert_eq!(mock.hits(METADATA), 1, "the retry waits");
        mock.json(METADATA, json!({"issuer": issuer, "jwks_uri": mock.url("/jwks")}));
        tokio::time::sleep(Duration::from_millis(700)).await;
        assert!(verifier.verify(&token, RESOURCE).await.is_ok());
        assert_eq!(mock.hits(METADATA), 2);
    }

    #[tokio::test]
    async fn metadata_of_another_issuer_is_not_used() {
        let key = TestKey::rsa_a("k1");
        let (mock, issuer) = issuer_with(&[&key]).await;
        mock.json(METADATA, json!({"issuer": "https://impostor.example.com", "jwks_uri": mock.url("/jwks")}));
        let result = JwtVerifier::new(&issuer).verify(&key.sign(&claims(&issuer)), RESOURCE).await;
        assert!(matches!(&result, Err(Rejected::Unavailable(why)) if why.contains("impostor")), "{result:?}");
        assert_eq!(mock.hits("/jwks"), 0);
    }

    #[tokio::test]
    async fn a_given_jwks_uri_skips_discovery() {
        let key = TestKey::rsa_a("k1");
        let (mock, issuer) = issuer_with(&[]).await;
        mock.json("/keys", jwks(&[&key]));
        let verifier = JwtVerifier::new(&issuer).jwks_uri(mock.url("/keys"));
        assert!(verifier.verify(&key.sign(&claims(&issuer)), RESOURCE).await.is_ok());
        assert_eq!(mock.paths(), ["/keys"]);
    }

    #[tokio::test]
    async fn refuses_what_is_not_a_jwt_or_too_long() {
        let key = TestKey::rsa_a("k1");
        let (mock, issuer) = issuer_with(&[&key]).await;
        let verifier = JwtVerifier::new(&issuer);
        let numeric_kid = format!("{}.e30.c2ln", URL_SAFE_NO_PAD.encode(r#"{"alg":"RS256","kid":7}"#));
        for junk in ["opaque-token", "a.b.c", "e30.e30", "....", &numeric_kid] {
            assert!(matches!(verifier.verify(junk, RESOURCE).await, Err(Rejected::Malformed(_))), "{junk}");
        }
        let big = key.sign(&with(claims(&issuer), "pad", json!("x".repeat(20_000))));
        let Err(Rejected::Malformed(why)) = verifier.verify(&big, RESOURCE).await else { panic!("not refused") };
        assert!(why.ends_with("over the 16384-byte cap"), "{why}");
        let token = key.sign(&claims(&issuer));
        assert!(matches!(
            JwtVerifier::new(&issuer).max_token_size(100).verify(&token, RESOURCE).await,
            Err(Rejected::Malformed(_))
        ));
        assert!(mock.requests().is_empty(), "refused unread");
        assert!(verifier.verify(&token, RESOURCE).await.is_ok());
    }
}

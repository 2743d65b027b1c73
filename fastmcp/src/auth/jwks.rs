//! An issuer's signing keys, fetched from its JWKS and cached: refetched once for a key id not seen yet
//! (rotation), and when they are older than their max age. Fetches are rate limited and shared, so a flood
//! of tokens with made-up key ids costs the authorization server at most one request per interval.

use super::discovery;
use super::fetch::Fetcher;
use super::verify::Rejected;
use jsonwebtoken::jwk::{Jwk, JwkSet, KeyOperations, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey};
use serde::Deserialize;
use serde_json::Value;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A failed fetch is retried after this long at most (sooner if the refetch interval is shorter), so a
/// server that started while its authorization server was down recovers quickly.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(5);

/// Where the keys are: found through the issuer's metadata, or given.
pub(crate) enum Source {
    Issuer(String),
    JwksUri(String),
}

pub(crate) struct KeyCache {
    pub source: Source,
    pub fetcher: Fetcher,
    pub refetch_interval: Duration,
    pub max_age: Duration,
    state: Mutex<State>,
    /// Held while fetching, so concurrent verifies wait for one fetch instead of each making their own.
    fetching: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct State {
    jwks_uri: Option<String>,
    keys: Option<Arc<Keys>>,
    fetched_at: Option<Instant>,
    attempted_at: Option<Instant>,
    /// The last fetch for a key id not in the keys: the one that is rate limited.
    refetched_at: Option<Instant>,
    failure: Option<String>,
    /// Counts fetch attempts: a verify that waited for the lock sees whether one happened meanwhile.
    attempts: u64,
}

impl KeyCache {
    pub fn new(source: Source, fetcher: Fetcher) -> Self {
        Self {
            source,
            fetcher,
            refetch_interval: Duration::from_secs(60),
            max_age: Duration::from_secs(600),
            state: Mutex::default(),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The key to check a token signed with `alg` under `kid`: from the cache, or after one fetch.
    pub async fn key(&self, kid: Option<&str>, alg: Algorithm) -> Result<DecodingKey, Rejected> {
        let (keys, fresh, attempts) = {
            let state = self.state();
            let fresh = state.fetched_at.is_some_and(|at| at.elapsed() < self.max_age);
            (state.keys.clone(), fresh, state.attempts)
        };
        let unknown_kid = match keys.filter(|_| fresh) {
            Some(keys) => match keys.find(kid, alg) {
                Found::Key(key) => return Ok(key),
                Found::Unfit(why) => return Err(Rejected::Invalid(why)),
                Found::None => true, // Perhaps the keys rotated.
            },
            None => false,
        };
        let keys = self.refresh(attempts, unknown_kid).await?;
        match keys.find(kid, alg) {
            Found::Key(key) => Ok(key),
            Found::Unfit(why) => Err(Rejected::Invalid(why)),
            Found::None => Err(Rejected::Invalid(match kid {
                Some(kid) => format!("unknown key id `{kid}` (not in the issuer's JWKS)"),
                None => format!("the token names no key id and the JWKS has {} usable keys", keys.usable()),
            })),
        }
    }

    /// Fetches the keys, unless another verify did since `seen` attempts or the rate limit says wait (for
    /// an unknown kid: one refetch per interval; after a failure: a short pause); then the newest keys there
    /// are. Stale keys too: an authorization server that is down must not lock every user out while its
    /// keys are still in hand, nor hold them up while another verify waits for it.
    async fn refresh(&self, seen: u64, unknown_kid: bool) -> Result<Arc<Keys>, Rejected> {
        if let Some(answer) = self.no_fetch(seen, unknown_kid) {
            return answer;
        }
        let _fetching = match self.fetching.try_lock() {
            Ok(guard) => guard,
            Err(_) => {
                let keys = self.state().keys.clone();
                match keys {
                    Some(keys) if !unknown_kid => return Ok(keys),
                    _ => self.fetching.lock().await,
                }
            }
        };
        if let Some(answer) = self.no_fetch(seen, unknown_kid) {
            return answer;
        }
        let jwks_uri = self.state().jwks_uri.clone();
        let fetched = self.fetch(jwks_uri).await;
        let mut state = self.state();
        let now = Instant::now();
        state.attempts += 1;
        state.attempted_at = Some(now);
        if unknown_kid {
            state.refetched_at = Some(now);
        }
        match fetched {
            Ok((jwks_uri, keys)) => {
                state.jwks_uri = Some(jwks_uri);
                state.keys = Some(Arc::new(keys));
                state.fetched_at = Some(now);
                state.failure = None;
            }
            Err(why) => {
                let stale = if state.keys.is_some() { " (using the keys fetched before)" } else { "" };
                tracing::warn!("auth: fetching the issuer's keys failed{stale}: {why}");
                state.failure = Some(why);
            }
        }
        state.keys.clone().ok_or_else(|| unavailable(&state))
    }

    /// What to answer without fetching: when another verify fetched since `seen` attempts, or the rate limit
    /// says wait.
    fn no_fetch(&self, seen: u64, unknown_kid: bool) -> Option<Result<Arc<Keys>, Rejected>> {
        let state = self.state();
        let since = |at: Option<Instant>, wait: Duration| at.is_some_and(|at| at.elapsed() < wait);
        let limited = match &state.failure {
            Some(_) => since(state.attempted_at, self.refetch_interval.min(RETRY_AFTER_FAILURE)),
            None => unknown_kid && since(state.refetched_at, self.refetch_interval),
        };
        (state.attempts != seen || limited).then(|| state.keys.clone().ok_or_else(|| unavailable(&state)))
    }

    /// Discovers the JWKS URL if it is not known yet, then fetches the keys.
    async fn fetch(&self, jwks_uri: Option<String>) -> Result<(String, Keys), String> {
        let jwks_uri = match (jwks_uri, &self.source) {
            (Some(uri), _) => uri,
            (None, Source::JwksUri(uri)) => uri.clone(),
            (None, Source::Issuer(issuer)) => {
                discovery::jwks_uri(&self.fetcher, issuer).await.map_err(|why| why.detail().to_owned())?
            }
        };
        let set: RawSet = self.fetcher.get_json(&jwks_uri).await.map_err(|e| e.to_string())?;
        let keys = Keys::read(set);
        if keys.usable() == 0 {
            return Err(format!("the JWKS at {jwks_uri} has no usable signing key"));
        }
        Ok((jwks_uri, keys))
    }
}

fn unavailable(state: &State) -> Rejected {
    Rejected::Unavailable(state.failure.clone().unwrap_or_else(|| "the issuer's keys are not fetched yet".to_owned()))
}

/// A JWKS read key by key, so one key of a kind this crate cannot read does not make the others unusable.
#[derive(Deserialize)]
struct RawSet {
    keys: Vec<Value>,
}

/// The usable signing keys of a JWKS, each with its verifying key.
pub(crate) struct Keys {
    set: JwkSet,
    decoding: Vec<DecodingKey>,
}

enum Found {
    Key(DecodingKey),
    /// A key by that id, but not one this token can be checked with.
    Unfit(String),
    None,
}

impl Keys {
    /// Keeps the asymmetric signature keys: a symmetric (`oct`) key in a published set would let anyone who
    /// read it forge tokens, and encryption keys verify nothing.
    fn read(raw: RawSet) -> Self {
        let mut keys = Self { set: JwkSet { keys: Vec::new() }, decoding: Vec::new() };
        for value in raw.keys {
            let Ok(jwk) = serde_json::from_value::<Jwk>(value) else { continue };
            let signs = !matches!(&jwk.common.public_key_use, Some(u) if *u != PublicKeyUse::Signature)
                && jwk.common.key_operations.as_ref().is_none_or(|ops| ops.contains(&KeyOperations::Verify));
            let Ok(decoding) = DecodingKey::from_jwk(&jwk) else { continue };
            if signs && decoding.family() != AlgorithmFamily::Hmac {
                keys.set.keys.push(jwk);
                keys.decoding.push(decoding);
            }
        }
        keys
    }

    fn usable(&self) -> usize {
        self.set.keys.len()
    }

    /// The key named `kid`, or with no kid the set's only key; it must be of `alg`'s family, and of `alg`
    /// itself if it names one (RFC 7517 §4.4).
    fn find(&self, kid: Option<&str>, alg: Algorithm) -> Found {
        let candidates: Vec<usize> = match kid {
            Some(kid) => {
                (0..self.usable()).filter(|&i| self.set.keys[i].common.key_id.as_deref() == Some(kid)).collect()
            }
            None if self.usable() == 1 => vec![0],
            None => Vec::new(),
        };
        let mut unfit = None;
        for i in candidates {
            let declared = self.set.keys[i].common.key_algorithm.map(|a| Algorithm::try_from(a).map_err(|_| a));
            match declared {
                Some(Ok(declared)) if declared != alg => {
                    unfit = Some(format!("the token's algorithm {alg:?} is not its key's {declared:?}"));
                }
                Some(Err(declared)) => unfit = Some(format!("its key is for {declared:?}, not signatures")),
                _ if self.decoding[i].family() != alg.family() => {
                    unfit = Some(format!(
                        "the token's algorithm {alg:?} does not fit its {:?} key",
                        self.decoding[i].family()
                    ));
                }
                _ => return Found::Key(self.decoding[i].clone()),
            }
        }
        unfit.map_or(Found::None, Found::Unfit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::test_as::{TestKey, jwks};
    use serde_json::json;

    fn read(set: Value) -> Keys {
        Keys::read(serde_json::from_value(set).expect("a set"))
    }

    #[test]
    fn keeps_only_asymmetric_signature_keys() {
        let (a, b, c, d) = (TestKey::rsa_a("sig"), TestKey::rsa_b("enc"), TestKey::ec("ops"), TestKey::ed("verify"));
        let mut set = jwks(&[&a, &b, &c, &d]);
        set["keys"][1]["use"] = json!("enc");
        set["keys"][2]["key_ops"] = json!(["sign"]);
        set["keys"][3]["key_ops"] = json!(["verify"]);
        let keys = set["keys"].as_array_mut().expect("keys");
        keys.push(json!({"kty": "oct", "kid": "hmac", "k": "c2VjcmV0"}));
        keys.push(json!({"kty": "EC", "kid": "odd-curve", "crv": "P-999", "x": "AA", "y": "AA"}));
        keys.push(json!({"kty": "RSA", "kid": "broken", "n": "not base64url!", "e": "AQAB"}));
        keys.push(json!("not even an object"));
        let keys = read(set);
        let kids: Vec<_> = keys.set.keys.iter().map(|k| k.common.key_id.as_deref().unwrap_or("")).collect();
        assert_eq!(kids, ["sig", "verify"]);
        assert!(matches!(keys.find(Some("hmac"), Algorithm::RS256), Found::None));
        assert!(matches!(keys.find(Some("enc"), Algorithm::RS256), Found::None));
        assert!(matches!(keys.find(Some("sig"), Algorithm::RS256), Found::Key(_)));
        assert!(matches!(keys.find(Some("verify"), Algorithm::EdDSA), Found::Key(_)));
        assert!(matches!(keys.find(None, Algorithm::RS256), Found::None), "two keys: a kid is needed");
    }

    #[test]
    fn a_key_fits_only_its_own_algorithm() {
        let keys = read(jwks(&[&TestKey::rsa_a("rsa"), &TestKey::ec("ec")]));
        assert!(
            matches!(keys.find(Some("rsa"), Algorithm::RS512), Found::Unfit(why) if why.contains("not its key's RS256"))
        );
        assert!(matches!(keys.find(Some("ec"), Algorithm::ES384), Found::Unfit(_)));
        let mut set = jwks(&[&TestKey::rsa_a("rsa")]);
        set["keys"][0]["alg"] = json!("RSA-OAEP");
        assert!(
            matches!(read(set).find(Some("rsa"), Algorithm::RS256), Found::Unfit(why) if why.contains("not signatures"))
        );
        let one = read(jwks(&[&TestKey::ec("only")]));
        assert!(matches!(one.find(None, Algorithm::ES256), Found::Key(_)), "no kid, one key");
    }
}

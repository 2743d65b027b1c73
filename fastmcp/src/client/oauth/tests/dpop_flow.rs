//! DPoP (RFC 9449) against the same two servers, whose token endpoint and resource here check proofs as a
//! DPoP authorization server and resource server do: a token is bound to the key of its token request's
//! proof (the proof verified by jsonwebtoken with the `jwk` it embeds), and accepted only under the `DPoP`
//! scheme with a proof of that key that covers the request and the token. Either may demand a nonce.

use super::*;
use crate::client::oauth::dpop::tests::verified;
use std::collections::HashSet;

/// What the DPoP servers do, and what they saw.
#[derive(Default)]
struct DpopBooks {
    /// The nonce the token endpoint (and the resource) demand in proofs, if any.
    as_nonce: Option<String>,
    rs_nonce: Option<String>,
    /// The resource's next nonce, handed out on its next success.
    rs_next_nonce: Option<String>,
    /// The resource asks for its nonce whatever the proof carries.
    rs_never_satisfied: bool,
    /// The token endpoint answers a proof with an unbound Bearer token.
    unbound: bool,
    /// Bound access and refresh tokens, with the `jwk` they are bound to.
    bound: HashMap<String, Value>,
    bound_refresh: HashMap<String, (Value, Vec<String>)>,
    jtis: HashSet<String>,
    /// The claims of every proof the token endpoint and the resource accepted, in order.
    token_proofs: Vec<Value>,
    resource_proofs: Vec<(String, Value)>,
    /// Anything a client must never do (a bound token as Bearer, a bad proof): stays empty.
    violations: Vec<String>,
}

struct DpopWorld {
    world: World,
    dpop: Arc<Mutex<DpopBooks>>,
}

fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_secs()
}

/// A proof checked as RFC 9449 §4.3 says: signed by its own `jwk`, for this method and URL, recent, and not
/// seen before. Its header's `jwk` and its claims.
fn check(proof: Option<&str>, method: &str, url: &str, dpop: &mut DpopBooks) -> Result<(Value, Value), String> {
    let (header, claims) = verified(proof.ok_or("no DPoP proof")?)?;
    if header["jwk"].get("d").is_some() {
        return Err("the jwk has a private part".into());
    }
    if claims["htm"] != method || claims["htu"] != url {
        return Err(format!("htm/htu {} {} for {method} {url}", claims["htm"], claims["htu"]));
    }
    if claims["iat"].as_u64().is_none_or(|iat| iat.abs_diff(now()) >= 60) {
        return Err(format!("iat {}", claims["iat"]));
    }
    let jti = claims["jti"].as_str().ok_or("no jti")?.to_owned();
    if !dpop.jtis.insert(jti) {
        return Err("a proof used twice (jti)".into());
    }
    Ok((header["jwk"].clone(), claims))
}

fn nonce_challenge(status: u16, nonce: &str, scheme_header: bool) -> Reply {
    let reply = oauth_error(status, "use_dpop_nonce").header("dpop-nonce", nonce);
    if scheme_header { reply.header("www-authenticate", r#"DPoP error="use_dpop_nonce""#) } else { reply }
}

impl DpopWorld {
    /// The world of the other tests with an authorization server that advertises `algs` for DPoP (`null`:
    /// not at all) and the DPoP endpoints.
    async fn start(algs: Value) -> Self {
        let world = World::start("").await;
        world.set_metadata(json!({ "dpop_signing_alg_values_supported": algs }));
        let this = Self { world, dpop: Arc::default() };
        this.serve_token();
        this.serve_resource();
        this
    }

    fn dpop(&self) -> MutexGuard<'_, DpopBooks> {
        self.dpop.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn serve_token(&self) {
        let (shared, dpop) = (self.world.shared.clone(), self.dpop.clone());
        let endpoint = self.world.auth.url("/token");
        self.world.auth.handle_full("/token", move |seen| {
            let form = seen.form();
            let mut shared = shared.lock().unwrap_or_else(|p| p.into_inner());
            let mut dpop = dpop.lock().unwrap_or_else(|p| p.into_inner());
            let proof = seen.header("dpop");
            let key = match proof {
                None => None,
                Some(_) => match check(proof, "POST", &endpoint, &mut dpop) {
                    Ok((_, claims)) if claims.get("ath").is_some() => {
                        dpop.violations.push("ath in a token request's proof".into());
                        return oauth_error(400, "invalid_dpop_proof");
                    }
                    Ok((jwk, claims)) => {
                        if let Some(nonce) = dpop.as_nonce.clone().filter(|n| claims["nonce"] != n.as_str()) {
                            return nonce_challenge(400, &nonce, false);
                        }
                        dpop.token_proofs.push(claims);
                        Some(jwk)
                    }
                    Err(why) => {
                        dpop.violations.push(format!("token request: {why}"));
                        return oauth_error(400, "invalid_dpop_proof");
                    }
                },
            };
            let granted = match form.get("grant_type").map(String::as_str) {
                Some("authorization_code") => match form.get("code").and_then(|c| shared.books.codes.remove(c)) {
                    Some(code) => code.scopes,
                    None => return oauth_error(400, "invalid_grant"),
                },
                Some("refresh_token") => {
                    let token = form.get("refresh_token").cloned().unwrap_or_default();
                    match dpop.bound_refresh.remove(&token) {
                        // A bound refresh token is refreshed with a proof of its key only (RFC 9449 §5).
                        Some((jwk, scopes)) if key.as_ref() == Some(&jwk) => scopes,
                        Some(_) => {
                            dpop.violations.push("a bound refresh token without a proof of its key".into());
                            return oauth_error(400, "invalid_grant");
                        }
                        None => match shared.books.refresh.remove(&token) {
                            Some(scopes) => scopes,
                            None => return oauth_error(400, "invalid_grant"),
                        },
                    }
                }
                Some("client_credentials") => scopes(form.get("scope")),
                _ => return oauth_error(400, "unsupported_grant_type"),
            };
            shared.books.issued += 1;
            let n = shared.books.issued;
            let (access, refresh) = (format!("at-{n}"), format!("rt-{n}"));
            let bound = key.filter(|_| !dpop.unbound);
            let mut answer = json!({ "access_token": access, "expires_in": shared.knobs.expires_in });
            match bound {
                Some(jwk) => {
                    answer["token_type"] = json!("DPoP");
                    dpop.bound.insert(access.clone(), jwk.clone());
                    if shared.knobs.refresh {
                        dpop.bound_refresh.insert(refresh.clone(), (jwk, granted));
                        answer["refresh_token"] = json!(refresh);
                    }
                }
                None => {
                    answer["token_type"] = json!("Bearer");
                    shared.books.tokens.insert(access, granted.clone());
                    if shared.knobs.refresh {
                        shared.books.refresh.insert(refresh.clone(), granted);
                        answer["refresh_token"] = json!(refresh);
                    }
                }
            }
            Reply::json(200, &answer)
        });
    }

    fn serve_resource(&self) {
        let (shared, dpop) = (self.world.shared.clone(), self.dpop.clone());
        let (url, prm) = (self.world.url.clone(), self.world.rs.url("/.well-known/oauth-protected-resource/mcp"));
        self.world.rs.handle_full("/mcp", move |seen| {
            let shared = shared.lock().unwrap_or_else(|p| p.into_inner());
            let mut dpop = dpop.lock().unwrap_or_else(|p| p.into_inner());
            let challenge = format!(r#"DPoP algs="ES256", resource_metadata="{prm}""#);
            let unauthorized = || oauth_error(401, "invalid_token").header("www-authenticate", &challenge);
            let authorization = seen.header("authorization").unwrap_or_default();
            if let Some(token) = authorization.strip_prefix("Bearer ") {
                if dpop.bound.contains_key(token) {
                    dpop.violations.push(format!("the DPoP-bound {token} sent as a Bearer token"));
                    return unauthorized();
                }
                return match shared.books.tokens.contains_key(token) {
                    true => Reply::json(200, &json!({ "ok": true })),
                    false => unauthorized(),
                };
            }
            let Some(token) = authorization.strip_prefix("DPoP ") else { return unauthorized() };
            let Some(jwk) = dpop.bound.get(token).cloned() else { return unauthorized() };
            let claims = match check(seen.header("dpop"), &seen.method, &url, &mut dpop) {
                Ok((key, _)) if key != jwk => Err("a proof of another key".to_owned()),
                Ok((_, claims)) if claims["ath"] != URL_SAFE_NO_PAD.encode(Sha256::digest(token)) => {
                    Err(format!("ath {} is not the token's", claims["ath"]))
                }
                other => other.map(|(_, claims)| claims),
            };
            let claims = match claims {
                Ok(claims) => claims,
                Err(why) => {
                    dpop.violations.push(format!("resource request: {why}"));
                    return oauth_error(401, "invalid_dpop_proof");
                }
            };
            if let Some(nonce) = dpop.rs_nonce.clone()
                && (dpop.rs_never_satisfied || claims["nonce"] != nonce.as_str())
            {
                return nonce_challenge(401, &nonce, true);
            }
            dpop.resource_proofs.push((seen.method.clone(), claims));
            let mut ok = Reply::json(200, &json!({ "ok": true }));
            if let Some(next) = dpop.rs_next_nonce.take() {
                ok = ok.header("dpop-nonce", &next);
                dpop.rs_nonce = Some(next);
            }
            ok
        });
    }

    fn violations(&self) -> Vec<String> {
        self.dpop().violations.clone()
    }
}

#[tokio::test]
async fn a_bound_token_is_got_with_a_proof_and_sent_with_one_per_request() {
    let w = DpopWorld::start(json!(["RS256", "ES256"])).await;
    let oauth = w.world.oauth(code_config());
    assert_eq!(call(&oauth, &w.world.url).await.expect("authorized"), 200);
    assert_eq!(call(&oauth, &w.world.url).await.expect("authorized"), 200);
    assert_eq!(w.violations(), Vec::<String>::new());

    // The token request carried a proof for the token endpoint, without `ath`; the token is bound.
    let token_request = &w.world.token_requests()[0];
    let (header, claims) = verified(token_request.header("dpop").expect("a proof")).expect("valid");
    assert_eq!(claims["htu"], w.world.auth.url("/token"));
    assert!(claims.get("ath").is_none() && claims.get("nonce").is_none(), "{claims}");
    let tokens = w.world.store.get(&w.world.url).await.expect("store").expect("kept");
    assert!(tokens.dpop, "{tokens:?}");
    assert_eq!(w.dpop().bound.get(&tokens.access_token), Some(&header["jwk"]));

    // Each request to the resource: the DPoP scheme, and a fresh proof of the same key with the token's hash.
    let sent: Vec<Seen> = w.world.rs.requests().into_iter().filter(|s| s.path == "/mcp").collect();
    assert_eq!(sent.len(), 3, "the refusal that started it, then two calls");
    for seen in &sent[1..] {
        assert_eq!(seen.header("authorization"), Some(format!("DPoP {}", tokens.access_token).as_str()));
        let (key, claims) = verified(seen.header("dpop").expect("a proof")).expect("valid");
        assert_eq!(key["jwk"], header["jwk"]);
        assert_eq!(claims["ath"], URL_SAFE_NO_PAD.encode(Sha256::digest(tokens.access_token.as_bytes())));
    }
    let proofs = w.dpop().resource_proofs.clone();
    assert_ne!(proofs[0].1["jti"], proofs[1].1["jti"]);

    // A GET (the standalone stream) gets a proof for its own method.
    let get = RequestTarget { method: &Method::GET, url: &w.world.url };
    let credentials = oauth.authorization(get).await.expect("credentials");
    let (_, claims) = verified(credentials.dpop.as_deref().expect("a proof")).expect("valid");
    assert_eq!((claims["htm"].as_str(), claims["htu"].as_str()), (Some("GET"), Some(w.world.url.as_str())));
    assert!(!format!("{credentials:?}").contains(&tokens.access_token), "credentials are not in Debug output");
}

#[tokio::test]
async fn every_grant_asks_with_a_proof_and_refreshes_with_the_same_key() {
    let w = DpopWorld::start(json!(["ES256"])).await;
    w.world.knobs().knobs.refresh = true;
    let oauth = w.world.oauth(code_config());
    assert_eq!(call(&oauth, &w.world.url).await.expect("authorized"), 200);
    let first = w.world.token_requests()[0].header("dpop").map(str::to_owned).expect("a proof");

    // The resource forgets the token: the refusal is answered with a refresh, with a proof of the same key.
    w.dpop().bound.clear();
    assert_eq!(call(&oauth, &w.world.url).await.expect("refreshed"), 200);
    let refresh = &w.world.token_requests()[1];
    assert_eq!(refresh.form()["grant_type"], "refresh_token");
    let key = |proof: &str| verified(proof).expect("valid").0["jwk"].clone();
    assert_eq!(key(refresh.header("dpop").expect("a proof")), key(&first));
    assert_eq!(w.world.at("/authorize").len(), 1, "no second authorization");

    // The client credentials grant too.
    let w = DpopWorld::start(json!(["ES256"])).await;
    let oauth = w.world.oauth(OAuthConfig::client_credentials("svc", "secret"));
    assert_eq!(call(&oauth, &w.world.url).await.expect("authorized"), 200);
    assert!(w.world.token_requests()[0].header("dpop").is_some());
    assert_eq!(w.violations(), Vec::<String>::new());
}

#[tokio::test]
async fn nonces_are_asked_for_and_used_at_both_servers() {
    let w = DpopWorld::start(json!(["ES256"])).await;
    w.dpop().as_nonce = Some("as-nonce-1".into());
    w.dpop().rs_nonce = Some("rs-nonce-1".into());
    w.dpop().rs_next_nonce = Some("rs-nonce-2".into());
    let oauth = w.world.oauth(code_config());
    assert_eq!(call(&oauth, &w.world.url).await.expect("authorized"), 200);
    assert_eq!(w.violations(), Vec::<String>::new());

    // The token endpoint asked once (400 use_dpop_nonce), and the retry carried its nonce.
    let token_requests = w.world.token_requests();
    assert_eq!(token_requests.len(), 2);
    let nonce = |seen: &Seen| verified(seen.header("dpop").expect("a proof")).expect("valid").1["nonce"].clone();
    assert_eq!((nonce(&token_requests[0]), nonce(&token_requests[1])), (Value::Null, json!("as-nonce-1")));
    assert_eq!(token_requests[0].body, token_requests[1].body, "the same request, with a new proof");
    assert_ne!(token_requests[0].header("dpop"), token_requests[1].header("dpop"));

    // The resource asked once (401 DPoP error="use_dpop_nonce"), and the retry carried its nonce; its
    // success handed out the next, which the next call uses at once.
    let sent = || -> Vec<Seen> { w.world.rs.requests().into_iter().filter(|s| s.path == "/mcp").collect() };
    assert_eq!(sent().len(), 3, "no token, the nonce challenge, the retry");
    assert_eq!((nonce(&sent()[1]), nonce(&sent()[2])), (Value::Null, json!("rs-nonce-1")));
    assert_eq!(call(&oauth, &w.world.url).await.expect("authorized"), 200);
    assert_eq!(sent().len(), 4, "no challenge this time");
    assert_eq!(nonce(&sent()[3]), json!("rs-nonce-2"));
    assert_eq!(w.world.token_requests().len(), 2, "the token was kept: a nonce challenge is no refusal of it");
}

#[tokio::test]
async fn a_nonce_challenge_is_retried_once_not_forever() {
    // A resource that refuses even the proof with its nonce: the refusal stands.
    let w = DpopWorld::start(json!(["ES256"])).await;
    w.dpop().rs_nonce = Some("n".into());
    w.dpop().rs_never_satisfied = true;
    let oauth = w.world.oauth(code_config());
    assert_eq!(call(&oauth, &w.world.url).await.expect("no error"), 401);
    assert_eq!(w.world.rs.hits("/mcp"), 3, "no token, no nonce, the nonce: then the refusal is the answer");
    assert_eq!(w.world.token_requests().len(), 1, "the token is not renewed over a nonce");

    // A token endpoint that asks again for the nonce it was given: one retry, then the error.
    let w = DpopWorld::start(json!(["ES256"])).await;
    w.world.auth.handle_full("/token", |_| nonce_challenge(400, "always", false));
    let why = auth_error(call(&w.world.oauth(code_config()), &w.world.url).await);
    assert!(why.contains("use_dpop_nonce"), "{why}");
    assert_eq!(w.world.token_requests().len(), 2);
}

#[tokio::test]
async fn a_bound_token_is_never_sent_as_a_bearer_token() {
    // Whatever the policy now, a kept bound token goes with a proof under the DPoP scheme.
    let w = DpopWorld::start(json!(["ES256"])).await;
    let oauth = w.world.oauth(code_config());
    assert_eq!(call(&oauth, &w.world.url).await.expect("authorized"), 200);
    let kept = w.world.store.get(&w.world.url).await.expect("store").expect("kept");
    for policy in [Dpop::Auto, Dpop::Required, Dpop::Off] {
        let other = w.world.oauth(code_config().dpop(policy));
        let credentials = other.authorization(post(&w.world.url)).await.expect("credentials");
        assert_eq!(credentials.authorization, Some(format!("DPoP {}", kept.access_token)), "{policy:?}");
        assert!(credentials.dpop.is_some(), "{policy:?}");
    }
    assert!(serde_json::to_value(&kept).expect("JSON")["dpop"] == true, "a token store keeps the binding");

    // Off: no proof, a Bearer token — and a bound token from the server is refused, never used as Bearer.
    let w = DpopWorld::start(json!(["ES256"])).await;
    assert_eq!(call(&w.world.oauth(code_config().dpop(Dpop::Off)), &w.world.url).await.expect("Bearer"), 200);
    assert!(w.world.token_requests()[0].header("dpop").is_none());
    let w = DpopWorld::start(json!(["ES256"])).await;
    w.world.auth.handle_full("/token", |_| {
        Reply::json(200, &json!({ "access_token": "bound", "token_type": "DPoP", "expires_in": 60 }))
    });
    let why = auth_error(call(&w.world.oauth(code_config().dpop(Dpop::Off)), &w.world.url).await);
    assert!(why.contains("DPoP-bound token to a request without a proof"), "{why}");
    assert!(w.world.store.get(&w.world.url).await.expect("store").is_none(), "not kept");
    assert_eq!(w.violations(), Vec::<String>::new());
}

#[tokio::test]
async fn dpop_metadata_is_used_as_the_policy_says_and_misbehaviour_is_refused() {
    // Not advertised: Bearer tokens by default, no authorization at all when DPoP is required.
    let w = DpopWorld::start(Value::Null).await;
    assert_eq!(call(&w.world.oauth(code_config()), &w.world.url).await.expect("Bearer"), 200);
    assert!(w.world.token_requests()[0].header("dpop").is_none());
    assert!(!w.world.store.get(&w.world.url).await.expect("store").expect("kept").dpop);
    let w = DpopWorld::start(Value::Null).await;
    let why = auth_error(call(&w.world.oauth(code_config().dpop(Dpop::Required)), &w.world.url).await);
    assert!(why.contains("advertises no dpop_signing_alg_values_supported"), "{why}");
    assert!(w.world.at("/authorize").is_empty(), "refused before the user is asked");

    // Advertised wrongly: refused, whatever the policy but Off, before the user is asked.
    for (algs, says) in [(json!([]), "empty"), (json!(["ES256", "none"]), "`none`")] {
        for policy in [Dpop::Auto, Dpop::Required] {
            let w = DpopWorld::start(algs.clone()).await;
            let why = auth_error(call(&w.world.oauth(code_config().dpop(policy)), &w.world.url).await);
            assert!(why.contains(says) && why.contains("RFC 9449"), "{policy:?}: {why}");
            assert!(w.world.at("/authorize").is_empty() && w.world.token_requests().is_empty());
        }
    }

    // An unbound token to a request with a proof: refused, not kept.
    let w = DpopWorld::start(json!(["ES256"])).await;
    w.dpop().unbound = true;
    let why = auth_error(call(&w.world.oauth(code_config()), &w.world.url).await);
    assert!(why.contains("unbound `Bearer` token"), "{why}");
    assert!(w.world.store.get(&w.world.url).await.expect("store").is_none());
    assert_eq!(w.violations(), Vec::<String>::new());
}

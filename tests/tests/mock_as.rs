//! The mock authorization server harness (`fastmcp_tests::oauth::MockAs`) does what the authorization tests
//! rely on: discovery and JWKS, tokens from `/token` shaped by resource indicators, minted tokens of every
//! shape asked for, and key rotation. Tokens are read here by hand (base64url JSON), not verified.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use fastmcp_tests::oauth::{Mint, MockAs};
use serde_json::{Value, json};

/// A JWT's header, payload and raw signature.
fn parts(token: &str) -> (Value, Value, Vec<u8>) {
    let pieces: Vec<&str> = token.split('.').collect();
    assert_eq!(pieces.len(), 3, "a JWS in compact form: {token}");
    let decode = |piece: &str| URL_SAFE_NO_PAD.decode(piece).unwrap_or_else(|e| panic!("base64url {piece:?}: {e}"));
    let json = |piece: &str| -> Value { serde_json::from_slice(&decode(piece)).expect("JSON") };
    (json(pieces[0]), json(pieces[1]), decode(pieces[2]))
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

#[tokio::test]
async fn discovery_names_the_issuer_and_its_jwks() {
    let server = MockAs::start().await;
    let issuer = server.issuer();
    assert!(issuer.starts_with("http://127.0.0.1:"), "{issuer}");
    let oidc = server.discovery().await;
    assert_eq!(oidc["issuer"], issuer);
    assert_eq!(oidc["jwks_uri"], server.jwks_uri());
    assert_eq!(oidc["token_endpoint"], format!("{issuer}/token"));
    // RFC 8414 metadata is the same document (the script serves it; the package alone answers 404).
    assert_eq!(server.get_json("/.well-known/oauth-authorization-server").await, oidc);

    let jwks = server.jwks().await;
    let keys = jwks["keys"].as_array().expect("keys");
    assert_eq!(keys.len(), 1, "{jwks}");
    assert_eq!(keys[0]["kty"], "RSA");
    assert_eq!(keys[0]["alg"], "RS256");
    assert_eq!(keys[0]["kid"], server.current_kid().await);
    assert!(keys[0].get("d").is_none(), "no private parts: {jwks}");
}

#[tokio::test]
async fn a_minted_token_carries_the_claims_asked_for() {
    let server = MockAs::start().await;
    let claims = json!({
        "sub": "alice", "aud": "https://mcp.test/mcp", "scope": "tools:read tools:call",
        "client_id": "client-1", "tenant": 7,
    });
    let (header, payload, signature) = parts(&server.mint(claims.clone()).await);
    assert_eq!(header["alg"], "RS256");
    assert_eq!(header["typ"], "JWT");
    assert_eq!(header["kid"], server.current_kid().await);
    for (name, value) in claims.as_object().unwrap() {
        assert_eq!(&payload[name], value, "{name} in {payload}");
    }
    assert_eq!(payload["iss"], server.issuer());
    let (iat, exp, nbf) =
        (payload["iat"].as_i64().unwrap(), payload["exp"].as_i64().unwrap(), payload["nbf"].as_i64().unwrap());
    assert!((iat - now()).abs() < 60 && nbf <= iat && exp == iat + 3600, "{payload}");
    assert_eq!(signature.len(), 256, "an RS256 signature with a 2048-bit key");

    // Any claim can be replaced, and null leaves one out.
    let (_, payload, _) =
        parts(&server.mint(json!({"iss": "https://elsewhere.test", "exp": null, "aud": ["a", "b"]})).await);
    assert_eq!(payload["iss"], "https://elsewhere.test");
    assert_eq!(payload["aud"], json!(["a", "b"]));
    assert!(payload.get("exp").is_none(), "{payload}");
}

#[tokio::test]
async fn expiry_and_not_before_options() {
    let server = MockAs::start().await;
    let (_, expired, _) = parts(&server.mint_with(json!({"sub": "a"}), Mint::new().expired()).await);
    assert!(expired["exp"].as_i64().unwrap() < now(), "{expired}");
    let (_, early, _) = parts(&server.mint_with(json!({}), Mint::new().not_before_in(300)).await);
    assert!(early["nbf"].as_i64().unwrap() > now() + 200, "{early}");
    assert!(early["exp"].as_i64().unwrap() > now(), "{early}");
}

#[tokio::test]
async fn the_token_endpoint_honours_the_resource_indicator() {
    let server = MockAs::start().await;
    let resource = "http://127.0.0.1:9/mcp";
    let (header, payload, _) = parts(&server.token_for(resource, &["files:read", "files:write"], "bob").await);
    assert_eq!(header["kid"], server.current_kid().await);
    assert_eq!(payload["aud"], resource);
    assert_eq!(payload["scope"], "files:read files:write");
    assert_eq!(payload["sub"], "bob");
    assert_eq!(payload["client_id"], "fastmcp-tests");
    assert_eq!(payload["iss"], server.issuer());

    // Without `sub`, the client is the subject; two resources make an audience array.
    let form = [
        ("grant_type", "client_credentials"),
        ("client_id", "svc"),
        ("resource", "https://a.test/mcp"),
        ("resource", "https://b.test/mcp"),
    ];
    let reply = server.request_token(&form).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let (_, payload, _) = parts(reply.json()["access_token"].as_str().unwrap());
    assert_eq!(payload["sub"], "svc");
    assert_eq!(payload["aud"], json!(["https://a.test/mcp", "https://b.test/mcp"]));
    assert!(payload.get("scope").is_none(), "{payload}");

    // RFC 8707: a resource must be an absolute URI without a fragment.
    for bad in ["mcp", "https://a.test/mcp#frag"] {
        let reply = server.request_token(&[("grant_type", "client_credentials"), ("resource", bad)]).await;
        assert_eq!((reply.status, reply.json()["error"].clone()), (400, json!("invalid_target")), "{bad}: {reply:?}");
    }
}

#[tokio::test]
async fn rotation_publishes_a_new_key_that_signs_from_then_on() {
    let server = MockAs::start().await;
    let old = server.current_kid().await;
    let before = server.mint(json!({"sub": "a"})).await;
    let new = server.rotate().await;
    assert_ne!(new, old);
    assert_eq!(server.current_kid().await, new);
    let kids = server.kids().await;
    assert!(kids.contains(&new) && kids.contains(&old), "both keys in the JWKS: {kids:?}");

    assert_eq!(parts(&before).0["kid"], old);
    for _ in 0..3 {
        // Always the new key (the package alone would go round-robin over its keys).
        assert_eq!(parts(&server.mint(json!({"sub": "a"})).await).0["kid"], new);
        assert_eq!(parts(&server.token_for("https://r.test/mcp", &["x"], "a").await).0["kid"], new);
    }
    assert_eq!(parts(&server.mint_with(json!({}), Mint::new().signed_by(&old)).await).0["kid"], old);
}

#[tokio::test]
async fn alg_none_is_unsigned() {
    let server = MockAs::start().await;
    let token = server.mint_with(json!({"sub": "mallory"}), Mint::new().unsigned()).await;
    assert!(token.ends_with('.'), "an empty signature: {token}");
    let (header, payload, signature) = parts(&token);
    assert_eq!(header["alg"], "none");
    assert!(header.get("kid").is_none(), "{header}");
    assert!(signature.is_empty());
    assert_eq!(payload["sub"], "mallory");
    assert_eq!(payload["iss"], server.issuer());
}

#[tokio::test]
async fn an_untrusted_key_makes_a_bad_signature() {
    let server = MockAs::start().await;
    let current = server.current_kid().await;

    // Its own kid: not in the JWKS.
    let (header, payload, _) = parts(&server.mint_with(json!({"sub": "eve"}), Mint::new().untrusted_key()).await);
    let kid = header["kid"].as_str().expect("a kid").to_owned();
    assert!(!server.kids().await.contains(&kid), "{kid} is not published");
    assert_eq!((header["alg"].clone(), payload["sub"].clone()), (json!("RS256"), json!("eve")));

    // Claiming the published kid: the same header and payload as the real key's token, another signature.
    // (RS256 signatures are deterministic, so the real key signs the same input the same way twice.)
    let fixed = json!({"sub": "eve", "iat": 1_900_000_000, "nbf": 1_900_000_000, "exp": 1_900_003_600});
    let real = server.mint(fixed.clone()).await;
    let again = server.mint(fixed.clone()).await;
    let forged = server.mint_with(fixed, Mint::new().untrusted_key().kid(&current)).await;
    assert_eq!(real, again);
    let input = |t: &str| t.rsplit_once('.').unwrap().0.to_owned();
    assert_eq!(input(&forged), input(&real), "same header (kid {current}) and payload");
    assert_ne!(parts(&forged).2, parts(&real).2, "a signature the published key did not make");
}

#[tokio::test]
async fn other_algorithms_and_header_options() {
    let server = MockAs::start().await;
    // An ES256 key is made and published on first use.
    let (header, _, signature) = parts(&server.mint_with(json!({}), Mint::new().alg("ES256")).await);
    assert_eq!(header["alg"], "ES256");
    assert_eq!(signature.len(), 64);
    let jwks = server.jwks().await;
    let es = jwks["keys"].as_array().unwrap().iter().find(|k| k["kid"] == header["kid"]).expect("published");
    assert_eq!(es["kty"], "EC");
    assert_eq!(server.current_kid().await, parts(&server.mint(json!({})).await).0["kid"], "RS256 still signs");

    // HS256 (by default keyed with the public key: algorithm confusion), an unknown kid, no kid, a typ.
    let (header, _, signature) = parts(&server.mint_with(json!({}), Mint::new().alg("HS256").kid("k1")).await);
    assert_eq!((header["alg"].clone(), header["kid"].clone(), signature.len()), (json!("HS256"), json!("k1"), 32));
    let (header, _, _) = parts(&server.mint_with(json!({}), Mint::new().kid("nobody")).await);
    assert_eq!(header["kid"], "nobody");
    let (header, _, _) = parts(&server.mint_with(json!({}), Mint::new().no_kid().header("typ", json!("at+jwt"))).await);
    assert!(header.get("kid").is_none(), "{header}");
    assert_eq!(header["typ"], "at+jwt");
}

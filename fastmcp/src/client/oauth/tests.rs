//! The OAuth client against an in-process authorization server and protected resource over real HTTP:
//! both are `MockAs` servers whose handlers keep books (codes, tokens, refresh tokens) and record every
//! request, and a small loop plays the transport (send, and on 401/403 ask the client, retry).

use super::*;
use crate::auth::fetch::{Body, Fetcher};
use crate::auth::test_as::{MockAs, Reply, Seen};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use http::{HeaderMap, HeaderName};
use http::{HeaderValue, Method};
use jsonwebtoken::Algorithm;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::MutexGuard;

// DPoP, against a token endpoint and a resource that check proofs.
mod dpop_flow;

const REDIRECT: &str = "http://127.0.0.1:3000/callback";
const CIMD: &str = "https://app.example.com/oauth/client.json";
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// The assertion the authorization server refuses (`invalid_grant`).
const REFUSED_ASSERTION: &str = "refused.jwt";
const EC_PEM: &str = include_str!("../../auth/testdata/ec-p256.pem");

#[derive(Clone, Copy, Debug, PartialEq)]
enum Iss {
    Correct,
    Absent,
    Wrong,
    /// The issuer with a trailing slash: equal after normalization, not as a string.
    Normalized,
}

/// How the two servers behave; a test changes what it is about.
struct Knobs {
    /// Scopes every call to the resource needs.
    required: Vec<String>,
    /// Whether a 401 names the scopes.
    challenge_scope: bool,
    /// The `resource_metadata` a refusal names, if any.
    header_prm: Option<String>,
    iss: Iss,
    wrong_state: bool,
    /// Whether tokens come with refresh tokens.
    refresh: bool,
    expires_in: u64,
    /// Scopes the authorization server never grants.
    withhold: Vec<String>,
    /// What `/register` answers.
    registration: Value,
}

struct Code {
    challenge: String,
    scopes: Vec<String>,
    redirect_uri: String,
}

#[derive(Default)]
struct Books {
    /// Valid access tokens, with their scopes.
    tokens: HashMap<String, Vec<String>>,
    codes: HashMap<String, Code>,
    refresh: HashMap<String, Vec<String>>,
    issued: u32,
}

struct Shared {
    knobs: Knobs,
    books: Books,
}

struct World {
    rs: MockAs,
    auth: MockAs,
    shared: Arc<Mutex<Shared>>,
    issuer: String,
    url: String,
    store: Arc<MemoryTokenStore>,
}

fn scopes(text: Option<&String>) -> Vec<String> {
    text.map(|t| t.split_whitespace().map(str::to_owned).collect()).unwrap_or_default()
}

fn oauth_error(status: u16, error: &str) -> Reply {
    Reply::json(status, &json!({ "error": error }))
}

impl World {
    /// A resource at `/mcp` whose metadata (path form) names an authorization server with `issuer_path`,
    /// whose RFC 8414 metadata is served at the path-insert location.
    async fn start(issuer_path: &str) -> Self {
        let rs = MockAs::start().await;
        let auth = MockAs::start().await;
        let issuer = auth.url(issuer_path);
        let url = rs.url("/mcp");
        let knobs = Knobs {
            required: Vec::new(),
            challenge_scope: true,
            header_prm: Some(rs.url("/.well-known/oauth-protected-resource/mcp")),
            iss: Iss::Correct,
            wrong_state: false,
            refresh: false,
            expires_in: 3600,
            withhold: Vec::new(),
            registration: json!({ "client_id": "dyn-client" }),
        };
        let world = Self {
            shared: Arc::new(Mutex::new(Shared { knobs, books: Books::default() })),
            store: Arc::new(MemoryTokenStore::new()),
            rs,
            auth,
            issuer,
            url,
        };
        world.rs.json(
            "/.well-known/oauth-protected-resource/mcp",
            json!({ "resource": world.url, "authorization_servers": [world.issuer] }),
        );
        world.auth.json(&format!("/.well-known/oauth-authorization-server{issuer_path}"), world.metadata(json!({})));
        world.serve_resource();
        world.serve_authorization();
        world
    }

    /// The authorization server's metadata, with `changes` over the defaults.
    fn metadata(&self, changes: Value) -> Value {
        let mut doc = json!({
            "issuer": self.issuer,
            "authorization_endpoint": self.auth.url("/authorize"),
            "token_endpoint": self.auth.url("/token"),
            "registration_endpoint": self.auth.url("/register"),
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "authorization_response_iss_parameter_supported": true,
        });
        let fields = doc.as_object_mut().expect("an object");
        for (name, value) in changes.as_object().into_iter().flatten() {
            match value {
                Value::Null => fields.remove(name),
                value => fields.insert(name.clone(), value.clone()),
            };
        }
        doc
    }

    /// Replaces the authorization server's (RFC 8414, no-path) metadata.
    fn set_metadata(&self, changes: Value) {
        self.auth.json("/.well-known/oauth-authorization-server", self.metadata(changes));
    }

    fn knobs(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn serve_resource(&self) {
        let shared = self.shared.clone();
        self.rs.handle_full("/mcp", move |seen| {
            let shared = shared.lock().unwrap_or_else(|p| p.into_inner());
            let knobs = &shared.knobs;
            let token = seen.header("authorization").and_then(|v| v.strip_prefix("Bearer "));
            let granted = token.and_then(|t| shared.books.tokens.get(t));
            let prm = knobs.header_prm.as_ref().map(|url| format!("resource_metadata=\"{url}\""));
            let scope = format!("scope=\"{}\"", knobs.required.join(" "));
            match granted {
                None => {
                    let mut params: Vec<String> = prm.into_iter().collect();
                    if knobs.challenge_scope && !knobs.required.is_empty() {
                        params.push(scope);
                    }
                    let challenge =
                        if params.is_empty() { "Bearer".to_owned() } else { format!("Bearer {}", params.join(", ")) };
                    oauth_error(401, "invalid_token").header("www-authenticate", challenge)
                }
                Some(granted) if !knobs.required.iter().all(|s| granted.contains(s)) => {
                    let params: Vec<String> = [Some("error=\"insufficient_scope\"".to_owned()), Some(scope), prm]
                        .into_iter()
                        .flatten()
                        .collect();
                    oauth_error(403, "insufficient_scope")
                        .header("www-authenticate", format!("Bearer {}", params.join(", ")))
                }
                Some(_) => Reply::json(200, &json!({ "ok": true })),
            }
        });
    }

    fn serve_authorization(&self) {
        let shared = self.shared.clone();
        let issuer = self.issuer.clone();
        self.auth.handle_full("/authorize", move |seen| {
            let params = seen.params();
            let mut shared = shared.lock().unwrap_or_else(|p| p.into_inner());
            shared.books.issued += 1;
            let code = format!("code-{}", shared.books.issued);
            let redirect_uri = params.get("redirect_uri").cloned().unwrap_or_default();
            let entry = Code {
                challenge: params.get("code_challenge").cloned().unwrap_or_default(),
                scopes: scopes(params.get("scope")),
                redirect_uri: redirect_uri.clone(),
            };
            shared.books.codes.insert(code.clone(), entry);
            let state = if shared.knobs.wrong_state {
                "forged".to_owned()
            } else {
                params.get("state").cloned().unwrap_or_default()
            };
            let mut query = form_urlencoded::Serializer::new(String::new());
            query.append_pair("code", &code).append_pair("state", &state);
            match shared.knobs.iss {
                Iss::Correct => query.append_pair("iss", &issuer),
                Iss::Absent => &mut query,
                Iss::Wrong => query.append_pair("iss", "https://evil.example.com"),
                Iss::Normalized => query.append_pair("iss", &format!("{issuer}/")),
            };
            Reply {
                status: 302,
                headers: vec![("location".into(), format!("{redirect_uri}?{}", query.finish()))],
                body: String::new(),
            }
        });

        let shared = self.shared.clone();
        self.auth.handle_full("/token", move |seen| {
            let form = seen.form();
            let mut shared = shared.lock().unwrap_or_else(|p| p.into_inner());
            let granted = match form.get("grant_type").map(String::as_str) {
                Some("authorization_code") => {
                    let Some(code) = form.get("code").and_then(|c| shared.books.codes.remove(c)) else {
                        return oauth_error(400, "invalid_grant");
                    };
                    let verifier = form.get("code_verifier").map(String::as_str).unwrap_or("");
                    if URL_SAFE_NO_PAD.encode(Sha256::digest(verifier)) != code.challenge
                        || form.get("redirect_uri") != Some(&code.redirect_uri)
                    {
                        return oauth_error(400, "invalid_grant");
                    }
                    code.scopes
                }
                Some("refresh_token") => match form.get("refresh_token").and_then(|r| shared.books.refresh.remove(r)) {
                    Some(scopes) => scopes,
                    None => return oauth_error(400, "invalid_grant"),
                },
                Some("client_credentials") => scopes(form.get("scope")),
                // A JWT bearer grant: any assertion but the one the test has the server refuse.
                Some(JWT_BEARER) => match form.get("assertion") {
                    Some(assertion) if *assertion != REFUSED_ASSERTION => scopes(form.get("scope")),
                    _ => return oauth_error(400, "invalid_grant"),
                },
                _ => return oauth_error(400, "unsupported_grant_type"),
            };
            let granted: Vec<String> = granted.into_iter().filter(|s| !shared.knobs.withhold.contains(s)).collect();
            shared.books.issued += 1;
            let n = shared.books.issued;
            let access = format!("at-{n}");
            shared.books.tokens.insert(access.clone(), granted.clone());
            let mut answer = json!({
                "access_token": access,
                "token_type": "Bearer",
                "expires_in": shared.knobs.expires_in,
                "scope": granted.join(" "),
            });
            if shared.knobs.refresh {
                let refresh = format!("rt-{n}");
                shared.books.refresh.insert(refresh.clone(), granted);
                answer["refresh_token"] = json!(refresh);
            }
            Reply::json(200, &answer)
        });

        let shared = self.shared.clone();
        self.auth.handle_full("/register", move |_| {
            let shared = shared.lock().unwrap_or_else(|p| p.into_inner());
            Reply::json(201, &shared.knobs.registration)
        });
    }

    fn oauth(&self, config: OAuthConfig) -> OAuth {
        OAuth::new(config.token_store(self.store.clone()).timeout(Duration::from_secs(5)))
    }

    /// The requests the authorization server saw at `path`.
    fn at(&self, path: &str) -> Vec<Seen> {
        self.auth.requests().into_iter().filter(|seen| seen.path == path).collect()
    }

    /// The one authorization request's parameters.
    fn authorization_request(&self) -> HashMap<String, String> {
        let seen = self.at("/authorize");
        assert_eq!(seen.len(), 1, "one authorization request");
        seen[0].params()
    }

    fn token_requests(&self) -> Vec<Seen> {
        self.at("/token")
    }
}

/// The authorization code grant, approved at once, with dynamic registration to fall back on.
fn code_config() -> OAuthConfig {
    OAuthConfig::authorization_code(AuthorizationCode::headless(REDIRECT))
        .dynamic_registration(ClientMetadata::new("fastmcp test"))
}

/// The request the loop below plays.
fn post(url: &str) -> RequestTarget<'_> {
    RequestTarget { method: &Method::POST, url }
}

/// What the transport does: send with the client's credentials (and tell it of the answer); on 401/403 ask
/// it, and retry if it says so.
async fn call(oauth: &OAuth, url: &str) -> Result<u16, ClientError> {
    let fetcher = Fetcher::new(Duration::from_secs(5), 1 << 20);
    for _ in 0..10 {
        let credentials = oauth.authorization(post(url)).await?;
        let mut headers = Vec::new();
        if let Some(value) = &credentials.authorization {
            headers.push((AUTHORIZATION, HeaderValue::try_from(value).expect("a header value")));
        }
        if let Some(proof) = &credentials.dpop {
            headers.push((HeaderName::from_static("dpop"), HeaderValue::try_from(proof).expect("a header value")));
        }
        let body = Some(Body::Json(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.to_owned()));
        let answer = fetcher.send(Method::POST, url, headers, body).await.expect("the resource answers");
        let status = answer.status.as_u16();
        if status == 401 || status == 403 {
            let refusal = Refusal { status, headers: &answer.headers, sent: &credentials };
            if oauth.refused(post(url), refusal).await? {
                continue;
            }
        } else {
            oauth.answered(post(url), &answer.headers);
        }
        return Ok(status);
    }
    panic!("the client kept asking to retry")
}

/// A refusal with this `WWW-Authenticate` value, of a request that carried nothing.
async fn refuse(oauth: &OAuth, url: &str, status: u16, challenge: Option<&str>) -> Result<bool, ClientError> {
    let mut headers = HeaderMap::new();
    if let Some(challenge) = challenge {
        headers.insert(WWW_AUTHENTICATE, HeaderValue::from_str(challenge).expect("a header value"));
    }
    oauth.refused(post(url), Refusal { status, headers: &headers, sent: &Credentials::default() }).await
}

fn auth_error(result: Result<u16, ClientError>) -> String {
    match result {
        Err(ClientError::Auth(why)) => why,
        other => panic!("expected an authorization error, got {other:?}"),
    }
}

#[tokio::test]
async fn the_whole_flow_ends_in_a_token_the_resource_accepts() {
    let world = World::start("").await;
    let oauth = world.oauth(code_config());
    let none = Credentials::default();
    assert_eq!(oauth.authorization(post(&world.url)).await.expect("asks"), none, "no token before the first refusal");
    assert_eq!(call(&oauth, &world.url).await.expect("authorized"), 200);
    let tokens = world.store.get(&world.url).await.expect("store").expect("kept");
    assert_eq!(tokens.issuer.as_deref(), Some(world.issuer.as_str()));
    assert!(!tokens.dpop, "the authorization server does not advertise DPoP");
    assert_eq!(oauth.authorization(post(&world.url)).await.expect("asks"), Credentials::bearer(&tokens.access_token));
    // The next call uses the kept token: no new authorization.
    assert_eq!(call(&oauth, &world.url).await.expect("authorized"), 200);
    assert_eq!(world.at("/authorize").len(), 1);
    assert!(!format!("{tokens:?}").contains(&tokens.access_token), "tokens are not in Debug output");
}

#[tokio::test]
async fn resource_metadata_comes_from_the_challenge_header() {
    let world = World::start("").await;
    let custom = world.rs.url("/custom/metadata/location.json");
    world.rs.json(
        "/custom/metadata/location.json",
        json!({ "resource": world.url, "authorization_servers": [world.issuer] }),
    );
    world.knobs().knobs.header_prm = Some(custom);
    assert_eq!(call(&world.oauth(code_config()), &world.url).await.expect("authorized"), 200);
    let paths = world.rs.paths();
    assert!(paths.contains(&"/custom/metadata/location.json".to_owned()), "{paths:?}");
    assert!(!paths.iter().any(|p| p.starts_with("/.well-known")), "no well-known probing: {paths:?}");
}

#[tokio::test]
async fn resource_metadata_falls_back_to_the_well_known_urls_in_order() {
    // Path form first.
    let world = World::start("").await;
    world.knobs().knobs.header_prm = None;
    assert_eq!(call(&world.oauth(code_config()), &world.url).await.expect("authorized"), 200);
    let paths = world.rs.paths();
    assert!(paths.contains(&"/.well-known/oauth-protected-resource/mcp".to_owned()), "{paths:?}");
    assert!(!paths.contains(&"/.well-known/oauth-protected-resource".to_owned()), "the root is not needed: {paths:?}");

    // Then the root, whose resource is the origin.
    let world = World::start("").await;
    world.knobs().knobs.header_prm = None;
    world.rs.reply("/.well-known/oauth-protected-resource/mcp", 404, "");
    world.rs.json(
        "/.well-known/oauth-protected-resource",
        json!({ "resource": world.rs.url(""), "authorization_servers": [world.issuer] }),
    );
    assert_eq!(call(&world.oauth(code_config()), &world.url).await.expect("authorized"), 200);
    let probes: Vec<String> = world.rs.paths().into_iter().filter(|p| p.starts_with("/.well-known")).collect();
    assert_eq!(probes, ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]);
    assert_eq!(world.authorization_request()["resource"], world.rs.url(""), "the resource the metadata names");
}

#[tokio::test]
async fn resource_metadata_for_another_resource_is_refused() {
    for other in ["https://evil.example.com/mcp", "SIBLING"] {
        let world = World::start("").await;
        let resource = if other == "SIBLING" { world.rs.url("/other") } else { other.to_owned() };
        world.rs.json(
            "/.well-known/oauth-protected-resource/mcp",
            json!({ "resource": resource, "authorization_servers": [world.issuer] }),
        );
        let why = auth_error(call(&world.oauth(code_config()), &world.url).await);
        assert!(why.contains("RFC 9728") && why.contains(&resource), "{why}");
        assert!(world.auth.requests().is_empty(), "the authorization server it names is never asked");
    }
}

#[tokio::test]
async fn metadata_naming_another_issuer_is_refused() {
    let world = World::start("").await;
    world.set_metadata(json!({ "issuer": "https://attacker.example.com" }));
    let why = auth_error(call(&world.oauth(code_config()), &world.url).await);
    assert!(why.contains("names issuer `https://attacker.example.com`: not used"), "{why}");
    assert_eq!(
        world.auth.paths(),
        ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"],
        "both documents tried, neither used"
    );
}

#[tokio::test]
async fn an_issuer_with_a_path_is_discovered_in_the_spec_order() {
    let world = World::start("/tenant1").await;
    world.auth.reply("/.well-known/oauth-authorization-server/tenant1", 404, "");
    world.auth.json("/tenant1/.well-known/openid-configuration", world.metadata(json!({})));
    assert_eq!(call(&world.oauth(code_config()), &world.url).await.expect("authorized"), 200);
    let discovery: Vec<String> = world.auth.paths().into_iter().filter(|p| p.contains(".well-known")).collect();
    assert_eq!(
        discovery,
        [
            "/.well-known/oauth-authorization-server/tenant1",
            "/.well-known/openid-configuration/tenant1",
            "/tenant1/.well-known/openid-configuration",
        ]
    );
    assert_eq!(world.at("/.well-known/oauth-authorization-server").len(), 0, "never the root of a path issuer");
}

#[tokio::test]
async fn pkce_and_the_resource_indicator_bind_the_two_requests() {
    let world = World::start("").await;
    assert_eq!(call(&world.oauth(code_config()), &world.url).await.expect("authorized"), 200);
    let authorization = world.authorization_request();
    assert_eq!(authorization["response_type"], "code");
    assert_eq!(authorization["client_id"], "dyn-client");
    assert_eq!(authorization["redirect_uri"], REDIRECT);
    assert_eq!(authorization["code_challenge_method"], "S256");
    assert_eq!(authorization["resource"], world.url);
    assert!(authorization["state"].len() >= 32);
    let token = world.token_requests()[0].form();
    assert_eq!(token["grant_type"], "authorization_code");
    assert_eq!(token["redirect_uri"], REDIRECT);
    assert_eq!(token["resource"], world.url);
    let verifier = &token["code_verifier"];
    assert!((43..=128).contains(&verifier.len()), "{verifier}");
    assert_eq!(URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes())), authorization["code_challenge"]);
}

#[tokio::test]
async fn the_code_flow_needs_s256_pkce() {
    for methods in [Value::Null, json!(["plain"])] {
        let world = World::start("").await;
        world.set_metadata(json!({ "code_challenge_methods_supported": methods }));
        let why = auth_error(call(&world.oauth(code_config()), &world.url).await);
        assert!(why.contains("PKCE"), "{why}");
        assert!(world.at("/authorize").is_empty() && world.at("/register").is_empty());
    }
}

#[tokio::test]
async fn a_response_with_another_state_is_refused() {
    let world = World::start("").await;
    world.knobs().knobs.wrong_state = true;
    let why = auth_error(call(&world.oauth(code_config()), &world.url).await);
    assert!(why.contains("state"), "{why}");
    assert!(world.token_requests().is_empty(), "the code is not redeemed");
}

#[tokio::test]
async fn the_issuer_in_the_response_is_checked_as_rfc_9207_says() {
    // (advertised, what the response carries, accepted)
    let cases = [
        (Some(true), Iss::Correct, true),
        (Some(true), Iss::Absent, false),
        (Some(true), Iss::Wrong, false),
        (Some(true), Iss::Normalized, false),
        (Some(false), Iss::Correct, true),
        (Some(false), Iss::Wrong, false),
        (None, Iss::Correct, true),
        (None, Iss::Wrong, false),
        (None, Iss::Normalized, false),
        (None, Iss::Absent, true),
        (Some(false), Iss::Absent, true),
    ];
    for (advertised, iss, accepted) in cases {
        let world = World::start("").await;
        world.set_metadata(json!({ "authorization_response_iss_parameter_supported": advertised }));
        world.knobs().knobs.iss = iss;
        let result = call(&world.oauth(code_config()), &world.url).await;
        let case = format!("{advertised:?} {iss:?}");
        if accepted {
            assert_eq!(result.expect(&case), 200, "{case}");
        } else {
            assert!(auth_error(result).contains("RFC 9207"), "{case}");
            assert!(world.token_requests().is_empty(), "{case}: the code is not redeemed");
        }
    }
}

#[tokio::test]
async fn an_error_response_is_reported_only_from_the_right_issuer() {
    let world = World::start("").await;
    let issuer = world.issuer.clone();
    let denied = move |iss: &str| {
        let iss = iss.to_owned();
        AuthorizationCode::new(REDIRECT, move |request: AuthorizationRequest| {
            let location = format!(
                "{REDIRECT}?error=access_denied&error_description=no&state={}&iss={}",
                request.state,
                form_urlencoded::byte_serialize(iss.as_bytes()).collect::<String>()
            );
            async move { AuthorizationResponse::from_redirect(&location) }
        })
    };
    let config = |grant| OAuthConfig::authorization_code(grant).client_id("app");
    let why = auth_error(call(&world.oauth(config(denied(&issuer))), &world.url).await);
    assert!(why.contains("refused the authorization: access_denied: no"), "{why}");
    let why = auth_error(call(&world.oauth(config(denied("https://evil.example.com"))), &world.url).await);
    assert!(why.contains("RFC 9207") && !why.contains("access_denied"), "another issuer's error is not shown: {why}");
}

#[tokio::test]
async fn scopes_come_from_the_challenge_else_the_metadata_else_none() {
    // The challenge's scope.
    let world = World::start("").await;
    world.knobs().knobs.required = vec!["mcp:basic".into()];
    world.rs.json(
        "/.well-known/oauth-protected-resource/mcp",
        json!({ "resource": world.url, "authorization_servers": [world.issuer], "scopes_supported": ["mcp:basic", "mcp:more"] }),
    );
    assert_eq!(call(&world.oauth(code_config()), &world.url).await.expect("authorized"), 200);
    assert_eq!(world.authorization_request()["scope"], "mcp:basic");

    // The resource metadata's scopes_supported, all of them.
    let world = World::start("").await;
    world.knobs().knobs.challenge_scope = false;
    world.rs.json(
        "/.well-known/oauth-protected-resource/mcp",
        json!({ "resource": world.url, "authorization_servers": [world.issuer], "scopes_supported": ["mcp:basic", "mcp:read"] }),
    );
    assert_eq!(call(&world.oauth(code_config()), &world.url).await.expect("authorized"), 200);
    assert_eq!(world.authorization_request()["scope"], "mcp:basic mcp:read");

    // Neither: no scope parameter at all (and none in the token request).
    let world = World::start("").await;
    assert_eq!(call(&world.oauth(code_config()), &world.url).await.expect("authorized"), 200);
    assert!(!world.authorization_request().contains_key("scope"));

    // Configured scopes are added; offline_access only where the authorization server lists it.
    let world = World::start("").await;
    world.knobs().knobs.required = vec!["mcp:basic".into()];
    world.set_metadata(json!({ "scopes_supported": ["mcp:basic", "offline_access"] }));
    assert_eq!(call(&world.oauth(code_config().scope(["extra"])), &world.url).await.expect("authorized"), 200);
    assert_eq!(world.authorization_request()["scope"], "mcp:basic extra offline_access");
    let world = World::start("").await;
    world.set_metadata(json!({ "scopes_supported": ["mcp:basic", "offline_access"] }));
    assert_eq!(call(&world.oauth(code_config().refresh(false)), &world.url).await.expect("authorized"), 200);
    assert!(!world.authorization_request().contains_key("scope"), "no refresh wanted, no offline_access");
}

#[tokio::test]
async fn pre_registered_clients_authenticate_as_the_server_supports() {
    let basic = format!("Basic {}", STANDARD.encode("app:s%3Acret"));
    for (methods, secret, header, post_secret) in [
        (json!(["client_secret_basic"]), Some("s:cret"), Some(basic.as_str()), None),
        (json!(["client_secret_post"]), Some("s:cret"), None, Some("s:cret")),
        (json!(["none"]), None, None, None),
    ] {
        let world = World::start("").await;
        world.set_metadata(json!({ "token_endpoint_auth_methods_supported": methods, "registration_endpoint": null }));
        let mut config = OAuthConfig::authorization_code(AuthorizationCode::headless(REDIRECT)).client_id("app");
        if let Some(secret) = secret {
            config = config.client_secret(secret);
        }
        assert_eq!(call(&world.oauth(config), &world.url).await.expect("authorized"), 200, "{methods}");
        assert_eq!(world.authorization_request()["client_id"], "app");
        let token = &world.token_requests()[0];
        let form = token.form();
        assert_eq!(token.header("authorization"), header, "{methods}");
        assert_eq!(form.get("client_secret").map(String::as_str), post_secret, "{methods}");
        // With Basic the credentials are in the header only; otherwise the body names the client.
        assert_eq!(form.get("client_id").map(String::as_str), header.is_none().then_some("app"), "{methods}");
    }
}

#[tokio::test]
async fn dynamic_registration_is_posted_and_its_client_used() {
    let world = World::start("").await;
    world.knobs().knobs.registration = json!({ "client_id": "registered-1", "client_secret": "shh", "token_endpoint_auth_method": "client_secret_post" });
    // A metadata document is configured too, but this server does not support them.
    let oauth = world.oauth(code_config().client_metadata_document(CIMD));
    assert_eq!(call(&oauth, &world.url).await.expect("authorized"), 200);
    let registration = world.at("/register");
    assert_eq!(registration.len(), 1);
    assert_eq!(registration[0].header("content-type"), Some("application/json"));
    let body: Value = serde_json::from_str(&registration[0].body).expect("JSON");
    assert_eq!(body["client_name"], "fastmcp test");
    assert_eq!(body["redirect_uris"], json!([REDIRECT]));
    assert_eq!(body["grant_types"], json!(["authorization_code", "refresh_token"]));
    assert_eq!(body["token_endpoint_auth_method"], "none");
    assert_eq!(body["application_type"], "native");
    assert_eq!(world.authorization_request()["client_id"], "registered-1");
    let form = world.token_requests()[0].form();
    assert_eq!((form["client_id"].as_str(), form["client_secret"].as_str()), ("registered-1", "shh"));

    // A second authorization (step-up) reuses the registration.
    world.knobs().knobs.required = vec!["more".into()];
    assert_eq!(call(&oauth, &world.url).await.expect("authorized"), 200);
    assert_eq!(world.at("/register").len(), 1);
}

#[tokio::test]
async fn a_client_id_metadata_document_is_used_where_supported() {
    let world = World::start("").await;
    world.set_metadata(json!({ "client_id_metadata_document_supported": true }));
    assert_eq!(call(&world.oauth(code_config().client_metadata_document(CIMD)), &world.url).await.expect("ok"), 200);
    assert_eq!(world.authorization_request()["client_id"], CIMD);
    assert!(world.at("/register").is_empty(), "no dynamic registration");
    let token = &world.token_requests()[0];
    assert_eq!((token.form()["client_id"].as_str(), token.header("authorization")), (CIMD, None));
}

#[tokio::test]
async fn registration_follows_the_spec_order() {
    // Pre-registered credentials come first…
    let world = World::start("").await;
    world.set_metadata(json!({ "client_id_metadata_document_supported": true }));
    let config = code_config().client_metadata_document(CIMD).client_id("pre");
    assert_eq!(call(&world.oauth(config), &world.url).await.expect("ok"), 200);
    assert_eq!(world.authorization_request()["client_id"], "pre");

    // …unless they belong to another authorization server.
    let world = World::start("").await;
    world.set_metadata(json!({ "client_id_metadata_document_supported": true }));
    let config =
        code_config().client_metadata_document(CIMD).client_id("pre").registered_with("https://other.example.com");
    assert_eq!(call(&world.oauth(config), &world.url).await.expect("ok"), 200);
    assert_eq!(world.authorization_request()["client_id"], CIMD);

    // Nothing applies: the error says why each did not.
    let world = World::start("").await;
    world.set_metadata(json!({ "registration_endpoint": null }));
    let config = OAuthConfig::authorization_code(AuthorizationCode::headless(REDIRECT))
        .client_metadata_document(CIMD)
        .dynamic_registration(ClientMetadata::new("x"));
    let why = auth_error(call(&world.oauth(config), &world.url).await);
    assert!(
        why.contains("does not support client ID metadata documents") && why.contains("no registration_endpoint"),
        "{why}"
    );
}

#[tokio::test]
async fn a_refresh_token_is_used_before_a_new_authorization() {
    let world = World::start("").await;
    world.knobs().knobs.refresh = true;
    let oauth = world.oauth(code_config());
    assert_eq!(call(&oauth, &world.url).await.expect("authorized"), 200);

    // The server forgets the access token: the 401 is answered with a refresh.
    world.knobs().books.tokens.clear();
    assert_eq!(call(&oauth, &world.url).await.expect("refreshed"), 200);
    assert_eq!(world.at("/authorize").len(), 1, "no second authorization");
    let refresh = world.token_requests()[1].form();
    assert_eq!(refresh["grant_type"], "refresh_token");
    assert_eq!(refresh["refresh_token"], "rt-2");
    assert_eq!(refresh["resource"], world.url);
    assert_eq!(refresh["client_id"], "dyn-client");

    // An expired token is refreshed before it is sent.
    world.knobs().knobs.expires_in = 0;
    world.knobs().books.tokens.clear();
    assert_eq!(call(&oauth, &world.url).await.expect("refreshed"), 200);
    let before = world.token_requests().len();
    let header = oauth.authorization(post(&world.url)).await.expect("asks").authorization.expect("a token");
    assert_eq!(world.token_requests().len(), before + 1, "refreshed on the way out");
    assert!(world.knobs().books.tokens.contains_key(header.trim_start_matches("Bearer ")));
    assert_eq!(world.at("/authorize").len(), 1);

    // A refresh the server refuses falls back to a new authorization.
    world.knobs().knobs.expires_in = 3600;
    world.knobs().books.refresh.clear();
    world.knobs().books.tokens.clear();
    assert_eq!(call(&oauth, &world.url).await.expect("authorized"), 200);
    assert_eq!(world.at("/authorize").len(), 2);
}

#[tokio::test]
async fn client_credentials_ask_for_the_client_itself() {
    let world = World::start("").await;
    world.knobs().knobs.required = vec!["mcp:tools".into()];
    world.set_metadata(json!({ "token_endpoint_auth_methods_supported": ["client_secret_basic"] }));
    let oauth = world.oauth(OAuthConfig::client_credentials("svc", "secret"));
    assert_eq!(call(&oauth, &world.url).await.expect("authorized"), 200);
    assert!(world.at("/authorize").is_empty() && world.at("/register").is_empty());
    let token = &world.token_requests()[0];
    let form = token.form();
    assert_eq!(form["grant_type"], "client_credentials");
    assert_eq!(form["scope"], "mcp:tools");
    assert_eq!(form["resource"], world.url);
    assert_eq!(token.header("authorization"), Some(format!("Basic {}", STANDARD.encode("svc:secret")).as_str()));

    // A step-up is one more client credentials request, with the union of the scopes.
    world.knobs().knobs.required = vec!["mcp:tools".into(), "mcp:admin".into()];
    assert_eq!(call(&oauth, &world.url).await.expect("stepped up"), 200);
    assert_eq!(world.token_requests()[1].form()["scope"], "mcp:tools mcp:admin");
}

#[tokio::test]
async fn step_up_asks_for_the_union_and_stops_at_the_limit() {
    let world = World::start("").await;
    world.knobs().knobs.required = vec!["mcp:basic".into()];
    let oauth = world.oauth(code_config());
    assert_eq!(call(&oauth, &world.url).await.expect("authorized"), 200);

    // The next operation needs another scope: the 403 names only it; the client keeps what it had.
    world.knobs().knobs.required = vec!["mcp:write".into()];
    assert_eq!(call(&oauth, &world.url).await.expect("stepped up"), 200);
    let requests = world.at("/authorize");
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].params()["scope"], "mcp:basic mcp:write");

    // A server that keeps refusing (the scope is never granted) is given three authorizations, no more.
    let world = World::start("").await;
    world.knobs().knobs.required = vec!["mcp:admin".into()];
    world.knobs().knobs.withhold = vec!["mcp:admin".into()];
    let why = auth_error(call(&world.oauth(code_config()), &world.url).await);
    assert!(why.contains("giving up") && why.contains("403"), "{why}");
    assert_eq!(world.at("/authorize").len(), 3);
    assert_eq!(world.at("/authorize")[2].params()["scope"], "mcp:admin");
}

#[tokio::test]
async fn refusals_that_wait_for_another_retry_with_its_credentials() {
    let world = World::start("").await;
    let oauth = world.oauth(code_config());
    let challenge =
        format!("Bearer resource_metadata=\"{}\"", world.rs.url("/.well-known/oauth-protected-resource/mcp"));
    let (a, b) = tokio::join!(
        refuse(&oauth, &world.url, 401, Some(&challenge)),
        refuse(&oauth, &world.url, 401, Some(&challenge))
    );
    assert!(a.expect("renewed") && b.expect("renewed"));
    assert_eq!(world.at("/authorize").len(), 1, "one authorization for both");
    assert_eq!(call(&oauth, &world.url).await.expect("authorized"), 200);
}

#[tokio::test]
async fn a_plain_403_is_final() {
    let world = World::start("").await;
    let oauth = world.oauth(code_config());
    assert!(!refuse(&oauth, &world.url, 403, Some("Bearer error=\"invalid_token\"")).await.expect("no error"));
    assert!(!refuse(&oauth, &world.url, 500, None).await.expect("no error"));
    assert!(world.auth.requests().is_empty() && world.rs.requests().is_empty());
}

#[tokio::test]
async fn insecure_authorization_servers_are_refused() {
    let world = World::start("").await;
    world.rs.json(
        "/.well-known/oauth-protected-resource/mcp",
        json!({ "resource": world.url, "authorization_servers": ["http://as.example.com"] }),
    );
    let why = auth_error(call(&world.oauth(code_config()), &world.url).await);
    assert!(why.contains("not HTTPS"), "{why}");
    let world = World::start("").await;
    world.set_metadata(json!({ "token_endpoint": "http://as.example.com/token" }));
    let why = auth_error(call(&world.oauth(code_config()), &world.url).await);
    assert!(why.contains("token_endpoint") && why.contains("not HTTPS"), "{why}");
    assert!(why.starts_with(&format!("for {}: ", world.url)), "errors name the server: {why}");
}

#[test]
fn redirects_are_read_as_authorization_responses() {
    let response =
        AuthorizationResponse::from_redirect("http://127.0.0.1:3000/cb?code=c%2B1&state=s&iss=https%3A%2F%2Fas")
            .expect("parses");
    assert_eq!(
        (response.code.as_str(), response.state.as_str(), response.iss.as_deref()),
        ("c+1", "s", Some("https://as"))
    );
    assert!(!format!("{response:?}").contains("c+1"), "the code is not in Debug output");
    let denied = AuthorizationResponse::from_redirect("/cb?error=access_denied&state=s").expect("parses");
    assert_eq!(denied.error.as_deref(), Some("access_denied"));
    assert!(AuthorizationResponse::from_redirect("http://127.0.0.1:3000/cb?state=s").is_err());
}

/// The public key of a test key, to check what the client signed with it.
fn verifying_key(pem: &str, algorithm: Algorithm) -> jsonwebtoken::DecodingKey {
    let (_, der) = pkcs8::der::Document::from_pem(pem).expect("PEM");
    let private = jsonwebtoken::EncodingKey::from_ec_der(der.as_bytes());
    let jwk = jsonwebtoken::jwk::Jwk::from_encoding_key(&private, algorithm).expect("a public JWK");
    jsonwebtoken::DecodingKey::from_jwk(&jwk).expect("a key")
}

#[tokio::test]
async fn private_key_jwt_authenticates_the_client_with_a_signed_assertion() {
    let world = World::start("").await;
    world.knobs().knobs.required = vec!["mcp:tools".into()];
    world.set_metadata(json!({
        "token_endpoint_auth_methods_supported": ["private_key_jwt"],
        "token_endpoint_auth_signing_alg_values_supported": ["ES256"],
    }));
    let key = SigningKey::from_pem(Algorithm::ES256, EC_PEM).expect("a key").key_id("k1");
    let oauth = world.oauth(OAuthConfig::client_credentials_jwt("svc", key));
    assert_eq!(call(&oauth, &world.url).await.expect("authorized"), 200);
    let token = &world.token_requests()[0];
    let form = token.form();
    assert_eq!(form["grant_type"], "client_credentials");
    assert_eq!(form["client_id"], "svc");
    assert_eq!(form["client_assertion_type"], "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    assert_eq!((token.header("authorization"), form.get("client_secret")), (None, None), "no secret anywhere");

    // RFC 7523 §3: by and about the client, for this authorization server (its issuer), short-lived.
    let mut validation = jsonwebtoken::Validation::new(Algorithm::ES256);
    validation.set_audience(&[&world.issuer]);
    validation.set_issuer(&["svc"]);
    validation.set_required_spec_claims(&["iss", "sub", "aud", "exp"]);
    let assertion = &form["client_assertion"];
    let verified =
        jsonwebtoken::decode::<Value>(assertion, &verifying_key(EC_PEM, Algorithm::ES256), &validation).expect("valid");
    assert_eq!(verified.header.kid.as_deref(), Some("k1"));
    let claims = verified.claims;
    assert_eq!(claims["sub"], "svc");
    assert_eq!(claims["exp"].as_u64().expect("exp") - claims["iat"].as_u64().expect("iat"), 60);

    // Each request signs anew: a step-up's assertion has another jti.
    world.knobs().knobs.required = vec!["mcp:tools".into(), "mcp:admin".into()];
    assert_eq!(call(&oauth, &world.url).await.expect("stepped up"), 200);
    let again = world.token_requests()[1].form();
    let jti = |jwt: &str| jsonwebtoken::dangerous::insecure_decode::<Value>(jwt).expect("a JWT").claims["jti"].clone();
    assert_ne!(jti(&again["client_assertion"]), jti(assertion));
}

#[tokio::test]
async fn private_key_jwt_is_not_sent_where_the_server_does_not_take_it() {
    let key = || SigningKey::from_pem(Algorithm::ES256, EC_PEM).expect("a key");
    let world = World::start("").await;
    world.set_metadata(json!({ "token_endpoint_auth_methods_supported": ["client_secret_basic"] }));
    let why = auth_error(call(&world.oauth(OAuthConfig::client_credentials_jwt("svc", key())), &world.url).await);
    assert!(why.contains("does not take private_key_jwt") && why.contains("client_secret_basic"), "{why}");
    assert!(world.token_requests().is_empty(), "no token request");

    let world = World::start("").await;
    world.set_metadata(json!({
        "token_endpoint_auth_methods_supported": ["private_key_jwt"],
        "token_endpoint_auth_signing_alg_values_supported": ["RS256"],
    }));
    let why = auth_error(call(&world.oauth(OAuthConfig::client_credentials_jwt("svc", key())), &world.url).await);
    assert!(why.contains("takes no ES256 client assertions"), "{why}");
}

#[test]
fn signing_keys_are_checked_when_read() {
    let rsa = include_str!("../../auth/testdata/rsa-a.pem");
    let ed = include_str!("../../auth/testdata/ed25519.pem");
    for (algorithm, pem) in
        [(Algorithm::RS256, rsa), (Algorithm::PS256, rsa), (Algorithm::EdDSA, ed), (Algorithm::ES256, EC_PEM)]
    {
        let key = SigningKey::from_pem(algorithm, pem).unwrap_or_else(|e| panic!("{algorithm:?}: {e}"));
        assert!(!format!("{key:?}").contains("BEGIN"), "no key material in Debug output");
    }
    let (_, der) = pkcs8::der::Document::from_pem(EC_PEM).expect("PEM");
    assert!(SigningKey::from_der(Algorithm::ES256, der.as_bytes()).is_ok());
    let refused = |algorithm, pem: &str| match SigningKey::from_pem(algorithm, pem) {
        Err(ClientError::Auth(why)) => why,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert_eq!(refused(Algorithm::RS256, EC_PEM), "the private key is an EC key, which cannot sign RS256");
    assert!(refused(Algorithm::ES384, EC_PEM).contains("does not sign ES384"), "a P-256 key for ES384");
    assert!(refused(Algorithm::HS256, EC_PEM).contains("shared-secret"));
    assert!(refused(Algorithm::ES256, "not a key").contains("not readable PEM"));
    let sec1 = "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n";
    assert!(refused(Algorithm::ES256, sec1).contains("openssl pkcs8 -topk8"));
}

/// A file of the test's own, gone when it ends.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(text: &str) -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let name = format!("fastmcp-assertion-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::SeqCst));
        let file = Self(std::env::temp_dir().join(name));
        file.write(text);
        file
    }

    fn write(&self, text: &str) {
        std::fs::write(&self.0, text).expect("written");
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[tokio::test]
async fn the_jwt_bearer_grant_presents_the_workload_token_read_anew_each_time() {
    let world = World::start("").await;
    world.knobs().knobs.required = vec!["mcp:tools".into()];
    let file = TempFile::new("eyJ.workload-1.sig\n");
    let oauth = world.oauth(OAuthConfig::jwt_bearer(Assertion::file(&file.0)));
    assert_eq!(call(&oauth, &world.url).await.expect("authorized"), 200);
    let token = &world.token_requests()[0];
    let form = token.form();
    assert_eq!(form["grant_type"], JWT_BEARER);
    assert_eq!(form["assertion"], "eyJ.workload-1.sig", "the file's token, without its newline");
    assert_eq!((form["scope"].as_str(), form["resource"].as_str()), ("mcp:tools", world.url.as_str()));
    // A workload needs no registration: it names no client.
    assert_eq!((form.get("client_id"), token.header("authorization")), (None, None));
    assert!(world.at("/register").is_empty() && world.at("/authorize").is_empty());

    // The platform rotated the token: the next grant presents the new one.
    file.write("eyJ.workload-2.sig");
    world.knobs().books.tokens.clear();
    assert_eq!(call(&oauth, &world.url).await.expect("authorized again"), 200);
    assert_eq!(world.token_requests()[1].form()["assertion"], "eyJ.workload-2.sig");

    // A provider of one's own is told what the JWT is for.
    let world = World::start("").await;
    let asked = Arc::new(Mutex::new(None));
    let seen = asked.clone();
    let assertion = Assertion::from_fn(move |request: AssertionRequest| {
        *seen.lock().expect("lock") = Some((request.issuer, request.resource));
        async { Ok("eyJ.minted.sig".to_owned()) }
    });
    assert_eq!(call(&world.oauth(OAuthConfig::jwt_bearer(assertion)), &world.url).await.expect("authorized"), 200);
    assert_eq!(asked.lock().expect("lock").clone(), Some((world.issuer.clone(), world.url.clone())));
    assert_eq!(world.token_requests()[0].form()["assertion"], "eyJ.minted.sig");
}

#[tokio::test]
async fn a_refused_jwt_bearer_grant_is_final() {
    let world = World::start("").await;
    let oauth = world.oauth(OAuthConfig::jwt_bearer(Assertion::fixed(REFUSED_ASSERTION)));
    let why = auth_error(call(&oauth, &world.url).await);
    assert!(why.contains("the token request (JWT bearer) failed") && why.contains("HTTP 400 (invalid_grant)"), "{why}");
    // No retry with the same JWT, no other grant.
    assert_eq!(world.token_requests().len(), 1);
    assert!(world.at("/authorize").is_empty());

    let file = TempFile::new("  \n");
    let why = auth_error(call(&world.oauth(OAuthConfig::jwt_bearer(Assertion::file(&file.0))), &world.url).await);
    assert!(why.ends_with(&format!("the assertion file `{}` is empty", file.0.display())), "{why}");
    assert_eq!(world.token_requests().len(), 1, "nothing sent without a JWT");
}

const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// An enterprise IdP whose token endpoint exchanges ID tokens for the ID-JAG `jag-1`, issued as `issued`.
async fn identity_provider(issued: &'static str) -> (MockAs, String) {
    let idp = MockAs::start().await;
    let issuer = idp.url("");
    // OpenID Connect discovery only: the client tries RFC 8414's location first.
    idp.json(
        "/.well-known/openid-configuration",
        json!({ "issuer": issuer, "token_endpoint": idp.url("/token"), "token_endpoint_auth_methods_supported": ["none"] }),
    );
    idp.handle_full("/token", move |seen| {
        let form = seen.form();
        if form.get("subject_token").map(String::as_str) != Some("id-token") {
            return oauth_error(400, "invalid_grant");
        }
        Reply::json(200, &json!({ "access_token": "jag-1", "issued_token_type": issued, "token_type": "N_A" }))
    });
    (idp, issuer)
}

#[tokio::test]
async fn enterprise_managed_authorization_exchanges_the_id_token_for_an_id_jag() {
    let world = World::start("").await;
    world.knobs().knobs.required = vec!["mcp:tools".into()];
    world.set_metadata(json!({ "token_endpoint_auth_methods_supported": ["client_secret_basic"] }));
    let (idp, idp_issuer) = identity_provider(ID_JAG).await;
    let provider = IdentityProvider::new(&idp_issuer, "idp-client", Assertion::fixed("id-token"));
    let config = OAuthConfig::enterprise(provider).client_id("mcp-client").client_secret("s");
    assert_eq!(call(&world.oauth(config), &world.url).await.expect("authorized"), 200);

    // At the IdP (RFC 8693): the ID token for an ID-JAG meant for the MCP server's authorization server.
    let exchanges: Vec<Seen> = idp.requests().into_iter().filter(|seen| seen.path == "/token").collect();
    assert_eq!(exchanges.len(), 1);
    let form = exchanges[0].form();
    assert_eq!(form["grant_type"], "urn:ietf:params:oauth:grant-type:token-exchange");
    assert_eq!(form["requested_token_type"], ID_JAG);
    assert_eq!((form["audience"].as_str(), form["resource"].as_str()), (world.issuer.as_str(), world.url.as_str()));
    assert_eq!(form["subject_token"], "id-token");
    assert_eq!(form["subject_token_type"], "urn:ietf:params:oauth:token-type:id_token");
    assert_eq!((form["scope"].as_str(), form["client_id"].as_str()), ("mcp:tools", "idp-client"));

    // At the MCP server's authorization server: the ID-JAG as a JWT bearer grant, the client authenticated.
    let token = &world.token_requests()[0];
    let form = token.form();
    assert_eq!((form["grant_type"].as_str(), form["assertion"].as_str()), (JWT_BEARER, "jag-1"));
    assert_eq!(form["resource"], world.url);
    assert_eq!(token.header("authorization"), Some(format!("Basic {}", STANDARD.encode("mcp-client:s")).as_str()));
    assert!(world.at("/authorize").is_empty());
}

#[tokio::test]
async fn an_exchange_that_issues_no_id_jag_goes_no_further() {
    let world = World::start("").await;
    let (_idp, idp_issuer) = identity_provider("urn:ietf:params:oauth:token-type:access_token").await;
    let provider = IdentityProvider::new(&idp_issuer, "idp-client", Assertion::fixed("id-token"));
    let config = OAuthConfig::enterprise(provider).client_id("mcp-client").client_secret("s");
    let why = auth_error(call(&world.oauth(config), &world.url).await);
    assert!(
        why.ends_with(&format!(
            "the identity provider `{idp_issuer}`: the token exchange issued a \
             `urn:ietf:params:oauth:token-type:access_token`, not an ID-JAG ({ID_JAG})"
        )),
        "{why}"
    );
    assert!(world.token_requests().is_empty(), "nothing presented to the MCP server's authorization server");
}

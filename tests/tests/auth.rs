//! Authorization end to end: the `auth` example (and the `axum` example, protected) against a real OAuth
//! authorization server — `oauth2-mock-server`, which signs JWTs and serves discovery and JWKS — over real
//! sockets, in both eras, and on stdio with the token from the environment.

use fastmcp::auth::{ParsedChallenge, parse_challenges};
use fastmcp_tests::oauth::{Mint, MockAs};
use fastmcp_tests::{HttpReply, HttpServer, StdioClient, example_bin, first_text, modern_meta};
use serde_json::{Value, json};

const ELICIT: &str = r#"{"elicitation": {}}"#;

struct Fixture {
    auth: MockAs,
    server: HttpServer,
    resource: String,
}

async fn fixture() -> Fixture {
    let auth = MockAs::start().await;
    let server = HttpServer::spawn_with_env(example_bin("auth"), &[("FASTMCP_AUTH_ISSUER", &auth.issuer())]).await;
    let resource = format!("http://{}/mcp", server.addr);
    Fixture { auth, server, resource }
}

impl Fixture {
    /// A token for `sub` with these scopes, issued for this server by its authorization server.
    async fn token(&self, sub: &str, scope: &str) -> String {
        self.token_with(sub, scope, Mint::new()).await
    }

    async fn token_with(&self, sub: &str, scope: &str, options: Mint) -> String {
        let claims = json!({
            "iss": self.auth.issuer(), "sub": sub, "aud": self.resource, "scope": scope, "client_id": "test-client",
        });
        self.auth.mint_with(claims, options).await
    }

    /// A modern request with `token` as its bearer.
    async fn modern(&self, token: &str, id: i64, method: &str, params: Value) -> HttpReply {
        let caps: Value = serde_json::from_str(ELICIT).unwrap();
        self.modern_declaring(token, id, method, params, caps).await
    }

    async fn modern_declaring(&self, token: &str, id: i64, method: &str, params: Value, caps: Value) -> HttpReply {
        let bearer = format!("Bearer {token}");
        self.server.modern_with(id, method, params, caps, &[("Authorization", &bearer)]).await
    }

    /// `initialize` on a new legacy session as `token`'s holder; returns the session id.
    async fn open_session(&self, token: &str) -> String {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "t", "version": "0"}}});
        let reply = self.server.post(&[("Authorization", &format!("Bearer {token}"))], &init).await;
        assert_eq!(reply.status, 200, "{reply:?}");
        reply.header("mcp-session-id").expect("a session id").to_owned()
    }

    async fn in_session(&self, token: &str, session: &str, id: i64, method: &str, params: Value) -> HttpReply {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let bearer = format!("Bearer {token}");
        let headers =
            [("Authorization", bearer.as_str()), ("Mcp-Session-Id", session), ("MCP-Protocol-Version", "2025-11-25")];
        self.server.post(&headers, &body).await
    }
}

/// The response's one `Bearer` challenge.
fn challenge(reply: &HttpReply) -> ParsedChallenge {
    let value = reply.header("www-authenticate").unwrap_or_else(|| panic!("no WWW-Authenticate in {reply:?}"));
    let mut challenges = parse_challenges(value).unwrap_or_else(|| panic!("unparsable challenge {value:?}"));
    assert_eq!(challenges.len(), 1, "{value}");
    let challenge = challenges.remove(0);
    assert!(challenge.scheme.eq_ignore_ascii_case("bearer"), "{value}");
    challenge
}

fn tool_names(reply: &HttpReply) -> Vec<String> {
    let response = reply.response();
    let tools = response["result"]["tools"].as_array().unwrap_or_else(|| panic!("no tools in {response}"));
    tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn metadata_names_the_resource_and_its_authorization_server_at_both_well_known_paths() {
    let f = fixture().await;
    for path in ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"] {
        let reply = f.server.send_to("GET", path, &[], "").await;
        assert_eq!(reply.status, 200, "{path}: {reply:?}");
        let doc = reply.json();
        assert_eq!(doc["resource"], f.resource.as_str(), "{doc}");
        assert_eq!(doc["authorization_servers"], json!([f.auth.issuer()]), "{doc}");
        assert_eq!(doc["scopes_supported"], json!(["mcp"]), "{doc}");
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]), "{doc}");
        assert_eq!(reply.header("access-control-allow-origin"), Some("*"), "{reply:?}");
    }
}

#[tokio::test]
async fn a_request_without_a_bearer_token_in_its_authorization_header_is_401_with_the_way_to_get_one() {
    let f = fixture().await;
    let metadata = format!("http://{}/.well-known/oauth-protected-resource/mcp", f.server.addr);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": modern_meta(json!({}))}});
    let good = f.token("alice", "mcp").await;
    let query = format!("/mcp?access_token={good}");
    let cases = [
        ("no header", None, "/mcp"),
        ("another scheme", Some("Basic dXNlcjpwYXNz"), "/mcp"),
        ("the token in the query string", None, query.as_str()),
    ];
    for (what, authorization, path) in cases {
        let mut headers = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/list"),
        ];
        headers.extend(authorization.map(|value| ("Authorization", value)));
        let reply = f.server.send_to("POST", path, &headers, &list.to_string()).await;
        assert_eq!(reply.status, 401, "{what}: {reply:?}");
        let params = challenge(&reply);
        assert_eq!(params.param("resource_metadata"), Some(metadata.as_str()), "{what}: {params:?}");
        assert_eq!(params.param("scope"), Some("mcp"), "{what}: {params:?}");
        assert_eq!(params.param("error"), None, "no token is not an invalid token: {params:?}");
    }

    let garbage = f.modern("not-a-jwt", 2, "tools/list", json!({})).await;
    assert_eq!(garbage.status, 401, "{garbage:?}");
    assert_eq!(challenge(&garbage).param("error"), Some("invalid_token"));

    let two = f.server.post(&[("Authorization", "Bearer a"), ("Authorization", "Bearer b")], &list).await;
    assert_eq!(two.status, 400, "{two:?}");
    assert_eq!(challenge(&two).param("error"), Some("invalid_request"));

    let ok = f.modern(&good, 3, "tools/list", json!({})).await;
    assert_eq!(ok.status, 200, "{ok:?}");
}

#[tokio::test]
async fn tokens_not_issued_for_this_server_by_its_authorization_server_are_401_invalid_token() {
    let f = fixture().await;
    let now = json!({"iss": f.auth.issuer(), "sub": "mallory", "aud": f.resource, "scope": "mcp"});
    let with = |key: &str, value: Value| {
        let mut claims = now.clone();
        claims[key] = value;
        claims
    };
    let cases = [
        ("a bad signature", f.auth.mint_with(now.clone(), Mint::new().untrusted_key()).await),
        ("another issuer", f.auth.mint(with("iss", json!("https://evil.example.com"))).await),
        ("another audience", f.auth.mint(with("aud", json!("https://other.example.com/mcp"))).await),
        ("expired", f.auth.mint_with(now.clone(), Mint::new().expired()).await),
        ("not yet valid", f.auth.mint_with(now.clone(), Mint::new().not_before_in(3600)).await),
        ("alg none", f.auth.mint_with(now.clone(), Mint::new().unsigned()).await),
        (
            "HS256 keyed with the public key (key confusion)",
            f.auth.mint_with(now.clone(), Mint::new().alg("HS256")).await,
        ),
        (
            "HS256 with a guessed secret",
            f.auth.mint_with(now.clone(), Mint::new().alg("HS256").hmac_secret("secret")).await,
        ),
        ("an unknown key id", f.auth.mint_with(now.clone(), Mint::new().kid("no-such-key")).await),
    ];
    for (what, token) in cases {
        let reply = f.modern(&token, 1, "tools/call", json!({"name": "whoami"})).await;
        assert_eq!(reply.status, 401, "{what}: {reply:?}");
        let params = challenge(&reply);
        assert_eq!(params.param("error"), Some("invalid_token"), "{what}: {params:?}");
        assert!(!reply.body.contains("mallory"), "{what}: nothing of the handler ran: {reply:?}");
    }
}

#[tokio::test]
async fn a_key_rotated_in_at_the_authorization_server_is_fetched_on_its_first_unknown_key_id() {
    let f = fixture().await;
    let before = f.token("alice", "mcp").await;
    assert_eq!(f.modern(&before, 1, "tools/call", json!({"name": "whoami"})).await.status, 200);
    let kid = f.auth.rotate().await;
    let after = f.token("alice", "mcp").await;
    let reply = f.modern(&after, 2, "tools/call", json!({"name": "whoami"})).await;
    assert_eq!(reply.status, 200, "a token signed with the new key {kid}: {reply:?}");
    assert_eq!(first_text(&reply.response()["result"]), "alice");
}

#[tokio::test]
async fn scopes_decide_what_a_caller_sees_and_may_call_and_a_missing_one_is_named_for_step_up() {
    let f = fixture().await;
    let basic = f.token("alice", "mcp").await;
    let admin = f.token("root", "mcp admin deploy:write").await;

    let listed = f.modern(&basic, 1, "tools/list", json!({})).await;
    assert_eq!(tool_names(&listed), ["whoami"], "{listed:?}");
    assert_eq!(listed.response()["result"]["cacheScope"], "private", "a list that varies by caller is private");
    assert_eq!(tool_names(&f.modern(&admin, 2, "tools/list", json!({})).await), ["whoami", "admin_report", "deploy"]);

    let refused = f.modern(&basic, 3, "tools/call", json!({"name": "admin_report"})).await;
    assert_eq!(refused.status, 403, "{refused:?}");
    let params = challenge(&refused);
    assert_eq!(params.param("error"), Some("insufficient_scope"), "{params:?}");
    assert_eq!(params.param("scope"), Some("admin"), "{params:?}");
    assert!(params.param("resource_metadata").is_some(), "{params:?}");
    let error = &refused.json()["error"];
    assert_eq!(
        (error["code"].as_i64(), error["message"].as_str()),
        (Some(-32600), Some("Missing required scope: \"admin\""))
    );
    assert_eq!(refused.json()["id"], 3, "{refused:?}");

    let report = f.modern(&admin, 4, "tools/call", json!({"name": "admin_report"})).await;
    assert_eq!(report.status, 200, "{report:?}");
    assert!(first_text(&report.response()["result"]).contains("admin"), "{report:?}");

    // The server's own required scope.
    let bare = f.token("alice", "deploy:write").await;
    let reply = f.modern(&bare, 5, "tools/list", json!({})).await;
    assert_eq!(reply.status, 403, "{reply:?}");
    assert_eq!(challenge(&reply).param("scope"), Some("mcp"));
}

#[tokio::test]
async fn resources_and_templates_are_scoped_like_tools() {
    let f = fixture().await;
    let basic = f.token("alice", "mcp").await;
    let admin = f.token("root", "mcp admin").await;
    let templates = |reply: &HttpReply| reply.response()["result"]["resourceTemplates"].as_array().unwrap().len();
    assert_eq!(templates(&f.modern(&basic, 1, "resources/templates/list", json!({})).await), 0);
    assert_eq!(templates(&f.modern(&admin, 2, "resources/templates/list", json!({})).await), 1);
    let refused = f.modern(&basic, 3, "resources/read", json!({"uri": "audit://monday"})).await;
    assert_eq!(refused.status, 403, "{refused:?}");
    assert_eq!(challenge(&refused).param("scope"), Some("admin"));
    let read = f.modern(&admin, 4, "resources/read", json!({"uri": "audit://monday"})).await;
    assert_eq!(read.response()["result"]["contents"][0]["text"], "monday: no incidents.", "{read:?}");
    assert_eq!(read.response()["result"]["cacheScope"], "private", "{read:?}");
}

#[tokio::test]
async fn an_authorization_server_that_cannot_be_reached_is_503_not_401() {
    let auth = MockAs::start().await;
    // An issuer nothing listens on: its keys can't be fetched, so no token can be checked.
    let server =
        HttpServer::spawn_with_env(example_bin("auth"), &[("FASTMCP_AUTH_ISSUER", "http://127.0.0.1:9")]).await;
    let resource = format!("http://{}/mcp", server.addr);
    let token = auth.mint(json!({"iss": "http://127.0.0.1:9", "sub": "alice", "aud": resource, "scope": "mcp"})).await;
    let bearer = format!("Bearer {token}");
    let reply = server.modern_with(1, "tools/list", json!({}), json!({}), &[("Authorization", &bearer)]).await;
    assert_eq!(reply.status, 503, "{reply:?}");
    assert!(reply.header("www-authenticate").is_none(), "the client's token is not at fault: {reply:?}");
}

#[tokio::test]
async fn a_flow_resumes_only_for_the_principal_that_started_it() {
    let f = fixture().await;
    let alice = f.token("alice", "mcp deploy:write").await;
    let call = json!({"name": "deploy", "arguments": {"service": "api", "replicas": 2}});
    let first = f.modern(&alice, 1, "tools/call", call.clone()).await;
    let result = first.response()["result"].clone();
    assert_eq!(result["resultType"], "input_required", "{first:?}");
    let key = result["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let mut retry = call;
    retry["requestState"] = result["requestState"].clone();
    retry["inputResponses"] = json!({ key: {"action": "accept", "content": {"confirm": true}} });

    let bob = f.token("bob", "mcp deploy:write").await;
    let stolen = f.modern(&bob, 2, "tools/call", retry.clone()).await;
    let error = &stolen.response()["error"];
    assert_eq!(error["code"], -32602, "another user's token can't resume alice's flow: {stolen:?}");
    assert_eq!(error["message"], "Invalid or expired requestState", "{stolen:?}");

    let refreshed = f.token_with("alice", "mcp deploy:write", Mint::new().expires_in(7200)).await;
    assert_ne!(refreshed, alice);
    let done = f.modern(&refreshed, 3, "tools/call", retry).await;
    assert_eq!(first_text(&done.response()["result"]), "Deployed api x2 for alice.", "{done:?}");
}

#[tokio::test]
async fn a_task_is_found_only_by_the_principal_that_created_it() {
    let f = fixture().await;
    let caps = json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}});
    let alice = f.token("alice", "mcp deploy:write").await;
    let call = json!({"name": "deploy", "arguments": {"service": "db", "replicas": 1}});
    let created = f.modern_declaring(&alice, 1, "tools/call", call, caps.clone()).await;
    let task = created.response()["result"]["taskId"].as_str().unwrap_or_else(|| panic!("{created:?}")).to_owned();

    let bob = f.token("bob", "mcp deploy:write").await;
    let hidden = f.modern_declaring(&bob, 2, "tasks/get", json!({"taskId": task}), caps.clone()).await;
    let error = &hidden.response()["error"];
    assert!(error["message"].as_str().unwrap().starts_with("Unknown task"), "{hidden:?}");
    let cancel = f.modern_declaring(&bob, 3, "tasks/cancel", json!({"taskId": task}), caps.clone()).await;
    assert!(cancel.response()["error"].is_object(), "{cancel:?}");

    let refreshed = f.token_with("alice", "mcp deploy:write", Mint::new().expires_in(7200)).await;
    let found = f.modern_declaring(&refreshed, 4, "tasks/get", json!({"taskId": task}), caps).await;
    assert_eq!(found.response()["result"]["taskId"], task.as_str(), "{found:?}");
}

#[tokio::test]
async fn a_legacy_session_serves_only_its_opener_and_refuses_components_before_its_stream_opens() {
    let f = fixture().await;
    let alice = f.token("alice", "mcp").await;
    let session = f.open_session(&alice).await;

    let listed = f.in_session(&alice, &session, 1, "tools/list", json!({})).await;
    assert_eq!(tool_names(&listed), ["whoami"], "{listed:?}");
    let me = f.in_session(&alice, &session, 2, "tools/call", json!({"name": "whoami"})).await;
    assert_eq!(first_text(&me.response()["result"]), "alice", "{me:?}");

    let refused = f.in_session(&alice, &session, 3, "tools/call", json!({"name": "admin_report"})).await;
    assert_eq!(refused.status, 403, "refused with a status, not inside a stream: {refused:?}");
    assert_eq!(challenge(&refused).param("scope"), Some("admin"));

    let bob = f.token("bob", "mcp").await;
    let other = f.in_session(&bob, &session, 4, "tools/call", json!({"name": "whoami"})).await;
    assert_eq!(other.status, 404, "another principal finds no session: {other:?}");
    let bearer = format!("Bearer {bob}");
    let gone =
        f.server.send_to("DELETE", "/mcp", &[("Authorization", &bearer), ("Mcp-Session-Id", &session)], "").await;
    assert_eq!(gone.status, 404, "nor can it end the session: {gone:?}");
    let anonymous =
        f.server.post(&[("Mcp-Session-Id", &session)], &json!({"jsonrpc": "2.0", "id": 5, "method": "ping"})).await;
    assert_eq!(anonymous.status, 401, "{anonymous:?}");

    let refreshed = f.token_with("alice", "mcp", Mint::new().expires_in(7200)).await;
    let again = f.in_session(&refreshed, &session, 6, "tools/call", json!({"name": "whoami"})).await;
    assert_eq!(first_text(&again.response()["result"]), "alice", "a refreshed token keeps the session: {again:?}");
}

#[tokio::test]
async fn the_endpoint_mounted_in_axum_is_protected_and_routes_its_metadata() {
    let auth = MockAs::start().await;
    let app =
        HttpServer::spawn_with_env(example_bin("axum"), &[("PORT", "0"), ("FASTMCP_AUTH_ISSUER", &auth.issuer())])
            .await;
    let resource = format!("http://{}/mcp", app.addr);
    for path in ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"] {
        let doc = app.send_to("GET", path, &[], "").await;
        assert_eq!(doc.json()["resource"], resource.as_str(), "{path}: {doc:?}");
    }
    let health = app.send_to("GET", "/health", &[], "").await;
    assert_eq!(health.status, 200, "the app's own routes are the app's: {health:?}");
    let none = app.modern(1, "tools/list", json!({})).await;
    assert_eq!(none.status, 401, "{none:?}");
    let token = auth.mint(json!({"iss": auth.issuer(), "sub": "ada", "aud": resource, "scope": "mcp"})).await;
    let bearer = format!("Bearer {token}");
    let greet = app
        .modern_with(
            2,
            "tools/call",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
            json!({}),
            &[("Authorization", &bearer)],
        )
        .await;
    assert_eq!(first_text(&greet.response()["result"]), "Hello, Ada!", "{greet:?}");
}

#[tokio::test]
async fn stdio_serves_the_one_principal_whose_token_is_in_the_environment() {
    let auth = MockAs::start().await;
    let resource = "http://stdio.example/mcp";
    let token =
        auth.mint(json!({"iss": auth.issuer(), "sub": "ops", "aud": resource, "scope": "mcp deploy:write"})).await;
    let env = [
        ("FASTMCP_AUTH_ISSUER", auth.issuer()),
        ("FASTMCP_AUTH_AUDIENCE", resource.to_owned()),
        ("FASTMCP_AUTH_TOKEN", token),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut client = StdioClient::spawn_with_env(example_bin("auth"), &env);

    // Legacy.
    client.initialize("2025-11-25").await;
    let me = client.request("tools/call", json!({"name": "whoami"})).await;
    assert_eq!(first_text(&me["result"]), "ops", "{me}");
    let listed = client.request("tools/list", json!({})).await;
    let names: Vec<&str> =
        listed["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["whoami", "deploy"], "{listed}");
    let refused = client.request("tools/call", json!({"name": "admin_report"})).await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["error"]["message"], "Missing required scope: \"admin\"", "{refused}");
    assert_eq!(refused["error"]["data"]["requiredScopes"], json!(["admin"]), "{refused}");

    // Modern, on the same process.
    let refused = client.modern("tools/call", json!({"name": "admin_report"})).await;
    assert_eq!(refused["error"]["message"], "Missing required scope: \"admin\"", "{refused}");
    let me = client.modern("tools/call", json!({"name": "whoami"})).await;
    assert_eq!(first_text(&me["result"]), "ops", "{me}");

    // A subscription watches only what the caller may read.
    let listen = json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen", "params": {
        "_meta": modern_meta(json!({})),
        "notifications": {"toolsListChanged": true, "resourceSubscriptions": ["audit://monday"]}}});
    client.send(&listen).await;
    let ack = client.notification("notifications/subscriptions/acknowledged").await;
    assert_eq!(ack["params"]["notifications"]["toolsListChanged"], true, "{ack}");
    assert!(ack["params"]["notifications"].get("resourceSubscriptions").is_none(), "audit:// needs admin: {ack}");
}

#[tokio::test]
async fn stdio_refuses_to_start_with_a_token_it_does_not_accept() {
    let auth = MockAs::start().await;
    let resource = "http://stdio.example/mcp";
    let foreign =
        auth.mint(json!({"iss": auth.issuer(), "sub": "ops", "aud": "http://elsewhere/mcp", "scope": "mcp"})).await;
    let output = tokio::process::Command::new(example_bin("auth"))
        .env("FASTMCP_AUTH_ISSUER", auth.issuer())
        .env("FASTMCP_AUTH_AUDIENCE", resource)
        .env("FASTMCP_AUTH_TOKEN", foreign)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("runs");
    assert!(!output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("FASTMCP_AUTH_TOKEN was refused: The access token is invalid"), "{stderr}");
    assert!(output.stdout.is_empty(), "nothing on the protocol stream: {output:?}");
}

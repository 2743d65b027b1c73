//! Streamable HTTP over real sockets: a server binary on a loopback port, both eras on one endpoint, and
//! every error path with its status and JSON-RPC code.

use fastmcp_tests::{HttpServer, example_bin, first_text, modern_meta};
use serde_json::{Value, json};

fn init_body() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
}

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

#[tokio::test]
async fn legacy_sessions_open_serve_and_end() {
    let s = HttpServer::spawn(example_bin("quickstart")).await;
    let init = s.post(&[], &init_body()).await;
    assert_eq!(init.status, 200, "{init:?}");
    assert_eq!(init.json()["result"]["protocolVersion"], "2025-11-25");
    let session = init.header("mcp-session-id").expect("a session id").to_owned();
    assert_eq!(session.len(), 32);
    assert!(session.bytes().all(|b| (0x21..=0x7e).contains(&b)), "visible ASCII");

    let note = s
        .post(&[("Mcp-Session-Id", &session)], &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    assert_eq!(note.status, 202);
    let r = s.post(&[("Mcp-Session-Id", &session)], &call(2, "greet", json!({"name": "Web"}))).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"), "handler calls answer on a stream");
    assert_eq!(first_text(&r.response()["result"]), "Hello, Web!");
    let listed =
        s.post(&[("Mcp-Session-Id", &session)], &json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list"})).await;
    assert_eq!(listed.header("content-type"), Some("application/json"), "other methods answer with JSON");

    let missing = s.post(&[], &call(3, "greet", json!({"name": "x"}))).await;
    assert_eq!(missing.status, 400);
    let unknown = s.post(&[("Mcp-Session-Id", "nope")], &call(4, "greet", json!({"name": "x"}))).await;
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json()["error"]["code"], -32001);

    let deleted = s.send("DELETE", &[("Mcp-Session-Id", &session)], "").await;
    assert_eq!(deleted.status, 200);
    let after = s.post(&[("Mcp-Session-Id", &session)], &call(5, "greet", json!({"name": "x"}))).await;
    assert_eq!(after.status, 404, "a deleted session is gone");
    assert_eq!(s.send("DELETE", &[("Mcp-Session-Id", &session)], "").await.status, 404);
}

#[tokio::test]
async fn modern_requests_are_stateless_and_checked() {
    let s = HttpServer::spawn(example_bin("quickstart")).await;
    let r = s.modern(1, "tools/call", json!({"name": "greet", "arguments": {"name": "Modern"}})).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["result"]["resultType"], "complete");
    assert_eq!(first_text(&r.json()["result"]), "Hello, Modern!");
    assert!(r.header("mcp-session-id").is_none(), "no sessions on the modern protocol");

    let d = s.modern(2, "server/discover", json!({})).await;
    assert_eq!(d.json()["result"]["supportedVersions"], json!(["2026-07-28"]));

    // Header mismatches are 400 / -32020.
    let body = |method: &str, params: Value| {
        let mut params = params;
        params["_meta"] = modern_meta(json!({}));
        json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params})
    };
    let greet = body("tools/call", json!({"name": "greet", "arguments": {"name": "x"}}));
    for headers in [
        vec![("Mcp-Method", "tools/call"), ("Mcp-Name", "greet")],
        vec![("MCP-Protocol-Version", "2025-11-25"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "greet")],
        vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Name", "greet")],
        vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/list"), ("Mcp-Name", "greet")],
        vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call")],
        vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "add")],
    ] {
        let r = s.post(&headers, &greet).await;
        assert_eq!((r.status, r.json()["error"]["code"].clone()), (400, json!(-32020)), "{headers:?}: {r:?}");
        assert_eq!(r.json()["id"], 9);
    }
    let ok = s
        .post(&[("mcp-protocol-version", " 2026-07-28 "), ("MCP-METHOD", "tools/call"), ("mcp-name", "greet")], &greet)
        .await;
    assert_eq!(ok.status, 200, "names are case-insensitive and values are trimmed: {ok:?}");

    // A modern header with no envelope in the body: the envelope is missing (400 / -32602).
    let bare = json!({"jsonrpc": "2.0", "id": 5, "method": "server/discover", "params": {}});
    let r = s.post(&[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "server/discover")], &bare).await;
    assert_eq!((r.status, r.json()["error"]["code"].clone()), (400, json!(-32602)), "{r:?}");

    // Envelope, version, method: 400, 400, 404.
    let mut no_caps = body("tools/list", json!({}));
    no_caps["params"]["_meta"].as_object_mut().unwrap().remove("io.modelcontextprotocol/clientCapabilities");
    let r = s.post(&[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/list")], &no_caps).await;
    assert_eq!((r.status, r.json()["error"]["code"].clone()), (400, json!(-32602)));
    let mut old = body("tools/list", json!({}));
    old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let r = s.post(&[("MCP-Protocol-Version", "1900-01-01"), ("Mcp-Method", "tools/list")], &old).await;
    assert_eq!((r.status, r.json()["error"]["code"].clone()), (400, json!(-32022)));
    for removed in ["ping", "initialize", "logging/setLevel", "no/such"] {
        let r =
            s.post(&[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", removed)], &body(removed, json!({}))).await;
        assert_eq!((r.status, r.json()["error"]["code"].clone()), (404, json!(-32601)), "{removed}");
    }
    // Handler errors stay in-band.
    let r = s.modern(3, "tools/call", json!({"name": "nope", "arguments": {}})).await;
    assert_eq!((r.status, r.json()["error"]["code"].clone()), (200, json!(-32602)));
}

#[tokio::test]
async fn http_level_checks() {
    let s = HttpServer::spawn(example_bin("quickstart")).await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}});
    let evil_origin = s.post(&[("Origin", "https://evil.example")], &ping).await;
    assert_eq!(evil_origin.status, 403);
    let evil_host = s.post(&[("Host", "evil.example:8000")], &ping).await;
    assert_eq!(evil_host.status, 403);
    let local = s.post(&[("Origin", "http://localhost:3000")], &ping).await;
    assert_eq!(local.status, 200, "{local:?}");
    // A GET stream belongs to a session.
    let get = s.send("GET", &[("Accept", "text/event-stream")], "").await;
    assert_eq!((get.status, get.json()["error"]["code"].clone()), (400, json!(-32600)));
    assert_eq!(s.send("PUT", &[], "").await.status, 405);
    let text = s
        .send("POST", &[("Content-Type", "text/plain"), ("Accept", "application/json, text/event-stream")], "{}")
        .await;
    assert_eq!(text.status, 415);
    let no_accept = s.send("POST", &[("Content-Type", "application/json"), ("Accept", "text/html")], "{}").await;
    assert_eq!(no_accept.status, 406);
    let both = ("Accept", "application/json, text/event-stream");
    let garbage = s.send("POST", &[("Content-Type", "application/json"), both], "{nope").await;
    assert_eq!((garbage.status, garbage.json()["error"]["code"].clone()), (400, json!(-32700)));
    let big = "x".repeat(5 * 1024 * 1024);
    let huge = s.send("POST", &[("Content-Type", "application/json"), both], &big).await;
    assert_eq!(huge.status, 413);
    assert_eq!(s.send("POST", &[("Content-Type", "application/json")], "{}").await.status, 406);
}

#[tokio::test]
async fn a_resumable_tool_runs_its_rounds_over_http() {
    let s = HttpServer::spawn(example_bin("deploy")).await;
    let args = json!({"service": "web", "replicas": 2});
    let r1 = s.modern(1, "tools/call", json!({"name": "deploy", "arguments": args})).await.json();
    assert_eq!(r1["result"]["resultType"], "input_required", "{r1}");
    let key = r1["result"]["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let state = r1["result"]["requestState"].clone();
    let r2 = s
        .modern(
            2,
            "tools/call",
            json!({"name": "deploy", "arguments": args, "requestState": state,
            "inputResponses": { key: {"action": "accept", "content": {"confirm": true}} }}),
        )
        .await
        .json();
    let key = r2["result"]["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let r3 = s
        .modern(3, "tools/call", json!({"name": "deploy", "arguments": args, "requestState": r2["result"]["requestState"],
            "inputResponses": { key: {"role": "assistant", "content": {"type": "text", "text": "notes"}, "model": "m"} }}))
        .await
        .json();
    assert_eq!(first_text(&r3["result"]), "Deployed web x2: notes", "{r3}");
}

#[tokio::test]
async fn sessions_are_bounded_and_idle_ones_end() {
    let fixture = || std::path::PathBuf::from(env!("CARGO_BIN_EXE_fixture"));
    let s = HttpServer::spawn_with_env(fixture(), &[("FIXTURE_MAX_SESSIONS", "2")]).await;
    assert_eq!(s.post(&[], &init_body()).await.status, 200);
    assert_eq!(s.post(&[], &init_body()).await.status, 200);
    let third = s.post(&[], &init_body()).await;
    assert_eq!(third.status, 503, "{third:?}");
    assert!(third.json()["error"]["message"].as_str().unwrap().contains("FastMcp::max_sessions"));

    let s = HttpServer::spawn_with_env(fixture(), &[("FIXTURE_SESSION_IDLE_MS", "200")]).await;
    let init = s.post(&[], &init_body()).await;
    let session = init.header("mcp-session-id").unwrap().to_owned();
    let alive = s.post(&[("Mcp-Session-Id", &session)], &call(2, "marker", json!({}))).await;
    assert_eq!(alive.status, 200);
    assert_eq!(first_text(&alive.response()["result"]), "false");
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    let gone = s.post(&[("Mcp-Session-Id", &session)], &call(3, "marker", json!({}))).await;
    assert_eq!(gone.status, 404, "an idle session is reaped: {gone:?}");
}

#[tokio::test]
async fn modern_progress_and_logs_travel_on_the_requests_own_stream() {
    let s = HttpServer::spawn(std::path::PathBuf::from(env!("CARGO_BIN_EXE_fixture"))).await;
    let mut meta = modern_meta(json!({}));
    meta["progressToken"] = json!("p1");
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"_meta": meta, "name": "progress", "arguments": {"steps": 3}}});
    let r = s
        .post(&[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "progress")], &body)
        .await;
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let messages = r.messages();
    let progress: Vec<f64> = messages[..3].iter().map(|m| m["params"]["progress"].as_f64().unwrap()).collect();
    assert_eq!(progress, [1.0, 2.0, 3.0]);
    assert_eq!(messages[3]["id"], 7);
    assert_eq!(messages[3]["result"]["resultType"], "complete");
    assert!(
        messages.iter().all(|m| m.get("method") != Some(&json!("elicitation/create"))),
        "no requests on the stream"
    );
}

#[tokio::test]
async fn the_legacy_shim_asks_over_the_posts_stream() {
    let s = HttpServer::spawn(example_bin("deploy")).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}, "sampling": {}}, "clientInfo": {"name": "t", "version": "0"}}});
    let session = s.post(&[], &init).await.header("mcp-session-id").unwrap().to_owned();
    let headers = [("Mcp-Session-Id", session.as_str())];
    let mut stream = s.open(&headers, &call(2, "deploy", json!({"service": "api", "replicas": 2}))).await;
    assert_eq!(stream.status, 200);
    let ask = stream.next().await.expect("an elicitation request");
    assert_eq!(ask["method"], "elicitation/create");
    let answer =
        json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"confirm": true}}});
    assert_eq!(s.post(&headers, &answer).await.status, 202);
    let ask = stream.next().await.expect("a sampling request");
    assert_eq!(ask["method"], "sampling/createMessage");
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"role": "assistant", "content": {"type": "text", "text": "notes"}, "model": "m"}});
    assert_eq!(s.post(&headers, &answer).await.status, 202);
    let done = stream.next().await.expect("the result");
    assert_eq!(done["id"], 2);
    assert_eq!(first_text(&done["result"]), "Deployed api x2: notes");
    assert!(stream.next().await.is_none(), "the stream ends after the response");
}

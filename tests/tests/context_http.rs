//! The request context over Streamable HTTP, in every cell where it differs from stdio: the HTTP request a
//! handler sees (credentials withheld) on modern requests, legacy sessions and legacy requests served
//! alone; session state and `on_close` (a silent no-op without a session, once per callback where there is
//! one); and a server without sessions withdrawing `resources.subscribe`.

use fastmcp_tests::{HttpServer, first_text};
use serde_json::{Value, json};
use std::path::PathBuf;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fixture"))
}

const STATELESS: (&str, &str) = ("FASTMCP_STATELESS", "true");

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

fn init(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
}

/// Headers a client might send that a handler must not read.
const SECRETS: [(&str, &str); 3] =
    [("Authorization", "Bearer s3cret"), ("Cookie", "sid=s3cret"), ("Proxy-Authorization", "Basic s3cret")];

/// What `http_info` saw, checked the same in every cell.
fn check_http(result: &Value, cell: &str) {
    let seen = &result["structuredContent"]["result"];
    assert_eq!(seen["method"], "POST", "{cell}: {result}");
    assert_eq!(seen["path"], "/mcp?tenant=acme", "{cell}: the path and query: {result}");
    assert_eq!(seen["trace"], "abc-123", "{cell}: any case finds a header: {result}");
    assert_eq!(seen["authorization"], Value::Null, "{cell}: {result}");
    assert_eq!(seen["cookie"], Value::Null, "{cell}: {result}");
    let names: Vec<&str> = seen["headers"].as_array().unwrap().iter().map(|h| h[0].as_str().unwrap()).collect();
    assert!(names.contains(&"x-trace") && names.contains(&"content-type"), "{cell}: {names:?}");
    for hidden in ["authorization", "cookie", "proxy-authorization", "mcp-session-id"] {
        assert!(!names.contains(&hidden), "{cell}: {hidden} withheld: {names:?}");
    }
    assert!(!result.to_string().contains("s3cret"), "{cell}: no credential reaches the handler: {result}");
    let redacted: Vec<&str> = seen["redacted"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    for name in ["authorization", "cookie", "proxy-authorization"] {
        assert!(redacted.contains(&name), "{cell}: {name} is named as withheld: {redacted:?}");
    }
}

#[tokio::test]
async fn the_http_request_is_in_the_context_with_credentials_withheld() {
    let s = HttpServer::spawn(fixture()).await;
    let mut headers = vec![("X-Trace", "abc-123")];
    headers.extend(SECRETS);

    // Modern: the standard headers and the envelope, plus ours.
    let mut modern_headers = vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call")];
    modern_headers.push(("Mcp-Name", "http_info"));
    modern_headers.extend(&headers);
    let mut body = call(1, "http_info", json!({}));
    body["params"]["_meta"] = fastmcp_tests::modern_meta(json!({}));
    let r = s.send_to("POST", "/mcp?tenant=acme", &with_json(&modern_headers), &body.to_string()).await;
    assert_eq!(r.status, 200, "{r:?}");
    check_http(&r.response()["result"], "modern");

    // A legacy session: its id is withheld too.
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let mut in_session = vec![("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    in_session.extend(&headers);
    let r = s
        .send_to("POST", "/mcp?tenant=acme", &with_json(&in_session), &call(2, "http_info", json!({})).to_string())
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    let result = r.response()["result"].clone();
    check_http(&result, "legacy session");
    let redacted = &result["structuredContent"]["result"]["redacted"];
    assert!(redacted.as_array().unwrap().contains(&json!("mcp-session-id")), "{result}");

    // Legacy without sessions.
    let s = HttpServer::spawn_with_env(fixture(), &[STATELESS]).await;
    let mut alone = vec![("MCP-Protocol-Version", "2025-11-25")];
    alone.extend(&headers);
    let r =
        s.send_to("POST", "/mcp?tenant=acme", &with_json(&alone), &call(3, "http_info", json!({})).to_string()).await;
    check_http(&r.response()["result"], "legacy without sessions");
}

/// `headers` plus what every JSON POST carries.
fn with_json<'a>(headers: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut all = vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
    all.extend_from_slice(headers);
    all
}

#[tokio::test]
async fn on_close_is_a_no_op_without_a_session_and_runs_once_with_one() {
    let s = HttpServer::spawn(fixture()).await;
    let count = |r: fastmcp_tests::HttpReply| first_text(&r.response()["result"]).to_owned();

    // Modern: no session, so nothing to watch; registering is not an error.
    let r = s.modern(1, "tools/call", json!({"name": "watch_close", "arguments": {}})).await;
    assert_eq!(first_text(&r.json()["result"]), "watching", "{r:?}");
    let r = s.modern(2, "tools/call", json!({"name": "remember", "arguments": {"key": "k", "value": "v"}})).await;
    let result = &r.json()["result"];
    assert_eq!(result["isError"], true, "no session state on modern HTTP: {result}");
    assert!(first_text(result).contains("no session") && first_text(result).contains("ctx.mint_state"), "{result}");

    // A legacy session: each callback runs once, when the session is deleted.
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    for id in [3, 4] {
        let r = s.post(&headers, &call(id, "watch_close", json!({}))).await;
        assert_eq!(first_text(&r.response()["result"]), "watching");
    }
    assert_eq!(count(s.post(&headers, &call(5, "closed_count", json!({}))).await), "0", "not while it lives");
    assert_eq!(s.send("DELETE", &headers, "").await.status, 200);
    assert_eq!(s.send("DELETE", &headers, "").await.status, 404);
    let other = s.legacy_session("2025-11-25", json!({})).await;
    let other = [("Mcp-Session-Id", other.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    assert_eq!(count(s.post(&other, &call(6, "closed_count", json!({}))).await), "2", "two callbacks, once each");
    assert_eq!(count(s.modern(7, "tools/call", json!({"name": "closed_count", "arguments": {}})).await), "2");

    // Legacy without sessions: a no-op as well.
    let s = HttpServer::spawn_with_env(fixture(), &[STATELESS]).await;
    let alone = [("MCP-Protocol-Version", "2025-11-25")];
    let r = s.post(&alone, &call(8, "watch_close", json!({}))).await;
    assert_eq!(first_text(&r.json()["result"]), "watching", "{r:?}");
}

#[tokio::test]
async fn a_server_without_sessions_withdraws_resource_subscriptions() {
    let with = HttpServer::spawn(fixture()).await;
    let r = with.post(&[], &init("2025-11-25")).await.json();
    assert_eq!(r["result"]["capabilities"]["resources"]["subscribe"], true, "{r}");

    let s = HttpServer::spawn_with_env(fixture(), &[STATELESS]).await;
    let r = s.post(&[], &init("2025-11-25")).await.json();
    let resources = &r["result"]["capabilities"]["resources"];
    assert_eq!(resources["listChanged"], true, "{r}");
    assert!(resources.get("subscribe").is_none(), "no subscriptions without sessions: {r}");
    let alone = [("MCP-Protocol-Version", "2025-11-25")];
    for (id, method) in [(2, "resources/subscribe"), (3, "resources/unsubscribe")] {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"uri": "fixture://notes/a"}});
        let r = s.post(&alone, &body).await;
        assert_eq!(r.status, 200, "{r:?}");
        let e = &r.json()["error"];
        assert_eq!(e["code"], -32601, "{method}: {e}");
        let message = e["message"].as_str().unwrap();
        assert!(message.contains(method) && message.contains("subscriptions/listen"), "{message}");
    }
}

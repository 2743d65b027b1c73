//! The `axum` example: fastmcp's endpoint mounted in an axum app at `/mcp`, beside the app's `/health` and
//! behind the app's own tower layer (an `x-request-id` on every response). Driven over a real socket in both
//! eras: a modern multi-round flow, a legacy session with the shim asking the client, a stream lost and
//! resumed with `Last-Event-ID`, and graceful shutdown.

use fastmcp_tests::{HttpServer, example_bin, first_text};
use serde_json::{Value, json};

async fn app() -> HttpServer {
    HttpServer::spawn_with_env(example_bin("axum"), &[("PORT", "0")]).await
}

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

/// The app's layer numbered this response.
fn request_id(headers: &[(String, String)]) -> u64 {
    let id = headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("x-request-id")).map(|(_, v)| v.as_str());
    id.unwrap_or_else(|| panic!("no x-request-id in {headers:?}")).parse().expect("a number")
}

#[tokio::test]
async fn the_app_routes_its_own_paths_and_mcp_through_its_layer() {
    let s = app().await;
    let health = s.send_to("GET", "/health", &[], "").await;
    assert_eq!((health.status, health.body.as_str()), (200, "ok"), "{health:?}");
    let first = request_id(&health.headers);
    let other = s.send_to("GET", "/elsewhere", &[], "").await;
    assert_eq!(other.status, 404, "{other:?}");

    let tools = s.modern(1, "tools/list", json!({})).await;
    assert_eq!(tools.status, 200, "{tools:?}");
    assert!(request_id(&tools.headers) > first, "MCP responses pass the app's layer too: {tools:?}");
    let listed = tools.json();
    let names: Vec<&str> =
        listed["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["greet", "add", "careful_greet"]);
    let read = s.modern(2, "resources/read", json!({"uri": "quickstart://readme"})).await;
    assert!(read.json()["result"]["contents"][0]["text"].as_str().unwrap().starts_with("# quickstart"), "{read:?}");
    let prompt = s.modern(3, "prompts/get", json!({"name": "review_code", "arguments": {"code": "x"}})).await;
    assert!(prompt.json()["result"]["messages"].is_array(), "{prompt:?}");
    let add = s.modern(4, "tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3}})).await;
    assert_eq!(add.json()["result"]["structuredContent"], json!({"sum": 5}), "{add:?}");
}

#[tokio::test]
async fn a_modern_flow_resumes_from_its_request_state() {
    let s = app().await;
    let params = json!({"name": "careful_greet", "arguments": {"name": "Ada"}});
    let first = s.modern(1, "tools/call", params.clone()).await;
    assert_eq!(first.status, 200, "{first:?}");
    request_id(&first.headers);
    let result = &first.json()["result"];
    assert_eq!(result["resultType"], "input_required", "{first:?}");
    let (key, request) = result["inputRequests"].as_object().unwrap().iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Greet Ada?");

    let mut retry = params;
    retry["inputResponses"] = json!({ key: {"action": "accept", "content": {"proceed": true}} });
    retry["requestState"] = result["requestState"].clone();
    let done = s.modern(2, "tools/call", retry).await;
    assert_eq!(done.json()["result"]["resultType"], "complete", "{done:?}");
    assert_eq!(first_text(&done.json()["result"]), "Hello, Ada!");
    assert!(request_id(&done.headers) > request_id(&first.headers));
}

/// The shim asks the client over the session; the client loses the POST's stream after the question, answers
/// it, and resumes the stream with `Last-Event-ID` to receive the result.
#[tokio::test]
async fn a_legacy_session_is_asked_over_its_stream_and_resumes_it() {
    let s = app().await;
    let session = s.legacy_session("2025-11-25", json!({"elicitation": {}})).await;
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let mut stream = s.open(&headers, &call(7, "careful_greet", json!({"name": "Grace"}))).await;
    assert_eq!((stream.status, stream.header("content-type")), (200, Some("text/event-stream")));
    request_id(&stream.headers);
    let question = stream.next_message().await.expect("the shim's request to the client");
    let asked = question.json();
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    assert_eq!(asked["params"]["message"], "Greet Grace?");
    drop(stream);

    let answer =
        json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"proceed": true}}});
    let accepted = s.post(&headers, &answer).await;
    assert_eq!(accepted.status, 202, "{accepted:?}");
    request_id(&accepted.headers);

    let last = question.id.clone().expect("events have ids");
    let mut resumed = s.get(&[("Mcp-Session-Id", &session), ("Last-Event-ID", &last)]).await;
    assert_eq!(resumed.status, 200);
    request_id(&resumed.headers);
    let response = resumed.next().await.expect("the result on the resumed stream");
    assert_eq!(response["id"], 7);
    assert_eq!(first_text(&response["result"]), "Hello, Grace!");
    assert!(response["result"].get("resultType").is_none(), "a legacy result: {response}");
}

#[tokio::test]
async fn sigterm_ends_session_streams_and_the_app_exits() {
    let s = app().await;
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let mut standalone = s.get(&[("Mcp-Session-Id", &session)]).await;
    assert_eq!(standalone.status, 200);
    let _priming = standalone.next_event().await.expect("a priming event");
    let status = s.terminate().await;
    assert!(status.success(), "graceful shutdown completes: {status:?}");
    assert!(standalone.next().await.is_none(), "the standalone stream ended");
}

#[tokio::test]
async fn the_per_client_caps_apply_behind_the_app_too() {
    let s = app().await;
    // The app hands the endpoint each client's address (`PeerAddr`): one address's sessions are capped at
    // `max_sessions_per_client` (64 by default), as under `serve_http`.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    for i in 0..64 {
        assert_eq!(s.post(&[], &init).await.status, 200, "session {i}");
    }
    let refused = s.post(&[], &init).await;
    assert_eq!(refused.status, 429, "{refused:?}");
    assert!(refused.json()["error"]["message"].as_str().unwrap().contains("max_sessions_per_client"), "{refused:?}");
}

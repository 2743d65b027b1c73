//! Graceful shutdown over HTTP: on SIGTERM the server lets a request in flight finish, ends subscriptions
//! with their final result and closes standalone streams, then exits on its own.

use fastmcp_tests::{HttpServer, SseStream, example_bin};
use serde_json::{Value, json};
use std::time::Duration;

const POST: [(&str, &str); 2] =
    [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];

fn post_headers<'a>(extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut headers = POST.to_vec();
    headers.extend_from_slice(extra);
    headers
}

/// Every message left on a stream, until the server ends it.
async fn drain(mut stream: SseStream) -> Vec<Value> {
    let mut messages = Vec::new();
    while let Some(message) = stream.next().await {
        messages.push(message);
    }
    messages
}

#[tokio::test]
async fn sigterm_finishes_requests_in_flight_and_ends_long_lived_streams() {
    let s = HttpServer::spawn(example_bin("everything")).await;

    // A legacy session with its standalone stream open.
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let session_headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let standalone = s.get(&session_headers).await;
    assert_eq!(standalone.status, 200);

    // A modern subscription.
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let listen = json!({"jsonrpc": "2.0", "id": "sub-1", "method": "subscriptions/listen",
        "params": {"_meta": meta, "notifications": {"toolsListChanged": true}}});
    let modern = post_headers(&[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "subscriptions/listen")]);
    let mut subscription = s.stream("POST", &modern, &listen.to_string()).await;
    let ack = subscription.next().await.expect("the acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");

    // A call in flight (it reports progress for ~100 ms) when the signal arrives.
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "p"}}});
    let in_flight = s.stream("POST", &post_headers(&session_headers), &call.to_string()).await;
    tokio::time::sleep(Duration::from_millis(30)).await;

    let exited = tokio::spawn(s.terminate());
    let call = drain(in_flight).await;
    let last = call.last().expect("messages on the call's stream");
    assert_eq!((last["id"].clone(), last["result"]["isError"].clone()), (json!(7), Value::Null), "{call:?}");
    assert!(call.iter().any(|m| m["method"] == "notifications/progress"), "it was in flight: {call:?}");
    let ended = drain(subscription).await;
    let last = ended.last().expect("the subscription's result");
    assert_eq!(last["id"], "sub-1", "the subscription ends with its own result: {ended:?}");
    assert_eq!(last["result"]["resultType"], "complete");
    assert_eq!(last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "sub-1");
    assert_eq!(drain(standalone).await, Vec::<Value>::new(), "the standalone stream ends");
    let status = exited.await.unwrap();
    assert!(status.success(), "{status}");
}

//! `Context::notify_resource_updated` in every cell: a legacy session that subscribed with
//! `resources/subscribe` (stdio, and HTTP on its standalone stream), and a modern `subscriptions/listen`
//! stream that named the URI in `resourceSubscriptions` (stdio and HTTP). Only the subscribed URIs arrive.
//!
//! Each test touches an unsubscribed URI first and a subscribed one after it: notifications of one client
//! arrive in order, so the first update seen must be the subscribed one.

use fastmcp_tests::{HttpServer, SseStream, StdioClient, modern_meta};
use serde_json::{Value, json};
use std::path::PathBuf;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fixture"))
}

const A: &str = "fixture://notes/a";
const B: &str = "fixture://notes/b";
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
const UPDATED: &str = "notifications/resources/updated";

fn touch(uri: &str) -> Value {
    json!({"name": "touch", "arguments": {"uri": uri}})
}

#[tokio::test]
async fn a_legacy_stdio_session_hears_of_the_resources_it_subscribed_to() {
    let mut c = StdioClient::spawn(fixture());
    let init = c.initialize("2025-11-25").await;
    assert_eq!(init["capabilities"]["resources"]["subscribe"], true);
    let subscribed = c.request("resources/subscribe", json!({"uri": A})).await;
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    let unknown = c.request("resources/subscribe", json!({"uri": "fixture://nope"})).await;
    assert!(unknown.get("error").is_some(), "a URI the server does not serve: {unknown}");

    c.request("tools/call", touch(B)).await;
    c.request("tools/call", touch(A)).await;
    assert_eq!(c.notification(UPDATED).await["params"], json!({"uri": A}));

    c.request("resources/unsubscribe", json!({"uri": A})).await;
    c.request("tools/call", touch(A)).await;
    c.request("tools/list", json!({})).await;
    assert!(c.drain_notifications().iter().all(|n| n["method"] != UPDATED), "unsubscribed");
    assert!(c.close().await.0.success());
}

#[tokio::test]
async fn a_modern_stdio_listen_stream_hears_of_the_resources_it_named() {
    let mut c = StdioClient::spawn(fixture());
    let listen = json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen", "params": {
        "_meta": modern_meta(json!({})),
        "notifications": {"resourceSubscriptions": [A, "fixture://nope", A]}}});
    c.send(&listen).await;
    let ack = c.notification("notifications/subscriptions/acknowledged").await;
    assert_eq!(
        ack["params"]["notifications"],
        json!({"resourceSubscriptions": [A]}),
        "served URIs only, once each: {ack}"
    );

    c.modern("tools/call", touch(B)).await;
    c.modern("tools/call", touch(A)).await;
    let updated = c.notification(UPDATED).await;
    assert_eq!(updated["params"], json!({"uri": A, "_meta": {SUBSCRIPTION_ID: "sub"}}));
    assert!(c.close().await.0.success());
}

/// The next message on a stream that is a resource update.
async fn next_update(stream: &mut SseStream) -> Value {
    loop {
        let message = stream.next().await.expect("the stream is open");
        if message["method"] == UPDATED {
            return message;
        }
    }
}

#[tokio::test]
async fn a_legacy_http_session_hears_on_its_standalone_stream() {
    let s = HttpServer::spawn(fixture()).await;
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let subscribe = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": A}});
    assert_eq!(s.post(&headers, &subscribe).await.json()["result"], json!({}));
    let mut standalone = s.get(&headers).await;
    assert_eq!(standalone.status, 200);

    for (id, uri) in [(2, B), (3, A)] {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": touch(uri)});
        assert_eq!(s.post(&headers, &call).await.status, 200);
    }
    assert_eq!(next_update(&mut standalone).await["params"], json!({"uri": A}));
}

#[tokio::test]
async fn a_modern_http_listen_stream_hears_of_the_resources_it_named() {
    let s = HttpServer::spawn(fixture()).await;
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen", "params": {
        "_meta": modern_meta(json!({})), "notifications": {"resourceSubscriptions": [A]}}});
    let mut listen =
        s.open(&[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "subscriptions/listen")], &body).await;
    let ack = listen.next().await.expect("the acknowledgement");
    assert_eq!(ack["params"]["notifications"], json!({"resourceSubscriptions": [A]}));

    for (id, uri) in [(2, B), (3, A)] {
        let r = s.modern(id, "tools/call", touch(uri)).await;
        assert_eq!(r.status, 200, "{r:?}");
    }
    let updated = next_update(&mut listen).await;
    assert_eq!(updated["params"], json!({"uri": A, "_meta": {SUBSCRIPTION_ID: 9}}));
}

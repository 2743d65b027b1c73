//! Graceful shutdown over HTTP: on SIGTERM the server lets a request in flight finish, ends subscriptions
//! with their final result and closes standalone streams, then exits on its own.

use fastmcp_tests::example_bin;
use serde_json::{Value, json};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::Command;

const TIMEOUT: Duration = Duration::from_secs(10);

/// Sends one HTTP/1.1 request and returns the connection, positioned after the response headers, with them.
async fn request(addr: &str, method: &str, headers: &[(&str, &str)], body: &str) -> (BufReader<TcpStream>, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut head = format!("{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut reader = BufReader::new(stream);
    let mut headers = String::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).await.unwrap();
        if line == "\r\n" || line.is_empty() {
            return (reader, headers);
        }
        headers.push_str(&line);
    }
}

/// Everything left on a response (chunked framing included), read until the server closes it.
async fn rest(mut reader: BufReader<TcpStream>) -> String {
    let mut out = String::new();
    tokio::time::timeout(TIMEOUT, reader.read_to_string(&mut out)).await.expect("the stream ended").unwrap();
    out
}

fn post_headers<'a>(extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut headers = vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
    headers.extend_from_slice(extra);
    headers
}

#[tokio::test]
async fn sigterm_finishes_requests_in_flight_and_ends_long_lived_streams() {
    let mut child = Command::new(example_bin("everything"))
        .env("FASTMCP_TRANSPORT", "http")
        .env("FASTMCP_PORT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = tokio::time::timeout(TIMEOUT, async {
        while let Some(line) = stderr.next_line().await.unwrap() {
            if let Some(rest) = line.split("serving MCP on http://").nth(1) {
                return rest.split('/').next().unwrap().to_owned();
            }
        }
        panic!("the server exited before listening");
    })
    .await
    .unwrap();
    tokio::spawn(async move { while let Ok(Some(_)) = stderr.next_line().await {} });

    // A legacy session with its standalone stream open.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (reader, headers) = request(&addr, "POST", &post_headers(&[]), &init.to_string()).await;
    let session = headers
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("mcp-session-id:").map(|v| v.trim().to_owned()))
        .expect("a session id");
    drop(reader);
    let session_headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    drop(request(&addr, "POST", &post_headers(&session_headers), &note).await);
    let get_headers = [("Accept", "text/event-stream"), session_headers[0], session_headers[1]];
    let (standalone, headers) = request(&addr, "GET", &get_headers, "").await;
    assert!(headers.starts_with("HTTP/1.1 200"), "{headers}");

    // A modern subscription.
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let listen = json!({"jsonrpc": "2.0", "id": "sub-1", "method": "subscriptions/listen",
        "params": {"_meta": meta, "notifications": {"toolsListChanged": true}}});
    let modern = [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "subscriptions/listen")];
    let (subscription, headers) = request(&addr, "POST", &post_headers(&modern), &listen.to_string()).await;
    assert!(headers.contains("text/event-stream"), "{headers}");

    // A call in flight (it sleeps ~300 ms in all) when the signal arrives.
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "p"}}});
    let (in_flight, _) = request(&addr, "POST", &post_headers(&session_headers), &call.to_string()).await;
    tokio::time::sleep(Duration::from_millis(50)).await;

    let pid = child.id().unwrap().to_string();
    assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());

    let call = rest(in_flight).await;
    assert!(call.contains(r#""id":7,"result""#), "the call in flight finished: {call}");
    let subscription = rest(subscription).await;
    let last: Value = subscription
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str(d).ok())
        .next_back()
        .expect("messages on the subscription");
    assert_eq!(last["id"], "sub-1", "the subscription ends with its own result: {subscription}");
    assert_eq!(last["result"]["resultType"], "complete");
    assert_eq!(last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "sub-1");
    rest(standalone).await;
    let status = tokio::time::timeout(TIMEOUT, child.wait()).await.expect("the server exits").unwrap();
    assert!(status.success(), "{status}");
}

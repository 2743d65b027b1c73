//! The request context over Streamable HTTP, in every cell where it differs from stdio. So far: a server
//! without sessions withdrawing `resources.subscribe`.

use fastmcp_tests::HttpServer;
use serde_json::{Value, json};
use std::path::PathBuf;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fixture"))
}

const STATELESS: (&str, &str) = ("FASTMCP_STATELESS", "true");

fn init(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
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

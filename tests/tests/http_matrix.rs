//! The era matrix's HTTP cells: {HTTP with sessions, HTTP without (`FASTMCP_STATELESS=true`)} × {legacy,
//! modern}, driven through the `.ask()` examples (deploy, survey, sum), the hand-written flow of
//! `everything` (`handwritten_opinion`, no macro) and the fixture's session tools.
//!
//! - legacy + sessions: the shim sends server-to-client requests on the POST's SSE stream; the client
//!   answers by POSTing responses.
//! - modern (either server mode): `input_required`, then a retry with `inputResponses` and `requestState`.
//! - legacy without sessions: each request is served alone; state-only rounds work, asking the client does not.

use fastmcp_tests::{HttpReply, HttpServer, example_bin, first_text};
use serde_json::{Value, json};
use std::path::PathBuf;

const STATELESS: (&str, &str) = ("FASTMCP_STATELESS", "true");

/// Both server modes: the env for each, and a name for messages.
const MODES: [(&str, &[(&str, &str)]); 2] = [("sessions", &[]), ("stateless", &[STATELESS])];

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fixture"))
}

const CAPS: &str = r#"{"elicitation": {}, "sampling": {}}"#;

fn caps() -> Value {
    serde_json::from_str(CAPS).unwrap()
}

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

/// One example flow: the tool, its arguments, the final text, and the methods it asks the client, in order.
struct Flow {
    bin: &'static str,
    tool: &'static str,
    arguments: Value,
    text: &'static str,
    asks: &'static [&'static str],
}

fn flows() -> [Flow; 4] {
    [
        Flow {
            bin: "deploy",
            tool: "deploy",
            arguments: json!({"service": "web", "replicas": 2}),
            text: "Deployed web x2: release notes",
            asks: &["elicitation/create", "sampling/createMessage"],
        },
        Flow {
            bin: "survey",
            tool: "survey",
            arguments: json!({"questions": ["Name?", "Colour?"]}),
            text: "Name?=re: Name?; Colour?=re: Colour?",
            asks: &["elicitation/create", "elicitation/create"],
        },
        Flow {
            bin: "sum",
            tool: "sum",
            arguments: json!({"numbers": [1, 2, 3, 4, 5, 6, 7], "chunk": 3}),
            text: "sum=28 in 3 rounds",
            asks: &[],
        },
        Flow {
            bin: "everything",
            tool: "handwritten_opinion",
            arguments: json!({"topic": "Rust"}),
            text: "Rust: re: What do you think of Rust? (release notes)",
            asks: &["elicitation/create", "sampling/createMessage"],
        },
    ]
}

/// What the client answers to each request the examples make.
fn answer(method: &str, params: &Value) -> Value {
    match method {
        "elicitation/create" => {
            let properties = &params["requestedSchema"]["properties"];
            if properties.get("confirm").is_some() {
                json!({"action": "accept", "content": {"confirm": true}})
            } else {
                let question = params["message"].as_str().expect("a question");
                json!({"action": "accept", "content": {"answer": format!("re: {question}")}})
            }
        }
        "sampling/createMessage" => {
            json!({"role": "assistant", "content": {"type": "text", "text": "release notes"}, "model": "m"})
        }
        other => panic!("unexpected request {other}"),
    }
}

/// A legacy `tools/call` in a session, answering every request the server makes on the POST's stream by
/// POSTing the response. Returns the final response and the methods asked.
async fn legacy_call(s: &HttpServer, session: &str, tool: &str, arguments: Value) -> (Value, Vec<String>) {
    let headers = [("Mcp-Session-Id", session), ("MCP-Protocol-Version", "2025-11-25")];
    let mut stream = s.open(&headers, &call(2, tool, arguments)).await;
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    let mut asked = Vec::new();
    loop {
        let msg = stream.next().await.expect("the stream goes on until the response");
        if let (Some(method), Some(id)) = (msg["method"].as_str(), msg.get("id")) {
            asked.push(method.to_owned());
            let reply = json!({"jsonrpc": "2.0", "id": id, "result": answer(method, &msg["params"])});
            let r = s.post(&headers, &reply).await;
            assert_eq!(r.status, 202, "the answer is accepted: {r:?}");
        } else if msg["id"] == 2 {
            assert!(stream.next().await.is_none(), "the stream ends after the response");
            return (msg, asked);
        }
    }
}

/// A modern `tools/call` run to completion: each `input_required` answered and retried with the request
/// state. Returns the final response, the number of rounds and the methods asked.
async fn modern_call(s: &HttpServer, tool: &str, arguments: Value) -> (Value, u32, Vec<String>) {
    let mut asked = Vec::new();
    let mut retry = json!({});
    for round in 1..=10 {
        let mut params = json!({"name": tool, "arguments": arguments});
        params.as_object_mut().unwrap().extend(retry.as_object().unwrap().clone());
        let r = s.modern(round.into(), "tools/call", params).await;
        assert_eq!(r.status, 200, "{r:?}");
        assert!(r.header("mcp-session-id").is_none(), "no sessions on the modern protocol: {r:?}");
        let response = r.json();
        let result = &response["result"];
        if result["resultType"] == "complete" {
            return (response, round, asked);
        }
        assert_eq!(result["resultType"], "input_required", "{response}");
        let state = result["requestState"].as_str().expect("requestState");
        let mut responses = serde_json::Map::new();
        for (key, request) in result.get("inputRequests").and_then(Value::as_object).into_iter().flatten() {
            let method = request["method"].as_str().expect("an input request's method");
            asked.push(method.to_owned());
            responses.insert(key.clone(), answer(method, &request["params"]));
        }
        retry = json!({"inputResponses": responses, "requestState": state});
    }
    panic!("{tool} did not complete in 10 rounds");
}

#[tokio::test]
async fn legacy_with_sessions_the_shim_asks_on_the_posts_stream() {
    for flow in flows() {
        let s = HttpServer::spawn(example_bin(flow.bin)).await;
        let session = s.legacy_session("2025-11-25", caps()).await;
        let (response, asked) = legacy_call(&s, &session, flow.tool, flow.arguments).await;
        assert_ne!(response["result"]["isError"], true, "{}: {response}", flow.bin);
        assert_eq!(first_text(&response["result"]), flow.text, "{}", flow.bin);
        assert_eq!(asked, flow.asks, "{}", flow.bin);
        assert!(response["result"].get("resultType").is_none(), "{}: a legacy result: {response}", flow.bin);
    }
}

#[tokio::test]
async fn modern_rounds_work_with_and_without_sessions() {
    for (mode, env) in MODES {
        for flow in flows() {
            let s = HttpServer::spawn_with_env(example_bin(flow.bin), env).await;
            let (response, rounds, asked) = modern_call(&s, flow.tool, flow.arguments).await;
            assert_eq!(first_text(&response["result"]), flow.text, "{mode} {}", flow.bin);
            assert_eq!(asked, flow.asks, "{mode} {}", flow.bin);
            let expected = if flow.asks.is_empty() { 3 } else { flow.asks.len() as u32 + 1 };
            assert_eq!(rounds, expected, "{mode} {}: one round per ask (sum: per slice)", flow.bin);
        }
    }
}

#[tokio::test]
async fn legacy_without_sessions_serves_each_request_alone() {
    let s = HttpServer::spawn_with_env(fixture(), &[STATELESS]).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": caps(), "clientInfo": {"name": "t", "version": "0"}}});
    let r = s.post(&[], &init).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["result"]["protocolVersion"], "2025-11-25");
    assert!(r.header("mcp-session-id").is_none(), "no session is minted: {r:?}");
    let note = s.post(&[], &json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    assert_eq!(note.status, 202);

    let r = s
        .post(&[("MCP-Protocol-Version", "2025-11-25")], &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    assert_eq!(r.status, 200, "served without a session: {r:?}");
    assert!(r.json()["result"]["tools"].as_array().is_some_and(|t| !t.is_empty()), "{r:?}");

    // Each request is served at the version its header names; 2025-03-26 without one.
    let version = |r: &HttpReply| {
        assert_eq!(r.status, 200, "{r:?}");
        assert_eq!(r.header("content-type"), Some("application/json"), "answered alone, as JSON: {r:?}");
        first_text(&r.json()["result"]).to_owned()
    };
    let ask = call(3, "protocol_version", json!({}));
    assert_eq!(version(&s.post(&[], &ask).await), "2025-03-26");
    for v in ["2025-06-18", "2025-11-25", "2024-11-05"] {
        assert_eq!(version(&s.post(&[("MCP-Protocol-Version", v)], &ask).await), v);
    }
    // A session id the server never issued is not looked up.
    let r = s.post(&[("MCP-Protocol-Version", "2025-11-25"), ("Mcp-Session-Id", "whatever")], &ask).await;
    assert_eq!(version(&r), "2025-11-25");
    let r = s.post(&[("MCP-Protocol-Version", "1999-01-01")], &ask).await;
    assert_eq!((r.status, r.json()["error"]["code"].clone()), (400, json!(-32600)), "{r:?}");
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("Unsupported MCP-Protocol-Version: 1999-01-01"));

    // Nothing lives between requests: Context session state fails, with the way out in the message.
    let headers = [("MCP-Protocol-Version", "2025-11-25")];
    for (tool, arguments) in [("remember", json!({"key": "k", "value": "v"})), ("recall", json!({"key": "k"}))] {
        let r = s.post(&headers, &call(4, tool, arguments)).await;
        let result = &r.json()["result"];
        assert_eq!(result["isError"], true, "{tool}: {r:?}");
        let text = first_text(result);
        assert!(text.contains("no session") && text.contains("without sessions"), "{tool}: {text}");
    }
    // A tool that asks the client fails the same way, naming what does work.
    let r = s.post(&headers, &call(5, "ask_name", json!({}))).await;
    let result = &r.json()["result"];
    assert_eq!(result["isError"], true, "{r:?}");
    let text = first_text(result);
    assert!(text.contains("state-only") && text.contains("checkpoint()") && text.contains("sessions"), "{text}");
}

#[tokio::test]
async fn legacy_without_sessions_runs_state_only_rounds_but_cannot_ask() {
    for flow in flows() {
        let s = HttpServer::spawn_with_env(example_bin(flow.bin), &[STATELESS]).await;
        let r = s.post(&[("MCP-Protocol-Version", "2025-11-25")], &call(2, flow.tool, flow.arguments)).await;
        assert_eq!(r.status, 200, "{}: {r:?}", flow.bin);
        assert_eq!(r.header("content-type"), Some("application/json"), "{}", flow.bin);
        let result = &r.json()["result"];
        let text = first_text(result);
        if flow.asks.is_empty() {
            assert_ne!(result["isError"], true, "{}: {r:?}", flow.bin);
            assert_eq!(text, flow.text, "{}: checkpoint() rounds run in process", flow.bin);
        } else {
            assert_eq!(result["isError"], true, "{}: {r:?}", flow.bin);
            assert!(text.contains("state-only") && text.contains("sessions"), "{}: {text}", flow.bin);
            assert!(text.contains("'tools/call'"), "{}: names the request: {text}", flow.bin);
        }
    }
}

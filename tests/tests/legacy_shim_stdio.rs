//! One handler, both eras: the resumable examples on a legacy stdio session, where the shim turns each
//! `.ask()` into a real server-to-client request and re-enters the handler in-process.

use fastmcp_tests::{StdioClient, example_bin, first_text};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

async fn session(example: &str, version: &str, capabilities: Value) -> StdioClient {
    let mut c = StdioClient::spawn(example_bin(example));
    c.initialize_declaring(version, capabilities).await;
    c
}

fn call(name: &str, arguments: Value) -> Value {
    json!({ "name": name, "arguments": arguments })
}

#[tokio::test]
async fn deploy_asks_over_the_session_and_answers_once() {
    let mut c = session("deploy", "2025-11-25", json!({"elicitation": {}, "sampling": {}})).await;
    let (response, asked) = c
        .request_answering("tools/call", call("deploy", json!({"service": "api", "replicas": 3})), |req| {
            match req["method"].as_str().unwrap() {
                "elicitation/create" => Ok(json!({"action": "accept", "content": {"confirm": true}})),
                "sampling/createMessage" => {
                    Ok(json!({"role": "assistant", "content": {"type": "text", "text": "notes"}, "model": "m"}))
                }
                other => panic!("unexpected request {other}"),
            }
        })
        .await;
    assert_eq!(first_text(&response["result"]), "Deployed api x3: notes", "{response}");
    assert!(response["result"].get("resultType").is_none(), "a legacy client sees one plain result");
    let methods: Vec<&str> = asked.iter().map(|r| r["method"].as_str().unwrap()).collect();
    assert_eq!(methods, ["elicitation/create", "sampling/createMessage"]);
    assert!(asked[0]["params"]["message"].as_str().unwrap().contains("api"));
    assert_eq!(asked[0]["params"]["requestedSchema"]["properties"]["confirm"]["type"], "boolean");
    assert_eq!(asked[1]["params"]["maxTokens"], 200);
    assert!(c.close().await.0.success());
}

#[tokio::test]
async fn older_revisions_get_forms_without_a_mode() {
    let mut c = session("deploy", "2025-06-18", json!({"elicitation": {}, "sampling": {}})).await;
    let (response, asked) = c
        .request_answering("tools/call", call("deploy", json!({"service": "x", "replicas": 1})), |_| {
            Ok(json!({"action": "decline"}))
        })
        .await;
    assert_eq!(first_text(&response["result"]), "Deployment of x cancelled.");
    assert!(asked[0]["params"].get("mode").is_none(), "2025-06-18 has no elicitation modes: {}", asked[0]);
    c.close().await;
}

#[tokio::test]
async fn survey_asks_each_question_in_order() {
    let mut c = session("survey", "2025-11-25", json!({"elicitation": {}})).await;
    let (response, asked) = c
        .request_answering("tools/call", call("survey", json!({"questions": ["a", "b", "c"]})), |req| {
            let q = req["params"]["message"].as_str().unwrap();
            Ok(json!({"action": "accept", "content": {"answer": q.to_uppercase()}}))
        })
        .await;
    assert_eq!(first_text(&response["result"]), "a=A; b=B; c=C");
    assert_eq!(asked.len(), 3);
    c.close().await;
}

#[tokio::test]
async fn sum_runs_its_state_only_rounds_in_process_at_a_steady_pace() {
    let mut c = session("sum", "2025-11-25", json!({})).await;
    let started = Instant::now();
    let (response, asked) = c
        .request_answering(
            "tools/call",
            call("sum", json!({"numbers": (1..=10).collect::<Vec<i64>>(), "chunk": 3})),
            |r| panic!("a state-only round sends nothing, got {r}"),
        )
        .await;
    assert_eq!(first_text(&response["result"]), "sum=55 in 4 rounds");
    assert!(asked.is_empty());
    assert!(started.elapsed() >= Duration::from_millis(700), "three 250 ms pauses, took {:?}", started.elapsed());
    c.close().await;
}

#[tokio::test]
async fn too_many_rounds_fail_naming_the_limit() {
    let mut c = session("sum", "2025-11-25", json!({})).await;
    let (response, _) = c
        .request_answering(
            "tools/call",
            call("sum", json!({"numbers": (1..=20).collect::<Vec<i64>>(), "chunk": 1})),
            |r| panic!("unexpected {r}"),
        )
        .await;
    assert_eq!(response["result"]["isError"], true, "{response}");
    let text = first_text(&response["result"]);
    assert!(text.contains("after 8 rounds") && text.contains("FastMcp::max_rounds"), "{text}");
    c.close().await;
}

#[tokio::test]
async fn a_client_that_never_declared_elicitation_is_not_asked() {
    let mut c = session("deploy", "2025-11-25", json!({"sampling": {}})).await;
    let (response, asked) = c
        .request_answering("tools/call", call("deploy", json!({"service": "s", "replicas": 1})), |r| {
            panic!("nothing may be sent, got {r}")
        })
        .await;
    assert!(asked.is_empty());
    assert_eq!(response["result"]["isError"], true);
    assert!(first_text(&response["result"]).contains("elicitation/create"), "{response}");
    c.close().await;
}

#[tokio::test]
async fn a_client_error_fails_the_call_with_its_message() {
    let mut c = session("deploy", "2025-11-25", json!({"elicitation": {}, "sampling": {}})).await;
    let (response, _) = c
        .request_answering("tools/call", call("deploy", json!({"service": "s", "replicas": 1})), |_| {
            Err(json!({"code": -1, "message": "user rejected"}))
        })
        .await;
    assert_eq!(response["result"]["isError"], true);
    assert!(first_text(&response["result"]).contains("user rejected"), "{response}");
    c.close().await;
}

fn fixture_with(env: &[(&str, &str)]) -> StdioClient {
    StdioClient::spawn_with_env(env!("CARGO_BIN_EXE_fixture").into(), env)
}

#[tokio::test]
async fn a_round_the_client_never_answers_times_out() {
    let mut c = fixture_with(&[("FIXTURE_ROUND_TIMEOUT_MS", "300")]);
    c.initialize_declaring("2025-11-25", json!({"elicitation": {}})).await;
    c.send(&json!({"jsonrpc": "2.0", "id": "t", "method": "tools/call", "params": {"name": "ask_name"}})).await;
    let asked = c.recv().await;
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    let response = c.response(&json!("t")).await; // never answered
    assert_eq!(response["result"]["isError"], true);
    assert!(first_text(&response["result"]).contains("did not answer within 300 ms"), "{response}");
    c.close().await;
}

#[tokio::test]
async fn with_the_shim_off_asking_handlers_fail_clearly() {
    let mut c = fixture_with(&[("FIXTURE_LEGACY_SHIM", "0")]);
    c.initialize_declaring("2025-11-25", json!({"elicitation": {}})).await;
    let r = c.request("tools/call", json!({"name": "ask_name"})).await;
    assert_eq!(r["error"]["code"], -32603, "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains("2025-11-25") && message.contains("FastMcp::legacy_shim"), "{message}");
    c.close().await;
}

#[tokio::test]
async fn cancelling_a_call_that_waits_on_the_client_stops_it() {
    let mut c = fixture_with(&[]);
    c.initialize_declaring("2025-11-25", json!({"elicitation": {}})).await;
    c.send(&json!({"jsonrpc": "2.0", "id": "w", "method": "tools/call", "params": {"name": "ask_name"}})).await;
    let asked = c.recv().await;
    assert_eq!(asked["method"], "elicitation/create");
    c.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "w"}})).await;
    // A late answer to the abandoned request is ignored, and the cancelled call gets no response.
    c.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"name": "late"}}}))
        .await;
    let pong = c.request("ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    c.send(&json!({"jsonrpc": "2.0", "id": "after", "method": "tools/call", "params": {"name": "marker"}})).await;
    let next = c.recv().await;
    assert_eq!(next["id"], "after", "nothing was sent for the cancelled call: {next}");
    c.close().await;
}

#[tokio::test]
async fn one_round_can_ask_several_things_at_once() {
    let mut c = fixture_with(&[]);
    c.initialize_declaring("2025-11-25", json!({"elicitation": {}, "sampling": {}, "roots": {}})).await;
    let (r, asked) = c
        .request_answering("tools/call", json!({"name": "multi"}), |req| match req["method"].as_str().unwrap() {
            "elicitation/create" => Ok(json!({"action": "accept", "content": {"name": "Ada"}})),
            "sampling/createMessage" => {
                Ok(json!({"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"}))
            }
            "roots/list" => Ok(json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]})),
            other => panic!("{other}"),
        })
        .await;
    assert_eq!(first_text(&r["result"]), "Ada|Paris|2");
    assert_eq!(asked.len(), 3, "all three sent in one round");
    c.close().await;
}

#[tokio::test]
async fn url_elicitation_gets_an_elicitation_id_on_the_2025_wire() {
    let mut c = fixture_with(&[]);
    c.initialize_declaring("2025-11-25", json!({"elicitation": {"url": {}}})).await;
    let (r, asked) = c
        .request_answering(
            "tools/call",
            json!({"name": "visit", "arguments": {"url": "https://example.com/login"}}),
            |_| Ok(json!({"action": "accept"})),
        )
        .await;
    assert_eq!(first_text(&r["result"]), "Accepted");
    assert_eq!(asked[0]["params"]["mode"], "url");
    assert_eq!(asked[0]["params"]["url"], "https://example.com/login");
    assert!(asked[0]["params"]["elicitationId"].as_str().is_some_and(|id| id.len() == 32), "{}", asked[0]);
    c.close().await;
}

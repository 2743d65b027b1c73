//! Hand-written flows (no `.ask()`, no machine): handlers that return `Flow::InputRequired` with their own
//! input requests and request state, and read the answers and the state back from the `Context` — over
//! stdio and HTTP, in both eras. The fixture's `handmade` (a `#[tool]` fn: a roots request, then state-only
//! rounds) and `handmade_mismatch` (reads back another type than it minted), and `everything`'s
//! `handwritten_opinion` (a plain `ToolHandler`) and `handwritten_topic` (a `#[prompt]` without state).

use fastmcp_tests::{HttpServer, StdioClient, example_bin, first_text, modern_meta};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fixture"))
}

fn roots() -> Value {
    json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]})
}

/// What every refused request state is on the wire, in both eras.
fn refused() -> Value {
    json!({"code": -32602, "message": "Invalid or expired requestState", "data": {"reason": "invalid_request_state"}})
}

/// A modern request over stdio declaring `caps`, optionally answering the previous round.
async fn modern(
    c: &mut StdioClient,
    method: &str,
    mut params: Value,
    caps: Value,
    retry: Option<(Value, &str)>,
) -> Value {
    params["_meta"] = modern_meta(caps);
    if let Some((responses, state)) = retry {
        params["inputResponses"] = responses;
        params["requestState"] = json!(state);
    }
    c.request(method, params).await
}

/// The token with one character of its body changed: its signature no longer verifies.
fn tamper(state: &str) -> String {
    let mut bytes = state.to_owned().into_bytes();
    let i = bytes.len() / 2;
    bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
    String::from_utf8(bytes).unwrap()
}

fn input_required(response: &Value) -> (Option<&serde_json::Map<String, Value>>, String) {
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response}");
    let state = result["requestState"].as_str().expect("requestState").to_owned();
    (result["inputRequests"].as_object(), state)
}

#[tokio::test]
async fn a_hand_written_tool_runs_its_rounds_on_the_modern_wire() {
    let mut c = StdioClient::spawn(fixture());
    let caps = json!({"roots": {}});
    let call = json!({"name": "handmade", "arguments": {"extra": 2}});
    let r1 = modern(&mut c, "tools/call", call.clone(), caps.clone(), None).await;
    let (requests, state1) = input_required(&r1);
    assert_eq!(requests.expect("a request"), &json!({"roots": {"method": "roots/list"}}).as_object().unwrap().clone());

    // The same rules as the macro's state: an unanswered request is asked again with the same state...
    let again = modern(&mut c, "tools/call", call.clone(), caps.clone(), Some((json!({}), &state1))).await;
    assert_eq!(input_required(&again).1, state1, "asked again, nothing ran: {again}");
    // ... a tampered token, or one minted for other arguments, is refused before the handler runs.
    let e =
        modern(&mut c, "tools/call", call.clone(), caps.clone(), Some((json!({"roots": roots()}), &tamper(&state1))))
            .await;
    assert_eq!(e["error"], refused(), "{e}");
    let other = json!({"name": "handmade", "arguments": {"extra": 3}});
    let e = modern(&mut c, "tools/call", other, caps.clone(), Some((json!({"roots": roots()}), &state1))).await;
    assert_eq!(e["error"], refused(), "bound to the arguments: {e}");

    // The roots answer; then two state-only rounds, the handler's own state counting them.
    let r2 = modern(&mut c, "tools/call", call.clone(), caps.clone(), Some((json!({"roots": roots()}), &state1))).await;
    let (requests, state2) = input_required(&r2);
    assert!(requests.is_none(), "a state-only round: {r2}");
    let r3 = modern(&mut c, "tools/call", call.clone(), caps.clone(), Some((json!({}), &state2))).await;
    let (requests, state3) = input_required(&r3);
    assert!(requests.is_none() && state3 != state2, "{r3}");
    let done = modern(&mut c, "tools/call", call, caps, Some((json!({}), &state3))).await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(first_text(&done["result"]), "file:///a,file:///b after 4 rounds");
    c.close().await;
}

#[tokio::test]
async fn a_hand_written_tool_runs_through_the_legacy_shim() {
    let mut c = StdioClient::spawn(fixture());
    c.initialize_declaring("2025-11-25", json!({"roots": {}})).await;
    let started = Instant::now();
    let (r, asked) = c
        .request_answering("tools/call", json!({"name": "handmade", "arguments": {"extra": 2}}), |_| Ok(roots()))
        .await;
    assert_eq!(first_text(&r["result"]), "file:///a,file:///b after 4 rounds", "{r}");
    assert!(r["result"].get("resultType").is_none(), "a legacy result: {r}");
    let methods: Vec<&str> = asked.iter().map(|a| a["method"].as_str().unwrap()).collect();
    assert_eq!(methods, ["roots/list"], "one request for the client; the state-only rounds run in process");
    assert!(started.elapsed() >= Duration::from_millis(500), "two state-only rounds, 250 ms each");
    c.close().await;
}

#[tokio::test]
async fn a_state_that_does_not_read_back_is_refused_in_both_eras() {
    // Legacy: the shim runs the state-only round in process; the second round's `ctx.state()` refuses it.
    let mut c = StdioClient::spawn(fixture());
    c.initialize("2025-11-25").await;
    let r = c.request("tools/call", json!({"name": "handmade_mismatch"})).await;
    assert_eq!(r["error"], refused(), "a protocol error, though the tool returns its errors as results: {r}");
    c.close().await;

    let mut c = StdioClient::spawn(fixture());
    let call = json!({"name": "handmade_mismatch"});
    let r1 = modern(&mut c, "tools/call", call.clone(), json!({}), None).await;
    let (requests, state) = input_required(&r1);
    assert!(requests.is_none(), "{r1}");
    let r2 = modern(&mut c, "tools/call", call, json!({}), Some((json!({}), &state))).await;
    assert_eq!(r2["error"], refused(), "{r2}");
    c.close().await;
}

#[tokio::test]
async fn an_expired_state_is_refused_like_any_other() {
    let mut c = StdioClient::spawn_with_env(fixture(), &[("FIXTURE_STATE_TTL_MS", "300")]);
    let call = json!({"name": "handmade", "arguments": {"extra": 0}});
    let r1 = modern(&mut c, "tools/call", call.clone(), json!({"roots": {}}), None).await;
    let (_, state) = input_required(&r1);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let e = modern(&mut c, "tools/call", call, json!({"roots": {}}), Some((json!({"roots": roots()}), &state))).await;
    assert_eq!(e["error"], refused(), "{e}");
    c.close().await;
}

#[tokio::test]
async fn a_hand_written_prompt_asks_without_state_in_both_eras() {
    let mut c = StdioClient::spawn(example_bin("everything"));
    let get = json!({"name": "handwritten_topic"});
    let r1 = modern(&mut c, "prompts/get", get.clone(), json!({"elicitation": {}}), None).await;
    let (requests, state) = input_required(&r1);
    let ask = &requests.expect("a request")["topic"];
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(ask["params"]["requestedSchema"]["properties"]["topic"]["type"], "string");
    let answer = json!({"topic": {"action": "accept", "content": {"topic": "Rust"}}});
    let r2 = modern(&mut c, "prompts/get", get, json!({"elicitation": {}}), Some((answer, &state))).await;
    assert_eq!(r2["result"]["resultType"], "complete", "{r2}");
    assert_eq!(r2["result"]["messages"][0]["content"]["text"], "Write about Rust");
    c.close().await;

    let mut c = StdioClient::spawn(example_bin("everything"));
    c.initialize_declaring("2025-11-25", json!({"elicitation": {}})).await;
    let (r, asked) = c
        .request_answering("prompts/get", json!({"name": "handwritten_topic"}), |_| Ok(json!({"action": "decline"})))
        .await;
    assert_eq!(asked.len(), 1);
    assert_eq!(r["result"]["messages"][0]["content"]["text"], "Write about anything", "{r}");
    c.close().await;
}

#[tokio::test]
async fn a_plain_tool_handler_flow_runs_in_both_eras_over_stdio() {
    let opinion = |params: &Value| {
        let question = params["message"].as_str().unwrap().to_owned();
        json!({"action": "accept", "content": {"answer": format!("re: {question}")}})
    };
    let summary = json!({"role": "assistant", "content": {"type": "text", "text": "short"}, "model": "m"});
    let caps = json!({"elicitation": {}, "sampling": {}});
    let call = json!({"name": "handwritten_opinion", "arguments": {"topic": "tea"}});
    let expected = "tea: re: What do you think of tea? (short)";

    let mut c = StdioClient::spawn(example_bin("everything"));
    let r1 = modern(&mut c, "tools/call", call.clone(), caps.clone(), None).await;
    let (requests, state) = input_required(&r1);
    let ask = &requests.expect("a request")["opinion"];
    assert_eq!(ask["method"], "elicitation/create", "{r1}");
    let r2 = modern(
        &mut c,
        "tools/call",
        call.clone(),
        caps.clone(),
        Some((json!({"opinion": opinion(&ask["params"])}), &state)),
    )
    .await;
    let (requests, state) = input_required(&r2);
    assert_eq!(requests.expect("a request")["summary"]["method"], "sampling/createMessage", "{r2}");
    let r3 =
        modern(&mut c, "tools/call", call.clone(), caps.clone(), Some((json!({"summary": summary}), &state))).await;
    assert_eq!(first_text(&r3["result"]), expected, "{r3}");
    c.close().await;

    let mut c = StdioClient::spawn(example_bin("everything"));
    c.initialize_declaring("2025-11-25", caps).await;
    let (r, asked) = c
        .request_answering("tools/call", call, |req| match req["method"].as_str().unwrap() {
            "elicitation/create" => Ok(opinion(&req["params"])),
            _ => Ok(summary.clone()),
        })
        .await;
    assert_eq!(first_text(&r["result"]), expected, "{r}");
    assert_eq!(asked.len(), 2);
    c.close().await;
}

// ---- HTTP ------------------------------------------------------------------------------------------------

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

#[tokio::test]
async fn a_hand_written_tool_runs_its_rounds_over_http() {
    // Modern: rounds by hand, with the state sealed into requestState.
    let s = HttpServer::spawn(fixture()).await;
    let caps = json!({"roots": {}});
    let args = json!({"extra": 1});
    let r1 = s.modern_declaring(1, "tools/call", json!({"name": "handmade", "arguments": args}), caps.clone()).await;
    let r1 = r1.json();
    let (requests, state) = input_required(&r1);
    assert!(requests.is_some_and(|r| r.contains_key("roots")), "{r1}");
    let tampered = tamper(&state);
    let retry = |state: &str, responses: Value| json!({"name": "handmade", "arguments": args, "requestState": state, "inputResponses": responses});
    let e = s.modern_declaring(2, "tools/call", retry(&tampered, json!({"roots": roots()})), caps.clone()).await;
    assert_eq!((e.status, e.json()["error"].clone()), (200, refused()), "{e:?}");
    let r2 = s.modern_declaring(3, "tools/call", retry(&state, json!({"roots": roots()})), caps.clone()).await;
    let r2 = r2.json();
    let (requests, state) = input_required(&r2);
    assert!(requests.is_none(), "{r2}");
    let done = s.modern_declaring(4, "tools/call", retry(&state, json!({})), caps).await.json();
    assert_eq!(first_text(&done["result"]), "file:///a,file:///b after 3 rounds", "{done}");

    // Legacy with a session: the shim asks on the POST's stream.
    let session = s.legacy_session("2025-11-25", json!({"roots": {}})).await;
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let mut stream = s.open(&headers, &call(5, "handmade", json!({"extra": 1}))).await;
    let ask = stream.next().await.expect("a roots request");
    assert_eq!(ask["method"], "roots/list");
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": roots()});
    assert_eq!(s.post(&headers, &answer).await.status, 202);
    let done = stream.next().await.expect("the result");
    assert_eq!(first_text(&done["result"]), "file:///a,file:///b after 3 rounds", "{done}");

    // Legacy without sessions: state-only rounds run in process, so the refusal of a state that does not
    // read back is reached there too; asking the client can't be.
    let s = HttpServer::spawn_with_env(fixture(), &[("FASTMCP_STATELESS", "true")]).await;
    let alone = [("MCP-Protocol-Version", "2025-11-25")];
    let r = s.post(&alone, &call(6, "handmade_mismatch", json!({}))).await;
    assert_eq!(r.json()["error"], refused(), "{r:?}");
    let r = s.post(&alone, &call(7, "handmade", json!({"extra": 1}))).await.json();
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(first_text(&r["result"]).contains("state-only"), "{r}");
}

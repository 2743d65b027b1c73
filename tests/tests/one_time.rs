//! One-time rounds on the server's default in-memory store: the final round of a `destructive` or
//! `#[tool(once)]` flow runs once per token — a replay is `-32602` `request_state_consumed`, of concurrent
//! replays exactly one runs — while other tools' rounds may be sent again. Over HTTP (an in-process server)
//! and over stdio (the `deploy` example's process). The same on Redis, across replicas, is in `redis.rs`.
//!
//! The legacy era has nothing to replay: its shim runs every round of a call inside the one `tools/call`
//! (sessions and stateless HTTP alike), so no request state reaches the client; each legacy call is a fresh
//! call, which `legacy_calls_of_a_one_time_tool_are_fresh_calls` shows.

use fastmcp::prelude::*;
use fastmcp::state::RequestStateConfig;
use fastmcp_tests::{
    HttpReply, InProcess, StdioClient, example_bin, first_text, modern_meta, send_http_from, serve_in_process,
};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::time::Instant;

/// The client the tests' requests come from, and another one, told apart by address.
const ONE: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);
const OTHER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

#[elicit]
struct Confirm {
    yes: bool,
}

/// Times each call's final segment ran (by tool and argument), so a test can tell "refused" from "ran and
/// answered late". Keyed by argument: the tests run at once, each with arguments of its own.
static RAN: Mutex<BTreeMap<String, usize>> = Mutex::new(BTreeMap::new());

fn count(call: String) {
    *RAN.lock().unwrap().entry(call).or_default() += 1;
}

fn ran(call: &str) -> usize {
    RAN.lock().unwrap().get(call).copied().unwrap_or(0)
}

/// Destructive: one-time without saying so.
#[tool(destructive)]
async fn wipe(disk: String) -> Result<String> {
    let answer = Confirm::elicit(format!("Wipe {disk}?")).ask().await?;
    count(format!("wipe {disk}"));
    Ok(format!("wiped {disk}: {}", answer.accepted().is_some_and(|c| c.yes)))
}

/// Not destructive, but one-time.
#[tool(once)]
async fn pay(amount: u32) -> Result<String> {
    let answer = Confirm::elicit(format!("Pay {amount}?")).ask().await?;
    count(format!("pay {amount}"));
    Ok(format!("paid {amount}: {}", answer.accepted().is_some_and(|c| c.yes)))
}

/// Neither: its final round may be sent again.
#[tool]
async fn preview(page: u32) -> Result<String> {
    let answer = Confirm::elicit(format!("Preview {page}?")).ask().await?;
    count(format!("preview {page}"));
    Ok(format!("previewed {page}: {}", answer.accepted().is_some_and(|c| c.yes)))
}

async fn server() -> InProcess {
    serve_in_process(FastMcp::new("one-time").tool(wipe).tool(pay).tool(preview).build().unwrap()).await
}

/// A `tools/call` of `name`, its first round or (with answers and state) a retry.
fn call_params(name: &str, arguments: Value, retry: Option<(&Value, &str)>) -> Value {
    let mut params = json!({"_meta": modern_meta(json!({"elicitation": {}})), "name": name, "arguments": arguments});
    if let Some((responses, state)) = retry {
        params["inputResponses"] = responses.clone();
        params["requestState"] = json!(state);
    }
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
}

async fn call(s: &InProcess, name: &str, arguments: Value, retry: Option<(&Value, &str)>) -> Value {
    call_from(ONE, s, name, arguments, retry).await
}

async fn call_from(from: IpAddr, s: &InProcess, name: &str, arguments: Value, retry: Option<(&Value, &str)>) -> Value {
    post_from(from, s, name, arguments, retry).await.response()
}

async fn post_from(
    from: IpAddr,
    s: &InProcess,
    name: &str,
    arguments: Value,
    retry: Option<(&Value, &str)>,
) -> HttpReply {
    let body = call_params(name, arguments, retry).to_string();
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", name),
    ];
    send_http_from(from, s.addr, "POST", "/mcp", &headers, &body).await
}

/// Round 1 of `name`: the answer to its one question (yes) and the state of the final round.
async fn final_round(s: &InProcess, name: &str, arguments: &Value) -> (Value, String) {
    final_round_from(ONE, s, name, arguments).await
}

async fn final_round_from(from: IpAddr, s: &InProcess, name: &str, arguments: &Value) -> (Value, String) {
    let r = call_from(from, s, name, arguments.clone(), None).await;
    answers_and_state(&r)
}

/// The answer (yes) to a round's one question, and its state.
fn answers_and_state(r: &Value) -> (Value, String) {
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    let key = r["result"]["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let state = r["result"]["requestState"].as_str().unwrap().to_owned();
    (json!({ key: {"action": "accept", "content": {"yes": true}} }), state)
}

fn assert_consumed(response: &Value) {
    assert_eq!(response["error"]["code"], -32602, "{response}");
    assert_eq!(response["error"]["message"], "Invalid or expired requestState", "{response}");
    assert_eq!(response["error"]["data"]["reason"], "request_state_consumed", "{response}");
}

#[tokio::test]
async fn a_replayed_final_round_of_a_one_time_tool_is_refused_and_does_not_run() {
    let s = server().await;
    for (name, arguments, counted, text) in [
        ("wipe", json!({"disk": "sda"}), "wipe sda", "wiped sda: true"),
        ("pay", json!({"amount": 5}), "pay 5", "paid 5: true"),
    ] {
        let (answers, state) = final_round(&s, name, &arguments).await;
        let done = call(&s, name, arguments.clone(), Some((&answers, &state))).await;
        assert_eq!(first_text(&done["result"]), text, "{done}");
        let before = ran(counted);
        assert_consumed(&call(&s, name, arguments.clone(), Some((&answers, &state))).await);
        assert_eq!(ran(counted), before, "`{name}`'s final segment did not run again");
        // A new flow of the same call is a new token: it runs.
        let (answers, state) = final_round(&s, name, &arguments).await;
        let again = call(&s, name, arguments, Some((&answers, &state))).await;
        assert_eq!(first_text(&again["result"]), text, "{again}");
    }
}

#[tokio::test]
async fn other_tools_final_rounds_may_be_sent_again() {
    let s = server().await;
    let arguments = json!({"page": 2});
    let (answers, state) = final_round(&s, "preview", &arguments).await;
    for _ in 0..2 {
        let done = call(&s, "preview", arguments.clone(), Some((&answers, &state))).await;
        assert_eq!(first_text(&done["result"]), "previewed 2: true", "{done}");
    }
}

#[tokio::test]
async fn of_concurrent_replays_exactly_one_runs() {
    let s = Arc::new(server().await);
    let arguments = json!({"disk": "race"});
    let (answers, state) = final_round(&s, "wipe", &arguments).await;
    let before = ran("wipe race");
    let sends: Vec<_> = (0..8)
        .map(|_| {
            let (s, answers, state, arguments) = (s.clone(), answers.clone(), state.clone(), arguments.clone());
            tokio::spawn(async move { call(&s, "wipe", arguments, Some((&answers, &state))).await })
        })
        .collect();
    let mut answered = Vec::new();
    for send in sends {
        answered.push(send.await.unwrap());
    }
    let complete = answered.iter().filter(|r| r["result"]["resultType"] == "complete").count();
    assert_eq!(complete, 1, "{answered:#?}");
    answered.iter().filter(|r| r.get("error").is_some()).for_each(assert_consumed);
    assert_eq!(ran("wipe race"), before + 1, "exactly one of the replays ran the final segment");
}

#[tokio::test]
async fn a_final_round_refused_for_its_answers_can_be_answered_again() {
    let s = server().await;
    let arguments = json!({"amount": 9});
    let (answers, state) = final_round(&s, "pay", &arguments).await;
    let key = answers.as_object().unwrap().keys().next().unwrap().clone();
    let malformed = json!({ &key: {"action": "accept", "content": {"yes": "certainly"}} });
    let refused = call(&s, "pay", arguments.clone(), Some((&malformed, &state))).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_ne!(refused["error"]["data"]["reason"], "request_state_consumed", "{refused}");
    let done = call(&s, "pay", arguments.clone(), Some((&answers, &state))).await;
    assert_eq!(first_text(&done["result"]), "paid 9: true", "{done}");
    assert_consumed(&call(&s, "pay", arguments, Some((&answers, &state))).await);
}

#[tokio::test]
async fn over_stdio_a_replayed_final_round_is_refused() {
    let mut c = StdioClient::spawn(example_bin("deploy"));
    let caps = json!({"elicitation": {}, "sampling": {}});
    let args = json!({"service": "api", "replicas": 1});
    let call = |responses: Option<(Value, &str)>| {
        let mut params = json!({"_meta": modern_meta(caps.clone()), "name": "deploy", "arguments": args.clone()});
        if let Some((responses, state)) = responses {
            params["inputResponses"] = responses;
            params["requestState"] = json!(state);
        }
        params
    };
    let r = c.request("tools/call", call(None)).await;
    let key = r["result"]["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let state = r["result"]["requestState"].as_str().unwrap().to_owned();
    // Declining ends the call in round 2: the final round.
    let decline = json!({ key: {"action": "decline"} });
    let done = c.request("tools/call", call(Some((decline.clone(), &state)))).await;
    assert_eq!(first_text(&done["result"]), "Deployment of api cancelled.", "{done}");
    assert_consumed(&c.request("tools/call", call(Some((decline, &state)))).await);
    assert!(c.close().await.0.success());
}

#[tokio::test]
async fn legacy_calls_of_a_one_time_tool_are_fresh_calls() {
    let mut c = StdioClient::spawn(example_bin("deploy"));
    c.initialize_declaring("2025-06-18", json!({"elicitation": {}, "sampling": {}})).await;
    for _ in 0..2 {
        let params = json!({"name": "deploy", "arguments": {"service": "web", "replicas": 1}});
        let (done, asked) = c
            .request_answering("tools/call", params, |request| match request["method"].as_str() {
                Some("elicitation/create") => Ok(json!({"action": "decline"})),
                other => panic!("unexpected request {other:?}"),
            })
            .await;
        assert_eq!(asked.len(), 1, "each call asks afresh: {asked:?}");
        assert_eq!(first_text(&done["result"]), "Deployment of web cancelled.", "{done}");
    }
}

/// A server whose one-time rounds a client may keep one of at once, each for `ttl`.
fn one_each(ttl: Duration) -> fastmcp::Server {
    let state = RequestStateConfig::default().ttl(ttl);
    FastMcp::new("one-time").tool(pay).max_one_time_rounds_per_client(1).request_state(state).build().unwrap()
}

/// A client completing one-time flows keeps its own share of the consumed-round records, not the store's: past
/// `max_one_time_rounds_per_client` its final round is refused (429 with `Retry-After`, and `-32603` naming the
/// limit, with `data.retryAfter`) without running or using up its token, while another client's flows
/// complete. Once the client's oldest record expires, the refused round runs, once.
#[tokio::test]
async fn over_http_a_client_keeps_its_share_of_consumed_rounds_and_another_client_its_own() {
    let ttl = Duration::from_secs(2);
    let s = serve_in_process(one_each(ttl)).await;
    let started = Instant::now();
    let (answers, state) = final_round_from(ONE, &s, "pay", &json!({"amount": 21})).await;
    let done = call_from(ONE, &s, "pay", json!({"amount": 21}), Some((&answers, &state))).await;
    assert_eq!(first_text(&done["result"]), "paid 21: true", "{done}");

    // Minted a second after the first: it outlives the first's record by as much.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (answers, state) = final_round_from(ONE, &s, "pay", &json!({"amount": 22})).await;
    let reply = post_from(ONE, &s, "pay", json!({"amount": 22}), Some((&answers, &state))).await;
    assert_eq!(reply.status, 429, "{}", reply.body);
    // The first record ends within the second left of its TTL.
    assert_eq!(reply.header("retry-after"), Some("1"), "{:?}", reply.headers);
    let refused = reply.response();
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert_eq!(refused["error"]["data"], json!({"retryAfter": 1}), "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("keeps 1 consumed one-time rounds already"), "{refused}");
    assert!(message.contains("FastMcp::max_one_time_rounds_per_client"), "{refused}");
    assert_eq!(ran("pay 22"), 0, "the refused round did not run");

    let (other_answers, other_state) = final_round_from(OTHER, &s, "pay", &json!({"amount": 23})).await;
    let other = call_from(OTHER, &s, "pay", json!({"amount": 23}), Some((&other_answers, &other_state))).await;
    assert_eq!(first_text(&other["result"]), "paid 23: true", "another client has its own share: {other}");

    tokio::time::sleep_until(started + ttl + Duration::from_millis(300)).await;
    let done = call_from(ONE, &s, "pay", json!({"amount": 22}), Some((&answers, &state))).await;
    assert_eq!(first_text(&done["result"]), "paid 22: true", "the refused token was left unused: {done}");
    assert_eq!(ran("pay 22"), 1);
    assert_consumed(&call_from(ONE, &s, "pay", json!({"amount": 22}), Some((&answers, &state))).await);
}

/// Stdio's anonymous client has neither a principal nor an address to be counted by: its records count
/// against the store's bound only, so a share of one does not stop its second flow.
#[tokio::test]
async fn over_stdio_the_one_client_is_held_to_the_stores_bound_only() {
    let (client, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    let server = one_each(Duration::from_secs(60));
    tokio::spawn(async move { server.serve_io(server_read, server_write).await });
    let (read, mut write) = tokio::io::split(client);
    let mut lines = BufReader::new(read).lines();
    let mut request = async |message: Value| {
        write.write_all(format!("{message}\n").as_bytes()).await.unwrap();
        let line = lines.next_line().await.unwrap().expect("an answer");
        serde_json::from_str::<Value>(&line).unwrap()
    };
    for amount in [31, 32] {
        let (answers, state) = answers_and_state(&request(call_params("pay", json!({"amount": amount}), None)).await);
        let retry = call_params("pay", json!({"amount": amount}), Some((&answers, &state)));
        let done = request(retry.clone()).await;
        assert_eq!(first_text(&done["result"]), format!("paid {amount}: true"), "{done}");
        assert_consumed(&request(retry).await);
    }
}

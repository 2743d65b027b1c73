//! The request context over stdio, in both eras: logging and its gating, logger names, progress, session
//! state (one per connection, shared by both eras), `on_close`, the ambient context and carrying it into
//! spawned tasks, no HTTP request, cancellation that stops the handler, tool timeouts, and the deprecated
//! push calls.

use fastmcp_tests::{StdioClient, first_text, modern_meta};
use serde_json::{Value, json};
use std::time::Duration;

fn fixture() -> StdioClient {
    StdioClient::spawn(env!("CARGO_BIN_EXE_fixture").into())
}

/// The fixture in one era: initialized on the legacy protocol, or modern with the `_meta` each request
/// carries (legacy requests carry an empty one).
async fn fixture_in(modern: bool) -> (StdioClient, Value) {
    let mut c = fixture();
    if !modern {
        c.initialize("2025-11-25").await;
    }
    (c, if modern { modern_meta(json!({})) } else { json!({}) })
}

/// Sends a request and collects the notifications that arrive before its response.
async fn with_notifications(c: &mut StdioClient, id: &str, method: &str, params: Value) -> (Value, Vec<Value>) {
    c.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
    let mut notes = Vec::new();
    loop {
        let msg = c.recv().await;
        if msg["id"] == id {
            return (msg, notes);
        }
        notes.push(msg);
    }
}

fn levels(notes: &[Value]) -> Vec<String> {
    notes
        .iter()
        .filter(|n| n["method"] == "notifications/message")
        .map(|n| n["params"]["level"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn legacy_logs_follow_set_level() {
    let mut c = fixture();
    c.initialize("2025-11-25").await;
    let (r, notes) = with_notifications(&mut c, "a", "tools/call", json!({"name": "log_all"})).await;
    assert_eq!(first_text(&r["result"]), "logged");
    assert_eq!(levels(&notes).len(), 8, "every level until the client sets one: {notes:?}");
    c.request("logging/setLevel", json!({"level": "error"})).await;
    let (_, notes) = with_notifications(&mut c, "b", "tools/call", json!({"name": "log_all"})).await;
    assert_eq!(levels(&notes), ["error", "critical", "alert", "emergency"]);
    assert_eq!(notes[0]["params"]["data"], "Error");
    c.close().await;
}

#[tokio::test]
async fn modern_logs_only_when_the_request_asks() {
    let mut c = fixture();
    let mut params = json!({"_meta": modern_meta(json!({})), "name": "log_all"});
    let (r, notes) = with_notifications(&mut c, "a", "tools/call", params.clone()).await;
    assert_eq!(r["result"]["resultType"], "complete");
    assert!(levels(&notes).is_empty(), "no logLevel, no logs: {notes:?}");
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("warning");
    let (_, notes) = with_notifications(&mut c, "b", "tools/call", params).await;
    assert_eq!(levels(&notes), ["warning", "error", "critical", "alert", "emergency"]);
    c.close().await;
}

#[tokio::test]
async fn progress_needs_a_token_and_only_increases() {
    for modern in [false, true] {
        let (mut c, mut meta) = fixture_in(modern).await;
        let (_, notes) = with_notifications(
            &mut c,
            "a",
            "tools/call",
            json!({"_meta": meta.clone(), "name": "progress", "arguments": {"steps": 3}}),
        )
        .await;
        assert!(notes.is_empty(), "no token, no progress (modern: {modern}): {notes:?}");
        meta["progressToken"] = json!("tok");
        let (r, notes) = with_notifications(
            &mut c,
            "b",
            "tools/call",
            json!({"_meta": meta, "name": "progress", "arguments": {"steps": 3}}),
        )
        .await;
        assert_eq!(first_text(&r["result"]), "done");
        let values: Vec<f64> = notes.iter().map(|n| n["params"]["progress"].as_f64().unwrap()).collect();
        assert_eq!(values, [1.0, 2.0, 3.0], "modern: {modern}");
        assert!(notes.iter().all(|n| n["method"] == "notifications/progress" && n["params"]["progressToken"] == "tok"));
        assert_eq!(notes[2]["params"]["total"], 3.0);
        assert_eq!(notes[0]["params"]["message"], "step 1");
        c.close().await;
    }
}

#[tokio::test]
async fn session_state_persists_on_stdio_in_both_eras() {
    let remember = |key: &str, value: &str| json!({"name": "remember", "arguments": {"key": key, "value": value}});
    let recall = |key: &str| json!({"name": "recall", "arguments": {"key": key}});
    // One process, one client: a legacy session and modern requests on the same connection share one state.
    let mut c = fixture();
    c.initialize("2025-11-25").await;
    let r = c.request("tools/call", remember("k", "v")).await;
    assert_eq!(first_text(&r["result"]), "remembered");
    let r = c.request("tools/call", recall("k")).await;
    assert_eq!(first_text(&r["result"]), "v");
    let r = c.modern("tools/call", recall("k")).await;
    assert_eq!(first_text(&r["result"]), "v", "a modern request sees the legacy session's state: {r}");
    let r = c.modern("tools/call", remember("m", "w")).await;
    assert_eq!(first_text(&r["result"]), "remembered", "{r}");
    let r = c.request("tools/call", recall("m")).await;
    assert_eq!(first_text(&r["result"]), "w", "and the other way round: {r}");
    c.close().await;

    // Modern requests alone share it too.
    let mut c = fixture();
    let r = c.modern("tools/call", recall("k")).await;
    assert_eq!(first_text(&r["result"]), "<none>", "{r}");
    c.modern("tools/call", remember("k", "modern")).await;
    let r = c.modern("tools/call", recall("k")).await;
    assert_eq!(first_text(&r["result"]), "modern", "{r}");
    c.close().await;
}

#[tokio::test]
async fn log_messages_carry_the_logger_name() {
    for modern in [false, true] {
        let mut c = fixture();
        let mut meta = json!({});
        if modern {
            meta = modern_meta(json!({}));
            meta["io.modelcontextprotocol/logLevel"] = json!("debug");
        } else {
            c.initialize("2025-11-25").await;
        }
        let (r, notes) =
            with_notifications(&mut c, "l", "tools/call", json!({"_meta": meta, "name": "log_named"})).await;
        assert_eq!(first_text(&r["result"]), "logged", "{r}");
        let messages: Vec<&Value> = notes.iter().filter(|n| n["method"] == "notifications/message").collect();
        assert_eq!(messages.len(), 3, "modern: {modern}: {notes:?}");
        assert_eq!(messages[0]["params"], json!({"level": "info", "logger": "db", "data": "connected"}));
        assert_eq!(messages[1]["params"], json!({"level": "warning", "logger": "cache", "data": {"hit": false}}));
        assert_eq!(messages[2]["params"], json!({"level": "notice", "data": "no logger"}), "no logger field");
        c.close().await;
    }
}

#[tokio::test]
async fn stdio_has_no_http_request() {
    for modern in [false, true] {
        let mut c = fixture();
        let r = if modern {
            c.modern("tools/call", json!({"name": "http_info"})).await
        } else {
            c.initialize("2025-11-25").await;
            c.request("tools/call", json!({"name": "http_info"})).await
        };
        assert_eq!(r["result"]["structuredContent"]["result"], Value::Null, "modern: {modern}: {r}");
        c.close().await;
    }
}

#[tokio::test]
async fn the_context_goes_into_tasks_spawned_with_it() {
    let mut c = fixture();
    c.initialize("2025-11-25").await;
    c.send(&json!({"jsonrpc": "2.0", "id": "sp-1", "method": "tools/call", "params": {"name": "spawned"}})).await;
    let r = c.response(&json!("sp-1")).await;
    assert_eq!(first_text(&r["result"]), "carried=sp-1 plain=false", "{r}");
    c.close().await;
}

#[tokio::test]
async fn the_context_is_ambient() {
    let mut c = fixture();
    c.initialize("2025-11-25").await;
    c.send(&json!({"jsonrpc": "2.0", "id": "amb-1", "method": "tools/call", "params": {"name": "ambient"}})).await;
    let r = c.response(&json!("amb-1")).await;
    assert_eq!(first_text(&r["result"]), "amb-1");
    c.close().await;
}

#[tokio::test]
async fn a_cancelled_call_stops_and_gets_no_response() {
    for modern in [false, true] {
        let (mut c, meta) = fixture_in(modern).await;
        c.send(&json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call",
            "params": {"_meta": meta.clone(), "name": "slow_marker", "arguments": {"ms": 400}}}))
            .await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        // Past the handler's 400 ms by the time `marker` is called: it would have finished by then.
        let finished = cancel_then_call(&mut c, "slow", Duration::from_millis(600), meta, "marker").await;
        assert_eq!(finished, "false", "the handler never ran to its end (modern: {modern})");
        c.close().await;
    }
}

/// Cancels request `id`, waits `settle`, and calls `tool` (with `meta`): the next message must be that
/// call's answer, the cancelled request having got none. The tool's text.
async fn cancel_then_call(c: &mut StdioClient, id: &str, settle: Duration, meta: Value, tool: &str) -> String {
    c.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "changed my mind"}})).await;
    tokio::time::sleep(settle).await;
    c.send(&json!({"jsonrpc": "2.0", "id": "m", "method": "tools/call", "params": {"_meta": meta, "name": tool}}))
        .await;
    let next = c.recv().await;
    assert_eq!(next["id"], "m", "the cancelled request got no response: {next}");
    first_text(&next["result"]).to_owned()
}

/// The cancellation is handled while the handler is being polled to its end (on another thread): the
/// result it makes after that is not sent, as if the cancellation had come first. CI once saw the shim's
/// late answer win this race.
#[tokio::test]
async fn a_call_cancelled_as_it_finishes_gets_no_response() {
    for modern in [false, true] {
        let (mut c, meta) = fixture_in(modern).await;
        c.send(&json!({"jsonrpc": "2.0", "id": "o", "method": "tools/call",
            "params": {"_meta": meta.clone(), "name": "outlast_cancel"}}))
            .await;
        let holding = json!({"jsonrpc": "2.0", "id": "h", "method": "tools/call",
            "params": {"_meta": meta.clone(), "name": "outlast_holding"}});
        for tries in 0.. {
            c.send(&holding).await;
            if first_text(&c.recv().await["result"]) == "true" {
                break;
            }
            assert!(tries < 2000, "the handler holds its thread within 10 s (modern: {modern})");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let saw = cancel_then_call(&mut c, "o", Duration::ZERO, meta, "saw_cancel").await;
        assert_eq!(saw, "true", "the handler saw its cancellation while it ran (modern: {modern})");
        c.close().await;
    }
}

/// Calls `tool` (as request "o"), asking for progress, and checks that its first message comes within 1.5 s
/// and is the progress `message` (before the handler ends).
async fn progress_first(c: &mut StdioClient, meta: &Value, (tool, arguments): (&str, Value), message: &str) {
    let mut asking = meta.clone();
    asking["progressToken"] = json!("p");
    c.send(&json!({"jsonrpc": "2.0", "id": "o", "method": "tools/call",
        "params": {"_meta": asking, "name": tool, "arguments": arguments}}))
        .await;
    let wait = Duration::from_millis(1500);
    let note = tokio::time::timeout(wait, c.recv()).await;
    let note = note.unwrap_or_else(|_| panic!("the progress within {wait:?}, while {tool} runs"));
    assert_eq!(note["method"], "notifications/progress", "{note}");
    assert_eq!(note["params"]["message"], message, "{note}");
}

/// A handler that reports progress and then holds its thread (`block_in_place`, up to 10 s) or computes for
/// 3 s without awaiting anything (in its first poll, or after a first wait): the progress reaches the client
/// while it does, in both eras (over HTTP:
/// `http_streams::progress_reaches_the_stream_while_its_handler_*`).
#[tokio::test]
async fn progress_reaches_the_client_while_its_handler_holds_or_computes() {
    for modern in [false, true] {
        let (mut c, meta) = fixture_in(modern).await;
        progress_first(&mut c, &meta, ("outlast_cancel", json!({})), "holding").await;
        let saw = cancel_then_call(&mut c, "o", Duration::ZERO, meta.clone(), "saw_cancel").await;
        assert_eq!(saw, "true", "the handler saw its cancellation while it ran (modern: {modern})");
        for at_once in [false, true] {
            let spin = ("progress_then_spin", json!({"ms": 3000, "at_once": at_once}));
            progress_first(&mut c, &meta, spin, "spinning").await;
            assert_eq!(first_text(&c.recv().await["result"]), "spun", "modern: {modern}, at once: {at_once}");
        }
        c.close().await;
    }
}

#[tokio::test]
async fn a_tool_timeout_stops_the_handler() {
    let mut c =
        StdioClient::spawn_with_env(env!("CARGO_BIN_EXE_fixture").into(), &[("FIXTURE_TOOL_TIMEOUT_MS", "200")]);
    c.initialize("2025-11-25").await;
    let r = c.request("tools/call", json!({"name": "slow_marker", "arguments": {"ms": 600}})).await;
    assert_eq!(r["result"]["isError"], true);
    assert!(first_text(&r["result"]).contains("timed out after 200 ms"), "{r}");
    tokio::time::sleep(Duration::from_millis(700)).await;
    let r = c.request("tools/call", json!({"name": "marker"})).await;
    assert_eq!(first_text(&r["result"]), "false", "the timed-out handler was stopped");
    c.close().await;
}

#[tokio::test]
async fn a_tool_can_set_its_own_timeout() {
    let mut c = fixture();
    c.initialize("2025-11-25").await;
    let r = c.request("tools/call", json!({"name": "limited", "arguments": {"ms": 600}})).await;
    assert!(first_text(&r["result"]).contains("timed out after 200 ms"), "{r}");
    tokio::time::sleep(Duration::from_millis(700)).await;
    let r = c.request("tools/call", json!({"name": "marker"})).await;
    assert_eq!(first_text(&r["result"]), "false", "the timed-out handler was stopped");
    let r = c.request("tools/call", json!({"name": "limited", "arguments": {"ms": 1}})).await;
    assert_eq!(first_text(&r["result"]), "finished", "within its limit it runs to the end");
    c.close().await;
}

#[tokio::test]
async fn push_calls_work_on_legacy_sessions_and_name_ask_elsewhere() {
    let mut c = fixture();
    c.initialize_declaring("2025-11-25", json!({"sampling": {}, "roots": {}})).await;
    let (r, asked) = c
        .request_answering("tools/call", json!({"name": "push_sample"}), |_| {
            Ok(json!({"role": "assistant", "content": {"type": "text", "text": "hi!"}, "model": "m"}))
        })
        .await;
    assert_eq!(first_text(&r["result"]), "hi!");
    assert_eq!(asked[0]["method"], "sampling/createMessage");
    assert_eq!(asked[0]["params"]["maxTokens"], 5);
    let (r, _) = c
        .request_answering("tools/call", json!({"name": "push_roots"}), |_| {
            Ok(json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}))
        })
        .await;
    assert_eq!(first_text(&r["result"]), "file:///a,file:///b");

    let r = c.modern("tools/call", json!({"name": "push_sample"})).await;
    assert_eq!(r["result"]["isError"], true);
    assert!(first_text(&r["result"]).contains("`.ask()`"), "{r}");
    c.close().await;

    let mut c = fixture();
    c.initialize_declaring("2025-11-25", json!({})).await;
    let r = c.request("tools/call", json!({"name": "push_sample"})).await;
    assert_eq!(r["result"]["isError"], true, "a client that never declared sampling is not asked: {r}");
    c.close().await;
}

#[tokio::test]
async fn on_close_runs_once_when_the_connection_ends_in_either_era() {
    for modern in [false, true] {
        let mut c = fixture();
        let r = if modern {
            c.modern("tools/call", json!({"name": "watch_close"})).await
        } else {
            c.initialize("2025-11-25").await;
            c.request("tools/call", json!({"name": "watch_close"})).await
        };
        assert_eq!(first_text(&r["result"]), "watching", "modern: {modern}: {r}");
        let r = c.request("tools/call", json!({"name": "closed_count", "_meta": meta(modern)})).await;
        assert_eq!(first_text(&r["result"]), "0", "not before the connection ends");
        let (status, stderr) = c.close().await;
        assert!(status.success());
        assert_eq!(stderr.matches("fixture: session closed").count(), 1, "modern: {modern}: {stderr}");
    }
}

fn meta(modern: bool) -> Value {
    if modern { modern_meta(json!({})) } else { json!({}) }
}

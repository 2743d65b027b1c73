//! The streams of Streamable HTTP over real sockets: legacy sessions' resumable SSE (priming events, event ids,
//! `Last-Event-ID`, the standalone `GET` stream) and modern `subscriptions/listen` (over HTTP and stdio).

use fastmcp_tests::{HttpServer, SseEvent, SseStream, StdioClient, example_bin, first_text, modern_meta};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fixture"))
}

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

/// A legacy `progress` call on the fixture: three progress notifications, then the response.
fn progress_call(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "progress", "arguments": {"steps": 3}, "_meta": {"progressToken": "p"}}})
}

/// Every event until the stream ends.
async fn drain(stream: &mut SseStream) -> Vec<SseEvent> {
    let mut events = Vec::new();
    while let Some(event) = stream.next_event().await {
        events.push(event);
    }
    events
}

fn assert_priming(event: &SseEvent, retry_ms: u64) -> u64 {
    assert_eq!(event.data.as_deref(), Some(""), "a priming event has empty data: {event:?}");
    assert_eq!(event.retry, Some(retry_ms), "and says when to reconnect: {event:?}");
    assert_eq!(event.event, None, "{event:?}");
    let (stream, seq) = event.id_parts();
    assert_eq!(seq, 0, "it is the stream's first event: {event:?}");
    stream
}

#[tokio::test]
async fn a_tool_call_stream_is_primed_and_its_event_ids_count_up() {
    let s = HttpServer::spawn_with_env(fixture(), &[("FIXTURE_SSE_REPLAY", "256,32,1500")]).await;
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let mut stream = s.open(&headers, &progress_call(2)).await;
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    assert_eq!(stream.header("cache-control"), Some("no-cache"));
    assert_eq!(stream.header("x-accel-buffering"), Some("no"));
    let events = drain(&mut stream).await;
    let number = assert_priming(&events[0], 1500);
    assert_eq!(events.len(), 5, "priming, three progress notifications, the response: {events:?}");
    for (seq, event) in events.iter().enumerate().skip(1) {
        assert_eq!(event.id_parts(), (number, seq as u64), "ids are <stream>-<seq>, one apart: {events:?}");
        assert_eq!(event.event.as_deref(), Some("message"));
        assert_eq!(event.retry, None, "only the priming event carries retry");
    }
    let progress: Vec<Value> = events[1..4].iter().map(|e| e.json()["params"]["progress"].clone()).collect();
    assert_eq!(progress, [json!(1.0), json!(2.0), json!(3.0)]);
    assert_eq!(events[4].json()["id"], 2);
    assert_eq!(first_text(&events[4].json()["result"]), "done");

    // The next call gets a stream of its own, numbered after this one and starting again at 0.
    let mut next = s.open(&headers, &call(3, "marker", json!({}))).await;
    let events = drain(&mut next).await;
    let second = assert_priming(&events[0], 1500);
    assert!(second > number, "streams are numbered in order: {number} then {second}");
    assert_eq!(events[1].id_parts(), (second, 1));
    assert_eq!(events[1].json()["id"], 3);
}

/// A legacy call the client cancels, in a POST of its own, as its handler finishes (see
/// `context_stdio::a_call_cancelled_as_it_finishes_gets_no_response`): the call's stream ends without its
/// response.
#[tokio::test]
async fn a_legacy_call_cancelled_as_it_finishes_ends_its_stream_without_a_response() {
    let s = HttpServer::spawn(fixture()).await;
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let mut stream = s.open(&headers, &call(2, "outlast_cancel", json!({}))).await;
    for tries in 0.. {
        let holding = s.post(&headers, &call(3, "outlast_holding", json!({}))).await.response();
        if first_text(&holding["result"]) == "true" {
            break;
        }
        assert!(tries < 2000, "the handler holds its thread within 10 s");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}});
    assert_eq!(s.post(&headers, &cancel).await.status, 202);
    let saw = s.post(&headers, &call(4, "saw_cancel", json!({}))).await.response();
    assert_eq!(first_text(&saw["result"]), "true", "the handler saw its cancellation while it ran: {saw}");
    let after: Vec<SseEvent> = drain(&mut stream).await.into_iter().filter(SseEvent::is_message).collect();
    assert!(after.is_empty(), "the stream ends without the call's response: {after:?}");
}

/// A call of `tool` that asks for progress, in the legacy `session` or (without one) as a modern request: its
/// stream, once its first message came within `wait`, the progress `message` (before the handler ends).
async fn progress_first(
    s: &HttpServer,
    session: Option<&str>,
    (tool, arguments): (&str, Value),
    message: &str,
    wait: Duration,
) -> SseStream {
    let mut meta = json!({"progressToken": "p"});
    let headers = match session {
        Some(session) => vec![("MCP-Protocol-Version", "2025-11-25"), ("Mcp-Session-Id", session)],
        None => {
            meta.as_object_mut().unwrap().extend(modern_meta(json!({})).as_object().unwrap().clone());
            vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", tool)]
        }
    };
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": meta}});
    let mut stream = s.open(&headers, &body).await;
    let era = if session.is_some() { "legacy" } else { "modern" };
    let event = loop {
        let event = stream.next_event_within(wait).await;
        let event = event.unwrap_or_else(|()| panic!("{era}: the progress within {wait:?}, while {tool} runs"));
        let event = event.unwrap_or_else(|| panic!("{era}: the stream goes on while {tool} runs"));
        if event.is_message() {
            break event;
        }
    };
    assert_eq!(event.json()["method"], "notifications/progress", "{era}: the first message: {event:?}");
    assert_eq!(event.json()["params"]["message"], message, "{era}: {event:?}");
    stream
}

/// A handler that reports progress and then holds its thread (`block_in_place`, up to 10 s): the progress
/// reaches the client while it holds, in both eras, as it does over stdio. (A legacy stream's messages once
/// went into its log only when the handler's task was polled.)
#[tokio::test]
async fn progress_reaches_the_stream_while_its_handler_holds_its_thread() {
    let s = HttpServer::spawn(fixture()).await;
    let outlast = || ("outlast_cancel", json!({}));
    let wait = Duration::from_secs(5);
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let mut stream = progress_first(&s, Some(&session), outlast(), "holding", wait).await;
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}});
    assert_eq!(s.post(&headers, &cancel).await.status, 202, "the cancellation lets the handler go");
    drain(&mut stream).await;
    // Closing a modern stream cancels its request, which lets the handler go.
    drop(progress_first(&s, None, outlast(), "holding", wait).await);
}

/// A handler that reports progress and then computes for 3 s without awaiting anything, in its first poll or
/// after a first wait: the progress reaches the client while it computes (within 1.5 s), in both eras.
#[tokio::test]
async fn progress_reaches_the_stream_while_its_handler_computes_without_yielding() {
    let s = HttpServer::spawn(fixture()).await;
    let session = s.legacy_session("2025-11-25", json!({})).await;
    for at_once in [false, true] {
        for session in [Some(session.as_str()), None] {
            let spin = ("progress_then_spin", json!({"ms": 3000, "at_once": at_once}));
            let mut stream = progress_first(&s, session, spin, "spinning", Duration::from_millis(1500)).await;
            let events = drain(&mut stream).await;
            let response = events.iter().find(|e| e.is_message()).expect("the response follows").json();
            assert_eq!(first_text(&response["result"]), "spun", "at once: {at_once}: {response}");
        }
    }
}

#[tokio::test]
async fn sessions_before_2025_11_25_get_no_priming_event() {
    let s = HttpServer::spawn(fixture()).await;
    for version in ["2025-06-18", "2025-03-26"] {
        let session = s.legacy_session(version, json!({})).await;
        let mut stream = s.open(&[("Mcp-Session-Id", &session)], &progress_call(2)).await;
        let events = drain(&mut stream).await;
        assert_eq!(events.len(), 4, "{version}: three progress notifications and the response: {events:?}");
        assert!(events.iter().all(SseEvent::is_message), "{version}: no empty-data event: {events:?}");
        assert!(events.iter().all(|e| e.retry.is_none()), "{version}: no retry: {events:?}");
        assert_eq!(events[0].json()["method"], "notifications/progress", "{version}");
        assert_eq!(events[3].json()["id"], 2, "{version}");
    }
}

#[tokio::test]
async fn a_stream_closed_mid_call_is_resumed_with_last_event_id() {
    let s = HttpServer::spawn(example_bin("everything")).await;
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let mut stream = s.open(&[("Mcp-Session-Id", &session)], &call(5, "test_reconnection", json!({}))).await;
    let priming = stream.next_event().await.expect("a priming event");
    let number = assert_priming(&priming, 1000);
    // The tool closes the stream: it ends with no response on it.
    assert_eq!(stream.next_event().await, None, "the stream ends after the priming event");

    let last = priming.id.clone().unwrap();
    let mut resumed = s.get(&[("Mcp-Session-Id", &session), ("Last-Event-ID", &last)]).await;
    assert_eq!(resumed.status, 200);
    assert_eq!(resumed.header("content-type"), Some("text/event-stream"));
    let events = drain(&mut resumed).await;
    assert_eq!(events.len(), 1, "only the response followed: {events:?}");
    assert_eq!(events[0].id_parts(), (number, 1), "the same stream, the next id");
    let response = events[0].json();
    assert_eq!(response["id"], 5);
    assert_eq!(
        first_text(&response["result"]),
        "Reconnection test completed: the stream was closed mid-call and the result delivered after reconnecting"
    );
}

/// A session before 2025-11-25 gets no priming event, so a stream closed before its first message leaves the
/// client with no event id to resume from: the server must not close it (the tool should see there is no
/// resumable stream, as on stdio), and the result must arrive on the POST's own stream.
#[tokio::test]
async fn a_stream_without_event_ids_is_not_closed_mid_call() {
    let s = HttpServer::spawn(example_bin("everything")).await;
    let session = s.legacy_session("2025-06-18", json!({})).await;
    let mut stream = s.open(&[("Mcp-Session-Id", &session)], &call(5, "test_reconnection", json!({}))).await;
    let response = stream.next().await.expect("the response on the POST's stream");
    assert_eq!(response["id"], 5);
    assert!(first_text(&response["result"]).starts_with("Reconnection test completed"), "{response}");
}

#[tokio::test]
async fn a_finished_stream_replays_from_any_of_its_ids() {
    let s = HttpServer::spawn(fixture()).await;
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let mut stream = s.open(&[("Mcp-Session-Id", &session)], &progress_call(2)).await;
    let events = drain(&mut stream).await;
    assert_eq!(events.len(), 5, "{events:?}");
    for from in 0..events.len() {
        let last = events[from].id.clone().unwrap();
        let mut resumed = s.get(&[("Mcp-Session-Id", &session), ("Last-Event-ID", &last)]).await;
        assert_eq!(resumed.status, 200, "from {last}");
        let replayed = drain(&mut resumed).await;
        assert_eq!(replayed, events[from + 1..], "from {last}: exactly what followed, ids included");
    }
    // Replaying did not use the stream up.
    let mut again = s.get(&[("Mcp-Session-Id", &session), ("Last-Event-ID", events[0].id.as_deref().unwrap())]).await;
    assert_eq!(drain(&mut again).await.len(), 4);
}

#[tokio::test]
async fn the_standalone_get_stream_carries_list_changes() {
    let s = HttpServer::spawn(example_bin("everything")).await;
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let other = s.legacy_session("2025-11-25", json!({})).await;
    let mut standalone = s.get(&[("Mcp-Session-Id", &session)]).await;
    assert_eq!(standalone.status, 200);
    assert_eq!(standalone.header("content-type"), Some("text/event-stream"));
    let priming = standalone.next_event().await.expect("a priming event");
    let number = assert_priming(&priming, 1000);
    let mut elsewhere = s.get(&[("Mcp-Session-Id", &other)]).await;
    elsewhere.next_event().await.expect("a priming event");

    let trigger = s.post(&[("Mcp-Session-Id", &session)], &call(2, "test_trigger_tool_change", json!({}))).await;
    let on_post = trigger.messages();
    assert_eq!(on_post.len(), 1, "the POST's stream carries only its response: {on_post:?}");
    assert_eq!(first_text(&on_post[0]["result"]), "Tool list change notification sent");

    let note = standalone.next_message().await.expect("a list change");
    assert_eq!(note.json(), json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}}));
    assert_eq!(note.id_parts(), (number, 1), "numbered on the standalone stream");
    let note = elsewhere.next_message().await.expect("every session hears of it");
    assert_eq!(note.json()["method"], "notifications/tools/list_changed");

    s.post(&[("Mcp-Session-Id", &session)], &call(3, "test_trigger_prompt_change", json!({}))).await;
    let note = standalone.next_message().await.expect("a list change");
    assert_eq!(note.json()["method"], "notifications/prompts/list_changed");
    assert_eq!(note.id_parts(), (number, 2));
}

#[tokio::test]
async fn idle_long_lived_streams_carry_keep_alive_comments() {
    let s = HttpServer::spawn_with_env(fixture(), &[("FIXTURE_KEEP_ALIVE_MS", "100")]).await;
    // A modern listen stream.
    let mut listen = open_listen(&s, json!(1), json!({"toolsListChanged": true})).await;
    let ack = listen.next_event().await.expect("the acknowledgement");
    assert_eq!(ack.json()["method"], "notifications/subscriptions/acknowledged");
    for _ in 0..2 {
        let started = tokio::time::Instant::now();
        let idle = listen.next_event().await.expect("a keep-alive");
        assert_eq!(idle.comments, ["keep-alive"], "a comment line: {idle:?}");
        assert_eq!((idle.id, idle.data), (None, None), "and nothing else");
        assert!(started.elapsed() < Duration::from_secs(2), "about every 100 ms");
    }
    // A legacy session's standalone stream.
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let mut standalone = s.get(&[("Mcp-Session-Id", &session)]).await;
    assert!(!standalone.next_event().await.unwrap().is_message(), "the priming event");
    let idle = standalone.next_event().await.expect("a keep-alive");
    assert_eq!(idle.comments, ["keep-alive"], "{idle:?}");
}

/// Opens a modern `subscriptions/listen` stream asking for `notifications`.
async fn open_listen(s: &HttpServer, id: Value, notifications: Value) -> SseStream {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": {"_meta": modern_meta(json!({})), "notifications": notifications}});
    let stream = s.open(&[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "subscriptions/listen")], &body).await;
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    stream
}

#[tokio::test]
async fn listen_over_http_acknowledges_then_tags_each_notification() {
    let s = HttpServer::spawn(example_bin("everything")).await;
    let mut tools =
        open_listen(&s, json!("sub-1"), json!({"toolsListChanged": true, "resourceSubscriptions": ["x"]})).await;
    let ack = tools.next_event().await.expect("the acknowledgement");
    assert_eq!(ack.id, None, "modern streams have no event ids");
    assert_eq!(
        ack.json(),
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
            "params": {"_meta": {SUBSCRIPTION_ID: "sub-1"}, "notifications": {"toolsListChanged": true}}}),
        "a resource the server does not serve is not honoured, so not acknowledged"
    );
    let mut prompts = open_listen(&s, json!(7), json!({"promptsListChanged": true})).await;
    let ack = prompts.next().await.expect("the acknowledgement");
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], 7, "the id keeps its JSON type");
    assert_eq!(ack["params"]["notifications"], json!({"promptsListChanged": true}));

    let r = s.modern(2, "tools/call", json!({"name": "test_trigger_tool_change", "arguments": {}})).await;
    assert_eq!(first_text(&r.json()["result"]), "Tool list change notification sent");
    let note = tools.next().await.expect("the tool list change");
    assert_eq!(
        note,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
            "params": {"_meta": {SUBSCRIPTION_ID: "sub-1"}}})
    );
    // The prompts-only stream skipped that one: its next message is the prompt change.
    s.modern(3, "tools/call", json!({"name": "test_trigger_prompt_change", "arguments": {}})).await;
    let note = prompts.next().await.expect("the prompt list change");
    assert_eq!(note["method"], "notifications/prompts/list_changed", "no tool change first: {note}");
    assert_eq!(note["params"]["_meta"][SUBSCRIPTION_ID], 7);
    // ... and the tools-only stream skips the prompt change.
    s.modern(4, "tools/call", json!({"name": "test_trigger_tool_change", "arguments": {}})).await;
    assert_eq!(tools.next().await.expect("another tool change")["method"], "notifications/tools/list_changed");
}

#[tokio::test]
async fn listen_acknowledges_only_what_the_server_can_send() {
    // The fixture has tools and resources but no prompts.
    let s = HttpServer::spawn(fixture()).await;
    let asked = json!({"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true});
    let mut listen = open_listen(&s, json!(1), asked).await;
    let ack = listen.next().await.expect("the acknowledgement");
    assert_eq!(ack["params"]["notifications"], json!({"toolsListChanged": true, "resourcesListChanged": true}));
    let mut nothing = open_listen(&s, json!(2), json!({})).await;
    let ack = nothing.next().await.expect("the acknowledgement");
    assert_eq!(ack["params"]["notifications"], json!({}), "nothing asked, nothing honoured");
}

#[tokio::test]
async fn listen_over_stdio_acknowledges_tags_and_ends_on_cancel_with_no_response() {
    let mut c = StdioClient::spawn(example_bin("everything"));
    c.send(&json!({"jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen",
        "params": {"_meta": modern_meta(json!({})), "notifications": {"toolsListChanged": true}}}))
        .await;
    let ack = c.notification("notifications/subscriptions/acknowledged").await;
    assert_eq!(ack["params"], json!({"_meta": {SUBSCRIPTION_ID: "L"}, "notifications": {"toolsListChanged": true}}));

    let r = c.modern("tools/call", json!({"name": "test_trigger_tool_change", "arguments": {}})).await;
    assert_eq!(first_text(&r["result"]), "Tool list change notification sent");
    let note = c.notification("notifications/tools/list_changed").await;
    assert_eq!(note["params"], json!({"_meta": {SUBSCRIPTION_ID: "L"}}));

    c.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "L"}})).await;
    c.modern("tools/list", json!({})).await;
    // A change after the cancellation reaches nobody, and the listen request never gets a response.
    c.modern("tools/call", json!({"name": "test_trigger_tool_change", "arguments": {}})).await;
    let last = c.modern("tools/list", json!({})).await;
    assert!(last["result"]["tools"].is_array(), "{last}");
    let late = c.take_pending();
    assert!(late.is_empty(), "nothing for the ended subscription, no response to it: {late:?}");
    let (status, _) = c.close().await;
    assert!(status.success());
}

#[tokio::test]
async fn resumption_is_bounded_by_what_sse_replay_keeps() {
    // Two events per stream, two request streams per session (the standalone stream is not counted).
    let s = HttpServer::spawn_with_env(fixture(), &[("FIXTURE_SSE_REPLAY", "2,2,1000")]).await;
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let mut stream = s.open(&[("Mcp-Session-Id", &session)], &progress_call(2)).await;
    let events = drain(&mut stream).await;
    assert_eq!(events.len(), 5, "a reader never loses events, whatever is kept: {events:?}");
    let id = |i: usize| events[i].id.clone().unwrap();
    // Only the last two are kept: resuming before them would silently lose events.
    for from in [0, 1] {
        let r = s
            .send(
                "GET",
                &[("Accept", "text/event-stream"), ("Mcp-Session-Id", &session), ("Last-Event-ID", &id(from))],
                "",
            )
            .await;
        assert_eq!((r.status, r.json()["error"]["code"].clone()), (400, json!(-32600)), "from {}: {r:?}", id(from));
        assert!(r.json()["error"]["message"].as_str().unwrap().contains("no longer kept"), "{r:?}");
    }
    let mut resumed = s.get(&[("Mcp-Session-Id", &session), ("Last-Event-ID", &id(2))]).await;
    assert_eq!(drain(&mut resumed).await, events[3..], "from {}", id(2));

    // Two newer streams push the finished one out.
    for id in [3, 4] {
        let r = s.post(&[("Mcp-Session-Id", &session)], &call(id, "marker", json!({}))).await;
        assert_eq!(r.messages().len(), 1, "{r:?}");
    }
    let r = s
        .send("GET", &[("Accept", "text/event-stream"), ("Mcp-Session-Id", &session), ("Last-Event-ID", &id(3))], "")
        .await;
    assert_eq!((r.status, r.json()["error"]["code"].clone()), (400, json!(-32600)), "{r:?}");
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("no such stream"), "{r:?}");
}

#[tokio::test]
async fn resuming_a_live_stream_takes_it_over() {
    let s = HttpServer::spawn(fixture()).await;
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let mut original = s.open(&[("Mcp-Session-Id", &session)], &call(2, "sleep", json!({"ms": 300}))).await;
    let priming = original.next_event().await.expect("a priming event");
    let number = assert_priming(&priming, 1000);
    let mut resumed = s.get(&[("Mcp-Session-Id", &session), ("Last-Event-ID", priming.id.as_deref().unwrap())]).await;
    assert_eq!(resumed.status, 200);
    // One reader at a time: the original stream ends, the new one gets the response.
    assert_eq!(original.next_event().await, None, "the replaced reader stops");
    let events = drain(&mut resumed).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].id_parts(), (number, 1));
    assert_eq!(first_text(&events[0].json()["result"]), "slept 300ms");
}

//! Every error path of the wire, over a real process's stdio: the right code, the id echoed, and the
//! connection still serving afterwards.

use fastmcp_tests::{StdioClient, example_bin, modern_meta};
use serde_json::{Value, json};

fn quickstart() -> StdioClient {
    StdioClient::spawn(example_bin("quickstart"))
}

fn fixture() -> StdioClient {
    StdioClient::spawn(env!("CARGO_BIN_EXE_fixture").into())
}

fn code(response: &Value) -> i64 {
    response["error"]["code"].as_i64().unwrap_or_else(|| panic!("expected an error, got {response}"))
}

async fn still_alive(c: &mut StdioClient) {
    let pong = c.request("ping", json!({})).await;
    assert_eq!(pong["result"], json!({}), "the connection keeps serving");
}

#[tokio::test]
async fn malformed_lines_get_errors_and_the_connection_lives() {
    let mut c = quickstart();
    c.initialize("2025-11-25").await;
    for (line, want, id) in [
        ("{not json", -32700, Value::Null),
        ("[1, 2", -32700, Value::Null),
        (r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#, -32600, json!(7)),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, -32600, Value::Null),
        (r#"{"jsonrpc":"2.0","id":8,"method":5}"#, -32600, json!(8)),
        (r#"{"jsonrpc":"2.0","id":9,"method":"ping","params":3}"#, -32600, json!(9)),
        (r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#, -32600, Value::Null),
        ("[]", -32600, Value::Null),
        ("42", -32600, Value::Null),
        // JSON's whitespace is ASCII: a line of any other is no blank line, and not JSON.
        ("\u{a0}", -32700, Value::Null),
    ] {
        c.send_raw(line).await;
        let e = c.recv().await;
        assert_eq!(code(&e), want, "for {line}");
        assert_eq!(e["id"], id, "id echoed for {line}");
        assert_eq!(e["jsonrpc"], "2.0");
    }
    c.send_raw(" \t ").await; // blank lines are skipped, not answered
    still_alive(&mut c).await;
    assert!(c.close().await.0.success());
}

#[tokio::test]
async fn legacy_error_codes() {
    let mut c = quickstart();
    let early = c.request("tools/list", json!({})).await;
    assert_eq!(code(&early), -32600, "requests before initialize are refused: {early}");
    assert!(early["error"]["message"].as_str().unwrap().contains("initialize"));
    c.initialize("2025-11-25").await;
    let again = c.initialize_with("2025-11-25", json!({})).await;
    assert_eq!(code(&again), -32600, "a second initialize is refused");

    assert_eq!(code(&c.request("no/such/method", json!({})).await), -32601);
    let unknown = c.request("tools/call", json!({"name": "nope", "arguments": {}})).await;
    assert_eq!(code(&unknown), -32602);
    assert_eq!(unknown["error"]["message"], "Unknown tool: nope");
    assert_eq!(code(&c.request("tools/call", json!({"name": 5})).await), -32602);
    assert_eq!(code(&c.request("tools/call", json!({})).await), -32602);
    // MCP's params are objects: by-position params are not read field by field.
    let positional = c.request("tools/call", json!(["greet", {"name": "x"}])).await;
    assert_eq!(code(&positional), -32602, "{positional}");
    assert_eq!(positional["error"]["message"], "Invalid params for tools/call: expected an object");
    assert_eq!(code(&c.request("prompts/get", json!({"name": "nope"})).await), -32602);
    let missing = c.request("prompts/get", json!({"name": "review_code", "arguments": {}})).await;
    assert_eq!(code(&missing), -32602);
    assert!(missing["error"]["message"].as_str().unwrap().contains("`code`"), "names the argument: {missing}");
    assert_eq!(code(&c.request("prompts/get", json!({"name": "review_code", "arguments": {"code": 1}})).await), -32602);
    assert_eq!(code(&c.request("tools/list", json!({"cursor": "bogus"})).await), -32602);
    assert_eq!(code(&c.request("logging/setLevel", json!({"level": "loud"})).await), -32602);
    let complete = json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": ""}});
    assert_eq!(code(&c.request("completion/complete", complete).await), -32602);

    let nf = c.request("resources/read", json!({"uri": "quickstart://nope"})).await;
    assert_eq!(code(&nf), -32002, "legacy resource-not-found code");
    assert_eq!(nf["error"]["data"]["uri"], "quickstart://nope");
    // Templates match URIs up to `max_uri_bytes` (8 KiB); a longer URI reaches none.
    let name = "a".repeat(8 * 1024 - "quickstart://greeting/".len());
    let at_limit = c.request("resources/read", json!({"uri": format!("quickstart://greeting/{name}")})).await;
    assert!(at_limit["result"]["contents"][0]["text"].as_str().is_some_and(|t| t.contains(&name)), "{at_limit:.300}");
    let over = c.request("resources/read", json!({"uri": format!("quickstart://greeting/{name}a")})).await;
    assert_eq!(code(&over), -32002, "too long for any template: {over:.300}");

    // Input validation failures are tool results the model can read, not protocol errors.
    let bad = c.request("tools/call", json!({"name": "greet", "arguments": {"name": 5}})).await;
    assert_eq!(bad["result"]["isError"], true, "{bad}");
    assert!(bad["result"]["content"][0]["text"].as_str().unwrap().contains("Invalid arguments for tool `greet`"));
    let missing = c.request("tools/call", json!({"name": "add", "arguments": {"a": 1}})).await;
    assert_eq!(missing["result"]["isError"], true);
    let overflow = c.request("tools/call", json!({"name": "add", "arguments": {"a": i64::MAX, "b": 1}})).await;
    assert_eq!(overflow["result"]["isError"], true);
    assert!(overflow["result"]["content"][0]["text"].as_str().unwrap().contains("does not fit"));
    // Arguments are an object: an array would be read field by field, by position.
    let positional = c.request("tools/call", json!({"name": "add", "arguments": [1, 2]})).await;
    assert_eq!(code(&positional), -32602, "{positional}");
    assert!(positional["error"]["message"].as_str().unwrap().contains("`arguments` must be an object"), "{positional}");
    still_alive(&mut c).await;
    c.close().await;
}

#[tokio::test]
async fn modern_error_codes() {
    let mut c = quickstart();
    let meta = modern_meta(json!({}));
    let with_meta = |mut params: Value, meta: Value| {
        params["_meta"] = meta;
        params
    };

    // Envelope: missing keys are -32602 naming them; clientInfo is optional.
    let only_info = json!({"io.modelcontextprotocol/clientInfo": {"name": "x", "version": "1"}});
    let e = c.request("server/discover", with_meta(json!({}), only_info)).await;
    assert_eq!(code(&e), -32602);
    let msg = e["error"]["message"].as_str().unwrap();
    assert!(msg.contains("protocolVersion") && msg.contains("clientCapabilities"), "{msg}");
    let no_caps = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    let e = c.request("tools/list", with_meta(json!({}), no_caps)).await;
    assert_eq!(code(&e), -32602);
    assert!(e["error"]["message"].as_str().unwrap().contains("clientCapabilities"));
    let no_version = json!({"io.modelcontextprotocol/clientCapabilities": {}});
    assert_eq!(code(&c.request("tools/list", with_meta(json!({}), no_version)).await), -32602);
    let no_info = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let ok = c.request("tools/list", with_meta(json!({}), no_info)).await;
    assert_eq!(ok["result"]["resultType"], "complete", "clientInfo is optional: {ok}");
    let bad_level = with_meta(json!({}), {
        let mut m = meta.clone();
        m["io.modelcontextprotocol/logLevel"] = json!("loud");
        m
    });
    assert_eq!(code(&c.request("tools/list", bad_level).await), -32602);

    // Unknown versions name what is supported.
    let mut old = meta.clone();
    old["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let e = c.request("tools/list", with_meta(json!({}), old)).await;
    assert_eq!(code(&e), -32022);
    assert_eq!(e["error"]["data"]["supported"], json!(["2026-07-28"]));
    assert_eq!(e["error"]["data"]["requested"], "1900-01-01");
    let mut legacy_in_meta = meta.clone();
    legacy_in_meta["io.modelcontextprotocol/protocolVersion"] = json!("2025-11-25");
    assert_eq!(code(&c.request("tools/list", with_meta(json!({}), legacy_in_meta)).await), -32022);

    // Methods the modern revision removed, and unknown ones.
    for method in ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "nope"] {
        let e = c.modern(method, json!({})).await;
        assert_eq!(code(&e), -32601, "{method}: {e}");
        assert!(e["id"].is_number(), "id echoed");
    }

    let e = c.modern("tools/call", json!({"name": "nope", "arguments": {}})).await;
    assert_eq!(code(&e), -32602);
    let nf = c.modern("resources/read", json!({"uri": "quickstart://nope"})).await;
    assert_eq!(code(&nf), -32602, "modern resource-not-found is -32602: {nf}");
    assert_eq!(nf["error"]["data"]["uri"], "quickstart://nope");
    let positional = c.modern("tools/call", json!({"name": "add", "arguments": [1, 2]})).await;
    assert_eq!(code(&positional), -32602, "{positional}");
    let bad = c.modern("tools/call", json!({"name": "greet", "arguments": {}})).await;
    assert_eq!(bad["result"]["isError"], true);
    assert_eq!(bad["result"]["resultType"], "complete");
    assert!(c.close().await.0.success());
}

#[tokio::test]
async fn oversized_messages_are_refused_and_the_connection_lives() {
    let mut c =
        StdioClient::spawn_with_env(env!("CARGO_BIN_EXE_fixture").into(), &[("FIXTURE_MAX_MESSAGE_BYTES", "2048")]);
    c.initialize("2025-11-25").await;
    let big = json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
        "params": {"name": "fail", "arguments": {"message": "x".repeat(10_000)}}});
    c.send(&big).await;
    let e = c.recv().await;
    assert_eq!(code(&e), -32600);
    assert!(e["error"]["message"].as_str().unwrap().contains("2048 bytes"), "{e}");
    still_alive(&mut c).await;
    c.close().await;
}

#[tokio::test]
async fn panicking_handlers_become_errors_and_the_server_lives() {
    let mut c = fixture();
    c.initialize("2025-11-25").await;
    let r = c.request("tools/call", json!({"name": "boom", "arguments": {}})).await;
    assert_eq!(r["result"]["isError"], true, "a panicking tool is an isError result: {r}");
    let r = c.request("resources/read", json!({"uri": "fixture://panics"})).await;
    assert_eq!(code(&r), -32603, "a panicking resource is an internal error: {r}");
    let r = c.request("tools/call", json!({"name": "fail", "arguments": {"message": "nope"}})).await;
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(r["result"]["content"][0]["text"], "nope");
    still_alive(&mut c).await;
    assert!(c.close().await.0.success());
}

/// A resource's `Err` of any type that displays (here `String`) is `-32603` with its text, in both eras;
/// fastmcp's own `Error` keeps its code. (Prompts convert their errors the same way: unit tests in
/// `handler/output.rs`.)
#[tokio::test]
async fn resource_errors_of_any_displayable_type_become_rpc_errors() {
    let mut c = fixture();
    c.initialize("2025-11-25").await;
    let message = |r: &Value| (code(r), r["error"]["message"].as_str().map(str::to_owned));
    let offline = (-32603, Some("the 1999 archive is offline".to_owned()));
    let r = c.request("resources/read", json!({"uri": "fixture://archive/1999"})).await;
    assert_eq!(message(&r), offline, "legacy: {r}");
    let r = c.modern("resources/read", json!({"uri": "fixture://archive/1999"})).await;
    assert_eq!(message(&r), offline, "modern: {r}");
    let r = c.request("resources/read", json!({"uri": "fixture://archive/2024"})).await;
    assert_eq!(r["result"]["contents"][0]["text"], "archive 2024", "{r}");
    let r = c.request("resources/read", json!({"uri": "fixture://ledger/7"})).await;
    assert_eq!(message(&r), (-32602, Some("no ledger 7".to_owned())), "{r}");
    still_alive(&mut c).await;
    assert!(c.close().await.0.success());
}

#[tokio::test]
async fn a_slow_tool_never_blocks_other_requests() {
    let mut c = fixture();
    c.initialize("2025-11-25").await;
    c.send(&json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call",
        "params": {"name": "sleep", "arguments": {"ms": 3000}}}))
        .await;
    let started = std::time::Instant::now();
    still_alive(&mut c).await;
    let fast = c.request("tools/call", json!({"name": "sleep", "arguments": {"ms": 1}})).await;
    assert_eq!(fast["result"]["content"][0]["text"], "slept 1ms");
    assert!(started.elapsed().as_millis() < 2500, "answered while the slow call runs");
    let slow = c.response(&json!("slow")).await;
    assert_eq!(slow["result"]["content"][0]["text"], "slept 3000ms");
    c.close().await;
}

#[tokio::test]
async fn requests_in_flight_at_eof_still_get_their_response() {
    let mut c = fixture();
    c.initialize("2025-11-25").await;
    c.send(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "sleep", "arguments": {"ms": 300}}}))
        .await;
    let (status, _) = c.close_after(&json!(5), "slept 300ms").await;
    assert!(status.success());
}

#[tokio::test]
async fn lists_paginate_with_opaque_cursors_in_both_eras() {
    let mut c = StdioClient::spawn_with_env(env!("CARGO_BIN_EXE_fixture").into(), &[("FIXTURE_PAGE_SIZE", "2")]);
    c.initialize("2025-11-25").await;
    let names = |page: &Value| -> Vec<String> {
        page["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
    };
    let first = c.request("tools/list", json!({})).await["result"].clone();
    assert_eq!(names(&first), ["sleep", "boom"]);
    let mut all = names(&first);
    let mut cursor = first["nextCursor"].as_str().expect("a next cursor").to_owned();
    let second = c.request("tools/list", json!({"cursor": cursor})).await["result"].clone();
    assert_eq!(names(&second), ["fail", "slow_marker"]);
    let modern = c.modern("tools/list", json!({"cursor": cursor})).await["result"].clone();
    assert_eq!(names(&modern), names(&second), "cursors work in either era");
    assert_eq!(modern["resultType"], "complete");
    loop {
        let page = c.request("tools/list", json!({"cursor": cursor})).await["result"].clone();
        assert!(names(&page).len() <= 2);
        all.extend(names(&page));
        match page["nextCursor"].as_str() {
            Some(next) => cursor = next.to_owned(),
            None => break,
        }
    }
    let unpaged = StdioClient::spawn(env!("CARGO_BIN_EXE_fixture").into());
    let mut unpaged = unpaged;
    unpaged.initialize("2025-11-25").await;
    let whole = unpaged.request("tools/list", json!({})).await["result"].clone();
    assert!(whole.get("nextCursor").is_none());
    assert_eq!(all, names(&whole), "the pages together are the whole list, in order");
    unpaged.close().await;
    let empty = c.request("prompts/list", json!({})).await["result"].clone();
    assert_eq!(empty["prompts"], json!([]), "an empty list is one empty page");
    c.close().await;
}

#[tokio::test]
async fn batches_are_served_element_by_element() {
    let mut c = quickstart();
    c.initialize("2025-03-26").await;
    c.send_raw(r#"[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"greet","arguments":{"name":"B"}}},{"jsonrpc":"1.0","id":"c","method":"ping"},{"jsonrpc":"2.0","id":"d","method":"initialize","params":{}}]"#).await;
    let replies = c.recv().await;
    let replies = replies.as_array().expect("a batch is answered with an array");
    let by_id = |id: &str| replies.iter().find(|r| r["id"] == id).unwrap_or_else(|| panic!("reply {id}")).clone();
    assert_eq!(replies.len(), 4, "one reply per request, none for the notification");
    assert_eq!(by_id("a")["result"], json!({}));
    assert_eq!(by_id("b")["result"]["content"][0]["text"], "Hello, B!");
    assert_eq!(code(&by_id("c")), -32600);
    assert_eq!(code(&by_id("d")), -32600, "initialize must not be batched");
    c.send_raw(r#"[{"jsonrpc":"2.0","method":"notifications/x"}]"#).await;
    still_alive(&mut c).await; // a notification-only batch gets no reply, so the next message is the pong
    c.close().await;
}

#[tokio::test]
async fn legacy_sessions_subscribe_to_resources() {
    let mut c = quickstart();
    let init = c.initialize("2025-11-25").await;
    assert_eq!(init["capabilities"]["resources"]["subscribe"], true);
    let r = c.request("resources/subscribe", json!({"uri": "quickstart://readme"})).await;
    assert_eq!(r["result"], json!({}));
    let r = c.request("resources/unsubscribe", json!({"uri": "quickstart://readme"})).await;
    assert_eq!(r["result"], json!({}));
    let r = c.request("resources/subscribe", json!({"uri": "quickstart://nope"})).await;
    assert_eq!(code(&r), -32002);
    assert_eq!(code(&c.request("resources/subscribe", json!({})).await), -32602);
    c.close().await;
}

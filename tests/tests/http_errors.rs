//! Every error path of the Streamable HTTP endpoint, over a real socket: the HTTP status and, where the
//! server sends a body, the JSON-RPC error code (and the request id when it has one).

use fastmcp_tests::{HttpReply, HttpServer, example_bin, first_text, modern_meta};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fixture"))
}

type Headers<'a> = Vec<(&'a str, &'a str)>;

const SSE: (&str, &str) = ("Accept", "text/event-stream");

/// The status and JSON-RPC error code of a reply.
fn status_code(r: &HttpReply) -> (u16, Value) {
    (r.status, r.json()["error"]["code"].clone())
}

fn message(r: &HttpReply) -> String {
    r.json()["error"]["message"].as_str().unwrap_or_else(|| panic!("an error message: {r:?}")).to_owned()
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A modern request body: these params plus the `_meta` envelope.
fn modern_body(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = modern_meta(json!({}));
    request(id, method, params)
}

#[tokio::test]
async fn methods_other_than_post_get_delete_are_405_with_allow() {
    let s = HttpServer::spawn(fixture()).await;
    for method in ["PUT", "PATCH", "OPTIONS"] {
        let r = s.send(method, &[], "").await;
        assert_eq!(r.status, 405, "{method}: {r:?}");
        assert_eq!(r.header("allow"), Some("GET, POST, DELETE"), "{method}");
        assert!(r.body.is_empty(), "{method}: {r:?}");
    }
    // Without sessions there is nothing to GET or DELETE: POST is the only method.
    let s = HttpServer::spawn_with_env(fixture(), &[("FASTMCP_STATELESS", "true")]).await;
    for (method, headers) in [("GET", vec![SSE, ("Mcp-Session-Id", "abc")]), ("DELETE", vec![]), ("PUT", vec![])] {
        let r = s.send(method, &headers, "").await;
        assert_eq!(r.status, 405, "{method}: {r:?}");
        assert_eq!(r.header("allow"), Some("POST"), "{method}");
    }
    let served = s.post(&[], &request(1, "tools/list", json!({}))).await;
    assert_eq!(served.status, 200, "POST still serves: {served:?}");
}

#[tokio::test]
async fn get_needs_an_event_stream_accept_and_a_known_session() {
    let s = HttpServer::spawn(fixture()).await;
    let session = s.legacy_session("2025-11-25", json!({})).await;
    for accept in ["application/json", "text/html", ""] {
        let r = s.send("GET", &[("Accept", accept), ("Mcp-Session-Id", &session)], "").await;
        assert_eq!(status_code(&r), (406, json!(-32600)), "Accept {accept:?}: {r:?}");
        assert!(message(&r).contains("text/event-stream"), "{r:?}");
    }
    let r = s.send("GET", &[SSE], "").await;
    assert_eq!(status_code(&r), (400, json!(-32600)), "{r:?}");
    assert!(message(&r).contains("Mcp-Session-Id"), "names the missing header: {r:?}");
    let r = s.send("GET", &[SSE, ("Mcp-Session-Id", "0123456789abcdef0123456789abcdef")], "").await;
    assert_eq!(status_code(&r), (404, json!(-32001)), "{r:?}");
    assert_eq!(message(&r), "Session not found");
}

#[tokio::test]
async fn delete_ends_a_session_once_and_the_id_is_dead_afterwards() {
    let s = HttpServer::spawn(fixture()).await;
    let r = s.send("DELETE", &[], "").await;
    assert_eq!(status_code(&r), (400, json!(-32600)), "{r:?}");
    let r = s.send("DELETE", &[("Mcp-Session-Id", "no-such-session")], "").await;
    assert_eq!(status_code(&r), (404, json!(-32001)), "{r:?}");

    let session = s.legacy_session("2025-11-25", json!({})).await;
    let other = s.legacy_session("2025-11-25", json!({})).await;
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    assert_eq!(s.post(&headers, &request(2, "tools/list", json!({}))).await.status, 200);
    let r = s.send("DELETE", &[("Mcp-Session-Id", &session)], "").await;
    assert_eq!(r.status, 200, "{r:?}");

    let r = s.post(&headers, &request(3, "tools/list", json!({}))).await;
    assert_eq!(status_code(&r), (404, json!(-32001)), "{r:?}");
    assert_eq!(r.json()["id"], 3, "the error names the request");
    let r = s.post(&headers, &request(4, "tools/call", json!({"name": "marker", "arguments": {}}))).await;
    assert_eq!(status_code(&r), (404, json!(-32001)), "{r:?}");
    let r = s.send("GET", &[SSE, ("Mcp-Session-Id", &session)], "").await;
    assert_eq!(status_code(&r), (404, json!(-32001)), "{r:?}");
    let r = s.send("DELETE", &[("Mcp-Session-Id", &session)], "").await;
    assert_eq!(status_code(&r), (404, json!(-32001)), "{r:?}");
    // Ending one session leaves the others alone.
    let r = s.post(&[("Mcp-Session-Id", &other)], &request(5, "tools/list", json!({}))).await;
    assert_eq!(r.status, 200, "{r:?}");
}

#[tokio::test]
async fn requests_naming_an_unknown_session_are_404() {
    let s = HttpServer::spawn(fixture()).await;
    let unknown = [("Mcp-Session-Id", "ffffffffffffffffffffffffffffffff")];
    for (id, method, params) in [
        (1, "tools/list", json!({})),
        (2, "tools/call", json!({"name": "marker", "arguments": {}})),
        (3, "ping", json!({})),
    ] {
        let r = s.post(&unknown, &request(id, method, params)).await;
        assert_eq!(status_code(&r), (404, json!(-32001)), "{method}: {r:?}");
        assert_eq!(r.json()["id"], id, "{method}");
    }
    // Without any session id, a legacy request that needs one is a bad request.
    let r = s.post(&[], &request(4, "tools/list", json!({}))).await;
    assert_eq!(status_code(&r), (400, json!(-32600)), "{r:?}");
    assert_eq!(r.json()["id"], 4);
    assert!(message(&r).contains("Mcp-Session-Id"), "{r:?}");
}

/// Spec 2025-11-25 §Session Management: after a session ends the server "MUST respond to requests containing
/// that session ID with HTTP 404" — HTTP requests, including POSTed notifications and responses.
#[tokio::test]
async fn notifications_and_responses_naming_an_unknown_session_are_404() {
    let s = HttpServer::spawn(fixture()).await;
    let unknown = [("Mcp-Session-Id", "ffffffffffffffffffffffffffffffff")];
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let r = s.post(&unknown, &note).await;
    assert_eq!(r.status, 404, "notification: {r:?}");
    assert_eq!(r.json()["error"]["code"], -32001, "notification: {r:?}");
    let response = json!({"jsonrpc": "2.0", "id": "s-1", "result": {}});
    let r = s.post(&unknown, &response).await;
    assert_eq!(r.status, 404, "response: {r:?}");
    assert_eq!(r.json()["error"]["code"], -32001, "response: {r:?}");
}

#[tokio::test]
async fn initialize_inside_a_session_is_refused() {
    let s = HttpServer::spawn(fixture()).await;
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let init = request(
        9,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
    );
    for id in [session.as_str(), "not-a-session"] {
        let r = s.post(&[("Mcp-Session-Id", id)], &init).await;
        assert_eq!(status_code(&r), (400, json!(-32600)), "{r:?}");
        assert_eq!(r.json()["id"], 9);
        assert!(r.header("mcp-session-id").is_none(), "no new session: {r:?}");
    }
    let r = s.post(&[("Mcp-Session-Id", &session)], &request(10, "tools/list", json!({}))).await;
    assert_eq!(r.status, 200, "the session goes on: {r:?}");
}

#[tokio::test]
async fn modern_standard_headers_must_mirror_the_body() {
    let s = HttpServer::spawn(example_bin("everything")).await;
    let v = ("MCP-Protocol-Version", "2026-07-28");
    let read = modern_body(1, "resources/read", json!({"uri": "test://static-text"}));
    let prompt = modern_body(2, "prompts/get", json!({"name": "test_simple_prompt"}));
    let task = modern_body(3, "tasks/get", json!({"taskId": "task-42"}));
    let cases: [(&Value, Headers, &str); 11] = [
        (&read, vec![v, ("Mcp-Method", "resources/read")], "Mcp-Name is required"),
        (&read, vec![v, ("Mcp-Method", "resources/read"), ("Mcp-Name", "test://static-binary")], "body's uri"),
        (&read, vec![v, ("Mcp-Method", "resources/read"), ("Mcp-Name", "static-text")], "body's uri"),
        (&prompt, vec![v, ("Mcp-Method", "prompts/get")], "Mcp-Name is required"),
        (&prompt, vec![v, ("Mcp-Method", "prompts/get"), ("Mcp-Name", "test_prompt_with_image")], "body's name"),
        (&prompt, vec![v, ("Mcp-Method", "tools/call"), ("Mcp-Name", "test_simple_prompt")], "Mcp-Method"),
        (&prompt, vec![("Mcp-Method", "prompts/get"), ("Mcp-Name", "test_simple_prompt")], "MCP-Protocol-Version"),
        (&task, vec![v, ("Mcp-Method", "tasks/get")], "Mcp-Name is required"),
        (&task, vec![v, ("Mcp-Method", "tasks/get"), ("Mcp-Name", "task-41")], "body's taskId"),
        (&task, vec![v, ("Mcp-Method", "tasks/get"), ("Mcp-Name", "tasks/get")], "body's taskId"),
        (&task, vec![v, ("Mcp-Name", "task-42")], "Mcp-Method is required"),
    ];
    for (body, headers, says) in cases {
        let r = s.post(&headers, body).await;
        assert_eq!(status_code(&r), (400, json!(-32020)), "{headers:?}: {r:?}");
        assert_eq!(r.json()["id"], body["id"], "{headers:?}");
        let text = message(&r);
        assert!(text.starts_with("Header mismatch: ") && text.contains(says), "{headers:?}: {text}");
    }
    // Mirrored correctly, each passes the header check (what follows is up to the method).
    let r = s.post(&[v, ("Mcp-Method", "resources/read"), ("Mcp-Name", "test://static-text")], &read).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["result"]["contents"][0]["uri"], "test://static-text");
    let r = s.post(&[v, ("Mcp-Method", "prompts/get"), ("Mcp-Name", "test_simple_prompt")], &prompt).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.json()["result"]["messages"].is_array(), "{r:?}");
    let r = s.post(&[v, ("Mcp-Method", "tasks/get"), ("Mcp-Name", "task-42")], &task).await;
    assert_ne!(r.json()["error"]["code"], -32020, "the task id matches: {r:?}");
    // A modern request is served statelessly: a session id it carries is ignored, not looked up.
    let r = s
        .post(
            &[v, ("Mcp-Method", "prompts/get"), ("Mcp-Name", "test_simple_prompt"), ("Mcp-Session-Id", "nope")],
            &prompt,
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
}

/// `test_custom_header`'s `region` carries `x-mcp-header: Region`: a modern call must mirror it in
/// `Mcp-Param-Region`, literally or as `=?base64?…?=`.
#[tokio::test]
async fn mcp_param_headers_must_mirror_their_arguments() {
    let s = HttpServer::spawn(example_bin("everything")).await;
    let call = |region: Option<&str>| {
        let arguments = region.map_or(json!({}), |r| json!({"region": r}));
        modern_body(7, "tools/call", json!({"name": "test_custom_header", "arguments": arguments}))
    };
    let standard =
        [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "test_custom_header")];
    let with = |param: Option<(&'static str, &'static str)>| {
        let mut headers = standard.to_vec();
        headers.extend(param);
        headers
    };
    for (body, param, says) in [
        (call(Some("us-west1")), None, "Mcp-Param-Region is required"),
        (call(Some("us-west1")), Some(("Mcp-Param-Region", "eu-west1")), "Mcp-Param-Region is \"eu-west1\""),
        (call(Some("us-west1")), Some(("Mcp-Param-Region", "US-WEST1")), "Mcp-Param-Region"),
        (call(Some("us-west1")), Some(("Mcp-Param-Region", "=?base64?!!not-base64!!?=")), "invalid Base64"),
        (call(Some("us-west1")), Some(("Mcp-Param-Region", "=?base64?dXMtd2VzdDE?=")), "invalid Base64"),
        (call(Some("us-west1")), Some(("Mcp-Param-Region", "=?base64?ZXUtd2VzdDE=?=")), "\"eu-west1\""),
        (call(None), Some(("Mcp-Param-Region", "us-west1")), "the body has no argument `region`"),
    ] {
        let headers = with(param);
        let r = s.post(&headers, &body).await;
        assert_eq!(status_code(&r), (400, json!(-32020)), "{param:?}: {r:?}");
        assert_eq!(r.json()["id"], 7);
        let text = message(&r);
        assert!(text.starts_with("Header mismatch: ") && text.contains(says), "{param:?}: {text}");
    }
    for (region, header) in [
        ("us-west1", "us-west1"),
        ("us-west1", " us-west1 "),
        ("us-west1", "=?base64?dXMtd2VzdDE=?="),
        ("日本", "=?base64?5pel5pys?="),
        (" padded ", "=?base64?IHBhZGRlZCA=?="),
    ] {
        let mut headers = standard.to_vec();
        headers.push(("mcp-param-region", header));
        let r = s.post(&headers, &call(Some(region))).await;
        assert_eq!(r.status, 200, "{header:?}: {r:?}");
        assert_eq!(first_text(&r.json()["result"]), format!("Ran in region {region}"), "{header:?}");
    }
}

/// The header check reads the params dispatch serves, parsed once: a params object with an extra field of the
/// wrong type (which a separate, lenient read of the mirrored fields once failed on, letting any `Mcp-Name`
/// and no `Mcp-Param-*` through while dispatch served the call) is checked like any other, and params the
/// check can't read at all are refused with 400 rather than served unchecked.
#[tokio::test]
async fn the_header_check_reads_the_params_dispatch_serves() {
    let s = HttpServer::spawn(example_bin("everything")).await;
    let standard = |name: &'static str| {
        vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", name)]
    };
    let odd = modern_body(
        8,
        "tools/call",
        json!({"name": "test_custom_header", "arguments": {"region": "us-west1"}, "uri": 5, "taskId": [1]}),
    );
    let r = s.post(&standard("test_simple_text"), &odd).await;
    assert_eq!(status_code(&r), (400, json!(-32020)), "{r:?}");
    assert!(message(&r).contains("Mcp-Name is test_simple_text but the body's name is test_custom_header"), "{r:?}");
    let r = s.post(&standard("test_custom_header"), &odd).await;
    assert_eq!(status_code(&r), (400, json!(-32020)), "the argument's header is still required: {r:?}");
    assert!(message(&r).contains("Mcp-Param-Region is required"), "{r:?}");
    let mut mirrored = standard("test_custom_header");
    mirrored.push(("Mcp-Param-Region", "us-west1"));
    let r = s.post(&mirrored, &odd).await;
    assert_eq!(r.status, 200, "extra fields are ignored once the mirrored ones agree: {r:?}");
    assert_eq!(first_text(&r.json()["result"]), "Ran in region us-west1");

    // Arguments as an array: the tool's type would read `region` from it by position, unchecked. With no
    // header (a gateway's default route) or with one, it is refused before anything runs.
    let unreadable = [
        json!({"name": 5, "arguments": {"region": "us-west1"}}),
        json!({"name": "test_custom_header", "arguments": {"region": "us-west1"}, "inputResponses": 3}),
        json!({"name": "test_custom_header", "arguments": ["eu-central1"]}),
        json!({"name": "test_custom_header", "arguments": "eu-central1"}),
    ];
    for params in unreadable {
        for headers in [&mirrored, &standard("test_custom_header")] {
            let r = s.post(headers, &modern_body(9, "tools/call", params.clone())).await;
            assert_eq!(status_code(&r), (400, json!(-32602)), "{params}: {r:?}");
            assert_eq!(r.json()["id"], 9);
            assert!(message(&r).starts_with("Invalid params for tools/call"), "{params}: {r:?}");
        }
    }
    // A cross-checked header says one thing: a gateway may route on another of its values than the first.
    let region = modern_body(10, "tools/call", json!({"name": "test_custom_header", "arguments": {"region": "us"}}));
    let twice = |name: &'static str, first: &'static str, second: &'static str| {
        let mut headers: Vec<_> = [
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "test_custom_header"),
            ("Mcp-Param-Region", "us"),
        ]
        .into_iter()
        .filter(|(k, _)| *k != name)
        .collect();
        headers.extend([(name, first), (name, second)]);
        headers
    };
    for (name, first, second) in [
        ("Mcp-Param-Region", "us", "eu"),
        ("Mcp-Param-Region", "us", "us"),
        ("Mcp-Name", "test_custom_header", "test_simple_text"),
        ("Mcp-Method", "tools/call", "tools/list"),
        ("MCP-Protocol-Version", "2026-07-28", "2026-07-28"),
    ] {
        let r = s.post(&twice(name, first, second), &region).await;
        assert_eq!(status_code(&r), (400, json!(-32020)), "{name}: {r:?}");
        assert!(message(&r).contains(&format!("{name} is sent more than once")), "{name}: {r:?}");
    }
    let r = s.post(&twice("Mcp-Param-Other", "a", "b"), &region).await;
    assert_eq!(r.status, 200, "a header the tool doesn't mirror isn't checked: {r:?}");
    assert_eq!(first_text(&r.json()["result"]), "Ran in region us");
    // Without mirrored fields there is nothing to check: unreadable params stay an in-band error.
    let list = [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/list")];
    let r = s.post(&list, &modern_body(11, "tools/list", json!({"cursor": 5}))).await;
    assert_eq!(status_code(&r), (200, json!(-32602)), "{r:?}");
}

#[tokio::test]
async fn foreign_host_or_origin_is_403_on_every_method() {
    let s = HttpServer::spawn(fixture()).await;
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let discover = request(1, "server/discover", json!({}));
    let port = s.addr.port().to_string();
    for (name, value) in [
        ("Origin", "https://evil.example".to_owned()),
        ("Origin", "http://localhost.evil.example".to_owned()),
        ("Origin", "null".to_owned()),
        ("Origin", "file://".to_owned()),
        ("Host", format!("evil.example:{port}")),
        ("Host", format!("10.0.0.1:{port}")),
    ] {
        let r = s.post(&[(name, &value)], &discover).await;
        assert_eq!(status_code(&r), (403, json!(-32600)), "{name}: {value}: {r:?}");
        assert!(r.json()["id"].is_null(), "checked before the body is read");
        let r = s.send("GET", &[SSE, ("Mcp-Session-Id", &session), (name, &value)], "").await;
        assert_eq!(r.status, 403, "GET {name}: {value}: {r:?}");
        let r = s.send("DELETE", &[("Mcp-Session-Id", &session), (name, &value)], "").await;
        assert_eq!(r.status, 403, "DELETE {name}: {value}: {r:?}");
    }
    for (name, value) in [
        ("Origin", format!("http://127.0.0.1:{port}")),
        ("Origin", "https://localhost".to_owned()),
        ("Origin", "http://[::1]:3000".to_owned()),
        ("Host", format!("localhost:{port}")),
        ("Host", format!("[::1]:{port}")),
    ] {
        let r = s.post(&[(name, &value)], &discover).await;
        assert_eq!(r.status, 200, "{name}: {value}: {r:?}");
    }
    // The forbidden DELETEs did not end the session.
    let r = s.post(&[("Mcp-Session-Id", &session)], &request(2, "tools/list", json!({}))).await;
    assert_eq!(r.status, 200, "{r:?}");
}

#[tokio::test]
async fn content_type_and_accept_are_checked_before_the_body() {
    let s = HttpServer::spawn(fixture()).await;
    let body = request(1, "server/discover", json!({})).to_string();
    let both = ("Accept", "application/json, text/event-stream");
    for content_type in ["text/plain", "application/x-www-form-urlencoded", "text/json", ""] {
        let r = s.send("POST", &[("Content-Type", content_type), both], &body).await;
        assert_eq!(status_code(&r), (415, json!(-32600)), "{content_type:?}: {r:?}");
        assert!(message(&r).contains("Content-Type"), "{r:?}");
    }
    let r = s.send("POST", &[both], &body).await;
    assert_eq!(status_code(&r), (415, json!(-32600)), "no Content-Type: {r:?}");
    for accept in ["text/html", "text/event-stream", "application/xml"] {
        let r = s.send("POST", &[("Content-Type", "application/json"), ("Accept", accept)], &body).await;
        assert_eq!(status_code(&r), (406, json!(-32600)), "{accept:?}: {r:?}");
        assert!(message(&r).contains("Accept"), "{r:?}");
    }
    for (content_type, accept) in [
        ("application/json; charset=utf-8", "application/json, text/event-stream"),
        ("Application/JSON", "text/event-stream;q=0.9, application/json;q=1.0"),
        ("application/json", "*/*"),
    ] {
        let r = s.send("POST", &[("Content-Type", content_type), ("Accept", accept)], &body).await;
        assert_eq!(r.status, 200, "{content_type:?} / {accept:?}: {r:?}");
    }
}

/// A client that accepts only JSON must not be answered with an event stream (spec: the POST's Accept MUST
/// list both; the server's own error text says so).
#[tokio::test]
async fn a_json_only_accept_never_gets_an_event_stream() {
    let s = HttpServer::spawn(fixture()).await;
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let call = request(2, "tools/call", json!({"name": "marker", "arguments": {}})).to_string();
    let r = s
        .send(
            "POST",
            &[("Content-Type", "application/json"), ("Accept", "application/json"), ("Mcp-Session-Id", &session)],
            &call,
        )
        .await;
    let content_type = r.header("content-type").unwrap_or("");
    assert!(
        r.status == 406 || (r.status == 200 && content_type.starts_with("application/json")),
        "406, or a JSON answer; got {} {content_type}",
        r.status
    );
}

#[tokio::test]
async fn a_body_over_the_limit_is_413() {
    let s = HttpServer::spawn_with_env(fixture(), &[("FIXTURE_MAX_MESSAGE_BYTES", "1024")]).await;
    let padded = |size: usize| {
        let mut body = request(1, "server/discover", json!({"pad": ""}));
        let overhead = body.to_string().len();
        body["params"]["pad"] = json!("x".repeat(size - overhead));
        let text = body.to_string();
        assert_eq!(text.len(), size);
        text
    };
    let headers = [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
    let r = s.send("POST", &headers, &padded(1024)).await;
    assert_eq!(r.status, 200, "exactly the limit is served: {r:?}");
    for size in [1025, 64 * 1024] {
        let r = s.send("POST", &headers, &padded(size)).await;
        assert_eq!(status_code(&r), (413, json!(-32600)), "{size} bytes: {r:?}");
        let text = message(&r);
        assert!(text.contains("1024 bytes") && text.contains("FastMcp::max_message_bytes"), "{text}");
    }
    // The server is still fine.
    assert_eq!(s.send("POST", &headers, &padded(200)).await.status, 200);
}

#[tokio::test]
async fn bad_last_event_ids_are_400() {
    let s = HttpServer::spawn(fixture()).await;
    let session = s.legacy_session("2025-11-25", json!({})).await;
    // One finished stream (1) with a priming event and a response: ids 1-0 and 1-1.
    let r = s
        .post(&[("Mcp-Session-Id", &session)], &request(2, "tools/call", json!({"name": "marker", "arguments": {}})))
        .await;
    assert_eq!(r.header("content-type"), Some("text/event-stream"), "{r:?}");
    assert!(r.body.contains("id: 1-1\n"), "{r:?}");
    for (last, says) in [
        ("abc", "not an event id"),
        ("1", "not an event id"),
        ("1-x", "not an event id"),
        ("-1-0", "not an event id"),
        ("999-0", "no such stream"),
        ("1-2", "no such stream"),
        ("1-99", "no such stream"),
    ] {
        let r = s.send("GET", &[SSE, ("Mcp-Session-Id", &session), ("Last-Event-ID", last)], "").await;
        assert_eq!(status_code(&r), (400, json!(-32600)), "{last:?}: {r:?}");
        assert!(message(&r).contains("Last-Event-ID") && message(&r).contains(says), "{last:?}: {r:?}");
    }
    // Another session's stream ids mean nothing here.
    let fresh = s.legacy_session("2025-11-25", json!({})).await;
    let r = s.send("GET", &[SSE, ("Mcp-Session-Id", &fresh), ("Last-Event-ID", "1-0")], "").await;
    assert_eq!(status_code(&r), (400, json!(-32600)), "{r:?}");
    // A Last-Event-ID needs a session like any GET.
    let r = s.send("GET", &[SSE, ("Last-Event-ID", "1-0")], "").await;
    assert_eq!(status_code(&r), (400, json!(-32600)), "{r:?}");
}

#[tokio::test]
async fn one_standalone_get_stream_per_session() {
    let s = HttpServer::spawn_with_env(fixture(), &[("FIXTURE_KEEP_ALIVE_MS", "50")]).await;
    let session = s.legacy_session("2025-11-25", json!({})).await;
    let first = s.get(&[("Mcp-Session-Id", &session)]).await;
    assert_eq!(first.status, 200);
    assert_eq!(first.header("content-type"), Some("text/event-stream"));
    let r = s.send("GET", &[SSE, ("Mcp-Session-Id", &session)], "").await;
    assert_eq!(status_code(&r), (409, json!(-32600)), "{r:?}");
    assert!(message(&r).contains("standalone GET stream"), "{r:?}");
    // Another session has its own.
    let other = s.legacy_session("2025-11-25", json!({})).await;
    assert_eq!(s.get(&[("Mcp-Session-Id", &other)]).await.status, 200);

    // Once the client drops its stream (noticed at the next keep-alive write), it may open a new one.
    drop(first);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let again = s.get(&[("Mcp-Session-Id", &session)]).await;
        if again.status == 200 {
            break;
        }
        assert_eq!(again.status, 409, "{:?}", again.json());
        assert!(tokio::time::Instant::now() < deadline, "the dropped stream was never released");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

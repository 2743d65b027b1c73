//! The `everything` example (the conformance suite's fixture server) over stdio, in both eras: the exact
//! outputs of the simple tools, resources and prompts, the schema of `json_schema_2020_12_tool`, the
//! `.ask()` flows round by round on the modern wire and through the shim on a legacy session, the
//! capability check, logging gating and progress.

use fastmcp_tests::{StdioClient, example_bin, first_text, modern_meta};
use serde_json::{Map, Value, json};
use std::time::{Duration, Instant};

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The capabilities the conformance harness declares on every modern request.
fn harness_caps() -> Value {
    json!({"sampling": {}, "elicitation": {}, "roots": {"listChanged": true}})
}

/// One client per era: a legacy 2025-11-25 session, or a modern client sending `_meta` on every request.
struct Era {
    client: StdioClient,
    modern: bool,
}

impl Era {
    async fn new(modern: bool) -> Self {
        let mut client = StdioClient::spawn(example_bin("everything"));
        if !modern {
            client.initialize_declaring("2025-11-25", harness_caps()).await;
        }
        Self { client, modern }
    }

    /// The `result` of a request; panics on an error response.
    async fn result(&mut self, method: &str, mut params: Value) -> Value {
        if self.modern {
            params["_meta"] = modern_meta(harness_caps());
        }
        let response = self.client.request(method, params).await;
        let result = response.get("result").unwrap_or_else(|| panic!("{method} failed: {response}")).clone();
        if self.modern {
            assert_eq!(result["resultType"], "complete", "{method}: {result}");
        } else {
            assert!(result.get("resultType").is_none(), "{method}: {result}");
        }
        result
    }

    async fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.result("tools/call", json!({"name": name, "arguments": arguments})).await
    }
}

fn eras() -> [bool; 2] {
    [false, true]
}

#[tokio::test]
async fn content_tools_answer_exactly() {
    for modern in eras() {
        let mut c = Era::new(modern).await;
        let r = c.call("test_simple_text", json!({})).await;
        assert_eq!(r["content"], json!([{"type": "text", "text": "This is a simple text response for testing."}]));
        let r = c.call("test_image_content", json!({})).await;
        assert_eq!(r["content"], json!([{"type": "image", "data": PNG, "mimeType": "image/png"}]));
        let r = c.call("test_audio_content", json!({})).await;
        assert_eq!(r["content"], json!([{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]));
        let r = c.call("test_embedded_resource", json!({})).await;
        assert_eq!(
            r["content"],
            json!([{"type": "resource", "resource": {
                "uri": "test://embedded-resource", "mimeType": "text/plain",
                "text": "This is an embedded resource content."
            }}])
        );
        let r = c.call("test_multiple_content_types", json!({})).await;
        assert_eq!(
            r["content"],
            json!([
                {"type": "text", "text": "Multiple content types test:"},
                {"type": "image", "data": PNG, "mimeType": "image/png"},
                {"type": "resource", "resource": {
                    "uri": "test://mixed-content-resource", "mimeType": "application/json",
                    "text": "{\"test\":\"data\",\"value\":123}"
                }}
            ])
        );
        let r = c.call("test_error_handling", json!({})).await;
        assert_eq!(r["isError"], true, "a tool error, not a JSON-RPC error");
        assert_eq!(first_text(&r), "This tool intentionally returns an error for testing");
        // A legacy session hears of list changes on its own stream; a modern client only on a listen stream.
        for (tool, text, method) in [
            ("test_trigger_tool_change", "Tool list change notification sent", "notifications/tools/list_changed"),
            (
                "test_trigger_prompt_change",
                "Prompt list change notification sent",
                "notifications/prompts/list_changed",
            ),
        ] {
            assert_eq!(first_text(&c.call(tool, json!({})).await), text);
            if modern {
                // A round trip later, nothing arrived unasked.
                c.result("tools/list", json!({})).await;
                assert!(c.client.drain_notifications().iter().all(|n| n["method"] != method), "{tool}");
            } else {
                assert_eq!(c.client.notification(method).await["params"], json!({}), "{tool}");
            }
        }
        // Over stdio there is no stream to close: the tool says so and completes.
        assert_eq!(
            first_text(&c.call("test_reconnection", json!({})).await),
            "Reconnection test completed (no resumable stream to close on this transport)"
        );
        let r = c.call("json_schema_2020_12_tool", json!({"name": "n"})).await;
        assert_eq!(first_text(&r), r#"JSON Schema 2020-12 tool called with: {"name":"n"}"#);
        assert!(c.client.close().await.0.success());
    }
}

#[tokio::test]
async fn tools_list_is_complete_and_stable() {
    for modern in eras() {
        let mut c = Era::new(modern).await;
        let first = c.result("tools/list", json!({})).await;
        let again = c.result("tools/list", json!({})).await;
        let names = |r: &Value| -> Vec<String> {
            r["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
        };
        assert_eq!(names(&first), names(&again), "deterministic order");
        for expected in [
            "test_simple_text",
            "test_tool_with_progress",
            "test_tool_with_logging",
            "test_logging_tool",
            "test_sampling",
            "test_elicitation",
            "test_elicitation_sep1034_defaults",
            "test_elicitation_sep1330_enums",
            "test_missing_capability",
            "test_streaming_elicitation",
            "test_trigger_tool_change",
            "test_trigger_prompt_change",
            "test_reconnection",
            "test_input_required_result_elicitation",
            "test_input_required_result_sampling",
            "test_input_required_result_list_roots",
            "test_input_required_result_request_state",
            "test_input_required_result_multiple_inputs",
            "test_input_required_result_multi_round",
            "test_input_required_result_tampered_state",
            "test_input_required_result_capabilities",
            "json_schema_2020_12_tool",
            "handwritten_opinion",
        ] {
            assert!(names(&first).iter().any(|n| n == expected), "{expected} listed (modern: {modern})");
        }
        for tool in first["tools"].as_array().unwrap() {
            let name = tool["name"].as_str().unwrap();
            assert!(name.len() <= 128 && name.chars().all(|ch| ch.is_ascii_alphanumeric() || "_.-".contains(ch)));
            assert!(tool["description"].is_string(), "{name} has a description");
            assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
        }
        let tool = first["tools"].as_array().unwrap().iter().find(|t| t["name"] == "json_schema_2020_12_tool").unwrap();
        assert_eq!(tool["inputSchema"], json_schema_2020_12(), "served exactly as written (modern: {modern})");
        c.client.close().await;
    }
}

/// What `json_schema_2020_12_tool` declares: the conformance suite's own schema for it.
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": { "street": { "type": "string" }, "city": { "type": "string" } }
            }
        },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" },
            "contactMethod": { "type": "string", "enum": ["phone", "email"] },
            "phone": { "type": "string" },
            "email": { "type": "string" }
        },
        "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
        "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
        "then": { "required": ["phone"] },
        "else": { "required": ["email"] },
        "additionalProperties": false
    })
}

#[tokio::test]
async fn resources_read_exactly() {
    for modern in eras() {
        let mut c = Era::new(modern).await;
        let list = c.result("resources/list", json!({})).await;
        let resources = list["resources"].as_array().unwrap();
        let uris: Vec<&str> = resources.iter().map(|r| r["uri"].as_str().unwrap()).collect();
        assert_eq!(uris, ["test://static-text", "test://static-binary", "test://watched-resource"]);
        assert!(resources.iter().all(|r| r["name"].is_string() && r["description"].is_string()));
        let templates = c.result("resources/templates/list", json!({})).await;
        assert_eq!(templates["resourceTemplates"][0]["uriTemplate"], "test://template/{id}/data");

        let r = c.result("resources/read", json!({"uri": "test://static-text"})).await;
        assert_eq!(
            r["contents"],
            json!([{"uri": "test://static-text", "mimeType": "text/plain",
                    "text": "This is the content of the static text resource."}])
        );
        let r = c.result("resources/read", json!({"uri": "test://static-binary"})).await;
        assert_eq!(r["contents"], json!([{"uri": "test://static-binary", "mimeType": "image/png", "blob": PNG}]));
        let r = c.result("resources/read", json!({"uri": "test://template/123/data"})).await;
        assert_eq!(r["contents"][0]["uri"], "test://template/123/data");
        assert_eq!(r["contents"][0]["mimeType"], "application/json");
        let data: Value = serde_json::from_str(r["contents"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(data, json!({"id": "123", "templateTest": true, "data": "Data for ID: 123"}));
        let r = c.result("resources/read", json!({"uri": "test://watched-resource"})).await;
        assert_eq!(r["contents"][0]["text"], "Watched resource content");
        if modern {
            assert!(r["ttlMs"].is_u64() && r["cacheScope"].is_string(), "cache hints: {r}");
        }
        c.client.close().await;
    }
}

#[tokio::test]
async fn prompts_and_completion_answer_exactly() {
    for modern in eras() {
        let mut c = Era::new(modern).await;
        let list = c.result("prompts/list", json!({})).await;
        let names: Vec<&str> =
            list["prompts"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            [
                "test_simple_prompt",
                "test_prompt_with_arguments",
                "test_prompt_with_embedded_resource",
                "test_prompt_with_image",
                "test_input_required_result_prompt",
                "handwritten_topic"
            ]
        );
        let args = &list["prompts"][1]["arguments"];
        assert_eq!(args[0]["name"], "arg1");
        assert_eq!(args[1]["required"], true);
        assert_eq!(list["prompts"][2]["arguments"][0]["name"], "resourceUri");

        let r = c.result("prompts/get", json!({"name": "test_simple_prompt"})).await;
        assert_eq!(
            r["messages"],
            json!([{"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}])
        );
        let r = c
            .result(
                "prompts/get",
                json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "hello", "arg2": "world"}}),
            )
            .await;
        assert_eq!(r["messages"][0]["content"]["text"], "Prompt with arguments: arg1='hello', arg2='world'");
        let r = c
            .result(
                "prompts/get",
                json!({"name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "test://x"}}),
            )
            .await;
        assert_eq!(
            r["messages"],
            json!([
                {"role": "user", "content": {"type": "resource", "resource": {
                    "uri": "test://x", "mimeType": "text/plain", "text": "Embedded resource content for testing."}}},
                {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}}
            ])
        );
        let r = c.result("prompts/get", json!({"name": "test_prompt_with_image"})).await;
        assert_eq!(
            r["messages"],
            json!([
                {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}},
                {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}}
            ])
        );
        let r = c
            .result(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                       "argument": {"name": "arg1", "value": "test"}}),
            )
            .await;
        let values = r["completion"]["values"].as_array().expect("values");
        assert!(!values.is_empty() && values.iter().all(|v| v.as_str().unwrap().starts_with("test")), "{r}");
        c.client.close().await;
    }
}

// ---- the modern wire, round by round -------------------------------------------------------------------

/// One modern request, optionally answering the previous round.
async fn modern(
    c: &mut StdioClient,
    caps: Value,
    method: &str,
    mut params: Value,
    retry: Option<(Value, &str)>,
) -> Value {
    params["_meta"] = modern_meta(caps);
    if let Some((responses, state)) = retry {
        params["inputResponses"] = responses;
        params["requestState"] = json!(state);
    }
    c.request(method, params).await
}

async fn tool(c: &mut StdioClient, name: &str, retry: Option<(Value, &str)>) -> Value {
    modern(c, harness_caps(), "tools/call", json!({"name": name, "arguments": {}}), retry).await
}

/// The input requests and request state of an `input_required` response.
fn input_required(response: &Value) -> (Map<String, Value>, String) {
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response}");
    let state = result["requestState"].as_str().expect("requestState").to_owned();
    (result["inputRequests"].as_object().expect("inputRequests").clone(), state)
}

fn only(requests: &Map<String, Value>, method: &str) -> String {
    assert_eq!(requests.len(), 1, "one input request: {requests:?}");
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], method, "{requests:?}");
    key.clone()
}

fn complete_text(response: &Value) -> &str {
    assert_eq!(response["result"]["resultType"], "complete", "{response}");
    first_text(&response["result"])
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

fn sampled(text: &str) -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "test-model", "stopReason": "endTurn"})
}

fn harness_roots() -> Value {
    json!({"roots": [{"uri": "file:///test/root", "name": "Test Root"}]})
}

#[tokio::test]
async fn modern_single_input_flows() {
    let mut c = StdioClient::spawn(example_bin("everything"));

    let r1 = tool(&mut c, "test_input_required_result_elicitation", None).await;
    let (requests, state) = input_required(&r1);
    let key = only(&requests, "elicitation/create");
    assert_eq!(key, "user_name", "the author named this ask's key");
    assert_eq!(requests[&key]["params"]["requestedSchema"]["properties"]["name"]["type"], "string");
    // Wrong keys: a new input_required; a malformed answer: an error. Never complete.
    let wrong = json!({"other": accept(json!({"name": "x"}))});
    let again = tool(&mut c, "test_input_required_result_elicitation", Some((wrong, &state))).await;
    assert_eq!(input_required(&again).0, requests);
    let malformed =
        tool(&mut c, "test_input_required_result_elicitation", Some((json!({"user_name": 12345}), &state))).await;
    assert_eq!(malformed["error"]["code"], -32602, "{malformed}");
    let answer = json!({ key.clone(): accept(json!({"name": "Ada"})), "extra": {"ignored": true} });
    let done = tool(&mut c, "test_input_required_result_elicitation", Some((answer, &state))).await;
    assert_eq!(complete_text(&done), "Hello, Ada!");

    let r1 = tool(&mut c, "test_input_required_result_sampling", None).await;
    let (requests, state) = input_required(&r1);
    let key = only(&requests, "sampling/createMessage");
    let params = &requests[&key]["params"];
    assert_eq!(params["maxTokens"], 100);
    assert_eq!(params["messages"][0]["content"]["text"], "What is the capital of France?");
    let done =
        tool(&mut c, "test_input_required_result_sampling", Some((json!({ key: sampled("Paris") }), &state))).await;
    assert_eq!(complete_text(&done), "Sampling result: Paris");

    let r1 = tool(&mut c, "test_input_required_result_list_roots", None).await;
    let (requests, state) = input_required(&r1);
    let key = only(&requests, "roots/list");
    let done =
        tool(&mut c, "test_input_required_result_list_roots", Some((json!({ key: harness_roots() }), &state))).await;
    assert_eq!(complete_text(&done), "Found 1 root(s)");

    let r1 = tool(&mut c, "test_input_required_result_request_state", None).await;
    let (requests, state) = input_required(&r1);
    let key = only(&requests, "elicitation/create");
    assert_eq!(requests[&key]["params"]["requestedSchema"]["properties"]["ok"]["type"], "boolean");
    let done = tool(
        &mut c,
        "test_input_required_result_request_state",
        Some((json!({ key: accept(json!({"ok": true})) }), &state)),
    )
    .await;
    assert!(complete_text(&done).contains("state-ok"), "{done}");

    let r1 = tool(&mut c, "test_input_required_result_tampered_state", None).await;
    let (requests, state) = input_required(&r1);
    let key = only(&requests, "elicitation/create");
    let mut tampered = state.clone().into_bytes();
    let i = tampered.len() / 2;
    tampered[i] = if tampered[i] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    let answer = json!({ key: accept(json!({"name": "Eve"})) });
    let e = tool(&mut c, "test_input_required_result_tampered_state", Some((answer.clone(), &tampered))).await;
    assert!(e["error"]["code"].is_i64(), "a tampered state is a JSON-RPC error: {e}");
    let ok = tool(&mut c, "test_input_required_result_tampered_state", Some((answer, &state))).await;
    assert_eq!(complete_text(&ok), "State verified for Eve");

    let r1 = tool(&mut c, "test_streaming_elicitation", None).await;
    let (requests, state) = input_required(&r1);
    let key = only(&requests, "elicitation/create");
    let done =
        tool(&mut c, "test_streaming_elicitation", Some((json!({ key: accept(json!({"name": "Bo"})) }), &state))).await;
    assert_eq!(complete_text(&done), "Streaming elicitation complete: Hello, Bo!");
    c.close().await;
}

#[tokio::test]
async fn modern_multi_round_carries_the_name() {
    let mut c = StdioClient::spawn(example_bin("everything"));
    let name = "test_input_required_result_multi_round";
    let r1 = tool(&mut c, name, None).await;
    let (requests, state1) = input_required(&r1);
    let key = only(&requests, "elicitation/create");
    assert_eq!(requests[&key]["params"]["requestedSchema"]["properties"]["name"]["type"], "string");
    let r2 = tool(&mut c, name, Some((json!({ key: accept(json!({"name": "Ada"})) }), &state1))).await;
    let (requests, state2) = input_required(&r2);
    assert_ne!(state1, state2, "step 2 has its own state");
    let key = only(&requests, "elicitation/create");
    assert_eq!(requests[&key]["params"]["requestedSchema"]["properties"]["color"]["type"], "string");
    assert!(requests[&key]["params"]["message"].as_str().unwrap().contains("Ada"));
    let done = tool(&mut c, name, Some((json!({ key: accept(json!({"color": "green"})) }), &state2))).await;
    assert_eq!(complete_text(&done), "Multi-round complete for Ada who likes green");
    c.close().await;
}

#[tokio::test]
async fn modern_multiple_inputs_in_one_round() {
    let mut c = StdioClient::spawn(example_bin("everything"));
    let name = "test_input_required_result_multiple_inputs";
    let r1 = tool(&mut c, name, None).await;
    let (requests, state) = input_required(&r1);
    let mut methods: Vec<&str> = requests.values().map(|r| r["method"].as_str().unwrap()).collect();
    methods.sort_unstable();
    assert_eq!(methods, ["elicitation/create", "roots/list", "sampling/createMessage"]);
    let mut answers = Map::new();
    for (key, request) in &requests {
        let answer = match request["method"].as_str().unwrap() {
            "elicitation/create" => accept(json!({"name": "Ada"})),
            "sampling/createMessage" => sampled("Paris"),
            _ => harness_roots(),
        };
        answers.insert(key.clone(), answer);
    }
    // Not all answered yet: the same round again.
    let (first_key, first_answer) = answers.iter().next().map(|(k, v)| (k.clone(), v.clone())).unwrap();
    let partial = tool(&mut c, name, Some((json!({ first_key: first_answer }), &state))).await;
    assert_eq!(input_required(&partial).0, requests);
    let done = tool(&mut c, name, Some((Value::Object(answers), &state))).await;
    assert_eq!(complete_text(&done), "Multiple inputs complete: name=Ada, sampling=Paris, roots=1");
    c.close().await;
}

#[tokio::test]
async fn modern_prompt_asks_for_context() {
    let mut c = StdioClient::spawn(example_bin("everything"));
    let params = json!({"name": "test_input_required_result_prompt"});
    let r1 = modern(&mut c, harness_caps(), "prompts/get", params.clone(), None).await;
    let (requests, state) = input_required(&r1);
    let key = only(&requests, "elicitation/create");
    assert_eq!(requests[&key]["params"]["requestedSchema"]["properties"]["context"]["type"], "string");
    let answer = json!({ key: accept(json!({"context": "testing"})) });
    let done = modern(&mut c, harness_caps(), "prompts/get", params, Some((answer, &state))).await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(done["result"]["messages"][0]["content"]["text"], "Prompt with context: testing");
    // Lists never ask.
    for method in ["tools/list", "prompts/list"] {
        let r = modern(&mut c, harness_caps(), method, json!({}), None).await;
        assert_eq!(r["result"]["resultType"], "complete");
    }
    c.close().await;
}

#[tokio::test]
async fn capabilities_are_respected() {
    let mut c = StdioClient::spawn(example_bin("everything"));
    let name = "test_input_required_result_capabilities";
    let call = json!({"name": name, "arguments": {}});
    let r1 = modern(&mut c, json!({"sampling": {}}), "tools/call", call.clone(), None).await;
    let (requests, state) = input_required(&r1);
    let key = only(&requests, "sampling/createMessage");
    let done = modern(
        &mut c,
        json!({"sampling": {}}),
        "tools/call",
        call.clone(),
        Some((json!({ key: sampled("hi") }), &state)),
    )
    .await;
    assert_eq!(complete_text(&done), "Capabilities respected: sampling=hi");

    let r1 = modern(&mut c, harness_caps(), "tools/call", call.clone(), None).await;
    let mut methods: Vec<String> = input_required(&r1).0.values().map(|r| r["method"].to_string()).collect();
    methods.sort_unstable();
    assert_eq!(methods, ["\"elicitation/create\"", "\"sampling/createMessage\""]);

    let r = modern(&mut c, json!({}), "tools/call", call, None).await;
    assert_eq!(complete_text(&r), "Capabilities respected: nothing to ask");

    // A tool that needs sampling, called without it: -32021 naming the capability.
    let r = modern(&mut c, json!({"elicitation": {}}), "tools/call", json!({"name": "test_missing_capability"}), None)
        .await;
    assert_eq!(r["error"]["code"], -32021, "{r}");
    assert_eq!(r["error"]["data"]["requiredCapabilities"], json!({"sampling": {}}));
    let r =
        modern(&mut c, json!({"sampling": {}}), "tools/call", json!({"name": "test_missing_capability"}), None).await;
    assert_eq!(input_required(&r).0.len(), 1);
    c.close().await;

    // A legacy session that declared only sampling is asked only for sampling.
    let mut c = StdioClient::spawn(example_bin("everything"));
    c.initialize_declaring("2025-11-25", json!({"sampling": {}})).await;
    let (response, asked) =
        c.request_answering("tools/call", call_params(name, json!({})), |_| Ok(sampled("yo"))).await;
    assert_eq!(first_text(&response["result"]), "Capabilities respected: sampling=yo");
    let methods: Vec<&str> = asked.iter().map(|r| r["method"].as_str().unwrap()).collect();
    assert_eq!(methods, ["sampling/createMessage"]);
    c.close().await;
}

fn call_params(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

// ---- notifications -------------------------------------------------------------------------------------

/// Sends a request and collects the notifications that arrive before its response, with their arrival times.
async fn with_notifications(c: &mut StdioClient, id: &str, params: Value) -> (Value, Vec<(Value, Instant)>) {
    c.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})).await;
    let mut notes = Vec::new();
    loop {
        let msg = c.recv().await;
        if msg["id"] == id {
            return (msg, notes);
        }
        notes.push((msg, Instant::now()));
    }
}

fn spread(notes: &[(Value, Instant)]) -> Duration {
    match (notes.first(), notes.last()) {
        (Some((_, a)), Some((_, b))) => b.duration_since(*a),
        _ => Duration::ZERO,
    }
}

#[tokio::test]
async fn progress_is_0_50_100_about_50ms_apart() {
    for modern in eras() {
        let mut c = Era::new(modern).await;
        let mut meta = if modern { modern_meta(harness_caps()) } else { json!({}) };
        meta["progressToken"] = json!("p1");
        let (r, notes) =
            with_notifications(&mut c.client, "p", json!({"_meta": meta, "name": "test_tool_with_progress"})).await;
        assert_eq!(first_text(&r["result"]), "Progress notifications test completed successfully.");
        let progress: Vec<(f64, f64)> = notes
            .iter()
            .map(|(n, _)| {
                assert_eq!(n["method"], "notifications/progress");
                assert_eq!(n["params"]["progressToken"], "p1");
                (n["params"]["progress"].as_f64().unwrap(), n["params"]["total"].as_f64().unwrap())
            })
            .collect();
        assert_eq!(progress, [(0.0, 100.0), (50.0, 100.0), (100.0, 100.0)], "modern: {modern}");
        assert!(spread(&notes) >= Duration::from_millis(80), "about 50 ms apart: {:?}", spread(&notes));

        // No token, no progress.
        let meta = if modern { modern_meta(harness_caps()) } else { json!({}) };
        let (_, notes) =
            with_notifications(&mut c.client, "q", json!({"_meta": meta, "name": "test_tool_with_progress"})).await;
        assert!(notes.is_empty(), "{notes:?}");
        c.client.close().await;
    }
}

#[tokio::test]
async fn legacy_logging_tool_sends_three_info_messages() {
    let mut c = Era::new(false).await;
    let r = c.result("logging/setLevel", json!({"level": "info"})).await;
    assert_eq!(r, json!({}));
    let (r, notes) = with_notifications(&mut c.client, "l", call_params("test_tool_with_logging", json!({}))).await;
    assert_eq!(first_text(&r["result"]), "Tool with logging executed successfully");
    let messages: Vec<(&str, &str)> = notes
        .iter()
        .map(|(n, _)| {
            assert_eq!(n["method"], "notifications/message");
            (n["params"]["level"].as_str().unwrap(), n["params"]["data"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        messages,
        [("info", "Tool execution started"), ("info", "Tool processing data"), ("info", "Tool execution completed")]
    );
    assert!(spread(&notes) >= Duration::from_millis(80), "about 50 ms apart: {:?}", spread(&notes));
    assert_eq!(c.result("ping", json!({})).await, json!({}));
    c.client.close().await;
}

#[tokio::test]
async fn modern_logging_tool_logs_only_with_a_log_level() {
    let mut c = StdioClient::spawn(example_bin("everything"));
    let mut params = json!({"_meta": modern_meta(harness_caps()), "name": "test_logging_tool"});
    let (r, notes) = with_notifications(&mut c, "a", params.clone()).await;
    assert_eq!(r["result"]["resultType"], "complete");
    assert!(notes.is_empty(), "no logLevel, no notifications/message: {notes:?}");
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    let (r, notes) = with_notifications(&mut c, "b", params.clone()).await;
    assert_eq!(first_text(&r["result"]), "Logging tool completed");
    let levels: Vec<&str> = notes.iter().map(|(n, _)| n["params"]["level"].as_str().unwrap()).collect();
    assert_eq!(levels, ["info"], "debug is below the requested level");
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug");
    let (_, notes) = with_notifications(&mut c, "c", params).await;
    assert_eq!(notes.len(), 2);
    c.close().await;
}

// ---- legacy sessions: the shim asks over the session ----------------------------------------------------

#[tokio::test]
async fn legacy_sampling_and_elicitation() {
    let mut c = Era::new(false).await;
    let (r, asked) = c
        .client
        .request_answering("tools/call", call_params("test_sampling", json!({"prompt": "Say hi"})), |_| {
            Ok(sampled("hi there"))
        })
        .await;
    assert_eq!(first_text(&r["result"]), "LLM response: hi there");
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["method"], "sampling/createMessage");
    assert_eq!(asked[0]["params"]["maxTokens"], 100);
    assert_eq!(
        asked[0]["params"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Say hi"}}])
    );

    let (r, asked) = c
        .client
        .request_answering("tools/call", call_params("test_elicitation", json!({"message": "Tell me"})), |_| {
            Ok(accept(json!({"username": "ok", "email": "ok@example.com"})))
        })
        .await;
    assert_eq!(
        first_text(&r["result"]),
        r#"User response: action=accept, content={"username":"ok","email":"ok@example.com"}"#
    );
    assert_eq!(asked[0]["method"], "elicitation/create");
    assert_eq!(asked[0]["params"]["message"], "Tell me");
    assert_eq!(asked[0]["params"]["requestedSchema"]["type"], "object");
    let (r, _) = c
        .client
        .request_answering("tools/call", call_params("test_elicitation", json!({"message": "Again"})), |_| {
            Ok(json!({"action": "decline"}))
        })
        .await;
    assert_eq!(first_text(&r["result"]), "User response: action=decline, content={}");

    // The multi-round flow, served through the shim: two real elicitations, one result.
    let (r, asked) = c
        .client
        .request_answering("tools/call", call_params("test_input_required_result_multi_round", json!({})), |req| {
            let props = &req["params"]["requestedSchema"]["properties"];
            Ok(if props.get("name").is_some() {
                accept(json!({"name": "Ada"}))
            } else {
                accept(json!({"color": "red"}))
            })
        })
        .await;
    assert_eq!(first_text(&r["result"]), "Multi-round complete for Ada who likes red");
    assert_eq!(asked.len(), 2);
    c.client.close().await;
}

#[tokio::test]
async fn legacy_sep1034_defaults() {
    let mut c = Era::new(false).await;
    let (r, asked) = c
        .client
        .request_answering("tools/call", call_params("test_elicitation_sep1034_defaults", json!({})), |_| {
            Ok(accept(json!({"name": "Jane", "age": 31})))
        })
        .await;
    let props = &asked[0]["params"]["requestedSchema"]["properties"];
    assert_eq!(props["name"], json!({"type": "string", "description": "User name", "default": "John Doe"}));
    assert_eq!(props["age"], json!({"type": "integer", "description": "User age", "default": 30}));
    assert_eq!(props["score"], json!({"type": "number", "description": "User score", "default": 95.5}));
    assert_eq!(
        props["status"],
        json!({"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"})
    );
    assert_eq!(props["verified"], json!({"type": "boolean", "description": "Verification status", "default": true}));
    assert_eq!(
        first_text(&r["result"]),
        r#"Elicitation completed: action=accept, content={"name":"Jane","age":31,"score":95.5,"status":"active","verified":true}"#,
        "fields left out take their defaults"
    );
    c.client.close().await;
}

#[tokio::test]
async fn legacy_sep1330_enums() {
    let mut c = Era::new(false).await;
    let (r, asked) = c
        .client
        .request_answering("tools/call", call_params("test_elicitation_sep1330_enums", json!({})), |_| {
            Ok(accept(json!({"untitledSingle": "option2", "titledMulti": ["value1", "value3"]})))
        })
        .await;
    let props = &asked[0]["params"]["requestedSchema"]["properties"];
    assert_eq!(
        props["untitledSingle"],
        json!({"type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"]})
    );
    assert_eq!(
        props["titledSingle"]["oneOf"],
        json!([
            {"const": "value1", "title": "First Option"},
            {"const": "value2", "title": "Second Option"},
            {"const": "value3", "title": "Third Option"}
        ])
    );
    // `#[elicit(enum_names)]` keeps the legacy titled enum as `enum` + `enumNames` on every revision.
    assert!(props["legacyEnum"].get("oneOf").is_none());
    assert_eq!(props["legacyEnum"]["enum"], json!(["opt1", "opt2", "opt3"]));
    assert_eq!(props["legacyEnum"]["enumNames"], json!(["Option One", "Option Two", "Option Three"]));
    assert_eq!(
        props["untitledMulti"],
        json!({"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3,
               "items": {"type": "string", "enum": ["option1", "option2", "option3"]}})
    );
    assert_eq!(
        props["titledMulti"]["items"]["anyOf"],
        json!([
            {"const": "value1", "title": "First Choice"},
            {"const": "value2", "title": "Second Choice"},
            {"const": "value3", "title": "Third Choice"}
        ])
    );
    assert_eq!(props["titledMulti"]["minItems"], 1);
    assert!(first_text(&r["result"]).contains(r#""untitledSingle":"option2""#), "{r}");
    assert!(first_text(&r["result"]).contains(r#""titledMulti":["value1","value3"]"#), "{r}");
    c.client.close().await;

    // Sessions before 2025-11-25 get the titled single selects as `enum` + `enumNames`.
    let mut c = StdioClient::spawn(example_bin("everything"));
    c.initialize_declaring("2025-06-18", harness_caps()).await;
    let (_, asked) = c
        .request_answering("tools/call", call_params("test_elicitation_sep1330_enums", json!({})), |_| {
            Ok(json!({"action": "decline"}))
        })
        .await;
    let props = &asked[0]["params"]["requestedSchema"]["properties"];
    assert_eq!(props["legacyEnum"]["enum"], json!(["opt1", "opt2", "opt3"]));
    assert_eq!(props["legacyEnum"]["enumNames"], json!(["Option One", "Option Two", "Option Three"]));
    c.close().await;
}

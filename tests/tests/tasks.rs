//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) against real server processes: the
//! `everything` fixture's task tools over stdio (modern requests) and HTTP, and the test fixture's limits.

use fastmcp_tests::{HttpServer, StdioClient, example_bin, first_text, modern_meta};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// Client capabilities that opt into tasks (and can answer elicitations).
fn with_tasks() -> Value {
    json!({ "elicitation": {}, "extensions": { TASKS: {} } })
}

/// A modern client over stdio that declares `capabilities` on every request.
struct Client {
    io: StdioClient,
}

impl Client {
    fn everything() -> Self {
        Self { io: StdioClient::spawn(example_bin("everything")) }
    }

    fn fixture(env: &[(&str, &str)]) -> Self {
        Self { io: StdioClient::spawn_with_env(env!("CARGO_BIN_EXE_fixture").into(), env) }
    }

    /// The whole response to a modern request declaring `capabilities`.
    async fn send(&mut self, method: &str, mut params: Value, capabilities: Value) -> Value {
        params["_meta"] = modern_meta(capabilities);
        self.io.request(method, params).await
    }

    /// The result of a request that opts into tasks (panics on an error response).
    async fn call(&mut self, method: &str, params: Value) -> Value {
        let response = self.send(method, params, with_tasks()).await;
        assert!(response.get("error").is_none(), "{method} failed: {response}");
        response["result"].clone()
    }

    /// Starts a task: the `CreateTaskResult` of a `tools/call`.
    async fn start(&mut self, tool: &str, arguments: Value) -> Value {
        let created = self.call("tools/call", json!({ "name": tool, "arguments": arguments })).await;
        assert_eq!(created["resultType"], "task", "{created}");
        created
    }

    async fn get(&mut self, task_id: &Value) -> Value {
        self.call("tasks/get", json!({ "taskId": task_id })).await
    }

    /// Polls until the task's status is one of `statuses`.
    async fn until(&mut self, task_id: &Value, statuses: &[&str]) -> Value {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let task = self.get(task_id).await;
            if statuses.iter().any(|s| task["status"] == *s) {
                return task;
            }
            assert!(Instant::now() < deadline, "task never reached {statuses:?}: {task}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn settled(&mut self, task_id: &Value) -> Value {
        self.until(task_id, &["completed", "failed", "cancelled"]).await
    }
}

/// An ISO-8601 UTC timestamp as the suite reads it: `YYYY-MM-DDTHH:MM:SS`, then fractions and `Z`.
fn is_iso8601(value: &Value) -> bool {
    let Some(text) = value.as_str() else { return false };
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| r.into_iter().all(|i| b.get(i).is_some_and(u8::is_ascii_digit));
    digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(10) == Some(&b'T')
        && digits(11..13)
        && b.get(13) == Some(&b':')
        && digits(17..19)
        && text.ends_with('Z')
}

fn error_code(response: &Value) -> i64 {
    response["error"]["code"].as_i64().unwrap_or_else(|| panic!("expected an error: {response}"))
}

#[tokio::test]
async fn discover_advertises_the_extension_and_legacy_initialize_does_not() {
    let mut c = Client::everything();
    let discovered = c.call("server/discover", json!({})).await;
    assert_eq!(discovered["capabilities"]["extensions"][TASKS], json!({}), "{discovered}");
    assert!(discovered["capabilities"].get("tasks").is_none(), "never the legacy tasks slot");

    let mut legacy = StdioClient::spawn(example_bin("everything"));
    let init = legacy.initialize("2025-11-25").await;
    assert!(init["capabilities"].get("extensions").is_none(), "legacy sessions get no tasks: {init}");
    assert!(init["capabilities"].get("tasks").is_none());

    // Without a tool that supports tasks, nothing is advertised.
    let mut quickstart = StdioClient::spawn(example_bin("quickstart"));
    let d = quickstart.modern("server/discover", json!({})).await;
    assert!(d["result"]["capabilities"].get("extensions").is_none(), "{d}");
}

#[tokio::test]
async fn a_task_is_created_polled_and_completes_with_its_result_inlined() {
    let mut c = Client::everything();
    let created = c.start("slow_compute", json!({ "seconds": 0.3, "label": "lifecycle" })).await;
    let id = created["taskId"].clone();
    let id_text = id.as_str().expect("a string id");
    assert_eq!(id_text.len(), 32, "128 random bits, hex");
    assert!(id_text.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(created["status"], "working");
    assert!(is_iso8601(&created["createdAt"]), "{created}");
    assert!(is_iso8601(&created["lastUpdatedAt"]), "{created}");
    assert_eq!(created["ttlMs"], 3_600_000);
    assert_eq!(created["pollIntervalMs"], 500);
    for absent in ["task", "ttl", "pollInterval", "requestState", "result", "error", "inputRequests", "content"] {
        assert!(created.get(absent).is_none(), "CreateTaskResult carries `{absent}`: {created}");
    }

    // Retrievable at once, still working.
    let working = c.get(&id).await;
    assert_eq!(working["taskId"], id);
    assert_eq!(working["resultType"], "complete");
    assert_eq!(working["status"], "working");
    assert!(working.get("result").is_none() && working.get("error").is_none());

    let done = c.settled(&id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["createdAt"], created["createdAt"]);
    assert!(done["lastUpdatedAt"].as_str() >= created["lastUpdatedAt"].as_str());
    assert_eq!(first_text(&done["result"]), "Computed lifecycle after 300 ms");
    assert!(done.get("error").is_none() && done.get("requestState").is_none());
    assert!(done["result"].get("_meta").is_none(), "no related-task _meta on the inlined result");

    // Different calls, different ids.
    let other = c.start("slow_compute", json!({ "seconds": 0, "label": "other" })).await;
    assert_ne!(other["taskId"], id);
}

#[tokio::test]
async fn tool_errors_complete_and_protocol_errors_fail() {
    let mut c = Client::everything();
    let failing = c.start("failing_job", json!({})).await;
    let done = c.settled(&failing["taskId"]).await;
    assert_eq!(done["status"], "completed", "a tool error is a result: {done}");
    assert_eq!(done["result"]["isError"], true);
    assert!(first_text(&done["result"]).contains("The job failed"));

    let crash = c.start("protocol_error_job", json!({})).await;
    let failed = c.settled(&crash["taskId"]).await;
    assert_eq!(failed["status"], "failed", "a panic is a protocol error: {failed}");
    assert_eq!(failed["error"]["code"], -32603);
    assert!(failed["error"]["message"].as_str().is_some_and(|m| m.contains("protocol_error_job")), "{failed}");
    assert_eq!(failed["statusMessage"], failed["error"]["message"], "a failed task says why in its status too");
    assert!(failed.get("result").is_none());
    // A task that did not fail has no status message.
    assert!(done.get("statusMessage").is_none(), "{done}");

    // The server is still serving.
    let greeting = c.call("tools/call", json!({ "name": "greet", "arguments": { "name": "after" } })).await;
    assert_eq!(first_text(&greeting), "Hello, after!");
}

#[tokio::test]
async fn a_malformed_answer_fails_the_task_with_invalid_params() {
    let mut c = Client::everything();
    let created = c.start("confirm_delete", json!({ "filename": "x" })).await;
    let id = created["taskId"].clone();
    let waiting = c.until(&id, &["input_required"]).await;
    let key = waiting["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let answer = json!({ "action": "accept", "content": { "confirm": "yes please" } });
    c.call("tasks/update", json!({ "taskId": id, "inputResponses": { key: answer } })).await;
    let failed = c.settled(&id).await;
    assert_eq!(failed["status"], "failed", "answers are untrusted: {failed}");
    assert_eq!(failed["error"]["code"], -32602);
    assert!(failed["error"]["message"].as_str().unwrap().contains("confirm"), "{failed}");
}

#[tokio::test]
async fn a_round_that_times_out_completes_the_task_with_a_tool_error() {
    let mut c = Client::fixture(&[]);
    let created = c.start("limited_task", json!({ "ms": 5_000 })).await;
    let done = c.settled(&created["taskId"]).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], true);
    assert_eq!(first_text(&done["result"]), "Tool `limited_task` timed out after 200 ms");
    let quick = c.start("limited_task", json!({ "ms": 0 })).await;
    assert_eq!(first_text(&c.settled(&quick["taskId"]).await["result"]), "slept 0ms");
}

#[tokio::test]
async fn cancel_stops_a_running_task_and_is_idempotent() {
    let mut c = Client::everything();
    let created = c.start("slow_compute", json!({ "seconds": 60, "label": "cancel-me" })).await;
    let id = created["taskId"].clone();
    let ack = c.call("tasks/cancel", json!({ "taskId": id })).await;
    assert_eq!(ack["resultType"], "complete");
    for absent in ["taskId", "status", "result", "error", "inputRequests"] {
        assert!(ack.get(absent).is_none(), "the cancel ack carries `{absent}`: {ack}");
    }
    let cancelled = c.get(&id).await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert!(cancelled.get("result").is_none() && cancelled.get("error").is_none());

    // Again, and on a completed task: the same ack, and nothing changes.
    assert_eq!(c.call("tasks/cancel", json!({ "taskId": id })).await["resultType"], "complete");
    assert_eq!(c.get(&id).await["status"], "cancelled");
    let quick = c.start("slow_compute", json!({ "seconds": 0 })).await;
    let done = c.settled(&quick["taskId"]).await;
    assert_eq!(done["status"], "completed");
    assert_eq!(c.call("tasks/cancel", json!({ "taskId": quick["taskId"] })).await["resultType"], "complete");
    assert_eq!(c.get(&quick["taskId"]).await["status"], "completed", "a terminal task stays as it was");
}

#[tokio::test]
async fn cancel_fires_the_handlers_cancellation_token() {
    let mut c = Client::fixture(&[]);
    assert_eq!(cancel_state(&mut c).await, "idle");
    let created = c.start("await_cancel", json!({})).await;
    // A task cancelled before its handler ran never runs it, so there is no token to fire: cancelled once
    // the handler watches it (under a loaded CI, the cancel could overtake the task's first poll).
    cancel_state_becomes(&mut c, "watching").await;
    c.call("tasks/cancel", json!({ "taskId": created["taskId"] })).await;
    cancel_state_becomes(&mut c, "fired").await;
}

/// Where the fixture's `await_cancel` task is (`task_cancel_seen`).
async fn cancel_state(c: &mut Client) -> String {
    first_text(&c.call("tools/call", json!({ "name": "task_cancel_seen" })).await).to_owned()
}

/// Waits up to 5 s for the `await_cancel` task to be `want`.
async fn cancel_state_becomes(c: &mut Client, want: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let state = cancel_state(c).await;
        if state == want {
            return;
        }
        assert!(Instant::now() < deadline, "the `await_cancel` task stayed {state}, never {want}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn input_inside_a_task_waits_for_every_answer_then_resumes() {
    let mut c = Client::everything();
    let created = c.start("multi_input", json!({})).await;
    let id = created["taskId"].clone();
    let waiting = c.until(&id, &["input_required"]).await;
    assert_eq!(waiting["resultType"], "complete");
    let requests = waiting["inputRequests"].as_object().expect("inputRequests").clone();
    assert_eq!(requests.len(), 2, "{waiting}");
    assert!(requests.values().all(|r| r["method"] == "elicitation/create"), "{waiting}");
    assert!(waiting.get("requestState").is_none());
    let mut keys = requests.keys().cloned();
    let (first, second) = (keys.next().unwrap(), keys.next().unwrap());
    let answer = json!({ "action": "accept", "content": { "name": "Ada", "confirm": true } });

    // One answer (and one for a key nobody asked): acked, the other key still pending.
    let ack = c
        .call("tasks/update", json!({ "taskId": id, "inputResponses": { first.clone(): answer, "stray": answer } }))
        .await;
    assert_eq!(ack["resultType"], "complete");
    assert!(ack.get("status").is_none() && ack.get("taskId").is_none(), "{ack}");
    let partial = c.get(&id).await;
    assert_eq!(partial["status"], "input_required", "{partial}");
    let pending: Vec<&String> = partial["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(pending, vec![&second], "only the unanswered key remains");

    c.call("tasks/update", json!({ "taskId": id, "inputResponses": { second: answer } })).await;
    let done = c.settled(&id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(first_text(&done["result"]), "Multi-input complete: name=Ada, confirm=true");
    assert!(done.get("inputRequests").is_none());
}

#[tokio::test]
async fn an_elicitation_inside_a_task_is_answered_through_tasks_update() {
    let mut c = Client::everything();
    let created = c.start("confirm_delete", json!({ "filename": "notes.txt" })).await;
    let id = created["taskId"].clone();
    let waiting = c.until(&id, &["input_required"]).await;
    let (key, request) = waiting["inputRequests"].as_object().unwrap().iter().next().unwrap();
    assert_eq!(request["params"]["message"], "Delete notes.txt?");
    let answer = json!({ "action": "accept", "content": { "confirm": true } });
    c.call("tasks/update", json!({ "taskId": id, "inputResponses": { key.clone(): answer } })).await;
    let done = c.settled(&id).await;
    assert_eq!(first_text(&done["result"]), "Deleted notes.txt", "{done}");
}

#[tokio::test]
async fn input_gathered_in_ordinary_rounds_carries_into_the_task() {
    let mut c = Client::everything();
    let round1 = c.call("tools/call", json!({ "name": "test_tool_with_task", "arguments": {} })).await;
    assert_eq!(round1["resultType"], "input_required", "{round1}");
    assert!(round1.get("taskId").is_none());
    assert!(round1["inputRequests"].get("user_name").is_some(), "{round1}");
    let state = round1["requestState"].clone();
    assert!(state.is_string());

    let answer = json!({ "action": "accept", "content": { "name": "Alice" } });
    let params = json!({
        "name": "test_tool_with_task",
        "arguments": {},
        "inputResponses": { "user_name": answer },
        "requestState": state,
    });
    let round2 = c.call("tools/call", params).await;
    assert_eq!(round2["resultType"], "task", "{round2}");
    assert!(round2.get("requestState").is_none() && round2.get("inputRequests").is_none(), "{round2}");
    let done = c.settled(&round2["taskId"]).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(first_text(&done["result"]), "Task completed for Alice");
}

#[tokio::test]
async fn a_task_step_runs_as_a_task_with_the_extension_and_straight_through_without() {
    let mut c = Client::fixture(&[]);
    let created = c.start("staged", json!({ "ms": 100 })).await;
    let done = c.settled(&created["taskId"]).await;
    assert_eq!(first_text(&done["result"]), "staged: prepared for 100ms");

    let plain = c.send("tools/call", json!({ "name": "staged", "arguments": { "ms": 0 } }), json!({})).await;
    assert_eq!(plain["result"]["resultType"], "complete", "{plain}");
    assert_eq!(first_text(&plain["result"]), "staged: prepared for 0ms");
}

#[tokio::test]
async fn without_the_extension_tasks_are_refused_and_optional_tools_run_synchronously() {
    let mut c = Client::everything();
    let required = json!({ "extensions": { TASKS: {} } });
    for (method, params) in [
        ("tasks/get", json!({ "taskId": "x" })),
        ("tasks/update", json!({ "taskId": "x", "inputResponses": {} })),
        ("tasks/cancel", json!({ "taskId": "x" })),
    ] {
        let r = c.send(method, params, json!({ "elicitation": {} })).await;
        assert_eq!(error_code(&r), -32021, "{method}: {r}");
        assert_eq!(r["error"]["data"]["requiredCapabilities"], required, "{method}: {r}");
    }

    // A required tool is refused before it runs; the answer names the extension.
    for tool in ["failing_job", "test_tool_with_task"] {
        let r = c.send("tools/call", json!({ "name": tool, "arguments": {} }), json!({ "elicitation": {} })).await;
        assert_eq!(error_code(&r), -32021, "{tool}: {r}");
        assert_eq!(r["error"]["data"]["requiredCapabilities"], required);
    }

    // An optional tool runs as a plain call, asking through ordinary rounds.
    let sync = c.send("tools/call", json!({ "name": "slow_compute", "arguments": { "seconds": 0 } }), json!({})).await;
    assert_eq!(sync["result"]["resultType"], "complete", "{sync}");
    assert!(sync["result"].get("taskId").is_none());
    assert_eq!(first_text(&sync["result"]), "Computed result after 0 ms");
    let asks = c
        .send(
            "tools/call",
            json!({ "name": "confirm_delete", "arguments": { "filename": "a" } }),
            json!({ "elicitation": {} }),
        )
        .await;
    assert_eq!(asks["result"]["resultType"], "input_required", "{asks}");
}

#[tokio::test]
async fn unknown_tasks_removed_methods_and_the_legacy_task_param() {
    let mut c = Client::everything();
    for (method, params) in [
        ("tasks/get", json!({ "taskId": "no-such-task" })),
        ("tasks/update", json!({ "taskId": "no-such-task", "inputResponses": {} })),
        ("tasks/cancel", json!({ "taskId": "no-such-task" })),
        ("tasks/get", json!({})),
    ] {
        let r = c.send(method, params, with_tasks()).await;
        assert_eq!(error_code(&r), -32602, "{method}: {r}");
    }
    for method in ["tasks/result", "tasks/list"] {
        let r = c.send(method, json!({ "taskId": "x" }), with_tasks()).await;
        assert_eq!(error_code(&r), -32601, "{method}: {r}");
    }

    // A 2025-11-25 `task` param neither errors nor makes a plain tool a task.
    let params =
        json!({ "name": "greet", "arguments": { "name": "v1" }, "task": { "ttl": 60000, "pollInterval": 100 } });
    let plain = c.call("tools/call", params).await;
    assert_eq!(plain["resultType"], "complete", "{plain}");
    assert_eq!(first_text(&plain), "Hello, v1!");
}

#[tokio::test]
async fn tasks_expire_after_their_ttl_and_are_bounded_in_number() {
    let mut c = Client::fixture(&[("FIXTURE_TASK_TTL_MS", "400"), ("FIXTURE_MAX_TASKS", "2")]);
    let finished = c.start("staged", json!({ "ms": 0 })).await;
    assert_eq!(finished["ttlMs"], 400);
    let running = c.start("staged", json!({ "ms": 10_000 })).await;
    assert_eq!(c.settled(&finished["taskId"]).await["status"], "completed");

    // Two kept: a third is refused, and says why.
    let full = c.send("tools/call", json!({ "name": "staged", "arguments": { "ms": 0 } }), with_tasks()).await;
    assert_eq!(error_code(&full), -32603, "{full}");
    assert!(full["error"]["message"].as_str().unwrap().contains("FastMcp::max_tasks"), "{full}");

    tokio::time::sleep(Duration::from_millis(600)).await;
    for id in [&finished["taskId"], &running["taskId"]] {
        let gone = c.send("tasks/get", json!({ "taskId": id }), with_tasks()).await;
        assert_eq!(error_code(&gone), -32602, "an expired task is unknown: {gone}");
    }
    // Room again.
    c.start("staged", json!({ "ms": 0 })).await;
}

#[tokio::test]
async fn legacy_sessions_run_task_tools_synchronously() {
    let mut legacy = StdioClient::spawn(example_bin("everything"));
    legacy.initialize("2025-11-25").await;
    let r = legacy.request("tools/call", json!({ "name": "slow_compute", "arguments": { "seconds": 0 } })).await;
    assert_eq!(first_text(&r["result"]), "Computed result after 0 ms", "{r}");
    assert!(r["result"].get("resultType").is_none() && r["result"].get("taskId").is_none());
    let required = legacy.request("tools/call", json!({ "name": "failing_job", "arguments": {} })).await;
    assert_eq!(required["result"]["isError"], true, "a required tool still runs on a legacy session: {required}");
    let gone = legacy.request("tasks/get", json!({ "taskId": "x" })).await;
    assert_eq!(error_code(&gone), -32601);
}

#[tokio::test]
async fn over_http_a_task_outlives_the_request_that_created_it() {
    let s = HttpServer::spawn(example_bin("everything")).await;
    let created = s
        .modern_declaring(
            1,
            "tools/call",
            json!({ "name": "slow_compute", "arguments": { "seconds": 0.2 } }),
            with_tasks(),
        )
        .await;
    assert_eq!(created.status, 200, "{created:?}");
    let id = created.json()["result"]["taskId"].clone();
    assert!(id.is_string(), "{created:?}");

    let deadline = Instant::now() + Duration::from_secs(10);
    let done = loop {
        let got = s.modern_declaring(2, "tasks/get", json!({ "taskId": id }), with_tasks()).await;
        assert_eq!(got.status, 200, "{got:?}");
        let task = got.json()["result"].clone();
        if task["status"] == "completed" {
            break task;
        }
        assert_eq!(task["status"], "working", "{task}");
        assert!(Instant::now() < deadline, "never completed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(first_text(&done["result"]), "Computed result after 200 ms");

    // A missing capability is a 400 on HTTP; a removed method a 404.
    let refused = s.modern_declaring(3, "tasks/get", json!({ "taskId": id }), json!({})).await;
    assert_eq!(refused.status, 400);
    assert_eq!(refused.json()["error"]["code"], -32021);
    let required =
        s.modern_declaring(4, "tools/call", json!({ "name": "failing_job", "arguments": {} }), json!({})).await;
    assert_eq!(required.status, 400);
    assert_eq!(required.json()["error"]["code"], -32021);
    let removed = s.modern_declaring(5, "tasks/result", json!({ "taskId": id }), with_tasks()).await;
    assert_eq!(removed.status, 404);
    assert_eq!(removed.json()["error"]["code"], -32601);
}

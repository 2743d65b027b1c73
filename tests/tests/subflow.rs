//! Sub-flows (`#[elicit] async fn`) awaited with `.ask()`: driven round by round through the handler traits,
//! as `lowering.rs` does, then end to end through the fixture server on both wires. Proves that a sub-flow
//! that never asks ends no round, that neither the caller's code before the point nor the sub-flow's code
//! before its resume point runs twice, that keys nest under the caller's, that sub-flows nest and may
//! checkpoint, and that a malformed answer inside one is -32602.

use fastmcp::context::Scope;
use fastmcp::flow::{Resume, Step, Suspension};
use fastmcp::handler::{ToolCall, ToolHandler};
use fastmcp::prelude::*;
use fastmcp::protocol::{CallToolResult, ClientCapabilities, InputRequest, ProtocolVersion, RequestId};
use fastmcp_tests::{StdioClient, first_text, modern_meta};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};

#[elicit]
struct Confirm {
    confirm: bool,
}

// ---- helpers -------------------------------------------------------------------------------------------

fn ctx() -> Context {
    Context::new(Scope {
        request_id: RequestId::Number(1),
        protocol_version: ProtocolVersion::V2025_06_18,
        client_info: None,
        client_capabilities: ClientCapabilities::default(),
    })
}

fn raw(v: &Value) -> Box<RawValue> {
    RawValue::from_string(v.to_string()).expect("valid JSON")
}

fn yes() -> Value {
    json!({"action": "accept", "content": {"confirm": true}})
}

fn resume(s: &Suspension, answers: &[(&str, Value)]) -> Resume {
    Resume {
        step: s.step,
        locals: s.locals.clone(),
        responses: std::sync::Arc::new(
            answers.iter().map(|(k, v)| ((*k).to_owned(), serde_json::value::to_raw_value(v).unwrap())).collect(),
        ),
    }
}

async fn round(tool: &impl ToolHandler, args: &Value, resume: Option<Resume>) -> Result<Step<CallToolResult>, Error> {
    let call = ToolCall::new(Some(raw(args)), ctx());
    let call = match resume {
        Some(r) => call.resuming(r),
        None => call,
    };
    tool.call(call).await
}

fn suspended<T: std::fmt::Debug>(step: Result<Step<T>, Error>) -> Suspension {
    match step {
        Ok(Step::Suspend(s)) => s,
        other => panic!("expected a suspension, got {other:?}"),
    }
}

fn completed<T: std::fmt::Debug>(step: Result<Step<T>, Error>) -> T {
    match step {
        Ok(Step::Complete(out)) => out,
        other => panic!("expected a complete result, got {other:?}"),
    }
}

fn text(result: &CallToolResult) -> String {
    let v = serde_json::to_value(result).expect("serializes");
    v["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

fn keys(s: &Suspension) -> Vec<&str> {
    s.requests.keys().map(String::as_str).collect()
}

fn message<'s>(s: &'s Suspension, key: &str) -> &'s str {
    let InputRequest::Elicit(params) = &s.requests[key] else { panic!("an elicitation under {key}") };
    &params.message
}

// ---- a sub-flow that never asks: no round ends ---------------------------------------------------------

static QUICK_BEFORE: AtomicUsize = AtomicUsize::new(0);

#[elicit]
async fn add_one(n: u32) -> u32 {
    n + 1
}

#[tool]
async fn quick(n: u32) -> Result<String> {
    let label = format!("n={n}");
    QUICK_BEFORE.fetch_add(1, Ordering::SeqCst);
    let m = add_one(n).ask().await?;
    Ok(format!("{label} -> {m}"))
}

#[tokio::test]
async fn a_sub_flow_that_never_asks_ends_no_round() {
    QUICK_BEFORE.store(0, Ordering::SeqCst);
    let done = completed(round(&quick, &json!({"n": 41}), None).await);
    assert_eq!(text(&done), "n=41 -> 42");
    assert_eq!(QUICK_BEFORE.load(Ordering::SeqCst), 1, "the caller's code before the point ran once");
}

// ---- a sub-flow that asks twice ------------------------------------------------------------------------

/// Ask twice before doing something dangerous.
#[elicit]
async fn double_check(what: String) -> Result<bool> {
    let first = Confirm::elicit(format!("Really {what}?")).ask().await?;
    if !first.accepted().is_some_and(|c| c.confirm) {
        return Ok(false);
    }
    let second = Confirm::elicit(format!("Really, really {what}?")).ask().await?;
    Ok(second.accepted().is_some_and(|c| c.confirm))
}

#[tool]
async fn wipe(disk: String) -> Result<String> {
    let label = format!("wipe {disk}");
    let ok = double_check(label.clone()).ask().await??;
    Ok(if ok { format!("{label}: done") } else { format!("{label}: kept") })
}

// The same, counting what runs (its own fns: tests run in parallel).
static CALLER_BEFORE: AtomicUsize = AtomicUsize::new(0);
static SUB_BEFORE_SECOND: AtomicUsize = AtomicUsize::new(0);

#[elicit]
async fn counted_check(what: String) -> Result<bool> {
    let first = Confirm::elicit(format!("Really {what}?")).ask().await?;
    if !first.accepted().is_some_and(|c| c.confirm) {
        return Ok(false);
    }
    SUB_BEFORE_SECOND.fetch_add(1, Ordering::SeqCst);
    let second = Confirm::elicit(format!("Really, really {what}?")).ask().await?;
    Ok(second.accepted().is_some_and(|c| c.confirm))
}

#[tool]
async fn counted_wipe(disk: String) -> Result<String> {
    let label = format!("wipe {disk}");
    CALLER_BEFORE.fetch_add(1, Ordering::SeqCst);
    let ok = counted_check(label.clone()).ask().await??;
    Ok(if ok { format!("{label}: done") } else { format!("{label}: kept") })
}

#[tokio::test]
async fn a_sub_flow_that_asks_twice_takes_two_rounds_and_runs_each_segment_once() {
    CALLER_BEFORE.store(0, Ordering::SeqCst);
    SUB_BEFORE_SECOND.store(0, Ordering::SeqCst);
    let args = json!({"disk": "sda"});

    let first = suspended(round(&counted_wipe, &args, None).await);
    assert_eq!(first.step, 1, "the caller stands at its one point");
    assert_eq!(keys(&first), ["ask1/ask1"], "the sub-flow's key, under the caller's");
    assert_eq!(message(&first, "ask1/ask1"), "Really wipe sda?");
    let locals: Value = serde_json::from_str(first.locals.get()).unwrap();
    assert_eq!(locals["locals"], json!(["wipe sda"]), "the caller carries `label`: {locals}");
    assert_eq!(locals["flow"]["args"], json!({"what": "wipe sda"}));

    let second = suspended(round(&counted_wipe, &args, Some(resume(&first, &[("ask1/ask1", yes())]))).await);
    assert_eq!(second.step, 1, "suspended again at the same point");
    assert_eq!(keys(&second), ["ask1/ask2"]);
    assert_eq!(message(&second, "ask1/ask2"), "Really, really wipe sda?");

    let done = completed(round(&counted_wipe, &args, Some(resume(&second, &[("ask1/ask2", yes())]))).await);
    assert_eq!(text(&done), "wipe sda: done");
    assert_eq!(CALLER_BEFORE.load(Ordering::SeqCst), 1, "the caller's code before the point ran once");
    assert_eq!(SUB_BEFORE_SECOND.load(Ordering::SeqCst), 1, "the sub-flow's code before its second ask ran once");
}

#[tokio::test]
async fn a_declined_first_answer_short_circuits() {
    let args = json!({"disk": "sdb"});
    let first = suspended(round(&wipe, &args, None).await);
    let declined = json!({"action": "decline"});
    let done = completed(round(&wipe, &args, Some(resume(&first, &[("ask1/ask1", declined)]))).await);
    assert_eq!(text(&done), "wipe sdb: kept");
}

#[tokio::test]
async fn a_malformed_answer_inside_a_sub_flow_is_invalid_params() {
    let args = json!({"disk": "sdc"});
    let first = suspended(round(&wipe, &args, None).await);
    let bad = json!({"action": "accept", "content": {"confirm": "yes"}});
    let e = round(&wipe, &args, Some(resume(&first, &[("ask1/ask1", bad)]))).await.expect_err("malformed");
    assert_eq!(e.code(), Some(-32602), "{e}");
}

#[tokio::test]
async fn sub_flow_state_that_does_not_fit_is_refused() {
    let args = json!({"disk": "sdd"});
    let first = suspended(round(&wipe, &args, None).await);
    let mut locals: Value = serde_json::from_str(first.locals.get()).unwrap();
    locals["flow"]["fingerprint"] = json!(1);
    let mut stale = resume(&first, &[("ask1/ask1", yes())]);
    stale.locals = raw(&locals);
    assert!(round(&wipe, &args, Some(stale)).await.is_err(), "state of another build of the sub-flow");
}

// ---- nesting two levels, and a checkpoint inside a sub-flow --------------------------------------------

#[elicit]
async fn triple_check(what: String) -> Result<bool> {
    let intro = format!("about {what}");
    let ok = double_check(what).ask().await??;
    if !ok {
        return Ok(false);
    }
    let last = Confirm::elicit(format!("Last chance {intro}?")).ask().await?;
    Ok(last.accepted().is_some_and(|c| c.confirm))
}

#[tool]
async fn shred(file: String) -> Result<String> {
    let ok = triple_check(file.clone()).ask().await??;
    Ok(format!("{file}: {ok}"))
}

#[tokio::test]
async fn sub_flows_nest() {
    let args = json!({"file": "notes"});
    let r1 = suspended(round(&shred, &args, None).await);
    assert_eq!(keys(&r1), ["ask1/ask1/ask1"]);
    assert_eq!(message(&r1, "ask1/ask1/ask1"), "Really notes?");
    let r2 = suspended(round(&shred, &args, Some(resume(&r1, &[("ask1/ask1/ask1", yes())]))).await);
    assert_eq!(keys(&r2), ["ask1/ask1/ask2"]);
    let r3 = suspended(round(&shred, &args, Some(resume(&r2, &[("ask1/ask1/ask2", yes())]))).await);
    assert_eq!(keys(&r3), ["ask1/ask2"]);
    assert_eq!(message(&r3, "ask1/ask2"), "Last chance about notes?");
    let done = completed(round(&shred, &args, Some(resume(&r3, &[("ask1/ask2", yes())]))).await);
    assert_eq!(text(&done), "notes: true");
}

static SLICES: AtomicUsize = AtomicUsize::new(0);

#[elicit]
async fn in_slices(numbers: Vec<i64>) -> i64 {
    let mut total = 0;
    for n in numbers {
        SLICES.fetch_add(1, Ordering::SeqCst);
        total += n;
        if checkpoint().ask().await.is_err() {
            return -1;
        }
    }
    total
}

#[tool]
async fn sum(numbers: Vec<i64>) -> Result<String> {
    let total = in_slices(numbers).ask().await?;
    Ok(format!("sum={total}"))
}

#[tokio::test]
async fn a_checkpoint_inside_a_sub_flow_is_a_state_only_round() {
    SLICES.store(0, Ordering::SeqCst);
    let args = json!({"numbers": [1, 2, 3]});
    let mut step = round(&sum, &args, None).await;
    let mut rounds = 1;
    let done = loop {
        match step {
            Ok(Step::Suspend(s)) => {
                assert!(s.requests.is_empty(), "a state-only round asks nothing");
                rounds += 1;
                step = round(&sum, &args, Some(resume(&s, &[]))).await;
            }
            other => break completed(other),
        }
    };
    assert_eq!(text(&done), "sum=6");
    assert_eq!(rounds, 4);
    assert_eq!(SLICES.load(Ordering::SeqCst), 3, "each number was added once");
}

// ---- end to end: the fixture's `wipe`, on both wires ---------------------------------------------------

fn fixture() -> StdioClient {
    StdioClient::spawn(env!("CARGO_BIN_EXE_fixture").into())
}

async fn modern_call(c: &mut StdioClient, retry: Option<(Value, &str)>) -> Value {
    let caps = json!({"elicitation": {}});
    let mut params = json!({ "_meta": modern_meta(caps), "name": "wipe", "arguments": {"disk": "sda"} });
    if let Some((responses, state)) = retry {
        params["inputResponses"] = responses;
        params["requestState"] = json!(state);
    }
    c.request("tools/call", params).await
}

fn input_required(response: &Value) -> (Vec<String>, String) {
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response}");
    let state = result["requestState"].as_str().expect("requestState").to_owned();
    let keys = result["inputRequests"].as_object().expect("inputRequests").keys().cloned().collect();
    (keys, state)
}

#[tokio::test]
async fn wipe_completes_on_the_modern_wire() {
    let mut c = fixture();
    let r1 = modern_call(&mut c, None).await;
    let (keys, state) = input_required(&r1);
    assert_eq!(keys, ["ask1/ask1"]);
    let r2 = modern_call(&mut c, Some((json!({"ask1/ask1": yes()}), &state))).await;
    let (keys, state) = input_required(&r2);
    assert_eq!(keys, ["ask1/ask2"]);
    let r3 = modern_call(&mut c, Some((json!({"ask1/ask2": yes()}), &state))).await;
    assert_eq!(first_text(&r3["result"]), "wipe sda: done", "{r3}");
    assert!(c.close().await.0.success());
}

#[tokio::test]
async fn wipe_completes_on_a_legacy_session() {
    let mut c = fixture();
    c.initialize_declaring("2025-11-25", json!({"elicitation": {}})).await;
    let params = json!({"name": "wipe", "arguments": {"disk": "sdb"}});
    let (response, asked) = c.request_answering("tools/call", params, |_| Ok(yes())).await;
    assert_eq!(first_text(&response["result"]), "wipe sdb: done", "{response}");
    let messages: Vec<&str> = asked.iter().map(|r| r["params"]["message"].as_str().unwrap()).collect();
    assert_eq!(messages, ["Really wipe sdb?", "Really, really wipe sdb?"]);
    assert!(c.close().await.0.success());
}

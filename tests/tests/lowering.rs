//! The `.ask()` lowering at run time: handlers driven round by round through their traits, each round resumed
//! from the previous round's `Suspension` (its step, its carried locals) with answers made up here. Proves that
//! code before an ask runs once, that loops collect every answer in order, that `return` and `?` keep their
//! meaning in every round, that malformed answers and state end the round with -32602, and that the body is
//! `Send`.

use fastmcp::context::Scope;
use fastmcp::flow::{Resume, Step, Suspension};
use fastmcp::handler::{PromptGet, PromptHandler, ResourceHandler, ResourceRead, ToolCall, ToolHandler};
use fastmcp::prelude::*;
use fastmcp::protocol::{CallToolResult, ClientCapabilities, InputRequest, JsonObject, ProtocolVersion, RequestId};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

// ---- forms (hand-written: `#[elicit]` is built elsewhere) ------------------------------------------------

struct Confirm {
    confirm: bool,
}

impl ElicitForm for Confirm {
    fn requested_schema() -> JsonObject {
        let schema = json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]});
        schema.as_object().cloned().unwrap_or_default()
    }
    fn from_content(content: JsonObject) -> Result<Self, String> {
        let confirm = content.get("confirm").and_then(Value::as_bool).ok_or("`confirm` must be a boolean")?;
        Ok(Confirm { confirm })
    }
}

struct Reply {
    answer: String,
}

impl ElicitForm for Reply {
    fn requested_schema() -> JsonObject {
        JsonObject::new()
    }
    fn from_content(content: JsonObject) -> Result<Self, String> {
        let answer = content.get("answer").and_then(Value::as_str).ok_or("`answer` must be a string")?;
        Ok(Reply { answer: answer.to_owned() })
    }
}

struct Number {
    value: i64,
}

impl ElicitForm for Number {
    fn requested_schema() -> JsonObject {
        JsonObject::new()
    }
    fn from_content(content: JsonObject) -> Result<Self, String> {
        let value = content.get("value").and_then(Value::as_i64).ok_or("`value` must be an integer")?;
        Ok(Number { value })
    }
}

// ---- helpers -------------------------------------------------------------------------------------------

fn ctx() -> Context {
    ctx_with_id(1)
}

fn ctx_with_id(id: i64) -> Context {
    Context::new(Scope {
        request_id: RequestId::Number(id),
        protocol_version: ProtocolVersion::V2025_06_18,
        client_info: None,
        client_capabilities: ClientCapabilities::default(),
    })
}

fn raw(v: &Value) -> Box<RawValue> {
    RawValue::from_string(v.to_string()).expect("valid JSON")
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

fn sampled(text: &str) -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "m"})
}

fn roots(uris: &[&str]) -> Value {
    json!({"roots": uris.iter().map(|u| json!({"uri": u})).collect::<Vec<_>>()})
}

/// The next round: the suspension's step and locals, and these answers.
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

fn is_error(result: &CallToolResult) -> bool {
    serde_json::to_value(result).expect("serializes")["isError"] == json!(true)
}

fn keys(s: &Suspension) -> Vec<&str> {
    s.requests.keys().map(String::as_str).collect()
}

fn locals(s: &Suspension) -> Value {
    serde_json::from_str(s.locals.get()).expect("locals are JSON")
}

// ---- straight line: code before an ask runs once -------------------------------------------------------

// ---- parameters across rounds: a `mut` argument travels, the context is each round's own ---------------

/// Note the request each round runs in, and the rounds before.
#[tool]
async fn each_round(#[allow(unused_mut)] mut ctx: Context, mut seen: Vec<String>) -> Result<String> {
    seen.push(format!("{:?}", ctx.request_id()));
    Confirm::elicit("again?").ask().await?;
    seen.push(format!("{:?}", ctx.request_id()));
    Ok(seen.join(" "))
}

#[tokio::test]
async fn a_mut_context_is_not_carried_but_supplied_again() {
    let args = json!({ "seen": ["start"] });
    let first = ToolCall::new(Some(raw(&args)), ctx_with_id(1));
    let first = suspended(each_round.call(first).await);
    // Both `mut` parameters are read after the ask: the argument travels, the context as nothing.
    assert_eq!(locals(&first), json!([null, ["start", "Number(1)"]]));
    let answer = [("ask1", accept(json!({ "confirm": true })))];
    let second = ToolCall::new(Some(raw(&args)), ctx_with_id(2)).resuming(resume(&first, &answer));
    let done = completed(each_round.call(second).await);
    assert_eq!(text(&done), "start Number(1) Number(2)");
}

/// What the first segments of `deploy` and `survey` ran for, by their arguments: the tests run at once and
/// share the tools, so each counts only the runs of its own arguments.
static STARTED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

fn started(run: String) {
    STARTED.lock().unwrap().push(run);
}

fn times_started(run: &str) -> usize {
    STARTED.lock().unwrap().iter().filter(|r| *r == run).count()
}

#[derive(Serialize, Deserialize)]
struct Plan {
    service: String,
    replicas: u32,
}

/// Deploy, asking first.
#[tool(destructive)]
async fn deploy(service: String, replicas: u32) -> Result<String> {
    let plan = Plan { service: service.clone(), replicas };
    started(format!("deploy {service} x{replicas}"));
    let confirmed = Confirm::elicit(format!("Deploy {service} x{replicas}?")).ask().await?.accepted();
    let Some(Confirm { confirm: true }) = confirmed else {
        return Ok(format!("cancelled {}", plan.service));
    };
    let notes = Sample::prompt(format!("Notes for {}", plan.service)).max_tokens(50).ask().await?;
    Ok(format!("deployed {} x{}: {}", plan.service, plan.replicas, notes.text()))
}

#[tokio::test]
async fn straight_line_runs_each_segment_once_and_carries_its_locals() {
    // No other test deploys `api` x3.
    let args = json!({"service": "api", "replicas": 3});

    let first = suspended(round(&deploy, &args, None).await);
    assert_eq!(first.step, 1);
    assert_eq!(keys(&first), ["ask1"]);
    let InputRequest::Elicit(params) = &first.requests["ask1"] else { panic!("an elicitation") };
    assert_eq!(params.message, "Deploy api x3?");
    assert_eq!(params.requested_schema.as_ref().map(|s| s["required"].clone()), Some(json!(["confirm"])));
    // Only `plan` lives across the first ask (the parameters come again with every round).
    assert_eq!(locals(&first), json!([{"service": "api", "replicas": 3}]));

    let second =
        suspended(round(&deploy, &args, Some(resume(&first, &[("ask1", accept(json!({"confirm": true})))]))).await);
    assert_eq!(second.step, 2);
    assert_eq!(keys(&second), ["ask2"]);
    let InputRequest::CreateMessage(params) = &second.requests["ask2"] else { panic!("a sampling request") };
    assert_eq!(params.max_tokens, 50);
    assert_eq!(locals(&second), json!([{"service": "api", "replicas": 3}]));

    let done = completed(round(&deploy, &args, Some(resume(&second, &[("ask2", sampled("v2 is out"))]))).await);
    assert_eq!(text(&done), "deployed api x3: v2 is out");
    assert_eq!(times_started("deploy api x3"), 1, "the code before the first ask ran once");
}

#[tokio::test]
async fn early_return_in_a_resumed_round() {
    let args = json!({"service": "db", "replicas": 1});
    let first = suspended(round(&deploy, &args, None).await);
    let declined = json!({"action": "decline"});
    let done = completed(round(&deploy, &args, Some(resume(&first, &[("ask1", declined)]))).await);
    assert_eq!(text(&done), "cancelled db");
    let done =
        completed(round(&deploy, &args, Some(resume(&first, &[("ask1", accept(json!({"confirm": false})))]))).await);
    assert_eq!(text(&done), "cancelled db");
}

#[tokio::test]
async fn a_malformed_answer_ends_the_round_with_invalid_params() {
    let args = json!({"service": "api", "replicas": 2});
    let first = suspended(round(&deploy, &args, None).await);
    // Content that the form rejects, an answer that isn't an elicitation result at all.
    for bad in [accept(json!({"confirm": "yes"})), json!({"action": "maybe"}), json!(7)] {
        match round(&deploy, &args, Some(resume(&first, &[("ask1", bad.clone())]))).await {
            Err(e) => assert_eq!(e.code(), Some(-32602), "{bad}: {e}"),
            Ok(other) => panic!("{bad}: expected -32602, got {other:?}"),
        }
    }
    let second =
        suspended(round(&deploy, &args, Some(resume(&first, &[("ask1", accept(json!({"confirm": true})))]))).await);
    let no_model = json!({"role": "assistant", "content": {"type": "text", "text": "x"}});
    let e = round(&deploy, &args, Some(resume(&second, &[("ask2", no_model)]))).await.expect_err("no model");
    assert_eq!(e.code(), Some(-32602));
}

#[tokio::test]
async fn state_that_does_not_fit_is_refused() {
    let args = json!({"service": "api", "replicas": 2});
    let first = suspended(round(&deploy, &args, None).await);
    let answer = [("ask1", accept(json!({"confirm": true})))];
    let mut wrong = resume(&first, &answer);
    wrong.locals = raw(&json!([{"service": 1}]));
    let e = round(&deploy, &args, Some(wrong)).await.expect_err("undecodable locals");
    assert_eq!(e.code(), Some(-32602));
    let mut missing = resume(&first, &answer);
    missing.locals = raw(&json!([]));
    assert_eq!(round(&deploy, &args, Some(missing)).await.expect_err("no locals").code(), Some(-32602));
    let mut unknown = resume(&first, &answer);
    unknown.step = 9;
    assert_eq!(round(&deploy, &args, Some(unknown)).await.expect_err("unknown step").code(), Some(-32602));
}

// ---- loops ---------------------------------------------------------------------------------------------

/// One question per round.
#[tool]
async fn survey(questions: Vec<String>) -> Result<String> {
    started(format!("survey {questions:?}"));
    let mut answers = Vec::new();
    for question in questions {
        let reply = Reply::elicit(question.clone()).ask().await?;
        let answer = reply.accepted().map(|r| r.answer).unwrap_or_default();
        answers.push(format!("{question}={answer}"));
    }
    Ok(answers.join("; "))
}

#[tokio::test]
async fn a_for_loop_collects_every_answer_in_order() {
    // No other test surveys these.
    let args = json!({"questions": ["name", "colour", "pet"]});
    let mut step = round(&survey, &args, None).await;
    let mut asked = Vec::new();
    let mut rounds = 1;
    let done = loop {
        match step {
            Ok(Step::Suspend(s)) => {
                let InputRequest::Elicit(params) = &s.requests["ask1"] else { panic!("an elicitation") };
                asked.push(params.message.clone());
                // The answers so far, the questions still to ask, and the current question travel.
                let carried = locals(&s);
                assert_eq!(carried[0].as_array().map(Vec::len), Some(rounds - 1), "{carried}");
                assert_eq!(carried[1].as_array().map(Vec::len), Some(3 - rounds), "{carried}");
                let answer = accept(json!({"answer": format!("a{rounds}")}));
                rounds += 1;
                step = round(&survey, &args, Some(resume(&s, &[("ask1", answer)]))).await;
            }
            other => break completed(other),
        }
    };
    assert_eq!(asked, ["name", "colour", "pet"]);
    assert_eq!(text(&done), "name=a1; colour=a2; pet=a3");
    assert_eq!(rounds, 4);
    assert_eq!(times_started(r#"survey ["name", "colour", "pet"]"#), 1);
}

/// `continue` and `break` (labelled or not) in the rest of an interrupted iteration.
#[tool]
async fn grid(rows: u32) -> Result<String> {
    let mut log = Vec::new();
    let mut row = 0;
    'rows: while row < rows {
        row += 1;
        let mut col = 0;
        loop {
            col += 1;
            let n = Number::elicit(format!("{row}.{col}")).ask().await?;
            match n.accepted().map(|n| n.value) {
                Some(0) => continue 'rows,
                Some(-1) => break 'rows,
                Some(1) => continue,
                Some(v) => log.push(format!("{row}.{col}={v}")),
                None => break,
            }
            if col >= 3 {
                break;
            }
        }
    }
    Ok(log.join(" "))
}

/// Drives a tool, answering each round's single ask with the next of `answers` (by its key).
async fn drive_with(tool: &impl ToolHandler, args: &Value, answers: &[Value]) -> (Vec<String>, CallToolResult) {
    let mut asked = Vec::new();
    let mut answers = answers.iter();
    let mut step = round(tool, args, None).await;
    loop {
        match step {
            Ok(Step::Suspend(s)) => {
                let Some((key, request)) = s.requests.iter().next() else {
                    // A checkpoint: nothing to answer.
                    asked.push("checkpoint".to_owned());
                    step = round(tool, args, Some(resume(&s, &[]))).await;
                    continue;
                };
                match request {
                    InputRequest::Elicit(p) => asked.push(p.message.clone()),
                    InputRequest::CreateMessage(_) => asked.push("sample".to_owned()),
                    InputRequest::ListRoots => asked.push("roots".to_owned()),
                }
                let answer = answers.next().expect("an answer for every round").clone();
                step = round(tool, args, Some(resume(&s, &[(key.as_str(), answer)]))).await;
            }
            other => return (asked, completed(other)),
        }
    }
}

#[tokio::test]
async fn continue_and_break_keep_their_meaning_after_an_ask() {
    let n = |v: i64| accept(json!({"value": v}));
    let args = json!({"rows": 3});
    // row 1: 7, skip (continue), 8 → three cols; row 2: 0 → next row; row 3: decline → break the inner loop.
    let (asked, done) = drive_with(&grid, &args, &[n(7), n(1), n(8), n(0), json!({"action": "cancel"})]).await;
    assert_eq!(asked, ["1.1", "1.2", "1.3", "2.1", "3.1"]);
    assert_eq!(text(&done), "1.1=7 1.3=8");
    // -1 breaks out of both loops at once.
    let (asked, done) = drive_with(&grid, &args, &[n(5), n(-1)]).await;
    assert_eq!(asked, ["1.1", "1.2"]);
    assert_eq!(text(&done), "1.1=5");
}

/// `loop` with `break value`, `while let`, and a `mut` parameter carried because it changes.
#[tool]
async fn countdown(mut remaining: Vec<i64>, limit: i64) -> Result<String> {
    let mut total = 0;
    let stopped = loop {
        let Some(next) = remaining.pop() else { break "empty".to_owned() };
        let go = Confirm::elicit(format!("add {next}?")).ask().await?.accepted().is_some_and(|c| c.confirm);
        if go {
            total += next;
        }
        if total > limit {
            break "limit".to_owned();
        }
    };
    let mut extra = Vec::new();
    while let Some(Number { value }) = Number::elicit("extra?").ask().await?.accepted() {
        extra.push(value);
    }
    Ok(format!("{stopped} total={total} left={remaining:?} extra={extra:?}"))
}

#[tokio::test]
async fn loop_with_a_value_and_carried_mut_parameter() {
    let yes = accept(json!({"confirm": true}));
    let no = accept(json!({"confirm": false}));
    let args = json!({"remaining": [1, 2, 30, 4], "limit": 5});
    let answers =
        [yes.clone(), no, yes, accept(json!({"value": 9})), accept(json!({"value": 8})), json!({"action": "decline"})];
    let (asked, done) = drive_with(&countdown, &args, &answers).await;
    assert_eq!(asked, ["add 4?", "add 30?", "add 2?", "extra?", "extra?", "extra?"]);
    assert_eq!(text(&done), "limit total=6 left=[1] extra=[9, 8]");
    let (_, done) =
        drive_with(&countdown, &json!({"remaining": [], "limit": 1}), &[json!({"action": "decline"})]).await;
    assert_eq!(text(&done), "empty total=0 left=[] extra=[]");
}

/// An ask as a `for` loop's iterator, an assignment from a `match` on an answer (and an answer assigned
/// over a local, which is then not carried), a labelled block that asks, `+=` an answer, `return` an answer.
#[tool]
async fn shapes(skip: bool, mut total: i64) -> Result<String> {
    let mut log = Vec::new();
    for root in ListRoots.ask().await? {
        let n = Number::elicit(root.uri.clone()).ask().await?;
        log.push(format!("{}={}", root.uri, n.accepted().map(|n| n.value).unwrap_or_default()));
    }
    let mut x = 0;
    x = match Number::elicit("x").ask().await?.accepted().map(|n| n.value) {
        Some(1) => Number::elicit("again").ask().await?.accepted().map(|n| n.value).unwrap_or(9),
        Some(v) => v,
        None => x,
    };
    let y = 'found: {
        if skip {
            break 'found 1;
        }
        checkpoint().ask().await?;
        2
    };
    total += Number::elicit("add").ask().await?.accepted().map(|n| n.value).unwrap_or_default();
    if total > 100 {
        return Ok(Sample::prompt("too big").ask().await?.text());
    }
    Ok(format!("{} x={x} y={y} total={total}", log.join(",")))
}

#[tokio::test]
async fn iterators_assignments_and_labelled_blocks_that_ask() {
    let n = |v: i64| accept(json!({"value": v}));
    let answers = [roots(&["a", "b"]), n(1), n(2), n(1), n(5), n(10)];
    let (asked, done) = drive_with(&shapes, &json!({"skip": false, "total": 1}), &answers).await;
    assert_eq!(asked, ["roots", "a", "b", "x", "again", "checkpoint", "add"]);
    assert_eq!(text(&done), "a=1,b=2 x=5 y=2 total=11");
    let answers = [roots(&[]), n(7), n(200), sampled("way too big")];
    let (asked, done) = drive_with(&shapes, &json!({"skip": true, "total": 0}), &answers).await;
    assert_eq!(asked, ["roots", "x", "add", "sample"]);
    assert_eq!(text(&done), "way too big");
    // Asking "again", `x` is about to be overwritten: it isn't carried.
    let first = suspended(round(&shapes, &json!({"skip": true, "total": 0}), None).await);
    let second = suspended(
        round(&shapes, &json!({"skip": true, "total": 0}), Some(resume(&first, &[("ask1", roots(&[]))]))).await,
    );
    let third =
        suspended(round(&shapes, &json!({"skip": true, "total": 0}), Some(resume(&second, &[("ask3", n(1))]))).await);
    assert_eq!(third.step, 4);
    assert_eq!(locals(&third), json!([0, []]), "`total` and `log` travel, `x` doesn't");
}

// ---- branches, `?`, tuples, checkpoints ----------------------------------------------------------------

/// Asks in if/else branches and match arms.
#[tool]
async fn branches(kind: String) -> Result<String> {
    let label = "kind";
    let detail = if kind == "roots" {
        let found = ListRoots.ask().await?;
        found.into_iter().map(|r| r.uri).collect::<Vec<_>>().join(",")
    } else {
        match kind.parse::<i64>() {
            Ok(n) if n > 0 => {
                let more = Number::elicit(format!("more than {n}?")).ask().await?;
                format!("{}", n + more.accepted().map(|m| m.value).unwrap_or_default())
            }
            Ok(_) => "not positive".to_owned(),
            Err(e) => Sample::prompt(format!("explain {e}")).ask().await?.text(),
        }
    };
    Ok(format!("{label} {kind}: {detail}"))
}

#[tokio::test]
async fn asks_in_branches_resume_into_their_own_branch() {
    let (_, done) = drive_with(&branches, &json!({"kind": "roots"}), &[roots(&["file:///a", "file:///b"])]).await;
    assert_eq!(text(&done), "kind roots: file:///a,file:///b");
    let (asked, done) = drive_with(&branches, &json!({"kind": "5"}), &[accept(json!({"value": 2}))]).await;
    assert_eq!(asked, ["more than 5?"]);
    assert_eq!(text(&done), "kind 5: 7");
    let (_, done) = drive_with(&branches, &json!({"kind": "-1"}), &[]).await;
    assert_eq!(text(&done), "kind -1: not positive");
    let first = suspended(round(&branches, &json!({"kind": "x"}), None).await);
    assert_eq!((first.step, keys(&first)), (3, vec!["ask3"]));
    let (_, done) = drive_with(&branches, &json!({"kind": "x"}), &[sampled("not a number")]).await;
    assert_eq!(text(&done), "kind x: not a number");
}

#[derive(Debug)]
struct Failure(String);

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure(format!("ask failed: {e}"))
    }
}

impl From<std::num::ParseIntError> for Failure {
    fn from(e: std::num::ParseIntError) -> Self {
        Failure(format!("not a number: {e}"))
    }
}

/// `?` before the ask, on the answer and on the rest of the statement, into the fn's own error type.
#[tool]
async fn multiply(text: String) -> Result<String, Failure> {
    let base: i64 = text.parse()?;
    let factor: i64 = Sample::prompt("A factor?").ask().await?.text().trim().parse()?;
    Ok((base * factor).to_string())
}

#[tokio::test]
async fn question_mark_keeps_its_meaning_in_every_round() {
    let (_, done) = drive_with(&multiply, &json!({"text": "6"}), &[sampled(" 7 ")]).await;
    assert_eq!(text(&done), "42");
    let (_, done) = drive_with(&multiply, &json!({"text": "6"}), &[sampled("seven")]).await;
    assert!(is_error(&done));
    assert!(text(&done).starts_with("not a number"), "{}", text(&done));
    let done = completed(round(&multiply, &json!({"text": "six"}), None).await);
    assert!(is_error(&done) && text(&done).starts_with("not a number"), "{}", text(&done));
}

static SLICES: AtomicUsize = AtomicUsize::new(0);

/// Two asks answered in one round, then state-only rounds.
#[tool]
async fn pair_then_work(chunks: u32) -> Result<String> {
    let (name, model) = (Reply::elicit("name?"), Sample::prompt("model?")).ask().await?;
    let name = name.accepted().map(|r| r.answer).unwrap_or_default();
    let model = model.model().to_owned();
    let mut done = 0;
    while done < chunks {
        SLICES.fetch_add(1, Ordering::SeqCst);
        done += 1;
        if done < chunks {
            checkpoint().ask().await?;
        }
    }
    Ok(format!("{name} via {model}: {done} chunks"))
}

#[tokio::test]
async fn tuples_of_asks_and_checkpoints() {
    SLICES.store(0, Ordering::SeqCst);
    let args = json!({"chunks": 3});
    let first = suspended(round(&pair_then_work, &args, None).await);
    assert_eq!(keys(&first), ["ask1.0", "ask1.1"]);
    let answers = [("ask1.0", accept(json!({"answer": "ada"}))), ("ask1.1", sampled("hi"))];
    let mut step = round(&pair_then_work, &args, Some(resume(&first, &answers))).await;
    let mut checkpoints = 0;
    let done = loop {
        match step {
            Ok(Step::Suspend(s)) => {
                assert!(s.requests.is_empty(), "a checkpoint asks nothing");
                assert_eq!(s.step, 2);
                checkpoints += 1;
                step = round(&pair_then_work, &args, Some(resume(&s, &[]))).await;
            }
            other => break completed(other),
        }
    };
    assert_eq!(checkpoints, 2);
    assert_eq!(text(&done), "ada via m: 3 chunks");
    assert_eq!(SLICES.load(Ordering::SeqCst), 3, "each slice ran once");
}

// ---- prompts and resources -----------------------------------------------------------------------------

/// A prompt that asks.
#[prompt]
async fn review(code: String) -> Result<String> {
    let style = Reply::elicit("Which style?").ask().await?.accepted().map(|r| r.answer).unwrap_or_default();
    Ok(format!("Review in {style} style:\n{code}"))
}

/// A resource that asks.
#[resource("notes://{id}")]
async fn note(id: u32) -> Result<String> {
    let found = ListRoots.ask().await?;
    Ok(format!("note {id} with {} roots", found.len()))
}

#[tokio::test]
async fn prompts_and_resources_suspend_and_resume_too() {
    let args: BTreeMap<String, String> = [("code".to_owned(), "fn main() {}".to_owned())].into();
    let first = suspended(review.get(PromptGet::new("review", args.clone(), ctx())).await);
    assert_eq!(keys(&first), ["ask1"]);
    let next =
        PromptGet::new("review", args, ctx()).resuming(resume(&first, &[("ask1", accept(json!({"answer": "terse"})))]));
    let done = completed(review.get(next).await);
    let v = serde_json::to_value(&done).expect("serializes");
    assert_eq!(v["messages"][0]["content"]["text"], "Review in terse style:\nfn main() {}");

    let vars: BTreeMap<String, String> = [("id".to_owned(), "7".to_owned())].into();
    let first = suspended(note.read(ResourceRead::new("notes://7", vars.clone(), ctx())).await);
    assert!(matches!(first.requests["ask1"], InputRequest::ListRoots));
    let next = ResourceRead::new("notes://7", vars, ctx()).resuming(resume(&first, &[("ask1", roots(&["file:///x"]))]));
    let done = completed(note.read(next).await);
    let v = serde_json::to_value(&done).expect("serializes");
    assert_eq!(v["contents"][0]["text"], "note 7 with 1 roots");
}

// ---- Send, fingerprints --------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rounds_run_on_other_threads() {
    let args = json!({"questions": ["a", "b"]});
    let first = tokio::spawn(async move { suspended(round(&survey, &args, None).await) }).await.expect("joins");
    let args = json!({"questions": ["a", "b"]});
    let answer = accept(json!({"answer": "x"}));
    let second =
        tokio::spawn(async move { suspended(round(&survey, &args, Some(resume(&first, &[("ask1", answer)]))).await) })
            .await
            .expect("joins");
    assert_eq!(second.step, 1);
}

#[test]
fn handlers_that_ask_have_a_fingerprint() {
    let prints =
        [deploy.fingerprint(), survey.fingerprint(), grid.fingerprint(), review.fingerprint(), note.fingerprint()];
    assert!(prints.iter().all(|&p| p != 0));
    let mut unique = prints.to_vec();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), prints.len());
    assert_eq!(deploy.fingerprint(), deploy.fingerprint());
}

/// No `.ask()`: no machine, no fingerprint.
#[tool]
async fn plain(x: u32) -> String {
    x.to_string()
}

#[tokio::test]
async fn handlers_without_asks_are_unchanged() {
    assert_eq!(plain.fingerprint(), 0);
    assert_eq!(plain::invoke(4).await, "4");
    assert_eq!(text(&completed(round(&plain, &json!({"x": 5}), None).await)), "5");
}

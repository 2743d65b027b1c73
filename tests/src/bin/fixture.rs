//! A server for tests that need misbehaving, slow or context-using handlers, run as a real process.

use fastmcp::prelude::*;
use fastmcp::protocol::LoggingLevel;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, Ordering};
use std::time::Duration;

/// Sleep, then say how long.
#[tool]
async fn sleep(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms}ms")
}

/// Panic.
#[tool]
async fn boom() -> String {
    panic!("boom went the tool")
}

/// Fail with this message.
#[tool]
async fn fail(message: String) -> Result<String, String> {
    Err(message)
}

static FINISHED: AtomicBool = AtomicBool::new(false);

/// Sleep, then record that a slow call ran to its end.
#[tool]
async fn slow_marker(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    FINISHED.store(true, Ordering::SeqCst);
    "finished".into()
}

/// Sleep, stopped by its own 200 ms limit.
#[tool(timeout = "200ms")]
async fn limited(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    FINISHED.store(true, Ordering::SeqCst);
    "finished".into()
}

/// Whether a `slow_marker` call ever ran to its end.
#[tool]
async fn marker() -> String {
    FINISHED.load(Ordering::SeqCst).to_string()
}

/// Where the `outlast_cancel` call is.
static OUTLAST: AtomicU8 = AtomicU8::new(NOT_STARTED);
const NOT_STARTED: u8 = 0;
const HOLDING: u8 = 1;
const SAW_CANCEL: u8 = 2;
const NOT_CANCELLED: u8 = 3;

/// Run until the call is cancelled (10 s at most), then finish anyway: its result is made after its
/// cancellation, which the client must not get. It first waits a moment, so that it goes on in a task of
/// its own (not where stdio's reader or HTTP's service polled it first), reports progress "holding" (when the
/// call asked for progress), then holds its thread (`block_in_place`) while the cancellation is taken
/// elsewhere: it fires while the handler is being polled to its end.
#[tool]
async fn outlast_cancel(ctx: Context) -> String {
    tokio::time::sleep(Duration::from_millis(20)).await;
    ctx.progress(1.0, None, Some("holding".into())).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let saw = tokio::task::block_in_place(|| {
        OUTLAST.store(HOLDING, Ordering::SeqCst);
        while !ctx.is_cancelled() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        ctx.is_cancelled()
    });
    OUTLAST.store(if saw { SAW_CANCEL } else { NOT_CANCELLED }, Ordering::SeqCst);
    "finished after its cancellation".into()
}

/// Report progress "spinning", then compute for `ms` without awaiting anything (no `block_in_place`): what a
/// handler doing CPU-bound work in place looks like. Unless `at_once`, it first waits a moment, to go on in a
/// task of its own; `at_once`, it reports in its first poll, where the transport polls it.
#[tool]
async fn progress_then_spin(ms: u64, at_once: bool, ctx: Context) -> String {
    if !at_once {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    ctx.progress(1.0, None, Some("spinning".into())).await;
    let end = std::time::Instant::now() + Duration::from_millis(ms);
    while std::time::Instant::now() < end {
        std::hint::spin_loop();
    }
    "spun".into()
}

/// Whether the `outlast_cancel` call holds its thread now: the client's cue to cancel it.
#[tool]
async fn outlast_holding() -> String {
    (OUTLAST.load(Ordering::SeqCst) == HOLDING).to_string()
}

/// Once the `outlast_cancel` call has ended (10 s at most), and a moment more for its response to go out
/// if one were made: whether it saw its cancellation while it ran.
#[tool]
async fn saw_cancel() -> String {
    for _ in 0..2000 {
        if matches!(OUTLAST.load(Ordering::SeqCst), SAW_CANCEL | NOT_CANCELLED) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    (OUTLAST.load(Ordering::SeqCst) == SAW_CANCEL).to_string()
}

/// Log one message at each of the eight levels.
#[tool]
async fn log_all(ctx: Context) -> String {
    for level in LoggingLevel::ALL {
        ctx.log(level, format!("{level:?}")).await;
    }
    "logged".into()
}

/// Report progress 1..=steps of `steps`, trying to go backwards once on the way.
#[tool]
async fn progress(steps: u32, ctx: Context) -> String {
    for step in 1..=steps {
        ctx.progress(f64::from(step), Some(f64::from(steps)), Some(format!("step {step}"))).await;
        if step == 2 {
            ctx.progress(1.0, Some(f64::from(steps)), None).await; // dropped: progress must increase
        }
    }
    "done".into()
}

/// Remember a value in the session.
#[tool]
async fn remember(key: String, value: String, ctx: Context) -> Result<String> {
    ctx.set(key, value)?;
    Ok("remembered".into())
}

/// Recall a value from the session.
#[tool]
async fn recall(key: String, ctx: Context) -> Result<String> {
    Ok(ctx.get::<String>(&key)?.unwrap_or_else(|| "<none>".into()))
}

/// The id of the request being served, read ambiently.
#[tool]
async fn ambient() -> String {
    Context::current().map(|ctx| ctx.request_id().to_string()).unwrap_or_else(|| "<no context>".into())
}

/// Ask the client's model directly (the deprecated push call).
#[tool]
// The tests check that the deprecated push calls still work where they can.
#[allow(deprecated)]
async fn push_sample(ctx: Context) -> Result<String> {
    let reply = ctx.sample(Sample::prompt("Say hi").max_tokens(5)).await?;
    Ok(reply.text())
}

/// Ask the client for its roots directly (the deprecated push call).
#[tool]
// The tests check that the deprecated push calls still work where they can.
#[allow(deprecated)]
async fn push_roots(ctx: Context) -> Result<String> {
    let roots = ctx.list_roots().await?;
    Ok(roots.into_iter().map(|r| r.uri).collect::<Vec<_>>().join(","))
}

/// Log under logger names, and without one.
#[tool]
async fn log_named(ctx: Context) -> String {
    ctx.logger("db").info("connected").await;
    ctx.logger("cache").log(LoggingLevel::Warning, json!({"hit": false})).await;
    ctx.notice("no logger").await;
    "logged".into()
}

/// What the handler sees of the HTTP request: method, path, headers and which were withheld.
#[tool]
async fn http_info(ctx: Context) -> Json<Value> {
    Json(match ctx.http() {
        None => Value::Null,
        Some(http) => json!({
            "method": http.method(),
            "path": http.path(),
            "trace": http.header("X-Trace"),
            "authorization": http.header("authorization"),
            "cookie": http.header("cookie"),
            "headers": http.headers(),
            "redacted": http.redacted_headers(),
        }),
    })
}

/// Whether the context follows into spawned tasks: with `ctx.spawn`, and with a plain `tokio::spawn`.
#[tool]
async fn spawned(ctx: Context) -> Result<String> {
    let carried = ctx.spawn(async { Context::current().map(|c| c.request_id().to_string()) }).await?;
    let plain = tokio::spawn(async { Context::current().is_some() }).await?;
    Ok(format!("carried={} plain={plain}", carried.unwrap_or_default()))
}

/// A hand-written flow's own state: the roots it was given and how many rounds it has run.
#[derive(Serialize, Deserialize)]
struct Tally {
    roots: Vec<String>,
    rounds: u32,
}

/// A hand-written flow: asks for the roots, then runs `extra` state-only rounds, counting them in its state.
#[tool]
async fn handmade(extra: u32, ctx: Context) -> Result<Flow<String>> {
    let Some(mut tally) = ctx.state::<Tally>()? else {
        let state = ctx.mint_state(&Tally { roots: Vec::new(), rounds: 1 })?;
        return Ok(InputRequired::new().ask("roots", ListRoots).state(state).into());
    };
    if tally.rounds == 1 {
        tally.roots = ctx.answer::<ListRoots>("roots")?.into_iter().map(|r| r.uri).collect();
    }
    if tally.rounds <= extra {
        tally.rounds += 1;
        return Ok(InputRequired::new().state(ctx.mint_state(&tally)?).into());
    }
    Ok(Flow::Complete(format!("{} after {} rounds", tally.roots.join(","), tally.rounds + 1)))
}

/// A hand-written flow that reads back another type than it minted: its state is refused.
#[tool]
async fn handmade_mismatch(ctx: Context) -> Result<Flow<String>> {
    match ctx.state::<u32>()? {
        None => Ok(InputRequired::new().state(ctx.mint_state("not a number")?).into()),
        Some(n) => Ok(Flow::Complete(n.to_string())),
    }
}

/// A name, asked for with a form.
#[elicit]
struct Name {
    /// Your name.
    name: String,
}

/// Ask the user's name, then greet them.
#[tool]
async fn ask_name() -> Result<String> {
    let answer = Name::elicit("What is your name?").ask().await?;
    Ok(match answer.accepted() {
        Some(Name { name }) => format!("Hello, {name}!"),
        None => "No name given.".into(),
    })
}

/// Ask for a form, a completion and the roots in one round.
#[tool]
async fn multi() -> Result<String> {
    let (name, notes, roots) =
        (Name::elicit("Name?"), Sample::prompt("Capital of France?").max_tokens(10), ListRoots).ask().await?;
    let name = name.accepted().map(|n| n.name).unwrap_or_default();
    Ok(format!("{name}|{}|{}", notes.text(), roots.len()))
}

/// Send the user to a URL and report their consent.
#[tool]
async fn visit(url: String) -> Result<String> {
    let consent = ElicitUrl::new("Please sign in", url).ask().await?;
    Ok(format!("{consent:?}"))
}

/// A yes/no question.
#[elicit]
struct Confirm {
    /// Yes or no.
    confirm: bool,
}

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

/// Wipe a disk, after a sub-flow double-checks.
#[tool]
async fn wipe(disk: String) -> Result<String> {
    let label = format!("wipe {disk}");
    let ok = double_check(label.clone()).ask().await??;
    Ok(if ok { format!("{label}: done") } else { format!("{label}: kept") })
}

static CLOSED: AtomicU32 = AtomicU32::new(0);

/// Say "session closed" on stderr, and count, when this session ends.
#[tool]
async fn watch_close(ctx: Context) -> String {
    ctx.on_close(|| {
        CLOSED.fetch_add(1, Ordering::SeqCst);
        eprintln!("fixture: session closed");
    });
    "watching".into()
}

/// How many `watch_close` callbacks have run.
#[tool]
async fn closed_count() -> String {
    CLOSED.load(Ordering::SeqCst).to_string()
}

/// The protocol version the request is served at.
#[tool]
async fn protocol_version(ctx: Context) -> String {
    ctx.protocol_version().to_string()
}

/// A note: a resource whose updates clients can subscribe to.
#[resource("fixture://notes/{name}", mime_type = "text/plain")]
async fn note(name: String) -> String {
    format!("note {name}")
}

/// Announces that the resource at `uri` changed.
#[tool]
async fn touch(ctx: Context, uri: String) -> String {
    ctx.notify_resource_updated(uri.clone());
    format!("touched {uri}")
}

/// A resource whose reader panics.
#[resource("fixture://panics")]
async fn panics() -> String {
    panic!("boom went the resource")
}

/// An archive, offline before 2000: its reader fails with a plain `String`.
#[resource("fixture://archive/{year}")]
async fn archive(year: u32) -> Result<String, String> {
    if year < 2000 { Err(format!("the {year} archive is offline")) } else { Ok(format!("archive {year}")) }
}

/// A ledger that exists for no id: fastmcp's own error, with its code.
#[resource("fixture://ledger/{id}")]
async fn ledger(id: u32) -> fastmcp::Result<String> {
    Err(fastmcp::Error::invalid_params(format!("no ledger {id}")))
}

/// Where the one `await_cancel` task is: not started, watching its cancellation token, or seen it fire.
static TASK_CANCEL: AtomicU8 = AtomicU8::new(IDLE);
const IDLE: u8 = 0;
const WATCHING: u8 = 1;
const FIRED: u8 = 2;

/// A task that waits a minute; when its cancellation token fires, work it handed elsewhere records that.
#[tool(task = "optional")]
async fn await_cancel(ctx: Context) -> String {
    let token = ctx.cancellation().clone();
    tokio::spawn(async move {
        token.cancelled().await;
        TASK_CANCEL.store(FIRED, Ordering::SeqCst);
    });
    let _ = TASK_CANCEL.compare_exchange(IDLE, WATCHING, Ordering::SeqCst, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_secs(60)).await;
    "not cancelled".into()
}

/// Where the `await_cancel` task is: `idle`, `watching` or `fired`.
#[tool]
async fn task_cancel_seen() -> String {
    match TASK_CANCEL.load(Ordering::SeqCst) {
        IDLE => "idle",
        WATCHING => "watching",
        _ => "fired",
    }
    .into()
}

/// A task whose every round is stopped after 200 ms.
#[tool(task = "optional", timeout = "200ms")]
async fn limited_task(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms}ms")
}

/// Prepares in the call's own round, then runs the rest as a task (or on at once, without tasks).
#[tool(task = "optional")]
async fn staged(ms: u64) -> Result<String> {
    let prepared = format!("prepared for {ms}ms");
    run_as_task().ask().await?;
    tokio::time::sleep(Duration::from_millis(ms)).await;
    Ok(format!("staged: {prepared}"))
}

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let mut server = FastMcp::new("fixture")
        .tool(sleep)
        .tool(boom)
        .tool(fail)
        .tool(slow_marker)
        .tool(marker)
        .tool(outlast_cancel)
        .tool(progress_then_spin)
        .tool(outlast_holding)
        .tool(saw_cancel)
        .tool(limited)
        .tool(log_all)
        .tool(progress)
        .tool(remember)
        .tool(recall)
        .tool(ambient)
        .tool(watch_close)
        .tool(closed_count)
        .tool(log_named)
        .tool(http_info)
        .tool(spawned)
        .tool(handmade)
        .tool(handmade_mismatch)
        .tool(push_sample)
        .tool(push_roots)
        .tool(ask_name)
        .tool(multi)
        .tool(visit)
        .tool(wipe)
        .tool(protocol_version)
        .tool(await_cancel)
        .tool(task_cancel_seen)
        .tool(staged)
        .tool(limited_task)
        .resource(panics)
        .resource(note)
        .resource(archive)
        .resource(ledger)
        .tool(touch)
        .max_message_bytes(env("FIXTURE_MAX_MESSAGE_BYTES").map_or(4 << 20, |v| v as usize))
        .page_size(env("FIXTURE_PAGE_SIZE").map_or(100, |v| v as usize))
        .shutdown_grace(Duration::from_secs(5));
    if let Some(n) = env("FIXTURE_MAX_SESSIONS") {
        server = server.max_sessions(n as usize);
    }
    if let Some(ms) = env("FIXTURE_SESSION_IDLE_MS") {
        server = server.session_idle_timeout(Duration::from_millis(ms));
    }
    if let Some(ms) = env("FIXTURE_ROUND_TIMEOUT_MS") {
        server = server.round_timeout(Duration::from_millis(ms));
    }
    if env("FIXTURE_LEGACY_SHIM") == Some(0) {
        server = server.legacy_shim(false);
    }
    if let Some(ms) = env("FIXTURE_TOOL_TIMEOUT_MS") {
        server = server.tool_timeout(Duration::from_millis(ms));
    }
    if let Some(ms) = env("FIXTURE_KEEP_ALIVE_MS") {
        server = server.keep_alive(Duration::from_millis(ms));
    }
    // `events,streams,retry_ms`: what legacy HTTP sessions keep of their streams, and the SSE `retry`.
    if let Ok(replay) = std::env::var("FIXTURE_SSE_REPLAY") {
        let n: Vec<u64> = replay.split(',').map(|n| n.trim().parse().expect("FIXTURE_SSE_REPLAY numbers")).collect();
        let [events, streams, retry] = n[..] else { panic!("FIXTURE_SSE_REPLAY is events,streams,retry_ms") };
        server = server.sse_replay(events as usize, streams as usize, Duration::from_millis(retry));
    }
    if let Some(ms) = env("FIXTURE_TASK_TTL_MS") {
        server = server.task_ttl(Duration::from_millis(ms));
    }
    if let Some(n) = env("FIXTURE_MAX_TASKS") {
        server = server.max_tasks(n as usize);
    }
    if let Some(ms) = env("FIXTURE_STATE_TTL_MS") {
        server = server.request_state(fastmcp::state::RequestStateConfig::default().ttl(Duration::from_millis(ms)));
    }
    server.run().await
}

//! The soak and fault harness: replicas of `soak_server` under mixed modern and legacy load for a bounded
//! time, with faults injected, and the RSS and open fds of every replica sampled each second.
//!
//! Load: modern calls and lists on every replica; the three-round `deploy` flow with each round on another
//! replica (they share the request-state keys, `FASTMCP_STATE_KEYS`); legacy sessions calling tools and
//! running the same flow through server-to-client requests; with Redis, legacy sessions whose calls go
//! round the replicas (a running total kept in the session); clients that drop mid-stream (a modern
//! `subscriptions/listen`, a legacy call whose question they never answer). Faults: a replica killed
//! (SIGKILL) and restarted every `SOAK_KILL_EVERY` seconds; with `SOAK_REDIS_SERVER` (a `redis-server`
//! binary), replicas share that Redis (`FASTMCP_REDIS_URL`) and it is restarted every
//! `SOAK_REDIS_RESTART_EVERY` seconds.
//!
//! Every answer is checked. An error is expected only around a fault (on a replica killed since the call
//! began, or within `GRACE` of a fault); any other error fails the run. After the load stops, every replica
//! must come back to its open fds of before the load, and RSS that outgrows its early level is reported and
//! fails the run. Writes `series.csv` (t, replica, pid, RSS, fds) and `summary.md` to `SOAK_OUT`.
//!
//! ```sh
//! cargo build -p fastmcp-tests --bins && target/debug/soak          # 10 minutes, 2 replicas
//! SOAK_SECS=30 SOAK_KILL_EVERY=10 target/debug/soak                  # a short run (CI)
//! ```

use base64::Engine as _;
use fastmcp::client::{Client, ClientBuilder, ClientError, EraChoice, Round};
use fastmcp::protocol::{
    CallToolResult, CreateMessageResult, ElicitResult, InputRequest, InputResponses, ListenNotifications,
};
use serde_json::value::to_raw_value;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::watch;
use tokio::time::Instant;

/// How long after a fault an error still counts as caused by it (a client finding out, a restart).
const GRACE: Duration = Duration::from_secs(5);
/// How long one call may take before it counts as an error.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// Open fds a replica may hold above its level before the load once the load is over (the log, timers).
const FD_SLACK: u64 = 8;

struct Config {
    secs: u64,
    replicas: usize,
    kill_every: u64,
    redis_restart_every: u64,
    redis_server: Option<PathBuf>,
    /// Which load runs (`SOAK_LOAD`, comma-separated): `modern`, `flow`, `legacy`, `roam` (with Redis only),
    /// `drop`; all by default.
    load: Vec<String>,
    out: PathBuf,
    server: PathBuf,
}

impl Config {
    fn from_env() -> Self {
        let num = |name: &str, default: u64| {
            std::env::var(name).ok().map_or(default, |v| v.parse().unwrap_or_else(|_| panic!("{name}: a number")))
        };
        let exe = std::env::current_exe().expect("own path");
        Self {
            secs: num("SOAK_SECS", 600),
            replicas: num("SOAK_REPLICAS", 2).max(1) as usize,
            kill_every: num("SOAK_KILL_EVERY", 60),
            redis_restart_every: num("SOAK_REDIS_RESTART_EVERY", 90),
            redis_server: std::env::var_os("SOAK_REDIS_SERVER").map(PathBuf::from),
            load: std::env::var("SOAK_LOAD")
                .unwrap_or_else(|_| "modern,flow,legacy,roam,drop".into())
                .split(',')
                .map(|k| k.trim().to_owned())
                .collect(),
            out: std::env::var_os("SOAK_OUT").map_or_else(|| PathBuf::from("target/soak"), PathBuf::from),
            server: exe.with_file_name("soak_server"),
        }
    }
}

/// A replica as workers see it: where it listens now, and how many times it was (re)started.
#[derive(Clone)]
struct Endpoint {
    url: String,
    generation: u64,
}

/// One replica slot: its process, and what workers watch.
struct Slot {
    tx: watch::Sender<Option<Endpoint>>,
    child: Mutex<Option<(Child, u32)>>,
    last_fault: Mutex<Option<Instant>>,
}

impl Slot {
    fn faulted_recently(&self) -> bool {
        self.last_fault.lock().unwrap().is_some_and(|at| at.elapsed() < GRACE)
    }

    fn mark_fault(&self) {
        *self.last_fault.lock().unwrap() = Some(Instant::now());
    }
}

/// What the run saw.
#[derive(Default)]
struct Stats {
    ok: Mutex<BTreeMap<&'static str, u64>>,
    expected_errors: AtomicU64,
    unexpected: Mutex<Vec<String>>,
    unexpected_count: AtomicU64,
}

impl Stats {
    fn ok(&self, kind: &'static str) {
        *self.ok.lock().unwrap().entry(kind).or_default() += 1;
    }

    fn unexpected(&self, what: String) {
        self.unexpected_count.fetch_add(1, Ordering::Relaxed);
        let mut seen = self.unexpected.lock().unwrap();
        if seen.len() < 20 {
            eprintln!("soak: UNEXPECTED {what}");
            seen.push(what);
        }
    }
}

struct Harness {
    config: Config,
    slots: Vec<Slot>,
    stats: Stats,
    keys: String,
    redis: Mutex<Option<Redis>>,
    stop: AtomicBool,
    started: Instant,
}

struct Redis {
    child: Child,
    port: u16,
}

impl Harness {
    fn env(&self) -> Vec<(String, String)> {
        let mut env = vec![("FASTMCP_STATE_KEYS".to_owned(), self.keys.clone())];
        if let Some(redis) = &*self.redis.lock().unwrap() {
            env.push(("FASTMCP_REDIS_URL".into(), format!("redis://127.0.0.1:{}/", redis.port)));
        }
        env
    }

    /// Starts (or restarts) replica `i` on a free port.
    async fn start(&self, i: usize) {
        let mut child = Command::new(&self.config.server)
            .envs(self.env())
            .env("FASTMCP_TRANSPORT", "http")
            .env("FASTMCP_PORT", "0")
            .env("RUST_LOG", "warn,fastmcp=info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", self.config.server.display()));
        let pid = child.id().expect("a pid");
        let log = self.config.out.join(format!("replica-{i}.log"));
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let url = tokio::time::timeout(Duration::from_secs(30), async {
            while let Some(line) = lines.next_line().await.expect("stderr readable") {
                append(&log, &line);
                if let Some(rest) = line.split("serving MCP on ").nth(1) {
                    return rest.split(' ').next().unwrap_or_default().to_owned();
                }
            }
            panic!("replica {i} exited before it listened");
        })
        .await
        .expect("the replica started in time");
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                append(&log, &line);
            }
        });
        *self.slots[i].child.lock().unwrap() = Some((child, pid));
        let generation = self.slots[i].tx.borrow().as_ref().map_or(0, |e| e.generation + 1);
        self.slots[i].tx.send_replace(Some(Endpoint { url, generation }));
    }

    fn kill(&self, i: usize) {
        let slot = &self.slots[i];
        slot.mark_fault();
        slot.tx.send_modify(|e| {
            if let Some(e) = e {
                e.url.clear();
            }
        });
        if let Some((mut child, _)) = slot.child.lock().unwrap().take() {
            let _ = child.start_kill();
        }
    }

    fn pids(&self) -> Vec<Option<u32>> {
        self.slots.iter().map(|s| s.child.lock().unwrap().as_ref().map(|(_, pid)| *pid)).collect()
    }

    fn running(&self) -> bool {
        !self.stop.load(Ordering::Relaxed)
    }

    /// Whether an error on replica `i`, in a call that began at `generation`, is one a fault explains.
    fn explained(&self, i: usize, generation: u64) -> bool {
        let slot = &self.slots[i];
        let now = slot.tx.borrow().as_ref().map(|e| (e.generation, e.url.is_empty()));
        let redis_fault = self.slots.iter().any(Slot::faulted_recently);
        redis_fault || now.is_none_or(|(g, down)| g != generation || down)
    }

    /// Tallies one call's outcome.
    fn record(&self, kind: &'static str, at: (usize, u64), outcome: Result<(), String>) {
        match outcome {
            Ok(()) => self.stats.ok(kind),
            Err(_) if self.explained(at.0, at.1) => {
                self.stats.expected_errors.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => self.stats.unexpected(format!("{kind} on replica {}: {e}", at.0)),
        }
    }
}

fn append(path: &Path, line: &str) {
    use std::io::Write as _;
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(f, "{line}");
    }
}

/// A client of replica `i` in `era`, reconnected whenever the replica restarts.
struct Conn {
    era: EraChoice,
    rx: watch::Receiver<Option<Endpoint>>,
    client: Option<(Client, u64)>,
}

impl Conn {
    fn new(h: &Harness, i: usize, era: EraChoice) -> Self {
        Self { era, rx: h.slots[i].tx.subscribe(), client: None }
    }

    /// The client, and the generation of the replica it talks to; `None` while the replica is down.
    async fn get(&mut self) -> Option<(&Client, u64)> {
        let endpoint = self.rx.borrow().clone()?;
        if endpoint.url.is_empty() {
            return None;
        }
        if self.client.as_ref().is_none_or(|(_, g)| *g != endpoint.generation) {
            if let Some((old, _)) = self.client.take() {
                old.close().await;
            }
            let builder = answering(ClientBuilder::new("soak", "0.0.0").era(self.era));
            let client = tokio::time::timeout(CALL_TIMEOUT, builder.http(&endpoint.url)).await.ok()?.ok()?;
            self.client = Some((client, endpoint.generation));
        }
        self.client.as_ref().map(|(c, g)| (c, *g))
    }

    /// Forgets the client after an error, so the next call reconnects (a legacy session may be gone).
    async fn reset(&mut self) {
        if let Some((old, _)) = self.client.take() {
            old.close().await;
        }
    }
}

/// A client that answers the flow's questions: confirm, and notes from "the model".
fn answering(builder: ClientBuilder) -> ClientBuilder {
    builder
        .on_elicit(|_| async { Ok(confirm()) })
        .on_sample(|_| async { Ok(CreateMessageResult::text("soak-model", "all good")) })
}

fn confirm() -> ElicitResult {
    ElicitResult::accept(json!({"confirm": true}).as_object().cloned().unwrap())
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).collect()
}

fn expect_text(result: Result<CallToolResult, ClientError>, want: &str) -> Result<(), String> {
    let result = result.map_err(|e| e.to_string())?;
    let got = text(&result);
    if result.is_error == Some(true) || got != want { Err(format!("answered {got:?}, not {want:?}")) } else { Ok(()) }
}

async fn timed<T>(call: impl Future<Output = Result<T, String>>) -> Result<T, String> {
    tokio::time::timeout(CALL_TIMEOUT, call).await.unwrap_or_else(|_| Err("timed out".into()))
}

/// One `echo` call, checked and tallied; whether it succeeded.
async fn echo(h: &Harness, kind: &'static str, client: &Client, at: (usize, u64), word: String) -> bool {
    let outcome = timed(async { expect_text(client.call_tool("echo", json!({"text": word})).await, &word) }).await;
    let ok = outcome.is_ok();
    h.record(kind, at, outcome);
    ok
}

/// Modern calls and lists on one replica.
async fn modern_worker(h: Arc<Harness>, i: usize, n: usize) {
    let mut conn = Conn::new(&h, i, EraChoice::Modern);
    let mut k = 0u64;
    while h.running() {
        k += 1;
        let Some((client, generation)) = conn.get().await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        if !echo(&h, "modern echo", client, (i, generation), format!("w{n}-{k}")).await {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        if k.is_multiple_of(10) {
            let outcome = timed(async {
                let tools = client.list_tools().await.map_err(|e| e.to_string())?;
                tools.iter().any(|t| t.name == "deploy").then_some(()).ok_or_else(|| "no deploy tool".to_owned())
            })
            .await;
            h.record("modern list", (i, generation), outcome);
        }
        if k.is_multiple_of(50) {
            let on = k.is_multiple_of(100);
            let outcome = timed(async {
                client.call_tool("toggle", json!({"on": on})).await.map(|_| ()).map_err(|e| e.to_string())
            })
            .await;
            h.record("modern toggle", (i, generation), outcome);
        }
    }
    conn.reset().await;
}

/// The three-round flow with each round on the next replica: the state travels, the replicas share keys.
async fn flow_worker(h: Arc<Harness>, n: usize) {
    let replicas = h.slots.len();
    let mut conns: Vec<Conn> = (0..replicas).map(|i| Conn::new(&h, i, EraChoice::Modern)).collect();
    let mut k = 0usize;
    while h.running() {
        k += 1;
        let service = format!("svc{n}-{k}");
        let want = format!("Deployed {service} x2: all good");
        let (mut state, mut responses): (Option<String>, Option<InputResponses>) = (None, None);
        let mut failed = None;
        for round in 0..3 {
            let i = (k + round) % replicas;
            let Some((client, generation)) = conns[i].get().await else {
                failed = Some((i, 0, "replica down".to_owned()));
                break;
            };
            let args = json!({"service": service, "replicas": 2});
            let answer = timed(async {
                client.call_tool_round("deploy", args, responses.take(), state.take()).await.map_err(|e| e.to_string())
            })
            .await;
            match answer {
                Ok(Round::InputRequired(input)) if round < 2 => {
                    state = input.request_state;
                    responses = Some(answers(input.input_requests.unwrap_or_default()));
                }
                Ok(Round::Complete(result)) if round == 2 => {
                    h.record("modern flow (3 rounds, round-robin)", (i, generation), expect_text(Ok(result), &want));
                }
                Ok(other) => {
                    let what = match other {
                        Round::Complete(r) => format!("completed early in round {round}: {:?}", text(&r)),
                        Round::InputRequired(_) => format!("asked again in round {round}"),
                    };
                    failed = Some((i, generation, what));
                    break;
                }
                Err(e) => {
                    failed = Some((i, generation, e));
                    break;
                }
            }
        }
        if let Some((i, generation, e)) = failed {
            h.record("modern flow (3 rounds, round-robin)", (i, generation), Err(e));
            // A replica down fails at once: don't spin.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    for mut conn in conns {
        conn.reset().await;
    }
}

/// Answers every question of a round the way the harness's users do.
fn answers(requests: BTreeMap<String, InputRequest>) -> InputResponses {
    requests
        .into_iter()
        .map(|(key, request)| {
            let answer = match request {
                InputRequest::Elicit(_) => to_raw_value(&confirm()),
                InputRequest::CreateMessage(_) => to_raw_value(&CreateMessageResult::text("soak-model", "all good")),
                InputRequest::ListRoots => to_raw_value(&json!({"roots": []})),
            };
            (key, answer.expect("answers serialize"))
        })
        .collect()
}

/// A legacy session on one replica: calls, and the flow through server-to-client requests; a new session
/// every so often.
async fn legacy_worker(h: Arc<Harness>, i: usize, n: usize) {
    let mut conn = Conn::new(&h, i, EraChoice::Legacy);
    let mut k = 0u64;
    while h.running() {
        k += 1;
        let Some((client, generation)) = conn.get().await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let broke = !echo(&h, "legacy echo", client, (i, generation), format!("l{n}-{k}")).await;
        if k.is_multiple_of(5) {
            let service = format!("leg{n}-{k}");
            let want = format!("Deployed {service} x1: all good");
            let args = json!({"service": service, "replicas": 1});
            let outcome = timed(async { expect_text(client.call_tool("deploy", args).await, &want) }).await;
            h.record("legacy flow (shim)", (i, generation), outcome);
        }
        if broke {
            conn.reset().await;
            tokio::time::sleep(Duration::from_millis(100)).await;
        } else if k.is_multiple_of(200) {
            conn.reset().await;
        }
    }
    conn.reset().await;
}

const ROAMING: &str = "legacy session roaming (tally, round-robin)";

/// One legacy session at a time whose calls go round the replicas (sessions shared through Redis): each
/// `tally` must answer exactly the sum added so far, whichever replicas served the calls before. An error
/// ends the session (whether its call ran is unknown) and a new one starts; a wrong total is never
/// expected, fault or not.
async fn roaming_worker(h: Arc<Harness>, n: usize) {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "soak-roamer", "version": "0"}}});
    let mut k = n;
    while h.running() {
        let Some((session, _, _)) = roam(&h, &mut k, None, &init).await else { continue };
        let mut total = 0i64;
        for add in 1..=50 {
            if !h.running() {
                break;
            }
            let call = json!({"jsonrpc": "2.0", "id": add, "method": "tools/call",
                "params": {"name": "tally", "arguments": {"add": add}}});
            let Some((_, got, at)) = roam(&h, &mut k, Some(&session), &call).await else { break };
            let want = total + add;
            if fastmcp_tests::first_text(&got["result"]).parse::<i64>() != Ok(want) {
                h.stats.unexpected(format!("{ROAMING} on replica {}: answered {got}, not {want}", at.0));
                break;
            }
            total = want;
            h.stats.ok(ROAMING);
        }
    }
}

/// Sends one legacy message (in `session`, unless it is the `initialize` that opens one) to the next replica
/// that is up, `k` counting round them: the session's id, the answer, and where it was served; or `None`
/// after tallying why there is none.
async fn roam(
    h: &Harness,
    k: &mut usize,
    session: Option<&str>,
    body: &Value,
) -> Option<(String, Value, (usize, u64))> {
    let (i, endpoint) = loop {
        *k += 1;
        let i = *k % h.slots.len();
        if let Some(endpoint) = h.slots[i].tx.borrow().clone().filter(|e| !e.url.is_empty()) {
            break (i, endpoint);
        }
        if !h.running() {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let addr = endpoint.url.trim_start_matches("http://").trim_end_matches("/mcp").parse().expect("an address");
    let mut headers = vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
    if let Some(session) = session {
        headers.extend([("Mcp-Session-Id", session), ("MCP-Protocol-Version", "2025-06-18")]);
    }
    let at = (i, endpoint.generation);
    let sent = timed(fastmcp_tests::try_send_http(addr, "POST", "/mcp", &headers, &body.to_string())).await;
    let answer = sent.and_then(|reply| {
        let session = session.map(str::to_owned).or_else(|| reply.header("mcp-session-id").map(str::to_owned));
        match (reply.status, session) {
            (200, Some(session)) => match reply.try_response() {
                Some(answer) if answer.get("error").is_none() => Ok((session, answer, at)),
                Some(error) => Err(error.to_string()),
                None => Err(format!("HTTP 200 without a response in its body: {:?}", reply.body)),
            },
            (status, _) => Err(format!("HTTP {status}: {}", reply.body)),
        }
    });
    if let Err(e) = &answer {
        h.record(ROAMING, at, Err(e.clone()));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    answer.ok()
}

/// Clients that leave mid-stream: a modern listener that goes away, and a legacy call whose question is
/// never answered (its POST stream dropped while the handler waits).
async fn dropper(h: Arc<Harness>, i: usize) {
    let mut modern = Conn::new(&h, i, EraChoice::Modern);
    while h.running() {
        tokio::time::sleep(Duration::from_millis(500)).await;
        if let Some((client, generation)) = modern.get().await {
            let asked = ListenNotifications { tools_list_changed: true, ..Default::default() };
            let outcome = timed(async { client.listen(asked).await.map(drop).map_err(|e| e.to_string()) }).await;
            h.record("modern listen dropped", (i, generation), outcome);
        }
        let endpoint = h.slots[i].tx.borrow().clone();
        let Some(endpoint) = endpoint.filter(|e| !e.url.is_empty()) else { continue };
        let (asked_tx, mut asked_rx) = tokio::sync::mpsc::channel::<()>(1);
        let builder = ClientBuilder::new("soak-dropper", "0.0.0").era(EraChoice::Legacy).on_elicit(move |_| {
            let asked = asked_tx.clone();
            async move {
                let _ = asked.send(()).await;
                std::future::pending::<()>().await;
                Ok(confirm())
            }
        });
        let outcome = timed(async {
            let client = builder.http(&endpoint.url).await.map_err(|e| e.to_string())?;
            let call = client.call_tool("deploy", json!({"service": "dropped", "replicas": 1}));
            tokio::select! {
                _ = call => return Err("the call ended before its question came".to_owned()),
                _ = asked_rx.recv() => {}
            }
            client.close().await;
            Ok(())
        })
        .await;
        h.record("legacy call dropped (client closes)", (i, endpoint.generation), outcome);
        let outcome = timed(vanish(&endpoint.url)).await;
        h.record("legacy client vanished mid-stream", (i, endpoint.generation), outcome);
    }
    modern.reset().await;
}

/// A legacy client that goes away without a word: it opens a session, calls the flow, and when the
/// server's question arrives on the call's stream it drops the TCP connection (no `DELETE`, no answer).
async fn vanish(url: &str) -> Result<(), String> {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let authority = url.trim_start_matches("http://").split('/').next().unwrap_or_default().to_owned();
    let post = |body: Value, session: Option<&str>| {
        let body = body.to_string();
        let session = session.map(|s| format!("Mcp-Session-Id: {s}\r\nMCP-Protocol-Version: 2025-06-18\r\n"));
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\nAccept: application/json, \
             text/event-stream\r\nConnection: close\r\n{}Content-Length: {}\r\n\r\n{body}",
            session.unwrap_or_default(),
            body.len()
        )
    };
    let connect = || async { tokio::net::TcpStream::connect(&authority).await.map_err(|e| format!("connect: {e}")) };
    // Reads until `until` shows up in what arrived (or the server closes).
    async fn read_until(stream: &mut tokio::net::TcpStream, until: &str) -> Result<String, String> {
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = stream.read(&mut buf).await.map_err(|e| format!("read: {e}"))?;
            seen.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&seen);
            if text.contains(until) || n == 0 {
                return Ok(text.into_owned());
            }
        }
    }
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}, "sampling": {}},
        "clientInfo": {"name": "soak-vanisher", "version": "0"}}});
    let mut stream = connect().await?;
    stream.write_all(post(init, None).as_bytes()).await.map_err(|e| format!("write: {e}"))?;
    let head = read_until(&mut stream, "\r\n\r\n").await?;
    let session = head
        .lines()
        .find_map(|l| {
            l.split_once(':')
                .filter(|(k, _)| k.eq_ignore_ascii_case("mcp-session-id"))
                .map(|(_, v)| v.trim().to_owned())
        })
        .ok_or_else(|| format!("no session id in {head:.200}"))?;
    drop(stream);
    let mut stream = connect().await?;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    stream.write_all(post(initialized, Some(&session)).as_bytes()).await.map_err(|e| format!("write: {e}"))?;
    read_until(&mut stream, "\r\n\r\n").await?;
    drop(stream);
    let mut stream = connect().await?;
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "deploy", "arguments": {"service": "vanished", "replicas": 1}}});
    stream.write_all(post(call, Some(&session)).as_bytes()).await.map_err(|e| format!("write: {e}"))?;
    let seen = read_until(&mut stream, "elicitation/create").await?;
    if seen.contains("elicitation/create") { Ok(()) } else { Err(format!("no question came: {seen:.300}")) }
}

/// Kills and restarts a replica every `kill_every` seconds, in turn.
async fn killer(h: Arc<Harness>) {
    if h.config.kill_every == 0 {
        return;
    }
    let mut next = 0;
    loop {
        tokio::time::sleep(Duration::from_secs(h.config.kill_every)).await;
        if !h.running() {
            return;
        }
        let i = next % h.slots.len();
        next += 1;
        eprintln!("soak: t={}s killing replica {i}", h.started.elapsed().as_secs());
        h.kill(i);
        tokio::time::sleep(Duration::from_secs(1)).await;
        h.start(i).await;
    }
}

async fn start_redis(binary: &Path, port: u16) -> Child {
    let child = Command::new(binary)
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {}: {e}", binary.display()));
    let deadline = Instant::now() + Duration::from_secs(10);
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        assert!(Instant::now() < deadline, "redis-server did not listen on {port}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    child
}

/// Restarts Redis every `redis_restart_every` seconds (on its port, so replicas reconnect to it).
async fn redis_restarter(h: Arc<Harness>) {
    let Some(binary) = h.config.redis_server.clone() else { return };
    if h.config.redis_restart_every == 0 {
        return;
    }
    loop {
        tokio::time::sleep(Duration::from_secs(h.config.redis_restart_every)).await;
        if !h.running() {
            return;
        }
        eprintln!("soak: t={}s restarting redis", h.started.elapsed().as_secs());
        // Marked before the kill, as a replica is marked down before it is killed: a call that fails at
        // once must find the fault already there.
        h.slots.iter().for_each(Slot::mark_fault);
        let port = {
            let mut redis = h.redis.lock().unwrap();
            let redis = redis.as_mut().expect("redis runs");
            let _ = redis.child.start_kill();
            redis.port
        };
        tokio::time::sleep(Duration::from_secs(2)).await;
        let child = start_redis(&binary, port).await;
        h.slots.iter().for_each(Slot::mark_fault);
        h.redis.lock().unwrap().as_mut().expect("redis runs").child = child;
    }
}

/// RSS (KiB) and open fds of a process, from `/proc`.
fn usage(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss = status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?.trim().trim_end_matches(" kB").parse().ok()?;
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count() as u64;
    Some((rss, fds))
}

/// One sample per replica per second: `t_s,replica,pid,rss_kib,fds`.
#[derive(Clone, Copy)]
struct Sample {
    t: f64,
    replica: usize,
    pid: u32,
    rss: u64,
    fds: u64,
}

async fn sampler(h: Arc<Harness>, series: Arc<Mutex<Vec<Sample>>>, done: Arc<AtomicBool>) {
    let csv = h.config.out.join("series.csv");
    let _ = std::fs::write(&csv, "t_s,replica,pid,rss_kib,fds\n");
    let mut last_report = Instant::now();
    while !done.load(Ordering::Relaxed) {
        let t = h.started.elapsed().as_secs_f64();
        for (replica, pid) in h.pids().into_iter().enumerate() {
            let Some(pid) = pid else { continue };
            if let Some((rss, fds)) = usage(pid) {
                append(&csv, &format!("{t:.1},{replica},{pid},{rss},{fds}"));
                series.lock().unwrap().push(Sample { t, replica, pid, rss, fds });
            }
        }
        if last_report.elapsed() >= Duration::from_secs(10) {
            last_report = Instant::now();
            let total: u64 = h.stats.ok.lock().unwrap().values().sum();
            eprintln!(
                "soak: t={t:.0}s ok={total} expected_errors={} unexpected={}",
                h.stats.expected_errors.load(Ordering::Relaxed),
                h.stats.unexpected_count.load(Ordering::Relaxed)
            );
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Open fds of every replica, once nothing runs against it.
fn fds_now(h: &Harness) -> Vec<Option<u64>> {
    h.pids().into_iter().map(|pid| pid.and_then(usage).map(|(_, fds)| fds)).collect()
}

#[tokio::main]
async fn main() {
    let config = Config::from_env();
    std::fs::create_dir_all(&config.out).expect("the output directory");
    for entry in std::fs::read_dir(&config.out).into_iter().flatten().flatten() {
        let _ = std::fs::remove_file(entry.path());
    }
    // The replicas' shared key ring: one random 32-byte key, base64url.
    let mut key = [0u8; 32];
    getrandom::fill(&mut key).expect("the OS's random numbers");
    let keys = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(key);
    let mut redis = None;
    if let Some(binary) = &config.redis_server {
        let port = free_port();
        redis = Some(Redis { child: start_redis(binary, port).await, port });
    }
    let slots = (0..config.replicas)
        .map(|_| Slot { tx: watch::channel(None).0, child: Mutex::new(None), last_fault: Mutex::new(None) })
        .collect();
    let h = Arc::new(Harness {
        config,
        slots,
        stats: Stats::default(),
        keys,
        redis: Mutex::new(redis),
        stop: AtomicBool::new(false),
        started: Instant::now(),
    });
    for i in 0..h.slots.len() {
        h.start(i).await;
    }
    // Settle, then the baseline of open fds before any load.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let baseline = fds_now(&h);
    let series = Arc::new(Mutex::new(Vec::new()));
    let done = Arc::new(AtomicBool::new(false));
    let sampling = tokio::spawn(sampler(h.clone(), series.clone(), done.clone()));
    let mut load = Vec::new();
    let runs = |kind: &str| h.config.load.iter().any(|k| k == kind);
    for i in 0..h.slots.len() {
        if runs("modern") {
            load.push(tokio::spawn(modern_worker(h.clone(), i, i * 2)));
            load.push(tokio::spawn(modern_worker(h.clone(), i, i * 2 + 1)));
        }
        if runs("legacy") {
            load.push(tokio::spawn(legacy_worker(h.clone(), i, i)));
        }
        // Sessions are shared only through Redis: without it a roaming session would not be found.
        if runs("roam") && h.config.redis_server.is_some() {
            load.push(tokio::spawn(roaming_worker(h.clone(), i)));
        }
        if runs("drop") {
            load.push(tokio::spawn(dropper(h.clone(), i)));
        }
    }
    if runs("flow") {
        load.push(tokio::spawn(flow_worker(h.clone(), 0)));
        load.push(tokio::spawn(flow_worker(h.clone(), 1)));
    }
    let faults = [tokio::spawn(killer(h.clone())), tokio::spawn(redis_restarter(h.clone()))];
    eprintln!(
        "soak: {} replicas for {} s (kill every {} s, redis {})",
        h.slots.len(),
        h.config.secs,
        h.config.kill_every,
        if h.config.redis_server.is_some() { "on" } else { "off" }
    );
    tokio::time::sleep(Duration::from_secs(h.config.secs)).await;
    h.stop.store(true, Ordering::Relaxed);
    faults.iter().for_each(|f| f.abort());
    // A worker that panicked stopped calling: the calls it did not make would go uncounted.
    let mut panicked = 0;
    for worker in load {
        if let Ok(Err(e)) = tokio::time::timeout(CALL_TIMEOUT * 2, worker).await
            && e.is_panic()
        {
            panicked += 1;
        }
    }
    // What a dropped legacy call left behind ends with its round's timeout or the stream's end; give the
    // replicas a moment, then they must be back at their level of fds (replicas restarted meanwhile: their
    // level right after the restart is not known, so the check is against the first baseline).
    let mut after = fds_now(&h);
    let settle = Instant::now() + Duration::from_secs(20);
    while Instant::now() < settle && leaked(&baseline, &after) {
        tokio::time::sleep(Duration::from_secs(1)).await;
        after = fds_now(&h);
    }
    done.store(true, Ordering::Relaxed);
    let _ = sampling.await;
    let verdict = summarize(&h, &series.lock().unwrap(), &baseline, &after).and_then(|()| match panicked {
        0 => Ok(()),
        n => Err(format!("{n} load worker(s) panicked (see above)")),
    });
    for i in 0..h.slots.len() {
        h.kill(i);
    }
    if let Some(mut redis) = h.redis.lock().unwrap().take() {
        let _ = redis.child.start_kill();
    }
    if let Err(why) = verdict {
        eprintln!("soak: FAILED: {why}");
        std::process::exit(1);
    }
    eprintln!("soak: passed");
}

fn leaked(baseline: &[Option<u64>], after: &[Option<u64>]) -> bool {
    baseline.iter().zip(after).any(|(b, a)| matches!((b, a), (Some(b), Some(a)) if *a > b + FD_SLACK))
}

/// Writes `summary.md` and says whether the run passed.
fn summarize(h: &Harness, series: &[Sample], baseline: &[Option<u64>], after: &[Option<u64>]) -> Result<(), String> {
    let secs = h.config.secs as f64;
    let mut md = String::new();
    let _ =
        writeln!(md, "# soak: {} replicas, {} s, kill every {} s\n", h.slots.len(), h.config.secs, h.config.kill_every);
    let _ = writeln!(md, "| calls | ok | per second |\n| --- | --- | --- |");
    let ok = h.stats.ok.lock().unwrap();
    for (kind, n) in ok.iter() {
        let _ = writeln!(md, "| {kind} | {n} | {:.1} |", *n as f64 / secs);
    }
    let expected = h.stats.expected_errors.load(Ordering::Relaxed);
    let unexpected = h.stats.unexpected_count.load(Ordering::Relaxed);
    let _ = writeln!(md, "\nerrors around faults: {expected}; other errors: {unexpected}\n");
    let _ = writeln!(
        md,
        "| replica (pid) | lived | RSS at 25 % | RSS peak | RSS last | fds peak |\n| --- | --- | --- | --- | --- | --- |"
    );
    let mut problems = Vec::new();
    let mut pids: Vec<(usize, u32)> = Vec::new();
    for sample in series {
        if !pids.contains(&(sample.replica, sample.pid)) {
            pids.push((sample.replica, sample.pid));
        }
    }
    for (replica, pid) in pids {
        let samples: Vec<&Sample> = series.iter().filter(|s| s.pid == pid).collect();
        let (first, last) = (samples[0], samples[samples.len() - 1]);
        let early = samples[samples.len() / 4];
        let peak = samples.iter().map(|s| s.rss).max().unwrap_or(0);
        let fds_peak = samples.iter().map(|s| s.fds).max().unwrap_or(0);
        let lived = last.t - first.t;
        let _ = writeln!(
            md,
            "| {replica} ({pid}) | {lived:.0} s | {} KiB | {peak} KiB | {} KiB | {fds_peak} |",
            early.rss, last.rss
        );
        // Memory that keeps growing under steady load is a leak: a replica that lived through most of the
        // run ends within 1.5x (plus 16 MiB of slack for what legacy sessions left open hold) of its level
        // a quarter of the way in.
        if lived > secs / 2.0 && last.rss > early.rss * 3 / 2 + 16 * 1024 {
            problems.push(format!("replica {replica} (pid {pid}) grew from {} KiB to {} KiB", early.rss, last.rss));
        }
    }
    let _ = writeln!(md, "\nopen fds before the load: {baseline:?}; after it: {after:?}");
    if leaked(baseline, after) {
        problems.push(format!("open fds did not come back: before {baseline:?}, after {after:?}"));
    }
    if unexpected > 0 {
        let seen = h.stats.unexpected.lock().unwrap();
        problems.push(format!("{unexpected} errors no fault explains, first: {seen:?}"));
    }
    let expected =
        [("modern", "modern echo"), ("flow", "modern flow (3 rounds, round-robin)"), ("legacy", "legacy echo")];
    let roaming = h.config.redis_server.as_ref().map(|_| ("roam", ROAMING));
    for (load, kind) in expected.into_iter().chain(roaming) {
        if h.config.load.iter().any(|k| k == load) && !ok.contains_key(kind) {
            problems.push(format!("no {kind} succeeded"));
        }
    }
    let _ = std::fs::write(h.config.out.join("summary.md"), &md);
    eprint!("{md}");
    if problems.is_empty() { Ok(()) } else { Err(problems.join("; ")) }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().unwrap().port()
}

//! The load generator: C keep-alive HTTP/1.1 connections (hyper 1 client), each sending requests one after
//! another, for a warm-up then a measured window; every answer is checked.
//!
//! ```text
//! load run --addr 127.0.0.1:PORT --scenario legacy-call|modern-call|legacy-list --conns C
//!          [--warmup SECS] [--duration SECS] [--threads N] [--quickack] [key=value ...]
//! load ports N            N free loopback ports, one a line
//! load wait ADDR          waits (up to 10 s) until ADDR accepts connections
//! load summarize FILE [key=value ...]
//!                         the markdown table of the `run` and RSS lines in FILE that have these fields, with
//!                         the ratios of every server to `bare` and of every framework build to `rmcp`
//! ```
//!
//! `--quickack` has the client acknowledge every segment at once (TCP_QUICKACK after each read) instead of
//! delaying its ACK: a server whose response leaves in several writes on a socket without TCP_NODELAY then
//! waits one loopback round trip for that ACK rather than the delayed-ACK timer (~40 ms on Linux).
//!
//! `run` prints one line of `key=value` fields (the extra `key=value` arguments first): `rps`, `p50_us`,
//! `p90_us`, `p99_us`, `ok`, `errors` and, when there were any, `first_error`.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde::Deserialize;

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scenario {
    /// `initialize` + `notifications/initialized` per connection (one session each), then `tools/call add`.
    LegacyCall,
    /// `tools/call add` with the 2026-07-28 `_meta` envelope and standard headers; no session.
    ModernCall,
    /// `tools/list` on a legacy session, one per connection.
    LegacyList,
}

impl Scenario {
    fn parse(s: &str) -> Option<Self> {
        match s {
            "legacy-call" => Some(Self::LegacyCall),
            "modern-call" => Some(Self::ModernCall),
            "legacy-list" => Some(Self::LegacyList),
            _ => None,
        }
    }
}

struct RunArgs {
    addr: SocketAddr,
    scenario: Scenario,
    conns: usize,
    warmup: Duration,
    duration: Duration,
    threads: usize,
    quickack: bool,
    tags: Vec<String>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("run") => run(parse_run(&args[1..])),
        Some("ports") => ports(args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1)),
        Some("wait") => wait(args.get(1).and_then(|a| a.parse().ok()).unwrap_or_else(|| usage("wait ADDR"))),
        Some("summarize") => summarize(args.get(1).unwrap_or_else(|| usage("summarize FILE")), &args[2..]),
        _ => usage("a command: run, ports, wait or summarize"),
    }
}

fn usage(what: &str) -> ! {
    eprintln!("load: expected {what}; see the top of src/bin/load.rs");
    std::process::exit(2)
}

fn parse_run(args: &[String]) -> RunArgs {
    let mut run = RunArgs {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        scenario: Scenario::LegacyCall,
        conns: 1,
        warmup: Duration::from_secs(1),
        duration: Duration::from_secs(3),
        threads: 0,
        quickack: false,
        tags: Vec::new(),
    };
    let secs = |v: Option<&String>| {
        Duration::from_secs_f64(v.and_then(|v| v.parse().ok()).unwrap_or_else(|| usage("seconds")))
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--addr" => run.addr = it.next().and_then(|a| a.parse().ok()).unwrap_or_else(|| usage("--addr IP:PORT")),
            "--scenario" => {
                run.scenario = it.next().and_then(|s| Scenario::parse(s)).unwrap_or_else(|| usage("a scenario"))
            }
            "--conns" => run.conns = it.next().and_then(|c| c.parse().ok()).unwrap_or_else(|| usage("--conns N")),
            "--threads" => run.threads = it.next().and_then(|c| c.parse().ok()).unwrap_or_else(|| usage("--threads N")),
            "--quickack" => run.quickack = true,
            "--warmup" => run.warmup = secs(it.next()),
            "--duration" => run.duration = secs(it.next()),
            tag if tag.contains('=') && !tag.starts_with('-') => run.tags.push(tag.to_owned()),
            other => usage(&format!("a known argument, not {other:?}")),
        }
    }
    if run.threads == 0 {
        run.threads = run.conns.clamp(1, 2);
    }
    run
}

/// What one connection saw in the measured window.
#[derive(Default)]
struct Tally {
    latencies_us: Vec<u32>,
    errors: u64,
    first_error: Option<String>,
}

impl Tally {
    fn error(&mut self, measured: bool, why: String) {
        if measured {
            self.errors += 1;
        }
        self.first_error.get_or_insert(why);
    }
}

fn run(args: RunArgs) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let start = Instant::now();
    let measure_from = start + args.warmup;
    let until = measure_from + args.duration;
    let tallies: Vec<Tally> = runtime.block_on(async {
        let tasks: Vec<_> = (0..args.conns)
            .map(|conn| tokio::spawn(client(args.addr, args.quickack, args.scenario, conn as i64, measure_from, until)))
            .collect();
        let mut tallies = Vec::with_capacity(tasks.len());
        for task in tasks {
            tallies.push(task.await.unwrap_or_else(|e| Tally {
                errors: 1,
                first_error: Some(format!("client task failed: {e}")),
                ..Tally::default()
            }));
        }
        tallies
    });
    let mut latencies: Vec<u32> = tallies.iter().flat_map(|t| t.latencies_us.iter().copied()).collect();
    latencies.sort_unstable();
    let errors: u64 = tallies.iter().map(|t| t.errors).sum();
    let first_error = tallies.iter().find_map(|t| t.first_error.clone());
    let pct = |p: f64| -> u32 {
        if latencies.is_empty() {
            return 0;
        }
        let rank = ((p * latencies.len() as f64).ceil() as usize).clamp(1, latencies.len());
        latencies[rank - 1]
    };
    let mut line = args.tags.clone();
    line.push(format!("rps={:.0}", latencies.len() as f64 / args.duration.as_secs_f64()));
    line.push(format!("p50_us={}", pct(0.50)));
    line.push(format!("p90_us={}", pct(0.90)));
    line.push(format!("p99_us={}", pct(0.99)));
    line.push(format!("ok={}", latencies.len()));
    line.push(format!("errors={errors}"));
    if let Some(why) = first_error {
        // One field: no spaces.
        line.push(format!("first_error={}", why.split_whitespace().collect::<Vec<_>>().join("_")));
    }
    println!("{}", line.join(" "));
}

/// One connection: connects (again after a failure), opens its session when the scenario has one, then sends
/// requests back to back until `until`. Requests finishing before `measure_from` are the warm-up.
async fn client(
    addr: SocketAddr,
    quickack: bool,
    scenario: Scenario,
    conn: i64,
    measure_from: Instant,
    until: Instant,
) -> Tally {
    let mut tally = Tally::default();
    let mut seq: i64 = 0;
    while Instant::now() < until {
        let mut link = match Link::open(addr, quickack, scenario).await {
            Ok(link) => link,
            Err(why) => {
                tally.error(Instant::now() >= measure_from, why);
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        loop {
            seq += 1;
            let (a, b) = (conn * 1_000_000 + seq, seq * 7 - conn);
            let sent = Instant::now();
            let outcome = link.request(scenario, seq, a, b).await;
            let done = Instant::now();
            let measured = sent >= measure_from && done <= until;
            match outcome {
                Ok(()) if measured => {
                    tally.latencies_us.push(u32::try_from((done - sent).as_micros()).unwrap_or(u32::MAX))
                }
                Ok(()) => {}
                Err(Failure::Wrong(why)) => tally.error(done <= until, why),
                Err(Failure::Broken(why)) => {
                    tally.error(done <= until, why);
                    break;
                }
            }
            if done >= until {
                break;
            }
        }
    }
    tally
}

enum Failure {
    /// A wrong answer on a connection that is still usable.
    Wrong(String),
    /// The connection is gone: reconnect.
    Broken(String),
}

/// A keep-alive HTTP/1.1 connection and, for legacy scenarios, its session.
struct Link {
    sender: SendRequest<Full<Bytes>>,
    host: String,
    session: Option<String>,
}

impl Link {
    async fn open(addr: SocketAddr, quickack: bool, scenario: Scenario) -> Result<Self, String> {
        let stream = tokio::net::TcpStream::connect(addr).await.map_err(|e| format!("connect: {e}"))?;
        stream.set_nodelay(true).map_err(|e| format!("nodelay: {e}"))?;
        let io = TokioIo::new(Socket { stream, quickack });
        let (sender, connection) =
            hyper::client::conn::http1::handshake(io).await.map_err(|e| format!("handshake: {e}"))?;
        tokio::spawn(connection);
        let mut link = Link { sender, host: addr.to_string(), session: None };
        if scenario != Scenario::ModernCall {
            link.initialize().await?;
        }
        Ok(link)
    }

    /// The legacy handshake. A server that answers without `Mcp-Session-Id` serves legacy requests statelessly:
    /// the requests that follow go without one.
    async fn initialize(&mut self) -> Result<(), String> {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{LEGACY}","capabilities":{{}},"clientInfo":{{"name":"load","version":"0.0.0"}}}}}}"#
        );
        let (status, headers, body) = self.post(body, None, &[]).await.map_err(|e| format!("initialize: {e}"))?;
        if status != 200 {
            return Err(format!("initialize: HTTP {status}"));
        }
        let reply = response(&headers, &body, 0).map_err(|e| format!("initialize: {e}"))?;
        if reply.result.is_none() {
            return Err(format!("initialize failed: {}", String::from_utf8_lossy(&body)));
        }
        self.session = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned();
        let (status, _, _) = self.post(note, Some(LEGACY), &[]).await.map_err(|e| format!("initialized: {e}"))?;
        if status != 202 {
            return Err(format!("notifications/initialized: HTTP {status}"));
        }
        Ok(())
    }

    async fn request(&mut self, scenario: Scenario, id: i64, a: i64, b: i64) -> Result<(), Failure> {
        let (body, version, extra): (String, &str, &[(&str, &str)]) = match scenario {
            Scenario::LegacyCall => (
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{a},"b":{b}}}}}}}"#
                ),
                LEGACY,
                &[],
            ),
            Scenario::LegacyList => (format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#), LEGACY, &[]),
            Scenario::ModernCall => (
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{a},"b":{b}}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{MODERN}","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"load","version":"0.0.0"}}}}}}}}"#
                ),
                MODERN,
                &[("mcp-method", "tools/call"), ("mcp-name", "add")],
            ),
        };
        let (status, headers, body) = self.post(body, Some(version), extra).await.map_err(Failure::Broken)?;
        if status != 200 {
            return Err(Failure::Wrong(format!("HTTP {status}: {}", String::from_utf8_lossy(&body))));
        }
        let reply = response(&headers, &body, id).map_err(Failure::Wrong)?;
        let Some(result) = reply.result else {
            return Err(Failure::Wrong(format!("an error: {}", String::from_utf8_lossy(&body))));
        };
        let right = match scenario {
            Scenario::LegacyList => result.tools.first().is_some_and(|t| t.name == "add"),
            _ => {
                let text = result.content.first().and_then(|c| c.text.as_deref());
                text == Some(fastmcp_bench_load::add_text(a, b).as_str())
            }
        };
        if right { Ok(()) } else { Err(Failure::Wrong(format!("wrong answer: {}", String::from_utf8_lossy(&body)))) }
    }

    /// One POST with the headers every request carries (`MCP-Protocol-Version` on all but `initialize`), the
    /// session's id if any, and `extra`; returns the status, headers and whole body.
    async fn post(
        &mut self,
        body: String,
        version: Option<&str>,
        extra: &[(&str, &str)],
    ) -> Result<(u16, hyper::HeaderMap, Bytes), String> {
        let mut request = hyper::Request::post("/mcp")
            .header("host", &self.host)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(version) = version {
            request = request.header("mcp-protocol-version", version);
        }
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        for (k, v) in extra {
            request = request.header(*k, *v);
        }
        let request = request.body(Full::new(Bytes::from(body))).map_err(|e| format!("request: {e}"))?;
        self.sender.ready().await.map_err(|e| format!("connection: {e}"))?;
        let response = self.sender.send_request(request).await.map_err(|e| format!("send: {e}"))?;
        let (parts, body) = response.into_parts();
        let body = body.collect().await.map_err(|e| format!("body: {e}"))?.to_bytes();
        Ok((parts.status.as_u16(), parts.headers, body))
    }
}

/// The client's socket; with `quickack`, every read that got bytes is followed by TCP_QUICKACK, which sends
/// the ACK the kernel would otherwise have delayed.
struct Socket {
    stream: tokio::net::TcpStream,
    quickack: bool,
}

impl tokio::io::AsyncRead for Socket {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if self.quickack && matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            // Best effort: a failure only brings the delayed ACK back.
            let _ = socket2::SockRef::from(&self.stream).set_tcp_quickack(true);
        }
        polled
    }
}

impl tokio::io::AsyncWrite for Socket {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[derive(Deserialize)]
struct Reply {
    id: Option<serde_json::Value>,
    result: Option<ResultBody>,
}

#[derive(Deserialize)]
struct ResultBody {
    #[serde(default)]
    content: Vec<Content>,
    #[serde(default)]
    tools: Vec<Tool>,
}

#[derive(Deserialize)]
struct Content {
    text: Option<String>,
}

#[derive(Deserialize)]
struct Tool {
    name: String,
}

/// The response to request `id`: the JSON body, or the SSE `data:` that carries it.
fn response(headers: &hyper::HeaderMap, body: &[u8], id: i64) -> Result<Reply, String> {
    let sse = headers
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/event-stream"));
    let matches = |reply: &Reply| reply.id.as_ref().and_then(serde_json::Value::as_i64) == Some(id);
    if !sse {
        let reply: Reply = serde_json::from_slice(body).map_err(|e| format!("not JSON ({e})"))?;
        return if matches(&reply) { Ok(reply) } else { Err("a response to another id".into()) };
    }
    let text = std::str::from_utf8(body).map_err(|_| "SSE body is not UTF-8".to_owned())?;
    // Events are separated by a blank line; a message's data may span several `data:` lines.
    for event in text.split("\n\n") {
        let data: Vec<&str> =
            event.lines().filter_map(|l| l.strip_prefix("data:")).map(|d| d.strip_prefix(' ').unwrap_or(d)).collect();
        let data = data.join("\n");
        if data.trim().is_empty() {
            continue;
        }
        if let Ok(reply) = serde_json::from_str::<Reply>(&data)
            && matches(&reply)
        {
            return Ok(reply);
        }
    }
    Err(format!("no response to id {id} in the SSE stream"))
}

fn ports(n: usize) {
    // Held together so that the N are distinct, then released for the servers to bind.
    let listeners: Vec<_> =
        (0..n).map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port")).collect();
    for l in &listeners {
        println!("{}", l.local_addr().expect("bound").port());
    }
}

fn wait(addr: SocketAddr) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    eprintln!("load: {addr} did not accept connections within 10 s");
    std::process::exit(1)
}

/// Key/value fields of one line.
fn fields(line: &str) -> BTreeMap<&str, &str> {
    line.split_whitespace().filter_map(|f| f.split_once('=')).collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

/// The table: per (mode, scenario, C), each server's medians over its rounds and its peak RSS, then the ratios
/// of every other server to `bare` (the floor) and of every framework build to `rmcp`, for those present. Run
/// lines carry `mode scenario conns impl [server] rps p50_us p90_us p99_us errors`; RSS lines carry
/// `kind=rss mode scenario conns impl [server] vmhwm_kb`. A cell's servers are listed in the order they first
/// appear in FILE (run.sh's first round runs them in the order it was given).
fn summarize(path: &str, filters: &[String]) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    let filters: Vec<(&str, &str)> = filters.iter().filter_map(|f| f.split_once('=')).collect();
    type Key = (String, String, u64);
    let mut runs: BTreeMap<(Key, String), Vec<BTreeMap<&str, &str>>> = BTreeMap::new();
    let mut rss: BTreeMap<(Key, String), f64> = BTreeMap::new();
    let mut names: BTreeMap<(Key, String), String> = BTreeMap::new();
    let mut order: Vec<Key> = Vec::new();
    // Each cell's servers (`impl`), in order of first appearance.
    let mut servers: BTreeMap<Key, Vec<String>> = BTreeMap::new();
    for line in text.lines() {
        let f = fields(line);
        if !filters.iter().all(|(k, v)| f.get(k) == Some(v)) {
            continue;
        }
        let (Some(mode), Some(scenario), Some(conns), Some(imp)) =
            (f.get("mode"), f.get("scenario"), f.get("conns").and_then(|c| c.parse().ok()), f.get("impl"))
        else {
            continue;
        };
        let key: Key = (mode.to_string(), scenario.to_string(), conns);
        if !order.contains(&key) {
            order.push(key.clone());
        }
        let listed = servers.entry(key.clone()).or_default();
        if !listed.iter().any(|s| s == imp) {
            listed.push(imp.to_string());
        }
        let slot = (key, imp.to_string());
        names.insert(slot.clone(), f.get("server").unwrap_or(imp).to_string());
        if f.get("kind") == Some(&"rss") {
            if let Some(kb) = f.get("vmhwm_kb").and_then(|k| k.parse().ok()) {
                rss.insert(slot, kb);
            }
        } else {
            runs.entry(slot).or_default().push(f);
        }
    }
    println!(
        "| scenario | mode | C | server | req/s | req/s range | p50 µs | p90 µs | p99 µs | errors | peak RSS MiB |"
    );
    println!("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    for key in &order {
        // Per server: median req/s, p50, p90, p99, the errors summed over the rounds, peak RSS in MiB.
        let mut stats: Vec<(&str, [f64; 6])> = Vec::new();
        for imp in &servers[key] {
            let slot = (key.clone(), imp.clone());
            let Some(rounds) = runs.get(&slot) else { continue };
            let col = |name: &str| median(rounds.iter().filter_map(|f| f.get(name)?.parse().ok()).collect());
            let errors: f64 = rounds.iter().filter_map(|f| f.get("errors")?.parse::<f64>().ok()).sum();
            let rps: Vec<f64> = rounds.iter().filter_map(|f| f.get("rps")?.parse().ok()).collect();
            let (lo, hi) = rps.iter().fold((f64::INFINITY, 0.0_f64), |(lo, hi), r| (lo.min(*r), hi.max(*r)));
            let mib = rss.get(&slot).map_or(f64::NAN, |kb| kb / 1024.0);
            let s = [col("rps"), col("p50_us"), col("p90_us"), col("p99_us"), errors, mib];
            println!(
                "| {} | {} | {} | {} | {:.0} | {lo:.0}–{hi:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.1} |",
                key.1, key.0, key.2, names[&slot], s[0], s[1], s[2], s[3], s[4], s[5]
            );
            stats.push((imp, s));
        }
        // Against the floor, every other server (rmcp too); against rmcp, every server but the floor.
        for (base, not_against) in [("bare", &["bare"][..]), ("rmcp", &["bare", "rmcp"][..])] {
            let Some(&(_, b)) = stats.iter().find(|(imp, _)| *imp == base) else { continue };
            for (imp, s) in stats.iter().filter(|(imp, _)| !not_against.contains(imp)) {
                println!(
                    "| {} | {} | {} | **ratio {imp}/{base}** | **{}** | | {} | {} | {} | | {} |",
                    key.1,
                    key.0,
                    key.2,
                    ratio(s[0], b[0]),
                    ratio(s[1], b[1]),
                    ratio(s[2], b[2]),
                    ratio(s[3], b[3]),
                    ratio(s[5], b[5])
                );
            }
        }
    }
}

/// `a / b` with two significant decimals, more when it is small.
fn ratio(a: f64, b: f64) -> String {
    let r = a / b;
    if r < 0.1 { format!("{r:.4}×") } else { format!("{r:.2}×") }
}

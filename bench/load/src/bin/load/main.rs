//! The load generator: drives one server over Streamable HTTP (C keep-alive connections) or stdio (the
//! server as a child process, N requests in flight), for a warm-up and then a measured window, checking
//! every answer; measures idle-session memory; and turns the result lines into tables.
//!
//! ```text
//! load run (--addr IP:PORT [--pid PID] | --stdio --server-cmd "PROGRAM ARGS") --scenario SCENARIO
//!          [--conns C | --inflight N] [--warmup SECS] [--duration SECS] [--threads N] [--quickack]
//!          [--rate R]
//!          [key=value ...]
//! load sessions --addr IP:PORT --pid PID [--count N] [--conns N] [--warm N] [key=value ...]
//! load ports N            N free loopback ports, one a line
//! load wait ADDR          waits (up to 10 s) until ADDR accepts connections
//! load summarize FILE [key=value ...] [--main]
//!                         the tables from the result lines in FILE (those whose fields match)
//! load check FILE         exit 1 if any run in FILE had an error or no answer
//! load rps FILE key=value ...
//!                         the median req/s of the one closed-loop cell and server the fields select
//! load footprint FILE (--requests N | --per FUNCTION) [--top K]
//!                         instructions and hot code a request, from a callgrind dump (see footprint.sh)
//! ```
//!
//! Scenarios: `modern-call`, `modern-list`, `legacy-call`, `legacy-stateless`, `legacy-list`, `mrtr` (see
//! [`scenario`]). `--pid` (HTTP; stdio knows its child's) adds the server's CPU per request, from
//! `/proc/PID/stat` at the window's ends. `--quickack` has the HTTP client acknowledge every segment at once
//! (TCP_QUICKACK after each read) instead of delaying its ACK: a server whose response leaves in several
//! writes on a socket without TCP_NODELAY then waits one loopback round trip for that ACK rather than the
//! delayed-ACK timer (~40 ms on Linux).
//!
//! `--rate R` (HTTP) offers R requests a second in all instead of sending each connection's next request as
//! soon as the last is answered: latencies are then compared at one load, not at whatever rate each server
//! draws from a closed loop (where the faster server also saturates the machine it shares with the load).
//! A request sent late, because its connection still waited for the previous answer, counts from when it
//! was due (no coordinated omission); one sent on time counts from when it went out, so the timer's 1 ms
//! granularity is not charged to the server.
//!
//! `run` prints one line of `key=value` fields, the extra `key=value` arguments first (see
//! [`measure::line`]); `sessions` prints one too (see [`sessions`]).

mod footprint;
mod http;
mod measure;
mod reply;
mod scenario;
mod sessions;
mod stdio;
mod summary;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use scenario::Scenario;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("run") => run(parse_run(&args[1..])),
        Some("sessions") => println!("{}", sessions::run(parse_sessions(&args[1..]))),
        Some("ports") => ports(args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1)),
        Some("wait") => wait(args.get(1).and_then(|a| a.parse().ok()).unwrap_or_else(|| usage("wait ADDR"))),
        Some("summarize") => summary::summarize(args.get(1).unwrap_or_else(|| usage("summarize FILE")), &args[2..]),
        Some("check") => summary::check(args.get(1).unwrap_or_else(|| usage("check FILE"))),
        Some("rps") => summary::rps(args.get(1).unwrap_or_else(|| usage("rps FILE key=value ...")), &args[2..]),
        Some("footprint") => footprint::report(&args[1..]),
        _ => usage("a command: run, sessions, ports, wait, summarize, check, rps or footprint"),
    }
}

pub fn usage(what: &str) -> ! {
    eprintln!("load: expected {what}; see the top of src/bin/load/main.rs");
    std::process::exit(2)
}

enum Target {
    Http { addr: SocketAddr, pid: Option<u32>, conns: usize, threads: usize, quickack: bool, rate: Option<f64> },
    Stdio { command: String, inflight: usize },
}

struct RunArgs {
    target: Target,
    scenario: Scenario,
    warmup: Duration,
    duration: Duration,
    tags: Vec<String>,
}

/// The next argument, parsed, or the usage error `what`.
pub fn value<T: std::str::FromStr>(it: &mut std::slice::Iter<'_, String>, what: &str) -> T {
    it.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| usage(what))
}

fn is_tag(arg: &str) -> bool {
    arg.contains('=') && !arg.starts_with('-')
}

fn parse_run(args: &[String]) -> RunArgs {
    let (mut addr, mut pid, mut conns, mut threads, mut quickack, mut rate) = (None, None, None, 0, false, None);
    let (mut stdio, mut command, mut inflight) = (false, None, None);
    let (mut scenario, mut warmup, mut duration, mut tags) = (None, 1.0, 3.0, Vec::new());
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--addr" => addr = Some(value(&mut it, "--addr IP:PORT")),
            "--pid" => pid = Some(value(&mut it, "--pid PID")),
            "--conns" => conns = Some(value::<usize>(&mut it, "--conns N").max(1)),
            "--threads" => threads = value(&mut it, "--threads N"),
            "--quickack" => quickack = true,
            "--rate" => rate = Some(value::<f64>(&mut it, "--rate REQUESTS_PER_SECOND")).filter(|r| *r > 0.0),
            "--stdio" => stdio = true,
            "--server-cmd" => command = Some(value::<String>(&mut it, "--server-cmd \"PROGRAM ARGS\"")),
            "--inflight" => inflight = Some(value::<usize>(&mut it, "--inflight N").max(1)),
            "--scenario" => {
                let name: String = value(&mut it, "--scenario NAME");
                let known = Scenario::parse(&name);
                scenario =
                    Some(known.unwrap_or_else(|| usage(&format!("a scenario ({}), not {name}", Scenario::NAMES))))
            }
            "--warmup" => warmup = value(&mut it, "--warmup SECS"),
            "--duration" => duration = value(&mut it, "--duration SECS"),
            tag if is_tag(tag) => tags.push(tag.to_owned()),
            other => usage(&format!("a known argument, not {other:?}")),
        }
    }
    let target = match (stdio, addr) {
        (false, Some(addr)) if command.is_none() && inflight.is_none() => {
            let conns = conns.unwrap_or(1);
            let threads = if threads == 0 { conns.clamp(1, 2) } else { threads };
            Target::Http { addr, pid, conns, threads, quickack, rate }
        }
        (true, None) if conns.is_none() && pid.is_none() && rate.is_none() => Target::Stdio {
            command: command.unwrap_or_else(|| usage("--server-cmd with --stdio")),
            inflight: inflight.unwrap_or(1),
        },
        _ => usage("either --addr (with --conns, --pid, --threads, --rate) or --stdio (with --server-cmd, --inflight)"),
    };
    RunArgs {
        target,
        scenario: scenario.unwrap_or_else(|| usage("--scenario")),
        warmup: Duration::from_secs_f64(warmup),
        duration: Duration::from_secs_f64(duration),
        tags,
    }
}

fn run(args: RunArgs) {
    let multi = args.scenario.rounds() > 1;
    let line = match args.target {
        Target::Http { addr, pid, conns, threads, quickack, rate } => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(threads)
                .enable_all()
                .build()
                .expect("a tokio runtime");
            let window = measure::Window::new(args.warmup, args.duration);
            let sampler = measure::CpuSampler::start(pid, window);
            let tally = runtime.block_on(http::run(addr, quickack, args.scenario, conns, window, rate));
            measure::line(&args.tags, &window, tally, multi, sampler.finish(), None)
        }
        Target::Stdio { command, inflight } => {
            let measured = stdio::run(&command, args.scenario, inflight, args.warmup, args.duration);
            let window = measured.window;
            measure::line(&args.tags, &window, measured.tally, multi, measured.cpu_us, measured.vmhwm_kb)
        }
    };
    println!("{line}");
}

fn parse_sessions(args: &[String]) -> sessions::SessionArgs {
    let (mut addr, mut pid, mut count, mut conns, mut warm, mut tags) = (None, None, 10_000, 16, 100, Vec::new());
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--addr" => addr = Some(value(&mut it, "--addr IP:PORT")),
            "--pid" => pid = Some(value(&mut it, "--pid PID")),
            "--count" => count = value(&mut it, "--count N"),
            "--conns" => conns = value(&mut it, "--conns N"),
            "--warm" => warm = value(&mut it, "--warm N"),
            tag if is_tag(tag) => tags.push(tag.to_owned()),
            other => usage(&format!("a known argument, not {other:?}")),
        }
    }
    sessions::SessionArgs {
        addr: addr.unwrap_or_else(|| usage("--addr")),
        pid: pid.unwrap_or_else(|| usage("--pid")),
        count,
        conns,
        warm,
        tags,
    }
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

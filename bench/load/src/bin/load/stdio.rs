//! The stdio side: the server as a child process with piped stdin/stdout, one task on a current-thread
//! runtime writing requests and reading answers, `inflight` ops outstanding at once (1: one request at a
//! time). Answers are matched to requests by id and checked like HTTP's; a line that answers nothing sent
//! (a notification, an unknown id) is an error.
//!
//! Writes go through a `BufWriter`, flushed when no further complete answer is already buffered: with one
//! in flight every request leaves at once; with 64, the requests prompted by one read leave in one write
//! — the same rule as the stdio floor.

use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::net::unix::pipe;

use crate::measure::{CpuSampler, Tally, Window, status_kb};
use crate::reply;
use crate::scenario::{self, Op, Scenario};

/// How long the load waits for any answer before it calls the server stuck.
const STUCK: Duration = Duration::from_secs(10);

/// What a stdio run measured.
pub struct Measured {
    pub window: Window,
    pub tally: Tally,
    pub cpu_us: Option<u64>,
    pub vmhwm_kb: Option<u64>,
}

/// Spawns `command` (a program and its arguments, split on whitespace), runs `inflight` ops of `scenario`
/// over its stdio for `warmup + duration`, then closes its stdin and waits for it to exit (SIGKILL after 3 s).
pub fn run(command: &str, scenario: Scenario, inflight: usize, warmup: Duration, duration: Duration) -> Measured {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    runtime.block_on(async {
        let mut words = command.split_whitespace();
        let program = words.next().unwrap_or_else(|| crate::usage("--server-cmd \"PROGRAM [ARGS]\""));
        let spawned = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map(Reaped);
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => {
                let mut tally = Tally::default();
                tally.error(format!("spawn {program}: {e}"));
                return Measured { window: Window::new(warmup, duration), tally, cpu_us: None, vmhwm_kb: None };
            }
        };
        let pid = Some(child.0.id());
        let window = Window::new(warmup, duration);
        let sampler = CpuSampler::start(pid, window);
        let stdin = OwnedFd::from(child.0.stdin.take().expect("piped stdin"));
        let stdout = OwnedFd::from(child.0.stdout.take().expect("piped stdout"));
        let stdin = pipe::Sender::from_owned_fd(stdin).expect("a pipe to the server");
        let stdout = pipe::Receiver::from_owned_fd(stdout).expect("a pipe from the server");
        let stdin = BufWriter::with_capacity(64 * 1024, stdin);
        let stdout = BufReader::with_capacity(64 * 1024, stdout);
        let mut pipe = Pipe { stdin, stdout, line: Vec::with_capacity(4096) };
        let mut tally = Tally::default();
        if let Err(why) = drive(&mut pipe, scenario, inflight, &window, &mut tally).await {
            tally.error(why);
        }
        let vmhwm_kb = pid.and_then(|pid| status_kb(pid, "VmHWM"));
        let cpu_us = sampler.finish();
        drop(pipe); // end of input: the server shuts down
        stop(&mut child).await;
        Measured { window, tally, cpu_us, vmhwm_kb }
    })
}

struct Pipe {
    stdin: BufWriter<pipe::Sender>,
    stdout: BufReader<pipe::Receiver>,
    line: Vec<u8>,
}

impl Pipe {
    async fn send(&mut self, body: &str) -> Result<(), String> {
        self.stdin.write_all(body.as_bytes()).await.map_err(|e| format!("write to the server: {e}"))?;
        self.stdin.write_all(b"\n").await.map_err(|e| format!("write to the server: {e}"))
    }

    async fn flush(&mut self) -> Result<(), String> {
        self.stdin.flush().await.map_err(|e| format!("write to the server: {e}"))
    }

    /// The next line the server wrote (without its newline).
    async fn next_line(&mut self) -> Result<&[u8], String> {
        self.line.clear();
        match tokio::time::timeout(STUCK, self.stdout.read_until(b'\n', &mut self.line)).await {
            Err(_) => Err(format!("no answer within {} s", STUCK.as_secs())),
            Ok(Err(e)) => Err(format!("read from the server: {e}")),
            Ok(Ok(0)) => Err("the server closed stdout (exited?)".to_owned()),
            Ok(Ok(_)) => Ok(self.line.strip_suffix(b"\n").unwrap_or(&self.line)),
        }
    }

    /// Whether a complete line is already buffered (then reading it does not wait for the server).
    fn line_ready(&self) -> bool {
        self.stdout.buffer().contains(&b'\n')
    }
}

/// One outstanding op.
struct Slot {
    op: Op,
    started: Instant,
    sent: Instant,
}

/// The handshake if the scenario has one, then ops until the window ends; then the answers still owed.
async fn drive(
    pipe: &mut Pipe,
    scenario: Scenario,
    inflight: usize,
    window: &Window,
    tally: &mut Tally,
) -> Result<(), String> {
    if scenario.legacy() {
        pipe.send(&scenario::initialize()).await?;
        pipe.flush().await?;
        let answer = reply::parse(pipe.next_line().await?)?;
        if answer.id() != Some(0) {
            return Err(format!("initialize: an answer to another id: {answer:?}"));
        }
        scenario::check_initialize(&answer)?;
        pipe.send(scenario::INITIALIZED).await?;
    }
    let mut next_id: i64 = 0;
    let mut seq = 0;
    let mut slots: Vec<Slot> = Vec::with_capacity(inflight);
    // Request id → slot.
    let mut pending: HashMap<i64, usize> = HashMap::with_capacity(inflight * 2);
    let now = Instant::now();
    for index in 0..inflight {
        seq += 1;
        let op = Op::new(scenario, index as u64, seq);
        next_id += 1;
        pipe.send(&op.request(next_id).body).await?;
        pending.insert(next_id, index);
        slots.push(Slot { op, started: now, sent: now });
    }
    pipe.flush().await?;
    while !pending.is_empty() {
        let line = pipe.next_line().await?;
        let done = Instant::now();
        let answer = match reply::parse(line) {
            Ok(answer) => answer,
            Err(why) => {
                tally.error(why);
                continue;
            }
        };
        let Some(index) = answer.id().and_then(|id| pending.remove(&id)) else {
            tally.error(format!("an answer to nothing sent: {}", reply::excerpt(line)));
            continue;
        };
        let slot = &mut slots[index];
        let next_round = match slot.op.check(answer) {
            Ok(finished) => {
                tally.answered(window, slot.sent, done);
                if finished && scenario.rounds() > 1 {
                    tally.op_done(window, slot.started, done);
                }
                !finished
            }
            Err(why) => {
                tally.error(why);
                false
            }
        };
        if done < window.until {
            if !next_round {
                seq += 1;
                slot.op = Op::new(scenario, index as u64, seq);
                slot.started = done;
            }
            next_id += 1;
            slot.sent = done;
            pipe.send(&slot.op.request(next_id).body).await?;
            pending.insert(next_id, index);
        }
        if !pipe.line_ready() {
            pipe.flush().await?;
        }
    }
    Ok(())
}

/// The server's process, killed and reaped if it is dropped still running (`stop` gave up on it, or a panic).
///
/// `std::process` and tokio's pipes rather than `tokio::process`: tokio's `process` feature would give every
/// runtime in this crate's binaries, the servers measured too, tokio's SIGCHLD driver, which takes two global
/// locks (its orphan queue's) each time a worker parks. No production server of either kind pays that, and
/// the two servers did not pay it alike (`perf`: 1.25 % of fastmcp's samples at stdio one at a time, 0.17 %
/// of the floor's).
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Waits up to 3 s for the child to exit after its stdin closed; past that, dropping it kills it.
async fn stop(child: &mut Reaped) {
    let deadline = Instant::now() + Duration::from_secs(3);
    while matches!(child.0.try_wait(), Ok(None)) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

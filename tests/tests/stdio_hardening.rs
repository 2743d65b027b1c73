//! stdio under abuse, against a real server process (`src/bin/hardened_stdio.rs`): batches bounded in size,
//! requests bounded in number per connection (waiting, never dropped, never deadlocking a handler that
//! asks the client), reply lines bounded like inbound ones, and memory that settles after a burst.
//!
//! These tests read raw lines, so each can check what is on the wire byte for byte (a line's length).

use serde_json::{Value, json};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Generous: the CI machine is small and shared.
const TIMEOUT: Duration = Duration::from_secs(60);

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl Server {
    fn spawn(env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hardened_stdio"))
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn the hardened server");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Self { child, stdin, stdout }
    }

    async fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
        stdin.flush().await.unwrap();
    }

    async fn send(&mut self, message: Value) {
        self.send_raw(&message.to_string()).await;
    }

    /// The next line the server writes, as is.
    async fn line(&mut self) -> String {
        tokio::time::timeout(TIMEOUT, self.stdout.next_line())
            .await
            .expect("the server answered in time")
            .expect("stdout readable")
            .expect("the server still runs")
    }

    async fn recv(&mut self) -> Value {
        let line = self.line().await;
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("a non-JSON line {line:?}: {e}"))
    }

    /// The legacy handshake at `version`, declaring `capabilities`.
    async fn initialize(&mut self, version: &str, capabilities: Value) {
        let params = json!({"protocolVersion": version, "capabilities": capabilities,
            "clientInfo": {"name": "stdio-hardening", "version": "0"}});
        self.send(json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": params})).await;
        let init = self.recv().await;
        assert_eq!(init["result"]["protocolVersion"], version, "{init}");
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    }

    /// Calls a tool and returns the whole response (the connection must carry nothing else meanwhile).
    async fn call(&mut self, id: &str, tool: &str, arguments: Value) -> Value {
        self.send(call(id, tool, arguments)).await;
        let reply = self.recv().await;
        assert_eq!(reply["id"], id, "{reply}");
        reply
    }

    async fn still_serves(&mut self) {
        self.send(json!({"jsonrpc": "2.0", "id": "ping", "method": "ping"})).await;
        assert_eq!(self.recv().await, json!({"jsonrpc": "2.0", "id": "ping", "result": {}}));
    }

    /// A `/proc/<pid>/status` figure (`VmRSS`, `VmHWM`), in KiB.
    fn memory(&self, field: &str) -> u64 {
        let pid = self.child.id().expect("the server runs");
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc readable");
        let line = status.lines().find(|l| l.starts_with(field)).unwrap_or_else(|| panic!("no {field}"));
        line.split_whitespace().nth(1).and_then(|kb| kb.parse().ok()).expect("a number of kB")
    }

    async fn close(mut self) {
        drop(self.stdin.take());
        let status = tokio::time::timeout(TIMEOUT, self.child.wait()).await.expect("exits at EOF").unwrap();
        assert!(status.success(), "{status}");
    }
}

fn call(id: &str, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
}

fn text(reply: &Value) -> &str {
    reply["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {reply}"))
}

fn error(reply: &Value) -> (i64, &str) {
    let e = &reply["error"];
    (e["code"].as_i64().unwrap_or_else(|| panic!("not an error: {reply}")), e["message"].as_str().unwrap())
}

fn batch(entries: impl IntoIterator<Item = Value>) -> String {
    Value::Array(entries.into_iter().collect()).to_string()
}

#[tokio::test]
async fn an_oversized_batch_is_refused_whole_and_nothing_in_it_runs() {
    let mut s = Server::spawn(&[("HARDENED_MAX_BATCH", "10")]);
    s.initialize("2025-03-26", json!({})).await;
    s.send_raw(&batch((0..11).map(|i| call(&format!("g{i}"), "gauge", json!({"ms": 0}))))).await;
    let refused = s.recv().await;
    assert!(refused.is_object(), "one error, not an array of them: {refused}");
    assert_eq!(refused["id"], Value::Null);
    let (code, message) = error(&refused);
    assert_eq!(code, -32600);
    assert!(message.contains("more than 10 entries") && message.contains("max_batch_size"), "{message}");
    assert_eq!(text(&s.call("p", "peak", json!({})).await), "0", "no entry of the refused batch ran");

    s.send_raw(&batch((0..10).map(|i| call(&format!("g{i}"), "gauge", json!({"ms": 0}))))).await;
    let replies = s.recv().await;
    let replies = replies.as_array().expect("a batch at the limit is served");
    assert_eq!(replies.len(), 10);
    assert!(replies.iter().all(|r| text(r) == "slept 0ms"), "{replies:?}");
    s.still_serves().await;
    s.close().await;
}

#[tokio::test]
async fn the_default_batch_limit_refuses_the_probes_batch() {
    let mut s = Server::spawn(&[]);
    s.initialize("2025-03-26", json!({})).await;
    // The outside probe's batch: 100 000 entries in 200 KB.
    s.send_raw(&format!("[{}1]", "1,".repeat(99_999))).await;
    let refused = s.recv().await;
    let (code, message) = error(&refused);
    assert_eq!(code, -32600);
    assert!(message.contains("more than 1000 entries"), "{message}");
    s.still_serves().await;
    s.close().await;
}

#[tokio::test]
async fn past_the_cap_requests_wait_and_all_complete() {
    let mut s = Server::spawn(&[("HARDENED_MAX_IN_FLIGHT", "3")]);
    s.initialize("2025-11-25", json!({})).await;
    // 3 run, 3 wait in the queue, the rest wait in the pipe.
    let ids: Vec<String> = (0..10).map(|i| format!("c{i}")).collect();
    for id in &ids {
        s.send(call(id, "gauge", json!({"ms": 300}))).await;
    }
    let mut answered = Vec::new();
    for _ in &ids {
        let reply = s.recv().await;
        assert_eq!(text(&reply), "slept 300ms", "{reply}");
        answered.push(reply["id"].as_str().unwrap().to_owned());
    }
    answered.sort();
    let mut want = ids.clone();
    want.sort();
    assert_eq!(answered, want, "every request answered once, none dropped");
    let peak: usize = text(&s.call("p", "peak", json!({})).await).parse().unwrap();
    assert!((2..=3).contains(&peak), "at most 3 ran at once (and they did run concurrently): {peak}");
    s.close().await;
}

/// A client that writes far ahead and reads in spurts, so replies back up while slots free and fill: every
/// request is answered. (A request the reader ran itself and had to hand on, holding its slot, once queued
/// behind one waiting for a slot: both waited for ever.)
#[tokio::test]
async fn a_client_reading_in_spurts_gets_every_answer() {
    let mut s = Server::spawn(&[("HARDENED_MAX_IN_FLIGHT", "2")]);
    s.initialize("2025-11-25", json!({})).await;
    const CALLS: usize = 6_000;
    let mut stdin = s.stdin.take().unwrap();
    let writer = tokio::spawn(async move {
        for i in 0..CALLS {
            let line = call(&format!("s{i}"), "echo", json!({"text": "z".repeat(200)})).to_string();
            stdin.write_all(line.as_bytes()).await.unwrap();
            stdin.write_all(b"\n").await.unwrap();
        }
        stdin.flush().await.unwrap();
        stdin
    });
    let mut answered = vec![false; CALLS];
    for n in 0..CALLS {
        if n % 700 == 0 {
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        let reply = s.recv().await;
        let i: usize = reply["id"].as_str().and_then(|id| id.strip_prefix('s')?.parse().ok()).expect("an id");
        assert_eq!(text(&reply).len(), 200, "{reply}");
        assert!(!std::mem::replace(&mut answered[i], true), "answered twice: {reply}");
    }
    s.stdin = Some(writer.await.unwrap());
    s.still_serves().await;
    s.close().await;
}

#[tokio::test]
async fn batch_entries_count_against_the_cap() {
    let mut s = Server::spawn(&[("HARDENED_MAX_IN_FLIGHT", "2")]);
    s.initialize("2025-03-26", json!({})).await;
    s.send_raw(&batch((0..6).map(|i| call(&format!("b{i}"), "gauge", json!({"ms": 300}))))).await;
    let replies = s.recv().await;
    let replies = replies.as_array().expect("an array");
    assert_eq!(replies.len(), 6, "every entry answered: {replies:?}");
    assert!(replies.iter().all(|r| text(r) == "slept 300ms"));
    let peak: usize = text(&s.call("p", "peak", json!({})).await).parse().unwrap();
    assert!(peak <= 2, "at most 2 entries ran at once: {peak}");
    s.close().await;
}

#[tokio::test]
async fn at_a_cap_of_one_a_handler_asking_the_client_gets_its_answer() {
    let mut s = Server::spawn(&[("HARDENED_MAX_IN_FLIGHT", "1")]);
    s.initialize("2025-11-25", json!({"elicitation": {}})).await;
    s.send(call("ask", "ask_name", json!({}))).await;
    // Waits for the one slot, which `ask` holds until the client answers.
    s.send(call("after", "gauge", json!({"ms": 0}))).await;
    let asked = s.recv().await;
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    s.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"name": "Ada"}}}))
        .await;
    let first = s.recv().await;
    assert_eq!((first["id"].as_str(), text(&first)), (Some("ask"), "Hello, Ada!"), "{first}");
    let second = s.recv().await;
    assert_eq!((second["id"].as_str(), text(&second)), (Some("after"), "slept 0ms"), "{second}");
    s.close().await;
}

#[tokio::test]
async fn at_a_cap_of_one_a_cancellation_frees_the_slot() {
    let mut s = Server::spawn(&[("HARDENED_MAX_IN_FLIGHT", "1")]);
    s.initialize("2025-11-25", json!({})).await;
    s.send(call("slow", "gauge", json!({"ms": 600_000}))).await;
    s.send(json!({"jsonrpc": "2.0", "id": "waiting", "method": "ping"})).await;
    s.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "slow"}})).await;
    // The cancelled call gets no reply; the ping that waited for its slot does.
    assert_eq!(s.recv().await, json!({"jsonrpc": "2.0", "id": "waiting", "result": {}}));
    s.close().await;
}

/// A request whose id is in flight already ends the one before it, whether it waits for a slot (cap 1) or
/// runs at once (cap 2). Either way the slot the first held frees: the last request gets one.
#[tokio::test]
async fn a_reused_id_ends_the_request_in_flight_with_it() {
    for cap in ["1", "2"] {
        let mut s = Server::spawn(&[("HARDENED_MAX_IN_FLIGHT", cap)]);
        s.initialize("2025-11-25", json!({})).await;
        s.send(call("dup", "gauge", json!({"ms": 600_000}))).await;
        s.send(call("dup", "gauge", json!({"ms": 0}))).await;
        let second = s.recv().await;
        assert_eq!((second["id"].as_str(), text(&second)), (Some("dup"), "slept 0ms"), "cap {cap}: {second}");
        if cap == "2" {
            // Holds the slot the first call would still hold if it ran on.
            s.send(call("long", "gauge", json!({"ms": 600_000}))).await;
        }
        s.still_serves().await;
        // (With `long` running, the server would wait out its grace period at end of input: killed instead.)
        if cap == "1" {
            s.close().await;
        }
    }
}

#[tokio::test]
async fn a_reply_over_the_limit_becomes_an_error_for_its_id() {
    let mut s = Server::spawn(&[("HARDENED_MAX_REPLY_BYTES", "4096")]);
    s.initialize("2025-11-25", json!({})).await;
    s.send(call("big", "blob", json!({"bytes": 10_000}))).await;
    let line = s.line().await;
    assert!(line.len() <= 4096, "{} bytes", line.len());
    let reply: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(reply["id"], "big");
    let (code, message) = error(&reply);
    assert_eq!(code, -32603);
    assert!(message.contains("too large") && message.contains("4096 bytes"), "{message}");
    let small = s.call("small", "blob", json!({"bytes": 3_000})).await;
    assert_eq!(text(&small).len(), 3_000, "a reply under the limit is sent whole");
    s.still_serves().await;
    s.close().await;
}

#[tokio::test]
async fn a_batch_reply_stays_under_the_limit() {
    let mut s = Server::spawn(&[("HARDENED_MAX_REPLY_BYTES", "4096")]);
    s.initialize("2025-03-26", json!({})).await;
    // Each fits alone; together they do not, so the ones that would overflow become errors.
    s.send_raw(&batch((0..3).map(|i| call(&format!("b{i}"), "blob", json!({"bytes": 1_500}))))).await;
    let line = s.line().await;
    assert!(line.len() <= 4096, "{} bytes", line.len());
    let replies: Value = serde_json::from_str(&line).unwrap();
    let replies = replies.as_array().expect("an array");
    assert_eq!(replies.len(), 3, "every entry answered: {replies:?}");
    let sent = replies.iter().filter(|r| r.get("result").is_some()).count();
    assert_eq!(sent, 2, "two fit, the third does not: {replies:?}");
    let over = replies.iter().find(|r| r.get("error").is_some()).unwrap();
    let (code, message) = error(over);
    assert_eq!(code, -32603);
    assert!(message.contains("4096 bytes") && message.contains("batch"), "{message}");

    // 100 entries that are no requests: even their errors do not fit, so one error answers the batch.
    s.send_raw(&batch((0..100).map(|_| json!(1)))).await;
    let line = s.line().await;
    assert!(line.len() <= 4096, "{} bytes", line.len());
    let reply: Value = serde_json::from_str(&line).unwrap();
    let (code, message) = error(&reply);
    assert_eq!(code, -32603);
    assert!(message.contains("of them did not fit"), "{message}");
    s.still_serves().await;
    s.close().await;
}

/// Memory before, at the peak of (`VmHWM`) and after a burst of `lines`, written while the replies are
/// read as a fast client would, in KiB. Each line is a request or a batch; every reply is checked.
async fn burst(s: &mut Server, lines: Vec<String>) -> (u64, u64, u64) {
    s.still_serves().await;
    let before = s.memory("VmRSS");
    let expected = lines.len();
    let mut stdin = s.stdin.take().unwrap();
    let writer = tokio::spawn(async move {
        for line in lines {
            stdin.write_all(line.as_bytes()).await.unwrap();
            stdin.write_all(b"\n").await.unwrap();
        }
        stdin.flush().await.unwrap();
        stdin
    });
    for _ in 0..expected {
        let reply = s.recv().await;
        for reply in reply.as_array().cloned().unwrap_or_else(|| vec![reply]) {
            assert!(reply.get("result").is_some(), "{reply}");
        }
    }
    s.stdin = Some(writer.await.unwrap());
    s.still_serves().await;
    let peak = s.memory("VmHWM");
    // Freed memory goes back to the allocator at once, to the OS as the allocator sees fit: give it a moment.
    let mut after = s.memory("VmRSS");
    for _ in 0..20 {
        if after <= before + 16 * 1024 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        after = s.memory("VmRSS");
    }
    eprintln!("VmRSS before {before} KiB, peak (VmHWM) {peak} KiB, after {after} KiB");
    (before, peak, after)
}

const MIB: u64 = 1024;

/// At the default limits: 40 batches of 1 000 calls, then 20 000 single calls.
#[tokio::test]
async fn memory_settles_after_a_burst() {
    let mut s = Server::spawn(&[]);
    s.initialize("2025-03-26", json!({})).await;
    let echo = |id: String| call(&id, "echo", json!({"text": "y".repeat(100)}));
    let mut lines: Vec<String> = (0..40).map(|b| batch((0..1_000).map(|i| echo(format!("{b}-{i}"))))).collect();
    lines.extend((0..20_000).map(|i| echo(format!("line-{i}")).to_string()));
    let (before, peak, after) = burst(&mut s, lines).await;
    // Measured: 11 MiB before, 16 MiB peak, 15 MiB after.
    assert!(peak <= before + 64 * MIB, "peak {peak} KiB from {before} KiB");
    assert!(after <= before + 32 * MIB, "after {after} KiB from {before} KiB");
    s.close().await;
}

/// The batch limit lifted far past its default: entries still run a slot at a time and replies are
/// gathered as bytes, so three 4 MB batches of 90 000 entries stay bounded. Before the hardening, when
/// every entry ran at once and every reply was kept as a value, they peaked at 629 MiB and 406 MiB stayed.
#[tokio::test]
async fn memory_stays_bounded_for_huge_batches() {
    let mut s = Server::spawn(&[("HARDENED_MAX_BATCH", "100000")]);
    s.initialize("2025-03-26", json!({})).await;
    let ping = |i: usize| json!({"jsonrpc": "2.0", "id": i, "method": "ping"});
    let lines = (0..3).map(|b| batch((0..90_000).map(|i| ping(b * 90_000 + i)))).collect();
    let (before, peak, after) = burst(&mut s, lines).await;
    // Measured: 11 MiB before, 123 MiB peak (two batches parsed, ~400 bytes an entry: one running, one
    // queued), 56 MiB after. The bounds leave room for a busier allocator, and still fail the unbounded
    // 629/406.
    assert!(peak <= before + 320 * MIB, "peak {peak} KiB from {before} KiB");
    assert!(after <= before + 192 * MIB, "after {after} KiB from {before} KiB");
    s.close().await;
}

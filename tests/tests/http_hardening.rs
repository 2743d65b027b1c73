//! fastmcp's own HTTP server under attack and load, over real sockets against the `hardened` binary (its
//! limits set from the environment): slow or silent clients are cut by the timeouts, connections and
//! long-lived streams are capped (in total and per client), so are each client's requests in flight and
//! legacy sessions, running out of file descriptors backs off
//! instead of spinning, SIGTERM has a deadline, oversized bodies are refused before they are sent, and
//! malformed `Host`/`Origin`/`:authority` are refused. After each, the server still serves a normal request.

use fastmcp_tests::{TIMEOUT, modern_meta, send_http};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpSocket, TcpStream};
use tokio::process::{Child, Command};

const BIN: &str = env!("CARGO_BIN_EXE_hardened_http");

const LOCAL: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);
const OTHER: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 2));
const THIRD: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 3));

/// The headers of a modern request (`tools/call` unless `method` says otherwise).
fn modern_headers(method: &str) -> Vec<(&str, &str)> {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
    ];
    if method == "tools/call" {
        headers.push(("Mcp-Name", "echo"));
    }
    headers
}

fn echo_body(text: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": text}, "_meta": modern_meta(json!({}))}})
    .to_string()
}

/// The headers and body of a modern call to `tool`, which takes no arguments.
fn call(tool: &'static str, id: u64) -> (Vec<(&'static str, &'static str)>, String) {
    let mut headers = modern_headers("tools/call");
    headers.retain(|(name, _)| *name != "Mcp-Name");
    headers.push(("Mcp-Name", tool));
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": modern_meta(json!({}))}});
    (headers, body.to_string())
}

fn listen_body(id: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": {"_meta": modern_meta(json!({})), "notifications": {"toolsListChanged": true}}})
    .to_string()
}

/// The `hardened` server as a child process, with every line of its stderr kept.
struct Server {
    child: Child,
    addr: SocketAddr,
    log: Arc<Mutex<Vec<String>>>,
}

impl Server {
    async fn spawn(env: &[(&str, &str)]) -> Self {
        Self::start(Command::new(BIN), env).await
    }

    /// Started by `sh` with at most `nofile` open file descriptors.
    async fn spawn_with_nofile(nofile: u32, env: &[(&str, &str)]) -> Self {
        let mut command = Command::new("sh");
        command.args(["-c", &format!("ulimit -n {nofile} && exec \"$0\""), BIN]);
        Self::start(command, env).await
    }

    async fn start(mut command: Command, env: &[(&str, &str)]) -> Self {
        let mut child = command
            .envs(env.iter().copied())
            .env("RUST_LOG", "info")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the server starts");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = tokio::sync::oneshot::channel();
        let kept = log.clone();
        tokio::spawn(async move {
            let mut tx = Some(tx);
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(rest) = line.split("serving MCP on http://").nth(1)
                    && let Some(tx) = tx.take()
                {
                    let _ =
                        tx.send(rest.split('/').next().unwrap_or_default().parse::<SocketAddr>().expect("an address"));
                }
                kept.lock().unwrap().push(line);
            }
        });
        let addr = tokio::time::timeout(TIMEOUT, rx).await.expect("the server started in time").expect("it says where");
        Self { child, addr, log }
    }

    fn pid(&self) -> u32 {
        self.child.id().expect("running")
    }

    fn log_lines(&self, needle: &str) -> usize {
        self.log.lock().unwrap().iter().filter(|l| l.contains(needle)).count()
    }

    /// Waits for a line of stderr (the only sign of what the server is doing inside).
    async fn wait_for_log(&self, needle: &str) {
        let start = Instant::now();
        while self.log_lines(needle) == 0 {
            assert!(start.elapsed() < TIMEOUT, "no {needle:?} in the log: {:?}", self.log.lock().unwrap());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// A normal request is served.
    async fn serves(&self) {
        let reply = send_http(self.addr, "POST", "/mcp", &modern_headers("tools/call"), &echo_body("still here")).await;
        assert_eq!(reply.status, 200, "{reply:?}");
        assert_eq!(reply.json()["result"]["content"][0]["text"], "still here", "{reply:?}");
    }

    fn host(&self) -> String {
        self.addr.to_string()
    }

    /// Sends SIGTERM and returns how long the server took to exit, and how.
    async fn terminate(mut self) -> (Duration, std::process::ExitStatus) {
        let sent = std::process::Command::new("kill").args(["-TERM", &self.pid().to_string()]).status().unwrap();
        assert!(sent.success());
        let start = Instant::now();
        let status = tokio::time::timeout(TIMEOUT, self.child.wait()).await.expect("the server exits in time").unwrap();
        (start.elapsed(), status)
    }
}

/// A connection to `to` from the loopback address `from` (the whole 127/8 is the loopback on Linux).
async fn connect_from(from: IpAddr, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(from, 0)).unwrap();
    tokio::time::timeout(TIMEOUT, socket.connect(to)).await.expect("connected in time").expect("connect")
}

/// A request head: these headers, with `Host` first when given, and `Content-Length` when `length` is.
fn head(method: &str, target: &str, host: Option<&str>, headers: &[(&str, &str)], length: Option<usize>) -> String {
    let mut head = format!("{method} {target} HTTP/1.1\r\n");
    if let Some(host) = host {
        head.push_str(&format!("Host: {host}\r\n"));
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(length) = length {
        head.push_str(&format!("Content-Length: {length}\r\n"));
    }
    head.push_str("\r\n");
    head
}

/// A response as read off a raw connection: status, headers, and the body when it has a length.
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {self:?}"))
    }
}

/// Reads one response head, and its body if it has a `Content-Length` (a stream's body is left unread).
async fn read_reply(stream: &mut TcpStream) -> Reply {
    let mut raw = Vec::new();
    let mut byte = [0u8; 1];
    while !raw.ends_with(b"\r\n\r\n") {
        let n = stream.read(&mut byte).await.expect("readable");
        assert!(n == 1, "the connection closed before a response head: {:?}", String::from_utf8_lossy(&raw));
        raw.push(byte[0]);
    }
    let text = String::from_utf8(raw).unwrap();
    let mut lines = text.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned())).collect();
    let length =
        headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("content-length")).map(|(_, v)| v.parse().unwrap());
    let mut body = vec![0; length.unwrap_or(0)];
    stream.read_exact(&mut body).await.expect("the whole body");
    Reply { status, headers, body: String::from_utf8(body).unwrap() }
}

async fn reply_in_time(stream: &mut TcpStream) -> Reply {
    tokio::time::timeout(TIMEOUT, read_reply(stream)).await.expect("answered in time")
}

/// Waits for the server to close `stream`, returning what it sent first.
async fn closed(stream: &mut TcpStream) -> Vec<u8> {
    let mut rest = Vec::new();
    let read = tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut rest)).await.expect("closed in time");
    // A reset is a close too.
    let _ = read;
    rest
}

/// One complete request sent on a fresh connection from `from`, its answer left unread.
async fn send_from(from: IpAddr, to: SocketAddr, method: &str, headers: &[(&str, &str)], body: &str) -> TcpStream {
    let mut stream = connect_from(from, to).await;
    let host = to.to_string();
    let request = head(method, "/mcp", Some(&host), headers, Some(body.len()));
    stream.write_all(request.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    stream
}

/// One complete request on a fresh connection from `from`.
async fn request_from(
    from: IpAddr,
    to: SocketAddr,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (TcpStream, Reply) {
    let mut stream = send_from(from, to, method, headers, body).await;
    let reply = reply_in_time(&mut stream).await;
    (stream, reply)
}

/// Trickles a request's head on `stream`, a byte every 100 ms (about 6 s in all), and asserts that the
/// server cuts it after a 1 s header read timeout, sending nothing or a 408.
async fn a_trickled_head_is_cut(stream: &mut TcpStream, host: &str) {
    let start = Instant::now();
    let request = head("POST", "/mcp", Some(host), &modern_headers("tools/call"), Some(10));
    let (mut read, mut write) = stream.split();
    let trickle = async {
        for byte in request.as_bytes() {
            if write.write_all(&[*byte]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let mut sent = Vec::new();
    let wait = async { tokio::time::timeout(TIMEOUT, read.read_to_end(&mut sent)).await.expect("closed in time") };
    tokio::select! {
        _ = wait => {}
        () = trickle => panic!("the whole head went through: the slow client was not cut"),
    }
    let cut = start.elapsed();
    assert!(cut >= Duration::from_millis(900), "cut after the timeout, not before: {cut:?}");
    let sent = String::from_utf8_lossy(&sent);
    assert!(sent.is_empty() || sent.starts_with("HTTP/1.1 408"), "nothing, or a 408: {sent:?}");
}

/// An HTTP/1.1 connection that has had one request answered and is kept alive.
async fn kept_alive(s: &Server) -> TcpStream {
    let body = echo_body("once");
    let (kept, reply) = request_from(LOCAL, s.addr, "POST", &modern_headers("tools/call"), &body).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(reply.header("connection"), None, "kept alive: {reply:?}");
    kept
}

#[tokio::test]
async fn slow_and_silent_clients_are_cut_after_the_header_read_timeout() {
    let s = Server::spawn(&[("HARDENED_HEADER_MS", "1000"), ("HARDENED_IDLE_MS", "60000")]).await;
    let mut slow = connect_from(LOCAL, s.addr).await;
    a_trickled_head_is_cut(&mut slow, &s.host()).await;

    // A client that connects and sends nothing.
    let mut silent = connect_from(LOCAL, s.addr).await;
    let start = Instant::now();
    assert!(closed(&mut silent).await.is_empty());
    assert!(start.elapsed() >= Duration::from_millis(900), "{:?}", start.elapsed());
    s.serves().await;
}

#[tokio::test]
async fn a_kept_alive_connection_that_trickles_its_next_head_is_cut_after_the_header_read_timeout() {
    // The idle timeout is a minute: only the header read timeout can cut the second head.
    let s = Server::spawn(&[("HARDENED_HEADER_MS", "1000"), ("HARDENED_IDLE_MS", "60000")]).await;
    let mut kept = kept_alive(&s).await;
    a_trickled_head_is_cut(&mut kept, &s.host()).await;
    s.serves().await;
}

#[tokio::test]
async fn a_slow_body_is_answered_408_after_the_body_read_timeout() {
    let s = Server::spawn(&[("HARDENED_BODY_MS", "1000")]).await;
    let mut stream = connect_from(LOCAL, s.addr).await;
    let body = echo_body("slow");
    let request = head("POST", "/mcp", Some(&s.host()), &modern_headers("tools/call"), Some(body.len()));
    let start = Instant::now();
    stream.write_all(request.as_bytes()).await.unwrap();
    // A third of the body, then nothing.
    stream.write_all(&body.as_bytes()[..body.len() / 3]).await.unwrap();
    let reply = reply_in_time(&mut stream).await;
    assert!(start.elapsed() >= Duration::from_millis(900), "{:?}", start.elapsed());
    assert_eq!(reply.status, 408, "{reply:?}");
    let message = reply.json()["error"]["message"].as_str().unwrap().to_owned();
    assert!(message.contains("HttpOptions::body_read_timeout"), "{message}");
    closed(&mut stream).await;
    s.serves().await;
}

#[tokio::test]
async fn idle_connections_are_closed_after_the_idle_timeout() {
    let s = Server::spawn(&[("HARDENED_IDLE_MS", "1000"), ("HARDENED_HEADER_MS", "60000")]).await;
    // HTTP/1.1 keep-alive: one request, then nothing.
    let mut kept = kept_alive(&s).await;
    let start = Instant::now();
    assert!(closed(&mut kept).await.is_empty());
    assert!(start.elapsed() >= Duration::from_millis(900), "{:?}", start.elapsed());

    // HTTP/2: one request, then nothing; the server ends the connection (GOAWAY), and the client's
    // connection future completes.
    let (mut sender, conn) = h2_connect(s.addr).await;
    let conn = tokio::spawn(conn);
    let (status, body) = h2_send(&mut sender, &format!("http://{}/mcp", s.addr), &[]).await;
    assert_eq!(status, 200, "{body}");
    let start = Instant::now();
    let _ = tokio::time::timeout(TIMEOUT, conn).await.expect("the server closed the idle h2 connection");
    assert!(start.elapsed() >= Duration::from_millis(900), "{:?}", start.elapsed());
    s.serves().await;
}

/// utime + stime of a process, in clock ticks (USER_HZ, 100 a second on Linux).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the server's /proc stat");
    let fields: Vec<&str> = stat.rsplit_once(')').expect("(comm)").1.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

#[tokio::test]
async fn out_of_file_descriptors_the_accept_loop_backs_off_and_recovers() {
    let s = Server::spawn_with_nofile(64, &[]).await;
    s.serves().await;
    // More connections than the server has descriptors for; the kernel queues the rest in the backlog.
    let mut held = Vec::new();
    for _ in 0..100 {
        held.push(connect_from(LOCAL, s.addr).await);
    }
    s.wait_for_log("accept failed").await;
    let failing_since = Instant::now();
    let before = cpu_ticks(s.pid());
    tokio::time::sleep(Duration::from_secs(2)).await;
    let used = cpu_ticks(s.pid()) - before;
    // A spinning loop uses a whole core: 200 ticks in 2 s.
    assert!(used < 40, "the server used {used} ticks of CPU in 2 s while out of descriptors");
    let lines = s.log_lines("accept failed");
    let allowed = 2 + failing_since.elapsed().as_secs() as usize;
    assert!(lines <= allowed, "{lines} accept lines in {:?} (at most one a second)", failing_since.elapsed());
    assert!(
        s.log.lock().unwrap().iter().any(|l| l.contains("Too many open files")),
        "the line says why: {:?}",
        s.log.lock().unwrap()
    );
    drop(held);
    s.serves().await;
}

#[tokio::test]
async fn sigterm_with_half_sent_requests_exits_by_the_shutdown_deadline() {
    let s = Server::spawn(&[
        ("HARDENED_GRACE_MS", "1000"),
        ("HARDENED_HEADER_MS", "60000"),
        ("HARDENED_BODY_MS", "60000"),
        ("HARDENED_IDLE_MS", "60000"),
    ])
    .await;
    // Half a head on one connection, a whole head and half a body on another.
    let mut half_head = connect_from(LOCAL, s.addr).await;
    half_head.write_all(format!("POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-", s.host()).as_bytes()).await.unwrap();
    let mut half_body = connect_from(LOCAL, s.addr).await;
    let body = echo_body("never finished");
    let request = head("POST", "/mcp", Some(&s.host()), &modern_headers("tools/call"), Some(body.len()));
    half_body.write_all(request.as_bytes()).await.unwrap();
    half_body.write_all(&body.as_bytes()[..10]).await.unwrap();
    // Served after both were accepted (one accept loop, in order).
    s.serves().await;

    let log = s.log.clone();
    let (took, status) = s.terminate().await;
    assert!(status.success(), "{status}");
    assert!(took >= Duration::from_millis(900), "the requests had the grace to finish: {took:?}");
    assert!(took < Duration::from_secs(10), "exited by the deadline (1 s) plus slack: {took:?}");
    assert!(
        log.lock().unwrap().iter().any(|l| l.contains("still open after the shutdown grace")),
        "{:?}",
        log.lock().unwrap()
    );
    closed(&mut half_head).await;
    closed(&mut half_body).await;
}

#[tokio::test]
async fn sigterm_closes_a_connection_that_has_sent_nothing_at_once() {
    let s = Server::spawn(&[("HARDENED_GRACE_MS", "5000"), ("HARDENED_HEADER_MS", "60000")]).await;
    let mut silent = connect_from(LOCAL, s.addr).await;
    s.serves().await;
    let log = s.log.clone();
    let (took, status) = s.terminate().await;
    assert!(status.success(), "{status}");
    assert!(took < Duration::from_secs(3), "no request to wait for, so no grace waited out: {took:?}");
    assert!(!log.lock().unwrap().iter().any(|l| l.contains("still open after the shutdown grace")));
    assert!(closed(&mut silent).await.is_empty());
}

#[tokio::test]
async fn at_the_connection_cap_a_new_connection_waits_and_is_served_when_one_closes() {
    let s = Server::spawn(&[("HARDENED_MAX_CONNECTIONS", "2")]).await;
    let first = connect_from(LOCAL, s.addr).await;
    let _second = connect_from(OTHER, s.addr).await;
    let mut third = connect_from(THIRD, s.addr).await;
    let body = echo_body("waited");
    let mut headers = modern_headers("tools/call");
    headers.push(("Connection", "close"));
    third.write_all(head("POST", "/mcp", Some(&s.host()), &headers, Some(body.len())).as_bytes()).await.unwrap();
    third.write_all(body.as_bytes()).await.unwrap();
    let early = tokio::time::timeout(Duration::from_secs(1), read_reply(&mut third)).await;
    assert!(early.is_err(), "not served (nor refused) while two connections are open: {early:?}");
    drop(first);
    let reply = reply_in_time(&mut third).await;
    assert_eq!(reply.status, 200, "served once a place was free: {reply:?}");
    assert_eq!(reply.json()["result"]["content"][0]["text"], "waited");
    s.serves().await;
}

#[tokio::test]
async fn one_client_gets_its_share_of_connections_and_others_are_still_served() {
    let s = Server::spawn(&[("HARDENED_PER_CLIENT", "2")]).await;
    let first = connect_from(LOCAL, s.addr).await;
    let _second = connect_from(LOCAL, s.addr).await;
    let body = echo_body("hi");
    let (_, refused) = request_from(LOCAL, s.addr, "POST", &modern_headers("tools/call"), &body).await;
    assert_eq!(refused.status, 429, "{refused:?}");
    assert!(refused.header("retry-after").is_some(), "{refused:?}");
    let message = refused.json()["error"]["message"].as_str().unwrap().to_owned();
    assert!(message.contains("too many connections from this client (limit 2"), "{message}");
    let (_, other) = request_from(OTHER, s.addr, "POST", &modern_headers("tools/call"), &body).await;
    assert_eq!(other.status, 200, "another client is served: {other:?}");

    // Once the client closes one, it is served again (as soon as the server has seen the close).
    drop(first);
    let start = Instant::now();
    loop {
        let (_, reply) = request_from(LOCAL, s.addr, "POST", &modern_headers("tools/call"), &body).await;
        if reply.status == 200 {
            break;
        }
        assert_eq!(reply.status, 429, "{reply:?}");
        assert!(start.elapsed() < TIMEOUT, "still refused after one connection closed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn expect_100_continue_with_a_content_length_over_the_cap_is_refused_before_the_body() {
    let s = Server::spawn(&[]).await;
    let mut stream = connect_from(LOCAL, s.addr).await;
    let mut headers = modern_headers("tools/call");
    headers.push(("Expect", "100-continue"));
    let request = head("POST", "/mcp", Some(&s.host()), &headers, Some(1_000_000_000));
    stream.write_all(request.as_bytes()).await.unwrap();
    let reply = reply_in_time(&mut stream).await;
    assert_eq!(reply.status, 413, "refused at once, no 100 Continue: {reply:?}");
    let message = reply.json()["error"]["message"].as_str().unwrap().to_owned();
    assert!(message.contains("max_message_bytes"), "{message}");
    s.serves().await;
}

#[tokio::test]
async fn long_lived_streams_are_capped_per_client_and_in_total() {
    let s = Server::spawn(&[("HARDENED_MAX_STREAMS", "3"), ("HARDENED_STREAMS_PER_CLIENT", "2")]).await;
    let listen = modern_headers("subscriptions/listen");
    let mut open = Vec::new();
    for id in ["a1", "a2"] {
        let (stream, reply) = request_from(LOCAL, s.addr, "POST", &listen, &listen_body(id)).await;
        assert_eq!(reply.status, 200, "{reply:?}");
        assert_eq!(reply.header("content-type"), Some("text/event-stream"));
        open.push(stream);
    }
    let (_, refused) = request_from(LOCAL, s.addr, "POST", &listen, &listen_body("a3")).await;
    assert_eq!(refused.status, 429, "{refused:?}");
    assert!(refused.header("retry-after").is_some(), "{refused:?}");
    let error = refused.json();
    assert_eq!(error["id"], "a3", "a JSON-RPC error for the request: {error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("too many open streams for this client (limit 2"), "{message}");

    // A legacy GET stream counts against the same share.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
        "capabilities": {}, "clientInfo": {"name": "fastmcp-tests", "version": "0.0.0"}}});
    let post = [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
    let (_, initialized) = request_from(LOCAL, s.addr, "POST", &post, &init.to_string()).await;
    let session = initialized.header("mcp-session-id").expect("a session").to_owned();
    let get =
        [("Accept", "text/event-stream"), ("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let (_, refused) = request_from(LOCAL, s.addr, "GET", &get, "").await;
    assert_eq!(refused.status, 429, "{refused:?}");

    // Another client has its own share, up to the server's total.
    let (third, reply) = request_from(OTHER, s.addr, "POST", &listen, &listen_body("b1")).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    open.push(third);
    let (_, full) = request_from(THIRD, s.addr, "POST", &listen, &listen_body("c1")).await;
    assert_eq!(full.status, 503, "{full:?}");
    assert!(full.header("retry-after").is_some(), "{full:?}");
    let message = full.json()["error"]["message"].as_str().unwrap().to_owned();
    assert!(message.contains("too many open streams on this server (limit 3"), "{message}");
    s.serves().await;

    // A stream that ends gives its place back: the GET stream is served now.
    drop(open.remove(0));
    let start = Instant::now();
    loop {
        let (_stream, reply) = request_from(LOCAL, s.addr, "GET", &get, "").await;
        if reply.status == 200 {
            break;
        }
        // Until the server has seen the close, the server is full.
        assert_eq!(reply.status, 503, "{reply:?}");
        assert!(start.elapsed() < TIMEOUT, "still refused after a stream closed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A refusal over a per-client quota: 429, `Retry-After`, and a JSON-RPC error for request `id` naming the
/// limit.
fn assert_over_quota(reply: &Reply, id: Value, names: &str) {
    assert_eq!(reply.status, 429, "{reply:?}");
    assert!(reply.header("retry-after").is_some(), "{reply:?}");
    let error = reply.json();
    assert_eq!(error["id"], id, "a JSON-RPC error for the request: {error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains(names), "{message}");
}

#[tokio::test]
async fn one_client_gets_its_share_of_requests_in_flight_and_others_are_still_served() {
    let s = Server::spawn(&[("HARDENED_REQUESTS_PER_CLIENT", "2")]).await;
    let echo = modern_headers("tools/call");
    // Subscriptions are long-lived streams, capped by their own share: they take none of these places.
    let listen = modern_headers("subscriptions/listen");
    let mut subscriptions = Vec::new();
    for id in ["l1", "l2"] {
        let (stream, reply) = request_from(LOCAL, s.addr, "POST", &listen, &listen_body(id)).await;
        assert_eq!(reply.status, 200, "{reply:?}");
        subscriptions.push(stream);
    }
    let (_, reply) = request_from(LOCAL, s.addr, "POST", &echo, &echo_body("beside subscriptions")).await;
    assert_eq!(reply.status, 200, "subscriptions are not requests in flight: {reply:?}");

    // Two calls in flight: the client has its share.
    let (hold, body) = call("hold", 7);
    let mut held = Vec::new();
    for _ in 0..2 {
        held.push(send_from(LOCAL, s.addr, "POST", &hold, &body).await);
    }
    let start = Instant::now();
    while s.log_lines("hold: waiting for release") < 2 {
        assert!(start.elapsed() < TIMEOUT, "the two calls are not in flight: {:?}", s.log.lock().unwrap());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (_, refused) = request_from(LOCAL, s.addr, "POST", &echo, &echo_body("a third")).await;
    assert_over_quota(
        &refused,
        json!(1),
        "too many requests in flight for this client (limit 2, HttpOptions::max_requests_per_client)",
    );
    // Another client has its own share: served, and it lets the held calls answer.
    let (_, other) = request_from(OTHER, s.addr, "POST", &echo, &echo_body("other")).await;
    assert_eq!(other.status, 200, "another client is served: {other:?}");
    let (release, body) = call("release", 8);
    let (_, released) = request_from(OTHER, s.addr, "POST", &release, &body).await;
    assert_eq!(released.status, 200, "{released:?}");
    for stream in &mut held {
        let reply = reply_in_time(stream).await;
        assert_eq!(reply.status, 200, "{reply:?}");
        assert_eq!(reply.json()["result"]["content"][0]["text"], "released", "{reply:?}");
    }

    // Its calls answered, the client is served again (once the server has dropped their bodies).
    let start = Instant::now();
    loop {
        let (_, reply) = request_from(LOCAL, s.addr, "POST", &echo, &echo_body("again")).await;
        if reply.status == 200 {
            break;
        }
        assert_eq!(reply.status, 429, "{reply:?}");
        assert!(start.elapsed() < TIMEOUT, "still refused after its calls were answered");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(subscriptions);
}

const LEGACY_POST: [(&str, &str); 2] =
    [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];

fn initialize_body(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
        "capabilities": {}, "clientInfo": {"name": "fastmcp-tests", "version": "0.0.0"}}})
    .to_string()
}

/// `initialize` from `from`: the reply, and the session it opened if it did.
async fn initialize_from(from: IpAddr, to: SocketAddr, id: u64) -> (Reply, Option<String>) {
    let (_, reply) = request_from(from, to, "POST", &LEGACY_POST, &initialize_body(id)).await;
    let session = reply.header("mcp-session-id").map(str::to_owned);
    (reply, session)
}

#[tokio::test]
async fn one_client_gets_its_share_of_sessions_and_ending_one_gives_its_place_back() {
    let s = Server::spawn(&[("HARDENED_SESSIONS_PER_CLIENT", "2")]).await;
    let mut sessions = Vec::new();
    for id in [1, 2] {
        let (reply, session) = initialize_from(LOCAL, s.addr, id).await;
        assert_eq!(reply.status, 200, "{reply:?}");
        sessions.push(session.expect("a session"));
    }
    let (refused, session) = initialize_from(LOCAL, s.addr, 3).await;
    assert_over_quota(
        &refused,
        json!(3),
        "too many sessions for this client (limit 2, HttpOptions::max_sessions_per_client)",
    );
    assert_eq!(session, None, "no session opened: {refused:?}");
    let (other, session) = initialize_from(OTHER, s.addr, 4).await;
    assert_eq!(other.status, 200, "another client opens one: {other:?}");
    assert!(session.is_some(), "{other:?}");
    // Ending one of its sessions frees a place.
    let first = sessions.remove(0);
    let delete = [("Mcp-Session-Id", first.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let (_, deleted) = request_from(LOCAL, s.addr, "DELETE", &delete, "").await;
    assert_eq!(deleted.status, 200, "{deleted:?}");
    let (reply, session) = initialize_from(LOCAL, s.addr, 5).await;
    assert_eq!(reply.status, 200, "the ended session gave its place back: {reply:?}");
    assert!(session.is_some(), "{reply:?}");
    let (refused, _) = initialize_from(LOCAL, s.addr, 6).await;
    assert_eq!(refused.status, 429, "at its share again: {refused:?}");
    s.serves().await;
}

#[tokio::test]
async fn an_idle_session_gives_its_place_in_its_clients_share_back() {
    let s = Server::spawn(&[("HARDENED_SESSIONS_PER_CLIENT", "1"), ("HARDENED_SESSION_IDLE_MS", "1000")]).await;
    let (reply, _) = initialize_from(LOCAL, s.addr, 1).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let (refused, _) = initialize_from(LOCAL, s.addr, 2).await;
    assert_eq!(refused.status, 429, "{refused:?}");
    let start = Instant::now();
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let (reply, _) = initialize_from(LOCAL, s.addr, 3).await;
        if reply.status == 200 {
            break;
        }
        assert_eq!(reply.status, 429, "{reply:?}");
        assert!(start.elapsed() < TIMEOUT, "still refused after the session's idle timeout");
    }
    assert!(start.elapsed() >= Duration::from_millis(800), "reaped when idle, not before: {:?}", start.elapsed());
}

#[tokio::test]
async fn malformed_or_foreign_host_and_origin_are_refused() {
    let s = Server::spawn(&[]).await;
    let host = s.host();
    let port = s.addr.port();
    let bracketed = format!("[::1]evil:{port}");
    let extra_port = format!("{host}:1");
    let userinfo = format!("user@{host}");
    let foreign = format!("evil.com:{port}");
    let rebinding = format!("localhost.evil.com:{port}");
    // (target, Host headers, Origin, expected status)
    let absolute = "http://evil.com/mcp".to_owned();
    let cases: Vec<(&str, Vec<&str>, Option<&str>, u16)> = vec![
        ("/mcp", vec![host.as_str()], None, 200),
        ("/mcp", vec!["localhost"], Some("http://localhost:3000"), 200),
        ("/mcp", vec![], None, 400),
        ("/mcp", vec![host.as_str(), host.as_str()], None, 400),
        ("/mcp", vec![bracketed.as_str()], None, 400),
        ("/mcp", vec![extra_port.as_str()], None, 400),
        ("/mcp", vec![userinfo.as_str()], None, 400),
        (absolute.as_str(), vec![host.as_str()], None, 400),
        ("/mcp", vec![foreign.as_str()], None, 403),
        ("/mcp", vec![rebinding.as_str()], None, 403),
        ("/mcp", vec![host.as_str()], Some("http://evil.com"), 403),
        ("/mcp", vec![host.as_str()], Some("null"), 403),
        ("/mcp", vec![host.as_str()], Some("http://[::1]evil"), 403),
    ];
    let body = echo_body("hi");
    for (target, hosts, origin, expected) in cases {
        let mut stream = connect_from(LOCAL, s.addr).await;
        let mut headers = modern_headers("tools/call");
        headers.extend(hosts.iter().map(|h| ("Host", *h)));
        if let Some(origin) = origin {
            headers.push(("Origin", origin));
        }
        headers.push(("Connection", "close"));
        stream.write_all(head("POST", target, None, &headers, Some(body.len())).as_bytes()).await.unwrap();
        stream.write_all(body.as_bytes()).await.unwrap();
        let reply = reply_in_time(&mut stream).await;
        assert_eq!(reply.status, expected, "{target} Host {hosts:?} Origin {origin:?}: {reply:?}");
        if expected != 200 {
            assert!(reply.json()["error"]["message"].is_string(), "a JSON-RPC error: {reply:?}");
        }
    }
    s.serves().await;
}

type H2Body = http_body_util::Full<hyper::body::Bytes>;

/// An HTTP/2 connection (h2c, prior knowledge): its request sender and the connection future to drive.
async fn h2_connect(
    addr: SocketAddr,
) -> (
    hyper::client::conn::http2::SendRequest<H2Body>,
    hyper::client::conn::http2::Connection<hyper_util::rt::TokioIo<TcpStream>, H2Body, hyper_util::rt::TokioExecutor>,
) {
    let io = hyper_util::rt::TokioIo::new(connect_from(LOCAL, addr).await);
    hyper::client::conn::http2::handshake(hyper_util::rt::TokioExecutor::new(), io).await.expect("h2c")
}

/// One modern `echo` call to `uri` (its authority is the `:authority`), with these headers.
async fn h2_send(
    sender: &mut hyper::client::conn::http2::SendRequest<H2Body>,
    uri: &str,
    extra: &[(&str, &str)],
) -> (u16, String) {
    let mut request = hyper::Request::post(uri);
    for (k, v) in modern_headers("tools/call").iter().chain(extra) {
        request = request.header(*k, *v);
    }
    let body = H2Body::new(hyper::body::Bytes::from(echo_body("over h2")));
    let response = tokio::time::timeout(TIMEOUT, sender.send_request(request.body(body).unwrap()))
        .await
        .expect("answered in time")
        .expect("a response");
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.expect("the body").to_bytes();
    (status, String::from_utf8(body.to_vec()).unwrap())
}

#[tokio::test]
async fn an_h2_connection_has_at_most_max_concurrent_streams_requests_in_flight() {
    let s = Server::spawn(&[("HARDENED_H2_STREAMS", "1")]).await;
    let (mut sender, conn) = h2_connect(s.addr).await;
    tokio::spawn(conn);
    let uri = format!("http://{}/mcp", s.addr);
    let mut listen = hyper::Request::post(&uri);
    for (k, v) in modern_headers("subscriptions/listen") {
        listen = listen.header(k, v);
    }
    let listen = listen.body(H2Body::new(hyper::body::Bytes::from(listen_body("h2")))).unwrap();
    let subscription = tokio::time::timeout(TIMEOUT, sender.send_request(listen)).await.unwrap().unwrap();
    assert_eq!(subscription.status(), 200);
    // The subscription holds the connection's one stream: a second request waits for it.
    let mut second = sender.clone();
    let call = tokio::spawn(async move { h2_send(&mut second, &uri, &[]).await });
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(!call.is_finished(), "a second request in flight beside the subscription");
    drop(subscription);
    let (status, body) = tokio::time::timeout(TIMEOUT, call).await.expect("served once the stream closed").unwrap();
    assert_eq!(status, 200, "{body}");
    s.serves().await;
}

/// A socket whose first `skip` bytes written were sent already, by hand: hyper's client writes them again,
/// and they are dropped.
struct Sent {
    stream: TcpStream,
    skip: usize,
}

impl tokio::io::AsyncRead for Sent {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Sent {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        if self.skip > 0 {
            let n = self.skip.min(buf.len());
            self.skip -= n;
            return std::task::Poll::Ready(Ok(n));
        }
        std::pin::Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[tokio::test]
async fn a_connection_whose_first_bytes_leave_its_protocol_in_doubt_is_served() {
    // The server peeks a connection's first bytes to pick HTTP/1.1 or HTTP/2; a first segment that is
    // still a prefix of the HTTP/2 preface could be either, and is told apart once more has come.
    let s = Server::spawn(&[]).await;
    let pause = Duration::from_millis(300);

    // HTTP/1.1, its "P" alone (POST or PRI?), the rest after a pause.
    let mut http1 = connect_from(LOCAL, s.addr).await;
    let body = echo_body("in doubt, h1");
    let request = head("POST", "/mcp", Some(&s.host()), &modern_headers("tools/call"), Some(body.len()));
    http1.write_all(b"P").await.unwrap();
    tokio::time::sleep(pause).await;
    http1.write_all(format!("{}{body}", &request[1..]).as_bytes()).await.unwrap();
    let reply = reply_in_time(&mut http1).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert!(reply.body.contains("in doubt, h1"), "{reply:?}");

    // h2c with prior knowledge, the preface's first line alone, then hyper's client from its start.
    let mut stream = connect_from(LOCAL, s.addr).await;
    let line = b"PRI * HTTP/2.0\r\n";
    stream.write_all(line).await.unwrap();
    tokio::time::sleep(pause).await;
    let io = hyper_util::rt::TokioIo::new(Sent { stream, skip: line.len() });
    let (mut sender, conn) =
        hyper::client::conn::http2::handshake::<_, _, H2Body>(hyper_util::rt::TokioExecutor::new(), io)
            .await
            .expect("h2c");
    tokio::spawn(conn);
    let (status, body) = h2_send(&mut sender, &format!("http://{}/mcp", s.addr), &[]).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("over h2"), "{body}");
    s.serves().await;
}

/// One request on a fresh HTTP/2 connection.
async fn h2_request(addr: SocketAddr, uri: &str, extra: &[(&str, &str)]) -> (u16, String) {
    let (mut sender, conn) = h2_connect(addr).await;
    tokio::spawn(conn);
    h2_send(&mut sender, uri, extra).await
}

#[tokio::test]
async fn h2_authority_is_checked_like_host() {
    let s = Server::spawn(&[]).await;
    let port = s.addr.port();
    let (status, body) = h2_request(s.addr, &format!("http://{}/mcp", s.addr), &[]).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("over h2"), "{body}");
    let (status, body) = h2_request(s.addr, &format!("http://evil.com:{port}/mcp"), &[]).await;
    assert_eq!(status, 403, "a foreign :authority: {body}");
    let other = format!("localhost:{port}");
    let (status, body) = h2_request(s.addr, &format!("http://{}/mcp", s.addr), &[("Host", other.as_str())]).await;
    assert_eq!(status, 400, ":authority and Host disagree: {body}");
    s.serves().await;
}

#[tokio::test]
async fn legacy_calls_a_client_walked_away_from_keep_their_place_until_they_end() {
    let s = Server::spawn(&[("HARDENED_REQUESTS_PER_CLIENT", "2")]).await;
    let (reply, session) = initialize_from(LOCAL, s.addr, 1).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let session = session.expect("a session");
    let mut in_session = LEGACY_POST.to_vec();
    in_session.extend([("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")]);
    let hold = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "hold", "arguments": {}}})
            .to_string()
    };
    // Two calls, each left by its client as soon as it runs: a legacy call goes on without its client (it
    // may resume the stream), so each keeps its place in the client's quota.
    for id in [2, 3] {
        let stream = send_from(LOCAL, s.addr, "POST", &in_session, &hold(id)).await;
        let start = Instant::now();
        while s.log_lines("hold: waiting for release") < id as usize - 1 {
            assert!(start.elapsed() < TIMEOUT, "call {id} is not running");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        drop(stream);
    }
    let (_, refused) = request_from(LOCAL, s.addr, "POST", &in_session, &hold(4)).await;
    assert_over_quota(&refused, json!(4), "(limit 2, HttpOptions::max_requests_per_client)");

    // Once they end, their places are free again.
    let (release, body) = call("release", 5);
    let (_, released) = request_from(OTHER, s.addr, "POST", &release, &body).await;
    assert_eq!(released.status, 200, "{released:?}");
    let (echo, body) = (modern_headers("tools/call"), echo_body("after"));
    let start = Instant::now();
    loop {
        let (_, reply) = request_from(LOCAL, s.addr, "POST", &echo, &body).await;
        if reply.status == 200 {
            break;
        }
        assert_eq!(reply.status, 429, "{reply:?}");
        assert!(start.elapsed() < TIMEOUT, "still refused after the abandoned calls ended");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

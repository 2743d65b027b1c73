//! Test support: run a server binary as a child process and talk MCP to it over its stdin/stdout;
//! [`layers`], which reads the crates' module graphs for the layering check; [`oauth`], a real OAuth
//! authorization server for the authorization tests; and [`python`], Python's `mcp` SDK for foreign servers.

pub mod layers;
pub mod npm;
pub mod oauth;
pub mod python;
pub mod redis;

use serde_json::{Value, json};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// `target/`, from this test binary's path (`target/<profile>/deps/<test>`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    exe.ancestors().nth(3).expect("target/<profile>/deps/<test>").to_owned()
}

/// How long any one message may take before a test fails instead of hanging.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// The path of a `fastmcp-examples` binary, built once per test process with the same cargo and profile.
pub fn example_bin(name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = std::process::Command::new(cargo)
            .args(["build", "--quiet", "-p", "fastmcp-examples", "--bins"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the examples failed");
    });
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps");
    profile_dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// The modern per-request envelope, as a 2026-07-28 client sends it.
pub fn modern_meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "fastmcp-tests", "version": "0.0.0" },
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// An MCP client over a child process's stdio. Speaks raw JSON so tests see exactly what is on the wire.
pub struct StdioClient {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
    /// Messages read while waiting for another id.
    pending: VecDeque<Value>,
    next_id: i64,
}

impl StdioClient {
    pub fn spawn(path: PathBuf) -> Self {
        Self::spawn_with_env(path, &[])
    }

    pub fn spawn_with_env(path: PathBuf, env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(&path)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("RUST_LOG", "info")
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", path.display()));
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Self { child, stdin, stdout, pending: VecDeque::new(), next_id: 1 }
    }

    /// Writes one line as is.
    pub async fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
        stdin.flush().await.unwrap();
    }

    pub async fn send(&mut self, message: &Value) {
        self.send_raw(&message.to_string()).await;
    }

    /// The next message the server writes; every line must be one JSON value.
    pub async fn recv(&mut self) -> Value {
        if let Some(v) = self.pending.pop_front() {
            return v;
        }
        self.read_line().await
    }

    async fn read_line(&mut self) -> Value {
        let line = tokio::time::timeout(TIMEOUT, self.stdout.next_line())
            .await
            .expect("server answered in time")
            .expect("stdout readable")
            .expect("server still running");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout carried a non-JSON line {line:?}: {e}"))
    }

    /// The response with this id, keeping anything else that arrives first for later `recv`s.
    pub async fn response(&mut self, id: &Value) -> Value {
        if let Some(i) = self.pending.iter().position(|m| m.get("id") == Some(id)) {
            return self.pending.remove(i).unwrap();
        }
        loop {
            let msg = self.read_line().await;
            if msg.get("id") == Some(id) && (msg.get("result").is_some() || msg.get("error").is_some()) {
                return msg;
            }
            self.pending.push_back(msg);
        }
    }

    /// Waits for a notification with this method (keeping other messages for later).
    pub async fn notification(&mut self, method: &str) -> Value {
        if let Some(i) = self.pending.iter().position(|m| m.get("id").is_none() && m["method"] == method) {
            return self.pending.remove(i).unwrap();
        }
        loop {
            let msg = self.read_line().await;
            if msg.get("id").is_none() && msg["method"] == method {
                return msg;
            }
            self.pending.push_back(msg);
        }
    }

    /// The notifications that arrived (and were kept) while waiting for responses, removed from the queue.
    pub fn drain_notifications(&mut self) -> Vec<Value> {
        let (notes, rest): (Vec<Value>, Vec<Value>) =
            self.pending.drain(..).partition(|m| m.get("id").is_none() && m.get("method").is_some());
        self.pending.extend(rest);
        notes
    }

    /// Everything that arrived (and was kept) while waiting for other messages, removed from the queue.
    pub fn take_pending(&mut self) -> Vec<Value> {
        self.pending.drain(..).collect()
    }

    /// Sends a request with a fresh id and returns its whole response message.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = json!(self.next_id);
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })).await;
        self.response(&id).await
    }

    /// Sends a request and answers every server-to-client request that arrives before its response with
    /// `answer(request)`, which returns the result (or `Err(error object)`). Returns the final response and
    /// the server's requests in order.
    pub async fn request_answering(
        &mut self,
        method: &str,
        params: Value,
        mut answer: impl FnMut(&Value) -> Result<Value, Value>,
    ) -> (Value, Vec<Value>) {
        let id = json!(format!("call-{}", self.next_id));
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })).await;
        let mut asked = Vec::new();
        loop {
            let msg = self.recv().await;
            if msg.get("method").is_some() && msg.get("id").is_some() {
                let reply = match answer(&msg) {
                    Ok(result) => json!({ "jsonrpc": "2.0", "id": msg["id"], "result": result }),
                    Err(error) => json!({ "jsonrpc": "2.0", "id": msg["id"], "error": error }),
                };
                asked.push(msg);
                self.send(&reply).await;
            } else if msg.get("id") == Some(&id) {
                return (msg, asked);
            }
        }
    }

    /// A modern request: `extra` params plus the `_meta` envelope.
    pub async fn modern(&mut self, method: &str, mut params: Value) -> Value {
        params["_meta"] = modern_meta(json!({}));
        self.request(method, params).await
    }

    /// The legacy handshake; returns the `initialize` result.
    pub async fn initialize(&mut self, version: &str) -> Value {
        self.initialize_declaring(version, json!({})).await
    }

    /// The legacy handshake, declaring these client capabilities.
    pub async fn initialize_declaring(&mut self, version: &str, capabilities: Value) -> Value {
        let response = self.initialize_with(version, capabilities).await;
        self.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
        response["result"].clone()
    }

    /// Sends `initialize` and returns the whole response (result or error).
    pub async fn initialize_with(&mut self, version: &str, capabilities: Value) -> Value {
        let params = json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "clientInfo": { "name": "fastmcp-tests", "version": "0.0.0" },
        });
        self.request("initialize", params).await
    }

    /// Closes stdin first, then expects the response to request `id` to still arrive with this text.
    pub async fn close_after(mut self, id: &Value, text: &str) -> (ExitStatus, String) {
        drop(self.stdin.take());
        let response = self.response(id).await;
        assert_eq!(first_text(&response["result"]), text, "in-flight request finished after EOF");
        self.close().await
    }

    /// Closes stdin and waits for the server to exit on its own.
    pub async fn close(mut self) -> (ExitStatus, String) {
        drop(self.stdin.take());
        let status = tokio::time::timeout(TIMEOUT, self.child.wait()).await.expect("server exits at EOF").unwrap();
        let mut stderr = String::new();
        if let Some(mut err) = self.child.stderr.take() {
            use tokio::io::AsyncReadExt;
            err.read_to_string(&mut stderr).await.unwrap();
        }
        (status, stderr)
    }
}

/// The text of a `tools/call` result's first content block.
pub fn first_text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text content in {result}"))
}

/// A server binary serving Streamable HTTP on a free loopback port, and a minimal HTTP/1.1 client for it
/// that shows tests exactly what is on the wire (status, headers, body).
pub struct HttpServer {
    _child: Child,
    pub addr: std::net::SocketAddr,
}

/// One HTTP response.
#[derive(Debug)]
pub struct HttpReply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpReply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("body is not JSON ({e}): {:?}", self.body))
    }
}

impl HttpServer {
    /// Starts `path` with `FASTMCP_TRANSPORT=http` on port 0 and reads the bound address from its stderr.
    pub async fn spawn(path: PathBuf) -> Self {
        Self::spawn_with_env(path, &[]).await
    }

    pub async fn spawn_with_env(path: PathBuf, env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(&path)
            .envs(env.iter().copied())
            .env("FASTMCP_TRANSPORT", "http")
            .env("FASTMCP_PORT", "0")
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", path.display()));
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let addr = tokio::time::timeout(TIMEOUT, async {
            while let Some(line) = stderr.next_line().await.expect("stderr readable") {
                if let Some(rest) = line.split("serving MCP on http://").nth(1) {
                    let authority = rest.split('/').next().unwrap_or_default();
                    return authority.parse().expect("a socket address");
                }
            }
            panic!("the server exited before saying where it listens");
        })
        .await
        .expect("the server started in time");
        // Keep draining stderr so the server never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = stderr.next_line().await {} });
        Self { _child: child, addr }
    }

    /// The MCP endpoint's URL, for a client.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Sends one request to the MCP endpoint (`/mcp`) with these headers (plus Host and Content-Length) and
    /// reads the whole response.
    pub async fn send(&self, method: &str, headers: &[(&str, &str)], body: &str) -> HttpReply {
        self.send_to(method, "/mcp", headers, body).await
    }

    /// As [`send`](Self::send), to any path of the server.
    pub async fn send_to(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> HttpReply {
        send_http(self.addr, method, path, headers, body).await
    }

    /// A JSON POST with the headers every client sends.
    pub async fn post(&self, extra: &[(&str, &str)], body: &Value) -> HttpReply {
        let mut headers = vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
        headers.extend_from_slice(extra);
        self.send("POST", &headers, &body.to_string()).await
    }

    /// A modern request with its envelope and the standard headers derived from it.
    pub async fn modern(&self, id: i64, method: &str, params: Value) -> HttpReply {
        self.modern_declaring(id, method, params, json!({"elicitation": {}, "sampling": {}})).await
    }

    /// As [`modern`](Self::modern), declaring these client capabilities.
    pub async fn modern_declaring(&self, id: i64, method: &str, params: Value, capabilities: Value) -> HttpReply {
        self.modern_with(id, method, params, capabilities, &[]).await
    }

    /// As [`modern_declaring`](Self::modern_declaring), with extra headers (`Authorization`, say).
    pub async fn modern_with(
        &self,
        id: i64,
        method: &str,
        mut params: Value,
        capabilities: Value,
        extra: &[(&str, &str)],
    ) -> HttpReply {
        params["_meta"] = modern_meta(capabilities);
        let name = ["name", "uri", "taskId"].iter().find_map(|k| params.get(*k)).and_then(Value::as_str);
        let name = name.map(str::to_owned);
        let mut headers = vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", method)];
        if let Some(name) = name.as_deref() {
            headers.push(("Mcp-Name", name));
        }
        headers.extend_from_slice(extra);
        self.post(&headers, &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await
    }
}

/// Sends one HTTP/1.1 request to `addr` with these headers (plus Host, unless given, and Content-Length) and
/// reads the whole response.
pub async fn send_http(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> HttpReply {
    try_send_http(addr, method, path, headers, body).await.unwrap_or_else(|e| panic!("{method} {path}: {e}"))
}

/// As [`send_http`], failing with what went wrong instead of panicking (a server that may be down).
pub async fn try_send_http(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Result<HttpReply, String> {
    let stream = tokio::net::TcpStream::connect(addr).await.map_err(|e| format!("connect: {e}"))?;
    exchange(stream, addr, method, path, headers, body).await
}

/// As [`send_http`], from a connection bound to the loopback address `from` (`127.0.0.2`, say): another
/// client, to a server that tells clients apart by address.
pub async fn send_http_from(
    from: std::net::IpAddr,
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> HttpReply {
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    socket.bind((from, 0).into()).unwrap_or_else(|e| panic!("bind {from}: {e}"));
    let stream = socket.connect(addr).await.unwrap_or_else(|e| panic!("connect from {from}: {e}"));
    exchange(stream, addr, method, path, headers, body).await.unwrap_or_else(|e| panic!("{method} {path}: {e}"))
}

/// Sends one request on `stream` and reads the whole response.
async fn exchange(
    mut stream: tokio::net::TcpStream,
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Result<HttpReply, String> {
    use std::io::ErrorKind;
    use tokio::io::AsyncReadExt;
    let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    // A server may answer before it has read the whole body (413) and close: like curl, read the answer it
    // sent then, rather than failing on the write the close cut short.
    let sent = match stream.write_all(request.as_bytes()).await {
        Ok(()) => stream.write_all(body.as_bytes()).await,
        e => e,
    };
    match sent {
        Err(e) if !matches!(e.kind(), ErrorKind::BrokenPipe | ErrorKind::ConnectionReset) => {
            return Err(format!("write: {e}"));
        }
        _ => {}
    }
    let mut raw = Vec::new();
    let read = tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut raw))
        .await
        .map_err(|_| "not answered in time".to_owned())?;
    // The reset that follows such an early answer surfaces after the answer's bytes: keep them.
    match read {
        Err(e) if raw.is_empty() || e.kind() != ErrorKind::ConnectionReset => return Err(format!("read: {e}")),
        _ => {}
    }
    let text = String::from_utf8(raw).map_err(|_| "a response that is not UTF-8".to_owned())?;
    let (head, body) = text.split_once("\r\n\r\n").ok_or_else(|| format!("no header block in {text:?}"))?;
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status line in {head:?}"))?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect::<Vec<_>>();
    let chunked = headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked { dechunk(body) } else { body.to_owned() };
    Ok(HttpReply { status, headers, body })
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

impl HttpReply {
    /// The JSON-RPC messages of the body: the one JSON object, or each `data:` of an SSE stream in order.
    pub fn messages(&self) -> Vec<Value> {
        if self.header("content-type").is_some_and(|t| t.starts_with("text/event-stream")) {
            sse_data(&self.body).into_iter().map(|d| serde_json::from_str(&d).expect("SSE data is JSON")).collect()
        } else {
            vec![self.json()]
        }
    }

    /// The last message: the response to the request.
    pub fn response(&self) -> Value {
        self.messages().pop().expect("a response")
    }

    /// The last message, if the body holds one that parses: a stream cut short (its server killed, say)
    /// may hold none.
    pub fn try_response(&self) -> Option<Value> {
        if self.header("content-type").is_some_and(|t| t.starts_with("text/event-stream")) {
            sse_data(&self.body).pop().and_then(|d| serde_json::from_str(&d).ok())
        } else {
            serde_json::from_str(&self.body).ok()
        }
    }
}

fn sse_data(text: &str) -> Vec<String> {
    text.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim_start).collect();
            // A priming event (an id and empty data) carries no message.
            let data = data.join("\n");
            (!data.is_empty()).then_some(data)
        })
        .collect()
}

/// An SSE response read event by event while it is still open (to answer server-to-client requests).
pub struct SseStream {
    reader: BufReader<tokio::net::TcpStream>,
    buffer: String,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// The body is chunked (a stream); otherwise it was read whole into `buffer` and ends there.
    chunked: bool,
}

/// One SSE event block as sent: its fields, and any comment lines (`: keep-alive`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    pub id: Option<String>,
    pub retry: Option<u64>,
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`; `None` when the block had no `data:` line.
    pub data: Option<String>,
    /// Comment lines, without the leading `:` and one optional space.
    pub comments: Vec<String>,
}

impl SseEvent {
    fn parse(block: &str) -> Self {
        let mut event = SseEvent::default();
        let mut data: Vec<&str> = Vec::new();
        for line in block.lines() {
            if let Some(comment) = line.strip_prefix(':') {
                event.comments.push(comment.strip_prefix(' ').unwrap_or(comment).to_owned());
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "id" => event.id = Some(value.to_owned()),
                "retry" => event.retry = Some(value.parse().unwrap_or_else(|_| panic!("retry is a number: {line:?}"))),
                "event" => event.event = Some(value.to_owned()),
                "data" => data.push(value),
                other => panic!("unexpected SSE field {other:?} in {block:?}"),
            }
        }
        if !data.is_empty() {
            event.data = Some(data.join("\n"));
        }
        event
    }

    /// The JSON-RPC message this event carries (its data must be JSON).
    pub fn json(&self) -> Value {
        let data = self.data.as_deref().unwrap_or_else(|| panic!("no data in {self:?}"));
        serde_json::from_str(data).unwrap_or_else(|e| panic!("SSE data is not JSON ({e}): {data:?}"))
    }

    /// Carries a message (non-empty data), unlike a priming event or a comment.
    pub fn is_message(&self) -> bool {
        self.data.as_deref().is_some_and(|d| !d.is_empty())
    }

    /// The `(stream, sequence)` of an id of the form `<stream>-<seq>`.
    pub fn id_parts(&self) -> (u64, u64) {
        let id = self.id.as_deref().unwrap_or_else(|| panic!("no id on {self:?}"));
        let (stream, seq) = id.split_once('-').unwrap_or_else(|| panic!("id {id:?} is not <stream>-<seq>"));
        (stream.parse().expect("stream number"), seq.parse().expect("sequence number"))
    }
}

impl SseStream {
    /// The next message on the stream, or `None` when it ends (priming events and comments are skipped).
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            let event = self.next_event().await?;
            if event.is_message() {
                return Some(event.json());
            }
        }
    }

    /// The next message event (priming events and comments skipped), with its id.
    pub async fn next_message(&mut self) -> Option<SseEvent> {
        loop {
            let event = self.next_event().await?;
            if event.is_message() {
                return Some(event);
            }
        }
    }

    /// The next event block exactly as sent (a priming event, a message, or a comment), or `None` when the
    /// stream ends. Fails the test if nothing arrives within [`TIMEOUT`].
    pub async fn next_event(&mut self) -> Option<SseEvent> {
        self.next_event_within(TIMEOUT).await.expect("an SSE event in time")
    }

    /// Like [`next_event`](Self::next_event), but `Err(())` if nothing arrives within `wait`.
    pub async fn next_event_within(&mut self, wait: Duration) -> Result<Option<SseEvent>, ()> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let block = block.trim_end_matches('\n');
                if block.is_empty() {
                    continue;
                }
                return Ok(Some(SseEvent::parse(block)));
            }
            if !self.chunked {
                return Ok(None);
            }
            let mut size = String::new();
            let read = match tokio::time::timeout_at(deadline, self.reader.read_line(&mut size)).await {
                Err(_) => return Err(()),
                Ok(read) => read,
            };
            let Ok(read) = read else { return Ok(None) };
            if read == 0 {
                return Ok(None);
            }
            let Ok(size) = usize::from_str_radix(size.trim(), 16) else { return Ok(None) };
            if size == 0 {
                return Ok(None);
            }
            let mut chunk = vec![0; size + 2];
            use tokio::io::AsyncReadExt;
            let read = tokio::time::timeout(TIMEOUT, self.reader.read_exact(&mut chunk)).await.expect("in time");
            if read.is_err() {
                return Ok(None);
            }
            self.buffer.push_str(std::str::from_utf8(&chunk[..size]).expect("UTF-8"));
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The body of a response that is not a stream (an error), as JSON.
    pub fn json(&self) -> Value {
        assert!(!self.chunked, "a streamed body");
        serde_json::from_str(&self.buffer).unwrap_or_else(|e| panic!("body is not JSON ({e}): {:?}", self.buffer))
    }
}

impl HttpServer {
    /// POSTs a JSON body and returns the response as a stream to read event by event.
    pub async fn open(&self, extra: &[(&str, &str)], body: &Value) -> SseStream {
        let mut headers = vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
        headers.extend_from_slice(extra);
        self.stream("POST", &headers, &body.to_string()).await
    }

    /// A `GET` of the endpoint with `Accept: text/event-stream`, these headers added (a session's standalone
    /// stream, or with `Last-Event-ID` a resumed one), read event by event.
    pub async fn get(&self, extra: &[(&str, &str)]) -> SseStream {
        let mut headers = vec![("Accept", "text/event-stream")];
        headers.extend_from_slice(extra);
        self.stream("GET", &headers, "").await
    }

    /// Sends one request with exactly these headers (plus Host and Content-Length) and reads the response
    /// head; the body is then read event by event (a stream), or is already read whole (anything else).
    pub async fn stream(&self, method: &str, headers: &[(&str, &str)], body: &str) -> SseStream {
        let mut stream = tokio::net::TcpStream::connect(self.addr).await.expect("connect");
        let mut request =
            format!("{method} /mcp HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n", self.addr, body.len());
        for (k, v) in headers {
            request.push_str(&format!("{k}: {v}\r\n"));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        stream.write_all(body.as_bytes()).await.unwrap();
        let mut reader = BufReader::new(stream);
        let mut status_line = String::new();
        tokio::time::timeout(TIMEOUT, reader.read_line(&mut status_line)).await.expect("answered in time").unwrap();
        let status = status_line.split(' ').nth(1).expect("a status line").parse().unwrap();
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).await.unwrap();
            if line == "\r\n" || line.is_empty() {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                headers.push((k.trim().to_owned(), v.trim().to_owned()));
            }
        }
        let chunked = headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
        let mut buffer = String::new();
        if !chunked {
            use tokio::io::AsyncReadExt;
            let length = headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
                .map_or(0, |(_, v)| v.parse::<usize>().expect("a Content-Length"));
            let mut body = vec![0; length];
            tokio::time::timeout(TIMEOUT, reader.read_exact(&mut body)).await.expect("in time").unwrap();
            buffer = String::from_utf8(body).expect("UTF-8 body");
        }
        SseStream { reader, buffer, status, headers, chunked }
    }

    /// The legacy handshake over HTTP: `initialize` at `version` declaring `capabilities`, then
    /// `notifications/initialized`. Returns the session id.
    /// Sends the server SIGTERM and waits for it to exit on its own.
    pub async fn terminate(mut self) -> ExitStatus {
        let pid = self._child.id().expect("the server is running").to_string();
        let sent = std::process::Command::new("kill").args(["-TERM", &pid]).status().expect("kill runs");
        assert!(sent.success(), "SIGTERM was delivered");
        tokio::time::timeout(TIMEOUT, self._child.wait()).await.expect("the server exits in time").unwrap()
    }

    pub async fn legacy_session(&self, version: &str, capabilities: Value) -> String {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": capabilities,
            "clientInfo": {"name": "fastmcp-tests", "version": "0.0.0"}}});
        let reply = self.post(&[], &init).await;
        assert_eq!(reply.status, 200, "initialize: {reply:?}");
        assert_eq!(reply.json()["result"]["protocolVersion"], version, "{reply:?}");
        let session = reply.header("mcp-session-id").expect("a session id").to_owned();
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let ack = self.post(&[("Mcp-Session-Id", &session), ("MCP-Protocol-Version", version)], &note).await;
        assert_eq!(ack.status, 202, "{ack:?}");
        session
    }
}

/// A server built in the test process, serving Streamable HTTP on a free loopback port until dropped.
pub struct InProcess {
    pub url: String,
    pub addr: std::net::SocketAddr,
    task: tokio::task::JoinHandle<fastmcp::Result<()>>,
}

impl Drop for InProcess {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Serves `server` over HTTP in this process, on a listener bound before it returns: connections queue
/// until the server accepts them.
pub async fn serve_in_process(server: fastmcp::Server) -> InProcess {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move { server.serve_http_on(listener, fastmcp::HttpOptions::default()).await });
    InProcess { url: format!("http://{addr}/mcp"), addr, task }
}

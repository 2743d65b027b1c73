//! Test support: run a server binary as a child process and talk MCP to it over its stdin/stdout.

use serde_json::{Value, json};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

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

    /// Sends one request with these headers (plus Host and Content-Length) and reads the whole response.
    pub async fn send(&self, method: &str, headers: &[(&str, &str)], body: &str) -> HttpReply {
        use tokio::io::AsyncReadExt;
        let mut stream = tokio::net::TcpStream::connect(self.addr).await.expect("connect");
        let mut request = format!("{method} /mcp HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            request.push_str(&format!("Host: {}\r\n", self.addr));
        }
        for (k, v) in headers {
            request.push_str(&format!("{k}: {v}\r\n"));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        stream.write_all(body.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut raw)).await.expect("answered in time").unwrap();
        let text = String::from_utf8(raw).expect("UTF-8 response");
        let (head, body) = text.split_once("\r\n\r\n").expect("a header block");
        let mut lines = head.split("\r\n");
        let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
            .collect::<Vec<_>>();
        let chunked = headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
        let body = if chunked { dechunk(body) } else { body.to_owned() };
        HttpReply { status, headers, body }
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
    pub async fn modern_declaring(&self, id: i64, method: &str, mut params: Value, capabilities: Value) -> HttpReply {
        params["_meta"] = modern_meta(capabilities);
        let name = ["name", "uri", "taskId"].iter().find_map(|k| params.get(*k)).and_then(Value::as_str);
        let name = name.map(str::to_owned);
        let mut headers = vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", method)];
        if let Some(name) = name.as_deref() {
            headers.push(("Mcp-Name", name));
        }
        self.post(&headers, &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await
    }
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
}

fn sse_data(text: &str) -> Vec<String> {
    text.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim_start).collect();
            (!data.is_empty()).then(|| data.join("\n"))
        })
        .collect()
}

/// An SSE response read event by event while it is still open (to answer server-to-client requests).
pub struct SseStream {
    reader: BufReader<tokio::net::TcpStream>,
    buffer: String,
    pub status: u16,
}

impl SseStream {
    /// The next message on the stream, or `None` when it ends.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                if let Some(data) = sse_data(&event).pop() {
                    return Some(serde_json::from_str(&data).expect("SSE data is JSON"));
                }
                continue;
            }
            let mut size = String::new();
            let read = tokio::time::timeout(TIMEOUT, self.reader.read_line(&mut size)).await.expect("in time").ok()?;
            if read == 0 {
                return None;
            }
            let size = usize::from_str_radix(size.trim(), 16).ok()?;
            if size == 0 {
                return None;
            }
            let mut chunk = vec![0; size + 2];
            use tokio::io::AsyncReadExt;
            tokio::time::timeout(TIMEOUT, self.reader.read_exact(&mut chunk)).await.expect("in time").ok()?;
            self.buffer.push_str(std::str::from_utf8(&chunk[..size]).expect("UTF-8"));
        }
    }
}

impl HttpServer {
    /// POSTs a JSON body and returns the response as a stream to read event by event.
    pub async fn open(&self, extra: &[(&str, &str)], body: &Value) -> SseStream {
        let body = body.to_string();
        let mut stream = tokio::net::TcpStream::connect(self.addr).await.expect("connect");
        let mut request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, \
             text/event-stream\r\nContent-Length: {}\r\n",
            self.addr,
            body.len()
        );
        for (k, v) in extra {
            request.push_str(&format!("{k}: {v}\r\n"));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        stream.write_all(body.as_bytes()).await.unwrap();
        let mut reader = BufReader::new(stream);
        let mut status_line = String::new();
        reader.read_line(&mut status_line).await.unwrap();
        let status = status_line.split(' ').nth(1).unwrap().parse().unwrap();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).await.unwrap();
            if line == "\r\n" || line.is_empty() {
                break;
            }
        }
        SseStream { reader, buffer: String::new(), status }
    }
}

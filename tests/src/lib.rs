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

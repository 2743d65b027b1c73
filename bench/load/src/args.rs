//! The servers' command line. Every server binary takes the same flags, so `run.sh` starts them all alike
//! (an `EXTRA` build of `fastmcp_server` too), and the same runtime, so none gets more threads.

use std::net::SocketAddr;

/// Where a server serves.
#[derive(Debug, Clone, Copy)]
pub enum Listen {
    /// Streamable HTTP on 127.0.0.1, path `/mcp`.
    Http(SocketAddr),
    /// Newline-delimited JSON-RPC on stdin/stdout.
    Stdio,
}

/// `--port N` or `--stdio` (one of them), `--workers N` (default 2), `--stateless`, and for fastmcp the
/// session limits the idle-session measurement raises: `--max-sessions N`, `--max-sessions-per-client N`.
#[derive(Debug, Clone)]
pub struct ServerArgs {
    pub listen: Listen,
    pub workers: usize,
    /// Legacy requests without sessions (fastmcp `HttpOptions::sessions = false`; rmcp
    /// `legacy_session_mode = false` with `json_response = true`). HTTP only.
    pub stateless: bool,
    /// fastmcp's `FastMcp::max_sessions` (default 10 000).
    pub max_sessions: Option<usize>,
    /// fastmcp's `HttpOptions::max_sessions_per_client` (default 64).
    pub max_sessions_per_client: Option<usize>,
}

impl ServerArgs {
    pub fn parse() -> Self {
        let mut port = None;
        let mut stdio = false;
        let mut workers = 2;
        let mut stateless = false;
        let mut max_sessions = None;
        let mut max_sessions_per_client = None;
        let mut args = std::env::args().skip(1);
        let number = |flag: &str, args: &mut dyn Iterator<Item = String>| -> usize {
            args.next().and_then(|n| n.parse().ok()).unwrap_or_else(|| usage(&format!("{flag} needs a number")))
        };
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--port" => port = Some(number("--port", &mut args)),
                "--stdio" => stdio = true,
                "--workers" => workers = number("--workers", &mut args).max(1),
                "--stateless" => stateless = true,
                "--max-sessions" => max_sessions = Some(number("--max-sessions", &mut args)),
                "--max-sessions-per-client" => {
                    max_sessions_per_client = Some(number("--max-sessions-per-client", &mut args))
                }
                other => usage(&format!("unknown argument {other:?}")),
            }
        }
        let listen = match (port, stdio) {
            (Some(port), false) => {
                let port = u16::try_from(port).unwrap_or_else(|_| usage("--port must be a port number"));
                Listen::Http(SocketAddr::from(([127, 0, 0, 1], port)))
            }
            (None, true) => Listen::Stdio,
            _ => usage("one of --port N and --stdio is required"),
        };
        Self { listen, workers, stateless, max_sessions, max_sessions_per_client }
    }

    /// For servers without session limits to set: refuses the flags rather than ignoring them, so a
    /// measurement never silently runs with limits it did not get.
    pub fn refuse_session_limits(&self, server: &str) {
        if self.max_sessions.is_some() || self.max_sessions_per_client.is_some() {
            usage(&format!("{server} has no session limits to set (--max-sessions*, fastmcp_server only)"));
        }
    }

    /// The runtime every server runs on.
    pub fn runtime(&self) -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(self.workers)
            .enable_all()
            .build()
            .expect("a tokio runtime")
    }
}

fn usage(why: &str) -> ! {
    eprintln!(
        "{why}\nusage: SERVER (--port N | --stdio) [--workers N] [--stateless] [--max-sessions N] \
         [--max-sessions-per-client N]"
    );
    std::process::exit(2)
}

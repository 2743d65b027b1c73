//! What the benchmark servers share, so that they differ only in the MCP framework (or, for the bare-hyper
//! floor, in having none): the command line, the tokio runtime (multi-thread, same worker count), the log
//! level (warn) and the tool's text.

use std::net::SocketAddr;

/// The servers' command line: `--port N` (required), `--workers N` (default 2), `--stateless`.
#[derive(Debug, Clone)]
pub struct ServerArgs {
    pub addr: SocketAddr,
    pub workers: usize,
    /// Legacy requests without sessions (fastmcp `HttpOptions::sessions = false`; rmcp
    /// `legacy_session_mode = false` with `json_response = true`).
    pub stateless: bool,
}

impl ServerArgs {
    pub fn parse() -> Self {
        let mut port = None;
        let mut workers = 2;
        let mut stateless = false;
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--port" => port = args.next().and_then(|p| p.parse::<u16>().ok()),
                "--workers" => workers = args.next().and_then(|w| w.parse().ok()).unwrap_or(workers),
                "--stateless" => stateless = true,
                other => usage(&format!("unknown argument {other:?}")),
            }
        }
        let Some(port) = port else { usage("--port is required") };
        Self { addr: SocketAddr::from(([127, 0, 0, 1], port)), workers, stateless }
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
    eprintln!("{why}\nusage: SERVER --port N [--workers N] [--stateless]");
    std::process::exit(2)
}

/// Logs to stderr at `warn` unless `RUST_LOG` says otherwise; installed before the framework's own.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter(filter).try_init();
}

/// The tool's answer, the same text from every server: `a + b = c`.
pub fn add_text(a: i64, b: i64) -> String {
    format!("{a} + {b} = {}", a.wrapping_add(b))
}

//! What the benchmark's servers and its load generator share, so that the servers differ only in the MCP
//! framework (or, for the floors, in having none):
//!
//! - [`args`]: the servers' command line and runtime (multi-thread tokio, the same worker count);
//! - [`floor`]: the floors' request handling (parse, check, serialize), one copy for HTTP and stdio;
//! - [`deploy`]: the texts of the `deploy` flow (the MRTR cell), so servers and checks agree to the byte;
//! - [`add_text`]: the `add` tool's answer.

pub mod args;
pub mod deploy;
pub mod floor;

pub use args::{Listen, ServerArgs};

/// The protocol revision of the modern (stateless) era.
pub const MODERN: &str = "2026-07-28";
/// The legacy (session) revision the load speaks.
pub const LEGACY: &str = "2025-11-25";

/// Logs to stderr at `warn` unless `RUST_LOG` says otherwise; installed before the framework's own. On stdio,
/// stdout carries only protocol messages.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter(filter).try_init();
}

/// The `add` tool's answer, the same text from every server: `a + b = c`.
pub fn add_text(a: i64, b: i64) -> String {
    format!("{a} + {b} = {}", a.wrapping_add(b))
}

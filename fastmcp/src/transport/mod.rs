//! Transports: bytes in, bytes out. They frame messages and know nothing of methods or eras.

pub mod http;
mod lines;
pub(crate) mod stdio;

use std::io::IsTerminal as _;

/// Logs go to stderr (stdout is the protocol on stdio). `RUST_LOG` filters; the default is `info`.
/// Does nothing if the application installed its own subscriber.
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter)
        .try_init();
}

//! The serve entry points: [`FastMcp::run`], [`Server::serve_stdio`], [`Server::serve_io`] and
//! [`Server::serve_http`] (hyper-util's accept loop around the [`McpService`](crate::McpService)), and
//! `run()`'s own log subscriber.

#[cfg(feature = "http")]
mod accept;
#[cfg(feature = "http")]
mod admission;
#[cfg(feature = "http")]
mod backoff;
#[cfg(feature = "http")]
mod connection;
#[cfg(feature = "http")]
mod woken;

use crate::auth::{AccessToken, STDIO_TOKEN_VAR};
use crate::error::{Error, Result};
use crate::server::{FastMcp, Server, Transport};
use std::io::IsTerminal as _;
use std::sync::Arc;

impl FastMcp {
    /// Builds the server and serves it: on the transport set with [`transport`](Self::transport), else as
    /// `FASTMCP_TRANSPORT` says (`stdio`, the default, or `http` with `FASTMCP_HOST`, `FASTMCP_PORT` and
    /// `FASTMCP_PATH`; 127.0.0.1, 8000 and `/mcp` by default). Replicas share a store when
    /// `FASTMCP_REDIS_URL` names a Redis, and request-state keys from `FASTMCP_STATE_KEYS` (base64url,
    /// comma-separated, the first signs), unless the code set its own. Unless the application installed its own
    /// `tracing` subscriber, logs go to stderr, filtered by `RUST_LOG` (feature `tracing-subscriber`).
    pub async fn run(self) -> Result<()> {
        init_tracing();
        let transport = match self.chosen_transport() {
            Some(transport) => transport.clone(),
            None => Transport::from_env()?,
        };
        let server = self.with_env()?.build()?;
        let info = &server.inner.info;
        match transport {
            Transport::Stdio => {
                tracing::info!(
                    "{} {} serving MCP on stdio (both eras: initialize, or _meta per request)",
                    info.name,
                    info.version
                );
                // Someone ran the server by hand: a client would have given it pipes. Tell them how a client
                // starts it instead of leaving them at a silent prompt that answers typing with parse errors.
                if std::io::stdin().is_terminal() {
                    let exe = std::env::current_exe().map_or_else(|_| info.name.clone(), |p| p.display().to_string());
                    eprintln!("{}", stdio_hint(&info.name, &exe));
                }
                server.serve_stdio().await
            }
            #[cfg(feature = "http")]
            Transport::Http(options) => {
                tracing::info!("{} {}", info.name, info.version);
                server.serve_http(options).await
            }
            #[cfg(not(feature = "http"))]
            Transport::Http(_) => {
                Err(Error::msg("this build of fastmcp serves stdio only: enable the `http` feature to serve HTTP"))
            }
        }
    }
}

impl Server {
    /// Serves on this process's stdin and stdout. On a protected server the process's caller is the token
    /// in `FASTMCP_AUTH_TOKEN`, verified once, now (a refused token stops the server); without one, callers
    /// are anonymous and components that need a token are refused.
    pub async fn serve_stdio(&self) -> Result<()> {
        let caller = self.stdio_caller().await?;
        let (stdin, stdout) = crate::transport::process_io::stdio();
        crate::transport::stdio::serve(self.clone(), stdin, stdout, caller).await.map_err(Error::from)
    }

    /// Serves newline-delimited JSON-RPC on any byte stream pair (a socket, an in-memory pipe). Its callers
    /// are anonymous: a protected server serves them only what needs no token.
    pub async fn serve_io<R, W>(&self, reader: R, writer: W) -> Result<()>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        crate::transport::stdio::serve(self.clone(), reader, writer, None).await.map_err(Error::from)
    }

    /// The stdio process's caller: the spec has stdio servers take credentials from the environment.
    async fn stdio_caller(&self) -> Result<Option<Arc<AccessToken>>> {
        let Some(gate) = &self.inner.gate else { return Ok(None) };
        let token = std::env::var(STDIO_TOKEN_VAR).ok().filter(|t| !t.trim().is_empty());
        let Some(token) = token else {
            tracing::info!(
                "no {STDIO_TOKEN_VAR}: stdio callers are anonymous; components that need a token are refused"
            );
            return Ok(None);
        };
        match gate.verify(token.trim()).await {
            Ok(access) => {
                tracing::info!("stdio serves one caller: {} (from {STDIO_TOKEN_VAR})", access.principal().as_str());
                Ok(Some(access))
            }
            Err(why) => Err(Error::msg(format!("{STDIO_TOKEN_VAR} was refused: {}", gate.refused(&why).message))),
        }
    }

    /// Serves Streamable HTTP on `options.addr` and `options.path` until SIGINT or SIGTERM, then lets
    /// requests in flight finish within [`FastMcp::shutdown_grace`] and closes every connection still open.
    #[cfg(feature = "http")]
    pub async fn serve_http(&self, options: crate::server::HttpOptions) -> Result<()> {
        let listener = tokio::net::TcpListener::bind(options.addr).await?;
        self.serve_http_on(listener, options).await
    }

    /// [`serve_http`](Self::serve_http) on a listener the caller bound (`options.addr` is not used): one
    /// bound to port 0, whose address is known before the server runs, so a test connects without
    /// polling and no other process can take the port in between; or a socket handed over by a service
    /// manager.
    #[cfg(feature = "http")]
    pub async fn serve_http_on(
        &self,
        listener: tokio::net::TcpListener,
        options: crate::server::HttpOptions,
    ) -> Result<()> {
        accept::serve(self.clone(), listener, options).await.map_err(Error::from)
    }
}

/// Logs go to stderr (stdout is the protocol on stdio). `RUST_LOG` filters; the default is `info`. Does
/// nothing if the application installed its own subscriber, or without the `tracing-subscriber` feature.
pub fn init_tracing() {
    #[cfg(feature = "tracing-subscriber")]
    {
        let filter = tracing_subscriber::EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
        let _ = tracing_subscriber::fmt()
            .with_writer(std::io::stderr)
            .with_ansi(std::io::stderr().is_terminal())
            .with_env_filter(filter)
            .try_init();
    }
}

/// What [`FastMcp::run`] tells a person who started a stdio server from a terminal: that a client starts it,
/// and how to connect the common clients to `exe` (this binary's path) or serve HTTP instead. Pure, so the
/// text can be tested; `run()` decides whether stdin is a terminal.
fn stdio_hint(name: &str, exe: &str) -> String {
    let key = serde_json::to_string(name).unwrap_or_default();
    let command = serde_json::to_string(exe).unwrap_or_default();
    let shell = shell_word(exe);
    let mut hint = format!(
        "{name} is an MCP server speaking JSON-RPC on stdin/stdout: an MCP client starts it, and typing here \
         won't work.\nPoint a client at this binary:\n\
         \x20 MCP Inspector:           npx @modelcontextprotocol/inspector {shell}\n\
         \x20 Claude Desktop, Cursor:  {{\"mcpServers\": {{{key}: {{\"command\": {command}}}}}}}\n\
         \x20 VS Code (mcp.json):      {{\"servers\": {{{key}: {{\"type\": \"stdio\", \"command\": {command}}}}}}}\n"
    );
    if cfg!(feature = "http") {
        hint.push_str(&format!(
            "  Serve HTTP instead:      FASTMCP_TRANSPORT=http {shell}, then connect to http://127.0.0.1:8000/mcp\n"
        ));
    }
    hint.push_str("  Stop it with Ctrl-D (end of input) or Ctrl-C.");
    hint
}

/// `path` as one shell word: as is when nothing in it is special to a shell, else quoted.
fn shell_word(path: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:=@,%".contains(c) || (cfg!(windows) && c == '\\');
    if !path.is_empty() && path.chars().all(plain) {
        path.to_owned()
    } else if cfg!(windows) {
        format!("\"{path}\"")
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stdio_hint_names_each_client_and_the_binary() {
        let hint = stdio_hint("quickstart", "/opt/bin/quickstart");
        assert!(hint.lines().count() <= 10, "{hint}");
        assert!(hint.starts_with("quickstart is an MCP server"), "{hint}");
        assert!(hint.contains("npx @modelcontextprotocol/inspector /opt/bin/quickstart\n"), "{hint}");
        assert!(hint.contains(r#"{"mcpServers": {"quickstart": {"command": "/opt/bin/quickstart"}}}"#), "{hint}");
        let vscode = r#"{"servers": {"quickstart": {"type": "stdio", "command": "/opt/bin/quickstart"}}}"#;
        assert!(hint.contains(vscode), "{hint}");
        #[cfg(feature = "http")]
        assert!(hint.contains("FASTMCP_TRANSPORT=http /opt/bin/quickstart, then connect to http://127.0.0.1:8000/mcp"));
        assert!(hint.contains("Ctrl-D") && hint.contains("Ctrl-C"), "{hint}");
    }

    #[test]
    fn the_stdio_hint_escapes_what_it_quotes() {
        let hint = stdio_hint("my \"server\"", r"C:\My Tools\srv.exe");
        assert!(hint.contains(r#"{"mcpServers": {"my \"server\"": {"command": "C:\\My Tools\\srv.exe"}}}"#), "{hint}");
        #[cfg(unix)]
        assert_eq!(shell_word("/tmp/it's here/srv"), r"'/tmp/it'\''s here/srv'");
        assert_eq!(shell_word("/usr/local/bin/srv"), "/usr/local/bin/srv");
    }
}

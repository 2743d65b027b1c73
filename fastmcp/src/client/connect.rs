//! Connecting: the builder (who the client is, what it can answer, which era), the transport, and the era
//! settled once — a modern `server/discover` probe, or the legacy `initialize` handshake.

use super::error::ClientError;
use super::handlers::{Handlers, ServerNotification};
use super::session::Session;
use super::transport::stdio::StdioTransport;
use super::transport::{Incoming, Transport};
use super::{Client, Discovered, Negotiated};
use crate::protocol::{
    ClientCapabilities, CreateMessageParams, CreateMessageResult, DiscoverResult, ElicitParams, ElicitResult, Era,
    Implementation, InitializeResult, LoggingLevel, NOTIFY_INITIALIZED, ProtocolVersion, Root, codes,
};
use serde_json::json;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// Which era the client speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum EraChoice {
    /// Probe with `server/discover`; a server that doesn't serve the modern protocol gets `initialize`.
    #[default]
    Auto,
    /// Stateless 2026-07-28 only.
    Modern,
    /// The `initialize` handshake (2025-11-25, or what the server offers back).
    Legacy,
}

/// Builds a [`Client`]: who it is, what it can answer, then where it connects.
///
/// What the client declares it can answer follows from the handlers set: a server never asks for the rest.
///
/// ```no_run
/// use fastmcp::client::{ClientBuilder, ClientError, EraChoice, ServerNotification};
/// use fastmcp::protocol::{CreateMessageResult, Root};
///
/// # #[tokio::main]
/// # async fn main() -> Result<(), ClientError> {
/// let mut server = tokio::process::Command::new("my-mcp-server");
/// server.arg("--verbose");
/// let client = ClientBuilder::new("my-app", "1.0")
///     .era(EraChoice::Auto)
///     // Sampling: answer with a canned reply instead of a real model.
///     .on_sample(|_request| async { Ok(CreateMessageResult::text("canned-model", "Paris")) })
///     .roots([Root { uri: "file:///home/me/project".into(), name: Some("project".into()), meta: None }])
///     .on_notification(|notification| {
///         if let ServerNotification::Progress(progress) = notification {
///             eprintln!("progress: {progress:?}");
///         }
///     })
///     .stdio(server)
///     .await?;
/// println!("connected with {:?}", client.protocol_version());
/// # Ok(())
/// # }
/// ```
pub struct ClientBuilder {
    pub(crate) info: Implementation,
    pub(crate) era: EraChoice,
    pub(crate) handlers: Handlers,
    pub(crate) max_rounds: u32,
    pub(crate) legacy_round_timeout: Duration,
    pub(crate) log_level: Option<LoggingLevel>,
    #[cfg(feature = "http")]
    pub(crate) http: super::transport::http::HttpOptions,
}

impl ClientBuilder {
    /// A client that introduces itself as `name` `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            info: Implementation::new(name, version),
            era: EraChoice::Auto,
            handlers: Handlers::default(),
            max_rounds: 8,
            legacy_round_timeout: Duration::from_secs(300),
            log_level: None,
            #[cfg(feature = "http")]
            http: Default::default(),
        }
    }

    /// Which era to speak (default [`EraChoice::Auto`]: modern if the server serves it, else legacy).
    pub fn era(mut self, era: EraChoice) -> Self {
        self.era = era;
        self
    }

    /// Answers the server's forms (`elicitation/create`), in either era.
    pub fn on_elicit<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, String>> + Send + 'static,
    {
        self.handlers.on_elicit(handler);
        self
    }

    /// Answers the server's requests for a completion (`sampling/createMessage`), in either era.
    pub fn on_sample<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(CreateMessageParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, String>> + Send + 'static,
    {
        self.handlers.on_sample(handler);
        self
    }

    /// The client's roots, for `roots/list`.
    pub fn roots(mut self, roots: impl IntoIterator<Item = Root>) -> Self {
        self.handlers.roots = Some(Arc::new(roots.into_iter().collect()));
        self
    }

    /// Sees each notification (progress, logs, list changes, resource updates). With it set, calls ask for
    /// progress.
    pub fn on_notification(mut self, handler: impl Fn(ServerNotification) + Send + Sync + 'static) -> Self {
        self.handlers.notification = Some(Arc::new(handler));
        self
    }

    /// The log level asked for: legacy `logging/setLevel` after `initialize`, modern `_meta` on each request.
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }

    /// The most `input_required` rounds one call may take (default 8).
    pub fn max_rounds(mut self, rounds: u32) -> Self {
        self.max_rounds = rounds.max(1);
        self
    }

    /// Declares capabilities beyond what the handlers answer: requests for them are passed to whoever calls
    /// a `*_round` method (a [`Proxy`](crate::proxy::Proxy) passes them to its own caller) — on a legacy
    /// session, where capabilities are declared once, at `initialize` — or else refused with `-32601`.
    pub fn declare(mut self, capabilities: ClientCapabilities) -> Self {
        self.handlers.declared = capabilities;
        self
    }

    /// How long a legacy call stays parked between rounds waiting for its caller's answers (default
    /// 5 minutes); then it is cancelled upstream. See [`Client::call_tool_round`].
    pub fn legacy_round_timeout(mut self, timeout: Duration) -> Self {
        self.legacy_round_timeout = timeout;
        self
    }

    /// Runs `command` and talks to it over its stdin and stdout (its stderr is ours).
    pub async fn stdio(self, command: tokio::process::Command) -> Result<Client, ClientError> {
        let (tx, rx) = mpsc::unbounded_channel::<Incoming>();
        let transport = StdioTransport::spawn(command, tx)?;
        self.start(Arc::new(transport), rx).await
    }

    /// A header sent with every HTTP request (an API key, say).
    #[cfg(feature = "http")]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.http.headers.push((name.into(), value.into()));
        self
    }

    /// Credentials for a protected server: a [`BearerToken`](super::BearerToken), or the OAuth client.
    #[cfg(feature = "http")]
    pub fn authorizer(mut self, authorizer: impl super::Authorizer) -> Self {
        self.http.authorizer = Some(std::sync::Arc::new(authorizer));
        self
    }

    /// HTTP limits and credentials at once (see [`HttpOptions`](super::HttpOptions)).
    #[cfg(feature = "http")]
    pub fn http_options(mut self, options: super::HttpOptions) -> Self {
        self.http = options;
        self
    }

    /// Talks Streamable HTTP to the endpoint at `url`.
    #[cfg(feature = "http")]
    pub async fn http(self, url: &str) -> Result<Client, ClientError> {
        let (tx, rx) = mpsc::unbounded_channel::<Incoming>();
        let transport = super::transport::http::HttpTransport::new(url, self.http.clone(), tx)?;
        self.start(Arc::new(transport), rx).await
    }

    /// Connects to `target`: an `http(s)://` URL, or a command line run over stdio (split on whitespace,
    /// with `'…'` and `"…"` quoting).
    pub async fn connect(self, target: &str) -> Result<Client, ClientError> {
        if target.starts_with("http://") || target.starts_with("https://") {
            #[cfg(feature = "http")]
            return self.http(target).await;
            #[cfg(not(feature = "http"))]
            return Err(ClientError::Transport("this build has no HTTP (feature `http`)".into()));
        }
        let words = split_command(target)?;
        let (program, args) = words.split_first().ok_or_else(|| ClientError::Transport("an empty command".into()))?;
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        self.stdio(command).await
    }

    pub(crate) async fn start(
        self,
        transport: Arc<dyn Transport>,
        inbox: mpsc::UnboundedReceiver<Incoming>,
    ) -> Result<Client, ClientError> {
        let session = Session::start(transport, inbox, self.handlers.clone());
        let mut client = Client {
            session,
            info: self.info,
            negotiated: Negotiated::Modern(Box::new(Discovered {
                result: DiscoverResult {
                    supported_versions: Vec::new(),
                    capabilities: Default::default(),
                    instructions: None,
                },
                server_info: None,
            })),
            max_rounds: self.max_rounds,
            log_level: self.log_level,
            tools: Default::default(),
            progress: Default::default(),
            parked: Default::default(),
            legacy_round_timeout: self.legacy_round_timeout,
        };
        client.negotiated = match self.era {
            EraChoice::Modern => Negotiated::Modern(Box::new(discover(&client).await?)),
            EraChoice::Legacy => initialize(&client).await?,
            EraChoice::Auto => match discover(&client).await {
                Ok(found) => Negotiated::Modern(Box::new(found)),
                Err(e) if speaks_legacy_only(&e) => initialize(&client).await?,
                Err(e) => return Err(e),
            },
        };
        Ok(client)
    }
}

/// `server/discover`, modern: the server's versions and capabilities. A server that does not list
/// 2026-07-28 can't be spoken to statelessly.
async fn discover(client: &Client) -> Result<Discovered, ClientError> {
    let raw = client.modern_request("server/discover", json!({}), None).await?;
    let found: DiscoverResult = super::parse(&raw)?;
    let meta: serde_json::Value = super::parse(&raw)?;
    let server_info = meta
        .pointer("/_meta/io.modelcontextprotocol~1serverInfo")
        .and_then(|info| serde_json::from_value(info.clone()).ok());
    if !found.supported_versions.iter().any(|v| v == ProtocolVersion::V2026_07_28.as_str()) {
        return Err(ClientError::Protocol(format!(
            "the server supports {:?}, not 2026-07-28",
            found.supported_versions
        )));
    }
    Ok(Discovered { result: found, server_info })
}

/// Whether a failed probe means "a legacy server" (which then gets `initialize`) rather than a broken one.
fn speaks_legacy_only(error: &ClientError) -> bool {
    match error {
        // Unknown method, "initialize first", invalid params, unsupported version: a server of the legacy era.
        ClientError::Rpc(e) => {
            matches!(e.code, codes::METHOD_NOT_FOUND | codes::INVALID_REQUEST | codes::INVALID_PARAMS)
                || e.code == codes::UNSUPPORTED_PROTOCOL_VERSION
        }
        ClientError::Http { status, .. } => (400..500).contains(status) && *status != 401 && *status != 403,
        ClientError::Protocol(_) => true,
        _ => false,
    }
}

/// The legacy handshake: `initialize`, the version the server answers (one the client speaks), then
/// `notifications/initialized`.
async fn initialize(client: &Client) -> Result<Negotiated, ClientError> {
    let params = json!({
        "protocolVersion": ProtocolVersion::LATEST_LEGACY.as_str(),
        "capabilities": client.session.handlers().capabilities(),
        "clientInfo": client.info,
    });
    let raw = client.session.request("initialize", params, Vec::new()).await?;
    let init: InitializeResult = super::parse(&raw)?;
    let version =
        ProtocolVersion::parse(&init.protocol_version).filter(|v| v.era() == Era::Legacy).ok_or_else(|| {
            ClientError::Protocol(format!("the server answered protocol version {}", init.protocol_version))
        })?;
    client.session.opened_legacy(vec![("MCP-Protocol-Version".into(), version.as_str().into())]);
    client.session.notify(NOTIFY_INITIALIZED, json!({})).await?;
    client.session.transport().session_opened().await;
    // Only a server that declares logging serves `logging/setLevel`; asking any other would fail the connection.
    if let Some(level) = client.log_level
        && init.capabilities.logging.is_some()
    {
        client.session.request("logging/setLevel", json!({ "level": level }), Vec::new()).await?;
    }
    Ok(Negotiated::Legacy { init: Box::new(init), version })
}

/// A command line split into words: whitespace separates, `'…'` and `"…"` group (no escapes inside single
/// quotes; `\` escapes in double quotes and bare words).
fn split_command(line: &str) -> Result<Vec<String>, ClientError> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err(ClientError::Transport(format!("unclosed ' in {line:?}"))),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => w.extend(chars.next()),
                        Some(c) => w.push(c),
                        None => return Err(ClientError::Transport(format!("unclosed \" in {line:?}"))),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        let split = |line| split_command(line).unwrap();
        assert_eq!(split("cargo run -p x"), ["cargo", "run", "-p", "x"]);
        assert_eq!(split(r#"  python3 'my server.py' "a \"b\"" c\ d "#), ["python3", "my server.py", "a \"b\"", "c d"]);
        assert_eq!(split("x ''"), ["x", ""]);
        assert!(split_command("x 'open").is_err());
    }
}

//! The Rust client (feature `client`): talk to any MCP server over stdio or Streamable HTTP, in either era,
//! with the server's requests for input answered by handlers registered once.
//!
//! ```no_run
//! # async fn demo() -> Result<(), fastmcp::client::ClientError> {
//! use fastmcp::client::ClientBuilder;
//! use fastmcp::protocol::{ElicitAction, ElicitResult};
//! use fastmcp::serde_json::json;
//!
//! let client = ClientBuilder::new("my-app", "1.0")
//!     .on_elicit(|form| async move {
//!         println!("{}", form.message);
//!         let content = json!({ "confirm": true }).as_object().cloned();
//!         Ok(ElicitResult { action: ElicitAction::Accept, content, meta: None })
//!     })
//!     .connect("cargo run -q -p fastmcp-examples --bin deploy")
//!     .await?;
//! let result = client.call_tool("deploy", json!({ "service": "api", "replicas": 2 })).await?;
//! # Ok(()) }
//! ```

mod authorize;
mod bridge;
mod calls;
mod connect;
mod error;
mod handlers;
mod oauth;
mod session;
mod subscribe;
mod tasks;
pub(crate) mod transport;

pub(crate) use calls::Retry;
pub use calls::Round;

pub use authorize::{Authorizer, BearerToken, Credentials, Refusal, RequestTarget};
pub use connect::{ClientBuilder, EraChoice};
pub use error::ClientError;
pub use handlers::ServerNotification;
/// The algorithm a [`SigningKey`] signs with (`Algorithm::ES256`, …).
pub use jsonwebtoken::Algorithm;
pub use oauth::{Assertion, AssertionRequest, IdentityProvider, SigningKey};
pub use oauth::{
    AuthorizationCode, AuthorizationRequest, AuthorizationResponse, ClientMetadata, Dpop, MemoryTokenStore, OAuth,
    OAuthConfig, Open, TokenStore, Tokens,
};
pub use subscribe::Subscription;
pub use tasks::{TaskCall, TaskOrResult};
#[cfg(feature = "http")]
pub use transport::http::HttpOptions;

use crate::protocol::{DiscoverResult, InitializeResult, LoggingLevel, ProtocolVersion, Tool};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use session::Session;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// A connection to one server, in the era it settled on. Calls may run concurrently.
///
/// Made by [`ClientBuilder`]; the same calls work in either era, and input a server asks for is answered
/// by the builder's handlers. Dropping a call's future cancels the call.
///
/// ```no_run
/// use fastmcp::client::{ClientBuilder, ClientError};
/// use fastmcp::serde_json::json;
///
/// # #[tokio::main]
/// # async fn main() -> Result<(), ClientError> {
/// let client = ClientBuilder::new("my-app", "1.0").connect("http://127.0.0.1:8000/mcp").await?;
/// for tool in client.list_tools().await? {
///     println!("{}: {}", tool.name, tool.description.unwrap_or_default());
/// }
/// let result = client.call_tool("greet", json!({ "name": "Ada" })).await?;
/// // The tool's own failure is a result too, for the model to read.
/// let text: Vec<&str> = result.content.iter().filter_map(|block| block.as_text()).collect();
/// match result.is_error {
///     Some(true) => eprintln!("greet failed: {}", text.join(" ")),
///     _ => println!("{}", text.join(" ")),
/// }
/// client.close().await;
/// # Ok(())
/// # }
/// ```
pub struct Client {
    session: Arc<Session>,
    info: crate::protocol::Implementation,
    negotiated: Negotiated,
    max_rounds: u32,
    log_level: Option<LoggingLevel>,
    /// Tools as last listed: their schemas say which arguments travel in `Mcp-Param-*` headers.
    tools: std::sync::Mutex<HashMap<String, Tool>>,
    /// Progress tokens handed out.
    progress: AtomicU64,
    /// Legacy calls between rounds (see [`bridge`]).
    parked: bridge::Parked,
    legacy_round_timeout: std::time::Duration,
}

/// What connecting settled.
enum Negotiated {
    Modern(Box<Discovered>),
    Legacy { init: Box<InitializeResult>, version: ProtocolVersion },
}

/// What `server/discover` said: the result, and the `serverInfo` its `_meta` carried.
struct Discovered {
    result: DiscoverResult,
    server_info: Option<crate::protocol::Implementation>,
}

/// A result's JSON read into its type.
fn parse<T: DeserializeOwned>(raw: &RawValue) -> Result<T, ClientError> {
    serde_json::from_str(raw.get())
        .map_err(|e| ClientError::Protocol(format!("an unexpected result ({e}): {:.300}", raw.get())))
}

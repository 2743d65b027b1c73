//! What a client call can come to besides its result.

use crate::protocol::ErrorObject;

/// Why a client call failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    #[error("{}: {}", .0.code, .0.message)]
    Rpc(ErrorObject),
    /// The server answered over HTTP with a status that carries no JSON-RPC answer.
    #[error("HTTP {status}: {body}")]
    Http {
        /// The HTTP status.
        status: u16,
        /// The response's body as text, cut to its first 512 characters.
        body: String,
    },
    /// The server could not be reached, or the connection broke.
    #[error("transport: {0}")]
    Transport(String),
    /// The server said something that is not MCP (a malformed message, a result of the wrong shape).
    #[error("protocol: {0}")]
    Protocol(String),
    /// Authorization failed: no token could be had, or the server refused every one.
    #[error("authorization: {0}")]
    Auth(String),
    /// The server kept asking for input beyond the client's limit of rounds.
    #[error("the server asked for input {0} times; giving up (ClientBuilder::max_rounds)")]
    TooManyRounds(u32),
    /// The connection is closed.
    #[error("the connection is closed")]
    Closed,
}

impl ClientError {
    /// The JSON-RPC error, when the server answered with one.
    pub fn rpc(&self) -> Option<&ErrorObject> {
        match self {
            ClientError::Rpc(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ErrorObject> for ClientError {
    fn from(e: ErrorObject) -> Self {
        ClientError::Rpc(e)
    }
}

//! The error handlers and the runtime return: any error converts in with `?`; protocol errors keep their code.

use crate::protocol::{Era, ErrorObject, codes};
use serde_json::json;
use std::fmt;

/// `Result` with fastmcp's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error from a handler or the runtime.
///
/// Any `std::error::Error` converts in with `?`, like `anyhow::Error`. The constructors for protocol errors
/// (`invalid_params`, `resource_not_found`, …) carry the JSON-RPC code a client should see.
///
/// Where the error goes depends on the handler. A prompt's or a resource's `Err` is the JSON-RPC error of
/// the response, with the code it was made with (`-32603` for one made without). A tool's `Err` is not: it
/// becomes an `isError` result carrying the message, so the model can read it and try again.
///
/// ```
/// use fastmcp::prelude::*;
/// use fastmcp::protocol::ErrorObject;
///
/// /// A user's profile.
/// #[resource("users://{id}/profile")]
/// async fn profile(id: u32) -> Result<String> {
///     match id {
///         1 => Ok("Ada Lovelace".into()),
///         // -32002 on legacy sessions, -32602 on the modern protocol, with `data.uri` either way.
///         _ => Err(Error::resource_not_found(format!("users://{id}/profile"))),
///     }
/// }
///
/// /// Summarize a text in one of the known styles.
/// #[prompt]
/// async fn summarize(text: String, style: String) -> Result<String> {
///     if style != "short" && style != "detailed" {
///         return Err(Error::invalid_params(format!("unknown style `{style}`: short or detailed")));
///     }
///     Ok(format!("Summarize this text ({style}):\n\n{text}"))
/// }
///
/// /// Read a file, for the model (an `Err` here is an `isError` result, not a JSON-RPC error).
/// #[tool(read_only)]
/// async fn cat(path: String) -> Result<String> {
///     Ok(std::fs::read_to_string(path)?) // `io::Error` converts with `?`
/// }
///
/// // A code of the application's own, with data the client can act on:
/// let quota = Error::rpc(ErrorObject::new(-32001, "Quota exceeded").with_data(fastmcp::serde_json::json!({
///     "retryAfterMs": 60_000,
/// })));
/// assert_eq!(quota.code(), Some(-32001));
/// assert_eq!(quota.to_string(), "Quota exceeded");
/// assert_eq!(Error::invalid_params("no such style").code(), Some(-32602));
/// assert_eq!(Error::msg("disk full").code(), None); // `-32603` on the wire
/// # let _ = FastMcp::new("docs").resource(profile).prompt(summarize).tool(cat);
/// ```
pub struct Error {
    /// Boxed: a request's results carry `Result<_, Error>` out through every layer, and inline the details
    /// (104 bytes with an `ErrorObject`) made every `Ok` that large too. An error allocates; a success does not.
    repr: Box<Repr>,
}

enum Repr {
    Rpc(ErrorObject),
    /// Its code depends on the era: -32002 (legacy) or -32602 (modern), both with `data.uri`.
    ResourceNotFound(String),
    Message(String),
    Source(Box<dyn std::error::Error + Send + Sync + 'static>),
    /// `-32603` with `data.retryAfter` (seconds); HTTP 429 with `Retry-After` where the answer has a status.
    Busy {
        message: String,
        retry_after: u64,
    },
}

// The constructors are `#[cold]`: a request that succeeds calls none of them, and the branches that do are
// laid out away from the code it runs (a stdio call touched 1058 -> 1028 lines of code, callgrind).
impl Error {
    /// An error with this message and no particular JSON-RPC code (`-32603` where one is needed).
    #[cold]
    pub fn msg(message: impl fmt::Display) -> Self {
        Self { repr: Box::new(Repr::Message(message.to_string())) }
    }

    /// A JSON-RPC error with this exact code, message and data.
    pub fn rpc(error: ErrorObject) -> Self {
        Self { repr: Box::new(Repr::Rpc(error)) }
    }

    /// `-32602`: the request's parameters are wrong.
    #[cold]
    pub fn invalid_params(message: impl fmt::Display) -> Self {
        Self::rpc(ErrorObject::invalid_params(message.to_string()))
    }

    /// `-32603`.
    #[cold]
    pub fn internal(message: impl fmt::Display) -> Self {
        Self::rpc(ErrorObject::internal(message.to_string()))
    }

    /// The client holds its share of something already: `-32603` with `data.retryAfter`, the whole seconds
    /// (at least one) until it has room again; on HTTP, where the answer has a status, 429 with `Retry-After`.
    #[cold]
    pub(crate) fn busy(message: impl fmt::Display, retry_after: std::time::Duration) -> Self {
        let retry_after = retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0);
        Self { repr: Box::new(Repr::Busy { message: message.to_string(), retry_after: retry_after.max(1) }) }
    }

    /// No resource has this URI: `-32002` on the legacy wire, `-32602` on the modern one, with `data.uri`.
    #[cold]
    pub fn resource_not_found(uri: impl Into<String>) -> Self {
        Self { repr: Box::new(Repr::ResourceNotFound(uri.into())) }
    }

    /// The JSON-RPC error object this error becomes on the given era's wire.
    pub fn to_error_object(&self, era: Era) -> ErrorObject {
        match &*self.repr {
            Repr::Rpc(e) => e.clone(),
            Repr::ResourceNotFound(uri) => {
                let code = match era {
                    Era::Legacy => codes::RESOURCE_NOT_FOUND,
                    Era::Modern => codes::INVALID_PARAMS,
                };
                ErrorObject::new(code, format!("Resource not found: {uri}")).with_data(json!({ "uri": uri }))
            }
            Repr::Message(_) | Repr::Source(_) => ErrorObject::internal(self.to_string()),
            Repr::Busy { message, retry_after } => {
                ErrorObject::internal(message.clone()).with_data(json!({ "retryAfter": retry_after }))
            }
        }
    }

    /// For an error made with [`Error::busy`], the seconds until the client may try again.
    pub(crate) fn retry_after(&self) -> Option<u64> {
        match &*self.repr {
            Repr::Busy { retry_after, .. } => Some(*retry_after),
            _ => None,
        }
    }

    /// The JSON-RPC code, when this error was made with one.
    pub fn code(&self) -> Option<i32> {
        match &*self.repr {
            Repr::Rpc(e) => Some(e.code),
            Repr::Busy { .. } => Some(codes::INTERNAL_ERROR),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.repr {
            Repr::Rpc(e) => f.write_str(&e.message),
            Repr::ResourceNotFound(uri) => write!(f, "Resource not found: {uri}"),
            Repr::Message(m) | Repr::Busy { message: m, .. } => f.write_str(m),
            Repr::Source(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.repr {
            Repr::Rpc(e) => f.debug_tuple("Error::Rpc").field(e).finish(),
            Repr::ResourceNotFound(uri) => f.debug_tuple("Error::ResourceNotFound").field(uri).finish(),
            Repr::Message(m) => f.debug_tuple("Error").field(m).finish(),
            Repr::Source(e) => fmt::Debug::fmt(e, f),
            Repr::Busy { message, retry_after } => {
                f.debug_struct("Error::Busy").field("message", message).field("retry_after", retry_after).finish()
            }
        }
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for Error {
    fn from(e: E) -> Self {
        Self { repr: Box::new(Repr::Source(Box::new(e))) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_busy_error_says_in_whole_seconds_when_to_try_again_in_either_era() {
        for (wait, seconds) in [(Duration::ZERO, 1), (Duration::from_millis(1200), 2), (Duration::from_secs(60), 60)] {
            let e = Error::busy("full", wait);
            assert_eq!(e.retry_after(), Some(seconds), "{wait:?}");
            for era in [Era::Legacy, Era::Modern] {
                let object = e.to_error_object(era);
                assert_eq!((object.code, object.message.as_str()), (codes::INTERNAL_ERROR, "full"));
                assert_eq!(object.data, Some(json!({ "retryAfter": seconds })));
            }
        }
        assert_eq!(Error::internal("x").retry_after(), None);
    }
}

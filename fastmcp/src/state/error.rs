//! Why request state was refused (for logs) and what the client is told (for the wire).

use crate::protocol::ErrorObject;
use serde_json::json;
use std::fmt;

/// The message every refused `requestState` gets on the wire, whatever the reason.
pub const INVALID_STATE_MESSAGE: &str = "Invalid or expired requestState";

/// The `data.reason` every refused `requestState` gets on the wire, whatever the precise reason (as the
/// TypeScript SDK's codec answers).
pub const INVALID_STATE_REASON: &str = "invalid_request_state";

/// Why a token could not be minted or was refused.
///
/// The variant is the precise reason, for logs and tests. The client sees only
/// [`to_error_object`](StateError::to_error_object): `-32602` with the fixed message
/// [`INVALID_STATE_MESSAGE`] and `data.reason` [`INVALID_STATE_REASON`].
///
/// `StateError` converts into [`crate::Error`] with `?`, keeping that wire form. It deliberately does not
/// implement `std::error::Error`: through that blanket conversion it would become an internal error whose
/// message carries the precise reason.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StateError {
    /// The token is longer than the configured cap; refused before any decoding.
    TooLarge {
        /// The token's length, in bytes.
        len: usize,
        /// The configured cap, in bytes.
        max: usize,
    },
    /// The token does not have the token's shape (segments, alphabet, lengths).
    Malformed(&'static str),
    /// The version prefix is not one this build reads.
    UnknownVersion,
    /// No key in the ring has the token's key id (a retired key, another deployment, or forgery).
    UnknownKey,
    /// The MAC or the AEAD tag does not verify: the token was altered or forged.
    BadSignature,
    /// The token's lifetime has passed.
    Expired,
    /// The token was minted for another method, target, arguments or principal.
    WrongBinding,
    /// The token was minted by another build of the flow.
    StaleFingerprint,
    /// The carried locals do not deserialize into the type the flow expects at this step.
    Undecodable {
        /// Where in the locals' JSON decoding failed: the line, from 1 as serde_json counts (0 when there was
        /// no JSON to read: a local missing, or bytes that are not UTF-8).
        line: usize,
        /// The column on that line, from 1 (0 as for `line`).
        column: usize,
    },
    /// Minting: the token would exceed the configured cap.
    LocalsTooLarge {
        /// The length the token would have had, in bytes.
        len: usize,
        /// The configured cap, in bytes.
        max: usize,
    },
    /// Minting: the locals failed to serialize.
    Unserializable(String),
    /// Minting: the operating system's random source failed.
    Randomness,
}

impl StateError {
    /// True for errors made while minting a token (a server-side problem), false for refusals of a token
    /// the client sent.
    pub fn is_minting(&self) -> bool {
        matches!(self, Self::LocalsTooLarge { .. } | Self::Unserializable(_) | Self::Randomness)
    }

    /// The reason a client may see: [`INVALID_STATE_REASON`], for every refusal. The precise one (expired,
    /// forged, bound to another request, …) goes only to tracing, so a client learns nothing it could probe.
    pub fn public_reason(&self) -> &'static str {
        INVALID_STATE_REASON
    }

    /// A short stable name of the precise reason, for logs and metrics.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::TooLarge { .. } => "too_large",
            Self::Malformed(_) => "malformed",
            Self::UnknownVersion => "unknown_version",
            Self::UnknownKey => "unknown_key",
            Self::BadSignature => "bad_signature",
            Self::Expired => "expired",
            Self::WrongBinding => "wrong_binding",
            Self::StaleFingerprint => "stale_fingerprint",
            Self::Undecodable { .. } => "undecodable",
            Self::LocalsTooLarge { .. } => "locals_too_large",
            Self::Unserializable(_) => "unserializable",
            Self::Randomness => "randomness",
        }
    }

    /// The JSON-RPC error the client sees: `-32602` `"Invalid or expired requestState"` with
    /// `data: {"reason": "invalid_request_state"}`, or for a minting failure a plain `-32603`.
    pub fn to_error_object(&self) -> ErrorObject {
        if self.is_minting() {
            ErrorObject::internal("Internal error: could not create requestState")
        } else {
            ErrorObject::invalid_params(INVALID_STATE_MESSAGE).with_data(json!({ "reason": self.public_reason() }))
        }
    }

    /// Sends the precise reason to tracing (never the token, the locals or key ids).
    pub(crate) fn log(&self, method: &str, target: &str) {
        match self {
            Self::Expired => tracing::debug!(method, target, reason = self.kind(), "requestState refused: {self}"),
            _ if self.is_minting() => {
                tracing::error!(method, target, reason = self.kind(), "requestState not minted: {self}")
            }
            _ => tracing::warn!(method, target, reason = self.kind(), "requestState refused: {self}"),
        }
    }
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLarge { len, max } => write!(f, "token of {len} bytes exceeds the cap of {max}"),
            Self::Malformed(what) => write!(f, "malformed token: {what}"),
            Self::UnknownVersion => f.write_str("unknown token version"),
            Self::UnknownKey => f.write_str("no key in the ring has this key id"),
            Self::BadSignature => f.write_str("signature does not verify"),
            Self::Expired => f.write_str("token expired"),
            Self::WrongBinding => f.write_str("token was minted for another method, target, arguments or principal"),
            Self::StaleFingerprint => f.write_str("token was minted by another build of this flow"),
            Self::Undecodable { line, column } => {
                write!(f, "carried locals do not fit the expected type (line {line}, column {column})")
            }
            Self::LocalsTooLarge { len, max } => {
                write!(f, "token would be {len} bytes, over the cap of {max}; carry less across .ask()")
            }
            Self::Unserializable(e) => write!(f, "carried locals failed to serialize: {e}"),
            Self::Randomness => f.write_str("the operating system's random source failed"),
        }
    }
}

impl From<StateError> for crate::Error {
    fn from(e: StateError) -> Self {
        crate::Error::rpc(e.to_error_object())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Era;

    #[test]
    fn the_wire_sees_only_a_coarse_reason() {
        let e: crate::Error = StateError::UnknownKey.into();
        let obj = e.to_error_object(Era::Modern);
        assert_eq!(obj.code, -32602);
        assert_eq!(obj.message, "Invalid or expired requestState");
        assert_eq!(obj.data, Some(json!({"reason": "invalid_request_state"})));
        let obj = StateError::Expired.to_error_object();
        assert_eq!(obj.data, Some(json!({"reason": "invalid_request_state"})), "expiry is not told apart");
        assert_eq!(StateError::Randomness.to_error_object().code, -32603);
    }
}

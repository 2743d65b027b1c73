//! Log levels (RFC 5424) and `notifications/message`.

use super::JsonObject;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The eight syslog levels, least severe first, so `Ord` compares severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// `"debug"`: detailed debugging information.
    Debug,
    /// `"info"`: general informational messages.
    Info,
    /// `"notice"`: normal but significant events.
    Notice,
    /// `"warning"`: warning conditions.
    Warning,
    /// `"error"`: error conditions.
    Error,
    /// `"critical"`: critical conditions.
    Critical,
    /// `"alert"`: action must be taken immediately.
    Alert,
    /// `"emergency"`: the system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// Every level, least severe first.
    pub const ALL: [LoggingLevel; 8] = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];
}

/// `logging/setLevel` params (legacy only: 2026-07-28 removed the method; a modern request names its level in
/// `_meta` instead).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetLevelParams {
    /// The least severe level the client wants: the server should send logs at this level and above as
    /// `notifications/message`.
    pub level: LoggingLevel,
    /// `_meta` on the wire: request metadata such as `progressToken`; absent means none.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// `notifications/message` params: one log entry from the server. Legacy: whatever the server chooses to send, or
/// what `logging/setLevel` asked for. Modern: only on the response stream of a request whose `_meta` names a level, at
/// or above it. Deprecated as of 2026-07-28 (SEP-2577), still functional.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageParams {
    /// The entry's severity.
    pub level: LoggingLevel,
    /// The name of the logger that issued the entry; absent means unnamed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The payload: any JSON value, such as a string message or an object.
    pub data: Value,
}

//! The per-request envelope of the modern era: `_meta` names the protocol version and the client's
//! capabilities on every request (and optionally its info, a log level and a progress token).

use crate::context::Scope;
use crate::protocol::{
    ClientCapabilities, Era, ErrorObject, Implementation, JsonObject, LoggingLevel, META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO, META_LOG_LEVEL, META_PROGRESS_TOKEN, META_PROTOCOL_VERSION, ProgressToken, ProtocolVersion,
    RequestId, codes,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// What a valid envelope establishes for one request.
pub(crate) struct Envelope {
    pub scope: Scope,
    /// The log level the client asked for; none: no logs.
    pub log_level: Option<LoggingLevel>,
    pub progress_token: Option<ProgressToken>,
}

/// Validates the envelope: a supported version (`-32022`), then the required keys (`-32602`).
pub(crate) fn open(id: &RequestId, mut meta: JsonObject) -> Result<Envelope, ErrorObject> {
    let mut missing = Vec::new();
    let protocol_version = match meta.remove(META_PROTOCOL_VERSION) {
        None => {
            missing.push(META_PROTOCOL_VERSION);
            ProtocolVersion::LATEST
        }
        Some(Value::String(v)) => match ProtocolVersion::parse(&v).filter(|v| v.era() == Era::Modern) {
            Some(v) => v,
            None => return Err(unsupported_version(&v)),
        },
        Some(other) => return Err(unsupported_version(&other.to_string())),
    };
    let client_capabilities = match meta.remove(META_CLIENT_CAPABILITIES) {
        None => {
            missing.push(META_CLIENT_CAPABILITIES);
            ClientCapabilities::default()
        }
        Some(v) => value::<ClientCapabilities>(META_CLIENT_CAPABILITIES, v)?,
    };
    if !missing.is_empty() {
        return Err(ErrorObject::invalid_params(format!("Missing required _meta keys: {}", missing.join(", ")))
            .with_data(json!({ "missing": missing })));
    }
    let client_info =
        meta.remove(META_CLIENT_INFO).map(|v| value::<Implementation>(META_CLIENT_INFO, v)).transpose()?;
    let log_level = meta.remove(META_LOG_LEVEL).map(|v| value::<LoggingLevel>(META_LOG_LEVEL, v)).transpose()?;
    let progress_token =
        meta.remove(META_PROGRESS_TOKEN).map(|v| value::<ProgressToken>(META_PROGRESS_TOKEN, v)).transpose()?;
    let scope = Scope { request_id: id.clone(), protocol_version, client_info, client_capabilities };
    Ok(Envelope { scope, log_level, progress_token })
}

fn value<T: DeserializeOwned>(key: &str, value: Value) -> Result<T, ErrorObject> {
    serde_json::from_value(value).map_err(|e| ErrorObject::invalid_params(format!("Invalid _meta key {key}: {e}")))
}

fn unsupported_version(requested: &str) -> ErrorObject {
    let supported: Vec<&str> = ProtocolVersion::MODERN.iter().map(|v| v.as_str()).collect();
    ErrorObject::new(codes::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
        .with_data(json!({ "supported": supported, "requested": requested }))
}

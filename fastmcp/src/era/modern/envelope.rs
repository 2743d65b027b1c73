//! The per-request envelope of the modern era: `_meta` names the protocol version and the client's
//! capabilities on every request (and optionally its info, a log level and a progress token).

use crate::context::Facts;
use crate::era::request_meta::{RequestMeta, Slot, Version};
use crate::protocol::{
    ClientCapabilities, Era, ErrorObject, Implementation, LoggingLevel, META_CLIENT_CAPABILITIES, META_CLIENT_INFO,
    META_LOG_LEVEL, META_PROGRESS_TOKEN, META_PROTOCOL_VERSION, ProgressToken, ProtocolVersion, RequestId, codes,
};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::sync::Arc;

/// What a valid envelope establishes for one request.
pub(crate) struct Envelope {
    pub scope: Facts,
    /// The log level the client asked for; none: no logs.
    pub log_level: Option<LoggingLevel>,
    pub progress_token: Option<ProgressToken>,
}

/// Validates the envelope: a supported version (`-32022`), then the required keys (`-32602`).
pub(crate) fn open(id: &RequestId, meta: RequestMeta) -> Result<Envelope, ErrorObject> {
    let mut missing = Vec::new();
    let protocol_version = match meta.protocol_version {
        None => {
            missing.push(META_PROTOCOL_VERSION);
            ProtocolVersion::LATEST
        }
        Some(Slot::Read(Version::Known(v))) if v.era() == Era::Modern => v,
        Some(Slot::Read(v)) => return Err(unsupported_version(v.as_str())),
        Some(Slot::Unread(raw)) => return Err(unsupported_version(&compact(&raw))),
    };
    let client_capabilities = match meta.client_capabilities {
        None => {
            missing.push(META_CLIENT_CAPABILITIES);
            Arc::default()
        }
        Some(slot) => shared::<ClientCapabilities>(META_CLIENT_CAPABILITIES, slot)?,
    };
    if !missing.is_empty() {
        return Err(ErrorObject::invalid_params(format!("Missing required _meta keys: {}", missing.join(", ")))
            .with_data(json!({ "missing": missing })));
    }
    let client_info = meta.client_info.map(|slot| shared::<Implementation>(META_CLIENT_INFO, slot)).transpose()?;
    let log_level = meta.log_level.map(|slot| value(META_LOG_LEVEL, slot)).transpose()?;
    let progress_token = meta.progress_token.map(|slot| value(META_PROGRESS_TOKEN, slot)).transpose()?;
    let scope = Facts { request_id: id.clone(), protocol_version, client_info, client_capabilities };
    Ok(Envelope { scope, log_level, progress_token })
}

/// One key's value, or why it does not read: as reading it from a `Value` words it, without the position in
/// the text.
fn value<T: DeserializeOwned>(key: &str, slot: Slot<T>) -> Result<T, ErrorObject> {
    let raw = match slot {
        Slot::Read(value) => return Ok(value),
        Slot::Unread(raw) => raw,
    };
    let e = serde_json::from_str::<Value>(raw.get()).and_then(serde_json::from_value::<T>).err();
    let why = e.map_or_else(|| "invalid value".to_owned(), |e| e.to_string());
    Err(ErrorObject::invalid_params(format!("Invalid _meta key {key}: {why}")))
}

/// One key's value read as a [`Last`](crate::era::request_meta::Last), or why it does not read.
fn shared<T: DeserializeOwned>(key: &str, slot: Slot<Arc<T>>) -> Result<Arc<T>, ErrorObject> {
    match slot {
        Slot::Read(value) => Ok(value),
        Slot::Unread(raw) => value::<T>(key, Slot::Unread(raw)).map(Arc::new),
    }
}

/// A non-string version as compact JSON, as the error's `requested` shows it.
fn compact(raw: &RawValue) -> String {
    serde_json::from_str::<Value>(raw.get()).map_or_else(|_| raw.get().to_owned(), |v| v.to_string())
}

fn unsupported_version(requested: &str) -> ErrorObject {
    let supported: Vec<&str> = ProtocolVersion::MODERN.iter().map(|v| v.as_str()).collect();
    ErrorObject::new(codes::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
        .with_data(json!({ "supported": supported, "requested": requested }))
}

//! Opening an exchange: legacy `initialize` and modern `server/discover`.

use super::{ClientCapabilities, Icon, JsonObject, ServerCapabilities};
use serde::{Deserialize, Serialize};

/// Who is on the other end (`clientInfo` / `serverInfo`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name of the client or server, e.g. `"weather-server"`.
    pub name: String,
    /// Its version, a free-form string.
    pub version: String,
    /// Optional display name for people; absent, clients show `name`. Since 2025-06-18.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Optional human-readable description of what it is. Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Optional icons a UI may show for it. Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// `websiteUrl` on the wire: optional URL of its website. Since 2025-11-25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// An implementation with just `name` and `version`, the optional fields unset.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            icons: None,
            website_url: None,
        }
    }
}

/// `initialize` params (legacy only): the client's first request, naming the revision it wants, what it
/// supports and who it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    /// `protocolVersion` on the wire: the revision the client asks for (normally its newest).
    pub protocol_version: String,
    /// What the client supports, for the whole session; absent reads as nothing optional.
    #[serde(default)]
    pub capabilities: ClientCapabilities,
    /// `clientInfo` on the wire: which client this is.
    pub client_info: Implementation,
    /// Request `_meta` (e.g. `progressToken`); optional.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The `initialize` result (legacy only): the session's revision, what the server offers and who it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// `protocolVersion` on the wire: the revision the session uses: the client's, when the server supports it,
    /// else another the server supports (its newest); a client that cannot speak it disconnects.
    pub protocol_version: String,
    /// What the server offers for the session.
    pub capabilities: ServerCapabilities,
    /// `serverInfo` on the wire: which server this is.
    pub server_info: Implementation,
    /// Optional guidance on how to use the server and its features, which clients may pass on to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// `server/discover` (modern). `ttlMs`, `cacheScope`, `resultType` and `_meta.serverInfo` are stamped by the
/// modern era adapter like on every cacheable result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// `supportedVersions` on the wire: every protocol revision the server accepts, for the client to pick from.
    pub supported_versions: Vec<String>,
    /// What the server offers; extensions (e.g. tasks) are under `extensions`.
    pub capabilities: ServerCapabilities,
    /// Optional guidance on how to use the server and its features, which clients may pass on to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// Params that carry nothing but `_meta` (`ping`, `server/discover`), or what is read of an unknown method's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MetaParams {
    /// Request `_meta`; absent reads as `None`. On a modern request it carries the required per-request envelope
    /// (protocol version, client capabilities).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

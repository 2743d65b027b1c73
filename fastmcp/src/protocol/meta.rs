//! Keys of `_meta` and the result-level fields the modern era adds.

use serde::{Deserialize, Serialize};

/// `_meta` key of a modern request's protocol revision (required). Over HTTP it must equal the
/// `MCP-Protocol-Version` header.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of a modern request's client capabilities (required; `{}` means no optional ones). Servers must not
/// infer capabilities from earlier requests.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of a modern request's client `Implementation` (name, version…): optional, but clients should send it.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key by which a modern request opts into `notifications/message` at that level and above; absent means no
/// log notifications for that request.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key of the server's `Implementation` (name, version…) on a modern result; servers should stamp it on every
/// result, and fastmcp does.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key on every notification of a `subscriptions/listen` stream: the id of the listen request, so a client
/// can tell concurrent subscriptions apart.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// `_meta` key by which a request opts into `notifications/progress` (both eras): a [`ProgressToken`] unique among
/// the sender's active requests.
pub const META_PROGRESS_TOKEN: &str = "progressToken";

/// The keys whose presence in a request's `_meta` claims the modern era.
pub const MODERN_CLAIM_KEYS: [&str; 3] = [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO];

/// `resultType` of every modern result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultType {
    /// `"complete"`: the final result of the request.
    Complete,
    /// `"input_required"`: an [`InputRequiredResult`](super::InputRequiredResult); the client answers and retries.
    InputRequired,
    /// Any other value, kept verbatim: extensions add their own (the tasks extension's `"task"`). A client must treat
    /// one it did not negotiate as invalid.
    #[serde(untagged)]
    Other(String),
}

/// Who may cache a modern result (`cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// `"public"`: the result does not depend on who asks, so caches shared across authorization contexts may hold it.
    Public,
    /// `"private"`: caches must not share the result across authorization contexts. fastmcp marks every result of a
    /// protected (authenticating) server private.
    Private,
}

/// How long a modern result stays fresh, and for whom (`ttlMs`, `cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    /// How long the result stays fresh: `ttlMs` on the wire, in whole milliseconds; zero means stale at once.
    pub ttl: std::time::Duration,
    /// Who may cache the result: `cacheScope` on the wire.
    pub scope: CacheScope,
}

impl CacheHint {
    /// Stale at once, for this caller only: what the spec has clients assume without hints.
    pub const NONE: CacheHint = CacheHint { ttl: std::time::Duration::ZERO, scope: CacheScope::Private };

    /// The narrower of two hints: the shorter time, and private over public. A result made of items
    /// carries the narrowest of theirs.
    pub fn narrowest(self, other: CacheHint) -> CacheHint {
        let scope = if self.scope == CacheScope::Private || other.scope == CacheScope::Private {
            CacheScope::Private
        } else {
            CacheScope::Public
        };
        CacheHint { ttl: self.ttl.min(other.ttl), scope }
    }

    /// `ttlMs`.
    pub fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }
}

/// A progress token: string or integer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProgressToken {
    /// An integer token.
    Number(i64),
    /// A string token.
    String(String),
}

//! Keys of `_meta` and the result-level fields the modern era adds.

use serde::{Deserialize, Serialize};

pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
pub const META_PROGRESS_TOKEN: &str = "progressToken";

/// The keys whose presence in a request's `_meta` claims the modern era.
pub const MODERN_CLAIM_KEYS: [&str; 3] = [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO];

/// `resultType` of every modern result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultType {
    Complete,
    InputRequired,
    #[serde(untagged)]
    Other(String),
}

/// Who may cache a modern result (`cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    Public,
    Private,
}

/// How long a modern result stays fresh, and for whom (`ttlMs`, `cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    pub ttl: std::time::Duration,
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
    Number(i64),
    String(String),
}

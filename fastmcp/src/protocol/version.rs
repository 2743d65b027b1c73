//! Protocol revisions and the two eras they fall into.

use std::fmt;

/// The eras the spec names: `Legacy` (handshake, sessions) and `Modern` (per-request `_meta`, stateless).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// 2024-11-05 … 2025-11-25: an `initialize` handshake fixes the revision and capabilities for a session (the stdio
    /// process or an HTTP session); requests flow both ways.
    Legacy,
    /// 2026-07-28 on: no handshake; each request carries its revision, client capabilities and client info in `_meta`
    /// and is served statelessly. Only the client sends requests.
    Modern,
}

/// Every protocol revision fastmcp serves, oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// `2024-11-05`: the oldest revision fastmcp serves; its HTTP transport was HTTP+SSE (since deprecated).
    V2024_11_05,
    /// `2025-03-26`: Streamable HTTP, tool annotations, audio content, completions, JSON-RPC batches.
    V2025_03_26,
    /// `2025-06-18`: structured tool output, resource links, form elicitation, the `MCP-Protocol-Version` header;
    /// batches removed.
    V2025_06_18,
    /// `2025-11-25`: the last legacy revision: URL elicitation, sampling with tools, icons, experimental tasks.
    V2025_11_25,
    /// `2026-07-28`: the first modern revision: stateless requests with per-request `_meta`, multi round-trip requests.
    V2026_07_28,
}

impl ProtocolVersion {
    /// All revisions, oldest first.
    pub const ALL: [ProtocolVersion; 5] =
        [Self::V2024_11_05, Self::V2025_03_26, Self::V2025_06_18, Self::V2025_11_25, Self::V2026_07_28];
    /// The newest revision of the legacy era: what `initialize` answers when it can't echo the client's.
    pub const LATEST_LEGACY: ProtocolVersion = Self::V2025_11_25;
    /// The newest revision overall.
    pub const LATEST: ProtocolVersion = Self::V2026_07_28;
    /// Modern revisions, newest first, as `server/discover` and `-32022` list them.
    pub const MODERN: [ProtocolVersion; 1] = [Self::V2026_07_28];

    /// The revision as the wire writes it (`protocolVersion`, `MCP-Protocol-Version`), e.g. `"2025-11-25"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    /// The revision `s` names, spelled exactly as the wire spells it; `None` for any revision fastmcp doesn't serve.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// The era the revision belongs to: only 2026-07-28 is modern.
    pub const fn era(self) -> Era {
        match self {
            Self::V2026_07_28 => Era::Modern,
            _ => Era::Legacy,
        }
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ProtocolVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

//! Protocol revisions and the two eras they fall into.

use std::fmt;

/// The eras the spec names: `Legacy` (handshake, sessions) and `Modern` (per-request `_meta`, stateless).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    Legacy,
    Modern,
}

/// Every protocol revision fastmcp serves, oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    V2024_11_05,
    V2025_03_26,
    V2025_06_18,
    V2025_11_25,
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

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }

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

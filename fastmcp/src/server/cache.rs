//! What modern results say about caching them (`ttlMs`, `cacheScope`): a default per cacheable operation,
//! set on the builder, and each component's own hint where it has one (`#[resource(ttl = "5m",
//! cache_scope = "public")]`). A result carries the narrowest hint of what it returns: a list, of every
//! item in it (one scope for every page, as the spec asks); a read, the resource's. A protected server
//! marks every result private (see the modern era adapter): what it answers depends on who asks.

use crate::protocol::{CacheHint, CacheScope};
use std::time::Duration;

/// The operations whose modern results carry cache hints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cached {
    /// `server/discover`.
    Discover,
    /// `tools/list`.
    ToolsList,
    /// `prompts/list`.
    PromptsList,
    /// `resources/list`.
    ResourcesList,
    /// `resources/templates/list`.
    TemplatesList,
    /// `resources/read`.
    ResourcesRead,
}

/// The hint of each cacheable operation, for results whose items set none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHints {
    /// For `server/discover` results.
    pub discover: CacheHint,
    /// For `tools/list` pages.
    pub tools_list: CacheHint,
    /// For `prompts/list` pages.
    pub prompts_list: CacheHint,
    /// For `resources/list` pages.
    pub resources_list: CacheHint,
    /// For `resources/templates/list` pages.
    pub templates_list: CacheHint,
    /// For `resources/read` results of resources that set no hint of their own.
    pub resources_read: CacheHint,
}

impl Default for CacheHints {
    /// Stale at once and private, everywhere (what the TypeScript SDK assumes without hints).
    fn default() -> Self {
        Self::all(CacheHint::NONE)
    }
}

impl CacheHints {
    /// The same hint for every operation.
    pub fn all(hint: CacheHint) -> Self {
        Self {
            discover: hint,
            tools_list: hint,
            prompts_list: hint,
            resources_list: hint,
            templates_list: hint,
            resources_read: hint,
        }
    }

    /// The hint of one operation.
    pub fn get(&self, op: Cached) -> CacheHint {
        *self.slot(op)
    }

    /// Replaces the hint of one operation (what [`FastMcp::cache_hint`](crate::FastMcp::cache_hint) does).
    pub fn set(&mut self, op: Cached, hint: CacheHint) {
        *self.slot_mut(op) = hint;
    }

    fn slot(&self, op: Cached) -> &CacheHint {
        match op {
            Cached::Discover => &self.discover,
            Cached::ToolsList => &self.tools_list,
            Cached::PromptsList => &self.prompts_list,
            Cached::ResourcesList => &self.resources_list,
            Cached::TemplatesList => &self.templates_list,
            Cached::ResourcesRead => &self.resources_read,
        }
    }

    fn slot_mut(&mut self, op: Cached) -> &mut CacheHint {
        match op {
            Cached::Discover => &mut self.discover,
            Cached::ToolsList => &mut self.tools_list,
            Cached::PromptsList => &mut self.prompts_list,
            Cached::ResourcesList => &mut self.resources_list,
            Cached::TemplatesList => &mut self.templates_list,
            Cached::ResourcesRead => &mut self.resources_read,
        }
    }
}

/// A component's own hint, each part falling back to the operation's.
pub(crate) fn item_hint(ttl: Option<Duration>, scope: Option<CacheScope>, default: CacheHint) -> CacheHint {
    CacheHint { ttl: ttl.unwrap_or(default.ttl), scope: scope.unwrap_or(default.scope) }
}

/// The narrowest of the items' hints; the operation's when there are no items.
pub(crate) fn narrowest(items: impl IntoIterator<Item = CacheHint>, default: CacheHint) -> CacheHint {
    items.into_iter().reduce(CacheHint::narrowest).unwrap_or(default)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint(ms: u64, scope: CacheScope) -> CacheHint {
        CacheHint { ttl: Duration::from_millis(ms), scope }
    }

    #[test]
    fn a_result_carries_the_narrowest_hint_of_its_items() {
        use CacheScope::{Private, Public};
        let default = hint(1_000, Public);
        assert_eq!(narrowest([], default), default, "no items: the operation's");
        assert_eq!(narrowest([hint(500, Public), hint(9_000, Public)], default), hint(500, Public));
        assert_eq!(narrowest([hint(500, Public), hint(9_000, Private)], default), hint(500, Private));
        assert_eq!(item_hint(None, Some(Private), default), hint(1_000, Private), "the part it sets");
        assert_eq!(item_hint(Some(Duration::from_secs(60)), None, default), hint(60_000, Public));
    }
}

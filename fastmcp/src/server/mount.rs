//! Composition: one server's components served by another. [`FastMcp::mount`] takes the child's tools and
//! prompts under `{prefix}_{name}` and its resources and templates under their own URIs, with the child's
//! middleware running inside the parent's for them, and its tag filter already applied.
//!
//! A mounted tool is registered under its prefixed name, so everything keyed by the name — lists, calls,
//! request state (bound to the name a client calls) — uses it, and its `.ask()` flows resume in the parent
//! as they would in the child.

use super::builder::FastMcp;
use super::catalog::{TagFilter, Tagged};
use super::middleware::Chain;
use super::registry::Registered;
use crate::auth::Access;
use crate::error::Error;
use crate::handler::{
    BoxFuture, Caching, CompletionQuery, HandlerResult, PromptGet, PromptHandler, TaskSupport, ToolCall, ToolHandler,
};
use crate::protocol::{CallToolResult, Completion, GetPromptResult, Prompt, Tool};
use std::sync::Arc;

impl FastMcp {
    /// Serves `child`'s components through this server: its tools and prompts as `{prefix}_{name}` (as
    /// they are, for an empty prefix), its resources and templates under their own URIs. The child's
    /// middleware runs after this server's, for the child's components only; what its tag filter leaves out
    /// is not mounted. A name that collides with another is an error at [`build`](FastMcp::build). Mounts
    /// nest: a child's own mounts come along, prefixed again.
    pub fn mount(mut self, prefix: impl Into<String>, child: FastMcp) -> Self {
        let prefix = prefix.into();
        let named = |name: &str| if prefix.is_empty() { name.to_owned() } else { format!("{prefix}_{name}") };
        let (filter, own): (_, Chain) = (child.tags, child.middleware.into());
        let tools = carried(child.registration.tools, &filter, &own, |inner| {
            let name = named(&inner.definition().name);
            Arc::new(Prefixed { inner, name })
        });
        let prompts = carried(child.registration.prompts, &filter, &own, |inner| {
            let name = named(&inner.definition().name);
            Arc::new(Prefixed { inner, name })
        });
        let resources = carried(child.registration.resources, &filter, &own, |inner| inner);
        self.registration.tools.extend(tools);
        self.registration.prompts.extend(prompts);
        self.registration.resources.extend(resources);
        self
    }
}

/// The child's components of one kind that its tag filter serves, each as `rename` makes it, with the
/// child's middleware (`own`) before that of its own mounts.
fn carried<H: ?Sized + Tagged>(
    registered: Vec<Registered<H>>,
    filter: &TagFilter,
    own: &Chain,
    rename: impl Fn(Arc<H>) -> Arc<H>,
) -> Vec<Registered<H>> {
    registered
        .into_iter()
        .filter(|r| filter.admits(&r.handler.tags()))
        .map(|r| Registered {
            handler: rename(r.handler),
            mounted: own.iter().chain(r.mounted.iter()).cloned().collect(),
        })
        .collect()
}

/// A mounted tool or prompt, listed and called by its prefixed name; everything else is the child's.
struct Prefixed<H: ?Sized> {
    inner: Arc<H>,
    name: String,
}

impl ToolHandler for Prefixed<dyn ToolHandler> {
    fn definition(&self) -> Tool {
        Tool { name: self.name.clone(), ..self.inner.definition() }
    }

    fn call(&self, call: ToolCall) -> BoxFuture<HandlerResult<CallToolResult>> {
        self.inner.call(call)
    }

    fn fingerprint(&self) -> u64 {
        self.inner.fingerprint()
    }

    fn timeout(&self) -> Option<std::time::Duration> {
        self.inner.timeout()
    }

    fn task_support(&self) -> TaskSupport {
        self.inner.task_support()
    }

    fn has_task_step(&self) -> bool {
        self.inner.has_task_step()
    }

    fn once(&self) -> bool {
        self.inner.once()
    }

    fn access(&self) -> Access {
        self.inner.access()
    }

    fn tags(&self) -> Vec<String> {
        self.inner.tags()
    }

    fn caching(&self) -> Caching {
        self.inner.caching()
    }
}

impl PromptHandler for Prefixed<dyn PromptHandler> {
    fn definition(&self) -> Prompt {
        Prompt { name: self.name.clone(), ..self.inner.definition() }
    }

    fn get(&self, get: PromptGet) -> BoxFuture<HandlerResult<GetPromptResult>> {
        self.inner.get(get)
    }

    fn fingerprint(&self) -> u64 {
        self.inner.fingerprint()
    }

    fn complete(&self, query: CompletionQuery) -> BoxFuture<Result<Completion, Error>> {
        self.inner.complete(query)
    }

    fn access(&self) -> Access {
        self.inner.access()
    }

    fn tags(&self) -> Vec<String> {
        self.inner.tags()
    }

    fn caching(&self) -> Caching {
        self.inner.caching()
    }
}

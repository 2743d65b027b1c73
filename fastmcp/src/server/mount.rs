//! Composition: one server's components served by another. [`FastMcp::mount`] takes the child's tools and
//! prompts under `{prefix}_{name}` and its resources and templates under their own URIs, with the child's
//! middleware running inside the parent's for them, and its tag filter already applied.
//!
//! A mounted tool is registered under its prefixed name, so everything keyed by the name — lists, calls,
//! request state (bound to the name a client calls) — uses it, and its `.ask()` flows resume in the parent
//! as they would in the child.

use super::builder::FastMcp;
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
        let filter = child.tags.clone();
        let own: super::middleware::Chain = child.middleware.into();
        let mounted = |theirs: &super::middleware::Chain| -> super::middleware::Chain {
            own.iter().chain(theirs.iter()).cloned().collect()
        };
        let named = |name: &str| if prefix.is_empty() { name.to_owned() } else { format!("{prefix}_{name}") };
        for registered in child.registration.tools {
            if !filter.admits(&registered.handler.tags()) {
                continue;
            }
            let name = named(&registered.handler.definition().name);
            let handler: Arc<dyn ToolHandler> = Arc::new(Prefixed { inner: registered.handler, name });
            self.registration.tools.push(Registered { handler, mounted: mounted(&registered.mounted) });
        }
        for registered in child.registration.prompts {
            if !filter.admits(&registered.handler.tags()) {
                continue;
            }
            let name = named(&registered.handler.definition().name);
            let handler: Arc<dyn PromptHandler> = Arc::new(Prefixed { inner: registered.handler, name });
            self.registration.prompts.push(Registered { handler, mounted: mounted(&registered.mounted) });
        }
        for registered in child.registration.resources {
            if !filter.admits(&registered.handler.tags()) {
                continue;
            }
            let handler = registered.handler;
            self.registration.resources.push(Registered { handler, mounted: mounted(&registered.mounted) });
        }
        self
    }
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

//! Changing what a running server serves: components added, removed, enabled and disabled while it
//! serves, from anywhere that holds the [`Server`] — a handler reaches it with [`Context::server`].
//!
//! Each change builds the next registry (lists serialized, names checked) off to the side and swaps it in
//! at once: a request in flight keeps the registry it started with, the next one sees the change whole,
//! and readers never wait for a writer. Every change that altered something tells clients its list
//! changed (`notifications/*/list_changed` to legacy sessions, and on modern `subscriptions/listen`
//! streams), one notification per change.
//!
//! ```no_run
//! # use fastmcp::prelude::*;
//! # #[tool] async fn report() -> String { String::new() }
//! /// Turns on the reporting tool for everyone.
//! #[tool]
//! async fn unlock(ctx: Context) -> Result<String> {
//!     let server = ctx.server().ok_or_else(|| Error::msg("not served"))?;
//!     server.add_tool(report)?;
//!     Ok("report is available".into())
//! }
//! ```

use super::catalog::{Catalog, Component};
use super::running::{Server, ServerInner};
use crate::context::Context;
use crate::error::Result;
use crate::handler::{PromptHandler, ResourceHandler, ToolHandler};
use crate::protocol::ListChanged;
use std::sync::Arc;

impl Server {
    /// Serves one more tool, listed after the others. A tool of the same name, enabled or not, is an
    /// error, as is an invalid definition; nothing changes then.
    pub fn add_tool(&self, tool: impl ToolHandler) -> Result<()> {
        self.add(Component::Tool(Arc::new(tool)))
    }

    /// Serves one more prompt (see [`add_tool`](Self::add_tool)).
    pub fn add_prompt(&self, prompt: impl PromptHandler) -> Result<()> {
        self.add(Component::Prompt(Arc::new(prompt)))
    }

    /// Serves one more resource or resource template (see [`add_tool`](Self::add_tool)).
    pub fn add_resource(&self, resource: impl ResourceHandler) -> Result<()> {
        self.add(Component::Resource(Arc::new(resource)))
    }

    /// Stops serving the tool `name`; whether there was one. Calls already running finish; a later round
    /// of one that suspended finds the tool unknown.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.edit(ListChanged::Tools, |catalog| Ok(catalog.remove(ListChanged::Tools, name)))
    }

    /// Stops serving the prompt `name`; whether there was one (see [`remove_tool`](Self::remove_tool)).
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.edit(ListChanged::Prompts, |catalog| Ok(catalog.remove(ListChanged::Prompts, name)))
    }

    /// Stops serving the resource with this URI, or the template with this URI template.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.edit(ListChanged::Resources, |catalog| Ok(catalog.remove(ListChanged::Resources, uri)))
    }

    /// Serves a disabled tool again, where it was in the list; whether it was disabled.
    pub fn enable_tool(&self, name: &str) -> bool {
        self.switch(ListChanged::Tools, name, true)
    }

    /// Hides a tool from lists and calls, as if it were not registered, until it is enabled again;
    /// whether it was enabled.
    pub fn disable_tool(&self, name: &str) -> bool {
        self.switch(ListChanged::Tools, name, false)
    }

    /// Serves a disabled prompt again, where it was in the list; whether it was disabled.
    pub fn enable_prompt(&self, name: &str) -> bool {
        self.switch(ListChanged::Prompts, name, true)
    }

    /// Hides a prompt from lists and gets until it is enabled again; whether it was enabled.
    pub fn disable_prompt(&self, name: &str) -> bool {
        self.switch(ListChanged::Prompts, name, false)
    }

    /// Enables the resource with this URI, or the template with this URI template.
    pub fn enable_resource(&self, uri: &str) -> bool {
        self.switch(ListChanged::Resources, uri, true)
    }

    /// Hides the resource with this URI, or the template with this URI template, from lists and reads
    /// until it is enabled again; whether it was enabled.
    pub fn disable_resource(&self, uri: &str) -> bool {
        self.switch(ListChanged::Resources, uri, false)
    }

    fn add(&self, component: Component) -> Result<()> {
        let list = component.list();
        self.change(list, |catalog| catalog.add(component).map(|()| true)).map(drop)
    }

    fn switch(&self, list: ListChanged, key: &str, enabled: bool) -> bool {
        self.edit(list, |catalog| Ok(catalog.set_enabled(list, key, enabled)))
    }

    /// A change that can only fail by building an invalid registry — which removing or switching a
    /// component never does; should it, the change is not made, and said.
    fn edit(&self, list: ListChanged, edit: impl FnOnce(&mut Catalog) -> Result<bool>) -> bool {
        self.change(list, edit).unwrap_or_else(|e| {
            tracing::error!("a change to the {list:?} list was not made: {e}");
            false
        })
    }

    /// The one way what is served changes: `edit` a copy of the catalog (`Ok(false)`: nothing to do),
    /// build its registry, then keep both and announce the change. Changes apply one at a time.
    fn change(&self, list: ListChanged, edit: impl FnOnce(&mut Catalog) -> Result<bool>) -> Result<bool> {
        let inner = &self.inner;
        let mut catalog = inner.catalog.lock().unwrap_or_else(|p| p.into_inner());
        let mut next = catalog.clone();
        if !edit(&mut next)? {
            return Ok(false);
        }
        let registry = next.registry(&inner.options, &inner.middleware)?;
        inner.registry.store(Arc::new(registry));
        *catalog = next;
        drop(catalog);
        self.notify_list_changed(list);
        Ok(true)
    }
}

impl Context {
    /// The server serving this request: to change what it serves (see [`Server::add_tool`]) or announce
    /// changes. `None` on a context made outside a server ([`Context::new`]).
    pub fn server(&self) -> Option<Server> {
        let inner = self.announcer()?.as_any().downcast::<ServerInner>().ok()?;
        Some(Server { inner })
    }
}

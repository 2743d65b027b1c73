//! Everything the server was given to serve, as it changes while it runs: each registered component in
//! order, whether it is enabled, and the tag filter chosen at build time. A [`Registry`] is built from
//! what the catalog admits; a change edits a copy of the catalog, builds the next registry from it and
//! only then keeps both, so a change that would make an invalid registry changes nothing.

use super::builder::Options;
use super::middleware::Chain;
use super::registry::{Registered, Registration, Registry};
use crate::error::{Error, Result};
use crate::handler::{PromptHandler, ResourceDefinition, ResourceHandler, ToolHandler};
use crate::protocol::ListChanged;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Which components a server serves by their tags: those with an included tag (every one, when none is
/// included), less those with an excluded tag.
#[derive(Debug, Clone, Default)]
pub(crate) struct TagFilter {
    pub include: BTreeSet<String>,
    pub exclude: BTreeSet<String>,
}

impl TagFilter {
    pub fn admits(&self, tags: &[String]) -> bool {
        (self.include.is_empty() || tags.iter().any(|t| self.include.contains(t)))
            && !tags.iter().any(|t| self.exclude.contains(t))
    }
}

/// One registered component.
struct Entry<H: ?Sized> {
    registered: Registered<H>,
    /// Its name (tools, prompts), URI or URI template (resources): what changes name it by.
    key: String,
    tags: Vec<String>,
    enabled: bool,
}

// Not derived: that would ask `H: Clone` of the handler, where only the `Arc` is cloned.
impl<H: ?Sized> Clone for Entry<H> {
    fn clone(&self) -> Self {
        let (registered, key, tags) = (self.registered.clone(), self.key.clone(), self.tags.clone());
        Self { registered, key, tags, enabled: self.enabled }
    }
}

#[derive(Clone, Default)]
pub(crate) struct Catalog {
    tools: Vec<Entry<dyn ToolHandler>>,
    prompts: Vec<Entry<dyn PromptHandler>>,
    resources: Vec<Entry<dyn ResourceHandler>>,
    filter: TagFilter,
}

/// A new component, for [`Catalog::add`].
pub(crate) enum Component {
    Tool(Arc<dyn ToolHandler>),
    Prompt(Arc<dyn PromptHandler>),
    Resource(Arc<dyn ResourceHandler>),
}

impl Component {
    /// The list a change to this component changes.
    pub fn list(&self) -> ListChanged {
        match self {
            Component::Tool(_) => ListChanged::Tools,
            Component::Prompt(_) => ListChanged::Prompts,
            Component::Resource(_) => ListChanged::Resources,
        }
    }
}

impl Catalog {
    /// The builder's registrations, all enabled (duplicates are the registry's to report, all at once).
    pub fn new(registration: Registration, filter: TagFilter) -> Self {
        let tools = registration.tools.into_iter().map(|r| entry(r.handler.definition().name, r)).collect();
        let prompts = registration.prompts.into_iter().map(|r| entry(r.handler.definition().name, r)).collect();
        let resources = registration.resources.into_iter().map(|r| entry(resource_key(&*r.handler), r)).collect();
        Self { tools, prompts, resources, filter }
    }

    /// The registry of what is enabled and admitted by the tag filter.
    pub fn registry(&self, options: &Options, chain: &Chain) -> Result<Registry> {
        fn served<H: ?Sized>(entries: &[Entry<H>], filter: &TagFilter) -> Vec<Registered<H>> {
            entries.iter().filter(|e| e.enabled && filter.admits(&e.tags)).map(|e| e.registered.clone()).collect()
        }
        let registration = Registration {
            tools: served(&self.tools, &self.filter),
            prompts: served(&self.prompts, &self.filter),
            resources: served(&self.resources, &self.filter),
        };
        Registry::build(&registration, options, chain)
    }

    /// Adds a component after those registered; one of the same name (or URI) is an error, enabled or not.
    pub fn add(&mut self, component: Component) -> Result<()> {
        fn push<H: ?Sized>(entries: &mut Vec<Entry<H>>, new: Entry<H>, what: &str) -> Result<()> {
            if entries.iter().any(|e| e.key == new.key) {
                return Err(Error::msg(format!("{what} `{}` is registered already", new.key)));
            }
            entries.push(new);
            Ok(())
        }
        match component {
            Component::Tool(h) => push(&mut self.tools, entry(h.definition().name, Registered::new(h)), "a tool named"),
            Component::Prompt(h) => {
                push(&mut self.prompts, entry(h.definition().name, Registered::new(h)), "a prompt named")
            }
            Component::Resource(h) => {
                push(&mut self.resources, entry(resource_key(&*h), Registered::new(h)), "a resource")
            }
        }
    }

    /// Removes the component `key` names from `list`; whether there was one.
    pub fn remove(&mut self, list: ListChanged, key: &str) -> bool {
        fn remove<H: ?Sized>(entries: &mut Vec<Entry<H>>, key: &str) -> bool {
            let before = entries.len();
            entries.retain(|e| e.key != key);
            entries.len() != before
        }
        match list {
            ListChanged::Tools => remove(&mut self.tools, key),
            ListChanged::Prompts => remove(&mut self.prompts, key),
            ListChanged::Resources => remove(&mut self.resources, key),
        }
    }

    /// Enables or disables the component `key` names; whether that changed anything. A disabled component
    /// is neither listed nor served, as if it were not registered, until it is enabled again.
    pub fn set_enabled(&mut self, list: ListChanged, key: &str, enabled: bool) -> bool {
        fn set<H: ?Sized>(entries: &mut [Entry<H>], key: &str, enabled: bool) -> bool {
            match entries.iter_mut().find(|e| e.key == key) {
                Some(entry) if entry.enabled != enabled => {
                    entry.enabled = enabled;
                    true
                }
                _ => false,
            }
        }
        match list {
            ListChanged::Tools => set(&mut self.tools, key, enabled),
            ListChanged::Prompts => set(&mut self.prompts, key, enabled),
            ListChanged::Resources => set(&mut self.resources, key, enabled),
        }
    }
}

/// An enabled entry, its tags read once.
fn entry<H: ?Sized + Tagged>(key: String, registered: Registered<H>) -> Entry<H> {
    let tags = registered.handler.tags();
    Entry { registered, key, tags, enabled: true }
}

/// The handler traits' `tags`, for code generic over them.
pub(crate) trait Tagged {
    fn tags(&self) -> Vec<String>;
}

impl Tagged for dyn ToolHandler {
    fn tags(&self) -> Vec<String> {
        ToolHandler::tags(self)
    }
}

impl Tagged for dyn PromptHandler {
    fn tags(&self) -> Vec<String> {
        PromptHandler::tags(self)
    }
}

impl Tagged for dyn ResourceHandler {
    fn tags(&self) -> Vec<String> {
        ResourceHandler::tags(self)
    }
}

fn resource_key(handler: &dyn ResourceHandler) -> String {
    match handler.definition() {
        ResourceDefinition::Static(def) => def.uri,
        ResourceDefinition::Template(def) => def.uri_template,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_tag_filter_includes_then_excludes() {
        let all = TagFilter::default();
        assert!(all.admits(&[]) && all.admits(&tags(&["x"])));
        let filter = TagFilter {
            include: ["public", "beta"].map(String::from).into(),
            exclude: ["internal"].map(String::from).into(),
        };
        assert!(filter.admits(&tags(&["public"])));
        assert!(filter.admits(&tags(&["beta", "other"])));
        assert!(!filter.admits(&[]), "nothing included");
        assert!(!filter.admits(&tags(&["public", "internal"])), "excluded wins");
        let exclude_only = TagFilter { exclude: ["internal"].map(String::from).into(), ..TagFilter::default() };
        assert!(exclude_only.admits(&[]) && !exclude_only.admits(&tags(&["internal"])));
    }
}

//! The registry: handlers, their definitions, the `*/list` pages and the capabilities they make, built
//! whole from the [`Catalog`](super::catalog::Catalog) and never changed after. A change to what the server
//! serves builds the next registry and swaps it in (see [`Server::add_tool`](super::Server::add_tool)).

use super::Options;
use super::cache::{self, Cached};
use super::call::List;
use super::middleware::Chain;
use super::pagination;
use super::uri_template::UriTemplate;
use crate::auth::{Access, AccessToken};
use crate::error::Error;
use crate::handler::{Caching, PromptHandler, ResourceDefinition, ResourceHandler, TaskSupport, ToolHandler};
use crate::protocol::param_headers::{self, ParamHeader};
use crate::protocol::{
    CacheHint, JsonObject, ListChangedCapability, Prompt, Resource, ResourceTemplate, ResourcesCapability,
    ServerCapabilities, Tool,
};
use crate::schema::WRAP_RESULT_KEY;
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Template variables a URI bound.
pub(crate) type Variables = BTreeMap<String, String>;

pub(crate) struct ToolEntry {
    pub handler: Arc<dyn ToolHandler>,
    pub name: String,
    /// Structured output travels as `{"result": …}` (see [`crate::schema::output_schema`]).
    pub wrap_result: bool,
    /// Arguments mirrored into `Mcp-Param-*` headers on HTTP.
    pub param_headers: Vec<ParamHeader>,
    /// Whether calls may run as tasks, and whether the body places the switch itself (read once).
    pub task_support: crate::handler::TaskSupport,
    pub task_step: bool,
    /// A one-time flow: its final round's token is consumed (`#[tool(once)]` or `destructive`).
    pub once: bool,
    pub access: Access,
    /// The middleware its calls go through.
    pub chain: Chain,
}

pub(crate) struct PromptEntry {
    pub handler: Arc<dyn PromptHandler>,
    pub access: Access,
    pub chain: Chain,
}

pub(crate) struct ResourceEntry {
    pub handler: Arc<dyn ResourceHandler>,
    pub access: Access,
    /// What its reads say about caching.
    pub hint: CacheHint,
    pub chain: Chain,
}

pub(crate) struct TemplateEntry {
    pub handler: Arc<dyn ResourceHandler>,
    pub template: UriTemplate,
    pub uri_template: String,
    pub access: Access,
    pub hint: CacheHint,
    pub chain: Chain,
}

/// One `*/list`, serialized once: whole pages for callers who may see everything, and each item with who
/// may see it, for the pages of callers who may not.
pub(crate) struct Listing {
    pages: Vec<Arc<RawValue>>,
    items: Vec<(Access, Box<RawValue>)>,
    /// Every item is open to every caller: the whole pages serve all.
    open: bool,
    page_size: usize,
    /// The narrowest of the items' hints, for every page.
    pub hint: CacheHint,
}

/// One item of a list: who may see it, what it says about caching, and its entry.
type Item<T> = (Access, CacheHint, T);

impl Listing {
    fn build<T: Serialize>(items: Vec<Item<T>>, page_size: usize, default: CacheHint) -> Result<Self, Error> {
        let open = items.iter().all(|(access, ..)| access.is_public());
        let hint = cache::narrowest(items.iter().map(|(_, hint, _)| *hint), default);
        let items: Vec<(Access, Box<RawValue>)> = items
            .into_iter()
            .map(|(access, _, item)| Ok((access, serde_json::value::to_raw_value(&item)?)))
            .collect::<Result<_, Error>>()?;
        let pages = paginate(items.iter().map(|(_, raw)| &**raw), page_size)?;
        Ok(Self { pages, items, open, page_size, hint })
    }

    /// The page a cursor names for `caller` — only what it may use — and the cursor of the next page;
    /// `None` for a cursor that names no page.
    pub fn page(&self, cursor: Option<&str>, caller: Option<&AccessToken>) -> Result<Option<Page>, Error> {
        let filtered;
        let pages = if self.open {
            &self.pages
        } else {
            let visible = self.items.iter().filter(|(access, _)| access.permits(caller).is_ok());
            filtered = paginate(visible.map(|(_, raw)| &**raw), self.page_size)?;
            &filtered
        };
        let Some(index) = pagination::decode(cursor, pages.len()) else { return Ok(None) };
        let next = (index + 1 < pages.len()).then(|| pagination::encode(index + 1));
        Ok(Some((pages[index].clone(), next)))
    }
}

/// One page of a list, and the cursor of the next.
pub(crate) type Page = (Arc<RawValue>, Option<String>);

/// Items joined into JSON arrays of `page_size`; one empty page when there are none.
fn paginate<'a>(items: impl Iterator<Item = &'a RawValue>, page_size: usize) -> Result<Vec<Arc<RawValue>>, Error> {
    let items: Vec<&RawValue> = items.collect();
    if items.is_empty() {
        return Ok(vec![Arc::from(RawValue::from_string("[]".to_owned())?)]);
    }
    items.chunks(page_size).map(|chunk| Ok(Arc::from(serde_json::value::to_raw_value(chunk)?))).collect()
}

/// The handlers a registry is built from, in registration order.
#[derive(Default, Clone)]
pub(crate) struct Registration {
    pub tools: Vec<Registered<dyn ToolHandler>>,
    pub prompts: Vec<Registered<dyn PromptHandler>>,
    pub resources: Vec<Registered<dyn ResourceHandler>>,
}

/// A handler as registered: with the middleware of the servers it was mounted from, outermost first
/// (empty for the server's own), which run inside the server's own for its requests.
pub(crate) struct Registered<H: ?Sized> {
    pub handler: Arc<H>,
    pub mounted: Chain,
}

impl<H: ?Sized> Registered<H> {
    pub fn new(handler: Arc<H>) -> Self {
        Self { handler, mounted: Arc::new([]) }
    }
}

// Not derived: that would ask `H: Clone` of the handler, where only the `Arc`s are cloned.
impl<H: ?Sized> Clone for Registered<H> {
    fn clone(&self) -> Self {
        Self { handler: self.handler.clone(), mounted: self.mounted.clone() }
    }
}

/// The chain a component's requests go through: the server's, then its mounts'.
fn chain_of(server: &Chain, mounted: &Chain) -> Chain {
    if mounted.is_empty() { server.clone() } else { server.iter().chain(mounted.iter()).cloned().collect() }
}

/// A registry map from a component's name (or URI) to its entry. A call looks its tool up more than once,
/// so it hashes with foldhash (see Cargo.toml) rather than SipHash. Only the server's own components are
/// ever inserted, so a client can't choose names that collide in it.
pub(crate) type ByName<V> = HashMap<String, V, foldhash::fast::RandomState>;

pub(crate) struct Registry {
    pub tools: ByName<Arc<ToolEntry>>,
    pub prompts: ByName<Arc<PromptEntry>>,
    pub resources: ByName<ResourceEntry>,
    /// In registration order: the first template that matches a URI serves it.
    pub templates: Vec<TemplateEntry>,
    pub tool_list: Listing,
    pub prompt_list: Listing,
    pub resource_list: Listing,
    pub template_list: Listing,
    /// Some component asks for more than an admitted caller (scopes or a check); else no request needs an
    /// access check.
    pub restricted: bool,
    /// What the server declares, following what is registered.
    pub capabilities: ServerCapabilities,
    /// Longer URIs match no template ([`Options::max_uri_bytes`](super::Options::max_uri_bytes)).
    pub max_uri_bytes: usize,
}

impl Registry {
    /// Reads every definition once, checks names are unique and templates parse, and serializes the pages;
    /// each entry's requests go through `served` (the server's middleware), then its mounts'.
    pub fn build(reg: &Registration, options: &Options, served: &Chain) -> Result<Self, Error> {
        let (page_size, cache) = (options.page_size, &options.cache);
        let mut problems = Vec::new();
        let hint = |caching: Caching, op: Cached| cache::item_hint(caching.ttl, caching.scope, cache.get(op));

        let mut tools = ByName::default();
        let mut tool_defs: Vec<Item<Tool>> = Vec::new();
        for registered in &reg.tools {
            let handler = registered.handler.clone();
            let def = handler.definition();
            if let Err(why) = check_tool_name(&def.name) {
                problems.push(why);
            }
            let wrap_result = def.output_schema.as_ref().is_some_and(|s| s.contains_key(WRAP_RESULT_KEY));
            let param_headers = param_headers::collect(&def.name, &def.input_schema).unwrap_or_else(|why| {
                problems.push(why);
                Vec::new()
            });
            let (task_support, task_step, access) = (handler.task_support(), handler.has_task_step(), handler.access());
            let destructive = def.annotations.as_ref().is_some_and(|a| a.destructive_hint == Some(true));
            let once = handler.once() || destructive;
            let handler_caching = handler.caching();
            let (name, chain) = (def.name.clone(), chain_of(served, &registered.mounted));
            let entry =
                ToolEntry { handler, name, wrap_result, param_headers, task_support, task_step, once, access, chain };
            if tools.insert(def.name.clone(), Arc::new(entry)).is_some() {
                problems.push(format!("two tools are named `{}`; tool names must be unique", def.name));
            }
            tool_defs.push((access, hint(handler_caching, Cached::ToolsList), def));
        }

        let mut prompts = ByName::default();
        let mut prompt_defs: Vec<Item<Prompt>> = Vec::new();
        for registered in &reg.prompts {
            let handler = registered.handler.clone();
            let (def, access) = (handler.definition(), handler.access());
            let item_hint = hint(handler.caching(), Cached::PromptsList);
            let entry = PromptEntry { handler, access, chain: chain_of(served, &registered.mounted) };
            if prompts.insert(def.name.clone(), Arc::new(entry)).is_some() {
                problems.push(format!("two prompts are named `{}`; prompt names must be unique", def.name));
            }
            prompt_defs.push((access, item_hint, def));
        }

        let mut resources = ByName::default();
        let mut templates: Vec<TemplateEntry> = Vec::new();
        let mut resource_defs: Vec<Item<Resource>> = Vec::new();
        let mut template_defs: Vec<Item<ResourceTemplate>> = Vec::new();
        for registered in &reg.resources {
            let handler = registered.handler.clone();
            let (access, caching) = (handler.access(), handler.caching());
            let (read_hint, entry_chain) =
                (hint(caching, Cached::ResourcesRead), chain_of(served, &registered.mounted));
            match handler.definition() {
                ResourceDefinition::Static(def) => {
                    let entry = ResourceEntry { handler, access, hint: read_hint, chain: entry_chain };
                    if resources.insert(def.uri.clone(), entry).is_some() {
                        problems.push(format!("two resources have the URI `{}`", def.uri));
                    }
                    resource_defs.push((access, hint(caching, Cached::ResourcesList), def));
                }
                ResourceDefinition::Template(def) => {
                    if templates.iter().any(|t| t.uri_template == def.uri_template) {
                        problems.push(format!("two resource templates are `{}`", def.uri_template));
                    }
                    match UriTemplate::parse(&def.uri_template) {
                        Ok(template) => templates.push(TemplateEntry {
                            handler,
                            template,
                            uri_template: def.uri_template.clone(),
                            access,
                            hint: read_hint,
                            chain: entry_chain,
                        }),
                        Err(why) => problems.push(format!("resource template: {why}")),
                    }
                    template_defs.push((access, hint(caching, Cached::TemplatesList), def));
                }
            }
        }

        if !problems.is_empty() {
            return Err(Error::msg(format!("the server's registry is invalid: {}", problems.join("; "))));
        }
        let page_size = page_size.max(1);
        let tool_list = Listing::build(tool_defs, page_size, cache.tools_list)?;
        let prompt_list = Listing::build(prompt_defs, page_size, cache.prompts_list)?;
        let resource_list = Listing::build(resource_defs, page_size, cache.resources_list)?;
        let template_list = Listing::build(template_defs, page_size, cache.templates_list)?;
        let restricted = [&tool_list, &prompt_list, &resource_list, &template_list].iter().any(|l| !l.open);
        let mut registry = Self {
            tool_list,
            prompt_list,
            resource_list,
            template_list,
            restricted,
            tools,
            prompts,
            resources,
            templates,
            capabilities: ServerCapabilities::default(),
            max_uri_bytes: options.max_uri_bytes,
        };
        registry.capabilities = registry.declared();
        Ok(registry)
    }

    /// The list a `*/list` request pages through.
    pub fn listing(&self, list: List) -> &Listing {
        match list {
            List::Tools => &self.tool_list,
            List::Prompts => &self.prompt_list,
            List::Resources => &self.resource_list,
            List::Templates => &self.template_list,
        }
    }

    /// Capabilities follow what is registered: nothing is advertised that the server cannot serve. The
    /// tasks extension is advertised when a tool supports tasks (under `extensions`, never the legacy
    /// `tasks` slot).
    fn declared(&self) -> ServerCapabilities {
        let has_prompts = !self.prompts.is_empty();
        let has_tasks = self.tools.values().any(|t| t.task_support != TaskSupport::Forbidden);
        let extensions = has_tasks.then(|| {
            let mut extensions = JsonObject::new();
            extensions.insert(crate::protocol::TASKS_EXTENSION.into(), serde_json::Value::Object(JsonObject::new()));
            extensions
        });
        let has_resources = !self.resources.is_empty() || !self.templates.is_empty();
        ServerCapabilities {
            logging: Some(JsonObject::new()),
            completions: (has_prompts || !self.templates.is_empty()).then(JsonObject::new),
            // Changes reach clients through `Server::notify_list_changed` and the live registry's changes.
            tools: (!self.tools.is_empty()).then_some(ListChangedCapability { list_changed: Some(true) }),
            prompts: has_prompts.then_some(ListChangedCapability { list_changed: Some(true) }),
            // Legacy sessions may subscribe to a resource's updates.
            resources: has_resources.then_some(ResourcesCapability { subscribe: Some(true), list_changed: Some(true) }),
            extensions,
            ..ServerCapabilities::default()
        }
    }

    /// The resource serving a URI: an exact static match first, then the first matching template.
    pub fn resolve(&self, uri: &str) -> Option<Resolved<'_>> {
        if let Some(entry) = self.resources.get(uri) {
            let (handler, access, hint, chain) = (&entry.handler, entry.access, entry.hint, &entry.chain);
            return Some(Resolved { handler, variables: BTreeMap::new(), access, hint, chain });
        }
        // Matching a template costs in proportion to the URI's length: past the limit, none is tried.
        if uri.len() > self.max_uri_bytes {
            return None;
        }
        self.templates.iter().find_map(|t| {
            let variables = t.template.match_uri(uri)?;
            Some(Resolved { handler: &t.handler, variables, access: t.access, hint: t.hint, chain: &t.chain })
        })
    }
}

/// The resource a URI reaches.
pub(crate) struct Resolved<'a> {
    pub handler: &'a Arc<dyn ResourceHandler>,
    pub variables: Variables,
    pub access: Access,
    pub hint: CacheHint,
    pub chain: &'a Chain,
}

/// Tool names: 1–128 characters of `[A-Za-z0-9_.-]` (2025-11-25 SHOULD; clients drop others).
fn check_tool_name(name: &str) -> Result<(), String> {
    let ok = (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if ok { Ok(()) } else { Err(format!("tool name `{name}` must be 1–128 characters of A-Z a-z 0-9 _ . -")) }
}

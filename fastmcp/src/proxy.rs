//! Serve another MCP server's tools, prompts and resources through ours (feature `client`).
//!
//! [`Proxy::connect`] lists what the upstream server offers once — a snapshot, not kept in step with its
//! later changes — and [`FastMcp::proxy`] registers each item as a handler whose calls go upstream through
//! the [`Client`].
//!
//! ```no_run
//! # async fn demo() -> fastmcp::Result<()> {
//! use fastmcp::FastMcp;
//! use fastmcp::client::{ClientBuilder, EraChoice};
//! use fastmcp::proxy::Proxy;
//!
//! let upstream = ClientBuilder::new("my-proxy", "1.0")
//!     .era(EraChoice::Modern)
//!     .connect("cargo run -q -p fastmcp-examples --bin deploy")
//!     .await?;
//! let proxy = Proxy::connect(upstream).await?.prefix("remote_");
//! FastMcp::new("proxy").proxy(proxy).run().await?;
//! # Ok(()) }
//! ```
//!
//! # Input required
//!
//! When a **modern** upstream (protocol 2026-07-28) ends a round with `input_required`, the proxied handler
//! does not answer it: it suspends its own round with the upstream's `inputRequests`, carrying the
//! upstream's `requestState` as its state. So *our* caller answers them — a modern caller in its retry
//! (the upstream's state travels inside our own signed request state), a legacy caller through our legacy
//! shim's server-to-client requests — and the next round retries upstream with those answers and the
//! upstream's state echoed. Each upstream request declares our caller's capabilities (elicitation,
//! sampling, roots), so the upstream asks only for what the caller can answer. A state-only upstream round
//! (no `inputRequests`) is retried by the proxy itself, a bounded number of times.
//!
//! A **legacy** upstream (the client settled on `initialize`) asks with server-to-client requests on its
//! session, mid-call. The client turns each into a round of the same shape (see
//! [`Client::call_tool_round`]): the upstream call waits, parked in this process under a ticket that
//! travels as the upstream "state", while our caller answers; the answers go back to the waiting upstream
//! request. Build that client with [`ClientBuilder::declare`](crate::client::ClientBuilder::declare) for
//! what callers may answer (a legacy session declares its capabilities once, at `initialize`). Over HTTP
//! each question comes on its call's own stream, so concurrent calls each get their own; over stdio
//! nothing says which call a question belongs to, so it reaches a caller only while that call is the one
//! in flight (otherwise the proxy's own handlers, if any, answer it). A parked call lives in one process:
//! a proxy to a legacy upstream is stateful, and a round that comes back to another replica, or after
//! [`ClientBuilder::legacy_round_timeout`](crate::client::ClientBuilder::legacy_round_timeout), fails.

//! # Errors
//!
//! A JSON-RPC error from upstream becomes ours with the same code, message and data. A failure to reach
//! the upstream server (transport, HTTP, a malformed answer) is a tool error (`isError`) for a tool, and an
//! internal error for a prompt or a resource.
//!
//! Not proxied: completions, subscriptions and list changes, progress and log notifications, and tasks
//! (upstream tools are served as plain calls).

use crate::FastMcp;
use crate::client::{Client, ClientError, Retry, Round};
use crate::error::Error;
use crate::flow::{Resume, Step, Suspension};
use crate::handler::{
    BoxFuture, HandlerResult, PromptGet, PromptHandler, ResourceDefinition, ResourceHandler, ResourceRead, ToolCall,
    ToolHandler,
};
use crate::protocol::{
    CallToolResult, ClientCapabilities, GetPromptResult, JsonObject, Prompt, ReadResourceResult, Resource,
    ResourceTemplate, Tool,
};
use crate::schema::WRAP_RESULT_KEY;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// State-only upstream rounds the proxy retries itself within one of its own rounds.
const STATE_ONLY_ROUNDS: u32 = 8;

/// The step a proxied handler suspends at: there is one, "waiting for the caller's answers".
const AWAITING_ANSWERS: u32 = 1;

/// Another MCP server's components, listed once, ready to register with [`FastMcp::proxy`].
pub struct Proxy {
    client: Arc<Client>,
    prefix: String,
    tools: Vec<Tool>,
    prompts: Vec<Prompt>,
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
}

impl Proxy {
    /// Lists the upstream server's tools, prompts, resources and resource templates (each kind the server
    /// declares a capability for).
    pub async fn connect(client: Client) -> Result<Proxy, ClientError> {
        let capabilities = client.server_capabilities().clone();
        let tools = if capabilities.tools.is_some() { client.list_tools().await? } else { Vec::new() };
        let prompts = if capabilities.prompts.is_some() { client.list_prompts().await? } else { Vec::new() };
        let (resources, templates) = if capabilities.resources.is_some() {
            (client.list_resources().await?, client.list_resource_templates().await?)
        } else {
            (Vec::new(), Vec::new())
        };
        Ok(Proxy { client: Arc::new(client), prefix: String::new(), tools, prompts, resources, templates })
    }

    /// Serves the upstream's tools and prompts as `{prefix}{name}` (resource URIs are served unchanged).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The client the calls go through.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The upstream's tools, as listed (names without the prefix).
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The upstream's prompts, as listed (names without the prefix).
    pub fn prompts(&self) -> &[Prompt] {
        &self.prompts
    }

    /// The upstream's resources with fixed URIs, as listed (served under the same URIs).
    pub fn resources(&self) -> &[Resource] {
        &self.resources
    }

    /// The upstream's resource templates, as listed (served under the same URI templates).
    pub fn resource_templates(&self) -> &[ResourceTemplate] {
        &self.templates
    }
}

impl FastMcp {
    /// Registers every tool, prompt, resource and resource template of `proxy`: calls to them go to the
    /// upstream server (see [`crate::proxy`]).
    pub fn proxy(mut self, proxy: Proxy) -> Self {
        let Proxy { client, prefix, tools, prompts, resources, templates } = proxy;
        for mut definition in tools {
            let upstream = definition.name.clone();
            definition.name = format!("{prefix}{upstream}");
            // Upstream tasks are not proxied: the tool is served as a plain call.
            definition.execution = None;
            // An upstream fastmcp marks a schema whose result it wrapped as `{"result": …}`: the result comes
            // here wrapped already, and our dispatch must not wrap it again.
            if let Some(schema) = definition.output_schema.as_mut() {
                schema.remove(WRAP_RESULT_KEY);
            }
            self = self.tool(ProxiedTool { client: client.clone(), upstream, definition });
        }
        for mut definition in prompts {
            let upstream = definition.name.clone();
            definition.name = format!("{prefix}{upstream}");
            self = self.prompt(ProxiedPrompt { client: client.clone(), upstream, definition });
        }
        for resource in resources {
            self = self
                .resource(ProxiedResource { client: client.clone(), definition: ResourceDefinition::Static(resource) });
        }
        for template in templates {
            let definition = ResourceDefinition::Template(template);
            self = self.resource(ProxiedResource { client: client.clone(), definition });
        }
        self
    }
}

struct ProxiedTool {
    client: Arc<Client>,
    /// The name upstream.
    upstream: String,
    definition: Tool,
}

impl ToolHandler for ProxiedTool {
    fn definition(&self) -> Tool {
        self.definition.clone()
    }

    fn call(&self, mut call: ToolCall) -> BoxFuture<HandlerResult<CallToolResult>> {
        let arguments = match call.parse_arguments::<JsonObject>() {
            Ok(arguments) => arguments,
            Err(e) => return Box::pin(async move { Err(Error::invalid_params(format!("Invalid arguments: {e}"))) }),
        };
        let params = serde_json::json!({ "name": self.upstream, "arguments": arguments });
        let (client, name) = (self.client.clone(), self.upstream.clone());
        let resume = call.take_resume();
        let capabilities = forwarded(call.context().client_capabilities());
        Box::pin(async move {
            match forward(&client, "tools/call", params, &name, resume, capabilities).await {
                Err(Upstream::Unreachable(why)) => Ok(Step::Complete(CallToolResult::error(format!(
                    "the upstream server's tool `{name}` failed: {why}"
                )))),
                other => other.map_err(Upstream::into_error),
            }
        })
    }
}

struct ProxiedPrompt {
    client: Arc<Client>,
    upstream: String,
    definition: Prompt,
}

impl PromptHandler for ProxiedPrompt {
    fn definition(&self) -> Prompt {
        self.definition.clone()
    }

    fn get(&self, mut get: PromptGet) -> BoxFuture<HandlerResult<GetPromptResult>> {
        let arguments: JsonObject =
            get.arguments().iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        let params = serde_json::json!({ "name": self.upstream, "arguments": arguments });
        let (client, name) = (self.client.clone(), self.upstream.clone());
        let resume = get.take_resume();
        let capabilities = forwarded(get.context().client_capabilities());
        Box::pin(async move {
            forward(&client, "prompts/get", params, &name, resume, capabilities).await.map_err(Upstream::into_error)
        })
    }
}

struct ProxiedResource {
    client: Arc<Client>,
    definition: ResourceDefinition,
}

impl ResourceHandler for ProxiedResource {
    fn definition(&self) -> ResourceDefinition {
        self.definition.clone()
    }

    fn read(&self, mut read: ResourceRead) -> BoxFuture<HandlerResult<ReadResourceResult>> {
        let uri = read.uri().to_owned();
        let params = serde_json::json!({ "uri": uri });
        let client = self.client.clone();
        let resume = read.take_resume();
        let capabilities = forwarded(read.context().client_capabilities());
        Box::pin(async move {
            forward(&client, "resources/read", params, &uri, resume, capabilities).await.map_err(Upstream::into_error)
        })
    }
}

/// Why a proxied round failed.
enum Upstream {
    /// The upstream answered with an error of its own, or our caller's answers don't fit.
    Error(Error),
    /// The upstream could not be reached or said something that is not MCP.
    Unreachable(String),
}

impl Upstream {
    fn into_error(self) -> Error {
        match self {
            Upstream::Error(e) => e,
            Upstream::Unreachable(why) => Error::internal(format!("the upstream server failed: {why}")),
        }
    }
}

impl From<ClientError> for Upstream {
    fn from(e: ClientError) -> Self {
        match e {
            ClientError::Rpc(e) => Upstream::Error(Error::rpc(e)),
            other => Upstream::Unreachable(other.to_string()),
        }
    }
}

/// What our caller declared it can answer, and nothing else of its capabilities (not its tasks or
/// extensions: the proxy serves plain calls).
fn forwarded(caller: &ClientCapabilities) -> ClientCapabilities {
    ClientCapabilities {
        roots: caller.roots.clone(),
        sampling: caller.sampling.clone(),
        elicitation: caller.elicitation.clone(),
        ..ClientCapabilities::default()
    }
}

/// One round of ours: one upstream round (a few when the upstream only wants its state back). Upstream
/// input requests suspend our round, carrying the upstream's request state; resuming retries upstream with
/// our caller's answers.
async fn forward<T: DeserializeOwned>(
    client: &Client,
    method: &str,
    params: Value,
    name: &str,
    resume: Option<Resume>,
    capabilities: ClientCapabilities,
) -> Result<Step<T>, Upstream> {
    let (mut responses, mut request_state) = match resume {
        None => (None, None),
        Some(Resume { step: AWAITING_ANSWERS, locals, responses }) => {
            let state: Option<String> = serde_json::from_str(locals.get())
                .map_err(|e| Upstream::Error(Error::internal(format!("proxied state unreadable: {e}"))))?;
            (Some(Arc::unwrap_or_clone(responses)), state)
        }
        Some(Resume { step, .. }) => {
            return Err(Upstream::Error(Error::internal(format!("a proxied call has no step {step}"))));
        }
    };
    for round in 0..STATE_ONLY_ROUNDS {
        let retry = Retry {
            responses: responses.take(),
            request_state: request_state.take(),
            capabilities: Some(capabilities.clone()),
        };
        match client.round::<T>(method, params.clone(), name, retry).await? {
            Round::Complete(result) => return Ok(Step::Complete(result)),
            Round::InputRequired(asked) => match asked.input_requests {
                Some(requests) if !requests.is_empty() => {
                    let locals = serde_json::value::to_raw_value(&asked.request_state)
                        .map_err(|e| Upstream::Error(Error::internal(e)))?;
                    return Ok(Step::Suspend(Suspension { step: AWAITING_ANSWERS, requests, locals, task: false }));
                }
                // State only: the upstream sheds load; come back after a short pause, with its state.
                _ => {
                    request_state = asked.request_state;
                    let pause = Duration::from_millis(50 * (u64::from(round) + 1)).min(Duration::from_millis(250));
                    tokio::time::sleep(pause).await;
                }
            },
        }
    }
    Err(Upstream::Unreachable(format!(
        "{method} `{name}`: the upstream asked for its state back {STATE_ONLY_ROUNDS} times without going on"
    )))
}

//! What a client asks: typed calls, each shaped for the era the connection settled on. On the modern wire a
//! request carries its `_meta` envelope and standard headers, and a call that ends a round with
//! `input_required` is answered by the handlers and retried with the echoed `requestState` until it
//! completes; on a legacy session the server asks the handlers itself, mid-call.

use super::error::ClientError;
use super::session::answer_input;
use super::{Client, Negotiated, parse};
use crate::protocol::param_headers::{self, encode};
use crate::protocol::{
    CallToolResult, CompleteResult, CompletionReference, Era, GetPromptResult, Implementation, InputRequest,
    InputRequiredResult, InputResponses, JsonObject, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, Prompt, ProtocolVersion, ReadResourceResult, Resource, ResourceTemplate,
    ServerCapabilities, Tool,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Pages of one list read at most: a server that keeps handing out cursors is not followed forever.
const MAX_PAGES: usize = 1000;

impl Client {
    /// The protocol revision in use.
    pub fn protocol_version(&self) -> ProtocolVersion {
        match &self.negotiated {
            Negotiated::Modern(_) => ProtocolVersion::V2026_07_28,
            Negotiated::Legacy { version, .. } => *version,
        }
    }

    /// The era of [`protocol_version`](Self::protocol_version): modern (stateless, `_meta` on every request) or
    /// legacy (an `initialize`d session).
    pub fn era(&self) -> Era {
        self.protocol_version().era()
    }

    /// What the server said it can do (`server/discover` or `initialize`).
    pub fn server_capabilities(&self) -> &ServerCapabilities {
        match &self.negotiated {
            Negotiated::Modern(found) => &found.result.capabilities,
            Negotiated::Legacy { init, .. } => &init.capabilities,
        }
    }

    /// Who the server said it is: `initialize`'s `serverInfo`, or the `serverInfo` in the `_meta` of
    /// `server/discover`'s result (modern servers stamp it on every result).
    pub fn server_info(&self) -> Option<&Implementation> {
        match &self.negotiated {
            Negotiated::Modern(found) => found.server_info.as_ref(),
            Negotiated::Legacy { init, .. } => Some(&init.server_info),
        }
    }

    /// The server's instructions for the model, if it gave any (`server/discover` or `initialize`).
    pub fn instructions(&self) -> Option<&str> {
        match &self.negotiated {
            Negotiated::Modern(found) => found.result.instructions.as_deref(),
            Negotiated::Legacy { init, .. } => init.instructions.as_deref(),
        }
    }

    /// Every tool, all pages. A tool whose `x-mcp-header` annotations break the spec's rules is left out (a
    /// call to it could not carry its headers right), with a warning.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let mut tools = self.all_pages("tools/list", |page: ListToolsResult| (page.tools, page.next_cursor)).await?;
        tools.retain(|tool| match param_headers::collect(&tool.name, &tool.input_schema) {
            Ok(_) => true,
            Err(why) => {
                tracing::warn!("leaving out a tool the server listed: {why}");
                false
            }
        });
        let mut known = self.tools.lock().unwrap_or_else(|p| p.into_inner());
        for tool in &tools {
            known.insert(tool.name.clone(), tool.clone());
        }
        Ok(tools)
    }

    /// One page of tools.
    pub async fn list_tools_page(&self, cursor: Option<&str>) -> Result<ListToolsResult, ClientError> {
        parse(&self.request("tools/list", cursor_params(cursor), None).await?)
    }

    /// Every resource, all pages (templates are listed by [`list_resource_templates`](Self::list_resource_templates)).
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.all_pages("resources/list", |page: ListResourcesResult| (page.resources, page.next_cursor)).await
    }

    /// Every resource template, all pages.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        let list = "resources/templates/list";
        self.all_pages(list, |page: ListResourceTemplatesResult| (page.resource_templates, page.next_cursor)).await
    }

    /// Every prompt, all pages.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.all_pages("prompts/list", |page: ListPromptsResult| (page.prompts, page.next_cursor)).await
    }

    /// Calls a tool with these arguments (anything that serializes to a JSON object). A tool's own failure
    /// is a result with `is_error`, not an `Err`.
    ///
    /// Input the tool asks for is answered by the builder's handlers (`on_elicit`, `on_sample`, `roots`):
    /// on the modern protocol each `input_required` round is answered and retried, at most
    /// [`max_rounds`](super::ClientBuilder::max_rounds) times; on a legacy session the server asks mid-call.
    pub async fn call_tool(&self, name: &str, arguments: impl Serialize) -> Result<CallToolResult, ClientError> {
        let arguments = serde_json::to_value(arguments)
            .map_err(|e| ClientError::Protocol(format!("the arguments could not be serialized: {e}")))?;
        let params = json!({ "name": name, "arguments": arguments });
        self.with_input("tools/call", params, name).await
    }

    /// Calls a tool and reads its structured result as `T` (a tool's failure is an `Err` here).
    pub async fn call_tool_as<T: DeserializeOwned>(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<T, ClientError> {
        let result = self.call_tool(name, arguments).await?;
        if result.is_error == Some(true) {
            let text: Vec<String> = result.content.iter().filter_map(|c| c.as_text().map(str::to_owned)).collect();
            return Err(ClientError::Protocol(format!("tool `{name}` failed: {}", text.join(" "))));
        }
        let structured = result
            .structured_content
            .ok_or_else(|| ClientError::Protocol(format!("tool `{name}` returned no structured content")))?;
        // Read in place, not from a copy. A structured result that isn't an object travels wrapped as
        // `{"result": …}`.
        T::deserialize(&*structured).or_else(|first| match &*structured {
            Value::Object(wrapped) if wrapped.len() == 1 && wrapped.contains_key("result") => {
                T::deserialize(&wrapped["result"])
                    .map_err(|e| ClientError::Protocol(format!("tool `{name}`'s result: {e}")))
            }
            _ => Err(ClientError::Protocol(format!("tool `{name}`'s result: {first}"))),
        })
    }

    /// Reads the resource at `uri`. Like [`call_tool`](Self::call_tool), a read that asks for input is answered
    /// by the handlers and retried until it completes.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        self.with_input("resources/read", json!({ "uri": uri }), uri).await
    }

    /// Gets the prompt `name` with its arguments (prompt arguments are strings), answering any input it asks for
    /// like [`call_tool`](Self::call_tool).
    pub async fn get_prompt<K: Into<String>, V: Into<String>>(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (K, V)>,
    ) -> Result<GetPromptResult, ClientError> {
        let arguments: JsonObject = arguments.into_iter().map(|(k, v)| (k.into(), Value::String(v.into()))).collect();
        self.with_input("prompts/get", json!({ "name": name, "arguments": arguments }), name).await
    }

    /// Completions for one argument of a prompt or resource template.
    pub async fn complete(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
    ) -> Result<CompleteResult, ClientError> {
        let params = json!({ "ref": reference, "argument": { "name": argument, "value": value } });
        parse(&self.request("completion/complete", params, None).await?)
    }

    /// Whether the server answers: `ping` on a legacy session, `server/discover` on the modern protocol
    /// (which has no ping).
    pub async fn ping(&self) -> Result<(), ClientError> {
        let method = if self.era() == Era::Modern { "server/discover" } else { "ping" };
        self.request(method, json!({}), None).await.map(drop)
    }

    /// Ends the connection: a stdio server's stdin is closed (and the process waited for), an HTTP session
    /// is ended.
    pub async fn close(self) {
        self.session.transport().close().await;
    }

    /// Reads every page of a list.
    async fn all_pages<P: DeserializeOwned, T>(
        &self,
        method: &str,
        split: impl Fn(P) -> (Vec<T>, Option<String>),
    ) -> Result<Vec<T>, ClientError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let (page, next) = split(parse(&self.request(method, cursor_params(cursor.as_deref()), None).await?)?);
            items.extend(page);
            match next {
                Some(next) => cursor = Some(next),
                None => return Ok(items),
            }
        }
        Err(ClientError::Protocol(format!("{method} gave more than {MAX_PAGES} pages")))
    }

    /// One request, shaped for the era; a result must be complete (lists and completions never ask).
    async fn request(&self, method: &str, params: Value, name: Option<&str>) -> Result<Box<RawValue>, ClientError> {
        match self.era() {
            Era::Modern => {
                let raw = self.modern_request(method, params, name).await?;
                match result_type(&raw).as_deref() {
                    None | Some("complete") => Ok(raw),
                    Some(other) => Err(ClientError::Protocol(format!("{method} answered with resultType `{other}`"))),
                }
            }
            Era::Legacy => self.session.request(method, self.legacy_params(params), Vec::new()).await,
        }
    }

    /// A request that may need the client's input. Modern: each `input_required` round is answered by the
    /// handlers and retried — a new request with `inputResponses` and the `requestState` echoed exactly —
    /// at most `max_rounds` times; a state-only round is retried after a short pause. Legacy: the server
    /// asks the handlers itself, on the session.
    async fn with_input<T: DeserializeOwned>(&self, method: &str, params: Value, name: &str) -> Result<T, ClientError> {
        if self.era() == Era::Legacy {
            return parse(&self.session.request(method, self.legacy_params(params), Vec::new()).await?);
        }
        let mut retry = Retry::default();
        for round in 0..self.max_rounds {
            let asked = match self.round(method, params.clone(), name, retry).await? {
                Round::Complete(result) => return Ok(result),
                Round::InputRequired(asked) => asked,
            };
            let responses = match asked.input_requests {
                Some(requests) if !requests.is_empty() => Some(self.answer(requests).await?),
                // State only: the server sheds load; back off a little before coming back.
                _ => {
                    let pause = Duration::from_millis(50 * (u64::from(round) + 1)).min(Duration::from_millis(250));
                    tokio::time::sleep(pause).await;
                    None
                }
            };
            retry = Retry { responses, request_state: asked.request_state, capabilities: None };
        }
        Err(ClientError::TooManyRounds(self.max_rounds))
    }

    /// One round of a tool call, its `input_required` **not** answered: for a caller that answers the
    /// server's input requests itself, as [`Proxy`](crate::proxy::Proxy) does by passing them on to its own
    /// caller. The first round has no `responses` and no `request_state`; a retry sends the answers to the
    /// previous round's `inputRequests` and its `requestState` echoed exactly.
    ///
    /// On a legacy session the call runs on at the server between rounds: each server-to-client request it
    /// makes for input ends a round here, its `request_state` a ticket for the call waiting in this
    /// process (see [`ClientBuilder::legacy_round_timeout`](super::ClientBuilder::legacy_round_timeout)).
    pub async fn call_tool_round(
        &self,
        name: &str,
        arguments: impl Serialize,
        responses: Option<InputResponses>,
        request_state: Option<String>,
    ) -> Result<Round<CallToolResult>, ClientError> {
        let arguments = serde_json::to_value(arguments)
            .map_err(|e| ClientError::Protocol(format!("the arguments could not be serialized: {e}")))?;
        let params = json!({ "name": name, "arguments": arguments });
        self.round("tools/call", params, name, Retry { responses, request_state, capabilities: None }).await
    }

    /// One round of `prompts/get`, its `input_required` not answered (see [`Client::call_tool_round`]).
    pub async fn get_prompt_round(
        &self,
        name: &str,
        arguments: JsonObject,
        responses: Option<InputResponses>,
        request_state: Option<String>,
    ) -> Result<Round<GetPromptResult>, ClientError> {
        let params = json!({ "name": name, "arguments": arguments });
        self.round("prompts/get", params, name, Retry { responses, request_state, capabilities: None }).await
    }

    /// One round of `resources/read`, its `input_required` not answered (see [`Client::call_tool_round`]).
    pub async fn read_resource_round(
        &self,
        uri: &str,
        responses: Option<InputResponses>,
        request_state: Option<String>,
    ) -> Result<Round<ReadResourceResult>, ClientError> {
        let retry = Retry { responses, request_state, capabilities: None };
        self.round("resources/read", json!({ "uri": uri }), uri, retry).await
    }

    /// One round of a call that may need input. `retry.capabilities` replaces what this request declares
    /// it can answer (a proxy declares its own caller's).
    pub(crate) async fn round<T: DeserializeOwned>(
        &self,
        method: &str,
        mut params: Value,
        name: &str,
        retry: Retry,
    ) -> Result<Round<T>, ClientError> {
        if self.era() == Era::Legacy {
            return self.legacy_round(method, params, retry).await;
        }
        if let Some(responses) = retry.responses {
            params["inputResponses"] = serde_json::to_value(responses).unwrap_or_default();
        }
        if let Some(state) = retry.request_state {
            params["requestState"] = Value::String(state);
        }
        let (mut params, headers) = self.modern_shape(method, params, Some(name), &[]);
        if let Some(capabilities) = retry.capabilities {
            params["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
                serde_json::to_value(capabilities).unwrap_or_default();
        }
        let raw = self.session.request(method, params, headers).await?;
        match result_type(&raw).as_deref() {
            None | Some("complete") => parse(&raw).map(Round::Complete),
            Some("input_required") => {
                let asked: InputRequiredResult = parse(&raw)?;
                if asked.input_requests.is_none() && asked.request_state.is_none() {
                    return Err(ClientError::Protocol(format!(
                        "{method}: input_required with neither inputRequests nor requestState"
                    )));
                }
                Ok(Round::InputRequired(asked))
            }
            Some(other) => Err(ClientError::Protocol(format!("{method} answered with resultType `{other}`"))),
        }
    }

    /// Answers one round's input requests with the handlers, all at once.
    pub(crate) async fn answer(&self, requests: crate::protocol::InputRequests) -> Result<InputResponses, ClientError> {
        let handlers = self.session.handlers();
        let answers = futures_util::future::join_all(requests.into_iter().map(|(key, request)| async move {
            let method = request.method();
            let params = match &request {
                InputRequest::Elicit(p) => serde_json::to_value(p).unwrap_or_default(),
                InputRequest::CreateMessage(p) => serde_json::to_value(p).unwrap_or_default(),
                InputRequest::ListRoots => json!({}),
            };
            let answer = answer_input(handlers, method, params).await.map_err(|e| {
                ClientError::Protocol(format!(
                    "the server asked for {method} (`{key}`), which this client can't answer: {}",
                    e.message
                ))
            })?;
            let answer = serde_json::value::to_raw_value(&answer).map_err(|e| ClientError::Protocol(e.to_string()))?;
            Ok::<_, ClientError>((key, answer))
        }))
        .await;
        answers.into_iter().collect()
    }

    /// A modern request: `params._meta` carries the envelope (protocol version, client capabilities and
    /// info, log level, a progress token when there is a notification handler), and the HTTP headers mirror
    /// it (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, and `Mcp-Param-*` for a listed tool's
    /// annotated arguments).
    pub(crate) async fn modern_request(
        &self,
        method: &str,
        params: Value,
        name: Option<&str>,
    ) -> Result<Box<RawValue>, ClientError> {
        let (params, headers) = self.modern_shape(method, params, name, &[]);
        self.session.request(method, params, headers).await
    }

    /// A modern request's params with their envelope, and its headers; `extensions` are declared in this
    /// request's client capabilities besides the handlers' (the tasks extension, for a task call).
    pub(crate) fn modern_shape(
        &self,
        method: &str,
        mut params: Value,
        name: Option<&str>,
        extensions: &[&str],
    ) -> (Value, Vec<(String, String)>) {
        let handlers = self.session.handlers();
        let mut capabilities = handlers.capabilities();
        if !extensions.is_empty() {
            capabilities.extensions = Some(extensions.iter().map(|e| ((*e).to_owned(), json!({}))).collect());
        }
        let mut meta = json!({
            "io.modelcontextprotocol/protocolVersion": ProtocolVersion::V2026_07_28.as_str(),
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": self.info,
        });
        if let Some(level) = self.log_level {
            meta["io.modelcontextprotocol/logLevel"] = json!(level);
        }
        if handlers.notification.is_some() && matches!(method, "tools/call" | "prompts/get" | "resources/read") {
            meta["progressToken"] = json!(format!("p{}", self.progress.fetch_add(1, Ordering::Relaxed)));
        }
        params["_meta"] = meta;
        let mut headers = vec![
            ("MCP-Protocol-Version".to_owned(), ProtocolVersion::V2026_07_28.as_str().to_owned()),
            ("Mcp-Method".to_owned(), method.to_owned()),
        ];
        if let Some(name) = name {
            headers.push(("Mcp-Name".to_owned(), encode(name)));
        }
        if method == "tools/call" {
            headers.extend(self.param_headers(name.unwrap_or_default(), &params["arguments"]));
        }
        (params, headers)
    }

    /// The `Mcp-Param-*` headers a listed tool's schema asks for.
    fn param_headers(&self, tool: &str, arguments: &Value) -> Vec<(String, String)> {
        let known = self.tools.lock().unwrap_or_else(|p| p.into_inner());
        let Some(tool) = known.get(tool) else { return Vec::new() };
        let Ok(params) = param_headers::collect(&tool.name, &tool.input_schema) else { return Vec::new() };
        params.iter().filter_map(|p| p.render(arguments)).collect()
    }

    /// A legacy request asks for progress when there is a handler to see it.
    pub(crate) fn legacy_params(&self, mut params: Value) -> Value {
        if self.session.handlers().notification.is_some() {
            params["_meta"] = json!({ "progressToken": format!("p{}", self.progress.fetch_add(1, Ordering::Relaxed)) });
        }
        params
    }
}

/// One round of a call that may need input, as [`Client::call_tool_round`] returns it.
#[derive(Debug, Clone)]
pub enum Round<T> {
    /// The call completed with this result.
    Complete(T),
    /// The server wants input (`inputRequests`) or only its state back (`requestState` alone) before it
    /// goes on: retry with the answers and the state echoed.
    InputRequired(InputRequiredResult),
}

/// What a retried round sends besides its params.
#[derive(Debug, Default)]
pub(crate) struct Retry {
    pub responses: Option<InputResponses>,
    pub request_state: Option<String>,
    /// Declared instead of the handlers' capabilities.
    pub capabilities: Option<crate::protocol::ClientCapabilities>,
}

fn cursor_params(cursor: Option<&str>) -> Value {
    match cursor {
        Some(cursor) => json!({ "cursor": cursor }),
        None => json!({}),
    }
}

/// A result's `resultType` (absent on legacy servers, where it means complete).
fn result_type(raw: &RawValue) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Typed {
        #[serde(rename = "resultType")]
        result_type: Option<String>,
    }
    serde_json::from_str::<Typed>(raw.get()).ok().and_then(|t| t.result_type)
}

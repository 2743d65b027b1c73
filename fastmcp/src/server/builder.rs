//! The `FastMcp` builder: what a server author registers and configures, checked and frozen into a
//! [`Server`] by [`FastMcp::build`].

use super::cache::{CacheHints, Cached};
use super::catalog::{Catalog, TagFilter};
use super::changes::Changes;
use super::middleware::{Chain, Middleware};
use super::registry::{Registered, Registration};
use super::running::{Server, ServerInner};
use crate::auth::{Gate, ProtectedResource};
use crate::error::{Error, Result};
use crate::handler::{PromptHandler, ResourceHandler, ToolHandler};
use crate::leases::Leases;
use crate::protocol::{CacheHint, CacheScope, Implementation};
use crate::state::{RequestStateConfig, StateCodec, StateKeys};
use crate::store::{MemoryStore, Store};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Builds a server: register handlers, set options, then [`run`](FastMcp::run).
///
/// Every method takes and returns the builder, so a server is one expression. [`run`](FastMcp::run)
/// serves on stdio unless the code ([`transport`](FastMcp::transport)) or the environment
/// (`FASTMCP_TRANSPORT=http`) says HTTP; [`build`](FastMcp::build) instead gives the [`Server`] to serve
/// yourself (`serve_stdio`, `serve_io`, `serve_http`, or the `McpService` of feature `http`).
///
/// ```no_run
/// use fastmcp::prelude::*;
/// use std::time::Duration;
///
/// /// Greet someone by name.
/// #[tool(read_only)]
/// async fn greet(name: String) -> String {
///     format!("Hello, {name}!")
/// }
///
/// /// The server's changelog.
/// #[resource("docs://changelog", mime_type = "text/markdown")]
/// async fn changelog() -> &'static str {
///     "# 1.0.0\n\nFirst release."
/// }
///
/// /// Ask the model for a limerick.
/// #[prompt]
/// async fn limerick(topic: String) -> String {
///     format!("Write a limerick about {topic}.")
/// }
///
/// #[tokio::main]
/// async fn main() -> fastmcp::Result<()> {
///     FastMcp::new("greeter")
///         .version(env!("CARGO_PKG_VERSION"))
///         .instructions("Greets people and writes limericks.")
///         .tool(greet)
///         .resource(changelog)
///         .prompt(limerick)
///         .tool_timeout(Duration::from_secs(30))
///         .run()
///         .await
/// }
/// ```
pub struct FastMcp {
    transport: Option<Transport>,
    info: Implementation,
    instructions: Option<String>,
    pub(super) registration: Registration,
    pub(super) tags: TagFilter,
    pub(super) middleware: Vec<Arc<dyn Middleware>>,
    options: Options,
    request_state: RequestStateConfig,
    auth: Option<ProtectedResource>,
    /// What replicas share (see [`FastMcp::store`]); `None`: the in-memory store, unless `run()` finds
    /// `FASTMCP_REDIS_URL`.
    store: Option<Arc<dyn Store>>,
}

/// Limits and tunables. Every limit is bounded; the defaults suit a local server.
#[derive(Debug, Clone)]
pub struct Options {
    /// Items per `*/list` page.
    pub page_size: usize,
    /// `ttlMs` and `cacheScope` of modern list, read and discover results, per operation, where the
    /// components returned set none of their own (see [`CacheHints`]).
    pub cache: CacheHints,
    /// The largest inbound message (one stdio line), in bytes.
    pub max_message_bytes: usize,
    /// How long requests still running at shutdown may take to finish: after stdin's EOF on stdio, after
    /// SIGINT/SIGTERM over HTTP (then every connection still open is closed, a half-sent request included).
    pub shutdown_grace: Duration,
    /// Legacy sessions: serve handlers that `.ask()` by sending the client real requests.
    pub legacy_shim: bool,
    /// Legacy sessions: the most rounds one request may take before it fails.
    pub max_rounds: u32,
    /// Legacy sessions: how long one round may wait for the client's answers.
    pub round_timeout: Duration,
    /// How long one round of a tool call may run before it is stopped; `None`: no limit.
    pub tool_timeout: Option<Duration>,
    /// HTTP: the most legacy sessions open at once; `initialize` beyond it gets 503.
    pub max_sessions: usize,
    /// HTTP: a legacy session unused this long is ended.
    pub session_idle_timeout: Duration,
    /// HTTP: how long a client waits before reconnecting to a legacy session's stream (the SSE `retry`).
    pub sse_retry: Duration,
    /// HTTP: events kept per legacy stream for a client that reconnects with `Last-Event-ID`.
    pub sse_replay_events: usize,
    /// HTTP: streams kept per legacy session for resumption; the oldest finished go first.
    pub sse_replay_streams: usize,
    /// HTTP: a comment on idle long-lived streams (subscriptions, the GET stream) this often, so proxies
    /// keep them open.
    pub keep_alive: Duration,
    /// Tasks: the most this process keeps at once (running or finished, until each expires); a call beyond it
    /// fails.
    pub max_tasks: usize,
    /// Tasks: how long a task stays retrievable after it was created (`ttlMs`); a task still running then
    /// is stopped.
    pub task_ttl: Duration,
    /// Tasks: how often clients are told to poll (`pollIntervalMs`).
    pub task_poll_interval: Duration,
    /// The most entries one JSON-RPC batch may hold (legacy 2025-03-26 batches); a larger batch is refused
    /// whole with one `-32600`, before any entry runs.
    pub max_batch_size: usize,
    /// The most requests one connection runs at once (batch entries included; an open
    /// `subscriptions/listen` holds its slot until it ends). More wait, unstarted: as many again are read
    /// ahead (answers to the server's requests and cancellations are read meanwhile), and past that the
    /// connection is not read until one starts. Wired on stdio.
    pub max_in_flight_per_connection: usize,
    /// The largest outbound message (one stdio line), in bytes; `None`: the inbound limit,
    /// [`max_message_bytes`](Self::max_message_bytes). See [`Options::reply_limit`].
    pub max_reply_bytes: Option<usize>,
    /// The longest URI a resource template is matched against, in bytes; a longer one reaches no template
    /// ("resource not found"). Matching costs time in proportion to the URI's length times the template's,
    /// and a table of that size.
    pub max_uri_bytes: usize,
    /// Tasks: the most one principal (an authenticated caller) keeps at once, on every replica sharing the
    /// store, so one caller can't take every slot of [`max_tasks`](Self::max_tasks). Anonymous callers share
    /// the server-wide limit only.
    pub max_tasks_per_principal: usize,
    /// One-time flows: the consumed-round records one client keeps at once on this replica, each until its
    /// token expires, so one client's flood can't fill the store's bound for everyone. A client is its
    /// principal, else its address over HTTP; one that is neither (stdio's anonymous client) counts against the
    /// store's bound only.
    pub max_one_time_rounds_per_client: usize,
}

impl Options {
    /// The largest outbound message: a reply over it is replaced by a `-32603` error for its id.
    pub fn reply_limit(&self) -> usize {
        self.max_reply_bytes.unwrap_or(self.max_message_bytes)
    }
}

impl Default for Options {
    fn default() -> Self {
        Self {
            page_size: 100,
            cache: CacheHints::default(),
            max_message_bytes: 4 * 1024 * 1024,
            shutdown_grace: Duration::from_secs(10),
            legacy_shim: true,
            max_rounds: 8,
            round_timeout: Duration::from_secs(600),
            tool_timeout: None,
            max_sessions: 10_000,
            session_idle_timeout: Duration::from_secs(30 * 60),
            sse_retry: Duration::from_secs(1),
            sse_replay_events: 256,
            sse_replay_streams: 32,
            keep_alive: Duration::from_secs(15),
            max_tasks: 1_000,
            task_ttl: Duration::from_secs(60 * 60),
            task_poll_interval: Duration::from_millis(500),
            // go-ethereum's `--rpc.batch-request-limit` default; MCP clients rarely batch at all.
            max_batch_size: 1_000,
            max_in_flight_per_connection: 64,
            max_reply_bytes: None,
            max_uri_bytes: 8 * 1024,
            max_tasks_per_principal: 100,
            // A tenth of `MemoryStore`'s default bound: ten clients at their share to fill it.
            max_one_time_rounds_per_client: 100_000,
        }
    }
}
impl FastMcp {
    /// A server that introduces itself to clients by this name.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            transport: None,
            info: Implementation::new(name, "0.0.0"),
            instructions: None,
            registration: Registration::default(),
            tags: TagFilter::default(),
            middleware: Vec::new(),
            options: Options::default(),
            request_state: RequestStateConfig::default(),
            auth: None,
            store: None,
        }
    }

    /// What the server's replicas share: the ids of consumed one-time rounds and the fan-out of changes to
    /// `subscriptions/listen` and legacy sessions (see [`crate::store`]). Default: [`MemoryStore`], this
    /// process only; [`run`](Self::run) picks [`RedisStore`] when `FASTMCP_REDIS_URL` is set and no store was
    /// set here (feature `redis`). Replicas must share the request-state keys too
    /// ([`request_state`](Self::request_state), or `FASTMCP_STATE_KEYS`).
    ///
    #[cfg_attr(feature = "redis", doc = "[`RedisStore`]: crate::store::RedisStore")]
    #[cfg_attr(
        not(feature = "redis"),
        doc = "[`RedisStore`]: https://docs.rs/fast-mcp/latest/fastmcp/store/struct.RedisStore.html"
    )]
    pub fn store(mut self, store: Arc<dyn Store>) -> Self {
        self.store = Some(store);
        self
    }

    /// Makes the server an OAuth 2.1 protected resource: every HTTP request needs a bearer token `auth`'s
    /// verifier accepts, and components may ask for scopes (see [`crate::auth`]).
    pub fn auth(mut self, auth: ProtectedResource) -> Self {
        self.auth = Some(auth);
        self
    }

    /// How request state is signed (keys, TTL, size cap; sealing with the `sealed-state` feature). Without
    /// keys, a random per-process key is made on first use: flows then survive neither a restart nor a move
    /// to another replica, which the server says once on stderr.
    pub fn request_state(mut self, config: RequestStateConfig) -> Self {
        self.request_state = config;
        self
    }

    /// The version clients see in `serverInfo` (e.g. `env!("CARGO_PKG_VERSION")`).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.info.version = version.into();
        self
    }

    /// A human-readable title for `serverInfo`.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// Instructions for the model, sent at `initialize` and `server/discover`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Registers a tool (a fn marked `#[tool]`, or any [`ToolHandler`]).
    ///
    /// `#[tool]` turns the fn into a unit struct of the same name, which is what this takes: the fn's doc
    /// comment is the description, its parameters the input schema. Tools are listed in the order they
    /// were registered; a name registered twice is an error at [`build`](Self::build).
    ///
    /// ```
    /// use fastmcp::prelude::*;
    ///
    /// /// Add two integers.
    /// #[tool(read_only, idempotent)]
    /// async fn add(
    ///     /// The first addend.
    ///     a: i64,
    ///     /// The second addend.
    ///     b: i64,
    /// ) -> Result<String> {
    ///     let sum = a.checked_add(b).ok_or_else(|| Error::msg("the sum overflows"))?;
    ///     Ok(sum.to_string())
    /// }
    ///
    /// /// Remove a file.
    /// #[tool(destructive, name = "remove_file", timeout = "10s")]
    /// async fn remove(path: String) -> Result<String> {
    ///     std::fs::remove_file(&path)?;
    ///     Ok(format!("removed {path}"))
    /// }
    ///
    /// # fn main() -> fastmcp::Result<()> {
    /// let server = FastMcp::new("files").tool(add).tool(remove).build()?;
    /// assert!(FastMcp::new("files").tool(add).tool(add).build().is_err(), "`add` twice");
    /// # let _ = server; Ok(()) }
    /// ```
    pub fn tool(mut self, tool: impl ToolHandler) -> Self {
        self.registration.tools.push(Registered::new(Arc::new(tool)));
        self
    }

    /// Registers a prompt (a fn marked `#[prompt]`, or any [`PromptHandler`]).
    pub fn prompt(mut self, prompt: impl PromptHandler) -> Self {
        self.registration.prompts.push(Registered::new(Arc::new(prompt)));
        self
    }

    /// Registers a resource or resource template (a fn marked `#[resource(...)]`, or any [`ResourceHandler`]).
    pub fn resource(mut self, resource: impl ResourceHandler) -> Self {
        self.registration.resources.push(Registered::new(Arc::new(resource)));
        self
    }

    /// Adds a middleware around dispatch (see [`middleware`](super::middleware)): the first added is the
    /// outermost, seeing each request first and its answer last.
    ///
    /// ```
    /// use fastmcp::middleware::{Logging, NormalizeErrors, RateLimit, SizeLimit};
    /// use fastmcp::prelude::*;
    /// use std::time::Duration;
    ///
    /// # #[tool] async fn greet(name: String) -> String { name }
    /// # fn main() -> fastmcp::Result<()> {
    /// let server = FastMcp::new("greeter")
    ///     .middleware(Logging) // outermost: logs and times every round, refusals below included
    ///     .middleware(RateLimit::per_principal(120, Duration::from_secs(60)))
    ///     .middleware(SizeLimit { max_bytes: 1 << 20 })
    ///     .middleware(NormalizeErrors)
    ///     .tool(greet)
    ///     .build()?;
    /// # let _ = server; Ok(()) }
    /// ```
    pub fn middleware(mut self, middleware: impl Middleware) -> Self {
        self.middleware.push(Arc::new(middleware));
        self
    }

    /// Serves only components with one of these tags (`#[tool(tags = [..])]`; see
    /// [`ToolHandler::tags`]): one environment's tools out of a shared set, say. Others stay registered,
    /// unserved. Called again, adds to the set.
    pub fn include_tags<T: Into<String>>(mut self, tags: impl IntoIterator<Item = T>) -> Self {
        self.tags.include.extend(tags.into_iter().map(Into::into));
        self
    }

    /// Serves no component with any of these tags, whatever [`include_tags`](Self::include_tags) says.
    pub fn exclude_tags<T: Into<String>>(mut self, tags: impl IntoIterator<Item = T>) -> Self {
        self.tags.exclude.extend(tags.into_iter().map(Into::into));
        self
    }

    /// Items per `*/list` page (at least 1; default 100).
    pub fn page_size(mut self, items: usize) -> Self {
        self.options.page_size = items.max(1);
        self
    }

    /// Cache hints for every modern list, read and discover result (default: `ttlMs: 0`, `private`).
    /// Components may set their own (`#[resource(ttl = "5m", cache_scope = "public")]`); a result carries
    /// the narrowest of what it returns.
    pub fn cache_hints(mut self, ttl: Duration, scope: CacheScope) -> Self {
        self.options.cache = CacheHints::all(CacheHint { ttl, scope });
        self
    }

    /// The cache hint of one operation's results, where their components set none.
    pub fn cache_hint(mut self, op: Cached, ttl: Duration, scope: CacheScope) -> Self {
        self.options.cache.set(op, CacheHint { ttl, scope });
        self
    }

    /// The largest inbound message in bytes (default 4 MiB). Larger ones are answered with an error.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.options.max_message_bytes = bytes.max(1024);
        self
    }

    /// How long in-flight requests may run after the client closes stdin, or over HTTP after SIGINT/SIGTERM
    /// (default 10 s). Then they are dropped, and over HTTP every connection is closed.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.options.shutdown_grace = grace;
        self
    }

    /// Whether handlers that `.ask()` work on legacy sessions, through real server-to-client requests
    /// (default on). Off, such a request fails with an error that says so.
    pub fn legacy_shim(mut self, on: bool) -> Self {
        self.options.legacy_shim = on;
        self
    }

    /// The most rounds one legacy request may take through the shim (default 8, at least 1).
    pub fn max_rounds(mut self, rounds: u32) -> Self {
        self.options.max_rounds = rounds.max(1);
        self
    }

    /// How long one shim round waits for the client's answers (default 10 minutes: people answer forms).
    pub fn round_timeout(mut self, timeout: Duration) -> Self {
        self.options.round_timeout = timeout;
        self
    }

    /// Stops a tool call whose round runs longer than this (an `isError` result says so; the handler's future
    /// is dropped and its context's cancellation token fires). A tool can set its own limit.
    pub fn tool_timeout(mut self, limit: Duration) -> Self {
        self.options.tool_timeout = Some(limit);
        self
    }

    /// HTTP: the most legacy sessions open at once (default 10 000).
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.options.max_sessions = sessions.max(1);
        self
    }

    /// HTTP: how long an unused legacy session lives (default 30 minutes).
    pub fn session_idle_timeout(mut self, idle: Duration) -> Self {
        self.options.session_idle_timeout = idle;
        self
    }

    /// HTTP: what a legacy session keeps so a client that lost a stream can resume it with `Last-Event-ID`
    /// — `events` per stream (default 256) and `streams` per session (default 32) — and the `retry` delay
    /// its streams announce (default 1 s).
    pub fn sse_replay(mut self, events: usize, streams: usize, retry: Duration) -> Self {
        self.options.sse_replay_events = events.max(1);
        self.options.sse_replay_streams = streams.max(1);
        self.options.sse_retry = retry;
        self
    }

    /// HTTP: how often idle long-lived streams carry a keep-alive comment (default 15 s).
    pub fn keep_alive(mut self, every: Duration) -> Self {
        self.options.keep_alive = every;
        self
    }

    /// Tasks: the most this process keeps at once, running or finished until they expire (default 1 000, at
    /// least 1). A call that would make one more fails with an error that says so.
    pub fn max_tasks(mut self, tasks: usize) -> Self {
        self.options.max_tasks = tasks.max(1);
        self
    }

    /// Tasks: how long each stays retrievable after it is created, its `ttlMs` (default 1 hour, at least
    /// 1 ms). A task still running when it expires is stopped and forgotten.
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.options.task_ttl = ttl.max(Duration::from_millis(1));
        self
    }

    /// Tasks: the `pollIntervalMs` clients are given (default 500 ms, at least 1 ms).
    pub fn task_poll_interval(mut self, interval: Duration) -> Self {
        self.options.task_poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// The most entries one JSON-RPC batch may hold (default 1 000, at least 1). A larger batch gets one
    /// `-32600` error naming the limit and none of its entries runs.
    pub fn max_batch_size(mut self, entries: usize) -> Self {
        self.options.max_batch_size = entries.max(1);
        self
    }

    /// The most requests one connection runs at once (default 64, at least 1; stdio). Further requests wait
    /// rather than fail: as many again are read and held, then the connection is not read until a slot
    /// frees. Answers to the server's own requests and cancellations are read while requests wait.
    pub fn max_in_flight_per_connection(mut self, requests: usize) -> Self {
        // Counted in semaphore permits, taken up to this many at once in a `u32` (and at most
        // `usize::MAX >> 3` of them on 32-bit targets).
        self.options.max_in_flight_per_connection = requests.clamp(1, u32::MAX as usize >> 3);
        self
    }

    /// The largest outbound message in bytes (default: [`max_message_bytes`](Self::max_message_bytes), at
    /// least 1024). A reply over it becomes a `-32603` error for its request; other messages over it (a
    /// giant log line) are dropped with a warning on stderr.
    pub fn max_reply_bytes(mut self, bytes: usize) -> Self {
        self.options.max_reply_bytes = Some(bytes.max(1024));
        self
    }

    /// The longest URI matched against resource templates (default 8 KiB, as common HTTP servers cap a
    /// request line): a longer one reaches no template and is "resource not found". Exact resource URIs are
    /// looked up whatever their length.
    pub fn max_uri_bytes(mut self, bytes: usize) -> Self {
        self.options.max_uri_bytes = bytes;
        self
    }

    /// Tasks: the most one authenticated principal keeps at once, running or finished until they expire
    /// (default 100, at least 1), so one caller can't take every slot of [`max_tasks`](Self::max_tasks). With
    /// a shared store it counts the principal's tasks on every replica. A call beyond it fails with an error
    /// that names this limit.
    pub fn max_tasks_per_principal(mut self, tasks: usize) -> Self {
        self.options.max_tasks_per_principal = tasks.max(1);
        self
    }

    /// One-time flows (`#[tool(once)]`, `destructive`): the consumed-round records one client keeps at once
    /// on this replica (default 100 000, at least 1). Each stays until its token expires, and the store's
    /// bound ([`MemoryStore::with_max_entries`]) is shared by every client, so without a share of its own one
    /// client completing one-time flows fast enough would leave no room for anyone else's. A final round past
    /// it does not run, and its token stays unused, to be sent again once one of the client's records
    /// expires: the answer is HTTP 429 with `Retry-After` (seconds), and a `-32603` error that names this
    /// limit, with the same seconds in `data.retryAfter`. A client is its principal on a protected server, else its
    /// address over HTTP (`PeerAddr`); one that is neither (stdio's anonymous client)
    /// counts against the store's bound only.
    pub fn max_one_time_rounds_per_client(mut self, rounds: usize) -> Self {
        self.options.max_one_time_rounds_per_client = rounds.max(1);
        self
    }

    /// Checks the registrations (unique names, valid templates) and builds the [`Server`] that serves them.
    pub fn build(self) -> Result<Server> {
        let catalog = Catalog::new(self.registration, self.tags);
        let middleware: Chain = self.middleware.into();
        let registry = catalog.registry(&self.options, &middleware)?;
        let gate = match self.auth {
            Some(auth) => {
                let problems = auth.problems();
                if !problems.is_empty() {
                    return Err(Error::msg(format!("authorization: {}", problems.join("; "))));
                }
                Some(Arc::new(Gate::new(auth)))
            }
            None => {
                if registry.restricted {
                    tracing::warn!(
                        "components ask for scopes or a check, but the server has no authorization \
                         (FastMcp::auth): no caller has a token, so they are refused to everyone"
                    );
                }
                None
            }
        };
        let server_info_meta = serde_json::value::to_raw_value(&self.info)?;
        // Configured keys are checked now, so a bad key stops start-up; the per-process key waits for a
        // handler that suspends.
        let store = self.store.unwrap_or_else(|| Arc::new(MemoryStore::new()));
        let state = OnceLock::new();
        if self.request_state.has_keys() {
            let codec =
                StateCodec::new(self.request_state.clone()).map_err(|e| Error::msg(format!("request state: {e}")))?;
            let _ = state.set(codec);
        }
        let one_time = Leases::new(self.options.max_one_time_rounds_per_client);
        Ok(Server {
            inner: Arc::new(ServerInner {
                info: self.info,
                instructions: self.instructions,
                registry: arc_swap::ArcSwap::from_pointee(registry),
                catalog: Mutex::new(catalog),
                options: self.options,
                server_info_meta,
                request_state: self.request_state,
                state,
                changes: Changes::new(store.clone()),
                replica: crate::store::Replica::new(store.clone()),
                store,
                closing: CancellationToken::new(),
                gate,
                middleware,
                one_time,
            }),
        })
    }

    /// Where [`run`](Self::run) serves. Set in code, it wins over the environment.
    ///
    /// ```no_run
    /// # use fastmcp::prelude::*;
    /// use fastmcp::{HttpOptions, Transport};
    ///
    /// # #[tool] async fn greet(name: String) -> String { name }
    /// # async fn main_() -> fastmcp::Result<()> {
    /// // Streamable HTTP at http://127.0.0.1:8000/mcp, whatever FASTMCP_TRANSPORT says.
    /// FastMcp::new("greeter").tool(greet).transport(Transport::Http(HttpOptions::default())).run().await
    /// # }
    /// ```
    pub fn transport(mut self, transport: Transport) -> Self {
        self.transport = Some(transport);
        self
    }

    /// What [`run`](Self::run) serves on, when set in code.
    pub(crate) fn chosen_transport(&self) -> Option<&Transport> {
        self.transport.as_ref()
    }

    /// What [`run`](Self::run) takes from the environment where the code set nothing: the shared store
    /// (`FASTMCP_REDIS_URL`, a `redis://` URL) and the request-state key ring (`FASTMCP_STATE_KEYS`: keys of
    /// at least 32 bytes, base64url, comma-separated, the first signs).
    pub(crate) fn with_env(mut self) -> Result<Self> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        if self.store.is_none()
            && let Some(url) = var("FASTMCP_REDIS_URL")
        {
            self.store = Some(redis_store(url.trim())?);
        }
        if !self.request_state.has_keys()
            && let Some(keys) = var("FASTMCP_STATE_KEYS")
        {
            let keys = state_keys(&keys)?;
            self.request_state = RequestStateConfig::new(keys);
        }
        Ok(self)
    }
}

#[cfg(feature = "redis")]
fn redis_store(url: &str) -> Result<Arc<dyn Store>> {
    let store = crate::store::RedisStore::open(url).map_err(|e| Error::msg(format!("FASTMCP_REDIS_URL: {e}")))?;
    tracing::info!("shared store: Redis ({store:?})");
    Ok(Arc::new(store))
}

#[cfg(not(feature = "redis"))]
fn redis_store(_url: &str) -> Result<Arc<dyn Store>> {
    Err(Error::msg("FASTMCP_REDIS_URL is set, but this build of fastmcp has no Redis: enable the `redis` feature"))
}

/// `FASTMCP_STATE_KEYS`: base64url keys (padding optional), comma-separated, newest first. Errors name the
/// position of a bad key, never its text.
fn state_keys(text: &str) -> Result<StateKeys> {
    use base64::Engine as _;
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    let keys = text
        .split(',')
        .enumerate()
        .map(|(i, key)| {
            engine
                .decode(key.trim())
                .map_err(|_| Error::msg(format!("FASTMCP_STATE_KEYS: key {} is not base64url", i + 1)))
        })
        .collect::<Result<Vec<_>>>()?;
    StateKeys::from_keys(keys).map_err(|e| Error::msg(format!("FASTMCP_STATE_KEYS: {e}")))
}

/// Where and how the Streamable HTTP endpoint serves (see [`Transport::Http`]).
///
/// The defaults suit a local server; set what differs and take the rest from [`Default`]:
///
/// ```no_run
/// # use fastmcp::prelude::*;
/// use fastmcp::{HttpOptions, Transport};
/// use std::time::Duration;
///
/// # #[tool] async fn greet(name: String) -> String { name }
/// # async fn main_() -> fastmcp::Result<()> {
/// let http = HttpOptions {
///     addr: ([127, 0, 0, 1], 3000).into(),
///     path: "/v1/mcp".into(),
///     // No legacy sessions: any replica can serve any request.
///     sessions: false,
///     idle_timeout: Duration::from_secs(30),
///     ..HttpOptions::default()
/// };
/// FastMcp::new("greeter").tool(greet).transport(Transport::Http(http)).run().await
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The address to listen on (default `127.0.0.1:8000`; `FASTMCP_HOST` and `FASTMCP_PORT` in
    /// [`Transport::from_env`]). On a loopback address `Host` and `Origin` are checked against DNS rebinding.
    pub addr: SocketAddr,
    /// The MCP endpoint's path (default `/mcp`).
    pub path: String,
    /// Legacy clients get sessions (default). Off, every legacy request is served alone: no
    /// `Mcp-Session-Id`, `GET` and `DELETE` answer 405, nothing can be pushed to the client, and only
    /// state-only `.ask()` rounds work — any replica can serve any request. Modern requests are stateless
    /// either way.
    pub sessions: bool,
    /// How long a client may take to send a request's head (default 30 s, hyper's own): a connection that
    /// trickles its headers, or sends nothing after connecting, is closed. On HTTP/1.1 the wait for the next
    /// request's head is timed too, from the end of the last response, so an idle HTTP/1.1 connection closes
    /// after the shorter of this and [`idle_timeout`](Self::idle_timeout).
    pub header_read_timeout: Duration,
    /// How long a client may take to send a whole request body (default 60 s, nginx's
    /// `client_body_timeout`, here a deadline for the whole body so a trickle cannot stretch it). Past it the
    /// request is answered 408 and the connection closed.
    pub body_read_timeout: Duration,
    /// A connection with no request in flight this long is closed (default 75 s, nginx's
    /// `keepalive_timeout`). Long-lived streams are requests in flight: they keep their connection.
    pub idle_timeout: Duration,
    /// The most connections served at once (default 1 024). At the cap the server stops accepting: new
    /// connections wait in the listen backlog until one closes, and are then served.
    pub max_connections: usize,
    /// The most connections from one client IP address at once (default 256), so one client cannot take
    /// every connection. Beyond it a connection's requests are answered 429 with `Retry-After`. Behind a
    /// reverse proxy every client has the proxy's address: raise it to `max_connections` there.
    pub max_connections_per_client: usize,
    /// The most requests in flight on one HTTP/2 connection (h2 `SETTINGS_MAX_CONCURRENT_STREAMS`, default
    /// 100, the least RFC 9113 recommends); HTTP/1.1 serves one at a time.
    pub max_concurrent_streams: u32,
    /// The most long-lived streams (modern `subscriptions/listen`, legacy `GET` streams) open at once
    /// (default 512); one more is answered 503 with `Retry-After`.
    pub max_streams: usize,
    /// The most long-lived streams one client holds at once (default 16): per principal on a protected
    /// server, else per client IP address. One more is answered 429 with `Retry-After`.
    pub max_streams_per_client: usize,
    /// The most requests one client has being served at once (default 64): per principal on a protected
    /// server, else per client IP address. A request counts from when it has been read until its answer has
    /// (a streamed answer, until the client has read it all or went away; a legacy session's call, which goes
    /// on without its client, until it ends too); one more is answered 429 with
    /// `Retry-After`. Long-lived streams count under `max_streams_per_client` instead, and a client's
    /// responses and notifications (its answers to the shim's requests) never count. Behind a reverse proxy
    /// every client has the proxy's address: raise it there.
    pub max_requests_per_client: usize,
    /// The most legacy sessions one client holds open at once (default 64), so one client cannot take all
    /// of `FastMcp::max_sessions`: per principal on a protected server, else per client IP address. One more
    /// `initialize` is answered 429 with `Retry-After`; a session gives its place back when it ends
    /// (`DELETE`, idleness, shutdown), so a client that goes away without `DELETE` holds it until
    /// `FastMcp::session_idle_timeout`. Behind a reverse proxy every client has the proxy's address: raise
    /// it to `max_sessions` there.
    pub max_sessions_per_client: usize,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 8000)),
            path: "/mcp".into(),
            sessions: true,
            header_read_timeout: Duration::from_secs(30),
            body_read_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(75),
            max_connections: 1024,
            max_connections_per_client: 256,
            max_concurrent_streams: 100,
            max_streams: 512,
            max_streams_per_client: 16,
            max_requests_per_client: 64,
            max_sessions_per_client: 64,
        }
    }
}

/// Where a server serves: what [`FastMcp::run`] listens on.
///
/// Set it with [`FastMcp::transport`]; without one, `run` reads [`Transport::from_env`]. Both eras are
/// served on either transport.
///
/// ```no_run
/// # use fastmcp::prelude::*;
/// use fastmcp::{HttpOptions, Transport};
///
/// # #[tool] async fn greet(name: String) -> String { name }
/// # async fn main_() -> fastmcp::Result<()> {
/// // `--http PORT` on the command line serves HTTP on that port; anything else, the environment's choice.
/// let args: Vec<String> = std::env::args().collect();
/// let transport = match args.iter().position(|a| a == "--http") {
///     Some(i) => {
///         let port = args.get(i + 1).map_or(Ok(8000), |p| p.parse())?;
///         Transport::Http(HttpOptions { addr: ([127, 0, 0, 1], port).into(), ..HttpOptions::default() })
///     }
///     None => Transport::from_env()?,
/// };
/// FastMcp::new("greeter").tool(greet).transport(transport).run().await
/// # }
/// ```
#[derive(Debug, Clone)]
pub enum Transport {
    /// Newline-delimited JSON-RPC on stdin/stdout: how MCP clients start a local server. Logs go to stderr.
    Stdio,
    /// Streamable HTTP on one endpoint, both eras. A build without the `http` feature refuses it at
    /// [`FastMcp::run`].
    Http(HttpOptions),
}

impl Transport {
    /// `FASTMCP_TRANSPORT=stdio|http`, with `FASTMCP_HOST`, `FASTMCP_PORT`, `FASTMCP_PATH` and
    /// `FASTMCP_STATELESS` (legacy requests without sessions) for HTTP.
    pub fn from_env() -> Result<Self> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        match var("FASTMCP_TRANSPORT").as_deref().map(str::trim) {
            None | Some("stdio") => Ok(Transport::Stdio),
            Some("http") => {
                let mut options = HttpOptions::default();
                if let Some(host) = var("FASTMCP_HOST") {
                    let ip = host.trim().parse().map_err(|_| {
                        Error::msg(format!("FASTMCP_HOST must be an IP address such as 127.0.0.1, not {host:?}"))
                    })?;
                    options.addr.set_ip(ip);
                }
                if let Some(port) = var("FASTMCP_PORT") {
                    let port = port
                        .trim()
                        .parse()
                        .map_err(|_| Error::msg(format!("FASTMCP_PORT must be a port number, not {port:?}")))?;
                    options.addr.set_port(port);
                }
                if let Some(stateless) = var("FASTMCP_STATELESS") {
                    options.sessions = match stateless.trim() {
                        "1" | "true" => false,
                        "0" | "false" => true,
                        other => {
                            return Err(Error::msg(format!("FASTMCP_STATELESS must be true or false, not {other:?}")));
                        }
                    };
                }
                if let Some(path) = var("FASTMCP_PATH") {
                    if !path.starts_with('/') {
                        return Err(Error::msg(format!("FASTMCP_PATH must start with `/`, not {path:?}")));
                    }
                    options.path = path;
                }
                Ok(Transport::Http(options))
            }
            Some(other) => Err(Error::msg(format!("FASTMCP_TRANSPORT must be `stdio` or `http`, not {other:?}"))),
        }
    }
}

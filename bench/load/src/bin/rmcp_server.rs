//! The benchmark's rmcp server (the peer): the same tools, written the way rmcp documents them
//! (`#[tool_router]` / `#[tool]` / `#[tool_handler]`), served by rmcp's `StreamableHttpService` under axum
//! (`--port`) or by its stdio transport (`--stdio`, `stdio_pipes`, the non-blocking pipe driver rmcp
//! recommends when both ends are pipes).
//!
//! HTTP default: rmcp's default configuration (legacy sessions, SSE responses). `--stateless`:
//! `legacy_session_mode = false` and `json_response = true`, rmcp's stateless JSON mode.
//!
//! `deploy` is the three-round MRTR flow by hand, as rmcp 3.11 offers it (`servers_mrtr`, its
//! `test_mrtr_behavior`): no resumable handler, so the tool reads `RequestState` and `InputResponses`
//! itself and returns `InputRequiredResult` or the result. Its state, `{step, plan}`, is sealed with rmcp's
//! `RequestStateCodec` (HMAC-SHA256, bound to the tool and its arguments, 10-minute expiry), the integrity
//! protection SEP-2322 asks for and fastmcp's default does too. Not done here, as rmcp has no such thing:
//! fastmcp's one-time use of a destructive flow's final round.

#![allow(deprecated)] // sampling is SEP-2577-deprecated but still the way to ask for a completion

use std::sync::Arc;
use std::time::Duration;

use fastmcp_bench_load::{Listen, ServerArgs, add_text, deploy as texts, init_logging};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, CreateMessageRequest, CreateMessageRequestParams, ElicitRequest,
    ElicitRequestParams, ElicitationSchema, ErrorData, InputRequest, InputRequests, InputRequiredResult,
    RequestStateCodec, SamplingMessage, SealOptions,
};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct DeployArgs {
    /// The service to deploy.
    service: String,
    /// How many replicas to run.
    replicas: u32,
}

/// Answer to the deployment question (rendered by the client as a form).
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)] // only its schema is used
struct Confirm {
    /// Go ahead with the deployment?
    confirm: bool,
}

/// What `deploy` carries from one round to the next in its sealed request state.
#[derive(serde::Serialize, serde::Deserialize)]
struct Step {
    step: u8,
    plan: String,
}

/// What every handler instance shares: the state codec (one key per process, so any instance opens any
/// round's state; rmcp's stateless HTTP mode makes a handler per request) and the form's schema.
struct Shared {
    codec: RequestStateCodec,
    confirm: ElicitationSchema,
}

#[derive(Clone)]
struct Bench {
    tool_router: ToolRouter<Self>,
    shared: Arc<Shared>,
}

const STATE_TTL: Duration = Duration::from_secs(600);

#[tool_router]
impl Bench {
    fn new(shared: Arc<Shared>) -> Self {
        Self { tool_router: Self::tool_router(), shared }
    }

    /// Add two integers.
    #[tool(annotations(read_only_hint = true, idempotent_hint = true))]
    async fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        add_text(a, b)
    }

    /// Deploy a service, asking the user first.
    #[tool(annotations(destructive_hint = true))]
    async fn deploy(
        &self,
        Parameters(DeployArgs { service, replicas }): Parameters<DeployArgs>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        // The state is bound to the request: replayed against other arguments, it does not open.
        let bound = format!("tools/call deploy {service:?} {replicas}");
        let seal = |step: Step| {
            let options = SealOptions::new().associated_data(bound.as_bytes()).ttl(STATE_TTL);
            self.shared
                .codec
                .seal_json_with(&step, &options)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))
        };
        let Some(state) = state else {
            let plan = texts::plan(&service, replicas); // the first round's work
            let form = ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: texts::confirm_message(&plan),
                requested_schema: self.shared.confirm.clone(),
            };
            let ask =
                InputRequests::from([("confirm".to_owned(), InputRequest::Elicitation(ElicitRequest::new(form)))]);
            return Ok(InputRequiredResult::new(Some(ask), Some(seal(Step { step: 1, plan })?)).into());
        };
        let Step { step, plan } = self
            .shared
            .codec
            .open_json_with(&state, bound.as_bytes())
            .map_err(|_| ErrorData::invalid_params("Invalid or expired requestState", None))?;
        let answer = |key: &str| {
            responses
                .as_ref()
                .and_then(|r| r.get(key))
                .ok_or_else(|| ErrorData::invalid_params(format!("missing input response {key:?}"), None))
        };
        match step {
            1 => {
                let confirm = answer("confirm")?;
                if confirm["action"] != "accept" || confirm["content"]["confirm"] != true {
                    let text = format!("Deployment of {service} cancelled.");
                    return Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into());
                }
                let prompt = CreateMessageRequestParams::new(
                    vec![SamplingMessage::user_text(texts::notes_prompt(&plan))],
                    texts::NOTES_MAX_TOKENS,
                );
                let ask = InputRequests::from([(
                    "notes".to_owned(),
                    InputRequest::CreateMessage(CreateMessageRequest::new(prompt)),
                )]);
                Ok(InputRequiredResult::new(Some(ask), Some(seal(Step { step: 2, plan })?)).into())
            }
            2 => {
                let notes = answer("notes")?["content"]["text"]
                    .as_str()
                    .ok_or_else(|| ErrorData::invalid_params("the sampling answer has no text", None))?;
                Ok(CallToolResult::success(vec![ContentBlock::text(texts::deployed(&plan, notes))]).into())
            }
            _ => Err(ErrorData::invalid_params("Invalid or expired requestState", None)),
        }
    }
}

// The router built once per handler (`self.tool_router`), not per call: the faster of rmcp's documented forms.
#[tool_handler(router = self.tool_router, name = "bench-rmcp", version = "0.0.0")]
impl ServerHandler for Bench {}

async fn serve_http(addr: std::net::SocketAddr, stateless: bool, shared: Arc<Shared>) -> std::io::Result<()> {
    let ct = tokio_util::sync::CancellationToken::new();
    let mut config = StreamableHttpServerConfig::default().with_cancellation_token(ct.child_token());
    if stateless {
        config = config.with_legacy_session_mode(false).with_json_response(true);
    }
    let service = StreamableHttpService::new(
        move || Ok(Bench::new(shared.clone())),
        LocalSessionManager::default().into(),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown_signal().await;
            ct.cancel();
        })
        .await
}

async fn serve_stdio(shared: Arc<Shared>) -> std::io::Result<()> {
    let running = Bench::new(shared).serve(rmcp::transport::stdio_pipes()).await.map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}

async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let Ok(mut term) = signal(SignalKind::terminate()) else { return std::future::pending().await };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

/// A random per-process key (as fastmcp makes when none is configured).
fn random_key() -> std::io::Result<[u8; 32]> {
    use std::io::Read;
    let mut key = [0; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut key)?;
    Ok(key)
}

fn main() -> std::io::Result<()> {
    let args = ServerArgs::parse();
    args.refuse_session_limits("rmcp_server");
    init_logging();
    let codec = RequestStateCodec::try_new(random_key()?.to_vec()).map_err(std::io::Error::other)?;
    let confirm = ElicitationSchema::from_type::<Confirm>().map_err(std::io::Error::other)?;
    let shared = Arc::new(Shared { codec, confirm });
    let runtime = args.runtime();
    match args.listen {
        Listen::Http(addr) => runtime.block_on(serve_http(addr, args.stateless, shared)),
        Listen::Stdio => runtime.block_on(serve_stdio(shared)),
    }
}

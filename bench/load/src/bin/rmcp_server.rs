//! The benchmark's rmcp server (the peer): the same `add` tool, written the way rmcp documents it
//! (`#[tool_router]` / `#[tool]` / `#[tool_handler]`), served by rmcp's `StreamableHttpService` under axum.
//!
//! Default: rmcp's default configuration (legacy sessions, SSE responses). `--stateless`:
//! `legacy_session_mode = false` and `json_response = true`, rmcp's stateless JSON mode.

use fastmcp_bench_load::{ServerArgs, add_text, init_logging};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
}

#[derive(Clone)]
struct Bench {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Bench {
    fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }

    /// Add two integers.
    #[tool(annotations(read_only_hint = true, idempotent_hint = true))]
    async fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        add_text(a, b)
    }
}

// The router built once per handler (`self.tool_router`), not per call: the faster of rmcp's documented forms.
#[tool_handler(router = self.tool_router, name = "bench-rmcp", version = "0.0.0")]
impl ServerHandler for Bench {}

async fn serve(args: ServerArgs) -> std::io::Result<()> {
    let ct = tokio_util::sync::CancellationToken::new();
    let mut config = StreamableHttpServerConfig::default().with_cancellation_token(ct.child_token());
    if args.stateless {
        config = config.with_legacy_session_mode(false).with_json_response(true);
    }
    let service = StreamableHttpService::new(|| Ok(Bench::new()), LocalSessionManager::default().into(), config);
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(args.addr).await?;
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown_signal().await;
            ct.cancel();
        })
        .await
}

async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let Ok(mut term) = signal(SignalKind::terminate()) else { return std::future::pending().await };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

fn main() -> std::io::Result<()> {
    let args = ServerArgs::parse();
    init_logging();
    args.runtime().block_on(serve(args.clone()))
}

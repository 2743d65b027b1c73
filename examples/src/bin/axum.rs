//! The quickstart's tools, resources and prompt mounted into an axum application at `/mcp`, beside the app's
//! own routes and behind the app's own tower layer — the same endpoint `serve_http` runs, as a
//! `tower::Service`.
//!
//! `cargo run -p fastmcp-examples --bin axum` serves on `http://127.0.0.1:$PORT` (`PORT`, default 3000):
//!
//! - `POST/GET/DELETE /mcp`: MCP, both eras (modern requests statelessly, legacy ones in sessions with
//!   resumable streams): the quickstart's tools, resources and prompt, and `careful_greet`, which asks;
//! - `GET /health`: `200 ok`;
//! - every response, MCP ones included, carries an `x-request-id` header set by the app's own layer;
//! - each request carries its client's address (`fastmcp::PeerAddr`, from axum's `ConnectInfo`), so the
//!   endpoint's per-client caps apply to unauthenticated clients as they do under `serve_http`;
//! - with `FASTMCP_AUTH_ISSUER` set, `/mcp` is a protected resource (as in the `auth` example) and its
//!   metadata is routed at `/.well-known/oauth-protected-resource[/mcp]`.
//!
//! On SIGINT or SIGTERM the app stops accepting, ends MCP subscriptions and sessions, and lets requests in
//! flight finish.

use axum::Router;
use axum::extract::ConnectInfo;
use axum::routing::get;
use fastmcp::McpService;
use fastmcp::prelude::*;
use fastmcp_examples::cli::{AUTH_ENV, Help, LOG_ENV};
use http::{HeaderValue, Request, Response};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context as TaskContext, Poll};
use tower::{Layer, Service};

/// `axum --help`.
const HELP: Help = Help {
    usage: "axum [--help]",
    serves: "The quickstart's tools, resources and prompt, and careful_greet(name) (asks first), mounted at /mcp\n\
             in an axum app beside GET /health; with FASTMCP_AUTH_ISSUER set, /mcp is a protected resource.",
    transports: "Streamable HTTP only, at http://127.0.0.1:$PORT/mcp (the app binds its own listener, so the\n\
                 FASTMCP_TRANSPORT/HOST/PORT/PATH variables of FastMcp::run() do not apply)",
    env: &[&[("PORT", "the port to listen on (default 3000)")], AUTH_ENV, LOG_ENV],
};

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    HELP.check_args();
    fastmcp::init_tracing();
    let port: u16 = match std::env::var("PORT") {
        Ok(port) => {
            port.parse().map_err(|_| fastmcp::Error::msg(format!("PORT must be a port number, not {port:?}")))?
        }
        Err(_) => 3000,
    };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let mut server = fastmcp_examples::quickstart::server().tool(careful_greet);
    // Mounted by the app, the endpoint can't know its URL: the app says it.
    let served_at = format!("http://{}/mcp", listener.local_addr()?);
    if let Some(auth) = fastmcp_examples::auth::from_env(Some(served_at)) {
        server = server.auth(auth);
    }
    let mcp = McpService::new(server.build()?);
    let mut app = Router::new().route("/health", get(|| async { "ok" })).route_service("/mcp", mcp.clone());
    for path in mcp.metadata_paths() {
        app = app.route_service(&path, mcp.clone());
    }
    let app = app.layer(RequestIdLayer::default()).layer(axum::middleware::map_request(peer_addr));

    tracing::info!("serving MCP on http://{}/mcp (and /health), in an axum app", listener.local_addr()?);
    axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(async move {
            shutdown_signal().await;
            // Subscriptions and session streams never end on their own: end them, so axum's graceful
            // shutdown can finish the requests in flight and close the connections.
            mcp.shutdown();
        })
        .await?;
    Ok(())
}

/// Tells the endpoint who the client is: its address, for the per-client caps.
async fn peer_addr(
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    mut req: axum::extract::Request,
) -> axum::extract::Request {
    req.extensions_mut().insert(fastmcp::PeerAddr(addr.ip()));
    req
}

/// The user's go-ahead, asked as a form.
#[elicit]
struct Proceed {
    /// Go ahead?
    proceed: bool,
}

/// Greets someone once the user agrees: a handler that asks, mounted like any other (on the modern protocol
/// its `.ask()` ends a round with `input_required`; on a legacy session the client is asked over the session).
#[tool]
async fn careful_greet(
    /// Who to greet.
    name: String,
) -> Result<String> {
    let answer = Proceed::elicit(format!("Greet {name}?")).ask().await?;
    Ok(match answer.accepted() {
        Some(Proceed { proceed: true }) => format!("Hello, {name}!"),
        _ => format!("{name} was not greeted."),
    })
}

/// The app's own middleware: numbers every response in an `x-request-id` header.
#[derive(Clone, Default)]
struct RequestIdLayer {
    next: Arc<AtomicU64>,
}

impl<S> Layer<S> for RequestIdLayer {
    type Service = RequestId<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RequestId { inner, next: self.next.clone() }
    }
}

#[derive(Clone)]
struct RequestId<S> {
    inner: S,
    next: Arc<AtomicU64>,
}

impl<S, B, R> Service<Request<B>> for RequestId<S>
where
    S: Service<Request<B>, Response = Response<R>>,
    S::Future: Send + 'static,
{
    type Response = Response<R>;
    type Error = S::Error;
    type Future = std::pin::Pin<Box<dyn Future<Output = Result<Response<R>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let response = self.inner.call(request);
        Box::pin(async move {
            let mut response = response.await?;
            response.headers_mut().insert("x-request-id", HeaderValue::from(id));
            Ok(response)
        })
    }
}

async fn shutdown_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("a SIGTERM handler can be installed");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

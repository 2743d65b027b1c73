//! fastmcp's own HTTP server: hyper-util's accept loop (HTTP/1.1 and h2c) around the same
//! [`McpService`] an application would mount, on one path, with graceful shutdown on SIGINT/SIGTERM.

use crate::server::{HttpOptions, Server};
use crate::transport::http::{McpService, ServiceOptions};
use http_body_util::{BodyExt as _, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tower_service::Service as _;

/// Serves until SIGINT or SIGTERM, then lets requests in flight finish.
pub(super) async fn serve(server: Server, options: HttpOptions) -> std::io::Result<()> {
    let listener = TcpListener::bind(options.addr).await?;
    let bound = listener.local_addr()?;
    let mode = if options.sessions { "legacy sessions" } else { "legacy without sessions" };
    tracing::info!("serving MCP on http://{bound}{} (modern per request, {mode})", options.path);
    let service_options = ServiceOptions { sessions: options.sessions, local_only: bound.ip().is_loopback() };
    let mcp = McpService::with_options(server, service_options);
    if bound.ip().is_unspecified() {
        tracing::warn!(
            "serving on every address: a protected server needs ProtectedResource::resource set to its public URL"
        );
    } else {
        mcp.resolve_resource(&format!("http://{bound}{}", options.path));
    }
    let path: std::sync::Arc<str> = options.path.into();
    let graceful = GracefulShutdown::new();
    let builder = auto::Builder::new(TokioExecutor::new());
    let mut shutdown = std::pin::pin!(shutdown_signal());
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, _) = match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        tracing::warn!("accept failed: {e}");
                        continue;
                    }
                };
                // SSE answers go out in several writes; with Nagle's algorithm each later one waits for the
                // client's delayed ACK (~40 ms a response).
                if let Err(e) = stream.set_nodelay(true) {
                    tracing::debug!("TCP_NODELAY not set: {e}");
                }
                let (mcp, path) = (mcp.clone(), path.clone());
                // The endpoint is path-agnostic; this server serves it on one path.
                let service = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let ours = req.uri().path() == &*path || mcp.serves_metadata_at(req.uri().path());
                    let served = ours.then(|| mcp.clone().call(req));
                    async move {
                        match served {
                            Some(served) => served.await,
                            None => {
                                let mut response = hyper::Response::new(Full::default().boxed());
                                *response.status_mut() = hyper::StatusCode::NOT_FOUND;
                                Ok(response)
                            }
                        }
                    }
                });
                let conn = builder.serve_connection(TokioIo::new(stream), service).into_owned();
                let conn = graceful.watch(conn);
                tokio::spawn(async move {
                    if let Err(e) = conn.await {
                        tracing::debug!("connection ended: {e}");
                    }
                });
            }
            () = &mut shutdown => break,
        }
    }
    tracing::info!("shutting down: finishing requests in flight");
    // Subscriptions and standalone streams never end on their own: end them so the connections can close.
    mcp.shutdown();
    graceful.shutdown().await;
    Ok(())
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = match signal(SignalKind::terminate()) {
            Ok(term) => term,
            Err(_) => return std::future::pending().await,
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

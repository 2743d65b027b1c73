//! fastmcp's own HTTP server: hyper-util's accept loop (HTTP/1.1 and h2c) around the same
//! [`McpService`] an application would mount, on one path, hardened: connections capped (in total, with
//! back-pressure, and per client), every read timed (headers, bodies, idle connections), `accept` errors
//! backed off, and a deadline on graceful shutdown (SIGINT/SIGTERM).

use super::admission::{Admission, Place};
use super::backoff::Backoff;
use super::connection::{Activity, Ends, drive};
use crate::protocol::{ErrorObject, error_json};
use crate::server::{HttpOptions, Server};
use crate::transport::http::{Body, McpService, ServiceOptions, holding};
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// After the shutdown grace, how long connections get to go once they are dropped.
const KILLED: Duration = Duration::from_secs(1);

/// Serves on `listener` until SIGINT or SIGTERM, then lets requests in flight finish within
/// `Options::shutdown_grace`. `options.addr` is not used: the listener's own address is the one served.
pub(super) async fn serve(server: Server, listener: TcpListener, options: HttpOptions) -> std::io::Result<()> {
    let bound = listener.local_addr()?;
    let mode = if options.sessions { "legacy sessions" } else { "legacy without sessions" };
    tracing::info!("serving MCP on http://{bound}{} (modern per request, {mode})", options.path);
    let service_options = ServiceOptions {
        sessions: options.sessions,
        local_only: bound.ip().is_loopback(),
        body_read_timeout: options.body_read_timeout,
        max_streams: options.max_streams,
        max_streams_per_client: options.max_streams_per_client,
        max_requests_per_client: options.max_requests_per_client,
        max_sessions_per_client: options.max_sessions_per_client,
    };
    let grace = server.options().shutdown_grace;
    let mcp = McpService::with_options(server, service_options);
    if bound.ip().is_unspecified() {
        tracing::warn!(
            "serving on every address: a protected server needs ProtectedResource::resource set to its public URL"
        );
    } else {
        mcp.resolve_resource(&format!("http://{bound}{}", options.path));
    }
    let admission = Admission::new(options.max_connections, options.max_connections_per_client);
    let ends = Arc::new(Ends {
        head: options.header_read_timeout,
        idle: options.idle_timeout,
        stop: CancellationToken::new(),
        kill: CancellationToken::new(),
    });
    let builders = Builders::new(&options);
    let endpoint = Arc::new(Endpoint { mcp: mcp.clone(), path: options.path.into(), builders });
    tokio::select! {
        () = accept(listener, &admission, &endpoint, &ends) => {}
        () = shutdown_signal() => {}
    }
    // The listener is closed: nothing new is accepted.
    tracing::info!("shutting down: finishing requests in flight (at most {} s)", grace.as_secs_f64());
    // Subscriptions and standalone streams never end on their own: end them so the connections can close.
    mcp.shutdown();
    ends.stop.cancel();
    if tokio::time::timeout(grace, admission.all_closed()).await.is_err() {
        tracing::warn!(
            "{} connection(s) still open after the shutdown grace (FastMcp::shutdown_grace): closing them",
            admission.open()
        );
        ends.kill.cancel();
        let _ = tokio::time::timeout(KILLED, admission.all_closed()).await;
    }
    Ok(())
}

/// What every connection is served with.
struct Endpoint {
    mcp: McpService,
    path: Arc<str>,
    builders: Builders,
}

/// The HTTP/2 client connection preface (RFC 9113, section 3.4), which an h2c client with prior knowledge
/// sends first.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// hyper's connection settings, one set for each thing a connection's first bytes may say.
///
/// hyper-util tells the two protocols apart by reading a connection's first bytes and replaying them ahead
/// of the socket, so HTTP/1's first read returned only those and its read buffer grew to 16 KB (8 KB is
/// hyper's own), held through the connection's first request: half a megabyte at 64 connections. The
/// bytes are peeked instead, and only a connection they leave in doubt (a prefix of the preface so far)
/// is told apart hyper-util's way.
struct Builders {
    http1: auto::Builder<TokioExecutor>,
    http2: auto::Builder<TokioExecutor>,
    either: auto::Builder<TokioExecutor>,
}

impl Builders {
    /// HTTP/2's cap on requests in flight. HTTP/1.1 gets no timer, so hyper times no heads: the connection's
    /// driver does (`connection.rs`), without a timer a request.
    fn new(options: &HttpOptions) -> Self {
        let mut either = auto::Builder::new(TokioExecutor::new());
        either.http2().timer(TokioTimer::new()).max_concurrent_streams(options.max_concurrent_streams);
        Self { http1: either.clone().http1_only(), http2: either.clone().http2_only(), either }
    }

    /// The builder for a connection that sent `first` (none: it closed, or the peek failed, which hyper
    /// will see too).
    fn speaking(&self, first: &[u8]) -> &auto::Builder<TokioExecutor> {
        if first.is_empty() {
            &self.either
        } else if !PREFACE.starts_with(first) {
            &self.http1
        } else if first.len() == PREFACE.len() {
            &self.http2
        } else {
            &self.either
        }
    }
}

/// Accepts connections for as long as it is polled, each while there is a place for it.
async fn accept(listener: TcpListener, admission: &Arc<Admission>, endpoint: &Arc<Endpoint>, ends: &Arc<Ends>) {
    let mut backoff = Backoff::new();
    loop {
        let permit = admission.wait_for_place().await;
        let (stream, peer) = loop {
            match listener.accept().await {
                Ok(accepted) => break accepted,
                Err(e) => backoff.failed(&e).await,
            }
        };
        backoff.succeeded();
        // SSE answers go out in several writes; with Nagle's algorithm each later one waits for the
        // client's delayed ACK (~40 ms a response).
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!("TCP_NODELAY not set: {e}");
        }
        let place = admission.admit(permit, peer.ip());
        tokio::spawn(connection(stream, peer, place, admission.per_client(), endpoint.clone(), ends.clone()));
    }
}

/// Serves one connection, holding its place until it closes.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    place: Result<Place, Place>,
    per_client: usize,
    endpoint: Arc<Endpoint>,
    ends: Arc<Ends>,
) {
    let activity = Activity::new();
    let mut first = [0; PREFACE.len()];
    let Some(peeked) = activity.opening(&ends, stream.peek(&mut first)).await else { return };
    let builder = endpoint.builders.speaking(&first[..peeked.unwrap_or(0)]);
    let io = TokioIo::new(stream);
    let _place = match place {
        Ok(place) => place,
        Err(place) => {
            let service = hyper::service::service_fn(move |_| async move {
                Ok::<_, std::convert::Infallible>(too_many_connections(per_client))
            });
            drive(builder.serve_connection(io, service).into_owned(), activity, ends).await;
            drop(place);
            return;
        }
    };
    let requests = activity.clone();
    let (mcp, path) = (endpoint.mcp.clone(), endpoint.path.clone());
    let peer = mcp.peer(peer.ip());
    // The endpoint is path-agnostic; this server serves it on one path.
    let service = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
        let in_flight = requests.begin(req.version());
        let ours = req.uri().path() == &*path || mcp.serves_metadata_at(req.uri().path());
        let served = ours.then(|| mcp.answer(req, Some(peer.clone())));
        async move {
            let response = match served {
                Some(served) => served.await?,
                None => status(hyper::StatusCode::NOT_FOUND),
            };
            Ok::<_, std::convert::Infallible>(holding(response, in_flight))
        }
    });
    drive(builder.serve_connection(io, service).into_owned(), activity, ends).await;
}

fn status(status: hyper::StatusCode) -> hyper::Response<Body> {
    let mut response = hyper::Response::new(Full::default().boxed());
    *response.status_mut() = status;
    response
}

/// A connection beyond its client's share: every request is answered 429, and the connection closes.
fn too_many_connections(limit: usize) -> hyper::Response<Body> {
    let message = format!(
        "too many connections from this client (limit {limit}, HttpOptions::max_connections_per_client); \
         close one first"
    );
    let body = error_json(None, &ErrorObject::internal(message));
    let mut response = hyper::Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = hyper::StatusCode::TOO_MANY_REQUESTS;
    let headers = response.headers_mut();
    headers.insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("application/json"));
    headers.insert(hyper::header::RETRY_AFTER, hyper::header::HeaderValue::from_static("1"));
    headers.insert(hyper::header::CONNECTION, hyper::header::HeaderValue::from_static("close"));
    response
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

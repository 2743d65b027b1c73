//! The HTTP floor: hyper 1's HTTP/1.1 server, one task per connection. Per request:
//!
//! 1. hyper parses the HTTP/1.1 request; the path must be `/mcp` (else 404) and the method `POST` (else 405);
//! 2. the whole body is read (up to 4 MiB, fastmcp's default limit);
//! 3. [`Floor::answer`] parses, checks and serializes;
//! 4. the answer goes as `application/json` in one write (a notification gets 202 and no body).
//!
//! `TCP_NODELAY` is set on accepted sockets, as fastmcp does. The floor speaks HTTP/1.1 only, as the load
//! does (fastmcp serves with hyper-util's `auto` builder, which also detects h2c).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use fastmcp_bench_load::floor::{Floor, Outcome};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

/// The largest body read, as fastmcp's default `max_message_bytes`.
const MAX_BODY: usize = 4 * 1024 * 1024;

/// Accepts connections until the process is ended, each served by hyper's HTTP/1.1 server on its own task.
pub async fn serve(addr: SocketAddr, floor: Floor) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let http = hyper::server::conn::http1::Builder::new();
    let floor = Arc::new(floor);
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                eprintln!("bare_server: accept failed: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            }
        };
        // As fastmcp does (it matters for responses written in several pieces; this one writes one).
        let _ = stream.set_nodelay(true);
        let floor = floor.clone();
        let service = hyper::service::service_fn(move |req| handle(floor.clone(), req));
        let conn = http.serve_connection(TokioIo::new(stream), service);
        tokio::spawn(async move {
            // A client closing its connection mid-request is not the server's problem.
            let _ = conn.await;
        });
    }
}

/// One HTTP request: `POST /mcp` with a JSON-RPC body, answered with JSON.
async fn handle(floor: Arc<Floor>, req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    if req.uri().path() != "/mcp" {
        return Ok(reply(StatusCode::NOT_FOUND, Vec::new()));
    }
    if req.method() != Method::POST {
        return Ok(reply(StatusCode::METHOD_NOT_ALLOWED, Vec::new()));
    }
    let body = match Limited::new(req.into_body(), MAX_BODY).collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => return Ok(reply(StatusCode::PAYLOAD_TOO_LARGE, Vec::new())),
    };
    let mut json = Vec::with_capacity(256);
    let status = match floor.answer(&body, &mut json) {
        Outcome::Answered => StatusCode::OK,
        Outcome::Refused => StatusCode::BAD_REQUEST,
        Outcome::Notification => StatusCode::ACCEPTED,
    };
    Ok(reply(status, json))
}

/// A response with `body`, typed as JSON when there is one.
fn reply(status: StatusCode, body: Vec<u8>) -> Response<Full<Bytes>> {
    let json = !body.is_empty();
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    if json {
        response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    }
    response
}

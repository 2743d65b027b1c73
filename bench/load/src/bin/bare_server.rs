//! The floor: the benchmark's `add` tool answered by hand on bare hyper 1 (HTTP/1.1) and serde_json, with no
//! MCP framework. It serves only what the `modern-call` scenario sends: a 2026-07-28 `tools/call add`.
//!
//! Per request it does the least an honest JSON-RPC server must: read the whole body (up to 4 MiB, fastmcp's
//! default limit), parse it as a JSON-RPC request into typed structs, check `jsonrpc`, the method
//! (`tools/call`), the `_meta` protocol version (2026-07-28), the tool name (`add`) and that the arguments
//! `a` and `b` are integers, then serialize the result, `a + b = c`, as a modern server answers it. Anything
//! else gets a JSON-RPC error. What a real MCP server does beyond that (the `Host`/`Origin`, `Accept`,
//! `Content-Type` and `Mcp-*` header checks, a registry of tools, schemas, the legacy era, sessions, SSE) is
//! left out on purpose: the gap to this server is what a framework costs.
//!
//! Same command line and runtime as the other servers (`--port`, `--workers`, a multi-thread tokio runtime;
//! `--stateless` is accepted and changes nothing: modern requests are stateless). `TCP_NODELAY` is set on
//! accepted sockets, as fastmcp does. There is no signal handling: SIGTERM's default action ends the process.

use std::borrow::Cow;
use std::convert::Infallible;

use bytes::Bytes;
use fastmcp_bench_load::{ServerArgs, add_text};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The only protocol revision served.
const MODERN: &str = "2026-07-28";
/// The largest body read, as fastmcp's default `max_message_bytes`.
const MAX_BODY: usize = 4 * 1024 * 1024;

// JSON-RPC 2.0 error codes.
const PARSE_ERROR: i32 = -32700;
const INVALID_REQUEST: i32 = -32600;
const METHOD_NOT_FOUND: i32 = -32601;
const INVALID_PARAMS: i32 = -32602;

/// A JSON-RPC request, borrowed from the body. `id` is echoed back as sent; `params` stays unparsed until
/// the method says what they are.
#[derive(Deserialize)]
struct RpcRequest<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
}

/// `tools/call` params: `arguments` stays unparsed until the tool name says what they are.
#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "_meta", borrow)]
    meta: Option<RequestMeta<'a>>,
}

/// The part of the modern `_meta` envelope the floor reads; the other keys are skipped (still parsed).
#[derive(Deserialize)]
struct RequestMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow)]
    protocol_version: Option<Cow<'a, str>>,
}

/// `add`'s arguments: integers only (a float, a string or an out-of-range number is refused).
#[derive(Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Serialize)]
struct RpcResult<'a> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: CallResult,
}

/// A modern `tools/call` result, the shape fastmcp answers: one text block, `resultType`, the server's info.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallResult {
    content: [TextContent; 1],
    result_type: &'static str,
    #[serde(rename = "_meta")]
    meta: ResultMeta,
}

#[derive(Serialize)]
struct TextContent {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

#[derive(Serialize)]
struct ResultMeta {
    #[serde(rename = "io.modelcontextprotocol/serverInfo")]
    server_info: ServerInfo,
}

#[derive(Serialize)]
struct ServerInfo {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
struct RpcError<'a> {
    jsonrpc: &'static str,
    /// `null` when the request's id could not be read.
    id: Option<&'a RawValue>,
    error: ErrorBody,
}

#[derive(Serialize)]
struct ErrorBody {
    code: i32,
    message: String,
}

fn main() -> std::io::Result<()> {
    let args = ServerArgs::parse();
    args.runtime().block_on(serve(args))
}

/// Accepts connections until the process is ended, each served by hyper's HTTP/1.1 server on its own task.
async fn serve(args: ServerArgs) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(args.addr).await?;
    let http = hyper::server::conn::http1::Builder::new();
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                eprintln!("bare_server: accept failed: {e}");
                continue;
            }
        };
        // As fastmcp does (it matters for responses written in several pieces; this one writes one).
        let _ = stream.set_nodelay(true);
        let conn = http.serve_connection(TokioIo::new(stream), hyper::service::service_fn(handle));
        tokio::spawn(async move {
            // A client closing its connection mid-request is not the server's problem.
            let _ = conn.await;
        });
    }
}

/// One HTTP request: `POST /mcp` with a JSON-RPC body, answered with JSON.
async fn handle(req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    if req.uri().path() != "/mcp" {
        return Ok(reply(StatusCode::NOT_FOUND, Vec::new()));
    }
    if req.method() != Method::POST {
        return Ok(reply(StatusCode::METHOD_NOT_ALLOWED, Vec::new()));
    }
    let body = match Limited::new(req.into_body(), MAX_BODY).collect().await {
        Ok(body) => body.to_bytes(),
        Err(e) => return Ok(reply(StatusCode::BAD_REQUEST, error_json(None, INVALID_REQUEST, e.to_string()))),
    };
    let (status, json) = answer(&body);
    Ok(reply(status, json))
}

/// The JSON-RPC answer to a body: HTTP 400 when it is not a request with an id, else 200 with the result or
/// the error.
fn answer(body: &[u8]) -> (StatusCode, Vec<u8>) {
    let request: RpcRequest<'_> = match serde_json::from_slice(body) {
        Ok(request) => request,
        Err(e) => {
            // Valid JSON of the wrong shape is an invalid request; anything else does not parse.
            let code = if e.is_data() { INVALID_REQUEST } else { PARSE_ERROR };
            return (StatusCode::BAD_REQUEST, error_json(None, code, e.to_string()));
        }
    };
    // A request's id is a string or a number (no id: a notification, which this server has none of).
    let Some(id) = request.id.filter(|id| id.get().starts_with(|c: char| c == '"' || c == '-' || c.is_ascii_digit()))
    else {
        let message = "expected a request with a string or number id".to_owned();
        return (StatusCode::BAD_REQUEST, error_json(None, INVALID_REQUEST, message));
    };
    match call(&request) {
        Ok(text) => {
            let result = RpcResult {
                jsonrpc: "2.0",
                id,
                result: CallResult {
                    content: [TextContent { kind: "text", text }],
                    result_type: "complete",
                    meta: ResultMeta { server_info: ServerInfo { name: "bench-bare", version: "0.0.0" } },
                },
            };
            (StatusCode::OK, serde_json::to_vec(&result).expect("a result serializes"))
        }
        Err((code, message)) => (StatusCode::OK, error_json(Some(id), code, message)),
    }
}

/// Serves the request: the tool's text, or a JSON-RPC error code and message.
fn call(request: &RpcRequest<'_>) -> Result<String, (i32, String)> {
    if request.jsonrpc != "2.0" {
        return Err((INVALID_REQUEST, format!("unsupported jsonrpc version {:?}", request.jsonrpc)));
    }
    if request.method != "tools/call" {
        return Err((METHOD_NOT_FOUND, format!("Method not found: {} (this floor serves tools/call)", request.method)));
    }
    let params = request.params.ok_or((INVALID_PARAMS, "tools/call needs params".to_owned()))?;
    let params: CallParams<'_> =
        serde_json::from_str(params.get()).map_err(|e| (INVALID_PARAMS, format!("Invalid params: {e}")))?;
    let version = params.meta.as_ref().and_then(|m| m.protocol_version.as_deref());
    if version != Some(MODERN) {
        return Err((INVALID_PARAMS, format!("this floor serves _meta protocolVersion {MODERN} only")));
    }
    if params.name != "add" {
        return Err((INVALID_PARAMS, format!("Unknown tool: {}", params.name)));
    }
    let arguments = params.arguments.map_or("{}", RawValue::get);
    let AddArgs { a, b } = serde_json::from_str(arguments)
        .map_err(|e| (INVALID_PARAMS, format!("Invalid arguments for tool `add`: {e}")))?;
    Ok(add_text(a, b))
}

fn error_json(id: Option<&RawValue>, code: i32, message: String) -> Vec<u8> {
    let error = RpcError { jsonrpc: "2.0", id, error: ErrorBody { code, message } };
    serde_json::to_vec(&error).expect("an error serializes")
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

//! A server behind middleware, run as a real process: `Recorder` (outermost) writes down every round it
//! sees, `Shouter` upper-cases `shout`'s text on its way in, `Gate` answers `forbidden` itself. `rounds`
//! says what the recorder saw since it was last asked.

use fastmcp::middleware::{BoxFuture, Middleware, Next, Request, Response};
use fastmcp::prelude::*;
use std::sync::Mutex;

static ROUNDS: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Recorder;

impl Middleware for Recorder {
    fn on_request<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        Box::pin(async move {
            let seen = format!(
                "{} {}{}",
                request.method(),
                request.name().unwrap_or("-"),
                if request.is_retry() { " (retry)" } else { "" }
            );
            let response = next.run(request).await;
            let how = if response.is_suspended() { "suspended" } else { "answered" };
            if seen != "tools/call rounds" {
                ROUNDS.lock().unwrap().push(format!("{seen}: {how}"));
            }
            response
        })
    }
}

struct Shouter;

impl Middleware for Shouter {
    fn on_call_tool<'a>(&'a self, mut request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        Box::pin(async move {
            if request.name() == Some("shout")
                && let Some(text) = request.arguments().and_then(|a| a["text"].as_str().map(str::to_uppercase))
                && let Err(e) = request.set_arguments(serde_json::json!({ "text": text }))
            {
                return Response::error(e);
            }
            next.run(request).await
        })
    }
}

struct Gate;

impl Middleware for Gate {
    fn on_call_tool<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        if request.name() == Some("forbidden") {
            return Box::pin(async { Response::error(Error::msg("forbidden by the gate")) });
        }
        next.run(request)
    }
}

#[elicit]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}

/// Asks, then answers.
#[tool]
async fn confirm_deploy() -> Result<String> {
    let answer = Confirm::elicit("Deploy?").ask().await?;
    Ok(match answer.accepted() {
        Some(Confirm { confirm: true }) => "deployed".into(),
        _ => "cancelled".into(),
    })
}

/// Says the text back.
#[tool]
async fn shout(text: String) -> String {
    text
}

/// Never runs: the gate answers.
#[tool]
async fn forbidden() -> String {
    unreachable!("the gate answers")
}

/// The rounds seen since the last call, one per line.
#[tool]
async fn rounds() -> String {
    std::mem::take(&mut *ROUNDS.lock().unwrap()).join("\n")
}

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    fastmcp::init_tracing();
    FastMcp::new("layered")
        .tool(confirm_deploy)
        .tool(shout)
        .tool(forbidden)
        .tool(rounds)
        .middleware(Recorder)
        .middleware(Shouter)
        .middleware(Gate)
        .run()
        .await
}

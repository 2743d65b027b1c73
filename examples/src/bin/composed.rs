//! Two servers mounted into one: `ops` (a `deploy` tool that asks before it acts, and a status resource)
//! and `docs` (a search tool and a prompt), served as `ops_deploy`, `docs_search` and `docs_summarize`,
//! the resource under its own URI. The parent logs every round's timing (the `Logging` middleware); `ops`
//! audits its own calls with a middleware of its own, which runs inside the parent's and only for `ops`.
//!
//! `cargo run -p fastmcp-examples --bin composed` (stdio; `FASTMCP_TRANSPORT=http` for HTTP), then e.g.
//! `fastmcp call "cargo run -q -p fastmcp-examples --bin composed" ops_deploy service=api replicas=2`.

use fastmcp::middleware::{BoxFuture, Logging, Middleware, Next, Request, Response};
use fastmcp::prelude::*;
use fastmcp_examples::cli::{Help, LOG_ENV, RUN_ENV, RUN_TRANSPORTS};

/// Answer to the deployment question.
#[elicit]
struct Confirm {
    /// Go ahead with the deployment?
    confirm: bool,
}

/// Deploy a service, asking first.
#[tool(destructive)]
async fn deploy(
    /// The service to deploy.
    service: String,
    /// How many replicas to run.
    replicas: u32,
) -> Result<String> {
    let plan = format!("{service} x{replicas}");
    let answer = Confirm::elicit(format!("Deploy {plan}?")).ask().await?;
    let Some(Confirm { confirm: true }) = answer.accepted() else {
        return Ok(format!("Deployment of {service} cancelled."));
    };
    Ok(format!("Deployed {plan}."))
}

/// What is running.
#[resource("ops://status", mime_type = "text/plain")]
async fn status() -> String {
    "all green".into()
}

/// Writes each of its server's calls to the audit log (here: stderr, through `tracing`).
struct Audit;

impl Middleware for Audit {
    fn on_call_tool<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> BoxFuture<'a, Response> {
        Box::pin(async move {
            let name = request.name().unwrap_or_default().to_owned();
            let response = next.run(request).await;
            tracing::info!("audit: {name} {}", if response.is_suspended() { "asked" } else { "answered" });
            response
        })
    }
}

/// Search the docs.
#[tool(read_only)]
async fn search(
    /// What to look for.
    query: String,
) -> String {
    format!("3 pages mention {query:?}")
}

/// Summarize a page of the docs.
#[prompt]
async fn summarize(
    /// The page to summarize.
    page: String,
) -> String {
    format!("Summarize the docs page {page} in three sentences.")
}

/// `composed --help`.
const HELP: Help = Help {
    usage: "composed [--help]",
    serves: "Two servers mounted into one, behind middleware:\n\
             \x20 ops   the tool ops_deploy(service, replicas) (asks first) and the resource ops://status\n\
             \x20 docs  the tool docs_search(query) and the prompt docs_summarize(page)",
    transports: RUN_TRANSPORTS,
    env: &[RUN_ENV, LOG_ENV],
};

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    HELP.check_args();
    fastmcp::init_tracing();
    let ops = FastMcp::new("ops").tool(deploy).resource(status).middleware(Audit);
    let docs = FastMcp::new("docs").tool(search).prompt(summarize);
    FastMcp::new("composed")
        .version(env!("CARGO_PKG_VERSION"))
        .middleware(Logging)
        .mount("ops", ops)
        .mount("docs", docs)
        .run()
        .await
}

//! A protected server: an OAuth 2.1 resource server whose tokens come from the authorization server
//! `FASTMCP_AUTH_ISSUER` (see `fastmcp_examples::auth`).
//!
//! `FASTMCP_AUTH_ISSUER=https://as.example.com FASTMCP_TRANSPORT=http cargo run -p fastmcp-examples --bin
//! auth` serves on `http://127.0.0.1:$FASTMCP_PORT/mcp`; its metadata is at
//! `/.well-known/oauth-protected-resource/mcp`. Every request needs a bearer token with scope `mcp` issued
//! for that URL. Tools:
//!
//! - `whoami`: the token's subject;
//! - `admin_report`: needs scope `admin` (without it, it is not listed, and calling it is 403 naming the
//!   scope);
//! - `deploy`: needs `deploy:write`, and asks the user before it acts — the flow is bound to the caller, so
//!   another user's token cannot resume it;
//! - the resource template `audit://{day}`: needs `admin`, like `admin_report`.
//!
//! On stdio, the token is `FASTMCP_AUTH_TOKEN` (verified once, at start) and `FASTMCP_AUTH_AUDIENCE` names
//! the resource it must be issued for.

use fastmcp::prelude::*;
use fastmcp_examples::cli::{AUTH_ENV, Help, LOG_ENV, RUN_ENV, RUN_TRANSPORTS};

/// Who the caller is: the access token's subject.
#[tool(read_only)]
async fn whoami(ctx: Context) -> String {
    match ctx.auth() {
        Some(token) => token.subject.clone().unwrap_or_else(|| "(a token without a subject)".into()),
        None => "anonymous".into(),
    }
}

/// A report only administrators may read.
#[tool(read_only, scopes = ["admin"])]
async fn admin_report(ctx: Context) -> String {
    let scopes = ctx.auth().map(|t| t.scopes.join(" ")).unwrap_or_default();
    format!("All systems nominal. (Your scopes: {scopes}.)")
}

/// One day of the audit log.
#[resource("audit://{day}", scopes = ["admin"])]
async fn audit(day: String) -> String {
    format!("{day}: no incidents.")
}

/// Answer to the deployment question.
#[elicit]
struct Confirm {
    /// Go ahead with the deployment?
    confirm: bool,
}

/// Deploy a service, after the user confirms.
#[tool(destructive, task = "optional", scopes = ["deploy:write"])]
async fn deploy(
    /// The service to deploy.
    service: String,
    /// How many replicas to run.
    replicas: u32,
    ctx: Context,
) -> Result<String> {
    // Runs once, in the first round; it travels in the request state, which is bound to this caller.
    let who = ctx.auth().and_then(|t| t.subject.clone()).unwrap_or_else(|| "anonymous".into());
    let answer = Confirm::elicit(format!("Deploy {service} x{replicas} for {who}?")).ask().await?;
    Ok(match answer.accepted() {
        Some(Confirm { confirm: true }) => format!("Deployed {service} x{replicas} for {who}."),
        _ => format!("Deployment of {service} cancelled."),
    })
}

/// `auth --help`.
const HELP: Help = Help {
    usage: "auth [--help]",
    serves: "A protected server (an OAuth 2.1 resource server; set FASTMCP_AUTH_ISSUER). Every request needs a\n\
             bearer token with scope `mcp`:\n\
             \x20 tools              whoami, admin_report (scope admin),\n\
             \x20                    deploy(service, replicas) (scope deploy:write; asks first)\n\
             \x20 resource template  audit://{day} (scope admin)",
    transports: RUN_TRANSPORTS,
    env: &[AUTH_ENV, STDIO_TOKEN_ENV, RUN_ENV, LOG_ENV],
};

/// The stdio caller's credentials (fastmcp's `Server::serve_stdio` on a protected server).
const STDIO_TOKEN_ENV: fastmcp_examples::cli::Env =
    &[("FASTMCP_AUTH_TOKEN", "stdio: the caller's access token, verified once, at start")];

#[tokio::main]
async fn main() -> fastmcp::Result<()> {
    HELP.check_args();
    let Some(auth) = fastmcp_examples::auth::from_env(None) else {
        return Err(fastmcp::Error::msg(
            "set FASTMCP_AUTH_ISSUER to the authorization server's issuer URL (its metadata names the JWKS)",
        ));
    };
    FastMcp::new("auth")
        .version(env!("CARGO_PKG_VERSION"))
        .auth(auth)
        .tool(whoami)
        .tool(admin_report)
        .tool(deploy)
        .resource(audit)
        .run()
        .await
}

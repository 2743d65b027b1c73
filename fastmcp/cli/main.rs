//! `fastmcp`: talk to any MCP server from a terminal — list what it offers, call a tool, read a resource,
//! get a prompt, inspect it all — with the server's forms answered at the terminal (or by `--answer`).
//!
//! SERVER is an `http(s)://` URL or a command line in one argument, run over stdio. Exit codes: 0 on a
//! result, 1 when a tool's result is an error (`isError`), 2 on a protocol, connection or usage error.

mod args;
mod form;
mod handlers;
mod render;
mod signin;

use args::{Cli, Command, Global, ListArgs};
use fastmcp::client::{Client, ClientBuilder, ClientError};
use fastmcp::protocol::Era;
use render::Style;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    let cli = <Cli as clap::Parser>::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => return fail(&Failure(format!("cannot start the async runtime: {e}"))),
    };
    let outcome = runtime.block_on(run(cli));
    // A form still waiting on the terminal (the call failed under it) is not waited for.
    runtime.shutdown_timeout(Duration::from_millis(100));
    match outcome {
        Ok(Done::Result) => ExitCode::SUCCESS,
        Ok(Done::ToolError) => ExitCode::from(1),
        Err(failure) => fail(&failure),
    }
}

/// How a command ended, when it got an answer.
enum Done {
    Result,
    /// A tool answered with `isError: true`.
    ToolError,
}

/// A protocol, connection or usage error: printed on stderr, exit code 2.
struct Failure(String);

impl From<ClientError> for Failure {
    fn from(e: ClientError) -> Self {
        Failure(match e {
            ClientError::Rpc(e) => match e.data {
                Some(data) => format!("the server answered with error {}: {} ({data})", e.code, e.message),
                None => format!("the server answered with error {}: {}", e.code, e.message),
            },
            other => other.to_string(),
        })
    }
}

fn fail(failure: &Failure) -> ExitCode {
    eprintln!("fastmcp: {}", failure.0);
    ExitCode::from(2)
}

async fn run(cli: Cli) -> Result<Done, Failure> {
    let Cli { global, command } = cli;
    let style = Style::for_stdout();
    match command {
        Command::List { server, list } => {
            let client = connect(&global, &server).await?;
            let listed = list_some(&client, &list).await;
            client.close().await;
            let listed = listed?;
            if global.json {
                print_json(&Value::Object(listed.json()?));
            } else {
                print_out(&render::lists(&style, &listed));
            }
            Ok(Done::Result)
        }
        Command::Call { server, tool, pairs, args } => {
            let arguments = args::tool_arguments(args.as_deref(), &pairs)?;
            let client = connect(&global, &server).await?;
            let called = call(&client, &tool, arguments).await;
            client.close().await;
            let result = called?;
            let is_error = result.is_error == Some(true);
            if global.json {
                print_json(&to_json(&result)?);
            } else if is_error {
                eprint!("{}", render::tool_error(&tool, &result));
            } else {
                print_out(&render::tool_result(&style, &result));
            }
            Ok(if is_error { Done::ToolError } else { Done::Result })
        }
        Command::Read { server, uri } => {
            let client = connect(&global, &server).await?;
            let read = client.read_resource(&uri).await;
            client.close().await;
            let read = read?;
            if global.json {
                print_json(&to_json(&read)?);
            } else if let Some(bytes) = render::lone_blob(&read).filter(|_| !std::io::stdout().is_terminal()) {
                // One binary resource into a pipe or a file: its bytes, as they are.
                write_stdout(&bytes);
            } else {
                print_out(&render::resource(&style, &read));
            }
            Ok(Done::Result)
        }
        Command::Prompt { server, name, pairs } => {
            let client = connect(&global, &server).await?;
            let got = client.get_prompt(&name, pairs).await;
            client.close().await;
            let got = got?;
            if global.json {
                print_json(&to_json(&got)?);
            } else {
                print_out(&render::prompt(&style, &got));
            }
            Ok(Done::Result)
        }
        Command::Inspect { server } => {
            let client = connect(&global, &server).await?;
            let inspected = inspect(&client).await;
            client.close().await;
            let inspected = inspected?;
            if global.json {
                print_json(&inspected.json()?);
            } else {
                print_out(&render::inspection(&style, &inspected));
            }
            Ok(Done::Result)
        }
    }
}

/// Connects to SERVER with the CLI's handlers: forms at the terminal (or from `--answer`), sampling from
/// `--sample-text`, roots from `--root`, and with `-v` the server's notifications on stderr.
async fn connect(global: &Global, server: &str) -> Result<Client, Failure> {
    let is_http = server.starts_with("http://") || server.starts_with("https://");
    if !is_http && !global.http.is_empty() {
        eprintln!(
            "fastmcp: --header and --token apply to HTTP servers; {server:?} runs over stdio, so they are ignored"
        );
    }
    let mut builder = ClientBuilder::new("fastmcp-cli", env!("CARGO_PKG_VERSION")).era(global.era.into());
    builder = handlers::install(builder, global);
    for (name, value) in &global.http.headers {
        builder = builder.header(name, value);
    }
    match &global.http.token {
        Some(token) => builder = builder.authorizer(fastmcp::client::BearerToken(token.clone())),
        None if is_http => builder = builder.authorizer(signin::oauth(&global.http).await?),
        None => {}
    }
    Ok(builder.connect(server).await?)
}

/// What `list` read, by kind (only the kinds asked for).
#[derive(Default)]
struct Listed {
    tools: Option<Vec<fastmcp::protocol::Tool>>,
    resources: Option<Vec<fastmcp::protocol::Resource>>,
    templates: Option<Vec<fastmcp::protocol::ResourceTemplate>>,
    prompts: Option<Vec<fastmcp::protocol::Prompt>>,
}

impl Listed {
    /// As the list results' JSON: `tools`, `resources`, `resourceTemplates`, `prompts`, all pages joined.
    fn json(&self) -> Result<Map<String, Value>, Failure> {
        let mut out = Map::new();
        if let Some(tools) = &self.tools {
            out.insert("tools".into(), to_json(tools)?);
        }
        if let Some(resources) = &self.resources {
            out.insert("resources".into(), to_json(resources)?);
        }
        if let Some(templates) = &self.templates {
            out.insert("resourceTemplates".into(), to_json(templates)?);
        }
        if let Some(prompts) = &self.prompts {
            out.insert("prompts".into(), to_json(prompts)?);
        }
        Ok(out)
    }
}

async fn list_some(client: &Client, list: &ListArgs) -> Result<Listed, Failure> {
    let tools = list.tools || !(list.resources || list.templates || list.prompts);
    let mut listed = Listed::default();
    if tools {
        listed.tools = Some(client.list_tools().await?);
    }
    if list.resources {
        listed.resources = Some(client.list_resources().await?);
    }
    if list.templates {
        listed.templates = Some(client.list_resource_templates().await?);
    }
    if list.prompts {
        listed.prompts = Some(client.list_prompts().await?);
    }
    Ok(listed)
}

/// Calls a tool. Its schema (from `tools/list`, when the server lists tools) keeps `key=value` text as a
/// string where the tool takes a string, and lets the client send the tool's `Mcp-Param-*` headers.
async fn call(
    client: &Client,
    tool: &str,
    arguments: args::ToolArguments,
) -> Result<fastmcp::protocol::CallToolResult, Failure> {
    let schema = match client.server_capabilities().tools {
        Some(_) => client.list_tools().await.ok().and_then(|tools| tools.into_iter().find(|t| t.name == tool)),
        None => None,
    };
    let arguments = arguments.resolve(schema.as_ref().map(|t| &t.input_schema));
    Ok(client.call_tool(tool, Value::Object(arguments)).await?)
}

/// Everything a server says about itself.
struct Inspection {
    server_info: Option<fastmcp::protocol::Implementation>,
    protocol_version: String,
    era: Era,
    capabilities: fastmcp::protocol::ServerCapabilities,
    instructions: Option<String>,
    listed: Listed,
}

impl Inspection {
    fn json(&self) -> Result<Value, Failure> {
        let mut out = Map::new();
        out.insert("serverInfo".into(), to_json(&self.server_info)?);
        out.insert("protocolVersion".into(), json!(self.protocol_version));
        out.insert("era".into(), json!(era_name(self.era)));
        out.insert("capabilities".into(), to_json(&self.capabilities)?);
        out.insert("instructions".into(), to_json(&self.instructions)?);
        out.extend(self.listed.json()?);
        Ok(Value::Object(out))
    }
}

/// Reads every list the server declares a capability for.
async fn inspect(client: &Client) -> Result<Inspection, Failure> {
    let capabilities = client.server_capabilities().clone();
    let list = ListArgs {
        tools: capabilities.tools.is_some(),
        resources: capabilities.resources.is_some(),
        templates: capabilities.resources.is_some(),
        prompts: capabilities.prompts.is_some(),
    };
    let mut listed = Listed::default();
    if list.tools {
        listed.tools = Some(client.list_tools().await?);
    }
    if list.resources {
        listed.resources = Some(client.list_resources().await?);
        listed.templates = Some(client.list_resource_templates().await?);
    }
    if list.prompts {
        listed.prompts = Some(client.list_prompts().await?);
    }
    Ok(Inspection {
        server_info: client.server_info().cloned(),
        protocol_version: client.protocol_version().as_str().to_owned(),
        era: client.era(),
        capabilities,
        instructions: client.instructions().map(str::to_owned),
        listed,
    })
}

fn era_name(era: Era) -> &'static str {
    match era {
        Era::Modern => "modern",
        Era::Legacy => "legacy",
    }
}

fn to_json(value: &impl Serialize) -> Result<Value, Failure> {
    serde_json::to_value(value).map_err(|e| Failure(format!("the result could not be written as JSON: {e}")))
}

/// `--json`: the one JSON document on stdout.
fn print_json(value: &Value) {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    text.push('\n');
    write_stdout(text.as_bytes());
}

fn print_out(text: &str) {
    write_stdout(text.as_bytes());
}

/// Writes to stdout; a closed pipe (`fastmcp list … | head -1`) is not an error worth a panic.
fn write_stdout(bytes: &[u8]) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(bytes).and_then(|()| stdout.flush());
}

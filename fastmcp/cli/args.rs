//! The command line: subcommands, options (each global one may stand anywhere on the line, before or after
//! the subcommand and its positionals), and the `key=value` arguments of tools and prompts.

use crate::Failure;
use clap::{Args, Parser, Subcommand, ValueEnum};
use fastmcp::client::EraChoice;
use serde_json::{Map, Value};

/// Talk to an MCP server: list what it offers, call a tool, read a resource, get a prompt, inspect it all.
///
/// SERVER is an http(s):// URL, or a command line in one argument that is run and spoken to over stdio,
/// e.g. 'python3 server.py' or "cargo run -q -p my-server".
#[derive(Debug, Parser)]
#[command(name = "fastmcp", version, max_term_width = 110)]
#[command(after_help = "Exit status: 0 on a result, 1 when a tool's result is an error, \
                        2 on a protocol, connection or usage error.")]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the server's tools (or, with the flags, its resources, resource templates or prompts).
    List {
        /// The server: an http(s):// URL or a command line.
        server: String,
        #[command(flatten)]
        list: ListArgs,
    },
    /// Call a tool with arguments given as key=value (each value JSON where it parses, else a string).
    Call {
        /// The server: an http(s):// URL or a command line.
        server: String,
        /// The tool's name.
        tool: String,
        /// Arguments: `name=Ada`, `count=3`, `tags=["a","b"]`. A value the tool's schema says is a
        /// string stays as typed.
        #[arg(value_name = "KEY=VALUE", value_parser = parse_pair)]
        pairs: Vec<(String, String)>,
        /// The arguments as one JSON object; key=value pairs are merged over it.
        #[arg(long, value_name = "JSON")]
        args: Option<String>,
    },
    /// Read a resource by URI.
    Read {
        /// The server: an http(s):// URL or a command line.
        server: String,
        /// The resource's URI.
        uri: String,
    },
    /// Get a prompt, with its arguments as key=value (strings).
    Prompt {
        /// The server: an http(s):// URL or a command line.
        server: String,
        /// The prompt's name.
        name: String,
        /// Arguments: `code='fn main() {}'`.
        #[arg(value_name = "KEY=VALUE", value_parser = parse_pair)]
        pairs: Vec<(String, String)>,
    },
    /// Show all the server says about itself, with every schema.
    ///
    /// Who it is, the protocol version and era, its capabilities and instructions, and every tool,
    /// resource, resource template and prompt with its schema.
    Inspect {
        /// The server: an http(s):// URL or a command line.
        server: String,
    },
}

/// What `list` lists (tools when no flag is given).
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct ListArgs {
    /// List the tools (the default; give it with another flag to list both).
    #[arg(long)]
    pub tools: bool,
    /// List the resources.
    #[arg(long)]
    pub resources: bool,
    /// List the resource templates.
    #[arg(long)]
    pub templates: bool,
    /// List the prompts.
    #[arg(long)]
    pub prompts: bool,
}

/// The options every subcommand takes.
#[derive(Debug, Args)]
pub struct Global {
    /// Print the result as one JSON document on stdout (the protocol's result object).
    #[arg(long, global = true)]
    pub json: bool,
    /// The protocol era: `auto` probes with server/discover and falls back to initialize.
    #[arg(long, global = true, value_enum, default_value_t = EraArg::Auto)]
    pub era: EraArg,
    #[command(flatten)]
    pub http: HttpOptions,
    /// Show each request of the server's for input (forms, sampling) with its answer, and each
    /// notification (progress, logs), on stderr.
    #[arg(short, long, global = true)]
    pub verbose: bool,
    #[command(flatten)]
    pub input: InputOptions,
}

/// Options for an HTTP server. Without `--token`, a server that answers 401 is signed in to with OAuth:
/// the authorization URL is printed, and the browser's redirect comes back to a loopback port.
#[derive(Debug, Clone, Default, Args)]
pub struct HttpOptions {
    /// An extra HTTP header for every request, `Name: value` (repeatable).
    #[arg(long = "header", global = true, value_name = "K:V", value_parser = parse_header)]
    pub headers: Vec<(String, String)>,
    /// A bearer token sent as `Authorization: Bearer T` (no OAuth sign-in then).
    #[arg(long, global = true, value_name = "T")]
    pub token: Option<String>,
    /// OAuth: a client registered with the authorization server beforehand (else the client registers
    /// itself, where the server allows).
    #[arg(long, global = true, value_name = "ID")]
    pub client_id: Option<String>,
    /// OAuth: that client's secret.
    #[arg(long, global = true, value_name = "SECRET")]
    pub client_secret: Option<String>,
    /// OAuth: a scope to ask for besides what the server asks (repeatable).
    #[arg(long = "scope", global = true, value_name = "SCOPE")]
    pub scopes: Vec<String>,
}

impl HttpOptions {
    pub fn is_empty(&self) -> bool {
        self.headers.is_empty()
            && self.token.is_none()
            && self.client_id.is_none()
            && self.client_secret.is_none()
            && self.scopes.is_empty()
    }
}

/// How the server's requests for input are answered.
#[derive(Debug, Clone, Default, Args)]
pub struct InputOptions {
    /// Answer a form field without asking, `key=value` (JSON where it parses; repeatable).
    #[arg(long = "answer", global = true, value_name = "KEY=VALUE", value_parser = parse_pair)]
    pub answers: Vec<(String, String)>,
    /// Accept every form without asking, with the --answer values and the form's defaults.
    #[arg(long, global = true, conflicts_with = "decline")]
    pub accept: bool,
    /// Decline every form.
    #[arg(long, global = true)]
    pub decline: bool,
    /// Answer every sampling request (the server asking for an LLM completion) with this text.
    #[arg(long, global = true, value_name = "TEXT")]
    pub sample_text: Option<String>,
    /// A root the client offers the server, as a URI such as file:///home/me/project (repeatable).
    #[arg(long = "root", global = true, value_name = "URI")]
    pub roots: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EraArg {
    Auto,
    Modern,
    Legacy,
}

impl From<EraArg> for EraChoice {
    fn from(era: EraArg) -> Self {
        match era {
            EraArg::Auto => EraChoice::Auto,
            EraArg::Modern => EraChoice::Modern,
            EraArg::Legacy => EraChoice::Legacy,
        }
    }
}

/// `key=value`, split at the first `=`.
fn parse_pair(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!("expected KEY=VALUE, got {text:?}")),
    }
}

/// `Name: value`, split at the first `:`; the name must be an HTTP token.
fn parse_header(text: &str) -> Result<(String, String), String> {
    let (name, value) = text.split_once(':').ok_or_else(|| format!("expected Name: value, got {text:?}"))?;
    let name = name.trim();
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(token) {
        return Err(format!("{name:?} is not a header name"));
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

/// A tool's arguments as given: `--args` and the `key=value` pairs, merged once the tool's schema is known.
pub struct ToolArguments {
    base: Map<String, Value>,
    pairs: Vec<(String, String)>,
}

pub fn tool_arguments(args: Option<&str>, pairs: &[(String, String)]) -> Result<ToolArguments, Failure> {
    let base = match args {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => object,
            Ok(other) => return Err(Failure(format!("--args must be a JSON object, not {other}"))),
            Err(e) => return Err(Failure(format!("--args is not JSON: {e}"))),
        },
    };
    Ok(ToolArguments { base, pairs: pairs.to_vec() })
}

impl ToolArguments {
    /// The arguments object: `--args`, then each pair over it. A value is JSON where it parses, else the
    /// text as a string — except where `schema` says the property is a string, where it is the text as typed
    /// (so `id=42` stays `"42"`; a JSON string literal such as `"x"` is still unquoted).
    pub fn resolve(self, schema: Option<&Map<String, Value>>) -> Map<String, Value> {
        let properties = schema.and_then(|s| s.get("properties")).and_then(Value::as_object);
        let mut arguments = self.base;
        for (key, text) in self.pairs {
            let string_only = properties.and_then(|p| p.get(&key)).is_some_and(takes_only_strings);
            let value = if string_only {
                match serde_json::from_str::<Value>(&text) {
                    Ok(Value::String(s)) => Value::String(s),
                    _ => Value::String(text),
                }
            } else {
                json_or_string(&text)
            };
            arguments.insert(key, value);
        }
        arguments
    }
}

/// Whether a property's schema takes strings only (`"type": "string"`, possibly also `null`).
fn takes_only_strings(property: &Value) -> bool {
    match property.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(types)) => {
            types.iter().any(|t| t == "string") && types.iter().all(|t| t == "string" || t == "null")
        }
        _ => false,
    }
}

/// The text as JSON where it parses, else as a string.
pub fn json_or_string(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(line: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("fastmcp").chain(line.iter().copied()))
    }

    #[test]
    fn the_command_line_is_well_formed() {
        <Cli as clap::CommandFactory>::command().debug_assert();
    }

    #[test]
    fn global_options_stand_anywhere() {
        let before = parse(&["--json", "--era", "legacy", "-v", "call", "srv", "add", "a=2"]).unwrap();
        let after = parse(&["call", "srv", "add", "a=2", "--json", "--era", "legacy", "-v"]).unwrap();
        let middle = parse(&["call", "--era", "legacy", "srv", "--json", "add", "-v", "a=2"]).unwrap();
        for cli in [before, after, middle] {
            assert!(cli.global.json);
            assert_eq!(cli.global.era, EraArg::Legacy);
            assert!(cli.global.verbose);
            let Command::Call { server, tool, pairs, .. } = cli.command else { panic!("a call") };
            assert_eq!((server.as_str(), tool.as_str()), ("srv", "add"));
            assert_eq!(pairs, [("a".to_owned(), "2".to_owned())]);
        }
        let cli = parse(&["list", "srv", "--answer", "x=1", "--header", "A: b", "--answer", "y=2"]).unwrap();
        assert_eq!(cli.global.input.answers.len(), 2);
        assert_eq!(cli.global.http.headers, [("A".to_owned(), "b".to_owned())]);
        assert!(parse(&["list", "srv", "--accept", "--decline"]).is_err(), "accept or decline, not both");
        assert!(parse(&["call", "srv", "t", "novalue"]).is_err(), "a pair needs =");
        assert!(parse(&["list", "srv", "--header", "bad header: x"]).is_err());
    }

    #[test]
    fn pairs_merge_over_args_with_strings_kept_where_the_schema_says_string() {
        let pairs = [("id", "42"), ("n", "3"), ("name", r#""quoted""#), ("tags", r#"["a"]"#), ("word", "hi")]
            .map(|(k, v)| (k.to_owned(), v.to_owned()));
        let schema = json!({"properties": {"id": {"type": "string"}, "name": {"type": ["string", "null"]}}});
        let resolved =
            tool_arguments(Some(r#"{"n": 1, "keep": true}"#), &pairs).ok().unwrap().resolve(schema.as_object());
        assert_eq!(
            Value::Object(resolved),
            json!({"n": 3, "keep": true, "id": "42", "name": "quoted", "tags": ["a"], "word": "hi"})
        );
        let untyped = tool_arguments(None, &pairs).ok().unwrap().resolve(None);
        assert_eq!(untyped["id"], json!(42));
        assert!(tool_arguments(Some("[1]"), &[]).is_err());
        assert!(tool_arguments(Some("{"), &[]).is_err());
    }
}

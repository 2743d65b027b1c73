//! The client's handlers for what the server asks: forms (at the terminal, see [`crate::form`]), sampling
//! (`--sample-text`), roots (`--root`), and with `-v` each request for input and each notification shown on
//! stderr. The same handlers answer modern `input_required` rounds and legacy server-to-client requests.

use crate::args::Global;
use crate::form::{self, Policy};
use fastmcp::client::{ClientBuilder, ServerNotification};
use fastmcp::protocol::{CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, LoggingLevel, Root};
use serde::Serialize;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex, PoisonError};

/// The model name sampling answers carry.
const MODEL: &str = "fastmcp-cli";

pub fn install(builder: ClientBuilder, global: &Global) -> ClientBuilder {
    let verbose = global.verbose;
    let input = &global.input;
    let policy = Arc::new(Policy {
        answers: input.answers.clone(),
        accept: input.accept,
        decline: input.decline,
        terminal: std::io::stdin().is_terminal(),
    });
    let mut builder = builder.on_elicit(move |params| {
        let policy = policy.clone();
        async move { elicit(params, policy, verbose).await }
    });
    let text = input.sample_text.clone();
    builder = builder.on_sample(move |request| {
        let text = text.clone();
        async move { sample(request, text, verbose) }
    });
    if !input.roots.is_empty() {
        builder = builder.roots(input.roots.iter().map(|uri| Root { uri: uri.clone(), name: None, meta: None }));
    }
    if verbose {
        // Every log line the server has (modern: asked on each request; legacy: `logging/setLevel`).
        builder = builder.on_notification(show_notification).log_level(LoggingLevel::Debug);
    }
    builder
}

/// One form at a time: a round may carry several, and the terminal is one.
static TERMINAL: Mutex<()> = Mutex::new(());

async fn elicit(params: ElicitParams, policy: Arc<Policy>, verbose: bool) -> Result<ElicitResult, String> {
    if verbose {
        eprintln!("fastmcp: the server asks elicitation/create {}", compact(&params));
    }
    // Reading the terminal blocks: on a thread of its own, so the connection goes on meanwhile.
    let result = tokio::task::spawn_blocking(move || {
        let _turn = TERMINAL.lock().unwrap_or_else(PoisonError::into_inner);
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut out = std::io::stderr().lock();
        form::fill(&params, &policy, &mut input, &mut out)
    })
    .await
    .map_err(|e| format!("the form could not be answered: {e}"))?;
    if verbose {
        eprintln!("fastmcp: answered elicitation/create {}", compact(&result));
    }
    Ok(result)
}

fn sample(request: CreateMessageParams, text: Option<String>, verbose: bool) -> Result<CreateMessageResult, String> {
    if verbose {
        eprintln!("fastmcp: the server asks sampling/createMessage {}", compact(&request));
    }
    match text {
        Some(text) => {
            let result = CreateMessageResult::text(MODEL, text);
            if verbose {
                eprintln!("fastmcp: answered sampling/createMessage {}", compact(&result));
            }
            Ok(result)
        }
        None => {
            let why = "fastmcp has no model to sample from; pass --sample-text TEXT to answer sampling requests";
            if verbose {
                eprintln!("fastmcp: refused sampling/createMessage: {why}");
            }
            Err(why.into())
        }
    }
}

/// `-v`: a notification as one line on stderr.
fn show_notification(notification: ServerNotification) {
    match notification {
        ServerNotification::Progress(p) => {
            let total = p.total.map(|t| format!("/{t}")).unwrap_or_default();
            let message = p.message.map(|m| format!(": {m}")).unwrap_or_default();
            eprintln!("fastmcp: progress {}{total}{message}", p.progress);
        }
        ServerNotification::Log(log) => {
            let level = serde_json::to_value(log.level).ok().and_then(|l| l.as_str().map(str::to_owned));
            let logger = log.logger.map(|l| format!(" {l}")).unwrap_or_default();
            let data = match log.data {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            eprintln!("fastmcp: log [{}]{logger}: {data}", level.unwrap_or_default());
        }
        ServerNotification::ListChanged(list) => eprintln!("fastmcp: {}", list.method()),
        ServerNotification::ResourceUpdated { uri } => eprintln!("fastmcp: resource updated: {uri}"),
        ServerNotification::Other { method, params } => match params {
            Some(params) => eprintln!("fastmcp: {method} {params}"),
            None => eprintln!("fastmcp: {method}"),
        },
        other => eprintln!("fastmcp: {other:?}"),
    }
}

fn compact(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

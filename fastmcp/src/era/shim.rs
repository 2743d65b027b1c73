//! The legacy shim: a handler that suspends on a legacy session, which has no `input_required`, is served
//! by turning each round's input requests into real server-to-client requests and re-entering the handler
//! in-process with the answers. The client sees one request and one final response.

use super::legacy::Peer;
use super::outbound::Outbound;
use crate::context::Context;
use crate::error::Error;
use crate::flow::Resume;
use crate::protocol::{CallToolResult, ElicitMode, InputRequest, InputRequests, InputResponses, ProtocolVersion};
use crate::server::Server;
use crate::server::dispatch::{self, Outcome, Reply, Round, Suspended};
use futures_util::future::try_join_all;
use serde_json::value::RawValue;
use std::time::Duration;

/// How long a state-only round (`checkpoint()`) waits before re-entering the handler.
pub(crate) const STATE_ONLY_PACING: Duration = Duration::from_millis(250);

/// Serves `first` and every later suspension of the same request over the session, until the handler
/// completes, fails, or runs out of rounds.
pub(crate) async fn fulfil(
    server: &Server,
    peer: &Peer,
    outbound: Option<&Outbound>,
    method: &str,
    params: Option<&RawValue>,
    ctx: Context,
    first: Box<Suspended>,
) -> Outcome {
    let options = server.options();
    let mut suspended = first;
    for round in 1.. {
        if round > options.max_rounds {
            return failure(
                method,
                format!(
                    "Multi-round-trip request '{method}' still required input after {} rounds (FastMcp::max_rounds)",
                    options.max_rounds
                ),
            );
        }
        let step = suspended.suspension.step;
        let locals = suspended.suspension.locals;
        let requests = suspended.suspension.requests;
        let responses = if requests.is_empty() {
            tokio::time::sleep(STATE_ONLY_PACING).await;
            InputResponses::new()
        } else {
            let Some(outbound) = outbound else {
                return failure(
                    method,
                    format!(
                        "'{method}' asked the client for input, but this request has no session to send requests to \
                         the client on (legacy HTTP served without sessions); only state-only rounds \
                         (`checkpoint().ask()`) work here. Serve HTTP with sessions, or use a client on protocol \
                         2026-07-28, where `.ask()` becomes an input_required result"
                    ),
                );
            };
            if let Some(e) = super::uncovered_request(&peer.capabilities, &requests, "the session's") {
                return failure(method, e.to_string());
            }
            match ask_client(outbound, peer.protocol_version, requests, options.round_timeout).await {
                Ok(responses) => responses,
                Err(why) => return failure(method, format!("Fulfilling input required by '{method}' failed: {why}")),
            }
        };
        let resume = Resume { step, locals, responses };
        match dispatch::dispatch(server, method, params, ctx.clone(), Round::Resume(resume)).await {
            Outcome::Suspend(next) => suspended = next,
            other => return other,
        }
    }
    unreachable!("the round loop only ends by returning")
}

/// Sends every input request of a round at once; the first failure ends the round.
async fn ask_client(
    outbound: &Outbound,
    version: ProtocolVersion,
    requests: InputRequests,
    timeout: Duration,
) -> Result<InputResponses, String> {
    let asks = requests.into_iter().map(|(key, request)| async move {
        let request = legacy_shape(request, version);
        let raw = outbound.ask(&request, timeout).await.map_err(|e| format!("{} ({key}): {e}", request.method()))?;
        let value = serde_json::from_str(raw.get()).map_err(|e| format!("{key}: {e}"))?;
        Ok::<_, String>((key, value))
    });
    Ok(try_join_all(asks).await?.into_iter().collect())
}

/// Adapts a modern input request to the session's revision: URL-mode elicitation needs an
/// `elicitationId` on the 2025-11-25 wire, and revisions before it know no `mode` for forms and no titled
/// `oneOf` selects (they get `enum` + `enumNames`).
pub(crate) fn legacy_shape(mut request: InputRequest, version: ProtocolVersion) -> InputRequest {
    if let InputRequest::Elicit(params) = &mut request {
        match params.mode {
            Some(ElicitMode::Url) => params.elicitation_id = Some(random_id()),
            Some(ElicitMode::Form) if version < ProtocolVersion::V2025_11_25 => {
                params.mode = None;
                if let Some(schema) = &mut params.requested_schema {
                    crate::flow::form::legacy::legacy_enum_names(schema);
                }
            }
            _ => {}
        }
    }
    request
}

fn random_id() -> String {
    crate::ids::random().unwrap_or_else(|_| {
        // Uniqueness within the session is what matters; the clock is a fallback, never a secret.
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        crate::ids::hex(&nanos.as_nanos().to_le_bytes())
    })
}

/// A shim failure as each family surfaces it: a tool's is an `isError` result the model can read; a
/// prompt's or resource's is `-32603`.
fn failure(method: &str, message: String) -> Outcome {
    tracing::warn!("{message}");
    if method == "tools/call" {
        match Reply::new(CallToolResult::error(message), false) {
            Ok(reply) => Outcome::Complete(reply),
            Err(e) => Outcome::Error(e),
        }
    } else {
        Outcome::Error(Error::internal(message))
    }
}

//! The legacy shim: a handler that suspends on a legacy session, which has no `input_required`, is served
//! by turning each round's input requests into real server-to-client requests and re-entering the handler
//! in-process with the answers. The client sees one request and one final response.

use super::link::LegacyLink;
use crate::context::Context;
use crate::error::Error;
use crate::flow::{Resume, Suspension};
use crate::protocol::InputResponses;
use crate::server::dispatch::{Outcome, Prepared, TaskPoints};
use std::sync::Arc;
use std::time::Duration;

/// How long a state-only round (`checkpoint()`) waits before re-entering the handler.
pub(crate) const STATE_ONLY_PACING: Duration = Duration::from_millis(250);

/// Serves `first` and every later suspension of the same request over the session, until the handler
/// completes, fails, or runs out of rounds (`max_rounds`). Every round runs the request as it was prepared
/// once: nothing is parsed or looked up again.
pub(crate) async fn fulfil(
    prepared: &Prepared<'_>,
    method: &str,
    link: &LegacyLink,
    ctx: &Context,
    max_rounds: u32,
    first: Suspension,
) -> Outcome {
    let mut suspension = first;
    for round in 1.. {
        if round > max_rounds {
            return failure(
                prepared,
                format!(
                    "Multi-round-trip request '{method}' still required input after {max_rounds} rounds \
                     (FastMcp::max_rounds)"
                ),
            );
        }
        let Suspension { step, requests, locals, .. } = suspension;
        let responses = if requests.is_empty() {
            tokio::time::sleep(STATE_ONLY_PACING).await;
            InputResponses::new()
        } else {
            match link.ask(requests).await {
                Ok(responses) => responses,
                Err(why) => {
                    return failure(prepared, format!("'{method}' asked the client for input, which failed: {why}"));
                }
            }
        };
        match prepared
            .run(ctx, Some(Resume { step, locals, responses: Arc::new(responses) }), TaskPoints::PassThrough)
            .await
        {
            Outcome::Suspended(next) => suspension = next,
            other => return other,
        }
    }
    unreachable!("the round loop only ends by returning")
}

/// A shim failure: the runtime's, not the handler's, so it carries no code of its own (a tool's is an
/// `isError` result the model can read, a prompt's or resource's `-32603`).
fn failure(prepared: &Prepared<'_>, message: String) -> Outcome {
    tracing::warn!("{message}");
    prepared.failed(Error::msg(message))
}

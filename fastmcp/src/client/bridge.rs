//! A legacy call as rounds, for a caller that answers the server's questions itself — a proxy passing them
//! on to its own caller. The call runs on upstream; each server-to-client request it makes ends a round
//! with `input_required`, keyed as a modern round is, with a ticket as its `requestState`; the retry's
//! answers go back to the waiting server. The ticket names a call parked in this process: unlike a modern
//! server's request state it can't be resumed by another process, and it expires
//! ([`ClientBuilder::legacy_round_timeout`](super::ClientBuilder::legacy_round_timeout)).

use super::calls::{Retry, Round};
use super::error::ClientError;
use super::session::{Asked, Session};
use super::{Client, parse};
use crate::protocol::{ErrorObject, InputRequest, InputRequests, InputRequiredResult, InputResponses, RequestId};
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};

/// Calls waiting for their caller's answers, by ticket.
pub(crate) type Parked = Arc<Mutex<HashMap<String, LegacyCall>>>;

/// A legacy request in flight whose server requests come to its caller.
pub(crate) struct LegacyCall {
    session: Arc<Session>,
    id: RequestId,
    asked: mpsc::UnboundedReceiver<Asked>,
    outcome: oneshot::Receiver<Result<Box<RawValue>, ClientError>>,
    /// The server requests of the round that ended, waiting for their answers, by key.
    waiting: BTreeMap<String, oneshot::Sender<Result<Value, ErrorObject>>>,
    /// Keys handed out.
    asked_count: u32,
    /// The task making the request: aborting it cancels the request upstream.
    task: tokio::task::AbortHandle,
}

impl Drop for LegacyCall {
    fn drop(&mut self) {
        self.session.unroute(&self.id);
        self.task.abort();
    }
}

impl Client {
    /// One round of a legacy call: the first starts it, a retry (its `request_state` the last round's
    /// ticket) answers what the server asked and waits for what comes next.
    pub(crate) async fn legacy_round<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
        retry: Retry,
    ) -> Result<Round<T>, ClientError> {
        let mut call = match retry.request_state {
            None if retry.responses.is_some() => {
                return Err(ClientError::Protocol(format!("{method}: answers without the round's requestState")));
            }
            None => self.start_legacy(method, params),
            Some(ticket) => {
                let parked = self.parked.lock().unwrap_or_else(|p| p.into_inner()).remove(&ticket);
                let mut call = parked.ok_or_else(|| {
                    ClientError::Protocol(format!(
                        "{method}: no legacy call is waiting under this requestState (it expired, or was started \
                         by another process)"
                    ))
                })?;
                call.answer(retry.responses.unwrap_or_default());
                call
            }
        };
        let requests = match call.next().await? {
            Next::Done(raw) => return parse(&raw).map(Round::Complete),
            Next::Asked(requests) => requests,
        };
        Ok(Round::InputRequired(InputRequiredResult {
            input_requests: Some(requests),
            request_state: Some(self.park(call)),
        }))
    }

    fn start_legacy(&self, method: &str, params: Value) -> LegacyCall {
        let (to, asked) = mpsc::unbounded_channel();
        let id = self.session.reserve_id();
        self.session.route(id.clone(), to);
        let (done, outcome) = oneshot::channel();
        let (session, method, params) = (self.session.clone(), method.to_owned(), self.legacy_params(params));
        let request_id = id.clone();
        let task = tokio::spawn(async move {
            let _ = done.send(session.request_as(request_id, &method, params, Vec::new()).await);
        });
        LegacyCall {
            session: self.session.clone(),
            id,
            asked,
            outcome,
            waiting: BTreeMap::new(),
            asked_count: 0,
            task: task.abort_handle(),
        }
    }

    /// Keeps `call` under a new ticket until its caller comes back, or the timeout drops it (cancelling
    /// the request upstream).
    fn park(&self, call: LegacyCall) -> String {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).expect("the OS random source");
        let ticket: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        self.parked.lock().unwrap_or_else(|p| p.into_inner()).insert(ticket.clone(), call);
        let (parked, key, timeout) = (self.parked.clone(), ticket.clone(), self.legacy_round_timeout);
        tokio::spawn(async move {
            tokio::time::sleep(timeout).await;
            parked.lock().unwrap_or_else(|p| p.into_inner()).remove(&key);
        });
        ticket
    }
}

enum Next {
    Asked(InputRequests),
    Done(Box<RawValue>),
}

impl LegacyCall {
    /// Sends the caller's answers to the requests that are waiting; one left unanswered is refused.
    fn answer(&mut self, mut responses: InputResponses) {
        for (key, reply) in std::mem::take(&mut self.waiting) {
            let answer = responses
                .remove(&key)
                .ok_or_else(|| ErrorObject::internal(format!("the client gave no answer to `{key}`")))
                .and_then(|raw| serde_json::from_str(raw.get()).map_err(|e| ErrorObject::internal(e.to_string())));
            let _ = reply.send(answer);
        }
    }

    /// Waits for the server's next requests (all that arrived together) or the call's outcome.
    async fn next(&mut self) -> Result<Next, ClientError> {
        loop {
            tokio::select! {
                biased;
                Some(first) = self.asked.recv() => {
                    let mut requests = InputRequests::new();
                    self.take(first, &mut requests);
                    while let Ok(more) = self.asked.try_recv() {
                        self.take(more, &mut requests);
                    }
                    if !requests.is_empty() {
                        return Ok(Next::Asked(requests));
                    }
                }
                outcome = &mut self.outcome => return outcome.map_err(|_| ClientError::Closed)?.map(Next::Done),
            }
        }
    }

    /// One server request into the round, or refused at once when it is nothing a round can carry.
    fn take(&mut self, asked: Asked, requests: &mut InputRequests) {
        let raw = serde_json::json!({ "method": asked.method, "params": asked.params });
        match serde_json::from_value::<InputRequest>(raw) {
            Ok(request) => {
                self.asked_count += 1;
                let key = format!("legacy-{}", self.asked_count);
                requests.insert(key.clone(), request);
                self.waiting.insert(key, asked.reply);
            }
            Err(e) => {
                let error = match asked.method.as_str() {
                    crate::protocol::METHOD_ELICIT
                    | crate::protocol::METHOD_CREATE_MESSAGE
                    | crate::protocol::METHOD_LIST_ROOTS => {
                        ErrorObject::invalid_params(format!("Invalid params for {}: {e}", asked.method))
                    }
                    other => ErrorObject::method_not_found(other),
                };
                let _ = asked.reply.send(Err(error));
            }
        }
    }
}

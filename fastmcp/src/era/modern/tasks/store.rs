//! The server's tasks: what each one is doing, bounded in number and in time.
//!
//! A task lives from `tools/call` until its ttl runs out, then it is forgotten (and stopped, if it is still
//! running). Entries expire lazily, whenever the store is used, and each runner also stops at its task's
//! expiry, so an abandoned task costs nothing for longer than its ttl.

use crate::auth::Principal;
use crate::error::Error;
use crate::protocol::{
    CallToolResult, DetailedTask, ErrorObject, InputRequests, InputResponses, Task, TaskStatus, codes,
};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime};
use tokio::sync::oneshot;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// The limits the store keeps to (from [`Options`](crate::server::Options)).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub max_tasks: usize,
    pub ttl: Duration,
    pub poll_interval: Duration,
}

#[derive(Default)]
pub(crate) struct TaskStore {
    entries: Mutex<HashMap<String, Entry>>,
}

/// What a runner needs of its task: its id, the token `tasks/cancel` fires, and when it expires.
pub(crate) struct Handle {
    pub id: String,
    pub cancel: CancellationToken,
    pub expires: Instant,
}

/// How a task's work ended.
pub(crate) enum Settled {
    Completed(CallToolResult),
    Failed(ErrorObject),
}

struct Entry {
    created_at: String,
    updated_at: String,
    ttl: Duration,
    poll_interval: Duration,
    expires: Instant,
    state: State,
    cancel: CancellationToken,
    /// Who created it: only the same principal finds it (for another, it does not exist).
    owner: Option<Principal>,
}

enum State {
    Working,
    /// Waiting for the client: the requests not answered yet, the answers so far, and the runner to wake
    /// once `pending` is empty.
    InputRequired {
        pending: InputRequests,
        answers: InputResponses,
        waiter: Option<oneshot::Sender<InputResponses>>,
    },
    Completed(CallToolResult),
    Failed(ErrorObject),
    Cancelled,
}

impl State {
    fn status(&self) -> TaskStatus {
        match self {
            State::Working => TaskStatus::Working,
            State::InputRequired { .. } => TaskStatus::InputRequired,
            State::Completed(_) => TaskStatus::Completed,
            State::Failed(_) => TaskStatus::Failed,
            State::Cancelled => TaskStatus::Cancelled,
        }
    }
}

impl Entry {
    fn task(&self, id: &str) -> Task {
        Task {
            task_id: id.to_owned(),
            status: self.state.status(),
            status_message: None,
            created_at: self.created_at.clone(),
            last_updated_at: self.updated_at.clone(),
            ttl_ms: Some(millis(self.ttl)),
            poll_interval_ms: Some(millis(self.poll_interval).max(1)),
        }
    }

    fn set(&mut self, state: State) {
        self.state = state;
        self.updated_at = now();
    }
}

impl TaskStore {
    fn entries(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        let mut entries = self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let now = Instant::now();
        entries.retain(|_, entry| {
            let live = entry.expires > now;
            if !live {
                entry.cancel.cancel();
            }
            live
        });
        entries
    }

    /// A new working task of `owner`'s, retrievable as soon as this returns. Refused beyond `max_tasks`.
    pub fn create(&self, limits: Limits, owner: Option<Principal>) -> Result<(Handle, Task), Error> {
        let id = task_id()?;
        let mut entries = self.entries();
        if entries.len() >= limits.max_tasks {
            return Err(Error::internal(format!(
                "the server keeps at most {} tasks at once (FastMcp::max_tasks) and has no room for another until \
                 one expires; try again later",
                limits.max_tasks
            )));
        }
        let created_at = now();
        let entry = Entry {
            updated_at: created_at.clone(),
            created_at,
            ttl: limits.ttl,
            poll_interval: limits.poll_interval,
            expires: Instant::now() + limits.ttl,
            state: State::Working,
            cancel: CancellationToken::new(),
            owner,
        };
        let task = entry.task(&id);
        let handle = Handle { id: id.clone(), cancel: entry.cancel.clone(), expires: entry.expires };
        entries.insert(id, entry);
        Ok((handle, task))
    }

    /// `tasks/get`: the task and what its status implies.
    pub fn get(&self, id: &str, caller: Option<&Principal>) -> Result<DetailedTask, Error> {
        let mut entries = self.entries();
        let entry = owned(&mut entries, id, caller)?;
        let mut detailed = DetailedTask { task: entry.task(id), input_requests: None, result: None, error: None };
        match &entry.state {
            State::InputRequired { pending, .. } => detailed.input_requests = Some(pending.clone()),
            State::Completed(result) => detailed.result = Some(result.clone()),
            State::Failed(error) => detailed.error = Some(error.clone()),
            State::Working | State::Cancelled => {}
        }
        Ok(detailed)
    }

    /// `tasks/update`: records the answers to pending requests (others are ignored); once none is pending,
    /// the runner resumes with all of them.
    pub fn update(&self, id: &str, caller: Option<&Principal>, responses: InputResponses) -> Result<(), Error> {
        let mut entries = self.entries();
        let entry = owned(&mut entries, id, caller)?;
        let State::InputRequired { pending, answers, waiter } = &mut entry.state else {
            tracing::debug!("tasks/update for task {id}, which is not waiting for input: ignored");
            return Ok(());
        };
        let before = pending.len();
        for (key, value) in responses {
            if pending.remove(&key).is_some() {
                answers.insert(key, value);
            } else {
                tracing::debug!("tasks/update for task {id} answers `{key}`, which is not pending: ignored");
            }
        }
        if pending.is_empty() {
            let answers = std::mem::take(answers);
            if let Some(waiter) = waiter.take() {
                let _ = waiter.send(answers);
            }
            entry.set(State::Working);
        } else if pending.len() != before {
            entry.updated_at = now();
        }
        Ok(())
    }

    /// `tasks/cancel`: a task still running settles `cancelled` and its work is stopped; a terminal task is
    /// left as it is.
    pub fn cancel(&self, id: &str, caller: Option<&Principal>) -> Result<(), Error> {
        let mut entries = self.entries();
        let entry = owned(&mut entries, id, caller)?;
        if !entry.state.status().is_terminal() {
            entry.set(State::Cancelled);
            entry.cancel.cancel();
        }
        Ok(())
    }

    /// The runner waits for the client: the task shows these requests until `tasks/update` answers them all.
    /// `None` when the task is gone or already terminal.
    pub fn ask(&self, id: &str, requests: InputRequests) -> Option<oneshot::Receiver<InputResponses>> {
        let mut entries = self.entries();
        let entry = entries.get_mut(id).filter(|e| !e.state.status().is_terminal())?;
        let (tx, rx) = oneshot::channel();
        entry.set(State::InputRequired { pending: requests, answers: InputResponses::new(), waiter: Some(tx) });
        Some(rx)
    }

    /// The runner's work ended. A task cancelled meanwhile stays cancelled.
    pub fn settle(&self, id: &str, settled: Settled) {
        let mut entries = self.entries();
        let Some(entry) = entries.get_mut(id).filter(|e| !e.state.status().is_terminal()) else { return };
        entry.set(match settled {
            Settled::Completed(result) => State::Completed(result),
            Settled::Failed(error) => State::Failed(error),
        });
    }

    /// Forgets an expired task (the store's next use would, too).
    pub fn expire(&self, id: &str) {
        if let Some(entry) = self.entries().remove(id) {
            entry.cancel.cancel();
        }
    }
}

/// The task `caller` may steer: its own. Another's is reported exactly as one that does not exist, so task
/// ids reveal nothing across principals.
fn owned<'a>(
    entries: &'a mut HashMap<String, Entry>,
    id: &str,
    caller: Option<&Principal>,
) -> Result<&'a mut Entry, Error> {
    entries.get_mut(id).filter(|entry| entry.owner.as_ref() == caller).ok_or_else(|| unknown(id))
}

fn unknown(id: &str) -> Error {
    Error::rpc(
        ErrorObject::new(codes::INVALID_PARAMS, format!("Unknown task: {id} (it never existed, or it expired)"))
            .with_data(serde_json::json!({ "taskId": id })),
    )
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// ISO-8601 UTC with milliseconds.
fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

/// 128 random bits, hex: a task id is all a client needs to read or steer the task, so it must not be
/// guessable. Without the OS's randomness no task is made.
fn task_id() -> Result<String, Error> {
    crate::ids::random().map_err(|e| Error::internal(format!("no randomness for a task id: {e}")))
}

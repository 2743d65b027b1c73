//! The server's tasks: what each one is doing, bounded in number and in time.
//!
//! A task's record — status, the requests it waits on, the answers so far, its result or error, its owner —
//! lives in the server's [`Store`] under `task:<id>` for the task's ttl, so any replica sharing the store
//! can serve `tasks/get`, `tasks/update` and `tasks/cancel` for it. Every change is a compare-and-set of the
//! whole record ([`Store::replace_if`]), so concurrent changes from several replicas never lose one.
//!
//! The runner stays in the process that created the task. What steers it — the token `tasks/cancel` fires,
//! the wake-up once `tasks/update` has answered every request — is kept here, in [`Local`]; a replica that
//! changed a task running elsewhere says so on the store's `tasks` channel. A message lost while the store
//! was unreachable is made up for when the channel is back: each runner here re-reads its record.
//!
//! The limits are the runners' own, per process: at most [`Limits::max_tasks`] tasks kept at once (running or
//! finished, until each expires), at most [`Limits::per_principal`] of them for one authenticated caller.

use crate::auth::Principal;
use crate::error::Error;
use crate::protocol::{
    CallToolResult, DetailedTask, ErrorObject, InputRequests, InputResponses, Task, TaskStatus, codes,
};
use crate::store::{Event, Store};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, SystemTime};
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// The limits the store keeps to (from [`Options`](crate::server::Options)).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub max_tasks: usize,
    /// The most one authenticated principal keeps at once.
    pub per_principal: usize,
    pub ttl: Duration,
    pub poll_interval: Duration,
}

/// Compare-and-set attempts before a change gives up (each lost race means another change went through).
const MAX_ATTEMPTS: usize = 32;
/// How often the runner retries writing to a store it could not reach, until its task expires.
const RETRY_EVERY: Duration = Duration::from_millis(250);
/// The store channel replicas tell each other of changes to tasks on.
const CHANNEL: &str = "tasks";

pub(crate) struct TaskStore {
    store: Arc<dyn Store>,
    local: Mutex<HashMap<String, Local>>,
    /// With a shared store: listening to the `tasks` channel (from the first task made here).
    listening: OnceLock<()>,
}

/// What this process keeps of a task it runs.
struct Local {
    cancel: CancellationToken,
    /// Rings when the record may have answers for the runner (or changed under it).
    wake: Arc<Notify>,
    expires: Instant,
    owner: Option<Principal>,
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

/// A task as the store keeps it.
#[derive(Serialize, Deserialize)]
struct Record {
    owner: Option<String>,
    created_at: String,
    updated_at: String,
    ttl_ms: u64,
    poll_ms: u64,
    state: State,
}

#[derive(Clone, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
enum State {
    Working,
    /// Waiting for the client: the requests not answered yet, and the answers so far.
    InputRequired {
        pending: InputRequests,
        answers: InputResponses,
    },
    /// Every request answered: the answers wait for the runner to take them (still `working` to clients).
    Resuming {
        answers: InputResponses,
    },
    Completed {
        result: CallToolResult,
    },
    Failed {
        error: ErrorObject,
    },
    Cancelled,
}

impl State {
    fn status(&self) -> TaskStatus {
        match self {
            State::Working | State::Resuming { .. } => TaskStatus::Working,
            State::InputRequired { .. } => TaskStatus::InputRequired,
            State::Completed { .. } => TaskStatus::Completed,
            State::Failed { .. } => TaskStatus::Failed,
            State::Cancelled => TaskStatus::Cancelled,
        }
    }
}

impl Record {
    fn task(&self, id: &str) -> Task {
        Task {
            task_id: id.to_owned(),
            status: self.state.status(),
            status_message: None,
            created_at: self.created_at.clone(),
            last_updated_at: self.updated_at.clone(),
            ttl_ms: Some(self.ttl_ms),
            poll_interval_ms: Some(self.poll_ms.max(1)),
        }
    }

    fn set(&mut self, state: State) {
        self.state = state;
        self.updated_at = now();
    }

    fn terminal(&self) -> bool {
        self.state.status().is_terminal()
    }

    /// Only the principal that created it finds it (for another, it does not exist).
    fn owned_by(&self, caller: Option<&Principal>) -> bool {
        self.owner.as_deref() == caller.map(Principal::as_str)
    }
}

/// What a change of a record did: whether it changed it (to write back), and what it returns.
struct Changed<T> {
    write: bool,
    value: T,
}

impl TaskStore {
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self { store, local: Mutex::default(), listening: OnceLock::new() }
    }

    fn local(&self) -> MutexGuard<'_, HashMap<String, Local>> {
        self.local.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new working task of `owner`'s, retrievable as soon as this returns. Refused beyond `max_tasks`,
    /// or beyond `per_principal` for its owner.
    pub async fn create(self: &Arc<Self>, limits: Limits, owner: Option<Principal>) -> Result<(Handle, Task), Error> {
        let id = task_id()?;
        self.admit(limits, owner.as_ref())?;
        let created_at = now();
        let record = Record {
            owner: owner.as_ref().map(|p| p.as_str().to_owned()),
            updated_at: created_at.clone(),
            created_at,
            ttl_ms: millis(limits.ttl),
            poll_ms: millis(limits.poll_interval),
            state: State::Working,
        };
        let task = record.task(&id);
        let bytes = serde_json::to_vec(&record)?;
        let fresh = self.store.insert_if_absent(&key(&id), &bytes, limits.ttl).await.map_err(|e| e.to_rpc())?;
        if !fresh {
            return Err(Error::internal(format!("task id {id} is taken")));
        }
        let local = Local {
            cancel: CancellationToken::new(),
            wake: Arc::default(),
            expires: Instant::now() + limits.ttl,
            owner,
        };
        let handle = Handle { id: id.clone(), cancel: local.cancel.clone(), expires: local.expires };
        // Admitted above; a concurrent create may have taken the last slot meanwhile, which only lets this
        // process keep one task more than its limit for a task's lifetime.
        self.local().insert(id, local);
        self.listen();
        Ok((handle, task))
    }

    /// Room for one more task, of `owner`'s: forgets expired ones first.
    fn admit(&self, limits: Limits, owner: Option<&Principal>) -> Result<(), Error> {
        let mut local = self.local();
        let now = Instant::now();
        local.retain(|_, task| {
            let live = task.expires > now;
            if !live {
                task.cancel.cancel();
            }
            live
        });
        if local.len() >= limits.max_tasks {
            return Err(Error::internal(format!(
                "the server keeps at most {} tasks at once (FastMcp::max_tasks) and has no room for another until \
                 one expires; try again later",
                limits.max_tasks
            )));
        }
        if let Some(owner) = owner {
            let held = local.values().filter(|t| t.owner.as_ref() == Some(owner)).count();
            if held >= limits.per_principal {
                return Err(Error::internal(format!(
                    "a caller keeps at most {} tasks at once (FastMcp::max_tasks_per_principal) and has no room \
                     for another until one of its tasks expires; try again later",
                    limits.per_principal
                )));
            }
        }
        Ok(())
    }

    /// `tasks/get`: the task and what its status implies.
    pub async fn get(&self, id: &str, caller: Option<&Principal>) -> Result<DetailedTask, Error> {
        let (_, record) = self.load(id).await?.filter(|(_, r)| r.owned_by(caller)).ok_or_else(|| unknown(id))?;
        let mut detailed = DetailedTask { task: record.task(id), input_requests: None, result: None, error: None };
        match record.state {
            State::InputRequired { pending, .. } => detailed.input_requests = Some(pending),
            State::Completed { result } => detailed.result = Some(result),
            State::Failed { error } => detailed.error = Some(error),
            State::Working | State::Resuming { .. } | State::Cancelled => {}
        }
        Ok(detailed)
    }

    /// `tasks/update`: records the answers to pending requests (others are ignored); once none is pending,
    /// the runner resumes with all of them.
    pub async fn update(&self, id: &str, caller: Option<&Principal>, responses: InputResponses) -> Result<(), Error> {
        let resumes = self
            .steer(id, caller, |record| {
                let State::InputRequired { pending, answers } = &mut record.state else {
                    tracing::debug!("tasks/update for task {id}, which is not waiting for input: ignored");
                    return Changed { write: false, value: false };
                };
                let before = pending.len();
                for (key, value) in &responses {
                    if pending.remove(key).is_some() {
                        answers.insert(key.clone(), value.clone());
                    } else {
                        tracing::debug!("tasks/update for task {id} answers `{key}`, which is not pending: ignored");
                    }
                }
                if pending.is_empty() {
                    let answers = std::mem::take(answers);
                    record.set(State::Resuming { answers });
                    return Changed { write: true, value: true };
                }
                let write = pending.len() != before;
                if write {
                    record.updated_at = now();
                }
                Changed { write, value: false }
            })
            .await?;
        if resumes {
            self.tell(id, Signal::Wake).await;
        }
        Ok(())
    }

    /// `tasks/cancel`: a task still running settles `cancelled` and its work is stopped; a terminal task is
    /// left as it is.
    pub async fn cancel(&self, id: &str, caller: Option<&Principal>) -> Result<(), Error> {
        let cancelled = self
            .steer(id, caller, |record| {
                let write = !record.terminal();
                if write {
                    record.set(State::Cancelled);
                }
                Changed { write, value: write }
            })
            .await?;
        if cancelled {
            self.tell(id, Signal::Cancel).await;
        }
        Ok(())
    }

    /// The runner waits for the client: the task shows these requests until `tasks/update` answers them
    /// all, and this returns the answers. `None` when the task is gone, terminal, or expired meanwhile.
    pub async fn ask(&self, id: &str, requests: InputRequests) -> Option<InputResponses> {
        let wake = self.local().get(id).map(|t| t.wake.clone())?;
        let asked = self
            .runner_change(id, |record| {
                let write = !record.terminal();
                if write {
                    record.set(State::InputRequired { pending: requests.clone(), answers: InputResponses::new() });
                }
                Changed { write, value: write }
            })
            .await;
        if asked != Some(true) {
            return None;
        }
        loop {
            // A wake-up between the check and the wait is kept as a permit, so none is missed.
            let woken = wake.notified();
            let taken = self
                .runner_change(id, |record| match &mut record.state {
                    State::Resuming { answers } => {
                        let answers = std::mem::take(answers);
                        record.set(State::Working);
                        Changed { write: true, value: Some(Some(answers)) }
                    }
                    State::InputRequired { .. } => Changed { write: false, value: None },
                    _ => Changed { write: false, value: Some(None) },
                })
                .await;
            match taken {
                // The task went away, or settled (cancelled) while it waited.
                None | Some(Some(None)) => return None,
                Some(Some(Some(answers))) => return Some(answers),
                Some(None) => woken.await,
            }
        }
    }

    /// The runner's work ended. A task cancelled meanwhile stays cancelled.
    pub async fn settle(&self, id: &str, settled: Settled) {
        let state = match settled {
            Settled::Completed(result) => State::Completed { result },
            Settled::Failed(error) => State::Failed { error },
        };
        self.runner_change(id, |record| {
            let write = !record.terminal();
            if write {
                record.set(state.clone());
            }
            Changed { write, value: () }
        })
        .await;
    }

    /// Forgets an expired task here (its record expires in the store by itself).
    pub fn expire(&self, id: &str) {
        if let Some(task) = self.local().remove(id) {
            task.cancel.cancel();
        }
    }

    async fn load(&self, id: &str) -> Result<Option<(Vec<u8>, Record)>, Error> {
        let Some(bytes) = self.store.get(&key(id)).await.map_err(|e| e.to_rpc())? else { return Ok(None) };
        match serde_json::from_slice(&bytes) {
            Ok(record) => Ok(Some((bytes, record))),
            Err(e) => {
                // Another build's record, say: to this one the task does not exist.
                tracing::warn!("task {id}: its record does not read ({e})");
                Ok(None)
            }
        }
    }

    /// Changes the record of task `id` with `f`, written back by compare-and-set (`f` runs again on the
    /// fresh record after a lost race). `Ok(None)`: no such task for `who`. `Err`: the store failed.
    async fn change<T>(
        &self,
        id: &str,
        who: Who<'_>,
        mut f: impl FnMut(&mut Record) -> Changed<T>,
    ) -> Result<Option<T>, Error> {
        for _ in 0..MAX_ATTEMPTS {
            let found = self.load(id).await?.filter(|(_, r)| match who {
                Who::Caller(caller) => r.owned_by(caller),
                Who::Runner => true,
            });
            let Some((old, mut record)) = found else { return Ok(None) };
            let Changed { write, value } = f(&mut record);
            if !write {
                return Ok(Some(value));
            }
            let new = serde_json::to_vec(&record)?;
            if self.store.replace_if(&key(id), &old, &new).await.map_err(|e| e.to_rpc())? {
                return Ok(Some(value));
            }
        }
        Err(Error::internal(format!("task {id} changes too often to be changed now; try again")))
    }

    /// A client's change of a task it owns: an unknown task is `-32602`.
    async fn steer<T>(
        &self,
        id: &str,
        caller: Option<&Principal>,
        f: impl FnMut(&mut Record) -> Changed<T>,
    ) -> Result<T, Error> {
        self.change(id, Who::Caller(caller), f).await?.ok_or_else(|| unknown(id))
    }

    /// A change the runner makes: retried while the store can't be reached, until the task expires here.
    /// `None` when the task is gone.
    async fn runner_change<T>(&self, id: &str, mut f: impl FnMut(&mut Record) -> Changed<T>) -> Option<T> {
        loop {
            let expires = self.local().get(id).map(|t| t.expires)?;
            match self.change(id, Who::Runner, &mut f).await {
                Ok(value) => return value,
                Err(e) => {
                    tracing::warn!("task {id}: {e}; retrying");
                    if Instant::now() + RETRY_EVERY >= expires {
                        return None;
                    }
                    tokio::time::sleep(RETRY_EVERY).await;
                }
            }
        }
    }

    /// Tells the task's runner what changed: directly when it runs here, else through the store's channel.
    async fn tell(&self, id: &str, signal: Signal) {
        if self.signal(id, signal) {
            return;
        }
        if !self.store.shared() {
            return;
        }
        let message = format!("{}{id}", signal.tag());
        if let Err(e) = self.store.publish(CHANNEL, message.as_bytes()).await {
            // The runner re-reads its record when the channel is back.
            tracing::warn!("task {id}: its runner could not be told ({e})");
        }
    }

    /// Signals a runner in this process; `false` when it does not run here.
    fn signal(&self, id: &str, signal: Signal) -> bool {
        let local = self.local();
        let Some(task) = local.get(id) else { return false };
        match signal {
            Signal::Wake => task.wake.notify_one(),
            Signal::Cancel => task.cancel.cancel(),
        }
        true
    }

    /// With a shared store, hears other replicas' changes to the tasks running here, from the first task
    /// made here on; after a break in the channel, every runner here re-reads its record.
    fn listen(self: &Arc<Self>) {
        if !self.store.shared() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        self.listening.get_or_init(|| {
            let mut subscription = self.store.subscribe(CHANNEL);
            let weak = Arc::downgrade(self);
            runtime.spawn(async move {
                let mut connected_before = false;
                while let Some(event) = subscription.next().await {
                    let Some(tasks) = weak.upgrade() else { return };
                    match event {
                        Event::Message(bytes) => {
                            let text = String::from_utf8_lossy(&bytes);
                            let (tag, id) = text.split_at(text.len().min(1));
                            if let Some(signal) = Signal::from_tag(tag) {
                                tasks.signal(id, signal);
                            }
                        }
                        Event::Ready if std::mem::replace(&mut connected_before, true) => tasks.resync().await,
                        Event::Ready | Event::Gap => {}
                    }
                }
            });
        });
    }

    /// Every runner here re-reads its record: one cancelled meanwhile stops, one answered resumes.
    async fn resync(&self) {
        let ids: Vec<String> = self.local().keys().cloned().collect();
        for id in ids {
            if let Ok(Some((_, record))) = self.load(&id).await {
                let signal = if record.state.status() == TaskStatus::Cancelled { Signal::Cancel } else { Signal::Wake };
                self.signal(&id, signal);
            }
        }
    }
}

/// Who changes a record: a client (only its own tasks), or the task's runner.
#[derive(Clone, Copy)]
enum Who<'a> {
    Caller(Option<&'a Principal>),
    Runner,
}

/// What a replica tells a task's runner.
#[derive(Clone, Copy)]
enum Signal {
    /// The record has answers for it (or changed under it): look again.
    Wake,
    Cancel,
}

impl Signal {
    fn tag(self) -> &'static str {
        match self {
            Signal::Wake => "w",
            Signal::Cancel => "c",
        }
    }

    fn from_tag(tag: &str) -> Option<Self> {
        match tag {
            "w" => Some(Signal::Wake),
            "c" => Some(Signal::Cancel),
            _ => None,
        }
    }
}

fn key(id: &str) -> String {
    format!("task:{id}")
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::AccessToken;

    fn limits(max_tasks: usize, per_principal: usize) -> Limits {
        Limits { max_tasks, per_principal, ttl: Duration::from_secs(60), poll_interval: Duration::from_millis(500) }
    }

    fn principal(subject: &str) -> Option<Principal> {
        Some(AccessToken::new().issuer("https://as").subject(subject).principal())
    }

    #[tokio::test]
    async fn one_principal_cannot_take_every_task_slot() {
        let store = Arc::new(TaskStore::new(Arc::new(crate::store::MemoryStore::new())));
        let limits = limits(10, 3);
        for _ in 0..3 {
            store.create(limits, principal("alice")).await.unwrap();
        }
        let e = store.create(limits, principal("alice")).await.err().expect("alice's fourth task is refused");
        let message = e.to_string();
        assert!(message.contains("at most 3") && message.contains("FastMcp::max_tasks_per_principal"), "{message}");
        // Others still have room; anonymous callers are held only to the server-wide limit.
        store.create(limits, principal("bob")).await.unwrap();
        for _ in 0..6 {
            store.create(limits, None).await.unwrap();
        }
        let e = store.create(limits, principal("carol")).await.err().expect("the server-wide limit holds");
        assert!(e.to_string().contains("FastMcp::max_tasks)"), "{e}");
    }
}

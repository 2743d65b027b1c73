//! The server's tasks: what each one is doing, bounded in number and in time.
//!
//! A task's record — status, the requests it waits on, the answers so far, its result or error, its owner,
//! the replica that runs it —
//! lives in the server's [`Store`] under `task:<id>` for the task's ttl, so any replica sharing the store
//! can serve `tasks/get`, `tasks/update` and `tasks/cancel` for it. Every change is a compare-and-set of the
//! whole record ([`Store::replace_if`]), so concurrent changes from several replicas never lose one.
//!
//! The runner stays in the process that created the task. What steers it — the token `tasks/cancel` fires,
//! the wake-up once `tasks/update` has answered every request — is kept here, in [`Local`]; a replica that
//! changed a task running elsewhere says so on the store's `tasks` channel. A message lost while the store
//! was unreachable is made up for when the channel is back: each runner here re-reads its record.
//!
//! The record names its runner's [`Replica`], which renews a short lease in the store while it lives. A
//! replica that reads a task still running on a replica whose lease is gone fails it (by compare-and-set:
//! a completion that got there first wins), so a client polling a task whose process died learns so within
//! seconds instead of when the task expires. A store that can't say whether a replica lives fails nothing.
//!
//! The limits: at most [`Limits::max_tasks`] tasks kept at once by this process (running or finished, until
//! each expires), and at most [`Limits::per_principal`] for one authenticated caller, counted across every
//! replica sharing the store (see [`slots`]).

use super::slots;
use crate::auth::Principal;
use crate::error::Error;
use crate::protocol::{
    CallToolResult, DetailedTask, ErrorObject, InputRequests, InputResponses, Task, TaskStatus, codes,
};
use crate::store::{Event, Replica, Store};
use crate::sync::lock;
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
pub(super) const MAX_ATTEMPTS: usize = 32;
/// How often the runner retries writing to a store it could not reach, until its task expires.
const RETRY_EVERY: Duration = Duration::from_millis(250);
/// The store channel replicas tell each other of changes to tasks on.
const CHANNEL: &str = "tasks";

pub(crate) struct TaskStore {
    store: Arc<dyn Store>,
    /// This replica: named in the records of the tasks it runs, and how others are judged alive.
    replica: Arc<Replica>,
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
    /// The [`Replica`] whose process runs the task (absent in records of builds that did not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    runner: Option<String>,
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
        #[serde(deserialize_with = "stored_answers")]
        answers: InputResponses,
    },
    /// Every request answered: the answers wait for the runner to take them (still `working` to clients).
    Resuming {
        #[serde(deserialize_with = "stored_answers")]
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

/// A record's answers, read back. They are written as they are, but serde reads an internally tagged enum
/// through a buffer of its own, which cannot hand out an answer's raw JSON text: read as values instead.
fn stored_answers<'de, D: serde::Deserializer<'de>>(d: D) -> Result<InputResponses, D::Error> {
    use serde::de::Error as _;
    let values = std::collections::BTreeMap::<String, serde_json::Value>::deserialize(d)?;
    values
        .into_iter()
        .map(|(key, value)| Ok((key, serde_json::value::to_raw_value(&value).map_err(D::Error::custom)?)))
        .collect()
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
        // A failed task says why in its status message too, for clients that show only that.
        let status_message = match &self.state {
            State::Failed { error } => Some(error.message.clone()),
            _ => None,
        };
        Task {
            task_id: id.to_owned(),
            status: self.state.status(),
            status_message,
            created_at: self.created_at.clone(),
            last_updated_at: self.updated_at.clone(),
            ttl_ms: Some(self.ttl_ms),
            poll_interval_ms: Some(self.poll_ms.max(1)),
        }
    }

    /// `tasks/get`'s answer: the task and what its status implies.
    fn detailed(&self, id: &str) -> DetailedTask {
        let mut detailed = DetailedTask { task: self.task(id), input_requests: None, result: None, error: None };
        match &self.state {
            State::InputRequired { pending, .. } => detailed.input_requests = Some(pending.clone()),
            State::Completed { result } => detailed.result = Some(result.clone()),
            State::Failed { error } => detailed.error = Some(error.clone()),
            State::Working | State::Resuming { .. } | State::Cancelled => {}
        }
        detailed
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
    pub fn new(store: Arc<dyn Store>, replica: Arc<Replica>) -> Self {
        Self { store, replica, local: Mutex::default(), listening: OnceLock::new() }
    }

    fn local(&self) -> MutexGuard<'_, HashMap<String, Local>> {
        lock(&self.local)
    }

    /// A new working task of `owner`'s, run here and retrievable (on any replica) as soon as this returns.
    /// Refused beyond `max_tasks` here, or beyond `per_principal` for its owner on all replicas together.
    pub async fn create(self: &Arc<Self>, limits: Limits, owner: Option<Principal>) -> Result<(Handle, Task), Error> {
        let id = task_id()?;
        self.admit(limits)?;
        // Other replicas judge the task by this replica's lease: it is in the store before the task is.
        self.replica.announced().await.map_err(|e| e.to_rpc())?;
        let created_at = now();
        let record = Record {
            owner: owner.as_ref().map(|p| p.as_str().to_owned()),
            runner: Some(self.replica.id().to_owned()),
            updated_at: created_at.clone(),
            created_at,
            ttl_ms: millis(limits.ttl),
            poll_ms: millis(limits.poll_interval),
            state: State::Working,
        };
        let task = record.task(&id);
        let bytes = serde_json::to_vec(&record)?;
        if let Some(owner) = &owner {
            slots::take(&*self.store, owner, &id, limits.per_principal, limits.ttl).await?;
        }
        let made = match self.store.insert_if_absent(&key(&id), &bytes, limits.ttl).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(Error::internal(format!("task id {id} is taken"))),
            Err(e) => Err(e.to_rpc()),
        };
        if let Err(e) = made {
            if let Some(owner) = &owner {
                slots::give_back(&*self.store, owner, &id).await;
            }
            return Err(e);
        }
        let local =
            Local { cancel: CancellationToken::new(), wake: Arc::default(), expires: Instant::now() + limits.ttl };
        let handle = Handle { id: id.clone(), cancel: local.cancel.clone(), expires: local.expires };
        // Admitted above; a concurrent create may have taken the last place meanwhile, which only lets this
        // process keep one task more than `max_tasks` for a task's lifetime.
        self.local().insert(id, local);
        self.listen();
        Ok((handle, task))
    }

    /// Room here for one more task: forgets expired ones first. (Its owner's room is [`slots`]'s to say.)
    fn admit(&self, limits: Limits) -> Result<(), Error> {
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
        Ok(())
    }

    /// `tasks/get`: the task and what its status implies. A task whose runner's replica stopped is failed
    /// first.
    pub async fn get(&self, id: &str, caller: Option<&Principal>) -> Result<DetailedTask, Error> {
        let (_, record) = self.load(id).await?.filter(|(_, r)| r.owned_by(caller)).ok_or_else(|| unknown(id))?;
        let Some(runner) = self.lost_runner(id, &record).await else { return Ok(record.detailed(id)) };
        match self.fail_lost(id, caller, &runner).await {
            Ok(Some(detailed)) => Ok(detailed),
            Ok(None) => Err(unknown(id)),
            Err(e) => {
                // The task stays as it was read; the next poll tries again.
                tracing::warn!("task {id}: its runner's replica stopped, but the task could not be failed: {e}");
                Ok(record.detailed(id))
            }
        }
    }

    /// The replica named as the runner of a task still running, when it is known to have stopped. One that
    /// can't be judged (the store failed) is taken to live.
    async fn lost_runner(&self, id: &str, record: &Record) -> Option<String> {
        // A store no other process sees has every runner in this process.
        if record.terminal() || !self.store.shared() {
            return None;
        }
        let runner = record.runner.as_deref()?;
        match self.replica.alive(runner).await {
            Ok(alive) => (!alive).then(|| runner.to_owned()),
            Err(e) => {
                tracing::debug!("task {id}: whether its runner's replica lives is unknown ({e})");
                None
            }
        }
    }

    /// Fails a task whose runner's replica stopped, unless it settled meanwhile (a completion that got there
    /// first wins); the task as it is then. `Ok(None)`: it is gone.
    async fn fail_lost(
        &self,
        id: &str,
        caller: Option<&Principal>,
        runner: &str,
    ) -> Result<Option<DetailedTask>, Error> {
        let changed = self
            .change(id, Who::Caller(caller), |record| {
                let write = !record.terminal() && record.runner.as_deref() == Some(runner);
                if write {
                    record.set(State::Failed { error: runner_lost() });
                }
                Changed { write, value: (write, record.detailed(id)) }
            })
            .await?;
        let Some((failed, detailed)) = changed else { return Ok(None) };
        if failed {
            tracing::info!("task {id} failed: its runner, replica {runner}, stopped");
            // Should that replica live after all (cut off from the store for longer than its lease), its
            // runner stops too rather than work on for a task that has settled.
            self.tell(id, Signal::Cancel).await;
        }
        Ok(Some(detailed))
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
                for (key, value) in responses.iter() {
                    if pending.remove(key).is_some() {
                        answers.insert(key, value.to_owned());
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

    /// Every runner here re-reads its record: one settled meanwhile by another replica (cancelled, or failed
    /// for want of this replica's lease) stops, one answered resumes.
    async fn resync(&self) {
        let ids: Vec<String> = self.local().keys().cloned().collect();
        for id in ids {
            if let Ok(Some((_, record))) = self.load(&id).await {
                let signal = if record.terminal() { Signal::Cancel } else { Signal::Wake };
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

/// Why a task whose runner's replica stopped failed.
fn runner_lost() -> ErrorObject {
    ErrorObject::internal("the server replica running this task stopped before it finished; create the task again")
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
    use crate::store::{MemoryStore, StoreFuture, Subscription};

    fn limits(max_tasks: usize, per_principal: usize) -> Limits {
        Limits { max_tasks, per_principal, ttl: Duration::from_secs(60), poll_interval: Duration::from_millis(500) }
    }

    fn principal(subject: &str) -> Option<Principal> {
        Some(AccessToken::new().issuer("https://as").subject(subject).principal())
    }

    fn tasks(store: Arc<dyn Store>) -> Arc<TaskStore> {
        Arc::new(TaskStore::new(store.clone(), Replica::new(store)))
    }

    #[tokio::test]
    async fn one_principal_cannot_take_every_task_slot() {
        let store = tasks(Arc::new(MemoryStore::new()));
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

    /// A memory store that says it is shared, as two replicas in one process would see one Redis.
    struct Shared(MemoryStore);

    impl Store for Shared {
        fn insert_if_absent<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> StoreFuture<'a, bool> {
            self.0.insert_if_absent(key, value, ttl)
        }
        fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> StoreFuture<'a, ()> {
            self.0.put(key, value, ttl)
        }
        fn replace_if<'a>(&'a self, key: &'a str, expected: &'a [u8], value: &'a [u8]) -> StoreFuture<'a, bool> {
            self.0.replace_if(key, expected, value)
        }
        fn touch<'a>(&'a self, key: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
            self.0.touch(key, ttl)
        }
        fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
            self.0.get(key)
        }
        fn delete<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()> {
            self.0.delete(key)
        }
        fn publish<'a>(&'a self, channel: &'a str, message: &'a [u8]) -> StoreFuture<'a, ()> {
            self.0.publish(channel, message)
        }
        fn subscribe(&self, channel: &str) -> Subscription {
            self.0.subscribe(channel)
        }
        fn shared(&self) -> bool {
            true
        }
    }

    #[tokio::test]
    async fn a_task_whose_runner_stopped_fails_on_the_next_poll_and_the_rest_are_left_alone() {
        let store: Arc<dyn Store> = Arc::new(Shared(MemoryStore::new()));
        let (a, b) = (tasks(store.clone()), tasks(store.clone()));
        let limits = limits(10, 10);
        let (on_a, _) = a.create(limits, None).await.unwrap();
        let (done, _) = a.create(limits, None).await.unwrap();
        a.settle(&done.id, Settled::Completed(CallToolResult::default())).await;
        assert_eq!(b.get(&on_a.id, None).await.unwrap().task.status, TaskStatus::Working, "A's lease is live");

        // A's lease ends (as when its process dies): B fails the running task, once, and leaves the finished.
        // (A's heartbeat has beaten by now, and beats again only in a second.)
        tokio::time::sleep(Duration::from_millis(50)).await;
        store.delete(&format!("replica:{}", a.replica.id())).await.unwrap();
        let failed = b.get(&on_a.id, None).await.unwrap();
        assert_eq!(failed.task.status, TaskStatus::Failed);
        let message = failed.task.status_message.as_deref().unwrap_or_default();
        assert!(message.contains("stopped before it finished"), "{message}");
        assert_eq!(failed.error.as_ref().map(|e| (e.code, e.message.as_str())), Some((codes::INTERNAL_ERROR, message)));
        assert_eq!(b.get(&on_a.id, None).await.unwrap(), failed, "failed once, then left as it is");
        assert_eq!(b.get(&done.id, None).await.unwrap().task.status, TaskStatus::Completed);
        // Its runner, should it live after all, is told to stop; its own settling changes nothing.
        let told = tokio::time::timeout(Duration::from_secs(5), on_a.cancel.cancelled()).await;
        assert!(told.is_ok(), "the runner was told to stop");
        a.settle(&on_a.id, Settled::Completed(CallToolResult::default())).await;
        assert_eq!(b.get(&on_a.id, None).await.unwrap().task.status, TaskStatus::Failed);
    }
}

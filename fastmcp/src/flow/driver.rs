//! Running one round of a compiled handler body, and the helpers its generated code calls.
//!
//! The body stays an ordinary `async` fn, so `?` and `return` keep their meaning. At an `.ask()` the
//! generated code records the suspension in the round's [`Slot`] and awaits a future that never completes;
//! [`drive`] sees the body pending with the slot filled, drops the body and ends the round. Dropping is safe:
//! what must survive is already in the slot.
//!
//! What a suspension carries is a JSON array with one element per carried local. Each carried local has a
//! witness ([`carried`]) declared once at the top of the compiled body: the one place its [`Carried`] bound
//! is checked (spanned on the user's own `let`), and what encodes it where a round suspends
//! ([`LocalWitness::carry`]) and decodes it where the next one resumes ([`Locals::take`]).

use super::ask::Ask;
use super::{Resume, Step, Suspension};
use crate::error::Error;
use crate::protocol::{InputRequests, InputResponses};
use crate::state::StateError;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use std::convert::Infallible;
use std::future::{Future, Pending};
use std::marker::PhantomData;
use std::pin::pin;
use std::sync::Mutex;
use std::task::Poll;

/// Where a body leaves its suspension (or a failure the client must see as a protocol error).
#[derive(Debug, Default)]
pub struct Slot {
    filled: Mutex<Option<Result<Suspension, Error>>>,
}

impl Slot {
    pub fn new() -> Self {
        Self::default()
    }

    fn fill(&self, outcome: Result<Suspension, Error>) {
        *self.filled.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(outcome);
    }

    fn take(&self) -> Option<Result<Suspension, Error>> {
        self.filled.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take()
    }

    /// Ends the round with a protocol error (the body waits forever and is dropped).
    pub async fn fail(&self, error: Error) -> Infallible {
        self.fill(Err(error));
        std::future::pending().await
    }

    /// Ends the round of a body resumed at a step it does not have (only a token of another build of the
    /// flow could name one, and the fingerprint refuses those first).
    pub async fn unknown_step(&self, step: u32) -> Infallible {
        let _ = step;
        self.fail(Error::from(StateError::StaleFingerprint)).await
    }

    /// What an `.ask().await` becomes in the copy of a handler the macro emits next to its compile errors, so
    /// the rest of the body still type-checks without more errors. That copy never builds, so this never runs.
    #[doc(hidden)]
    pub fn unlowered<A: Ask>(ask: A) -> Result<A::Output, Error> {
        drop(ask);
        Err(Error::internal("`.ask()` outside a compiled handler body"))
    }
}

/// Runs a body until it completes or suspends. The `Send` bound is the check that a handler's body can run
/// on a multi-threaded runtime; the macro spans this call on the fn's name, so that is where rustc reports it.
pub async fn drive<F: Future + Send>(slot: &Slot, body: F) -> Result<Step<F::Output>, Error> {
    let mut body = pin!(body);
    std::future::poll_fn(|cx| match body.as_mut().poll(cx) {
        Poll::Ready(output) => Poll::Ready(Ok(Step::Complete(output))),
        Poll::Pending => match slot.take() {
            Some(Ok(suspension)) => Poll::Ready(Ok(Step::Suspend(suspension))),
            Some(Err(error)) => Poll::Ready(Err(error)),
            None => Poll::Pending,
        },
    })
    .await
}

/// A value whose type names an ask's type, so a resume arm can decode that ask's answer without the builder.
pub type AskWitness<A> = Option<PhantomData<fn() -> A>>;

pub fn witness<A: Ask>(_: &A) -> AskWitness<A> {
    Some(PhantomData)
}

/// How one local carried across `.ask()` travels: its encoder and decoder, built by [`carried`] where the
/// local's type is checked.
pub struct LocalWitness<T> {
    encode: fn(&T) -> serde_json::Result<Box<RawValue>>,
    decode: fn(&str) -> serde_json::Result<T>,
}

impl<T> std::fmt::Debug for LocalWitness<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LocalWitness")
    }
}

impl<T> LocalWitness<T> {
    /// Encodes the local where a round suspends.
    pub fn carry(&self, local: &T) -> CarriedLocal {
        CarriedLocal((self.encode)(local))
    }
}

/// One carried local, encoded.
#[derive(Debug)]
pub struct CarriedLocal(serde_json::Result<Box<RawValue>>);

/// The witness of one local that lives across `.ask()`, declared once at the top of the compiled body (its
/// type is inferred from where the local is carried). The [`Carried`] bound is the only check that the local
/// can travel; the macro spans this call on the local's own binding, so rustc reports it there, once.
pub fn carried<T: Carried>() -> LocalWitness<T> {
    LocalWitness { encode: |local| serde_json::value::to_raw_value(local), decode: |json| serde_json::from_str(json) }
}

/// The step, carried locals and answers a body starts from; step 0 with nothing for a first round.
pub fn resume_parts(resume: Option<Resume>) -> (u32, Box<RawValue>, InputResponses) {
    match resume {
        Some(r) => (r.step, r.locals, r.responses),
        None => (0, RawValue::NULL.to_owned(), InputResponses::new()),
    }
}

/// Ends the round at `step`: the ask's input requests under `key`, and the carried locals. Synchronous, so
/// nothing the body holds is borrowed across the wait that follows: `match suspend(..).await {}`.
pub fn suspend<A: Ask, const N: usize>(
    slot: &Slot,
    step: u32,
    key: &str,
    ask: A,
    locals: [CarriedLocal; N],
) -> Pending<Infallible> {
    let mut requests = InputRequests::new();
    ask.requests(key, &mut requests);
    let outcome = encode_locals(locals).map(|locals| Suspension { step, requests, locals });
    slot.fill(outcome);
    std::future::pending()
}

fn encode_locals<const N: usize>(locals: [CarriedLocal; N]) -> Result<Box<RawValue>, Error> {
    let mut json = String::from("[");
    for (i, CarriedLocal(local)) in locals.into_iter().enumerate() {
        let local = local.map_err(|e| Error::from(StateError::Unserializable(e.to_string())))?;
        if i > 0 {
            json.push(',');
        }
        json.push_str(local.get());
    }
    json.push(']');
    RawValue::from_string(json).map_err(|e| Error::from(StateError::Unserializable(e.to_string())))
}

/// The answer to the ask at `key`, typed by the ask's witness. A malformed answer ends the round with
/// `-32602`: answers are untrusted, and a handler never sees one that doesn't fit. (A missing one never gets
/// here: dispatch asks again before the handler runs.)
pub async fn answer<A: Ask>(
    slot: &Slot,
    _: &AskWitness<A>,
    key: &str,
    responses: &mut InputResponses,
) -> Result<A::Output, Error> {
    match A::answer(key, responses) {
        Ok(output) => Ok(output),
        Err(why) => match slot.fail(Error::invalid_params(why)).await {},
    }
}

/// The carried locals of a resumed round, to be taken one by one in the order they were carried.
#[derive(Debug)]
pub struct Locals {
    values: std::vec::IntoIter<Box<RawValue>>,
}

/// Opens the carried locals of a resumed round (a JSON array, one element per local).
pub async fn restore(slot: &Slot, locals: &RawValue) -> Locals {
    match serde_json::from_str::<Vec<Box<RawValue>>>(locals.get()) {
        Ok(values) => Locals { values: values.into_iter() },
        Err(e) => match slot.fail(undecodable(&e)).await {},
    }
}

impl Locals {
    /// The next carried local, decoded by its witness.
    pub async fn take<T>(&mut self, slot: &Slot, witness: &LocalWitness<T>) -> T {
        let decoded = match self.values.next() {
            Some(value) => (witness.decode)(value.get()).map_err(|e| undecodable(&e)),
            None => Err(Error::from(StateError::Undecodable { line: 0, column: 0 })),
        };
        match decoded {
            Ok(local) => local,
            Err(e) => match slot.fail(e).await {},
        }
    }
}

fn undecodable(e: &serde_json::Error) -> Error {
    Error::from(StateError::Undecodable { line: e.line(), column: e.column() })
}

/// Locals that live across `.ask()` travel in the request state, so they must serialize both ways.
#[diagnostic::on_unimplemented(
    message = "`{Self}` lives across `.ask()`, so it must implement `Serialize` and `Deserialize`",
    label = "this local is carried to the next round in the request state",
    note = "derive `serde::Serialize` and `serde::Deserialize` for it, or compute it again after the `.ask()`; a borrow (`&T`, `&str`) can't be carried: carry an owned value (`.to_owned()`, `.clone()`)"
)]
pub trait Carried: Serialize + DeserializeOwned {}

impl<T: Serialize + DeserializeOwned> Carried for T {}

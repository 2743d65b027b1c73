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
use super::{Resume, Suspension};
use crate::error::Error;
use crate::protocol::{InputRequests, InputResponses};
use crate::state::StateError;
use crate::sync::lock;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use std::convert::Infallible;
use std::future::{Future, Pending};
use std::marker::PhantomData;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::Poll;

/// Where a body leaves its suspension (or a failure the client must see as a protocol error).
#[derive(Debug, Default)]
pub struct Slot {
    filled: Mutex<Option<Result<Pause, Error>>>,
}

/// What a body that stopped left in its slot.
#[derive(Debug)]
enum Pause {
    /// The round ends here.
    Suspend(Suspension),
    /// The body stopped at a sub-flow it has not run yet: the driver runs the body again at once from there
    /// (see [`super::subflow`]), without ending the round.
    Again(Resume),
}

impl Slot {
    /// An empty slot, for one pass of a body: [`drive`] reads what the body left in it.
    pub fn new() -> Self {
        Self::default()
    }

    fn fill(&self, outcome: Result<Pause, Error>) {
        *lock(&self.filled) = Some(outcome);
    }

    /// Ends the round with this suspension (the body waits forever and is dropped).
    pub(crate) fn suspend(&self, suspension: Result<Suspension, Error>) {
        self.fill(suspension.map(Pause::Suspend));
    }

    /// Stops the body and has the driver run it again at once from `resume`.
    pub(crate) fn again(&self, resume: Result<Resume, Error>) {
        self.fill(resume.map(Pause::Again));
    }

    fn take(&self) -> Option<Result<Pause, Error>> {
        lock(&self.filled).take()
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
    pub fn unlowered<P: Point>(ask: P) -> Result<P::Output, Error> {
        drop(ask);
        Err(Error::internal("`.ask()` outside a compiled handler body"))
    }
}

/// How one pass of a body ended.
#[derive(Debug)]
pub enum Pass<T> {
    /// The body finished with this result.
    Complete(T),
    /// The round ended at an `.ask()`.
    Suspend(Suspension),
    /// The body reached a sub-flow: run it again at once from this resume, in the same round (the caller of
    /// [`drive`] loops, building the body afresh from the same arguments).
    Again(Resume),
}

/// Runs a body until it completes or stops. The `Send` bound is the check that a handler's body can run
/// on a multi-threaded runtime; the macro spans this call on the fn's name, so that is where rustc reports it.
pub async fn drive<F: Future + Send>(slot: &Slot, body: F) -> Result<Pass<F::Output>, Error> {
    let mut body = pin!(body);
    std::future::poll_fn(|cx| match body.as_mut().poll(cx) {
        Poll::Ready(output) => Poll::Ready(Ok(Pass::Complete(output))),
        Poll::Pending => match slot.take() {
            Some(Ok(Pause::Suspend(suspension))) => Poll::Ready(Ok(Pass::Suspend(suspension))),
            Some(Ok(Pause::Again(resume))) => Poll::Ready(Ok(Pass::Again(resume))),
            Some(Err(error)) => Poll::Ready(Err(error)),
            None => Poll::Pending,
        },
    })
    .await
}

/// A value whose type names an ask's type, so a resume arm can decode that ask's answer without the builder.
pub type AskWitness<A> = Option<PhantomData<fn() -> A>>;

/// The [`AskWitness`] of `point`'s type, taken where the ask is built, for the resume arm that decodes its
/// answer. Called by the code the handler macros generate.
pub fn witness<P: Point>(_: &P) -> AskWitness<P> {
    Some(PhantomData)
}

/// What may stand before `.ask().await` in a handler: every [`Ask`] (the round ends there, and the next one
/// reads the answer), and every sub-flow ([`SubFlowCall`](super::SubFlowCall): the caller stays at that
/// point for as many rounds as the sub-flow takes). The generated code is the same for both; which one a
/// point is, is decided here, by type.
pub trait Point: Send + Sized + 'static {
    /// What `.ask().await` yields (inside `Result<_, Error>`).
    type Output;

    /// Reached on the way forward: ends the round with this point's requests (or, for a sub-flow, has the
    /// driver resume here at once). `locals` are the caller's carried locals, encoded.
    #[doc(hidden)]
    fn reach(self, slot: &Slot, step: u32, key: &str, locals: Result<Box<RawValue>, Error>);

    /// Resumed here: the point's output, from the round's answers. A malformed answer fails the round
    /// through `slot`; a sub-flow that asks again suspends the caller again at the same step.
    #[doc(hidden)]
    fn resume(
        slot: &Slot,
        key: &str,
        answers: &mut Answers,
    ) -> impl Future<Output = Result<Self::Output, Error>> + Send;
}

impl<A: Ask> Point for A {
    type Output = A::Output;

    fn reach(self, slot: &Slot, step: u32, key: &str, locals: Result<Box<RawValue>, Error>) {
        let mut requests = InputRequests::new();
        self.requests(key, &mut requests);
        slot.suspend(locals.map(|locals| Suspension { step, requests, locals, task: false }));
    }

    fn resume(slot: &Slot, key: &str, answers: &mut Answers) -> impl Future<Output = Result<A::Output, Error>> + Send {
        // Read in the first poll, so the future never holds the answer (its type need not be `Send`).
        let mut answers = Some(answers);
        std::future::poll_fn(move |_| match answers.take().map(|a| A::answer(key, &a.responses)) {
            Some(Ok(output)) => Poll::Ready(Ok(output)),
            Some(Err(why)) => {
                slot.suspend(Err(Error::invalid_params(why)));
                Poll::Pending
            }
            None => Poll::Pending,
        })
    }
}

/// The client's answers to a round, and, when the round resumes at a sub-flow, that sub-flow's state and the
/// caller's carried locals as they came (to suspend again with, unchanged).
#[derive(Debug)]
pub struct Answers {
    pub(crate) responses: Arc<InputResponses>,
    pub(crate) step: u32,
    pub(crate) nested: Option<Nested>,
}

/// The locals of a suspension at a sub-flow: `{"locals": [caller's carried locals], "flow": sub-flow state}`.
/// A plain suspension's locals are a bare array, so the two never mix up.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Nested {
    pub(crate) locals: Box<RawValue>,
    pub(crate) flow: Box<RawValue>,
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

/// The step, carried locals and answers a body starts from; step 0 with nothing for a first round. When the
/// round resumes at a sub-flow, the carried locals are the caller's and the sub-flow's state goes with the
/// answers, where that point's [`Point::resume`] finds it.
pub fn resume_parts(resume: Option<Resume>) -> (u32, Box<RawValue>, Answers) {
    match resume {
        Some(r) => {
            let nested = match r.locals.get().trim_start().starts_with('{') {
                true => serde_json::from_str::<Nested>(r.locals.get()).ok(),
                false => None,
            };
            let locals = match &nested {
                Some(nested) => nested.locals.clone(),
                None => r.locals,
            };
            (r.step, locals, Answers { responses: r.responses, step: r.step, nested })
        }
        None => (0, RawValue::NULL.to_owned(), Answers { responses: Arc::default(), step: 0, nested: None }),
    }
}

/// Ends the round at `step`: the ask's input requests under `key`, and the carried locals. Synchronous, so
/// nothing the body holds is borrowed across the wait that follows: `match suspend(..).await {}`.
pub fn suspend<P: Point, const N: usize>(
    slot: &Slot,
    step: u32,
    key: &str,
    ask: P,
    locals: [CarriedLocal; N],
) -> Pending<Infallible> {
    ask.reach(slot, step, key, encode_locals(locals));
    std::future::pending()
}

fn encode_locals<const N: usize>(locals: [CarriedLocal; N]) -> Result<Box<RawValue>, Error> {
    let unserializable = |e: &serde_json::Error| Error::from(StateError::Unserializable(e.to_string()));
    if let Some(CarriedLocal(Err(e))) = locals.iter().find(|local| local.0.is_err()) {
        return Err(unserializable(e));
    }
    // Serialized as a sequence of the raw elements: one copy of each, and `to_raw_value` takes the text as
    // it wrote it (joining by hand would need `RawValue::from_string`, which parses the whole array again).
    struct Array<'a, const N: usize>(&'a [CarriedLocal; N]);
    impl<const N: usize> Serialize for Array<'_, N> {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_seq(self.0.iter().filter_map(|CarriedLocal(local)| local.as_ref().ok()))
        }
    }
    serde_json::value::to_raw_value(&Array(&locals)).map_err(|e| unserializable(&e))
}

/// The answer to the ask at `key`, typed by the ask's witness. A malformed answer ends the round with
/// `-32602`: answers are untrusted, and a handler never sees one that doesn't fit. (A missing one never gets
/// here: dispatch asks again before the handler runs.)
pub async fn answer<P: Point>(
    slot: &Slot,
    _: &AskWitness<P>,
    key: &str,
    answers: &mut Answers,
) -> Result<P::Output, Error> {
    P::resume(slot, key, answers).await
}

/// The carried locals of a resumed round, to be taken one by one in the order they were carried. They borrow
/// the round's locals text, so opening them finds where each one is and copies nothing.
#[derive(Debug)]
pub struct Locals<'a> {
    values: std::vec::IntoIter<&'a RawValue>,
}

/// Opens the carried locals of a resumed round (a JSON array, one element per local).
pub async fn restore<'a>(slot: &Slot, locals: &'a RawValue) -> Locals<'a> {
    match serde_json::from_str::<Vec<&'a RawValue>>(locals.get()) {
        Ok(values) => Locals { values: values.into_iter() },
        Err(e) => match slot.fail(undecodable(&e)).await {},
    }
}

impl Locals<'_> {
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

// Without this rustc reports each missing trait on its own; with it, once, in `Carried`'s words.
#[diagnostic::do_not_recommend]
impl<T: Serialize + DeserializeOwned> Carried for T {}

//! The `Ask` trait: something only the client can answer, and how its answer is read back.

use crate::protocol::{InputRequests, InputResponses};
use std::future::IntoFuture;

/// A request for client input that a handler awaits with `.ask()`.
///
/// `requests` runs in the round that asks; `answer` runs in the round that resumes, where the builder is
/// gone, so it reads the answer from the type alone. Answers are untrusted: `answer` validates them.
pub trait Ask: Send + Sized + 'static {
    /// What `.ask().await?` yields.
    type Output;
    /// Adds this ask's input requests under `key` (a tuple adds `key.0`, `key.1`, …).
    fn requests(self, key: &str, into: &mut InputRequests);
    /// Reads this ask's answer under `key` from the round's responses; `Err` says what is wrong with it.
    fn answer(key: &str, responses: &InputResponses) -> Result<Self::Output, String>;
}

/// `.ask()` on every [`Ask`].
///
/// A tuple of asks is one ask: its requests go to the client together, in one round, and `.ask()` yields
/// a tuple of their answers.
///
/// ```
/// use fastmcp::prelude::*;
///
/// /// Your name.
/// #[elicit]
/// struct Name {
///     /// What should we call you?
///     name: String,
/// }
///
/// /// Greet the user in their own project.
/// #[tool]
/// async fn welcome() -> Result<String> {
///     let (name, roots) = (Name::elicit("Who are you?"), ListRoots).ask().await?;
///     let who = name.accepted().map_or_else(|| "stranger".to_owned(), |n| n.name);
///     // `ask_as` names the input request's key instead of deriving it from the ask's position.
///     let line = Sample::prompt(format!("A one-line welcome for {who}")).ask_as("welcome_line").await?;
///     Ok(format!("{} ({} roots open)", line.text(), roots.len()))
/// }
/// # fn main() { let _ = FastMcp::new("welcome").tool(welcome); }
/// ```
pub trait AskExt: Ask {
    /// Suspends the handler until the client answers. Only meaningful directly in the body of a `#[tool]`,
    /// `#[prompt]` or `#[resource]` fn, where the macro compiles it into a resumable step.
    fn ask(self) -> Asking<Self> {
        Asking(self)
    }

    /// As [`ask`](Self::ask), under a key the author chooses instead of one derived from the ask's position
    /// (`Name::elicit("Your name?").ask_as("user_name").await?`). The key must be a string literal.
    fn ask_as(self, key: &'static str) -> Asking<Self> {
        let _ = key;
        Asking(self)
    }
}

impl<A: Ask> AskExt for A {}

/// The value of `.ask()` outside a handler body. It cannot be awaited there: the bound below fails with a
/// message that says where `.ask()` may stand.
#[must_use = "`.ask()` does nothing until awaited in a handler body"]
pub struct Asking<A>(pub A);

/// Implemented by nothing: awaiting [`Asking`] outside a handler body names this trait in the error.
#[diagnostic::on_unimplemented(
    message = "`.ask().await` can only stand directly in the body of a #[tool], #[prompt] or #[resource] fn",
    label = "this `.ask()` is not in a handler body the macro can compile into resumable steps",
    note = "move the `.ask().await` out of closures, nested `async` blocks and helper fns, into the handler itself"
)]
pub trait OnlyInsideHandlers {}

impl<A: Ask + OnlyInsideHandlers> IntoFuture for Asking<A> {
    type Output = Result<A::Output, crate::Error>;
    type IntoFuture = std::future::Pending<Self::Output>;
    fn into_future(self) -> Self::IntoFuture {
        std::future::pending()
    }
}

/// A suspension with nothing to ask: the round ends with only the request state, and the client sends it
/// straight back. For long work done a slice per round.
#[derive(Debug, Clone, Copy, Default)]
pub struct Checkpoint;

/// Ends the round with nothing to ask: `checkpoint().ask().await?` (see [`Checkpoint`]).
///
/// The handler's live locals go into the request state, the client sends it straight back, and the next
/// round resumes after the checkpoint. Long work done this way is a slice per request: no request runs long,
/// and any replica can serve the next slice. On a legacy session the runtime re-enters the handler itself,
/// after 250 ms. Each checkpoint is a round, and a legacy request may take at most `FastMcp::max_rounds`
/// of them (default 8), so make the slices few and large.
///
/// ```
/// use fastmcp::prelude::*;
///
/// /// Add up the numbers, a thousand per round.
/// #[tool]
/// async fn total(
///     /// The numbers to add.
///     numbers: Vec<i64>,
/// ) -> Result<String> {
///     let mut sum: i64 = 0;
///     let mut done = 0;
///     while done < numbers.len() {
///         let end = numbers.len().min(done + 1000);
///         sum += numbers[done..end].iter().sum::<i64>();
///         done = end;
///         if done < numbers.len() {
///             checkpoint().ask().await?; // `sum` and `done` travel in the request state
///         }
///     }
///     Ok(format!("{sum}"))
/// }
/// # fn main() { let _ = FastMcp::new("sums").tool(total); }
/// ```
pub fn checkpoint() -> Checkpoint {
    Checkpoint
}

impl Ask for Checkpoint {
    type Output = ();
    fn requests(self, _: &str, _: &mut InputRequests) {}
    fn answer(_: &str, _: &InputResponses) -> Result<(), String> {
        Ok(())
    }
}

/// Several asks answered in one round: one `inputRequests` map with a key each.
macro_rules! tuple_ask {
    ($($name:ident $index:tt),+) => {
        impl<$($name: Ask),+> Ask for ($($name,)+) {
            type Output = ($($name::Output,)+);
            fn requests(self, key: &str, into: &mut InputRequests) {
                $( self.$index.requests(&format!("{key}.{}", $index), into); )+
            }
            fn answer(key: &str, responses: &InputResponses) -> Result<Self::Output, String> {
                Ok(($($name::answer(&format!("{key}.{}", $index), responses)?,)+))
            }
        }
    };
}

tuple_ask!(A 0, B 1);
tuple_ask!(A 0, B 1, C 2);
tuple_ask!(A 0, B 1, C 2, D 3);

/// Reads one answer of the responses as `T`, in place (the round's responses are shared, never copied).
pub(crate) fn read_answer<T: serde::de::DeserializeOwned>(key: &str, responses: &InputResponses) -> Result<T, String> {
    let answer = responses.read(key).ok_or_else(|| format!("no answer for input request `{key}`"))?;
    answer.map_err(|e| format!("the answer to input request `{key}` is malformed: {e}"))
}

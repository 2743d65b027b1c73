//! Running a request where it arrived, up to its first wait: most answer without waiting on anything, and
//! then no task is spawned, no thread woken, and the answer leaves with whatever the transport writes next.

use futures_util::future::OptionFuture;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// What is left of a request that had to wait: to be polled again in a task of its own, with its waker.
#[cfg(feature = "http")]
pub(crate) type Rest = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Polls `request` once, here. Out of tokio's cooperative budget, which the transport's own reads use up: a
/// request that could finish now must not be sent to a task of its own only because the connection has read
/// a lot. `None` if it finished.
///
/// Callers box the request where they make it (`run_here(Box::pin(async move { .. }))`): a request's future
/// is kilobytes, and each move of it by value is a copy (taken by value here, it cost stdio one more a call).
#[cfg(feature = "http")]
pub(crate) fn run_here<F: Future<Output = ()> + Send + 'static>(mut request: Pin<Box<F>>) -> Option<Rest> {
    poll_here(request.as_mut()).is_pending().then(|| Box::pin(tokio::task::unconstrained(request)) as Rest)
}

/// One poll of `request` out of the cooperative budget, with no waker: whoever goes on with it polls again.
fn poll_here<F: Future>(request: Pin<&mut F>) -> Poll<F::Output> {
    let mut once = tokio::task::unconstrained(request);
    Pin::new(&mut once).poll(&mut Context::from_waker(Waker::noop()))
}

/// [`run_here`] for a transport that runs request after request where they arrive (stdio's reader): the box
/// a request ran in is kept for the next when it finished at once. A request's future is kilobytes, which
/// glibc serves from its bins rather than its per-thread cache, consolidating its small free chunks first:
/// one such allocation a request showed in the profile (`malloc_consolidate`, `_int_free`).
pub(crate) struct Reuse<F> {
    spare: Option<Pin<Box<OptionFuture<F>>>>,
}

impl<F> Default for Reuse<F> {
    fn default() -> Self {
        Self { spare: None }
    }
}

/// What is left of a request [`Reuse::run_here`] ran that had to wait: its output once it has finished
/// (always `Some`: the box is never empty while it runs).
pub(crate) type Waiting<T> = Pin<Box<dyn Future<Output = Option<T>> + Send>>;

impl<F> Reuse<F>
where
    F: Future + Send + 'static,
    F::Output: Send,
{
    /// Polls the request `make` makes once, here, as [`run_here`] does: its output if it finished (always
    /// `Some`, as [`Waiting`]'s), else what is left of it. Made where it runs: taken by value, the future would
    /// be copied once more.
    pub fn run_here(&mut self, make: impl FnOnce() -> F) -> Result<Option<F::Output>, Waiting<F::Output>> {
        let mut cell = self.spare.take().unwrap_or_else(|| Box::pin(None.into()));
        cell.set(Some(make()).into());
        let output = match poll_here(cell.as_mut()) {
            Poll::Ready(output) => output,
            Poll::Pending => return Err(Box::pin(tokio::task::unconstrained(cell))),
        };
        // The request's own resources (its slot, its connection) go now, not with the next request.
        cell.set(None.into());
        self.spare = Some(cell);
        Ok(output)
    }
}

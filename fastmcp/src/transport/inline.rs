//! Running a request where it arrived, up to its first wait: most answer without waiting on anything, and
//! then no task is spawned, no thread woken, and the answer leaves with whatever the transport writes next.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Waker};

/// What is left of a request that had to wait: to be polled again in a task of its own, with its waker.
pub(crate) type Rest = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Polls `request` once, here. Out of tokio's cooperative budget, which the transport's own reads use up: a
/// request that could finish now must not be sent to a task of its own only because the connection has read
/// a lot. `None` if it finished.
pub(crate) fn run_here(request: impl Future<Output = ()> + Send + 'static) -> Option<Rest> {
    // Boxed where it is made: a request's future is large, and moved into a task as it stands it would be
    // copied at each move on the way.
    let mut request = Box::pin(tokio::task::unconstrained(request));
    let polled = request.as_mut().poll(&mut Context::from_waker(Waker::noop()));
    polled.is_pending().then_some(request)
}

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
///
/// Callers box the request where they make it (`run_here(Box::pin(async move { .. }))`): a request's future
/// is kilobytes, and each move of it by value is a copy (taken by value here, it cost stdio one more a call).
pub(crate) fn run_here<F: Future<Output = ()> + Send + 'static>(request: Pin<Box<F>>) -> Option<Rest> {
    let mut request = tokio::task::unconstrained(request);
    let polled = Pin::new(&mut request).poll(&mut Context::from_waker(Waker::noop()));
    polled.is_pending().then(|| Box::pin(request) as Rest)
}

//! A request's cancellation: fired where the request can be ended (a client's `notifications/cancelled`, a
//! response stream that closed, a timeout, a task's cancel) and seen by whatever serves it.
//!
//! Every request has one, and most are never fired. A `tokio_util` `CancellationToken` locks a mutex on
//! every clone, drop and check (it is a node of a tree of tokens), which showed as 4 % of a stdio server's
//! CPU per request. This is an atomic flag and a `Notify`; the `CancellationToken` a handler may ask for
//! ([`Context::cancellation`](crate::Context::cancellation)) is made when it first asks, already
//! cancelled if the request is.

use crate::sync::lock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// One request's cancellation; clones share it.
#[derive(Clone, Default)]
pub(crate) struct Cancel(Arc<State>);

#[derive(Default)]
struct State {
    fired: AtomicBool,
    /// Fired for the client, who wants no reply ([`Cancel::abandon`]); set before `fired`.
    abandoned: AtomicBool,
    /// Wakes what waits in [`Cancel::cancelled`].
    fired_notify: Notify,
    /// The token handed out, once asked for.
    token: OnceLock<CancellationToken>,
    /// Orders making the token against firing: the one that comes second cancels it.
    token_lock: Mutex<()>,
}

impl Cancel {
    /// Cancels the request, waking whatever waits for it.
    pub fn cancel(&self) {
        let state = &*self.0;
        {
            let _order = lock(&state.token_lock);
            if state.fired.swap(true, Ordering::AcqRel) {
                return;
            }
            if let Some(token) = state.token.get() {
                token.cancel();
            }
        }
        state.fired_notify.notify_waiters();
    }

    /// Cancels the request for its client, who no longer wants its reply (`notifications/cancelled`, its id
    /// reused): none is sent, even for a handler that finishes as it fires. A request whose time ran out is
    /// [`cancel`](Self::cancel)led, and answers that it timed out.
    pub fn abandon(&self) {
        self.0.abandoned.store(true, Ordering::Release);
        self.cancel();
    }

    /// Whether the client abandoned the request: its reply is dropped.
    pub fn is_abandoned(&self) -> bool {
        self.0.abandoned.load(Ordering::Acquire)
    }

    /// Whether `other` is this request's (a clone of it).
    pub fn same(&self, other: &Cancel) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.fired.load(Ordering::Acquire)
    }

    /// Completes once the request is cancelled.
    pub async fn cancelled(&self) {
        let state = &*self.0;
        let mut notified = std::pin::pin!(state.fired_notify.notified());
        loop {
            // Registered before the flag is read: a `cancel` between the two still wakes it.
            notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            notified.as_mut().await;
            notified.set(state.fired_notify.notified());
        }
    }

    /// The request's cancellation as a `CancellationToken`, for a handler to hand to other work.
    pub fn token(&self) -> &CancellationToken {
        let state = &*self.0;
        if let Some(token) = state.token.get() {
            return token;
        }
        let _order = lock(&state.token_lock);
        state.token.get_or_init(|| {
            let token = CancellationToken::new();
            if state.fired.load(Ordering::Acquire) {
                token.cancel();
            }
            token
        })
    }
}

impl std::fmt::Debug for Cancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Cancel").field(&self.is_cancelled()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::Cancel;
    use std::time::Duration;

    #[tokio::test]
    async fn fires_once_for_every_clone_and_the_token_made_before_or_after() {
        let cancel = Cancel::default();
        let early = cancel.token().clone();
        let waiter = tokio::spawn({
            let cancel = cancel.clone();
            async move { cancel.cancelled().await }
        });
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert!(!waiter.is_finished() && !cancel.is_cancelled() && !early.is_cancelled());
        cancel.clone().cancel();
        cancel.cancel();
        tokio::time::timeout(Duration::from_secs(5), waiter).await.expect("woken").unwrap();
        assert!(cancel.is_cancelled() && early.is_cancelled());
        cancel.cancelled().await;

        let late = Cancel::default();
        late.cancel();
        assert!(late.token().is_cancelled(), "a token asked for after firing is cancelled already");
        assert!(!late.is_abandoned() && !cancel.is_abandoned(), "timed out, not abandoned: a reply is due");

        let abandoned = Cancel::default();
        abandoned.clone().abandon();
        assert!(abandoned.is_abandoned() && abandoned.is_cancelled() && abandoned.token().is_cancelled());
    }
}

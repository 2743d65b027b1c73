//! A future polled only once something woke it: for what a task races against its real work and that
//! rarely fires. A connection's task races its serving against its idle timer, the server's stop and the
//! shutdown's end; raced as they are (`select!`), those three are polled each time the task wakes, about
//! twice a request on HTTP/1.1: a timer poll and, for each of the two server-wide cancellation tokens, a
//! lock of a waiter list every connection shares (callgrind: about 1 000 instructions a request, 2 % of a
//! call, and a cache line that moves between the workers).

use futures_util::task::AtomicWaker;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

/// `future`, polled on the first poll and afterwards only when its own waker has fired since its last
/// poll; the task is woken then as it would be by `future` itself.
pub(super) struct WhenWoken<F> {
    future: F,
    signal: Arc<Signal>,
    /// `signal` as the waker `future` is polled with: made once, not per poll.
    waker: Waker,
}

struct Signal {
    woken: AtomicBool,
    task: AtomicWaker,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.task.wake();
    }
}

impl<F: Future + Unpin> WhenWoken<F> {
    pub fn new(future: F) -> Self {
        let signal = Arc::new(Signal { woken: AtomicBool::new(true), task: AtomicWaker::new() });
        Self { future, waker: Waker::from(signal.clone()), signal }
    }
}

impl<F: Future + Unpin> Future for WhenWoken<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // The task is registered before the flag is read: a wake between the two is either seen here or
        // wakes the task again.
        self.signal.task.register(cx.waker());
        if !self.signal.woken.swap(false, Ordering::AcqRel) {
            return Poll::Pending;
        }
        let this = &mut *self;
        Pin::new(&mut this.future).poll(&mut Context::from_waker(&this.waker))
    }
}

#[cfg(test)]
mod tests {
    use super::WhenWoken;
    use std::pin::{Pin, pin};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll, Wake, Waker};
    use std::time::Duration;

    /// Counts its polls; ready once `ready` is set, and wakes whoever polled it when `wake` is called.
    #[derive(Default)]
    struct Probe {
        polls: AtomicUsize,
        ready: std::sync::atomic::AtomicBool,
        waker: std::sync::Mutex<Option<Waker>>,
    }

    impl Probe {
        fn wake(&self) {
            if let Some(w) = self.waker.lock().unwrap().take() {
                w.wake();
            }
        }
    }

    struct Polled(Arc<Probe>);

    impl Future for Polled {
        type Output = ();
        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            self.0.polls.fetch_add(1, Ordering::SeqCst);
            if self.0.ready.load(Ordering::SeqCst) {
                return Poll::Ready(());
            }
            *self.0.waker.lock().unwrap() = Some(cx.waker().clone());
            Poll::Pending
        }
    }

    /// A task waker that counts its wakes.
    #[derive(Default)]
    struct Task(AtomicUsize);

    impl Wake for Task {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn polls_the_future_first_and_then_only_after_it_woke() {
        let probe = Arc::new(Probe::default());
        let task = Arc::new(Task::default());
        let waker = Waker::from(task.clone());
        let mut cx = Context::from_waker(&waker);
        let mut raced = WhenWoken::new(Polled(probe.clone()));

        assert!(Pin::new(&mut raced).poll(&mut cx).is_pending());
        assert_eq!(probe.polls.load(Ordering::SeqCst), 1, "the first poll reaches the future");
        // The task wakes for other reasons (its real work): the future is left alone.
        for _ in 0..5 {
            assert!(Pin::new(&mut raced).poll(&mut cx).is_pending());
        }
        assert_eq!(probe.polls.load(Ordering::SeqCst), 1);
        assert_eq!(task.0.load(Ordering::SeqCst), 0);

        // Its own wake wakes the task, and the next poll reaches it.
        probe.ready.store(true, Ordering::SeqCst);
        probe.wake();
        assert_eq!(task.0.load(Ordering::SeqCst), 1, "the task is woken as by the future itself");
        assert!(Pin::new(&mut raced).poll(&mut cx).is_ready());
        assert_eq!(probe.polls.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_wake_before_the_task_polls_again_is_kept() {
        let probe = Arc::new(Probe::default());
        let waker = Waker::from(Arc::new(Task::default()));
        let mut cx = Context::from_waker(&waker);
        let mut raced = WhenWoken::new(Polled(probe.clone()));
        assert!(Pin::new(&mut raced).poll(&mut cx).is_pending());
        // Woken while pending, then still not ready: polled once more, and pending again.
        probe.wake();
        assert!(Pin::new(&mut raced).poll(&mut cx).is_pending());
        assert_eq!(probe.polls.load(Ordering::SeqCst), 2);
        assert!(Pin::new(&mut raced).poll(&mut cx).is_pending());
        assert_eq!(probe.polls.load(Ordering::SeqCst), 2);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn wakes_from_another_thread_end_the_race() {
        // A timer and a cancellation token, the kinds of future a connection races, fired from elsewhere.
        let token = tokio_util::sync::CancellationToken::new();
        let cancelled = pin!(token.clone().cancelled_owned());
        let fired = std::thread::spawn({
            let token = token.clone();
            move || {
                std::thread::sleep(Duration::from_millis(20));
                token.cancel();
            }
        });
        tokio::time::timeout(Duration::from_secs(5), WhenWoken::new(cancelled)).await.expect("woken by the cancel");
        fired.join().unwrap();

        let slept = pin!(tokio::time::sleep(Duration::from_millis(10)));
        tokio::time::timeout(Duration::from_secs(5), WhenWoken::new(slept)).await.expect("woken by the timer");
    }
}

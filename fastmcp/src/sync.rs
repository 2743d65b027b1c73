//! Locks that outlive a panic.
//!
//! Every mutex in the crate guards data that is whole between statements (a map, a count, an `Option`),
//! so a thread that panicked holding one left nothing half-written. The next holder takes the lock over
//! instead of passing the panic on to every request after it.

use std::sync::{Mutex, MutexGuard, TryLockError};

/// Locks `mutex`, taking it over if a panic poisoned it.
pub(crate) fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Locks `mutex` unless another thread holds it, taking it over if a panic poisoned it.
pub(crate) fn try_lock<T: ?Sized>(mutex: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    match mutex.try_lock() {
        Ok(guard) => Some(guard),
        Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poisoned() -> Mutex<u32> {
        let mutex = Mutex::new(7);
        std::thread::scope(|scope| {
            let _ = scope
                .spawn(|| {
                    let _guard = mutex.lock().unwrap();
                    panic!("poisons the lock");
                })
                .join();
        });
        assert!(mutex.is_poisoned());
        mutex
    }

    #[test]
    fn a_poisoned_lock_is_taken_over() {
        let mutex = poisoned();
        *lock(&mutex) += 1;
        assert_eq!(*try_lock(&mutex).expect("free, if poisoned"), 8);
    }

    #[test]
    fn try_lock_gives_way_to_a_holder() {
        let mutex = Mutex::new(0);
        let _held = lock(&mutex);
        assert!(try_lock(&mutex).is_none());
    }
}

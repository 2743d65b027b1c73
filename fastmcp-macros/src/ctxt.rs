//! The error accumulator: every pass records what it finds and carries on, so the user sees all errors of a
//! fn at once instead of fixing them one compile at a time (serde_derive's `Ctxt`).
//!
//! A `Ctxt` must end in [`Ctxt::check`]: dropping one unchecked panics (unless the thread is already
//! panicking), so a path that forgets to emit the recorded errors fails every test that reaches it instead
//! of expanding as if nothing were wrong.

use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

pub struct Ctxt {
    /// `None` once checked.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub fn new() -> Self {
        Ctxt { errors: RefCell::new(Some(Vec::new())) }
    }

    fn push(&self, error: syn::Error) {
        self.errors.borrow_mut().as_mut().expect("a checked Ctxt records nothing").push(error);
    }

    /// Records an error spanned on the user's tokens `obj`.
    pub fn error_spanned_by<A: ToTokens, T: Display>(&self, obj: A, msg: T) {
        self.push(syn::Error::new_spanned(obj.into_token_stream(), msg));
    }

    /// Records an error at one span (for a span that is not a whole token sequence, like a `fn` keyword).
    pub fn error_at<T: Display>(&self, span: proc_macro2::Span, msg: T) {
        self.push(syn::Error::new(span, msg));
    }

    /// Records an error that a parser produced.
    pub fn syn_error(&self, err: syn::Error) {
        self.push(err);
    }

    /// All recorded errors combined into one, or `Ok` if there were none.
    pub fn check(self) -> syn::Result<()> {
        let errors = self.errors.borrow_mut().take().expect("checked once, by value");
        let mut errors = errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for rest in errors {
            combined.combine(rest);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("a Ctxt was dropped without checking its errors: end the pass with `cx.check()`");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Ctxt;
    use proc_macro2::Span;

    #[test]
    fn check_combines_every_error() {
        let cx = Ctxt::new();
        cx.error_at(Span::call_site(), "one");
        cx.error_at(Span::call_site(), "two");
        let errors: Vec<String> = cx.check().expect_err("two errors").into_iter().map(|e| e.to_string()).collect();
        assert_eq!(errors, ["one", "two"]);
        assert!(Ctxt::new().check().is_ok());
    }

    #[test]
    #[should_panic(expected = "dropped without checking its errors")]
    fn dropping_unchecked_errors_panics() {
        let cx = Ctxt::new();
        cx.error_at(Span::call_site(), "lost");
    }

    #[test]
    #[should_panic(expected = "dropped without checking its errors")]
    fn dropping_unchecked_panics_without_errors_too() {
        let _cx = Ctxt::new();
    }

    #[test]
    fn no_second_panic_while_unwinding() {
        // A panic during a pass must surface as itself, not abort the process with a panic in `drop`.
        let outcome = std::panic::catch_unwind(|| {
            let cx = Ctxt::new();
            cx.error_at(Span::call_site(), "recorded");
            panic!("the pass failed");
        });
        let payload = outcome.expect_err("the pass panicked");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"the pass failed"));
    }
}

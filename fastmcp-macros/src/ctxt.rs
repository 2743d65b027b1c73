//! The error accumulator: every pass records what it finds and carries on, so the user sees all errors of a
//! fn at once instead of fixing them one compile at a time (serde_derive's `Ctxt`).

use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records an error spanned on the user's tokens `obj`.
    pub fn error_spanned_by<A: ToTokens, T: Display>(&self, obj: A, msg: T) {
        self.errors.borrow_mut().push(syn::Error::new_spanned(obj.into_token_stream(), msg));
    }

    /// Records an error at one span (for a span that is not a whole token sequence, like a `fn` keyword).
    pub fn error_at<T: Display>(&self, span: proc_macro2::Span, msg: T) {
        self.errors.borrow_mut().push(syn::Error::new(span, msg));
    }

    /// Records an error that a parser produced.
    pub fn syn_error(&self, err: syn::Error) {
        self.errors.borrow_mut().push(err);
    }

    /// All recorded errors combined into one, or `Ok` if there were none.
    pub fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for rest in errors {
            combined.combine(rest);
        }
        Err(combined)
    }
}

//! `#[elicit]` on a struct or an enum: the restricted elicitation form schema and the validation of
//! answers, split as the fn macros are: `options` (parse) → `model` → `check`, then `expand::form` or
//! `expand::choice`. (On an `async fn` it makes a sub-flow, compiled like a handler: `expand::subflow`.)
//!
//! On a struct with named fields it implements `ElicitForm`: a flat `requestedSchema` built once per type,
//! and `from_content`, which checks the client's untrusted answer against it and builds the struct. On an
//! enum of unit variants it implements `ElicitChoice` and `FormField`, so a field of the enum is a single
//! select and a `Vec` of it a multi-select.
//!
//! What a field's type may be is the runtime's `FormField` trait, whose `on_unimplemented` message says what
//! a form may hold; the macro checks what the syntax shows (an option on the wrong kind of field, a
//! `default` of the wrong kind, bounds that cross) and leaves the rest to the traits. Errors accumulate and
//! are emitted next to the item, minus the `#[elicit(..)]` attributes only the macro understands.

pub mod case;
pub mod check;
pub mod model;
pub mod options;
pub mod ty;

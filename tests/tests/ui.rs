//! Compile-time behaviour of the macros: what must compile, and the exact errors (with their spans) for what
//! must not. Regenerate the `.stderr` files with `TRYBUILD=overwrite` and read every one before committing.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*.rs");
}

// TEMPORARY (lowering engineer): runs only the ask_* trybuild cases; deleted before handing back.
#[test]
fn ui_ask() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/ask_*.rs");
    t.compile_fail("ui/fail/ask_*.rs");
}

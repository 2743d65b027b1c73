//! A question for the client awaited without `.ask()` (`Confirm::elicit("..").await`): rustc alone would
//! say the builder "is not a future" and to remove the `.await`, the opposite of the fix. Such an await is
//! reported here, saying to add `.ask()`, and given its `.ask()` so that the rest of the body is analysed
//! (and type-checked) as the author meant it, with no second error from rustc.

use super::syntax::is_ask;
use crate::ctxt::Ctxt;
use proc_macro2::{Delimiter, Group};
use quote::ToTokens;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, ExprAwait};

/// The body with each forgotten `.ask()` reported and put in; a body that doesn't parse stays as written.
pub fn add_asks(cx: &Ctxt, body: &Group) -> Group {
    let Ok(mut block) = syn::parse2::<Block>(body.to_token_stream()) else { return body.clone() };
    let mut finder = Forgotten { cx, found: false };
    finder.visit_block_mut(&mut block);
    if !finder.found {
        return body.clone();
    }
    let mut stmts = proc_macro2::TokenStream::new();
    for stmt in &block.stmts {
        stmt.to_tokens(&mut stmts);
    }
    let mut fixed = Group::new(Delimiter::Brace, stmts);
    fixed.set_span(body.span());
    fixed
}

struct Forgotten<'a> {
    cx: &'a Ctxt,
    found: bool,
}

impl VisitMut for Forgotten<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        visit_mut::visit_expr_mut(self, e);
        if is_ask(e) {
            return;
        }
        let Expr::Await(ExprAwait { base, await_token, .. }) = e else { return };
        if !is_question(base) {
            return;
        }
        self.found = true;
        self.cx.error_at(
            await_token.span,
            "a question for the client is asked with `.ask()`: add `.ask()` before `.await` (`….ask().await`)",
        );
        let question = &**base;
        **base = syn::parse_quote_spanned!(await_token.span=> #question.ask());
    }

    // A nested fn is not the handler's body: its awaits are rustc's to report.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Whether `e` builds a question for the client: a chain of method calls on `Form::elicit(..)`,
/// `Sample::prompt(..)`, `Sample::messages(..)`, `ElicitUrl::new(..)` or `ListRoots`. Only these are known
/// by name, and only where no fn of the user's could be meant (`checkpoint()` could be); anything else
/// awaited is rustc's to judge.
fn is_question(e: &Expr) -> bool {
    match e {
        Expr::MethodCall(m) => m.method != "ask" && m.method != "ask_as" && is_question(&m.receiver),
        Expr::Paren(p) => is_question(&p.expr),
        Expr::Path(p) => p.qself.is_none() && p.path.is_ident("ListRoots"),
        Expr::Call(call) => {
            let Expr::Path(f) = &*call.func else { return false };
            let names: Vec<String> = f.path.segments.iter().map(|s| s.ident.to_string()).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            match names.as_slice() {
                [.., form, "elicit"] => form.starts_with(char::is_uppercase),
                [.., "Sample", "prompt" | "messages"] | [.., "ElicitUrl", "new"] => true,
                _ => false,
            }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(src: &str) -> bool {
        is_question(&syn::parse_str(src).unwrap())
    }

    #[test]
    fn the_questions_known_by_name() {
        assert!(question(r#"Confirm::elicit("Deploy?")"#));
        assert!(question(r#"forms::Confirm::elicit(format!("{x}?")).some_option(1)"#));
        assert!(question(r#"Sample::prompt("notes").max_tokens(100)"#));
        assert!(question("fastmcp::flow::Sample::messages(history)"));
        assert!(question(r#"ElicitUrl::new("Sign in", url)"#));
        assert!(question("ListRoots"));
        assert!(question("(ListRoots)"));
    }

    #[test]
    fn what_may_be_the_users_own_is_left_to_rustc() {
        assert!(!question(r#"Confirm::elicit("Deploy?").ask()"#), "already asked");
        assert!(!question("api::elicit(x)"), "a fn of a module");
        assert!(!question("self.elicit()"));
        assert!(!question("checkpoint()"));
        assert!(!question("run_as_task()"));
        assert!(!question("Sample::fetch()"));
        assert!(!question("client.call(ListRoots)"));
    }

    #[test]
    fn a_forgotten_ask_is_reported_and_put_in() {
        let cx = Ctxt::new();
        let body: Group = syn::parse_quote!({
            let a = Confirm::elicit("Go?").await?;
            let b = other().await;
        });
        let fixed = add_asks(&cx, &body).to_string();
        assert!(fixed.contains(". ask () . await"), "{fixed}");
        assert!(fixed.contains("other () . await"), "{fixed}");
        assert_eq!(cx.check().unwrap_err().to_string().matches("add `.ask()`").count(), 1);
    }
}

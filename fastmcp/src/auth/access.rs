//! Who may use a component: the scopes it needs and a check of the author's own, and what a refusal says.

use super::token::AccessToken;
use std::fmt;

/// A check of the author's own: `#[tool(auth = is_admin)]` with `fn is_admin(token: &AccessToken) ->
/// Result<(), Denied>`. It runs only for callers with a verified token, after the component's scopes.
///
/// A check sees the whole token, claims included, so it can decide what scopes can't (the tenant, say).
/// A caller it refuses gets the [`Denied`]'s message, and does not see the component in lists either.
///
/// ```
/// use fastmcp::auth::{AccessToken, Denied};
/// use fastmcp::prelude::*;
///
/// /// Only users of the `acme` tenant.
/// fn acme_only(token: &AccessToken) -> Result<(), Denied> {
///     match token.claims.get("tenant").and_then(|tenant| tenant.as_str()) {
///         Some("acme") => Ok(()),
///         _ => Err(Denied::new("only acme users may restart services")),
///     }
/// }
///
/// /// Restart a service.
/// #[tool(scopes = ["ops:write"], auth = acme_only)]
/// async fn restart(
///     /// The service to restart.
///     service: String,
/// ) -> String {
///     format!("{service} restarted")
/// }
/// # fn main() { let _ = FastMcp::new("ops").tool(restart); }
/// ```
pub type Check = fn(&AccessToken) -> Result<(), Denied>;

/// What a component requires of its caller: `#[tool(scopes = ["deploy:write"], auth = check)]`. All the
/// scopes (AND), then the check. A component with neither is open to every caller the server admits.
#[derive(Clone, Copy, Default)]
pub struct Access {
    scopes: &'static [&'static str],
    check: Option<Check>,
}

impl fmt::Debug for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Access").field("scopes", &self.scopes).field("check", &self.check.is_some()).finish()
    }
}

impl Access {
    /// Open to every admitted caller.
    pub const PUBLIC: Access = Access { scopes: &[], check: None };

    /// What `#[tool(scopes = […], auth = check)]` builds: every one of `scopes`, then `check` if there is one.
    pub const fn new(scopes: &'static [&'static str], check: Option<Check>) -> Self {
        Self { scopes, check }
    }

    /// The scopes a caller must all have (the component's own, without the server's required ones).
    pub fn scopes(&self) -> &'static [&'static str] {
        self.scopes
    }

    /// Whether the component asks for nothing: no scopes and no check, so it admits callers without a token too.
    pub fn is_public(&self) -> bool {
        self.scopes.is_empty() && self.check.is_none()
    }

    /// Whether `caller` may use the component; the refusal says what is missing.
    pub fn permits(&self, caller: Option<&AccessToken>) -> Result<(), Refusal> {
        if self.is_public() {
            return Ok(());
        }
        let Some(token) = caller else { return Err(Refusal::Unauthenticated) };
        require_scopes(token, self.scopes.iter().copied())?;
        match self.check {
            Some(check) => check(token).map_err(Refusal::Denied),
            None => Ok(()),
        }
    }
}

/// Refuses `token` unless it has every one of `scopes`, naming all that are missing at once (so a client
/// steps up in one authorization, not one per retry).
pub(crate) fn require_scopes<'s>(token: &AccessToken, scopes: impl Iterator<Item = &'s str>) -> Result<(), Refusal> {
    let missing: Vec<String> = scopes.filter(|s| !token.has_scope(s)).map(str::to_owned).collect();
    if missing.is_empty() { Ok(()) } else { Err(Refusal::Denied(Denied::missing_scopes(missing))) }
}

/// Why a check refused a caller. With scopes, the client is told which ones to ask for (HTTP 403 with
/// `error="insufficient_scope"`); without, it is a plain refusal.
///
/// A [`Check`] returns one; so does a component's `scopes = […]` when the caller lacks some.
///
/// ```
/// use fastmcp::auth::Denied;
///
/// let plain = Denied::new("only the owner may do that");
/// assert!(plain.scopes().is_empty());
///
/// // A client that gets this can ask its authorization server for `deploy:write` and retry.
/// let step_up = Denied::missing_scopes(["deploy:write"]);
/// assert_eq!(step_up.scopes(), ["deploy:write"]);
/// assert_eq!(step_up.message(), r#"Missing required scope: "deploy:write""#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denied {
    message: String,
    scopes: Vec<String>,
}

impl Denied {
    /// A refusal no scope can lift (the wrong tenant, say).
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into(), scopes: Vec::new() }
    }

    /// A refusal these scopes would lift, all of them needed.
    pub fn missing_scopes<S: Into<String>>(scopes: impl IntoIterator<Item = S>) -> Self {
        let scopes: Vec<String> = scopes.into_iter().map(Into::into).collect();
        let quoted: Vec<String> = scopes.iter().map(|s| format!("\"{s}\"")).collect();
        let noun = if scopes.len() == 1 { "scope" } else { "scopes" };
        Self { message: format!("Missing required {noun}: {}", quoted.join(", ")), scopes }
    }

    /// The refusal's text, as the caller is told it (for missing scopes, the generated one naming them).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The scopes that would lift the refusal (empty for a plain refusal).
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }
}

impl fmt::Display for Denied {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Why a caller may not use a component: no token at all, or a token that is not enough.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The caller presented no token, and the component needs one.
    Unauthenticated,
    /// The caller's token lacks a scope the component needs, or the component's check refused it.
    Denied(Denied),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Unauthenticated => f.write_str("Authentication required"),
            Refusal::Denied(denied) => f.write_str(denied.message()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admins_only(token: &AccessToken) -> Result<(), Denied> {
        match token.subject.as_deref() {
            Some("root") => Ok(()),
            _ => Err(Denied::new("only root")),
        }
    }

    #[test]
    fn scopes_are_all_required_and_named_together() {
        let access = Access::new(&["deploy:write", "deploy:read"], None);
        let none = AccessToken::new().subject("a");
        let one = none.clone().scopes(["deploy:read"]);
        let both = none.clone().scopes(["deploy:read", "deploy:write", "other"]);
        assert_eq!(access.permits(None), Err(Refusal::Unauthenticated));
        let Err(Refusal::Denied(denied)) = access.permits(Some(&none)) else { panic!("refused") };
        assert_eq!(denied.scopes(), ["deploy:write", "deploy:read"]);
        assert_eq!(denied.message(), r#"Missing required scopes: "deploy:write", "deploy:read""#);
        let Err(Refusal::Denied(denied)) = access.permits(Some(&one)) else { panic!("refused") };
        assert_eq!(denied.message(), r#"Missing required scope: "deploy:write""#);
        assert_eq!(access.permits(Some(&both)), Ok(()));
    }

    #[test]
    fn the_check_runs_after_the_scopes_and_only_with_a_token() {
        let access = Access::new(&["admin"], Some(admins_only));
        let root = AccessToken::new().subject("root");
        assert!(matches!(access.permits(Some(&root)), Err(Refusal::Denied(d)) if d.scopes() == ["admin"]));
        let root = root.scopes(["admin"]);
        assert_eq!(access.permits(Some(&root)), Ok(()));
        let alice = AccessToken::new().subject("alice").scopes(["admin"]);
        assert_eq!(access.permits(Some(&alice)), Err(Refusal::Denied(Denied::new("only root"))));
        assert_eq!(Access::new(&[], Some(admins_only)).permits(None), Err(Refusal::Unauthenticated));
        assert_eq!(Access::PUBLIC.permits(None), Ok(()));
    }
}

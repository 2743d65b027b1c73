//! Elicitation: a form the client renders for the user (form mode), or a URL it opens (URL mode).

use super::ask::{Ask, read_answer};
use crate::protocol::{
    ElicitAction, ElicitMode, ElicitParams, ElicitResult, InputRequests, InputResponses, JsonObject,
};
use std::marker::PhantomData;
use std::sync::Arc;

/// A struct the client can fill in as a form. Derived by `#[elicit]`: a flat object of primitive fields,
/// with validation of the answer, since answers are untrusted.
pub trait ElicitForm: Sized + Send + 'static {
    /// The restricted `requestedSchema`: a flat object of primitive properties.
    fn requested_schema() -> JsonObject;
    /// The same schema, as every ask of this form shares it. `#[elicit]` builds it once and hands out the
    /// one `Arc`; the default builds it anew each time.
    fn shared_schema() -> Arc<JsonObject> {
        Arc::new(Self::requested_schema())
    }
    /// Checks accepted content against the schema (types, bounds, enum membership) and builds the value.
    fn from_content(content: JsonObject) -> Result<Self, String>;

    /// Asks the user to fill in this form: `Confirm::elicit("Deploy?").ask().await?`.
    ///
    /// `message` is shown with the form. The answer is an [`Elicitation`]: the filled-in form, already checked
    /// against the form's schema (a malformed answer fails the round with `-32602` before the handler sees
    /// it), or the user's refusal.
    ///
    /// ```
    /// use fastmcp::prelude::*;
    ///
    /// /// Where the build goes.
    /// #[elicit]
    /// struct Release {
    ///     /// Ship to production (otherwise to staging)?
    ///     production: bool,
    ///     /// Anything the release notes should say.
    ///     note: Option<String>,
    /// }
    ///
    /// /// Release the current build, asking the user where to.
    /// #[tool]
    /// async fn release(
    ///     /// The build to release.
    ///     build: String,
    /// ) -> Result<String> {
    ///     let answer = Release::elicit(format!("Release {build}?")).ask().await?;
    ///     match answer {
    ///         Elicitation::Accepted(Release { production, note }) => {
    ///             let target = if production { "production" } else { "staging" };
    ///             Ok(format!("{build} released to {target}: {}", note.unwrap_or_default()))
    ///         }
    ///         Elicitation::Declined | Elicitation::Cancelled => Ok(format!("{build} was not released.")),
    ///     }
    /// }
    /// # fn main() { let _ = FastMcp::new("releases").tool(release); }
    /// ```
    fn elicit(message: impl Into<String>) -> ElicitAsk<Self> {
        ElicitAsk { message: message.into(), form: PhantomData }
    }
}

/// A form-mode elicitation of `T`.
#[derive(Debug, Clone)]
pub struct ElicitAsk<T> {
    message: String,
    form: PhantomData<fn() -> T>,
}

/// The user's response to a form. Serializable when `T` is, so an answer can live across a later `.ask()`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Elicitation<T> {
    /// The user submitted the form; its content passed the form's validation.
    Accepted(T),
    /// The user explicitly refused to answer (`decline`).
    Declined,
    /// The user dismissed the request without choosing (`cancel`).
    Cancelled,
}

impl<T> Elicitation<T> {
    /// The filled-in form, if the user accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accepted(t) => Some(t),
            _ => None,
        }
    }

    /// Whether the user accepted, without taking the form out.
    pub fn is_accepted(&self) -> bool {
        matches!(self, Self::Accepted(_))
    }
}

impl<T: ElicitForm> Ask for ElicitAsk<T> {
    type Output = Elicitation<T>;

    fn requests(self, key: &str, into: &mut InputRequests) {
        let params = ElicitParams {
            mode: Some(ElicitMode::Form),
            message: self.message,
            requested_schema: Some(T::shared_schema()),
            url: None,
            elicitation_id: None,
        };
        into.insert(key.to_owned(), params.into());
    }

    fn answer(key: &str, responses: &InputResponses) -> Result<Self::Output, String> {
        let result: ElicitResult = read_answer(key, responses)?;
        Ok(match result.action {
            ElicitAction::Accept => {
                let content = result.content.unwrap_or_default();
                Elicitation::Accepted(T::from_content(content).map_err(|e| format!("input request `{key}`: {e}"))?)
            }
            ElicitAction::Decline => Elicitation::Declined,
            ElicitAction::Cancel => Elicitation::Cancelled,
        })
    }
}

/// A URL-mode elicitation: the client opens `url` (a sign-in, a payment page) and reports the user's
/// consent; the outcome of what happens there is for the server to check on the next round.
///
/// ```
/// use fastmcp::prelude::*;
///
/// /// Connect the user's calendar.
/// #[tool]
/// async fn connect_calendar() -> Result<String> {
///     let consent = ElicitUrl::new("Sign in to your calendar", "https://calendar.example.com/oauth").ask().await?;
///     if consent != UrlConsent::Accepted {
///         return Ok("Not connected.".into());
///     }
///     // The user agreed to open the page; whether they signed in there is ours to check.
///     Ok("Check your browser to finish signing in.".into())
/// }
/// # fn main() { let _ = FastMcp::new("calendar").tool(connect_calendar); }
/// ```
#[derive(Debug, Clone)]
pub struct ElicitUrl {
    message: String,
    url: String,
}

impl ElicitUrl {
    /// Asks the client to open `url`, telling the user why with `message`.
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self { message: message.into(), url: url.into() }
    }
}

/// The user's response to a URL elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum UrlConsent {
    /// The user agreed to open the URL. What they did there is not known from this: check it yourself.
    Accepted,
    /// The user refused to open it (`decline`).
    Declined,
    /// The user dismissed the request without choosing (`cancel`).
    Cancelled,
}

impl Ask for ElicitUrl {
    type Output = UrlConsent;

    fn requests(self, key: &str, into: &mut InputRequests) {
        let params = ElicitParams {
            mode: Some(ElicitMode::Url),
            message: self.message,
            requested_schema: None,
            url: Some(self.url),
            elicitation_id: None,
        };
        into.insert(key.to_owned(), params.into());
    }

    fn answer(key: &str, responses: &InputResponses) -> Result<Self::Output, String> {
        let result: ElicitResult = read_answer(key, responses)?;
        Ok(match result.action {
            ElicitAction::Accept => UrlConsent::Accepted,
            ElicitAction::Decline => UrlConsent::Declined,
            ElicitAction::Cancel => UrlConsent::Cancelled,
        })
    }
}

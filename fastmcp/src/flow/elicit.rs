//! Elicitation: a form the client renders for the user (form mode), or a URL it opens (URL mode).

use super::ask::{Ask, take_answer};
use crate::protocol::{
    ElicitAction, ElicitMode, ElicitParams, ElicitResult, InputRequest, InputRequests, InputResponses, JsonObject,
};
use std::marker::PhantomData;

/// A struct the client can fill in as a form. Derived by `#[elicit]`: a flat object of primitive fields,
/// with validation of the answer, since answers are untrusted.
pub trait ElicitForm: Sized + Send + 'static {
    /// The restricted `requestedSchema`: a flat object of primitive properties.
    fn requested_schema() -> JsonObject;
    /// Checks accepted content against the schema (types, bounds, enum membership) and builds the value.
    fn from_content(content: JsonObject) -> Result<Self, String>;

    /// Asks the user to fill in this form: `Confirm::elicit("Deploy?").ask().await?`.
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
    Accepted(T),
    Declined,
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
            requested_schema: Some(T::requested_schema()),
            url: None,
            elicitation_id: None,
        };
        into.insert(key.to_owned(), InputRequest::Elicit(params));
    }

    fn answer(key: &str, responses: &mut InputResponses) -> Result<Self::Output, String> {
        let result: ElicitResult = take_answer(key, responses)?;
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
#[derive(Debug, Clone)]
pub struct ElicitUrl {
    message: String,
    url: String,
}

impl ElicitUrl {
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self { message: message.into(), url: url.into() }
    }
}

/// The user's response to a URL elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum UrlConsent {
    Accepted,
    Declined,
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
        into.insert(key.to_owned(), InputRequest::Elicit(params));
    }

    fn answer(key: &str, responses: &mut InputResponses) -> Result<Self::Output, String> {
        let result: ElicitResult = take_answer(key, responses)?;
        Ok(match result.action {
            ElicitAction::Accept => UrlConsent::Accepted,
            ElicitAction::Decline => UrlConsent::Declined,
            ElicitAction::Cancel => UrlConsent::Cancelled,
        })
    }
}

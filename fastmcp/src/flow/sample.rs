//! Sampling: a completion from the client's language model.

use super::ask::{Ask, read_answer};
use crate::protocol::{
    ContentBlock, CreateMessageParams, CreateMessageResult, InputRequests, InputResponses, ModelHint, ModelPreferences,
    Role, SamplingBlock, SamplingContent, SamplingMessage,
};

/// The `maxTokens` a sampling request asks for unless told otherwise.
pub const DEFAULT_MAX_TOKENS: u32 = 1024;

/// A `sampling/createMessage` request, built up fluently:
/// `Sample::prompt("Summarise this").max_tokens(200).ask().await?`.
///
/// The completion comes from the client's model, not the server's: the server needs no model or API key of
/// its own. `.ask()` yields the reply as [`Sampled`].
///
/// ```
/// use fastmcp::prelude::*;
///
/// /// Summarise a text with the client's model.
/// #[tool]
/// async fn summarise(
///     /// The text to summarise.
///     text: String,
/// ) -> Result<String> {
///     let reply = Sample::prompt(format!("Summarise in one sentence:\n\n{text}"))
///         .system("You write terse, factual summaries.")
///         .max_tokens(100)
///         .ask()
///         .await?;
///     Ok(format!("{} (by {})", reply.text(), reply.model()))
/// }
/// # fn main() { let _ = FastMcp::new("summaries").tool(summarise); }
/// ```
#[derive(Debug, Clone)]
pub struct Sample {
    params: CreateMessageParams,
}

impl Sample {
    /// One user message with this text.
    pub fn prompt(text: impl Into<String>) -> Self {
        Self::messages(vec![SamplingMessage {
            role: Role::User,
            content: SamplingContent::One(SamplingBlock::Content(ContentBlock::text(text))),
            meta: None,
        }])
    }

    /// A conversation to continue.
    pub fn messages(messages: Vec<SamplingMessage>) -> Self {
        Self {
            params: CreateMessageParams {
                messages,
                model_preferences: None,
                system_prompt: None,
                include_context: None,
                temperature: None,
                max_tokens: DEFAULT_MAX_TOKENS,
                stop_sequences: None,
                metadata: None,
                tools: None,
                tool_choice: None,
            },
        }
    }

    /// A system prompt for the model (`systemPrompt`).
    pub fn system(mut self, prompt: impl Into<String>) -> Self {
        self.params.system_prompt = Some(prompt.into());
        self
    }

    /// The most tokens the model may produce (`maxTokens`; default 1024).
    pub fn max_tokens(mut self, max: u32) -> Self {
        self.params.max_tokens = max;
        self
    }

    /// The sampling temperature to ask for.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.params.temperature = Some(temperature);
        self
    }

    /// Sequences at which the model should stop generating (`stopSequences`).
    pub fn stop_sequences(mut self, stops: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.params.stop_sequences = Some(stops.into_iter().map(Into::into).collect());
        self
    }

    /// A model the client should prefer, by name or family (a hint, not a demand).
    pub fn model_hint(mut self, name: impl Into<String>) -> Self {
        let prefs = self.params.model_preferences.get_or_insert_with(ModelPreferences::default);
        prefs.hints.get_or_insert_with(Vec::new).push(ModelHint { name: Some(name.into()) });
        self
    }

    /// The request as it goes on the wire.
    pub fn params(&self) -> &CreateMessageParams {
        &self.params
    }
}

/// The client model's reply. Serializable, so it can live across a later `.ask()`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sampled(pub CreateMessageResult);

impl Sampled {
    /// The reply's text: its text blocks, joined.
    pub fn text(&self) -> String {
        let text_of = |block: &SamplingBlock| match block {
            SamplingBlock::Content(ContentBlock::Text(t)) => Some(t.text.clone()),
            _ => None,
        };
        match &self.0.content {
            SamplingContent::One(block) => text_of(block).unwrap_or_default(),
            SamplingContent::Many(blocks) => blocks.iter().filter_map(text_of).collect(),
        }
    }

    /// The model that answered.
    pub fn model(&self) -> &str {
        &self.0.model
    }

    /// Why the model stopped (`endTurn`, `maxTokens`, `stopSequence`, …), if the client said.
    pub fn stop_reason(&self) -> Option<&str> {
        self.0.stop_reason.as_deref()
    }
}

impl Ask for Sample {
    type Output = Sampled;

    fn requests(self, key: &str, into: &mut InputRequests) {
        into.insert(key.to_owned(), self.params.into());
    }

    fn answer(key: &str, responses: &InputResponses) -> Result<Self::Output, String> {
        read_answer(key, responses).map(Sampled)
    }
}

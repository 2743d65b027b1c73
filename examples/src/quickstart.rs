//! The quickstart server: two tools, a resource, a resource template and a prompt.

use fastmcp::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;

/// Greet someone by name.
#[tool(read_only, idempotent)]
async fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// The sum of two integers.
#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

/// Add two integers.
#[tool(read_only, idempotent)]
async fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<Json<Sum>, String> {
    let sum = a.checked_add(b).ok_or_else(|| format!("{a} + {b} does not fit in a 64-bit integer"))?;
    Ok(Json(Sum { sum }))
}

/// What this server is and how to use it.
#[resource("quickstart://readme", mime_type = "text/markdown")]
async fn readme() -> &'static str {
    "# quickstart\n\nA fastmcp example server. Tools: `greet(name)`, `add(a, b)`. \
     Resources: this readme and `quickstart://greeting/{name}`. Prompt: `review_code(code, language?)`.\n"
}

/// A greeting for anyone, addressed by URI.
#[resource("quickstart://greeting/{name}")]
async fn greeting(#[complete(["Ada", "Alan", "Grace", "Linus"])] name: String) -> String {
    format!("Hello, {name}! This greeting was read from a resource template.")
}

/// Ask the model to review a piece of code.
#[prompt]
async fn review_code(
    /// The code to review.
    code: String,
    /// The language the code is written in.
    #[complete(["c", "go", "java", "javascript", "python", "rust", "typescript"])]
    language: Option<String>,
) -> String {
    match language {
        Some(lang) => {
            format!("Please review this {lang} code for correctness, clarity and style:\n\n```{lang}\n{code}\n```")
        }
        None => format!("Please review this code for correctness, clarity and style:\n\n```\n{code}\n```"),
    }
}

/// The quickstart server, ready to run on any transport or to mount as a service.
pub fn server() -> FastMcp {
    FastMcp::new("quickstart")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions("Greets people, adds numbers and reviews code.")
        .tool(greet)
        .tool(add)
        .resource(readme)
        .resource(greeting)
        .prompt(review_code)
}

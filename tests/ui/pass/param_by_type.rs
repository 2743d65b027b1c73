//! A parameter is what its type says, whatever the type is called where it is written: the runtime's
//! context under another name is the context, and a type of the user's own named `Context` is an argument.
#![deny(warnings)]

use fastmcp::prelude::*;
use fastmcp::{Args as Whole, Context as Ctx};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Query {
    text: String,
}

/// The request's context, renamed: owned, borrowed and unnamed.
#[tool]
async fn renamed(ctx: Ctx, again: &Ctx, _: Ctx, name: String) -> String {
    format!("{name} {:?} {:?}", ctx.request_id(), again.request_id())
}

/// `Args<T>`, renamed.
#[tool]
async fn whole(Whole(query): Whole<Query>, _ctx: &Ctx) -> String {
    query.text
}

/// In a prompt and a resource too.
#[prompt]
async fn renamed_prompt(ctx: &Ctx, topic: String) -> String {
    format!("{topic} {:?}", ctx.request_id())
}

#[resource("notes://{id}")]
async fn renamed_resource(id: u32, _: Ctx) -> String {
    id.to_string()
}

mod own {
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// The user's own type, named like the runtime's.
    #[derive(Deserialize, Serialize, JsonSchema)]
    pub struct Context {
        pub tenant: String,
    }

    /// An argument like any other: a property of the input.
    #[fastmcp::tool]
    pub async fn tenant(ctx: Context) -> String {
        ctx.tenant
    }

    /// And a sub-flow's argument, which travels in the request state.
    #[fastmcp::elicit]
    pub async fn tenant_is_set(ctx: Context) -> bool {
        !ctx.tenant.is_empty()
    }
}

fn main() {
    let _server = FastMcp::new("pass")
        .tool(renamed)
        .tool(whole)
        .tool(own::tenant)
        .prompt(renamed_prompt)
        .resource(renamed_resource);
    let _ = own::tenant_is_set;
}

use fastmcp::auth::{Access, AccessToken, Denied};
use fastmcp::handler::{PromptHandler, ResourceHandler, ToolHandler};
use fastmcp::prelude::*;

mod checks {
    use fastmcp::auth::{AccessToken, Denied};

    pub fn is_admin(token: &AccessToken) -> Result<(), Denied> {
        match token.subject.as_deref() {
            Some("root") => Ok(()),
            _ => Err(Denied::new("only root")),
        }
    }
}

fn anyone(_: &AccessToken) -> Result<(), Denied> {
    Ok(())
}

#[tool(scopes = ["deploy:write", "deploy:read"], auth = checks::is_admin, destructive)]
async fn deploy() -> String {
    String::new()
}

#[tool(auth = crate::anyone)]
async fn audited() -> String {
    String::new()
}

#[prompt(scopes = ["prompts:read"])]
async fn summary() -> String {
    String::new()
}

#[resource("config://app", scopes = ["config:read"], auth = anyone)]
async fn config() -> String {
    String::new()
}

#[resource("users://{id}", auth = self::checks::is_admin, scopes = ["users:read"])]
async fn user(id: u64) -> String {
    id.to_string()
}

#[tool]
async fn open() -> String {
    String::new()
}

fn main() {
    assert_eq!(deploy.access().scopes(), ["deploy:write", "deploy:read"]);
    assert!(audited.access().scopes().is_empty() && !audited.access().is_public());
    assert_eq!(PromptHandler::access(&summary).scopes(), ["prompts:read"]);
    assert_eq!(ResourceHandler::access(&config).scopes(), ["config:read"]);
    assert_eq!(ResourceHandler::access(&user).scopes(), ["users:read"]);
    let public: Access = open.access();
    assert!(public.is_public());
}

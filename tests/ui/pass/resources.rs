#![deny(warnings)]

use fastmcp::prelude::*;
use serde::Serialize;

#[derive(Serialize)]
struct Config {
    debug: bool,
}

/// The app's configuration.
#[resource("config://app", mime_type = "application/json", title = "Config")]
async fn config(_ctx: Context) -> Json<Config> {
    Json(Config { debug: true })
}

/// A user's profile.
#[resource("users://{id}/profile{?fields,verbose}", name = "profile")]
async fn profile(#[complete(["1", "2"])] id: u64, fields: Option<String>, verbose: Option<bool>) -> Result<String> {
    Ok(format!("{id} {fields:?} {verbose:?}"))
}

/// Files under a root.
#[resource("file:///{+path}")]
async fn file(path: String, _ctx: &Context) -> Vec<u8> {
    path.into_bytes()
}

#[resource("logs://{day*}")]
async fn logs(day: String) -> ReadResourceResult {
    ReadResourceResult { contents: vec![ResourceContents::text(format!("logs://{day}"), None, "")] }
}

fn main() {
    let _server = FastMcp::new("pass").resource(config).resource(profile).resource(file).resource(logs);
}

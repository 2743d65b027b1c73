//! npm packages the tests run (a real OAuth authorization server, the TypeScript SDK's server), installed
//! once under `target/` — test processes may race: each installs into a staging directory of its own and
//! moves its `node_modules` into place with one rename.

use crate::oauth::INSTALL_NODE;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Fails the test, saying how to install it, unless Node.js of at least `min` is on PATH (`what` needs it).
pub fn check_node(min: (u32, u32), what: &str) {
    let out = match std::process::Command::new("node").arg("--version").output() {
        Ok(out) if out.status.success() => out,
        Ok(out) => panic!("`node --version` failed ({}). {INSTALL_NODE}", out.status),
        Err(e) => panic!("Node.js is needed for {what}: `node`: {e}. {INSTALL_NODE}"),
    };
    let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let mut numbers = version.trim_start_matches('v').split('.').map(|n| n.parse::<u32>().unwrap_or(0));
    let found = (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0));
    assert!(found >= min, "Node.js {version} is too old for {what}. {INSTALL_NODE}");
}

/// The version of `package` installed under `modules`, if any.
fn installed_version(modules: &Path, package: &str) -> Option<String> {
    let text = std::fs::read_to_string(modules.join(package).join("package.json")).ok()?;
    serde_json::from_str::<Value>(&text).ok()?["version"].as_str().map(str::to_owned)
}

/// Installs `name@version` into `home/node_modules` unless it is there. Test processes may race here: each
/// installs into its own staging directory and moves its `node_modules` into place with one rename, so
/// `home/node_modules` is either absent or whole; the loser of a race keeps the winner's.
pub fn install(home: &Path, name: &str, version: &str) -> PathBuf {
    let modules = home.join("node_modules");
    if installed_version(&modules, name).as_deref() == Some(version) {
        return modules;
    }
    let unique = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
    );
    let staging = home.join(format!(".install-{unique}"));
    std::fs::create_dir_all(&staging).unwrap_or_else(|e| panic!("create {}: {e}", staging.display()));
    // Its own package.json, so npm installs here and not into some enclosing project.
    std::fs::write(staging.join("package.json"), "{\"private\": true}\n").expect("write package.json");
    let package = format!("{name}@{version}");
    let out = std::process::Command::new("npm")
        .args(["install", "--no-package-lock", "--no-audit", "--no-fund", &package])
        .current_dir(&staging)
        .output()
        .unwrap_or_else(|e| panic!("npm is needed to install {package} for the tests: `npm`: {e}. {INSTALL_NODE}"));
    assert!(
        out.status.success(),
        "npm install {package} in {} failed ({}):\n{}{}",
        staging.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // Another version (or a broken install) in the way is moved aside first.
    if modules.exists() && installed_version(&modules, name).as_deref() != Some(version) {
        let aside = home.join(format!(".stale-{unique}"));
        if std::fs::rename(&modules, &aside).is_ok() {
            let _ = std::fs::remove_dir_all(&aside);
        }
    }
    match std::fs::rename(staging.join("node_modules"), &modules) {
        Ok(()) => {}
        Err(_) if installed_version(&modules, name).as_deref() == Some(version) => {} // another process won
        Err(e) => panic!("move the npm install into {}: {e}", modules.display()),
    }
    let _ = std::fs::remove_dir_all(&staging);
    modules
}

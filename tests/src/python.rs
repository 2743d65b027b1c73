//! Python with the `mcp` SDK, for tests that drive a foreign server: a virtualenv under `target/`, made on
//! first use (test processes may race: each builds its own and moves it into place with one rename; the
//! threads of one process wait for the first).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `mcp` release the foreign-server tests run (the one the interop scripts use).
pub const MCP_VERSION: &str = "2.3.0";

/// The `python` of a virtualenv that has `mcp` at [`MCP_VERSION`].
pub fn python() -> PathBuf {
    // One per process: the staging directory is named by the process, so two threads must not both build.
    static PYTHON: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PYTHON.get_or_init(make).clone()
}

fn make() -> PathBuf {
    let home = super::target_dir().join("python-mcp");
    let python = home.join("bin/python");
    if has_mcp(&python) {
        return python;
    }
    let staging = home.with_file_name(format!("python-mcp.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    run(Command::new("python3").args(["-m", "venv"]).arg(&staging), "python3 -m venv (Python 3.10+ is needed)");
    let package = format!("mcp=={MCP_VERSION}");
    run(
        Command::new(staging.join("bin/python")).args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            &package,
        ]),
        &format!("pip install {package}"),
    );
    if std::fs::rename(&staging, &home).is_err() {
        // Another test process got there first; its virtualenv is whole.
        let _ = std::fs::remove_dir_all(&staging);
    }
    assert!(has_mcp(&python), "{} has no mcp {MCP_VERSION}", python.display());
    python
}

fn has_mcp(python: &Path) -> bool {
    Command::new(python)
        .args(["-c", &format!("import importlib.metadata as m; assert m.version('mcp') == '{MCP_VERSION}'")])
        .output()
        .is_ok_and(|out| out.status.success())
}

fn run(command: &mut Command, what: &str) {
    let out = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(out.status.success(), "{what} failed: {}", String::from_utf8_lossy(&out.stderr));
}

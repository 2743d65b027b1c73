//! A new user's first run of the examples, as real processes: `--help` says what a binary serves and reads
//! and exits without serving; a mistyped flag is an error, not a server silently waiting; and a stdio server
//! started at a terminal says how to connect a client, while one a client starts with pipes says nothing
//! extra and answers on stdout as before.

use fastmcp_tests::{StdioClient, TIMEOUT, example_bin};
use std::process::{Command, Output, Stdio};

/// Every example binary that serves (all but `conformance-client`, which is a client).
const SERVERS: &[&str] = &["quickstart", "deploy", "survey", "sum", "axum", "everything", "auth", "composed"];

/// What the hint names: the Inspector command is its most useful line.
const INSPECTOR: &str = "npx @modelcontextprotocol/inspector";

/// Runs an example with these arguments and its stdin a pipe held open, so one that started serving instead
/// of exiting would hang (and fail here) rather than exit at end of input and pass.
fn run(bin: &str, args: &[&str]) -> Output {
    let mut child = Command::new(example_bin(bin))
        .args(args)
        .env_remove("FASTMCP_TRANSPORT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {bin}: {e}"));
    let stdin = child.stdin.take();
    let pid = child.id();
    let (done, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(child.wait_with_output()));
    let output = wait.recv_timeout(TIMEOUT).unwrap_or_else(|_| {
        let _ = Command::new("kill").arg(pid.to_string()).status();
        panic!("{bin} {args:?} did not exit: it is serving instead")
    });
    drop(stdin);
    output.expect("output readable")
}

#[test]
fn quickstart_help_names_what_it_serves_and_reads() {
    let out = run("quickstart", &["--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    for served in ["greet(name)", "add(a, b)", "quickstart://readme", "quickstart://greeting/{name}", "review_code"] {
        assert!(help.contains(served), "{served} in:\n{help}");
    }
    for var in ["FASTMCP_TRANSPORT", "FASTMCP_HOST", "FASTMCP_PORT", "FASTMCP_PATH", "FASTMCP_STATELESS", "RUST_LOG"] {
        assert!(help.contains(var), "{var} in:\n{help}");
    }
    assert!(help.contains("stdio") && help.contains("http://127.0.0.1:8000/mcp"), "transports in:\n{help}");
    assert!(!help.contains("FASTMCP_AUTH_TOKEN"), "an unprotected server reads no token:\n{help}");
    assert_eq!(run("quickstart", &["-h"]).stdout, out.stdout, "-h is --help");
}

#[test]
fn every_example_has_help_and_refuses_unknown_flags() {
    for bin in SERVERS {
        let out = run(bin, &["--help"]);
        let help = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{bin} --help: {out:?}");
        assert!(help.starts_with(&format!("Usage: {bin}")) && help.contains("RUST_LOG"), "{bin}:\n{help}");

        let out = run(bin, &["--verbose"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bin} --verbose: {out:?}");
        assert!(err.contains("\"--verbose\"") && err.contains("--help"), "{bin}: {err}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(out.stdout.is_empty(), "{bin}: nothing on stdout");
    }
    let auth = String::from_utf8_lossy(&run("auth", &["--help"]).stdout).into_owned();
    for var in ["FASTMCP_AUTH_ISSUER", "FASTMCP_AUTH_AUDIENCE", "FASTMCP_AUTH_TOKEN"] {
        assert!(auth.contains(var), "{var} in:\n{auth}");
    }
    let axum = String::from_utf8_lossy(&run("axum", &["--help"]).stdout).into_owned();
    assert!(axum.contains("PORT ") && axum.contains("FASTMCP_AUTH_ISSUER"), "{axum}");

    // The suite runs it with a URL first: `--help` there collides with nothing.
    let out = run("conformance-client", &["--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(help.contains("<server-url>") && help.contains("MCP_CONFORMANCE_SCENARIO"), "{help}");
}

/// Runs the program after `--` with a pseudo-terminal as stdin and stdout and stderr as pipes, waits for the
/// hint's last line on stderr, then types Ctrl-D (end of input at a terminal). Passes the program's stdout,
/// stderr and exit status through (124 if it did not exit).
const TTY_STDIN: &str = r#"
import os, select, subprocess, sys, time
master, slave = os.openpty()
child = subprocess.Popen(sys.argv[1:], stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
os.close(slave)
err, deadline = b"", time.time() + 20
while b"Ctrl-C" not in err and time.time() < deadline and child.poll() is None:
    ready, _, _ = select.select([child.stderr], [], [], 0.2)
    if ready:
        err += os.read(child.stderr.fileno(), 4096)
os.write(master, b"\x04")
try:
    out, rest = child.communicate(timeout=20)
    code = child.returncode
except subprocess.TimeoutExpired:
    child.kill()
    out, rest = child.communicate()
    code = 124
sys.stdout.buffer.write(out)
sys.stderr.buffer.write(err + rest)
sys.exit(code)
"#;

#[test]
fn at_a_terminal_the_server_says_how_to_connect_a_client() {
    let bin = example_bin("quickstart");
    let out = Command::new("python3")
        .arg("-c")
        .arg(TTY_STDIN)
        .arg(&bin)
        .env_remove("FASTMCP_TRANSPORT")
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .output()
        .expect("python3 runs (its pty module gives the server a terminal)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "Ctrl-D ends it cleanly: {out:?}");
    let exe = bin.display().to_string();
    assert!(stderr.contains("quickstart is an MCP server speaking JSON-RPC on stdin/stdout"), "{stderr}");
    assert!(stderr.contains(&format!("{INSPECTOR} {exe}\n")), "the Inspector command, with this binary: {stderr}");
    assert!(stderr.contains(&format!(r#"{{"mcpServers": {{"quickstart": {{"command": "{exe}"}}}}}}"#)), "{stderr}");
    assert!(stderr.contains(r#"{"servers": {"quickstart": {"type": "stdio", "command": "#), "{stderr}");
    assert!(stderr.contains("FASTMCP_TRANSPORT=http") && stderr.contains("http://127.0.0.1:8000/mcp"), "{stderr}");
    assert!(out.stdout.is_empty(), "stdout is the protocol's alone: {:?}", String::from_utf8_lossy(&out.stdout));
}

#[tokio::test]
async fn with_pipes_no_hint_and_the_protocol_as_before() {
    let mut c = StdioClient::spawn(example_bin("quickstart"));
    let init = c.initialize("2025-11-25").await;
    assert_eq!(init["serverInfo"]["name"], "quickstart");
    let (status, stderr) = c.close().await;
    assert!(status.success(), "{status}");
    assert!(stderr.contains("serving MCP on stdio"), "the log line still: {stderr}");
    assert!(!stderr.contains(INSPECTOR) && !stderr.contains("mcpServers"), "no hint for a client: {stderr}");
}

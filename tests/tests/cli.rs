//! The `fastmcp` command line as a user runs it: the real binary (built once, `--features cli`) against the
//! examples and the fixture as real processes over stdio, in each era. Forms are answered by flags, and once
//! at a real pseudo-terminal (Python's `pty` module drives it: the CLI sees a terminal on stdin, stdout and
//! stderr, as it would in a shell).

use fastmcp_tests::example_bin;
use serde_json::Value;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const ERAS: [&str; 2] = ["modern", "legacy"];
/// How long one run of the CLI may take before the test fails instead of hanging.
const LIMIT: Duration = Duration::from_secs(60);

/// The `fastmcp` binary, built once per test process with the same cargo and profile.
fn fastmcp_bin() -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "--quiet", "-p", "fast-mcp", "--features", "cli", "--bin", "fastmcp"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the fastmcp CLI failed");
    });
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps");
    profile_dir.join(format!("fastmcp{}", std::env::consts::EXE_SUFFIX))
}

/// A server binary as the CLI's SERVER argument: a command line (quoted, as a shell would).
fn server(path: PathBuf) -> String {
    format!("'{}'", path.display())
}

fn quickstart() -> String {
    server(example_bin("quickstart"))
}

fn deploy() -> String {
    server(example_bin("deploy"))
}

fn fixture() -> String {
    server(env!("CARGO_BIN_EXE_fixture").into())
}

#[derive(Debug)]
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}): {self:?}"))
    }

    fn ok(self) -> Self {
        assert_eq!(self.code, 0, "{self:?}");
        self
    }
}

/// Runs the CLI with these arguments and no terminal (stdin is empty).
fn fastmcp(args: &[&str]) -> Run {
    fastmcp_env(args, &[])
}

fn fastmcp_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut child = Command::new(fastmcp_bin())
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the CLI starts");
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            pipe.read_to_string(&mut text).map(|_| text).unwrap_or_default()
        })
    };
    let stdout = read(Box::new(child.stdout.take().expect("stdout")));
    let stderr = read(Box::new(child.stderr.take().expect("stderr")));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            panic!("fastmcp {args:?} did not finish in {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let run = Run {
        code: status.code().unwrap_or_else(|| panic!("fastmcp {args:?} was killed by a signal: {status:?}")),
        stdout: stdout.join().expect("stdout read"),
        stderr: stderr.join().expect("stderr read"),
    };
    assert!(!run.stderr.contains("panicked"), "no panics: {run:?}");
    run
}

#[test]
fn list_shows_each_kind_in_each_era() {
    let q = quickstart();
    for era in ["modern", "legacy", "auto"] {
        let tools = fastmcp(&["list", &q, "--era", era]).ok();
        let lines: Vec<&str> = tools.stdout.lines().collect();
        assert_eq!(lines[0].split_whitespace().collect::<Vec<_>>(), ["NAME", "ARGUMENTS", "DESCRIPTION"], "{era}");
        assert!(lines[1].starts_with("greet ") && lines[1].ends_with("Greet someone by name."), "{era}: {lines:?}");
        assert!(lines[2].starts_with("add ") && lines[2].contains("a, b"), "{era}: {lines:?}");
        // The description column lines up.
        assert_eq!(lines[1].find("Greet someone"), lines[2].find("Add two"), "{era}: {lines:?}");
        assert!(!tools.stdout.contains('\x1b'), "no colour into a pipe: {era}");

        let json = fastmcp(&["list", &q, "--json", "--era", era]).ok().json();
        let names: Vec<&str> = json["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["greet", "add"], "{era}");
        assert_eq!(json["tools"][0]["inputSchema"]["required"][0], "name", "{era}");

        let all = fastmcp(&["list", &q, "--resources", "--templates", "--prompts", "--json", "--era", era]).ok().json();
        assert!(all.get("tools").is_none(), "only what was asked for: {all}");
        assert_eq!(all["resources"][0]["uri"], "quickstart://readme", "{era}");
        assert_eq!(all["resourceTemplates"][0]["uriTemplate"], "quickstart://greeting/{name}", "{era}");
        assert_eq!(all["prompts"][0]["name"], "review_code", "{era}");

        let prompts = fastmcp(&["list", &q, "--prompts", "--era", era]).ok();
        assert!(prompts.stdout.contains("review_code  code, language?  Ask the model to review"), "{prompts:?}");
        let both = fastmcp(&["list", &q, "--tools", "--resources", "--era", era]).ok();
        assert!(both.stdout.contains("Tools (2)") && both.stdout.contains("Resources (1)"), "{both:?}");
        assert!(both.stdout.contains("quickstart://readme  readme  text/markdown"), "{both:?}");
    }
}

#[test]
fn call_prints_text_structured_json_and_exits_by_outcome_in_each_era() {
    let q = quickstart();
    for era in ERAS {
        let greeting = fastmcp(&["call", &q, "greet", "name=Ada", "--era", era]).ok();
        assert_eq!(greeting.stdout, "Hello, Ada!\n", "{era}");

        let sum = fastmcp(&["call", &q, "add", "a=2", "b=40", "--json", "--era", era]).ok().json();
        assert_eq!(sum["structuredContent"]["sum"], 42, "{era}: {sum}");
        let human = fastmcp(&["call", &q, "add", "a=2", "b=40", "--era", era]).ok();
        assert_eq!(human.stdout, "{\n  \"sum\": 42\n}\n", "structured content, pretty, once: {era}");
        // `--args` is the base; pairs go over it.
        let merged = fastmcp(&["call", &q, "add", "--args", r#"{"a": 1, "b": 1}"#, "b=41", "--json", "--era", era]);
        assert_eq!(merged.ok().json()["structuredContent"]["sum"], 42, "{era}");
        // `greet` takes a string: a number typed for it stays text.
        assert_eq!(fastmcp(&["call", &q, "greet", "name=42", "--era", era]).ok().stdout, "Hello, 42!\n", "{era}");

        let unknown = fastmcp(&["call", &q, "nope", "--era", era]);
        assert_eq!(unknown.code, 2, "an unknown tool is a protocol error: {unknown:?}");
        assert!(unknown.stderr.contains("fastmcp: the server answered with error -32602"), "{unknown:?}");
        assert_eq!(unknown.stdout, "", "{era}");

        let failed = fastmcp(&["call", &fixture(), "fail", "message=it broke", "--era", era]);
        assert_eq!(failed.code, 1, "a tool's error result: {failed:?}");
        assert!(failed.stderr.contains("fastmcp: tool `fail` failed: it broke"), "{failed:?}");
        let failed = fastmcp(&["call", &fixture(), "fail", "message=it broke", "--json", "--era", era]);
        assert_eq!(failed.code, 1, "{failed:?}");
        assert_eq!(failed.json()["isError"], true, "{era}");
        assert_eq!(failed.json()["content"][0]["text"], "it broke", "{era}");
    }
}

#[test]
fn read_prompt_and_inspect_in_each_era() {
    let q = quickstart();
    for era in ERAS {
        let readme = fastmcp(&["read", &q, "quickstart://readme", "--era", era]).ok();
        assert!(readme.stdout.starts_with("# quickstart\n"), "{readme:?}");
        let greeting = fastmcp(&["read", &q, "quickstart://greeting/Grace", "--json", "--era", era]).ok().json();
        assert_eq!(greeting["contents"][0]["uri"], "quickstart://greeting/Grace", "{era}");
        assert!(greeting["contents"][0]["text"].as_str().unwrap().starts_with("Hello, Grace!"), "{era}");

        let prompt = fastmcp(&["prompt", &q, "review_code", "code=fn main() {}", "language=rust", "--era", era]).ok();
        assert!(prompt.stdout.contains("user\nPlease review this rust code"), "{prompt:?}");
        assert!(prompt.stdout.contains("```rust\nfn main() {}\n```"), "{prompt:?}");
        let prompt = fastmcp(&["prompt", &q, "review_code", "code=x", "--json", "--era", era]).ok().json();
        assert_eq!(prompt["messages"][0]["role"], "user", "{era}");
        let missing = fastmcp(&["prompt", &q, "review_code", "--era", era]);
        assert_eq!(missing.code, 2, "a prompt without its required argument: {missing:?}");

        let inspected = fastmcp(&["inspect", &q, "--era", era]).ok().stdout;
        let version = if era == "modern" { "2026-07-28" } else { "2025-11-25" };
        assert!(inspected.contains(&format!("Protocol      {version} ({era})")), "{inspected}");
        if era == "legacy" {
            assert!(inspected.contains("Server        quickstart 0.1.0"), "{inspected}");
        }
        for expected in [
            "  tools       {\"listChanged\":true}",
            "Instructions\n  Greets people, adds numbers and reviews code.",
            "Tools (2)\n  greet (read-only, idempotent): Greet someone by name.\n    input schema:",
            "\"description\": \"Who to greet.\"",
            "    output schema:",
            "  quickstart://readme (readme, text/markdown): What this server is",
            "  quickstart://greeting/{name} (greeting): A greeting for anyone",
            "  review_code: Ask the model to review a piece of code.\n    code (required): The code to review.",
        ] {
            assert!(inspected.contains(expected), "{era}: {expected:?} in\n{inspected}");
        }

        let json = fastmcp(&["inspect", &q, "--json", "--era", era]).ok().json();
        assert_eq!(json["protocolVersion"], version, "{json}");
        assert_eq!(json["era"], era, "{json}");
        assert_eq!(json["instructions"], "Greets people, adds numbers and reviews code.", "{json}");
        assert_eq!(json["capabilities"]["tools"]["listChanged"], true, "{json}");
        assert_eq!(json["tools"][1]["outputSchema"]["required"][0], "sum", "{json}");
        assert_eq!(json["resources"][0]["mimeType"], "text/markdown", "{json}");
        assert_eq!(json["resourceTemplates"][0]["name"], "greeting", "{json}");
        assert_eq!(json["prompts"][0]["arguments"][1]["name"], "language", "{json}");
        // Legacy: `initialize`'s serverInfo; modern: the one `server/discover`'s `_meta` carries.
        assert_eq!(json["serverInfo"]["name"], "quickstart", "{json}");
    }
}

#[test]
fn deploy_is_answered_by_flags_in_each_era() {
    let d = deploy();
    let call = ["call", &d, "deploy", "service=api", "replicas=2"];
    for era in ERAS {
        let with = |extra: &[&str]| fastmcp(&[&call[..], extra, &["--era", era]].concat());
        let done = with(&["--answer", "confirm=true", "--sample-text", "notes"]).ok();
        assert_eq!(done.stdout, "Deployed api x2: notes\n", "{era}");
        let declined = with(&["--decline"]).ok();
        assert_eq!(declined.stdout, "Deployment of api cancelled.\n", "{era}");
        let refused = with(&["--answer", "confirm=no", "--sample-text", "notes"]).ok();
        assert_eq!(refused.stdout, "Deployment of api cancelled.\n", "{era}");

        // No terminal and no answer for a required field: declined, saying which flag answers it.
        let unanswered = with(&["--sample-text", "notes"]).ok();
        assert_eq!(unanswered.stdout, "Deployment of api cancelled.\n", "{era}");
        assert!(unanswered.stderr.contains("answer with --answer confirm=VALUE"), "{unanswered:?}");
        let bad = with(&["--answer", "confirm=maybe", "--sample-text", "notes"]).ok();
        assert!(bad.stderr.contains("--answer confirm=maybe: expected yes or no"), "{bad:?}");

        // No --sample-text: the sampling handler refuses, saying why; modern fails the call (the client
        // can't answer the round), legacy hands the refusal to the server, whose tool reports it.
        let unsampled = with(&["--answer", "confirm=true", "-v"]);
        assert_eq!(unsampled.code, if era == "modern" { 2 } else { 1 }, "{unsampled:?}");
        assert!(unsampled.stderr.contains("pass --sample-text TEXT"), "{unsampled:?}");
        // -v shows each request for input, and its answer.
        assert!(unsampled.stderr.contains("fastmcp: the server asks elicitation/create {"), "{unsampled:?}");
        assert!(
            unsampled
                .stderr
                .contains(r#"fastmcp: answered elicitation/create {"action":"accept","content":{"confirm":true}}"#)
        );
        assert!(unsampled.stderr.contains("fastmcp: the server asks sampling/createMessage {"), "{unsampled:?}");
    }
}

#[test]
fn forms_samples_and_roots_in_one_round_and_forms_over_many_rounds() {
    let (f, survey) = (fixture(), server(example_bin("survey")));
    for era in ERAS {
        let multi = ["call", &f, "multi", "--answer", "name=Ada", "--sample-text", "Paris", "--era", era];
        let roots = ["--root", "file:///a", "--root", "file:///b"];
        assert_eq!(fastmcp(&[&multi[..], &roots].concat()).ok().stdout, "Ada|Paris|2\n", "{era}");
        let questions = r#"questions=["Why?", "How?"]"#;
        let answered = fastmcp(&["call", &survey, "survey", questions, "--answer", "answer=so", "--era", era]).ok();
        assert_eq!(answered.stdout, "Why?=so; How?=so\n", "the same answer in each round: {era}");
        let accepted = fastmcp(&["call", &survey, "survey", questions, "--accept", "--era", era]).ok();
        assert_eq!(accepted.stdout, "Why?=; How?=\n", "--accept without the answer: declined: {era}");
        assert!(accepted.stderr.contains("with --accept: it needs `answer` (text)"), "{accepted:?}");
    }
}

#[test]
fn verbose_shows_progress_and_logs_in_each_era() {
    let f = fixture();
    for era in ERAS {
        let progress = fastmcp(&["call", &f, "progress", "steps=3", "-v", "--era", era]).ok();
        assert_eq!(progress.stdout, "done\n", "{era}");
        assert!(progress.stderr.contains("fastmcp: progress 3/3: step 3"), "{progress:?}");
        let logs = fastmcp(&["-v", "call", &f, "log_all", "--era", era]).ok();
        assert!(logs.stderr.contains("fastmcp: log [debug]: Debug"), "{logs:?}");
        assert!(logs.stderr.contains("fastmcp: log [emergency]: Emergency"), "{logs:?}");
        let quiet = fastmcp(&["call", &f, "log_all", "--era", era]).ok();
        assert!(!quiet.stderr.contains("fastmcp: log"), "{quiet:?}");
    }
}

#[test]
fn options_stand_before_and_after_positionals() {
    let q = quickstart();
    let lines: [&[&str]; 4] = [
        &["--json", "--era", "legacy", "call", &q, "add", "a=2", "b=40"],
        &["call", &q, "add", "a=2", "b=40", "--json", "--era", "legacy"],
        &["call", "--era", "legacy", &q, "--json", "add", "a=2", "b=40"],
        &["call", &q, "add", "--json", "a=2", "--era=legacy", "b=40"],
    ];
    for line in lines {
        let run = fastmcp(line).ok();
        assert_eq!(run.json()["structuredContent"]["sum"], 42, "{line:?}");
        assert!(run.json()["_meta"].is_null(), "legacy results carry no modern _meta: {line:?}");
    }
    let d = deploy();
    let before =
        fastmcp(&["--answer", "confirm=true", "--sample-text", "x", "call", &d, "deploy", "service=a", "replicas=1"]);
    let after =
        fastmcp(&["call", &d, "deploy", "service=a", "--sample-text", "x", "replicas=1", "--answer", "confirm=true"]);
    assert_eq!(before.ok().stdout, "Deployed a x1: x\n");
    assert_eq!(after.ok().stdout, "Deployed a x1: x\n");
}

#[test]
fn connection_and_usage_errors_exit_2_without_a_panic() {
    let missing = fastmcp(&["list", "/no/such/server --flag"]);
    assert_eq!(missing.code, 2, "{missing:?}");
    assert!(missing.stderr.contains("fastmcp: transport: cannot start the server"), "{missing:?}");
    let http = fastmcp(&["list", "http://127.0.0.1:9/mcp", "--header", "X-Trace: 1", "--token", "t"]);
    assert_eq!(http.code, 2, "{http:?}");
    assert!(http.stderr.starts_with("fastmcp: "), "{http:?}");
    let unquoted = fastmcp(&["list", "'unclosed"]);
    assert_eq!(unquoted.code, 2, "{unquoted:?}");
    for usage in [&["call"][..], &["call", "x", "tool", "novalue"], &["list", "x", "--era", "future"], &["nope"]] {
        let run = fastmcp(usage);
        assert_eq!(run.code, 2, "{usage:?}: {run:?}");
        assert!(run.stderr.starts_with("error:") && run.stderr.contains("--help"), "{usage:?}: {run:?}");
    }
    let args = fastmcp(&["call", &quickstart(), "add", "--args", "[1]"]);
    assert_eq!(args.code, 2, "{args:?}");
    assert!(args.stderr.contains("--args must be a JSON object"), "{args:?}");
    let help = fastmcp(&["call", "--help"]);
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("--answer <KEY=VALUE>") && help.stdout.contains("--sample-text <TEXT>"), "{help:?}");
}

/// Drives a command under a pseudo-terminal: each `expect:TEXT` waits (from where the last one matched)
/// for TEXT in what the program writes, each `send:TEXT` types TEXT and Enter. Prints everything written,
/// and exits with the program's status (125 if an expectation was never met).
const PTY_DRIVER: &str = r#"
import os, select, subprocess, sys, time
split = sys.argv.index("--")
steps, argv = sys.argv[1:split], sys.argv[split + 1:]
master, slave = os.openpty()
child = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, start_new_session=True, close_fds=True)
os.close(slave)
seen, at, step = b"", 0, 0
def advance():
    global at, step
    while step < len(steps):
        kind, text = steps[step].split(":", 1)
        if kind == "send":
            os.write(master, text.encode() + b"\n")
        else:
            found = seen.find(text.encode(), at)
            if found < 0:
                return
            at = found + len(text)
        step += 1
deadline = time.time() + 60
while time.time() < deadline:
    advance()
    ready, _, _ = select.select([master], [], [], 0.2)
    if not ready:
        if child.poll() is not None:
            break
        continue
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
try:
    code = child.wait(timeout=10)
except subprocess.TimeoutExpired:
    child.kill()
    code = 124
sys.stdout.write(seen.decode("utf-8", "replace").replace("\r\n", "\n"))
if step < len(steps):
    sys.stdout.write("\n[pty: stuck at %r]\n" % steps[step])
    code = 125
sys.exit(code)
"#;

/// Runs the CLI under a pseudo-terminal with these steps; returns its exit code and all it wrote.
fn at_terminal(steps: &[&str], args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let cli = fastmcp_bin();
    let output = Command::new("python3")
        .arg("-c")
        .arg(PTY_DRIVER)
        .args(steps)
        .arg("--")
        .arg(cli)
        .args(args)
        .env_remove("NO_COLOR")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("python3 runs (its pty module drives the terminal)");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    (output.status.code().unwrap_or(-1), text)
}

#[test]
fn a_form_answered_at_a_terminal_in_each_era() {
    let d = deploy();
    for era in ERAS {
        let steps = [
            "expect:Deploy api x2?",
            "expect:  confirm: Go ahead with the deployment? [yes/no, required]",
            "expect:  > ",
            "send:maybe",
            "expect:  ! expected yes or no, not \"maybe\"",
            "expect:  > ",
            "send:y",
            "expect:Deployed api x2: notes",
        ];
        let args = ["call", &d, "deploy", "service=api", "replicas=2", "--sample-text", "notes", "--era", era];
        let (code, shown) = at_terminal(&steps, &args, &[("RUST_LOG", "error")]);
        assert_eq!(code, 0, "{era}:\n{shown}");

        // Ctrl-D at the form cancels it.
        let steps = ["expect:Go ahead with the deployment?", "expect:  > ", "send:\x04"];
        let (code, shown) = at_terminal(&steps, &args, &[("RUST_LOG", "error")]);
        assert_eq!(code, 0, "{era}:\n{shown}");
        assert!(shown.contains("cancelled\nDeployment of api cancelled."), "{era}:\n{shown}");
    }
}

#[test]
fn colour_only_at_a_terminal_without_no_color() {
    let q = quickstart();
    let (code, coloured) = at_terminal(&["expect:greet"], &["list", &q], &[]);
    assert_eq!(code, 0, "{coloured}");
    assert!(coloured.contains("\x1b[1;36mgreet\x1b[0m"), "names in colour at a terminal:\n{coloured:?}");
    let (code, plain) = at_terminal(&["expect:greet"], &["list", &q], &[("NO_COLOR", "1"), ("RUST_LOG", "error")]);
    assert_eq!(code, 0, "{plain}");
    assert!(!plain.contains('\x1b'), "NO_COLOR:\n{plain:?}");
}

/// Over Streamable HTTP, in each era: a call, a form answered by flags, and `--header` sent along.
#[tokio::test]
async fn over_http_in_each_era() {
    let quickstart = fastmcp_tests::HttpServer::spawn(example_bin("quickstart")).await;
    let deploy = fastmcp_tests::HttpServer::spawn(example_bin("deploy")).await;
    for era in ERAS {
        let url = format!("http://{}/mcp", quickstart.addr);
        let run = fastmcp(&["call", &url, "greet", "name=Ada", "--era", era, "--header", "X-Request-Id: 7"]).ok();
        assert!(run.stdout.contains("Hello, Ada!"), "{era}: {run:?}");
        let url = format!("http://{}/mcp", deploy.addr);
        let args = ["call", &url, "deploy", "service=api", "replicas=2", "--answer", "confirm=true"];
        let run = fastmcp(&[&args[..], &["--sample-text", "notes", "--era", era]].concat()).ok();
        assert!(run.stdout.contains("Deployed api x2: notes"), "{era}: {run:?}");
    }
}

/// `--token` against a protected server (the `auth` example, its tokens from a real authorization server):
/// the token's subject is who the server sees; without one and no way to sign in, exit 2.
#[tokio::test]
async fn a_bearer_token_reaches_a_protected_server() {
    let auth = fastmcp_tests::oauth::MockAs::start().await;
    let server =
        fastmcp_tests::HttpServer::spawn_with_env(example_bin("auth"), &[("FASTMCP_AUTH_ISSUER", &auth.issuer())])
            .await;
    let url = format!("http://{}/mcp", server.addr);
    let token = auth.mint(serde_json::json!({"iss": auth.issuer(), "sub": "ada", "aud": url, "scope": "mcp"})).await;
    for era in ERAS {
        let run = fastmcp(&["call", &url, "whoami", "--token", &token, "--era", era]).ok();
        assert_eq!(run.stdout.trim(), "ada", "{era}: {run:?}");
        // Without a token the CLI would sign in with OAuth; this authorization server can't register it (no
        // registration endpoint, no --client-id), and the CLI says so.
        let refused = fastmcp(&["call", &url, "whoami", "--era", era]);
        assert_eq!(refused.code, 2, "{era}: {refused:?}");
        assert!(refused.stderr.contains("no client registration"), "{era}: {refused:?}");
    }
}

/// An absolute `http://host:port/path?query` split into its address and what follows.
fn split_url(url: &str) -> (std::net::SocketAddr, String) {
    let rest = url.strip_prefix("http://").unwrap_or_else(|| panic!("an http URL: {url}"));
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    (authority.parse().unwrap_or_else(|e| panic!("{authority}: {e}")), format!("/{path}"))
}

/// Signing in with OAuth: the server answers 401, the CLI discovers its authorization server, prints the
/// authorization URL and listens on a loopback port; "the browser" (this test) opens the URL, the
/// authorization server (oauth2-mock-server, which approves at once) redirects to the CLI, and the call
/// goes through with the token it got.
#[tokio::test]
async fn signs_in_with_oauth_through_a_loopback_redirect() {
    use tokio::io::AsyncBufReadExt;
    let auth = fastmcp_tests::oauth::MockAs::start().await;
    let server =
        fastmcp_tests::HttpServer::spawn_with_env(example_bin("auth"), &[("FASTMCP_AUTH_ISSUER", &auth.issuer())])
            .await;
    let url = format!("http://{}/mcp", server.addr);
    let mut cli = tokio::process::Command::new(fastmcp_bin())
        .args(["call", &url, "whoami", "--client-id", "cli-test"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the CLI starts");
    let mut stderr = tokio::io::BufReader::new(cli.stderr.take().unwrap()).lines();
    let authorize = tokio::time::timeout(LIMIT, async {
        while let Some(line) = stderr.next_line().await.unwrap() {
            if let Some(found) = line.trim().strip_prefix(&format!("{}/authorize", auth.issuer())) {
                return format!("{}/authorize{found}", auth.issuer());
            }
        }
        panic!("the CLI never printed the authorization URL");
    })
    .await
    .expect("in time");
    assert!(authorize.contains("code_challenge_method=S256") && authorize.contains("resource="), "{authorize}");
    let (as_addr, path) = split_url(&authorize);
    let approved = fastmcp_tests::send_http(as_addr, "GET", &path, &[], "").await;
    let location = approved.header("location").unwrap_or_else(|| panic!("a redirect: {approved:?}")).to_owned();
    assert!(location.starts_with("http://127.0.0.1:"), "back to the CLI's loopback port: {location}");
    let (cli_addr, path) = split_url(&location);
    let page = fastmcp_tests::send_http(cli_addr, "GET", &path, &[], "").await;
    assert!(page.body.contains("Signed in"), "{page:?}");
    tokio::spawn(async move { while let Ok(Some(_)) = stderr.next_line().await {} });
    let out = tokio::time::timeout(LIMIT, cli.wait_with_output()).await.expect("in time").expect("runs");
    assert!(out.status.success(), "{out:?}");
    assert!(!String::from_utf8_lossy(&out.stdout).trim().is_empty(), "whoami names the token's subject: {out:?}");
}

//! `--help` for the example binaries, by hand: they take no other argument (a client starts them with none),
//! so two flags do not need an argument parser. `--help` says what a binary serves, on which transports and
//! what it reads from the environment, so a first run needn't start with reading the source.

use std::fmt::Write as _;

/// Environment variables, each with what it does.
pub type Env = &'static [(&'static str, &'static str)];

/// What `FastMcp::run()` reads to serve (fastmcp's `Transport::from_env` and `FastMcp::with_env`).
pub const RUN_ENV: Env = &[
    ("FASTMCP_TRANSPORT", "`stdio` (default) or `http`"),
    ("FASTMCP_HOST", "HTTP: the IP address to listen on (default 127.0.0.1)"),
    ("FASTMCP_PORT", "HTTP: the port (default 8000)"),
    ("FASTMCP_PATH", "HTTP: the MCP endpoint's path (default /mcp)"),
    ("FASTMCP_STATELESS", "HTTP: `true` serves legacy requests without sessions"),
    ("FASTMCP_REDIS_URL", "a redis:// URL: replicas share consumed one-time rounds and list/resource changes"),
    ("FASTMCP_STATE_KEYS", "request-state keys, base64url, comma-separated, the first signs (replicas share them)"),
];

/// What `fastmcp::init_tracing` reads (`FastMcp::run()` calls it).
pub const LOG_ENV: Env = &[("RUST_LOG", "the log filter; logs go to stderr (default info)")];

/// What a protected example reads (`fastmcp_examples::auth::from_env`).
pub const AUTH_ENV: Env = &[
    ("FASTMCP_AUTH_ISSUER", "the authorization server's issuer URL; its metadata gives the signing keys"),
    ("FASTMCP_AUTH_AUDIENCE", "the resource tokens must be issued for (default: the URL served on)"),
];

/// What `FastMcp::run()` serves on.
pub const RUN_TRANSPORTS: &str =
    "stdio (default); Streamable HTTP with FASTMCP_TRANSPORT=http, at http://127.0.0.1:8000/mcp by default";

/// One binary's `--help`.
pub struct Help {
    /// How to run it, e.g. `quickstart [--help]`; its first word is the binary's name.
    pub usage: &'static str,
    /// What it serves: its tools, resources and prompts.
    pub serves: &'static str,
    /// Which transports it serves on.
    pub transports: &'static str,
    /// The environment variables it reads, in groups (e.g. `&[RUN_ENV, LOG_ENV]`).
    pub env: &'static [Env],
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Args {
    /// Nothing: serve.
    Serve,
    /// `--help` or `-h`.
    Help,
    /// Anything else: the first argument not understood.
    Unknown(String),
}

impl Args {
    /// Reads the arguments after the program's name.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Self {
        let mut asked = Args::Serve;
        for arg in args {
            match arg.as_str() {
                "--help" | "-h" => asked = Args::Help,
                _ => return Args::Unknown(arg),
            }
        }
        asked
    }
}

impl Help {
    /// For a binary that takes no arguments: returns to serve, prints the help and exits 0 on `--help`, and
    /// exits 2 on anything else, so a mistyped flag is not mistaken for a server waiting for a client.
    pub fn check_args(&self) {
        match Args::parse(std::env::args().skip(1)) {
            Args::Serve => {}
            Args::Help => self.exit_with_help(),
            Args::Unknown(arg) => {
                let name = self.usage.split_whitespace().next().unwrap_or(self.usage);
                eprintln!("{name}: unknown argument {arg:?}; see `{name} --help`");
                std::process::exit(2);
            }
        }
    }

    /// Prints the help on stdout and exits 0.
    pub fn exit_with_help(&self) -> ! {
        print!("{}", self.render());
        std::process::exit(0);
    }

    /// The help text.
    pub fn render(&self) -> String {
        let mut text = format!("Usage: {}\n\n{}\n\nTransports: {}\n", self.usage, self.serves, self.transports);
        let vars: Vec<_> = self.env.iter().flat_map(|group| group.iter()).collect();
        if !vars.is_empty() {
            text.push_str("\nEnvironment:\n");
            let width = vars.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
            for (name, what) in vars {
                let _ = writeln!(text, "  {name:width$}  {what}");
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Args {
        Args::parse(list.iter().map(|a| a.to_string()))
    }

    #[test]
    fn two_flags_and_nothing_else() {
        assert_eq!(args(&[]), Args::Serve);
        assert_eq!(args(&["--help"]), Args::Help);
        assert_eq!(args(&["-h"]), Args::Help);
        assert_eq!(args(&["--verbose"]), Args::Unknown("--verbose".into()));
        assert_eq!(args(&["-h", "extra"]), Args::Unknown("extra".into()));
    }

    #[test]
    fn help_lists_what_is_served_and_every_variable() {
        let help = Help {
            usage: "demo [--help]",
            serves: "Tools: `a`.",
            transports: RUN_TRANSPORTS,
            env: &[AUTH_ENV, RUN_ENV, LOG_ENV],
        };
        let text = help.render();
        assert!(text.starts_with("Usage: demo [--help]\n\nTools: `a`.\n"), "{text}");
        for (name, _) in AUTH_ENV.iter().chain(RUN_ENV).chain(LOG_ENV) {
            assert!(text.contains(&format!("  {name} ")), "{name} in {text}");
        }
    }
}

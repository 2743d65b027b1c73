//! A real `redis-server` for the tests, one per test: on a Unix socket in its own temporary directory, so
//! no port is chosen (none can clash, however many tests run at once) and a restart comes back at the same
//! address. Nothing is persisted. Without `redis-server` on the PATH a test fails, loudly: CI installs it.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const START_TIMEOUT: Duration = Duration::from_secs(30);

pub struct RedisServer {
    dir: PathBuf,
    child: Option<Child>,
}

impl RedisServer {
    /// Starts a fresh server and returns once it accepts connections.
    pub async fn start() -> Self {
        let dir = std::env::temp_dir().join(format!("fastmcp-redis-{}-{}", std::process::id(), unique()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let mut server = Self { dir, child: None };
        server.restart().await;
        server
    }

    /// `redis+unix:///…/redis.sock`: what `FASTMCP_REDIS_URL` and `RedisStore::open` take.
    pub fn url(&self) -> String {
        format!("redis+unix://{}", self.socket().display())
    }

    fn socket(&self) -> PathBuf {
        self.dir.join("redis.sock")
    }

    /// Kills the server (SIGKILL: nothing is flushed, clients see the connection drop) and waits for it.
    pub async fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().await.expect("redis-server killed");
        }
    }

    /// Starts the server again (killing it first if it runs), empty, at the same address.
    pub async fn restart(&mut self) {
        self.kill().await;
        let mut child = Command::new("redis-server")
            .args(["--port", "0", "--unixsocket"])
            .arg(self.socket())
            .args(["--unixsocketperm", "700", "--save", "", "--appendonly", "no", "--dir"])
            .arg(&self.dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| {
                panic!("redis-server could not be started ({e}): install it (`apt-get install redis-server`)")
            });
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
        tokio::time::timeout(START_TIMEOUT, async {
            while let Some(line) = stdout.next_line().await.expect("redis-server's log") {
                // "Ready to accept connections" (TCP), "ready to accept connections at <socket>" (Unix).
                if line.to_ascii_lowercase().contains("ready to accept connections") {
                    return;
                }
            }
            panic!("redis-server exited before it was ready");
        })
        .await
        .expect("redis-server started in time");
        tokio::spawn(async move { while let Ok(Some(_)) = stdout.next_line().await {} });
        self.child = Some(child);
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.start_kill();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

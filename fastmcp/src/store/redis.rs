//! The Redis store: every replica pointed at one Redis shares what the server stores.
//!
//! Commands go over one [`ConnectionManager`](::redis::aio::ConnectionManager): a multiplexed connection
//! (concurrent requests pipeline on it, so no pool is needed) that reconnects by itself after Redis went
//! away. It is made on first use, so a server starts while Redis is down and serves what needs no store.
//! Each subscription has its own pub/sub connection and reconnect loop. Every call is bounded by the
//! configured timeouts; a failure is a [`StoreError`], never a hang.

use super::{Event, Store, StoreError, StoreFuture, Subscription, feed};
use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use futures_util::StreamExt as _;
use std::time::Duration;
use tokio::sync::{OnceCell, mpsc};

/// Compare-and-set in one step on the server (a Lua script runs atomically); `KEEPTTL` keeps the expiry.
static REPLACE_IF: std::sync::LazyLock<::redis::Script> = std::sync::LazyLock::new(|| {
    ::redis::Script::new(
        "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') return 1 end \
         return 0",
    )
});

/// How a [`RedisStore`] connects.
#[derive(Debug, Clone)]
pub struct RedisConfig {
    /// Prefixed to every key and channel, so servers sharing one Redis stay apart (default `fastmcp:`).
    pub namespace: String,
    /// How long one connection attempt may take (default 2 s).
    pub connection_timeout: Duration,
    /// How long one command may wait for its answer (default 2 s).
    pub response_timeout: Duration,
    /// The longest pause between reconnection attempts (default 2 s).
    pub max_reconnect_delay: Duration,
}

impl Default for RedisConfig {
    fn default() -> Self {
        Self {
            namespace: "fastmcp:".into(),
            connection_timeout: Duration::from_secs(2),
            response_timeout: Duration::from_secs(2),
            max_reconnect_delay: Duration::from_secs(2),
        }
    }
}

/// A [`Store`] in Redis (see the [module docs](super)).
pub struct RedisStore {
    client: ::redis::Client,
    config: RedisConfig,
    manager: OnceCell<ConnectionManager>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may carry a password: show only where it points.
        let addr = &self.client.get_connection_info().addr();
        f.debug_struct("RedisStore").field("addr", &format_args!("{addr}")).field("config", &self.config).finish()
    }
}

impl RedisStore {
    /// A store at `url` (`redis://host:port/db`, `rediss://…`, `redis+unix:///path`), with the default
    /// [`RedisConfig`]. Only the URL is checked here: nothing connects before first use.
    pub fn open(url: &str) -> Result<Self, StoreError> {
        Self::with_config(url, RedisConfig::default())
    }

    /// As [`open`](Self::open), configured.
    pub fn with_config(url: &str, config: RedisConfig) -> Result<Self, StoreError> {
        let client = ::redis::Client::open(url).map_err(|e| StoreError::new(format!("Redis URL: {e}")))?;
        Ok(Self { client, config, manager: OnceCell::new() })
    }

    fn key(&self, key: &str) -> String {
        format!("{}{key}", self.config.namespace)
    }

    async fn connection(&self) -> Result<ConnectionManager, StoreError> {
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(self.config.connection_timeout))
            .set_response_timeout(Some(self.config.response_timeout))
            .set_number_of_retries(2)
            .set_max_delay(self.config.max_reconnect_delay);
        let manager = self
            .manager
            .get_or_try_init(|| async { ConnectionManager::new_lazy_with_config(self.client.clone(), config) })
            .await
            .map_err(redis_error)?;
        Ok(manager.clone())
    }

    async fn query<T: ::redis::FromRedisValue>(&self, cmd: &::redis::Cmd) -> Result<T, StoreError> {
        let mut connection = self.connection().await?;
        cmd.query_async(&mut connection).await.map_err(redis_error)
    }
}

/// A ttl in whole milliseconds, at least 1 (a zero ttl would mean "forever" to some backends).
fn ttl_ms(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

fn redis_error(e: ::redis::RedisError) -> StoreError {
    StoreError::new(format!("Redis: {e}"))
}

impl Store for RedisStore {
    fn insert_if_absent<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut cmd = ::redis::cmd("SET");
            cmd.arg(self.key(key)).arg(value).arg("NX").arg("PX").arg(ttl_ms(ttl));
            // `OK` when set, nil when the key was there.
            let set: Option<String> = self.query(&cmd).await?;
            Ok(set.is_some())
        })
    }

    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut cmd = ::redis::cmd("SET");
            cmd.arg(self.key(key)).arg(value).arg("PX").arg(ttl_ms(ttl));
            self.query::<()>(&cmd).await
        })
    }

    fn replace_if<'a>(&'a self, key: &'a str, expected: &'a [u8], value: &'a [u8]) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut connection = self.connection().await?;
            let replaced: i64 = REPLACE_IF
                .key(self.key(key))
                .arg(expected)
                .arg(value)
                .invoke_async(&mut connection)
                .await
                .map_err(redis_error)?;
            Ok(replaced == 1)
        })
    }

    fn touch<'a>(&'a self, key: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut cmd = ::redis::cmd("PEXPIRE");
            cmd.arg(self.key(key)).arg(ttl_ms(ttl));
            // 1 when the key exists (its expiry set), 0 when it does not.
            let set: i64 = self.query(&cmd).await?;
            Ok(set == 1)
        })
    }

    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(async move {
            let mut cmd = ::redis::cmd("GET");
            cmd.arg(self.key(key));
            self.query(&cmd).await
        })
    }

    fn delete<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut cmd = ::redis::cmd("DEL");
            cmd.arg(self.key(key));
            self.query::<()>(&cmd).await
        })
    }

    fn publish<'a>(&'a self, channel: &'a str, message: &'a [u8]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut cmd = ::redis::cmd("PUBLISH");
            cmd.arg(self.key(channel)).arg(message);
            self.query::<()>(&cmd).await
        })
    }

    fn subscribe(&self, channel: &str) -> Subscription {
        let (tx, subscription) = Subscription::channel();
        let client = self.client.clone();
        let channel = self.key(channel);
        let config = self.config.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = tx.closed() => {}
                () = listen(client, channel, config, &tx) => {}
            }
        });
        subscription
    }

    fn shared(&self) -> bool {
        true
    }
}

/// Keeps one subscription connected until its subscriber goes: `Ready` each time it is listening, `Gap` once
/// when a live link breaks, reconnecting with a doubling pause (100 ms up to the configured maximum).
async fn listen(client: ::redis::Client, channel: String, config: RedisConfig, tx: &mpsc::Sender<Event>) {
    let mut pause = Duration::from_millis(100);
    let mut lagging = false;
    let mut up = false;
    loop {
        let connected = tokio::time::timeout(config.connection_timeout, async {
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.subscribe(&channel).await?;
            Ok::<_, ::redis::RedisError>(pubsub)
        })
        .await;
        match connected {
            Ok(Ok(mut pubsub)) => {
                pause = Duration::from_millis(100);
                up = true;
                if !feed(tx, Event::Ready, &mut lagging) {
                    return;
                }
                let mut messages = pubsub.on_message();
                while let Some(message) = messages.next().await {
                    let payload = message.get_payload_bytes().to_vec();
                    if !feed(tx, Event::Message(payload), &mut lagging) {
                        return;
                    }
                }
                tracing::warn!("shared store: the Redis subscription to {channel} broke; reconnecting");
            }
            Ok(Err(e)) => tracing::debug!("shared store: subscribing to {channel}: {e}"),
            Err(_) => tracing::debug!("shared store: subscribing to {channel} timed out"),
        }
        if std::mem::take(&mut up) && !feed(tx, Event::Gap, &mut lagging) {
            return;
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(config.max_reconnect_delay);
    }
}

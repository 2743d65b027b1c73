//! How many tasks each principal keeps, counted across every replica sharing the store.
//!
//! One record per principal, `tasks-of:<SHA-256 of the principal>`, lists its tasks and when each expires.
//! A creation drops the expired ones, refuses when the limit is reached, and adds its own by
//! compare-and-set ([`Store::insert_if_absent`] for the first, [`Store::replace_if`] after), so of
//! concurrent creations on any replicas no more than the limit get in. A task holds its slot until it
//! expires, finished or not, as its record stays in the store until then: the limit bounds what one
//! principal keeps there. The record lives as long as its latest slot.
//!
//! Expiry here is wall-clock time (the replicas' clocks, which may differ by a little); a slot whose record
//! was lost (the store restarted, say) only gives its principal room sooner.

use super::store::MAX_ATTEMPTS;
use crate::auth::Principal;
use crate::error::Error;
use crate::store::Store;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A principal's tasks, as the store keeps them.
#[derive(Default, Serialize, Deserialize)]
struct Held {
    tasks: Vec<Slot>,
}

#[derive(Serialize, Deserialize)]
struct Slot {
    id: String,
    /// When the task expires, in milliseconds since the Unix epoch.
    until: u64,
}

impl Held {
    /// What `bytes` hold; a record that does not read (another build's) holds nothing.
    fn read(bytes: Option<&[u8]>) -> Self {
        bytes.and_then(|b| serde_json::from_slice(b).ok()).unwrap_or_default()
    }

    /// How long the record must live: until its latest slot expires.
    fn lifetime(&self, now: u64) -> Duration {
        let latest = self.tasks.iter().map(|s| s.until).max().unwrap_or(now);
        Duration::from_millis(latest.saturating_sub(now).max(1))
    }
}

/// Takes a slot for task `id` of `owner`'s, expiring with the task after `ttl`; refused when `owner` holds
/// `limit` live tasks already, on whichever replicas.
pub(super) async fn take(
    store: &dyn Store,
    owner: &Principal,
    id: &str,
    limit: usize,
    ttl: Duration,
) -> Result<(), Error> {
    let key = key(owner);
    for _ in 0..MAX_ATTEMPTS {
        let now = unix_ms();
        let old = store.get(&key).await.map_err(|e| e.to_rpc())?;
        let mut held = Held::read(old.as_deref());
        held.tasks.retain(|slot| slot.until > now);
        if held.tasks.len() >= limit {
            return Err(full(limit));
        }
        held.tasks.push(Slot { id: id.to_owned(), until: now.saturating_add(millis(ttl)) });
        let new = serde_json::to_vec(&held)?;
        let lifetime = held.lifetime(now);
        let taken = match &old {
            None => store.insert_if_absent(&key, &new, lifetime).await,
            Some(old) => store.replace_if(&key, old, &new).await,
        };
        if !taken.map_err(|e| e.to_rpc())? {
            continue; // Another creation (or a give-back) went first: count again.
        }
        if old.is_some() {
            // `replace_if` kept the record's expiry, which the new slot may outlive. Best effort: a record
            // that expires early only gives its principal room sooner.
            if let Err(e) = store.touch(&key, lifetime).await {
                tracing::debug!("task {id}: its principal's slots keep their old expiry ({e})");
            }
        }
        return Ok(());
    }
    Err(Error::internal("a caller's tasks change too often to make another now; try again"))
}

/// Gives back the slot [`take`] took for task `id`, which was not made after all. Best effort: a slot not
/// given back is held until the task would have expired.
pub(super) async fn give_back(store: &dyn Store, owner: &Principal, id: &str) {
    let key = key(owner);
    for _ in 0..MAX_ATTEMPTS {
        let old = match store.get(&key).await {
            Ok(Some(old)) => old,
            Ok(None) => return,
            Err(e) => {
                tracing::debug!("task {id}: its slot is kept until it expires ({e})");
                return;
            }
        };
        let mut held = Held::read(Some(&old));
        let before = held.tasks.len();
        held.tasks.retain(|slot| slot.id != id);
        if held.tasks.len() == before {
            return;
        }
        let Ok(new) = serde_json::to_vec(&held) else { return };
        match store.replace_if(&key, &old, &new).await {
            Ok(true) => return,
            Ok(false) => {}
            Err(e) => {
                tracing::debug!("task {id}: its slot is kept until it expires ({e})");
                return;
            }
        }
    }
}

/// The refusal when a principal holds `limit` tasks.
pub(super) fn full(limit: usize) -> Error {
    Error::internal(format!(
        "a caller keeps at most {limit} tasks at once (FastMcp::max_tasks_per_principal) and has no room for \
         another until one of its tasks expires; try again later"
    ))
}

/// The principal's record: named by a digest, so keys stay short and name nobody.
fn key(owner: &Principal) -> String {
    format!("tasks-of:{}", crate::ids::hex(&Sha256::digest(owner.as_str().as_bytes())))
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn unix_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, millis)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::AccessToken;
    use crate::store::MemoryStore;

    fn principal(subject: &str) -> Principal {
        AccessToken::new().issuer("https://as").subject(subject).principal()
    }

    #[tokio::test]
    async fn slots_are_counted_per_principal_and_free_again_when_their_tasks_expire() {
        let store = MemoryStore::new();
        let (alice, bob) = (principal("alice"), principal("bob"));
        let short = Duration::from_millis(50);
        take(&store, &alice, "1", 2, short).await.unwrap();
        take(&store, &alice, "2", 2, Duration::from_secs(60)).await.unwrap();
        let e = take(&store, &alice, "3", 2, short).await.expect_err("alice holds two");
        assert!(e.to_string().contains("at most 2"), "{e}");
        take(&store, &bob, "4", 2, short).await.unwrap();
        tokio::time::sleep(Duration::from_millis(80)).await;
        // The short one expired; the record lives on with the long one.
        take(&store, &alice, "5", 2, short).await.unwrap();
        take(&store, &alice, "6", 2, short).await.expect_err("alice holds two again");
        // A slot given back is free at once.
        give_back(&store, &alice, "5").await;
        take(&store, &alice, "7", 2, short).await.unwrap();
    }
}

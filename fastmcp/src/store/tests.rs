//! The in-memory store keeps the contract every backend keeps (the Redis backend is held to the same in
//! `tests/tests/redis.rs`, against a real server).

use super::*;
use std::time::Duration;

#[tokio::test]
async fn insert_if_absent_admits_once_until_the_ttl_ends() {
    let store = MemoryStore::new();
    assert!(store.insert_if_absent("k", b"1", Duration::from_millis(40)).await.unwrap());
    assert!(!store.insert_if_absent("k", b"2", Duration::from_secs(60)).await.unwrap());
    assert_eq!(store.get("k").await.unwrap().as_deref(), Some(&b"1"[..]));
    tokio::time::sleep(Duration::from_millis(60)).await;
    assert_eq!(store.get("k").await.unwrap(), None, "expired");
    assert!(store.insert_if_absent("k", b"3", Duration::from_secs(60)).await.unwrap(), "free again once expired");
    store.delete("k").await.unwrap();
    assert_eq!(store.get("k").await.unwrap(), None);
}

#[tokio::test]
async fn touch_extends_a_live_entry_and_revives_nothing() {
    let store = MemoryStore::new();
    store.put("k", b"1", Duration::from_millis(40)).await.unwrap();
    assert!(store.touch("k", Duration::from_secs(60)).await.unwrap());
    tokio::time::sleep(Duration::from_millis(60)).await;
    assert_eq!(store.get("k").await.unwrap().as_deref(), Some(&b"1"[..]), "the touch outlived the first ttl");
    store.put("short", b"", Duration::from_millis(1)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert!(!store.touch("short", Duration::from_secs(60)).await.unwrap(), "expired stays expired");
    assert!(!store.touch("never", Duration::from_secs(60)).await.unwrap());
}

#[tokio::test]
async fn expired_entries_are_swept_as_the_map_grows() {
    let store = MemoryStore::new();
    for i in 0..3 * FIRST_SWEEP_FOR_TESTS {
        store.put(&i.to_string(), b"", Duration::from_nanos(1)).await.unwrap();
    }
    let len = store.map().entries.len();
    assert!(len <= 2 * FIRST_SWEEP_FOR_TESTS, "expired entries were swept: {len} left");
}

const FIRST_SWEEP_FOR_TESTS: usize = 1024;

#[tokio::test]
async fn subscribers_hear_what_is_published_after_they_subscribed() {
    let store = MemoryStore::new();
    store.publish("c", b"before").await.unwrap();
    let mut a = store.subscribe("c");
    let mut other = store.subscribe("d");
    assert_eq!(a.next().await, Some(Event::Ready));
    assert_eq!(other.next().await, Some(Event::Ready));
    store.publish("c", b"after").await.unwrap();
    assert_eq!(a.next().await, Some(Event::Message(b"after".to_vec())));
    drop(other);
    store.publish("d", b"nobody").await.unwrap();
}

#[tokio::test]
async fn a_subscriber_that_falls_behind_is_told_it_missed_messages() {
    let store = MemoryStore::new();
    let mut sub = store.subscribe("c");
    for i in 0..SUBSCRIPTION_BACKLOG + 10 {
        store.publish("c", i.to_string().as_bytes()).await.unwrap();
    }
    let mut seen = Vec::new();
    while let Ok(Some(event)) = tokio::time::timeout(Duration::from_millis(50), sub.next()).await {
        seen.push(event);
        if seen.len() == SUBSCRIPTION_BACKLOG {
            // Room again: the next publish is preceded by the gap.
            store.publish("c", b"late").await.unwrap();
        }
    }
    assert!(seen.contains(&Event::Gap), "a gap was reported");
    assert_eq!(seen.last(), Some(&Event::Message(b"late".to_vec())));
}

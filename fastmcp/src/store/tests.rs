//! The in-memory store keeps the contract every backend keeps (the Redis backend is held to the same in
//! `tests/tests/redis.rs`, against a real server).

use super::*;
use std::sync::atomic::{AtomicUsize, Ordering};
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

/// Keys held inline (up to 46 bytes) and on the heap are the same to every operation, at the boundary too.
#[tokio::test]
async fn short_and_long_keys_are_kept_alike() {
    let store = MemoryStore::new();
    let ttl = Duration::from_secs(60);
    let keys =
        ["", "consumed:a5b48796e1f0c3d22d3c0f1e69784b5a", &"k".repeat(46), &"k".repeat(47), "clé-ü", &"x".repeat(300)];
    for (i, key) in keys.iter().enumerate() {
        assert!(store.insert_if_absent(key, &[i as u8], ttl).await.unwrap(), "{key:?}");
    }
    for (i, key) in keys.iter().enumerate() {
        assert!(!store.insert_if_absent(key, b"again", ttl).await.unwrap(), "{key:?} is held");
        assert_eq!(store.get(key).await.unwrap(), Some(vec![i as u8]), "{key:?}");
        assert!(store.replace_if(key, &[i as u8], b"new").await.unwrap(), "{key:?}");
        assert!(store.touch(key, ttl).await.unwrap(), "{key:?}");
    }
    assert_eq!(store.get(&"k".repeat(45)).await.unwrap(), None, "a prefix is another key");
    for key in keys {
        store.delete(key).await.unwrap();
        assert_eq!(store.get(key).await.unwrap(), None, "{key:?}");
    }
    assert_eq!(store.held(), 0);
}

/// What `MemoryStore::DEFAULT_MAX_ENTRIES` says of its memory rests on these sizes (an `Instant` is 16
/// bytes on 64-bit Linux, 8 on some other systems).
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
#[test]
fn a_slot_is_80_bytes() {
    assert_eq!(std::mem::size_of::<memory::Key>(), 48);
    assert_eq!(std::mem::size_of::<(memory::Key, (Box<[u8]>, tokio::time::Instant))>(), 80);
}

#[tokio::test]
async fn expired_entries_are_swept_as_the_map_grows() {
    let store = MemoryStore::new();
    let first_sweep = memory::FIRST_SWEEP * memory::SHARDS;
    for i in 0..3 * first_sweep {
        store.put(&i.to_string(), b"", Duration::from_nanos(1)).await.unwrap();
    }
    let held = store.held();
    assert!(held <= 2 * first_sweep, "expired entries were swept: {held} left");
    assert_eq!(store.shard_lens().iter().sum::<usize>(), held, "the count the bound reads is what the shards hold");
}

/// Keys spread over the shards, and the count the bound reads stays exactly what they hold, with many
/// writers racing at the bound: of distinct new keys, exactly `max` are admitted.
#[test]
fn the_bound_is_exact_across_shards_and_threads() {
    let max = 1000;
    let store = MemoryStore::with_max_entries(max);
    let admitted = AtomicUsize::new(0);
    std::thread::scope(|threads| {
        for t in 0..8 {
            let (store, admitted) = (&store, &admitted);
            threads.spawn(move || {
                for i in 0..500 {
                    let key = format!("{t}-{i}");
                    let written = store.put(&key, b"", Duration::from_secs(60));
                    if futures_util::FutureExt::now_or_never(written).expect("the memory store is ready").is_ok() {
                        admitted.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    assert_eq!(admitted.load(Ordering::Relaxed), max);
    assert_eq!(store.held(), max);
    let lens = store.shard_lens();
    assert_eq!(lens.iter().sum::<usize>(), max);
    let fullest = lens.iter().max().copied().unwrap_or_default();
    assert!(fullest < 4 * max / memory::SHARDS, "keys spread over the shards: {lens:?}");
}

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

#[tokio::test(start_paused = true)]
async fn a_full_store_refuses_new_keys_until_some_expire_and_evicts_nothing() {
    let store = MemoryStore::with_max_entries(2);
    assert!(store.insert_if_absent("a", b"1", Duration::from_secs(10)).await.unwrap());
    store.put("b", b"1", Duration::from_secs(60)).await.unwrap();
    let refused = store.insert_if_absent("c", b"1", Duration::from_secs(60)).await.unwrap_err();
    assert!(refused.0.contains("limit of 2 live entries (MemoryStore::with_max_entries)"), "{refused}");
    assert!(store.put("c", b"1", Duration::from_secs(60)).await.is_err(), "put is bounded too");
    // What it holds stays, and stays writable: a consumed round is never forgotten to make room.
    assert!(!store.insert_if_absent("a", b"2", Duration::from_secs(60)).await.unwrap());
    store.put("b", b"2", Duration::from_secs(60)).await.unwrap();
    assert_eq!(store.get("b").await.unwrap().as_deref(), Some(&b"2"[..]));
    tokio::time::advance(Duration::from_secs(11)).await;
    assert!(store.insert_if_absent("c", b"1", Duration::from_secs(60)).await.unwrap(), "room once `a` expired");
    assert_eq!(store.get("a").await.unwrap(), None);
}

#[tokio::test(start_paused = true)]
async fn a_full_store_looks_for_room_at_most_once_a_second() {
    let store = MemoryStore::with_max_entries(1);
    store.put("a", b"", Duration::from_millis(500)).await.unwrap();
    assert!(store.put("b", b"", Duration::from_secs(60)).await.is_err(), "full: swept, nothing expired");
    tokio::time::advance(Duration::from_millis(600)).await;
    // `a` has expired, but the last sweep was 0.6 s ago: refused without another.
    assert!(store.put("b", b"", Duration::from_secs(60)).await.is_err());
    tokio::time::advance(Duration::from_millis(500)).await;
    store.put("b", b"", Duration::from_secs(60)).await.unwrap();
    assert_eq!(store.held(), 1, "`a` was swept to make room");
}

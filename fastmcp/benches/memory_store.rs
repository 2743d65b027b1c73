//! The in-memory store's writes as its map grows to a million consumed-round records (one a one-time flow
//! completes): the mean write, and the slowest, which is how long one write held its shard's lock (a
//! table's rehash, a sweep) while other writers to that shard waited. Once with the default 10-minute TTL
//! (nothing expires: every sweep keeps all it walks), once with 1 ms (sweeps find expired entries).
//!
//! `cargo bench -p fast-mcp --bench memory_store [-- WRITES]` (default 1 000 000; a few seconds).

use fastmcp::store::{MemoryStore, Store};
use futures_util::FutureExt as _;
use std::time::{Duration, Instant};

fn main() {
    // `cargo bench` passes `--bench`; the first argument that is a number is the count.
    let writes = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(1_000_000usize);
    for ttl in [Duration::from_secs(600), Duration::from_millis(1)] {
        let store = MemoryStore::new();
        let (mut slowest, mut slowest_at) = (Duration::ZERO, 0);
        let started = Instant::now();
        for i in 0..writes {
            // Keys as a consumed round's: `consumed:` and 32 hex digits of a MAC, spread as a MAC's are.
            let key = format!("consumed:{:032x}", (i as u128).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835));
            let one = Instant::now();
            let written = store.insert_if_absent(&key, b"", ttl).now_or_never().expect("the memory store is ready");
            let took = one.elapsed();
            assert_eq!(written.ok(), Some(true), "write {i} was refused");
            if took > slowest {
                (slowest, slowest_at) = (took, i);
            }
        }
        let mean = started.elapsed().as_nanos() / writes.max(1) as u128;
        println!("ttl {ttl:?}: {writes} writes, mean {mean} ns, slowest {slowest:?} (write {slowest_at})");
    }
}

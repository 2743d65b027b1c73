//! One MRTR round's request-state cost: seal the carried locals, open the token the client sent back, and
//! restore the locals into their types. The floor beside it is what any round pays anyway: serde_json
//! `to_string` + `from_str` of the same locals.
//!
//! `cargo bench -p fast-mcp --bench request_state [--features sealed-state] -- --warm-up-time 1 --measurement-time 3`
//!
//! For an instruction profile, `REQUEST_STATE_PROFILE=<signed|sealed|floor>:<bytes>:<rounds>` runs just that
//! many rounds of one form outside criterion and prints their wall time per round (for example under
//! `valgrind --tool=callgrind`, with `--toggle-collect='*request_state::round*'` or `'*request_state::floor*'`).
//!
//! For the round against the floor on a host whose speed drifts, `REQUEST_STATE_RATIO=<bytes>[:<pairs>]`
//! times them in alternating batches instead (see [`ratio`]): criterion measures one and then the other,
//! seconds apart, and on a shared VM the floor alone was seen to move from 4.1 to 6.8 µs within the hour.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use fastmcp::state::{ArgumentsDigest, Binding, Method, RequestStateConfig, StateCodec, StateKeys};
use serde::{Deserialize, Serialize};
use std::hint::black_box;

/// Locals of the kind a flow carries across `.ask()`: a plan with a few scalars and a list of entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Plan {
    service: String,
    replicas: u32,
    dry_run: bool,
    hosts: Vec<Host>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Host {
    name: String,
    zone: String,
    weight: f64,
}

type Carried = (Plan, u64);

/// Locals whose JSON text is close to `target` bytes.
fn locals(target: usize) -> Carried {
    let mut plan = Plan { service: "billing-api".into(), replicas: 3, dry_run: false, hosts: Vec::new() };
    let mut i = 0;
    loop {
        let host = Host { name: format!("node-{i:04}.internal"), zone: format!("eu-west-{}", i % 3), weight: 0.25 };
        let next = serde_json::to_vec(&host).unwrap().len() + 1;
        if serde_json::to_vec(&(&plan, 0u64)).unwrap().len() + next > target {
            break;
        }
        plan.hosts.push(host);
        i += 1;
    }
    // Pad the service name to land on the target.
    let short = target.saturating_sub(serde_json::to_vec(&(&plan, 1_750_000_000_000u64)).unwrap().len());
    plan.service.push_str(&"x".repeat(short));
    (plan, 1_750_000_000_000)
}

fn codec(sealed: bool) -> StateCodec {
    let keys = StateKeys::from_keys([[0x5au8; 32], [0xa5u8; 32]]).unwrap();
    let config = RequestStateConfig::new(keys);
    #[cfg(feature = "sealed-state")]
    let config = config.sealed(sealed);
    #[cfg(not(feature = "sealed-state"))]
    assert!(!sealed, "sealed needs --features sealed-state");
    StateCodec::new(config).unwrap()
}

#[inline(never)]
fn round(codec: &StateCodec, binding: &Binding<'_>, locals: &Carried) -> Carried {
    let token = codec.seal(binding, 1, locals).unwrap();
    let resumed = codec.open(black_box(&token), binding).unwrap();
    resumed.restore().unwrap()
}

#[inline(never)]
fn floor(locals: &Carried) -> Carried {
    let text = serde_json::to_string(locals).unwrap();
    serde_json::from_str(black_box(&text)).unwrap()
}

fn args() -> ArgumentsDigest {
    ArgumentsDigest::of_raw_json(r#"{"service":"billing-api","replicas":3}"#).unwrap()
}

fn binding(args: ArgumentsDigest) -> Binding<'static> {
    Binding::new(Method::ToolsCall, "deploy", args, Some("alice"), 0x1234_5678_9abc_def0)
}

fn bench(c: &mut Criterion) {
    let binding = binding(args());
    let forms = [
        ("signed", codec(false)),
        #[cfg(feature = "sealed-state")]
        ("sealed", codec(true)),
    ];

    let mut group = c.benchmark_group("request_state_round");
    for target in [100, 1024, 16 * 1024] {
        let locals = locals(target);
        let json_len = serde_json::to_vec(&locals).unwrap().len();
        assert_eq!(round(&forms[0].1, &binding, &locals), locals);
        for (name, codec) in &forms {
            let token = codec.seal(&binding, 1, &locals).unwrap();
            eprintln!("{name}: locals {json_len} B of JSON -> token {} B", token.len());
        }
        group.throughput(Throughput::Bytes(json_len as u64));
        group.bench_with_input(BenchmarkId::new("floor_serde_json", json_len), &locals, |b, l| {
            b.iter(|| floor(black_box(l)))
        });
        for (name, codec) in &forms {
            group.bench_with_input(BenchmarkId::new(*name, json_len), &locals, |b, l| {
                b.iter(|| round(codec, &binding, black_box(l)))
            });
        }
    }
    group.finish();
}

// Named apart from `round` and `floor`: callgrind's `--toggle-collect='*request_state::round*'` would also
// match a `round_…` caller, and a nested match toggles collection off again.
/// `n` floors in a row.
fn repeat_floor(locals: &Carried, n: usize) {
    (0..n).for_each(|_| drop(black_box(floor(black_box(locals)))));
}

/// `n` signed (or sealed) rounds in a row.
fn repeat_round(codec: &StateCodec, binding: &Binding<'_>, locals: &Carried, n: usize) {
    (0..n).for_each(|_| drop(black_box(round(codec, binding, black_box(locals)))));
}

/// `REQUEST_STATE_PROFILE=<form>:<bytes>:<rounds>`: that many rounds of one form, nothing else.
fn profile(spec: &str) {
    let mut parts = spec.split(':');
    let (Some(form), Some(bytes), Some(rounds), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        panic!("REQUEST_STATE_PROFILE={spec:?}: expected <signed|sealed|floor>:<bytes>:<rounds>");
    };
    let bytes: usize = bytes.parse().expect("bytes");
    let rounds: usize = rounds.parse().expect("rounds");
    let locals = locals(bytes);
    let binding = binding(args());
    let codec = codec(form == "sealed");
    let started = std::time::Instant::now();
    match form {
        "floor" => repeat_floor(&locals, rounds),
        "signed" | "sealed" => repeat_round(&codec, &binding, &locals, rounds),
        _ => panic!("REQUEST_STATE_PROFILE: unknown form {form:?}"),
    }
    // Wall time of the rounds alone (no start-up), for A/B runs on a busy machine: take the minimum of many.
    let ns = started.elapsed().as_nanos() / rounds.max(1) as u128;
    eprintln!("{form} {bytes} B: {ns} ns/round");
}

criterion_group!(benches, bench);

/// `REQUEST_STATE_RATIO=<bytes>[:<pairs>]` (101 pairs by default): the signed round against the floor, in
/// pairs of batches of about 20 ms each, the order swapped from one pair to the next, so that a drift of the
/// host's speed moves both sides of a pair alike. Prints each pair's times and ratio, then the median ratio
/// with the lowest and highest (and the medians of the two times).
fn ratio(spec: &str) {
    let (bytes, pairs) = spec.split_once(':').unwrap_or((spec, "101"));
    let bytes: usize = bytes.parse().expect("REQUEST_STATE_RATIO=<bytes>[:<pairs>]");
    let pairs: usize = pairs.parse::<usize>().expect("REQUEST_STATE_RATIO=<bytes>[:<pairs>]").max(1);
    let locals = locals(bytes);
    let binding = binding(args());
    let codec = codec(false);
    let floor_batch = |n: usize| repeat_floor(&locals, n);
    let round_batch = |n: usize| repeat_round(&codec, &binding, &locals, n);
    let per_round = |batch: &dyn Fn(usize), n: usize| {
        let started = std::time::Instant::now();
        batch(n);
        started.elapsed().as_nanos() as f64 / n as f64
    };
    // Warm both up, and size a batch at about 20 ms of the floor: the host's drift was seen within a second.
    round_batch(10_000);
    let n = ((0.02e9 / per_round(&floor_batch, 20_000)) as usize).max(1);
    let (mut floors, mut rounds, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for pair in 0..pairs {
        let (f, r) = if pair % 2 == 0 {
            let f = per_round(&floor_batch, n);
            (f, per_round(&round_batch, n))
        } else {
            let r = per_round(&round_batch, n);
            (per_round(&floor_batch, n), r)
        };
        eprintln!("pair {pair:3}: floor {f:6.0} ns, signed {r:6.0} ns, {:.3}x", r / f);
        floors.push(f);
        rounds.push(r);
        ratios.push(r / f);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (lo, hi) = ratios.iter().fold((f64::MAX, 0f64), |(lo, hi), r| (lo.min(*r), hi.max(*r)));
    eprintln!(
        "signed ÷ floor at {bytes} B: {:.3}x (pairs {lo:.3}–{hi:.3}x); floor {:.0} ns, signed {:.0} ns (medians of {pairs} pairs of {n} rounds)",
        median(ratios),
        median(floors),
        median(rounds)
    );
}

fn main() {
    if let Ok(spec) = std::env::var("REQUEST_STATE_PROFILE") {
        profile(&spec);
    } else if let Ok(spec) = std::env::var("REQUEST_STATE_RATIO") {
        ratio(&spec);
    } else {
        benches();
        Criterion::default().configure_from_args().final_summary();
    }
}

//! Measuring one run: the window, what each client saw in it, the server's CPU over it (from
//! `/proc/<pid>/stat`) and its memory (`/proc/<pid>/status`), and the result line.
//!
//! A run is a warm-up, then the measured window. A request counts toward req/s (and CPU per request) when
//! its answer arrived inside the window; its latency counts when it was also sent inside it. An op (an MRTR
//! flow) likewise, from its first request to its last answer. Errors count whenever they happen, warm-up
//! included: a wrong answer is wrong whenever it comes.

use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Linux reports `utime`/`stime` in clock ticks of `USER_HZ`, which the ABI fixes at 100 a second.
const TICK_US: u64 = 10_000;

#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub measure_from: Instant,
    pub until: Instant,
}

impl Window {
    pub fn new(warmup: Duration, duration: Duration) -> Self {
        let measure_from = Instant::now() + warmup;
        Self { measure_from, until: measure_from + duration }
    }

    pub fn contains(&self, at: Instant) -> bool {
        at >= self.measure_from && at <= self.until
    }

    pub fn seconds(&self) -> f64 {
        (self.until - self.measure_from).as_secs_f64()
    }
}

/// What one client (a connection, or the stdio pipe) saw.
#[derive(Default)]
pub struct Tally {
    /// Requests answered (correctly) inside the window.
    pub answered: u64,
    /// Latencies of those also sent inside it, µs.
    pub latencies_us: Vec<u32>,
    /// Ops of more than one request (MRTR flows) completed inside the window, and the latencies of those
    /// begun inside it.
    pub ops: u64,
    pub op_latencies_us: Vec<u32>,
    pub errors: u64,
    pub first_error: Option<String>,
}

fn micros(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}

impl Tally {
    /// A request sent at `sent` was answered correctly at `done`.
    pub fn answered(&mut self, window: &Window, sent: Instant, done: Instant) {
        if window.contains(done) {
            self.answered += 1;
            if sent >= window.measure_from {
                self.latencies_us.push(micros(done - sent));
            }
        }
    }

    /// An op of several requests begun at `started` finished at `done`.
    pub fn op_done(&mut self, window: &Window, started: Instant, done: Instant) {
        if window.contains(done) {
            self.ops += 1;
            if started >= window.measure_from {
                self.op_latencies_us.push(micros(done - started));
            }
        }
    }

    pub fn error(&mut self, why: String) {
        self.errors += 1;
        self.first_error.get_or_insert(why);
    }

    pub fn merge(&mut self, other: Tally) {
        self.answered += other.answered;
        self.latencies_us.extend(other.latencies_us);
        self.ops += other.ops;
        self.op_latencies_us.extend(other.op_latencies_us);
        self.errors += other.errors;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }
}

/// The server's CPU time (user + system, every thread) at the window's start and end, read by a thread of
/// its own so the load's busy runtime does not delay the readings.
pub struct CpuSampler(Option<JoinHandle<Option<u64>>>);

impl CpuSampler {
    pub fn start(pid: Option<u32>, window: Window) -> Self {
        Self(pid.map(|pid| {
            std::thread::spawn(move || {
                sleep_until(window.measure_from);
                let start = cpu_ticks(pid)?;
                sleep_until(window.until);
                Some(cpu_ticks(pid)?.saturating_sub(start))
            })
        }))
    }

    /// The server's CPU time over the window, µs (None without a pid or when /proc could not be read).
    pub fn finish(self) -> Option<u64> {
        self.0.and_then(|h| h.join().ok().flatten()).map(|ticks| ticks * TICK_US)
    }
}

fn sleep_until(at: Instant) {
    let now = Instant::now();
    if at > now {
        std::thread::sleep(at - now);
    }
}

/// `utime + stime` of process `pid`, in clock ticks.
pub fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, field 2, is in parentheses and may hold spaces: count fields after the last ')'.
    let after = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 (utime, stime); `after` starts at field 3.
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

/// A `kB` line of `/proc/<pid>/status`, such as `VmHWM` (peak RSS) or `VmRSS`.
pub fn status_kb(pid: u32, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(':')?.trim().strip_suffix("kB")?.trim().parse().ok())
}

/// The `p`-quantile of sorted values (nearest rank).
fn quantile(sorted: &[u32], p: f64) -> u32 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The result line: the tags, then `rps p50_us p90_us p99_us ok errors`, for multi-request ops
/// `flows_s flows flow_p50_us flow_p99_us`, with a pid `cpu_us` (per request; `cpu_us_flow` per flow),
/// `vmhwm_kb` when known, and `first_error` (spaces made `_`) when there were errors.
pub fn line(
    tags: &[String],
    window: &Window,
    mut tally: Tally,
    multi: bool,
    cpu_us: Option<u64>,
    vmhwm_kb: Option<u64>,
) -> String {
    let secs = window.seconds();
    tally.latencies_us.sort_unstable();
    tally.op_latencies_us.sort_unstable();
    let mut out = tags.to_vec();
    let l = &tally.latencies_us;
    out.push(format!("rps={:.0}", tally.answered as f64 / secs));
    out.push(format!("p50_us={} p90_us={} p99_us={}", quantile(l, 0.5), quantile(l, 0.9), quantile(l, 0.99)));
    out.push(format!("ok={} errors={}", tally.answered, tally.errors));
    if multi {
        let f = &tally.op_latencies_us;
        out.push(format!("flows_s={:.0} flows={}", tally.ops as f64 / secs, tally.ops));
        out.push(format!("flow_p50_us={} flow_p99_us={}", quantile(f, 0.5), quantile(f, 0.99)));
    }
    if let Some(cpu) = cpu_us {
        if tally.answered > 0 {
            out.push(format!("cpu_us={:.1}", cpu as f64 / tally.answered as f64));
        }
        if multi && tally.ops > 0 {
            out.push(format!("cpu_us_flow={:.1}", cpu as f64 / tally.ops as f64));
        }
        out.push(format!("cpu_total_us={cpu}"));
    }
    if let Some(kb) = vmhwm_kb {
        out.push(format!("vmhwm_kb={kb}"));
    }
    if let Some(why) = tally.first_error {
        out.push(format!("first_error={}", why.split_whitespace().collect::<Vec<_>>().join("_")));
    }
    out.join(" ")
}

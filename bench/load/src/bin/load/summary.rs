//! `load summarize` and `load check`: the tables (and the verdict) from the raw result lines `run.sh`
//! collects, one `key=value` line per run, per peak-RSS reading and per idle-session measurement.
//!
//! Lines are grouped into cells by `transport`, `scenario`, `level` (connections over HTTP, requests in
//! flight over stdio) and `offered` (the open-loop runs' fraction, see `run.sh`'s `RATES`; none for the
//! closed loops), and within a cell by server (`impl`), in the order they first appear. Each server's
//! figure in a cell is the median over its rounds (errors are summed); peak RSS is the cell's `kind=rss`
//! line (HTTP: one server process per cell) or the largest `vmhwm_kb` of its runs (stdio: one per run).
//!
//! A line labelled `beside=SCENARIO` is not a cell of its own: it is a run that `run.sh` made just before
//! each round of SCENARIO's cell, on the same server, for a ratio to pair round by round (the MRTR flow
//! against plain calls). Only [`flow_cost`] reads those.

use std::collections::BTreeMap;

type Fields<'a> = BTreeMap<&'a str, &'a str>;

/// Key/value fields of one line.
fn fields(line: &str) -> Fields<'_> {
    line.split_whitespace().filter_map(|f| f.split_once('=')).collect()
}

fn num(f: &Fields<'_>, key: &str) -> Option<f64> {
    f.get(key)?.parse().ok()
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
}

#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Cell {
    transport: String,
    scenario: String,
    level: u64,
    /// An open-loop cell's offered load, as a fraction of a closed-loop rate (`run.sh` says which).
    offered: Option<String>,
}

/// One server's figures in one cell.
#[derive(Default, Clone)]
struct Stats {
    rounds: usize,
    rps: Option<f64>,
    rps_lo: f64,
    rps_hi: f64,
    /// Each round by its `round` label: the alternating runs a ratio pairs up.
    by_round: BTreeMap<String, Round>,
    p50: Option<f64>,
    p99: Option<f64>,
    cpu: Option<f64>,
    rss_kb: Option<f64>,
    errors: f64,
    flows_s: Option<f64>,
    flow_p50: Option<f64>,
    flow_p99: Option<f64>,
    cpu_flow: Option<f64>,
}

/// One round's figures that a ratio pairs up: of two servers, or of a cell and the runs beside it.
#[derive(Clone)]
struct Round {
    rps: Option<f64>,
    p99: Option<f64>,
    cpu: Option<f64>,
    flows_s: Option<f64>,
    cpu_flow: Option<f64>,
}

impl Round {
    fn of(f: &Fields<'_>) -> Self {
        Round {
            rps: num(f, "rps"),
            p99: num(f, "p99_us"),
            cpu: num(f, "cpu_us"),
            flows_s: num(f, "flows_s"),
            cpu_flow: num(f, "cpu_us_flow"),
        }
    }
}

/// An idle-session measurement.
struct Sessions {
    server: String,
    count: f64,
    opened: f64,
    errors: f64,
    before_kb: Option<f64>,
    after_kb: Option<f64>,
    bytes: Option<f64>,
}

/// Everything in a raw file that passed the filters.
struct Data {
    cells: Vec<Cell>,
    servers: BTreeMap<Cell, Vec<String>>,
    stats: BTreeMap<(Cell, String), Stats>,
    sessions: Vec<Sessions>,
    /// The `beside=` runs, by the cell they were made beside and the server, then by round.
    beside: BTreeMap<(Cell, String), BTreeMap<String, Round>>,
    /// Every server named, in order of appearance.
    order: Vec<String>,
}

impl Data {
    /// Each server's figures in `cell`, in the order the servers appeared.
    fn in_cell(&self, cell: &Cell) -> Vec<(&String, &Stats)> {
        self.servers[cell].iter().filter_map(|s| Some((s, self.stats.get(&(cell.clone(), s.clone()))?))).collect()
    }

    /// A closed-loop cell's figures.
    fn get(&self, transport: &str, scenario: &str, level: u64, server: &str) -> Option<&Stats> {
        self.get_at(transport, scenario, level, None, server)
    }

    fn get_at(
        &self,
        transport: &str,
        scenario: &str,
        level: u64,
        offered: Option<&str>,
        server: &str,
    ) -> Option<&Stats> {
        let offered = offered.map(str::to_owned);
        let cell = Cell { transport: transport.into(), scenario: scenario.into(), level, offered };
        self.stats.get(&(cell, server.to_owned()))
    }
}

/// Keeps a line when every filter key it has matches (a key it lacks does not exclude it: `tcp=quickack`
/// keeps the stdio runs and the session lines, which have no TCP setting).
fn load(path: &str, filters: &[String]) -> Data {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("load: read {path}: {e}");
        std::process::exit(2)
    });
    let filters: Vec<(&str, &str)> = filters.iter().filter_map(|f| f.split_once('=')).collect();
    let mut data = Data {
        cells: Vec::new(),
        servers: BTreeMap::new(),
        stats: BTreeMap::new(),
        sessions: Vec::new(),
        beside: BTreeMap::new(),
        order: Vec::new(),
    };
    let mut runs: BTreeMap<(Cell, String), Vec<Fields<'_>>> = BTreeMap::new();
    let mut rss: BTreeMap<(Cell, String), f64> = BTreeMap::new();
    for line in text.lines() {
        let f = fields(line);
        if !filters.iter().all(|(k, v)| f.get(k).is_none_or(|have| have == v)) {
            continue;
        }
        let Some(server) = f.get("impl").map(|s| s.to_string()) else { continue };
        if !data.order.contains(&server) {
            data.order.push(server.clone());
        }
        if f.get("kind") == Some(&"sessions") {
            data.sessions.push(Sessions {
                server,
                count: num(&f, "count").unwrap_or(0.0),
                opened: num(&f, "opened").unwrap_or(0.0),
                errors: num(&f, "errors").unwrap_or(0.0),
                before_kb: num(&f, "rss_before_kb"),
                after_kb: num(&f, "rss_after_kb"),
                bytes: num(&f, "bytes_per_session"),
            });
            continue;
        }
        let (Some(transport), Some(scenario), Some(level)) =
            (f.get("transport"), f.get("scenario"), f.get("level").and_then(|l| l.parse().ok()))
        else {
            continue;
        };
        let offered = f.get("offered").map(|o| o.to_string());
        if let Some(&of) = f.get("beside") {
            let cell = Cell { transport: transport.to_string(), scenario: of.to_string(), level, offered };
            if let Some(round) = f.get("round") {
                data.beside.entry((cell, server)).or_default().insert(round.to_string(), Round::of(&f));
            }
            continue;
        }
        let cell = Cell { transport: transport.to_string(), scenario: scenario.to_string(), level, offered };
        if !data.cells.contains(&cell) {
            data.cells.push(cell.clone());
        }
        let listed = data.servers.entry(cell.clone()).or_default();
        if !listed.contains(&server) {
            listed.push(server.clone());
        }
        if f.get("kind") == Some(&"rss") {
            if let Some(kb) = num(&f, "vmhwm_kb") {
                rss.insert((cell, server), kb);
            }
        } else {
            runs.entry((cell, server)).or_default().push(f);
        }
    }
    for (slot, rounds) in runs {
        let col = |key: &str| median(rounds.iter().filter_map(|f| num(f, key)).collect());
        let rps: Vec<f64> = rounds.iter().filter_map(|f| num(f, "rps")).collect();
        let peak = rounds
            .iter()
            .filter_map(|f| num(f, "vmhwm_kb"))
            .fold(None, |m: Option<f64>, kb| Some(m.map_or(kb, |m| m.max(kb))));
        let stats = Stats {
            rounds: rounds.len(),
            rps: median(rps.clone()),
            rps_lo: rps.iter().copied().fold(f64::INFINITY, f64::min),
            rps_hi: rps.iter().copied().fold(0.0, f64::max),
            by_round: rounds.iter().filter_map(|f| Some((f.get("round")?.to_string(), Round::of(f)))).collect(),
            p50: col("p50_us"),
            p99: col("p99_us"),
            cpu: col("cpu_us"),
            rss_kb: rss.get(&slot).copied().or(peak),
            errors: rounds.iter().filter_map(|f| num(f, "errors")).sum(),
            flows_s: col("flows_s"),
            flow_p50: col("flow_p50_us"),
            flow_p99: col("flow_p99_us"),
            cpu_flow: col("cpu_us_flow"),
        };
        data.stats.insert(slot, stats);
    }
    data
}

fn fmt(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "–".to_owned(), |v| format!("{v:.decimals$}"))
}

/// The lowest and highest of per-round ratios; none for fewer than two (one round has no spread).
fn spread(ratios: &[f64]) -> Option<(f64, f64)> {
    let lo = ratios.iter().copied().reduce(f64::min)?;
    let hi = ratios.iter().copied().reduce(f64::max)?;
    (ratios.len() > 1).then_some((lo, hi))
}

/// `a / b` with two decimals, more when it is small.
fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b != 0.0 && a.is_finite() && b.is_finite() => Some(a / b),
        _ => None,
    }
}

fn times(r: Option<f64>) -> String {
    match r {
        Some(r) if r < 0.1 => format!("{r:.4}×"),
        Some(r) => format!("{r:.2}×"),
        None => "–".to_owned(),
    }
}

/// `lo–hi×`, as [`times`] writes each.
fn times_range(lo: f64, hi: f64) -> String {
    let one = |r: f64| times(Some(r));
    format!("{}–{}", one(lo).trim_end_matches('×'), one(hi))
}

/// `load summarize FILE [key=value …] [--main]`: the main table, then (unless `--main`) the MRTR table,
/// the idle-session table and the targets.
pub fn summarize(path: &str, args: &[String]) {
    let main_only = args.iter().any(|a| a == "--main");
    let filters: Vec<String> = args.iter().filter(|a| a.contains('=')).cloned().collect();
    let data = load(path, &filters);
    main_table(&data);
    if main_only {
        return;
    }
    offered_table(&data);
    mrtr_table(&data);
    sessions_table(&data);
    targets_table(&data);
}

fn main_table(data: &Data) {
    println!(
        "| transport | scenario | C / in flight | server | req/s | req/s range | p50 µs | p99 µs | CPU µs/req | peak RSS MiB | errors |"
    );
    println!("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    for cell in data.cells.iter().filter(|c| c.offered.is_none()) {
        let here = data.in_cell(cell);
        let row = |label: &str, s: &Stats| {
            let range = if s.rounds > 1 { format!("{:.0}–{:.0}", s.rps_lo, s.rps_hi) } else { String::new() };
            println!(
                "| {} | {} | {} | {label} | {} | {range} | {} | {} | {} | {} | {:.0} |",
                cell.transport,
                cell.scenario,
                cell.level,
                fmt(s.rps, 0),
                fmt(s.p50, 0),
                fmt(s.p99, 0),
                fmt(s.cpu, 1),
                fmt(s.rss_kb.map(|kb| kb / 1024.0), 1),
                s.errors
            );
        };
        for (server, s) in &here {
            row(server, s);
        }
        // Against the floor, every other server (rmcp too); against rmcp, every server but the floor.
        for (base, skip) in [("bare", &["bare"][..]), ("rmcp", &["bare", "rmcp"][..])] {
            let Some((_, b)) = here.iter().find(|(s, _)| s.as_str() == base) else { continue };
            for (server, s) in here.iter().filter(|(s, _)| !skip.contains(&s.as_str())) {
                println!(
                    "| {} | {} | {} | **{server}/{base}** | **{}** | | {} | {} | {} | {} | |",
                    cell.transport,
                    cell.scenario,
                    cell.level,
                    times(ratio(s.rps, b.rps)),
                    times(ratio(s.p50, b.p50)),
                    times(ratio(s.p99, b.p99)),
                    times(ratio(s.cpu, b.cpu)),
                    times(ratio(s.rss_kb, b.rss_kb)),
                );
            }
        }
    }
}

/// The open-loop cells: latency with every server offered the same requests a second.
fn offered_table(data: &Data) {
    let cells: Vec<&Cell> = data.cells.iter().filter(|c| c.offered.is_some()).collect();
    if cells.is_empty() {
        return;
    }
    println!();
    println!("At one offered load: each server sent the same requests a second, a fraction (\"offered\") of the");
    println!("slower one's closed-loop req/s in the cell above; a request sent late counts from when it was due.");
    println!();
    println!("| transport | scenario | C | offered | server | req/s | p50 µs | p99 µs | CPU µs/req | errors |");
    println!("|---|---|---:|---:|---|---:|---:|---:|---:|---:|");
    for cell in cells {
        let offered = cell.offered.as_deref().unwrap_or_default();
        let lead = format!("| {} | {} | {} | {offered}×", cell.transport, cell.scenario, cell.level);
        let here = data.in_cell(cell);
        for (server, s) in &here {
            let (rps, p50, p99, cpu) = (fmt(s.rps, 0), fmt(s.p50, 0), fmt(s.p99, 0), fmt(s.cpu, 1));
            println!("{lead} | {server} | {rps} | {p50} | {p99} | {cpu} | {:.0} |", s.errors);
        }
        let Some((_, b)) = here.iter().find(|(s, _)| s.as_str() == "bare") else { continue };
        for (server, s) in here.iter().filter(|(s, _)| s.as_str() != "bare") {
            let (p50, p99, cpu) = (times(ratio(s.p50, b.p50)), times(ratio(s.p99, b.p99)), times(ratio(s.cpu, b.cpu)));
            println!("{lead} | **{server}/bare** | | {p50} | **{p99}** | {cpu} | |");
        }
    }
}

/// A flow against three plain calls of the same server at the same level.
#[derive(Debug, Default, PartialEq)]
struct FlowCost {
    /// By time: `modern-call` req/s over three times the flows/s.
    time: Option<f64>,
    /// By server CPU: CPU per flow over three times the CPU per call.
    cpu: Option<f64>,
    /// The lowest and highest per-round `time`, when the calls were run beside the flow's rounds.
    time_rounds: Option<(f64, f64)>,
}

/// [`FlowCost`] of `server` in the MRTR cell `cell`. With plain calls run beside each of the flow's rounds
/// (`beside=mrtr`, as `run.sh` runs them), each round is read against the calls made just before it on the
/// same server, and the median of those ratios taken: the `modern-call` cell ran minutes earlier, and on a
/// shared host the two cells' medians can move apart by more than the difference measured. Raw files
/// without them fall back to the two cells' medians.
fn flow_cost(data: &Data, cell: &Cell, server: &str) -> FlowCost {
    let Some(flow) = data.get(&cell.transport, "mrtr", cell.level, server) else { return FlowCost::default() };
    if let Some(calls) = data.beside.get(&(cell.clone(), server.to_owned())) {
        let (mut times, mut cpus) = (Vec::new(), Vec::new());
        for (round, f) in &flow.by_round {
            let Some(call) = calls.get(round) else { continue };
            let (time, cpu) = against_calls(call.rps, call.cpu, f.flows_s, f.cpu_flow);
            times.extend(time);
            cpus.extend(cpu);
        }
        let time_rounds = spread(&times);
        return FlowCost { time: median(times), cpu: median(cpus), time_rounds };
    }
    let Some(call) = data.get(&cell.transport, "modern-call", cell.level, server) else { return FlowCost::default() };
    let (time, cpu) = against_calls(call.rps, call.cpu, flow.flows_s, flow.cpu_flow);
    FlowCost { time, cpu, time_rounds: None }
}

/// A flow's cost in three calls, by time (calls/s over three times flows/s) and by CPU (per flow over three
/// times per call).
fn against_calls(
    call_rps: Option<f64>,
    call_cpu: Option<f64>,
    flows_s: Option<f64>,
    cpu_flow: Option<f64>,
) -> (Option<f64>, Option<f64>) {
    (ratio(call_rps, flows_s.map(|f| 3.0 * f)), ratio(cpu_flow, call_cpu.map(|c| 3.0 * c)))
}

fn mrtr_table(data: &Data) {
    let cells: Vec<&Cell> = data.cells.iter().filter(|c| c.scenario == "mrtr").collect();
    if cells.is_empty() {
        return;
    }
    println!();
    println!("MRTR: the 3-round `deploy` flow. \"÷ 3 calls\" is the flow against three `modern-call` requests of the");
    println!("same server at the same C: by time (modern-call req/s ÷ (3 × flows/s)) and by server CPU. Where the");
    println!("calls ran just before each round of the flow, on the same server (`beside=mrtr`), each round is read");
    println!("against its own calls: the median of those ratios, and (time) the lowest and highest of them.");
    println!();
    println!(
        "| transport | C | server | flows/s | req/s | flow p50 µs | flow p99 µs | CPU µs/flow | flow ÷ 3 calls, time | flow ÷ 3 calls, CPU |"
    );
    println!("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    for cell in cells {
        for server in &data.servers[cell] {
            let Some(s) = data.stats.get(&(cell.clone(), server.clone())) else { continue };
            let cost = flow_cost(data, cell, server);
            let rounds = cost.time_rounds.map_or_else(String::new, |(lo, hi)| format!(" ({})", times_range(lo, hi)));
            println!(
                "| {} | {} | {server} | {} | {} | {} | {} | {} | {}{rounds} | {} |",
                cell.transport,
                cell.level,
                fmt(s.flows_s, 0),
                fmt(s.rps, 0),
                fmt(s.flow_p50, 0),
                fmt(s.flow_p99, 0),
                fmt(s.cpu_flow, 1),
                times(cost.time),
                times(cost.cpu)
            );
        }
    }
}

fn sessions_table(data: &Data) {
    if data.sessions.is_empty() {
        return;
    }
    println!();
    println!("Idle legacy sessions: the server's VmRSS before and after opening them (initialize + initialized each).");
    println!();
    println!("| server | sessions | opened | RSS before MiB | RSS after MiB | bytes/session | errors |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for s in &data.sessions {
        println!(
            "| {} | {:.0} | {:.0} | {} | {} | {} | {:.0} |",
            s.server,
            s.count,
            s.opened,
            fmt(s.before_kb.map(|kb| kb / 1024.0), 1),
            fmt(s.after_kb.map(|kb| kb / 1024.0), 1),
            fmt(s.bytes, 0),
            s.errors
        );
    }
}

#[derive(Clone, Copy)]
enum Goal {
    AtLeast(f64),
    AtMost(f64),
    Below(f64),
}

impl Goal {
    fn met(self, v: f64) -> bool {
        match self {
            Goal::AtLeast(g) => v >= g,
            Goal::AtMost(g) => v <= g,
            Goal::Below(g) => v < g,
        }
    }

    fn text(self, unit: &str) -> String {
        match self {
            Goal::AtLeast(g) => format!("≥ {g}{unit}"),
            Goal::AtMost(g) => format!("≤ {g}{unit}"),
            Goal::Below(g) => format!("< {g}{unit}"),
        }
    }
}

/// How a target's figure is computed for one server.
#[derive(Clone, Copy)]
enum Measure {
    /// `req/s` against the floor's, in a cell.
    Rps(&'static str, u64),
    /// p99 against the floor's.
    P99(&'static str, u64),
    /// HTTP p99 against the floor's at one offered load (`offered`), both offered the same requests a second.
    P99Offered(u64, &'static str),
    /// Peak RSS against the floor's, HTTP `modern-call`.
    Rss(u64),
    /// HTTP `legacy-call` req/s against the same server's `modern-call`.
    LegacyVsModern(u64),
    /// The MRTR flow's time against three plain calls (HTTP).
    Flow(u64),
    /// Bytes per idle legacy session.
    SessionBytes,
}

impl Measure {
    fn of(self, data: &Data, server: &str) -> Option<f64> {
        let vs_bare = |transport: &str, level: u64, stat: fn(&Stats) -> Option<f64>| {
            let s = data.get(transport, "modern-call", level, server)?;
            let b = data.get(transport, "modern-call", level, "bare")?;
            ratio(stat(s), stat(b))
        };
        match self {
            Measure::Rps(transport, level) => vs_bare(transport, level, |s| s.rps),
            Measure::P99(transport, level) => vs_bare(transport, level, |s| s.p99),
            Measure::P99Offered(level, offered) => ratio(
                data.get_at("http", "modern-call", level, Some(offered), server)?.p99,
                data.get_at("http", "modern-call", level, Some(offered), "bare")?.p99,
            ),
            Measure::Rss(level) => vs_bare("http", level, |s| s.rss_kb),
            Measure::LegacyVsModern(level) => ratio(
                data.get("http", "legacy-call", level, server)?.rps,
                data.get("http", "modern-call", level, server)?.rps,
            ),
            Measure::Flow(level) => flow_cost(data, &Measure::mrtr(level), server).time,
            Measure::SessionBytes => data.sessions.iter().find(|s| s.server == server)?.bytes,
        }
    }

    /// The HTTP MRTR cell at `level` connections.
    fn mrtr(level: u64) -> Cell {
        Cell { transport: "http".into(), scenario: "mrtr".into(), level, offered: None }
    }

    /// The lowest and highest of the per-round ratios, for a measure that compares two servers in one cell
    /// (round k of one against round k of the other, run back to back) or the MRTR flow against the calls
    /// run beside its rounds. How far they spread says how near a threshold the median can be read.
    fn round_range(self, data: &Data, server: &str) -> Option<(f64, f64)> {
        let (transport, level, offered, pick): (_, _, _, fn(&Round) -> Option<f64>) = match self {
            Measure::Rps(transport, level) => (transport, level, None, |r| r.rps),
            Measure::P99(transport, level) => (transport, level, None, |r| r.p99),
            Measure::P99Offered(level, offered) => ("http", level, Some(offered), |r| r.p99),
            Measure::Flow(level) => return flow_cost(data, &Measure::mrtr(level), server).time_rounds,
            _ => return None,
        };
        let ours = &data.get_at(transport, "modern-call", level, offered, server)?.by_round;
        let floor = &data.get_at(transport, "modern-call", level, offered, "bare")?.by_round;
        let ratios: Vec<f64> = ours.iter().filter_map(|(round, r)| ratio(pick(r), pick(floor.get(round)?))).collect();
        spread(&ratios)
    }
}

/// The targets, each read off this run's figures.
const TARGETS: &[(&str, Measure, Goal)] = &[
    ("HTTP modern tools/call, 64 conns: req/s ÷ bare", Measure::Rps("http", 64), Goal::AtLeast(0.85)),
    ("HTTP modern tools/call, 64 conns: p99 ÷ bare", Measure::P99("http", 64), Goal::AtMost(1.3)),
    (
        "HTTP modern tools/call, 64 conns, both offered 0.5× the slower one's req/s: p99 ÷ bare",
        Measure::P99Offered(64, "0.5"),
        Goal::AtMost(1.3),
    ),
    ("HTTP modern tools/call, 1 conn: req/s ÷ bare", Measure::Rps("http", 1), Goal::AtLeast(0.95)),
    ("stdio modern tools/call, one at a time: calls/s ÷ bare", Measure::Rps("stdio", 1), Goal::AtLeast(0.9)),
    ("stdio modern tools/call, 64 in flight: calls/s ÷ bare", Measure::Rps("stdio", 64), Goal::AtLeast(0.85)),
    (
        "HTTP legacy session tools/call ÷ modern tools/call, req/s, 1 conn",
        Measure::LegacyVsModern(1),
        Goal::AtLeast(0.6),
    ),
    (
        "HTTP legacy session tools/call ÷ modern tools/call, req/s, 64 conns",
        Measure::LegacyVsModern(64),
        Goal::AtLeast(0.6),
    ),
    ("HTTP 3-round MRTR flow ÷ 3 modern calls, time, 1 conn", Measure::Flow(1), Goal::AtMost(1.1)),
    ("HTTP 3-round MRTR flow ÷ 3 modern calls, time, 64 conns", Measure::Flow(64), Goal::AtMost(1.1)),
    ("HTTP modern tools/call, 64 conns: peak RSS ÷ bare", Measure::Rss(64), Goal::AtMost(1.5)),
    ("idle legacy session: bytes of server RSS each", Measure::SessionBytes, Goal::Below(16384.0)),
];

/// The verdict on the median `value`, and whether the per-round ratios fall on both sides of the goal.
fn verdict(goal: Goal, value: Option<f64>, rounds: Option<(f64, f64)>) -> String {
    let straddle = if rounds.is_some_and(|(lo, hi)| goal.met(lo) != goal.met(hi)) { ", rounds straddle" } else { "" };
    match value {
        Some(v) if goal.met(v) => format!("pass{straddle}"),
        Some(_) => format!("**miss**{straddle}"),
        None => "not run".to_owned(),
    }
}

fn targets_table(data: &Data) {
    let subjects: Vec<&String> = data.order.iter().filter(|s| !matches!(s.as_str(), "bare" | "rmcp")).collect();
    if subjects.is_empty() {
        return;
    }
    println!();
    println!("Targets (issue 14), each from this run's figures; rmcp's same figure for reference. A ratio of two");
    println!("servers in one cell is of their medians; \"rounds\" beside it is the lowest and highest of its");
    println!("per-round ratios (round k against round k, run back to back), how far the noise moved it; where");
    println!("some rounds meet the goal and some do not, the verdict says so (\"rounds straddle\"): the median's");
    println!("side of the line is then the noise's to decide.");
    println!();
    println!("| target | goal | server | measured | verdict | rmcp |");
    println!("|---|---:|---|---:|---|---:|");
    let mut absent = 0;
    for (what, measure, goal) in TARGETS {
        let bytes = matches!(measure, Measure::SessionBytes);
        let show = |v: Option<f64>| if bytes { fmt(v, 0) } else { times(v) };
        let unit = if bytes { " B" } else { "×" };
        if subjects.iter().all(|s| measure.of(data, s).is_none()) {
            absent += 1; // its cells were not in this run
            continue;
        }
        let rmcp = show(measure.of(data, "rmcp"));
        for server in &subjects {
            let value = measure.of(data, server);
            let range = measure.round_range(data, server);
            let verdict = verdict(*goal, value, range);
            let rounds = range.map_or_else(String::new, |(lo, hi)| format!(" (rounds {})", times_range(lo, hi)));
            println!("| {what} | {} | {server} | {}{rounds} | {verdict} | {rmcp} |", goal.text(unit), show(value));
        }
    }
    if absent > 0 {
        println!();
        println!("{absent} of the {} targets need cells this run did not have.", TARGETS.len());
    }
}

/// `load rps FILE key=value …`: the median req/s of the one closed-loop cell and server the filters select
/// (`run.sh` sets its open-loop rates from it); exits 2 when they select none or several.
pub fn rps(path: &str, filters: &[String]) {
    match closed_rps(&load(path, filters))[..] {
        [rps] => println!("{rps:.0}"),
        ref found => {
            eprintln!("load rps: {} closed-loop cells and servers in {path} match {filters:?}, not one", found.len());
            std::process::exit(2)
        }
    }
}

/// The median req/s of every closed-loop cell and server in `data`.
fn closed_rps(data: &Data) -> Vec<f64> {
    data.stats.iter().filter(|((cell, _), _)| cell.offered.is_none()).filter_map(|(_, s)| s.rps).collect()
}

/// `load check FILE`: exits 1 (listing them) if any run had an error or answered nothing, or any session
/// measurement had an error or opened fewer sessions than asked; 0 otherwise. No timing is judged.
pub fn check(path: &str) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("load: read {path}: {e}");
        std::process::exit(2)
    });
    let (mut runs, mut counts, mut bad) = (0, 0, Vec::new());
    for line in text.lines() {
        let f = fields(line);
        if f.get("kind") == Some(&"sessions") {
            counts += 1;
            let opened = num(&f, "opened").unwrap_or(0.0);
            if num(&f, "errors") != Some(0.0) || opened < num(&f, "count").unwrap_or(f64::INFINITY) {
                bad.push(line);
            }
        } else if f.contains_key("rps") {
            runs += 1;
            if num(&f, "errors") != Some(0.0) || num(&f, "ok").unwrap_or(0.0) == 0.0 {
                bad.push(line);
            }
        }
    }
    if runs == 0 {
        eprintln!("check: no runs in {path}");
        std::process::exit(1);
    }
    if bad.is_empty() {
        println!("check: {runs} runs and {counts} session measurements, every answer right, none empty");
        return;
    }
    eprintln!(
        "check: {} of {runs} runs / {counts} session measurements failed (errors, or nothing answered):",
        bad.len()
    );
    for line in bad {
        eprintln!("  {line}");
    }
    std::process::exit(1);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Raw lines in a file of their own (the summary reads a path, as `run.sh` gives it).
    fn data(lines: &str, filters: &[&str]) -> Data {
        let path = std::env::temp_dir().join(format!(
            "load-summary-{}-{:?}.txt",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&path, lines).unwrap();
        let filters: Vec<String> = filters.iter().map(|f| f.to_string()).collect();
        let data = load(path.to_str().unwrap(), &filters);
        std::fs::remove_file(path).unwrap();
        data
    }

    const RAW: &str = "\
transport=http tcp=quickack scenario=modern-call level=64 impl=fastmcp round=1 rps=90000 p99_us=3000 errors=0
transport=http tcp=quickack scenario=modern-call level=64 impl=bare round=1 rps=80000 p99_us=1000 errors=0
offered=0.8 rate=64000 transport=http tcp=quickack scenario=modern-call level=64 impl=fastmcp round=1 rps=63990 p99_us=1100 errors=0
offered=0.8 rate=64000 transport=http tcp=quickack scenario=modern-call level=64 impl=bare round=1 rps=63995 p99_us=1000 errors=0
";

    #[test]
    fn an_offered_load_is_a_cell_of_its_own() {
        let data = data(RAW, &["tcp=quickack"]);
        assert_eq!(data.cells.len(), 2);
        assert_eq!(data.get("http", "modern-call", 64, "fastmcp").unwrap().p99, Some(3000.0));
        assert_eq!(data.get_at("http", "modern-call", 64, Some("0.8"), "fastmcp").unwrap().p99, Some(1100.0));
        let closed = Measure::P99("http", 64).of(&data, "fastmcp").unwrap();
        let open = Measure::P99Offered(64, "0.8").of(&data, "fastmcp").unwrap();
        assert!((closed - 3.0).abs() < 1e-9 && (open - 1.1).abs() < 1e-9, "{closed} {open}");
    }

    #[test]
    fn a_ratio_of_two_servers_shows_the_spread_of_its_rounds() {
        let raw = "\
transport=http scenario=modern-call level=1 impl=fastmcp round=1 rps=90 p99_us=30 errors=0
transport=http scenario=modern-call level=1 impl=bare round=1 rps=100 p99_us=20 errors=0
transport=http scenario=modern-call level=1 impl=bare round=2 rps=100 p99_us=20 errors=0
transport=http scenario=modern-call level=1 impl=fastmcp round=2 rps=110 p99_us=20 errors=0
transport=http scenario=modern-call level=1 impl=fastmcp round=3 rps=95 p99_us=25 errors=0
transport=http scenario=modern-call level=1 impl=bare round=3 rps=50 p99_us=25 errors=0
";
        let three = data(raw, &[]);
        // Medians 95 and 100; the rounds 0.9, 1.1 and 1.9.
        let median = Measure::Rps("http", 1).of(&three, "fastmcp").unwrap();
        assert!((median - 0.95).abs() < 1e-9, "{median}");
        let (lo, hi) = Measure::Rps("http", 1).round_range(&three, "fastmcp").unwrap();
        assert!((lo - 0.9).abs() < 1e-9 && (hi - 1.9).abs() < 1e-9, "{lo} {hi}");
        let (lo, hi) = Measure::P99("http", 1).round_range(&three, "fastmcp").unwrap();
        assert!((lo - 1.0).abs() < 1e-9 && (hi - 1.5).abs() < 1e-9, "{lo} {hi}");
        assert_eq!(times_range(lo, hi), "1.00–1.50×");
        // At an offered load, round k against round k at the same rate, not the closed loop's rounds.
        let offered = data(
            &format!(
                "{raw}\
offered=0.5 rate=40 transport=http scenario=modern-call level=1 impl=fastmcp round=1 p99_us=30 errors=0
offered=0.5 rate=40 transport=http scenario=modern-call level=1 impl=bare round=1 p99_us=20 errors=0
offered=0.5 rate=40 transport=http scenario=modern-call level=1 impl=fastmcp round=2 p99_us=22 errors=0
offered=0.5 rate=40 transport=http scenario=modern-call level=1 impl=bare round=2 p99_us=20 errors=0
"
            ),
            &[],
        );
        let (lo, hi) = Measure::P99Offered(1, "0.5").round_range(&offered, "fastmcp").unwrap();
        assert!((lo - 1.1).abs() < 1e-9 && (hi - 1.5).abs() < 1e-9, "{lo} {hi}");
        // One round has no spread, and a flow without calls beside it has no pairing.
        let one = data(RAW, &["tcp=quickack"]);
        assert_eq!(Measure::Rps("http", 64).round_range(&one, "fastmcp"), None);
        assert_eq!(Measure::Flow(1).round_range(&three, "fastmcp"), None);
    }

    /// The `modern-call` cell (far from the flow's rounds in time) and, run just before each of them, the
    /// calls beside the flow: round by round 1.25, 0.8 and 1.1 by time, 1.0, 1.2 and 1.1 by CPU.
    const FLOW: &str = "\
transport=http scenario=modern-call level=64 impl=fastmcp round=1 rps=1000 cpu_us=5 errors=0
transport=http scenario=modern-call level=64 impl=fastmcp round=2 rps=1000 cpu_us=5 errors=0
beside=mrtr transport=http scenario=modern-call level=64 impl=fastmcp round=1 rps=300 cpu_us=10 errors=0
transport=http scenario=mrtr level=64 impl=fastmcp round=1 rps=240 flows_s=80 cpu_us_flow=30 errors=0
beside=mrtr transport=http scenario=modern-call level=64 impl=fastmcp round=2 rps=240 cpu_us=10 errors=0
transport=http scenario=mrtr level=64 impl=fastmcp round=2 rps=300 flows_s=100 cpu_us_flow=36 errors=0
beside=mrtr transport=http scenario=modern-call level=64 impl=fastmcp round=3 rps=330 cpu_us=10 errors=0
transport=http scenario=mrtr level=64 impl=fastmcp round=3 rps=300 flows_s=100 cpu_us_flow=33 errors=0
";

    #[test]
    fn the_flow_is_read_against_the_calls_beside_each_of_its_rounds() {
        let flow = data(FLOW, &[]);
        let cost = flow_cost(&flow, &Measure::mrtr(64), "fastmcp");
        let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-9);
        assert!(near(cost.time, 1.1) && near(cost.cpu, 1.1), "{cost:?}");
        let (lo, hi) = cost.time_rounds.unwrap();
        assert!((lo - 0.8).abs() < 1e-9 && (hi - 1.25).abs() < 1e-9, "{lo} {hi}");
        assert_eq!(Measure::Flow(64).round_range(&flow, "fastmcp"), cost.time_rounds);
        // The calls beside are no cell: the main table and `load rps` see the modern-call cell alone.
        assert_eq!(flow.cells.len(), 2);
        assert_eq!(flow.get("http", "modern-call", 64, "fastmcp").unwrap().rps, Some(1000.0));
        assert_eq!(closed_rps(&data(FLOW, &["scenario=modern-call", "impl=fastmcp"])), [1000.0]);
    }

    #[test]
    fn without_calls_beside_it_the_flow_is_read_against_the_call_cell() {
        let older: String = FLOW.lines().filter(|l| !l.starts_with("beside=")).map(|l| format!("{l}\n")).collect();
        let cost = flow_cost(&data(&older, &[]), &Measure::mrtr(64), "fastmcp");
        // Medians: 1000 calls a second against 3 × 100 flows; 33 µs a flow against 3 × 5.
        let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-9);
        assert!(near(cost.time, 1000.0 / 300.0) && near(cost.cpu, 33.0 / 15.0), "{cost:?}");
        assert_eq!(cost.time_rounds, None);
    }

    #[test]
    fn a_verdict_says_when_the_rounds_fall_on_both_sides_of_the_goal() {
        let at_least = Goal::AtLeast(0.95);
        assert_eq!(verdict(at_least, Some(0.97), Some((0.96, 1.02))), "pass");
        assert_eq!(verdict(at_least, Some(0.97), Some((0.90, 1.02))), "pass, rounds straddle");
        assert_eq!(verdict(at_least, Some(0.90), Some((0.88, 0.97))), "**miss**, rounds straddle");
        assert_eq!(verdict(at_least, Some(0.90), None), "**miss**");
        assert_eq!(verdict(Goal::AtMost(1.3), Some(1.22), Some((1.22, 1.42))), "pass, rounds straddle");
        assert_eq!(verdict(at_least, None, None), "not run");
    }

    #[test]
    fn the_rate_base_is_the_closed_loop_cell() {
        // `load rps` reads the closed loop's median even with open-loop lines of the same server in the file.
        let data = data(RAW, &["transport=http", "scenario=modern-call", "level=64", "impl=bare"]);
        assert_eq!(closed_rps(&data), [80000.0]);
    }
}

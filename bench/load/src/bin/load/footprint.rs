//! `load footprint`: how much code a request runs, from a callgrind dump of a measured window
//! (`footprint.sh` makes one).
//!
//! Two servers can run the same number of instructions a request and still differ by a third in CPU: what
//! differs is how many *distinct* instructions those are. A request that runs 18k instructions over 27 KiB
//! of code runs from L1i (32 KiB on the bench's Zen 4); one that runs them over 64 KiB misses it on every
//! request. So beside instructions a request this counts the request's hot code: the 64-byte lines of code
//! in which some instruction ran at least half as many times as there were requests (so code every request
//! runs, not the start-up's or a connection's), and the 4 KiB pages those lines are on (which a change of
//! layout moves without changing the lines).
//!
//! The dump must be written with `--dump-instr=yes --compress-pos=no --compress-strings=no`: one line per
//! instruction, `0xADDRESS LINE COUNT`, under the `fn=` it belongs to. A call's line (after `calls=N ...`)
//! carries the callee's inclusive cost; its own count is the call count `N`.

use std::collections::HashMap;

/// Code lines, as the hardware caches them.
const LINE: u64 = 64;

/// Pages, as the iTLB maps them.
const PAGE: u64 = 4096;

#[derive(Default)]
struct Function {
    /// The most times any instruction of this function in the line ran, by line.
    lines: HashMap<u64, u64>,
    /// Times each instruction ran.
    instructions: HashMap<u64, u64>,
}

/// `load footprint FILE (--requests N | --per FUNCTION) [--top K]`: instructions and hot code a request.
/// `--per FUNCTION` counts the requests as the calls into the function whose name is exactly FUNCTION
/// (one the server enters once a request).
pub fn report(args: &[String]) {
    fn usage() -> ! {
        crate::usage("footprint FILE (--requests N | --per FUNCTION) [--top K]")
    }
    let file = args.first().unwrap_or_else(|| usage());
    let (mut requests, mut per, mut top) = (None, None, 25);
    let mut it = args[1..].iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--requests" => requests = Some(crate::value::<u64>(&mut it, "--requests N")),
            "--per" => per = Some(it.next().cloned().unwrap_or_else(|| usage())),
            "--top" => top = crate::value(&mut it, "--top K"),
            _ => usage(),
        }
    }
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| {
        eprintln!("load footprint: {file}: {e}");
        std::process::exit(2)
    });
    let dump = Dump::parse(&text);
    let requests = match (requests, per) {
        (Some(n), None) => n,
        (None, Some(name)) => dump.calls.get(name.as_str()).copied().unwrap_or(0),
        _ => usage(),
    };
    if requests == 0 {
        eprintln!("load footprint: no requests in {file}");
        std::process::exit(1)
    }
    print!("{}", dump.table(requests, top));
}

struct Dump<'a> {
    functions: HashMap<&'a str, Function>,
    /// Calls into each function, summed over its call sites.
    calls: HashMap<&'a str, u64>,
    /// All instructions the window ran (the dump's `totals:` or `summary:`).
    total: u64,
}

impl<'a> Dump<'a> {
    fn parse(text: &'a str) -> Self {
        let mut dump = Dump { functions: HashMap::new(), calls: HashMap::new(), total: 0 };
        let (mut function, mut callee, mut call) = ("?", "?", None::<u64>);
        for line in text.lines() {
            if let Some(name) = line.strip_prefix("fn=") {
                function = name;
            } else if let Some(name) = line.strip_prefix("cfn=") {
                callee = name;
            } else if let Some(rest) = line.strip_prefix("calls=") {
                let n = rest.split_whitespace().next().and_then(|n| n.parse().ok()).unwrap_or(0);
                *dump.calls.entry(callee).or_default() += n;
                call = Some(n);
            } else if let Some(rest) = line.strip_prefix("0x") {
                let mut parts = rest.split_whitespace();
                let address = parts.next().and_then(|a| u64::from_str_radix(a, 16).ok());
                let count = parts.nth(1).and_then(|c| c.parse::<u64>().ok());
                if let (Some(address), Some(count)) = (address, count) {
                    let ran = call.take().unwrap_or(count);
                    let f = dump.functions.entry(function).or_default();
                    let most = f.lines.entry(address / LINE).or_default();
                    *most = (*most).max(ran);
                    let times = f.instructions.entry(address).or_default();
                    *times = (*times).max(ran);
                }
            } else if let Some(total) = line.strip_prefix("totals:").or_else(|| line.strip_prefix("summary:")) {
                dump.total = dump.total.max(total.trim().parse().unwrap_or(0));
            }
        }
        dump
    }

    /// The summary line and the functions with the most hot lines.
    fn table(&self, requests: u64, top: usize) -> String {
        let hot = |times: &u64| *times * 2 >= requests;
        let mut rows: Vec<(usize, usize, &str)> = self
            .functions
            .iter()
            .map(|(name, f)| {
                (f.lines.values().filter(|t| hot(t)).count(), f.instructions.values().filter(|t| hot(t)).count(), *name)
            })
            .filter(|(lines, ..)| *lines > 0)
            .collect();
        rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.2.cmp(b.2)));
        let lines: usize = rows.iter().map(|r| r.0).sum();
        let instructions: usize = rows.iter().map(|r| r.1).sum();
        let pages: std::collections::HashSet<u64> = (self.functions.values())
            .flat_map(|f| f.lines.iter().filter(|(_, t)| hot(t)).map(|(line, _)| line * LINE / PAGE))
            .collect();
        let mut out = format!(
            "requests={requests} ir_per_request={} hot_lines={lines} hot_kib={:.1} hot_pages={} \
             hot_instructions={instructions}\n",
            self.total / requests,
            (lines as u64 * LINE) as f64 / 1024.0,
            pages.len(),
        );
        for (lines, instructions, name) in rows.into_iter().take(top) {
            out.push_str(&format!("{lines:5} lines {instructions:5} instructions  {name}\n"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Dump;

    /// Three functions: `a` runs every request (its 3 instructions span 2 lines of one page), `b` once in all,
    /// `c` every request on a page of its own; a call from `a` into `b` counts as `b`'s call and as one
    /// instruction of `a` run that many times.
    const DUMP: &str = "\
positions: instr line
events: Ir
fn=a
0x1000 0 10
0x1004 0 10
cfn=b
calls=10 0x2000 0
0x1040 0 900
fn=b
0x2000 0 1
fn=c
0x3010 0 10
totals: 941
";

    #[test]
    fn counts_hot_lines_and_calls() {
        let dump = Dump::parse(DUMP);
        assert_eq!(dump.calls["b"], 10);
        assert_eq!(dump.total, 941);
        let table = dump.table(10, 5);
        assert!(
            table.starts_with("requests=10 ir_per_request=94 hot_lines=3 hot_kib=0.2 hot_pages=2 hot_instructions=4\n"),
            "{table}"
        );
        assert!(table.contains("    2 lines     3 instructions  a\n"), "{table}");
        assert!(!table.contains("  b\n"), "b ran once in 10 requests: {table}");
    }
}

//! `load sessions`: what an idle legacy session costs the server in memory. Opens `conns` connections and
//! `warm` sessions on them first (so connection buffers, allocator arenas and lazily built state are in the
//! baseline), reads the server's `VmRSS`, opens `count` more sessions (`initialize` +
//! `notifications/initialized` each, nothing after: idle), waits for the server to settle, reads `VmRSS`
//! again and reports the difference per session. The sessions stay open until the server is stopped.

use std::net::SocketAddr;
use std::time::Duration;

use crate::http::Link;
use crate::measure::status_kb;

pub struct SessionArgs {
    pub addr: SocketAddr,
    pub pid: u32,
    pub count: usize,
    pub conns: usize,
    pub warm: usize,
    pub tags: Vec<String>,
}

/// What the session runs saw.
#[derive(Default)]
struct Opened {
    sessions: usize,
    errors: usize,
    first_error: Option<String>,
}

pub fn run(args: SessionArgs) -> String {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let mut links = Vec::with_capacity(args.conns);
        let mut opened = Opened::default();
        for _ in 0..args.conns.max(1) {
            match Link::open(args.addr, false).await {
                Ok(link) => links.push(link),
                Err(why) => note(&mut opened, why),
            }
        }
        let links = open_on(links, args.warm, &mut Opened::default()).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let before = status_kb(args.pid, "VmRSS");
        let _links = open_on(links, args.count, &mut opened).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let after = status_kb(args.pid, "VmRSS");
        if before.is_none() || after.is_none() {
            note(&mut opened, format!("could not read /proc/{}/status", args.pid));
        }
        let mut out = args.tags.clone();
        out.push(format!("kind=sessions count={} opened={} errors={}", args.count, opened.sessions, opened.errors));
        if let (Some(before), Some(after)) = (before, after) {
            out.push(format!("rss_before_kb={before} rss_after_kb={after}"));
            if opened.sessions > 0 {
                let bytes = after.saturating_sub(before) as f64 * 1024.0 / opened.sessions as f64;
                out.push(format!("bytes_per_session={bytes:.0}"));
            }
        }
        if let Some(why) = opened.first_error {
            out.push(format!("first_error={}", why.split_whitespace().collect::<Vec<_>>().join("_")));
        }
        out.join(" ")
    })
}

fn note(opened: &mut Opened, why: String) {
    opened.errors += 1;
    opened.first_error.get_or_insert(why);
}

/// Opens `count` sessions spread over `links`, each link one after another, the links concurrently.
async fn open_on(links: Vec<Link>, count: usize, opened: &mut Opened) -> Vec<Link> {
    let n = links.len().max(1);
    let tasks: Vec<_> = links
        .into_iter()
        .enumerate()
        .map(|(i, mut link)| {
            let share = count / n + usize::from(i < count % n);
            tokio::spawn(async move {
                let mut got = Opened::default();
                for _ in 0..share {
                    match link.open_session().await {
                        Ok(Some(_)) => got.sessions += 1,
                        Ok(None) => note(&mut got, "initialize gave no session id".to_owned()),
                        Err(why) => note(&mut got, why),
                    }
                }
                (link, got)
            })
        })
        .collect();
    let mut links = Vec::with_capacity(n);
    for task in tasks {
        match task.await {
            Ok((link, got)) => {
                links.push(link);
                opened.sessions += got.sessions;
                opened.errors += got.errors;
                if opened.first_error.is_none() {
                    opened.first_error = got.first_error;
                }
            }
            Err(e) => note(opened, format!("session task failed: {e}")),
        }
    }
    links
}

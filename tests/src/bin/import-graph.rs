//! Prints a crate's module import graph: each edge with the number of paths that make it, and the edges
//! that break the crate's layering table (from `tests/layering.rs`) marked with why.
//!
//! `cargo run -q -p fastmcp-tests --bin import-graph -- fastmcp-macros/src` (or `-- fastmcp/src`). The table
//! is chosen by the crate's directory name; a crate without one prints the graph unmarked.

use fastmcp_tests::layers::{Crate, Layers, Table};
use std::path::Path;
use std::process::ExitCode;

/// The tables live beside the check that enforces them; this binary reads the same rows.
#[path = "../../tests/layering.rs"]
#[allow(dead_code)]
mod layering;

fn table(src: &Path) -> Option<&'static Table> {
    let dir = src.canonicalize().ok()?;
    match dir.parent()?.file_name()?.to_str()? {
        "fastmcp-macros" => Some(layering::FASTMCP_MACROS),
        "fastmcp" => Some(layering::FASTMCP),
        _ => None,
    }
}

fn main() -> ExitCode {
    let Some(src) = std::env::args().nth(1) else {
        eprintln!("usage: import-graph <crate>/src");
        return ExitCode::FAILURE;
    };
    let src = Path::new(&src);
    let krate = match Crate::read(src) {
        Ok(krate) => krate,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let layers = match table(src).map(Layers::new).transpose() {
        Ok(layers) => layers,
        Err(e) => {
            eprintln!("the table: {e}");
            return ExitCode::FAILURE;
        }
    };
    let counts = krate.edge_counts();
    let paths: usize = counts.values().map(Vec::len).sum();
    let mut out =
        format!("{}: {} modules, {} edges ({paths} paths)\n", src.display(), krate.modules.len(), counts.len());
    let mut broken = 0;
    for ((from, to), edges) in &counts {
        out.push_str(&format!("  {from} -> {to}  x{}", edges.len()));
        if let Some(why) = layers.as_ref().and_then(|l| l.judge(from, to)) {
            broken += 1;
            out.push_str(&format!("  !! {why} (first at {}:{})", edges[0].file.display(), edges[0].line));
        }
        out.push('\n');
    }
    if let Some(layers) = &layers {
        let unplaced: Vec<&str> = krate
            .modules
            .iter()
            .map(|m| m.path.as_str())
            .filter(|m| !m.is_empty() && layers.row(m).is_none())
            .collect();
        if !unplaced.is_empty() {
            out.push_str(&format!("  !! modules without a row: {}\n", unplaced.join(", ")));
        }
        out.push_str(&format!("{broken} edges break the table\n"));
    }
    // A closed pipe (`| head`) is not the graph's error.
    let _ = std::io::Write::write_all(&mut std::io::stdout(), out.as_bytes());
    ExitCode::SUCCESS
}

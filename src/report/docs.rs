//! Documentation generated from the registry, so that it cannot drift from the code:
//! `docs/benchmarks.md`, every registered benchmark by family, in the sections the families
//! register beside their rows (`crate::model::catalogue::SECTIONS`). A test regenerates it and
//! fails when the file in the repository is stale (`UPDATE_DOCS=1` rewrites it).

use std::fmt::Write;

use crate::harness::contract::{Benchmark, Derived};
use crate::model::catalogue::{sections, Section};
use crate::model::unit::Unit;

/// The section a derived row stands in: its first input's (`ctx.switch` is computed from
/// `signal` rows, `timer.clock.kernel` from `syscall` ones; neither `ctx` nor `timer` has a
/// section of its own), else its id's family.
fn section_of_derived<'a>(d: &'a Derived, benches: &'a [&Benchmark]) -> &'a str {
    d.inputs
        .first()
        .and_then(|input| benches.iter().find(|b| b.id() == *input))
        .map_or(crate::model::family_of(d.id), |b| b.family())
}

/// `docs/benchmarks.md` for these benchmarks and derived rows.
pub fn benchmarks_markdown(benches: &[&Benchmark], derived: &[&Derived]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# The benchmarks\n\n\
         Generated from the registry by `UPDATE_DOCS=1 cargo test --release --test it docs`; \
         do not edit by hand. {} benchmarks and {} derived rows. `timeshare list` shows the \
         same ids; `timeshare run ID|FAMILY|PREFIX` runs them.\n",
        benches.len(),
        derived.len()
    );
    for Section {
        family,
        heading,
        seeds,
        ..
    } in sections()
    {
        let rows: Vec<&&Benchmark> = benches.iter().filter(|b| b.family() == family).collect();
        let derived_here: Vec<&&Derived> = derived
            .iter()
            .filter(|d| section_of_derived(d, benches) == family)
            .collect();
        if rows.is_empty() && derived_here.is_empty() {
            continue;
        }
        let _ = writeln!(out, "## {heading}\n\n{seeds}\n");
        let _ = writeln!(out, "| id | measures | unit | source | runs when |");
        let _ = writeln!(out, "|---|---|---|---|---|");
        for b in rows {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} |",
                b.id(),
                cell(b.about()),
                unit(b.metric().unit),
                cell(&b.source().describe()),
                conditions(b)
            );
        }
        for d in derived_here {
            let _ = writeln!(
                out,
                "| `{}` | {} (derived from {}) | {} | {} | its inputs ran |",
                d.id,
                cell(d.about),
                d.inputs
                    .iter()
                    .map(|i| format!("`{i}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                unit(d.unit),
                cell(&d.source.describe())
            );
        }
        out.push('\n');
    }
    out
}

fn unit(u: Unit) -> &'static str {
    match u {
        Unit::SecondsPerOp => "time per operation",
        Unit::BytesPerSecond => "bytes per second",
        Unit::Seconds => "time per job",
        Unit::Ratio => "ratio",
        Unit::Count => "count",
    }
}

/// When a row runs: always, as root only, or when a check at run time finds what it needs.
fn conditions(b: &Benchmark) -> String {
    let mut c = Vec::new();
    if let Some(why) = b.root_only_reason() {
        c.push(format!("as root ({why})"));
    }
    if b.has_requirement() {
        c.push("when what it needs is installed".to_string());
    }
    if b.is_partnered() {
        c.push("two processes: samples not culled".to_string());
    }
    if c.is_empty() {
        "always".to_string()
    } else {
        c.join("; ")
    }
}

/// Text safe inside a Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// The five papers, as the coverage page names them.
const PAPERS: &[(&str, &str)] = &[
    (
        "000",
        "Brandt & Thompson, *Benchmark of UNIX on DEC 11/70*, Bell Labs 1975",
    ),
    (
        "001",
        "McKusick, Leffler & Karels, *Measuring and Improving the Performance of Berkeley UNIX*",
    ),
    (
        "002",
        "Perez & Raleigh, *UNIX System Call Measurements*, Bell Labs 1976",
    ),
    (
        "003",
        "RAL PERQ note, 1983: C statements, Kashtan and Zilog programs",
    ),
    ("004", "Tuori, *A UNIX Benchmarking Tool*, DCIEM 1982"),
];

/// `docs/coverage.md`: every table and figure of the five papers, its `table` key, how far
/// it is reproduced, its historical figures, today's rows (`registered` says which ids are
/// rows of the registry) and, where it differs from the paper, why.
pub fn coverage_markdown(registered: &dyn Fn(&str) -> bool) -> String {
    use super::seed_table::{Coverage, TABLES};
    let mut out = String::from(
        "# Coverage of the papers\n\n\
         Generated from the registry and the reference data by \
         `UPDATE_DOCS=1 cargo test --release --test it docs`; do not edit.\n\n\
         Every table and figure of the five papers has a key: `timeshare table KEY` prints the \
         paper's rows and columns with today's figures beside them, each of the same statistic \
         and basis (a test walks every key). Status: **reproduced** — the paper's figures beside \
         today's, every figure of today's operation and every readable row of the paper in a \
         column; **partly** — the same, with a line saying what differs (a figure of another \
         program's work, a row of the paper only in a `paper:` line); **today only** — \
         today's rows are measured but no historical figure can honestly be set beside them; \
         **not measured** — nothing to measure today, for the reason given. The comparability \
         column counts the figures by how a ratio against today's is printed: a speed-up for \
         the same operation, marked ≈ for the same kind of work done by another program, none \
         where the work differs (the reasons are in the why column and under each table).\n",
    );
    let mut totals = [0usize; 4];
    for (seed, title) in PAPERS {
        out.push_str(&format!("\n## Seed {seed}: {title}\n\n"));
        out.push_str(
            "| key | in the paper | what | status | figures | comparability | today's rows | why |\n",
        );
        out.push_str("|---|---|---|---|---|---|---|---|\n");
        for t in TABLES.iter().filter(|t| t.seed == *seed) {
            let figures = t.figures();
            let curve = t
                .curve
                .map(|prefix| format!("`{prefix}N` (the points of a `timeshare exercise` run)"));
            let rows: Vec<String> = t
                .rows(&figures)
                .into_iter()
                .map(|(_, id)| {
                    if registered(&id) {
                        format!("`{id}`")
                    } else if id.starts_with(&crate::model::exercise::alone_id("")) {
                        // The exerciser's rows are made by its setup, not by the registry.
                        format!("`{id}` (runs under `timeshare exercise`)")
                    } else {
                        format!("`{id}` (not registered)")
                    }
                })
                .chain(curve)
                .collect();
            let status = t.status();
            totals[match status {
                Coverage::Reproduced => 0,
                Coverage::Partly => 1,
                Coverage::MeasuredOnly => 2,
                Coverage::NotMeasurable => 3,
            }] += 1;
            let (comparability, reasons) = t.comparability();
            let why: Vec<&str> = t
                .why
                .iter()
                .copied()
                .chain(reasons.iter().copied())
                .collect();
            out.push_str(&format!(
                "| `{}` | {} | {} | {} | {} | {} | {} | {} |\n",
                t.key,
                t.name(),
                t.title,
                status.name(),
                figures.len(),
                if comparability.is_empty() {
                    "—".to_string()
                } else {
                    comparability
                },
                if rows.is_empty() {
                    "—".to_string()
                } else {
                    rows.join(", ")
                },
                why.join("; ").replace('|', "\\|"),
            ));
        }
    }
    out.push_str(&format!(
        "\n{} keys: {} reproduced, {} partly, {} today only, {} not measured.\n",
        totals.iter().sum::<usize>(),
        totals[0],
        totals[1],
        totals[2],
        totals[3]
    ));
    out
}

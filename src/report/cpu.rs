//! The `cpu` family's seed-shaped tables: seed 003's C statement table (one row per
//! statement, one column per type, ns and cycles per statement) and the chess game's
//! nodes per second (seed 000 Table 1).

use std::fmt::Write;

use crate::model::details::cpu::{Chess, Statement, STATEMENTS, TYPES};
use crate::model::resolution::shown_stored;
use crate::model::{BenchResult, Run};

use super::table::{bound_text, new_table, right};
use super::views::cpu;

/// Its place among the tables printed after a run's main table (`report::extra`).
#[linkme::distributed_slice(crate::model::catalogue::TABLES)]
fn registered_table() -> crate::model::catalogue::Table {
    crate::model::catalogue::Table { order: 50, render }
}

pub fn render(run: &Run) -> String {
    let mut out = String::new();
    if let Some(t) = statement_table(run) {
        out.push_str(&t);
    }
    if let Some(line) = chess_line(run) {
        out.push_str(&line);
    }
    out
}

/// "1.23 ns (4.0 c)" for a row, "—" when it did not run, the bound ("< 0.357 ns") when
/// it is under one cycle or the clock's resolution.
fn cell(r: Option<&BenchResult>, mhz: Option<f64>) -> String {
    let Some(r) = r else {
        return "—".into();
    };
    let Some(s) = r.median() else {
        return "—".into();
    };
    if let Some(bound) = shown_stored(r, mhz).and_then(bound_text) {
        return bound;
    }
    let ns = s * 1e9;
    let cycle_ns = r
        .details_as::<Statement>()
        .and_then(|d| d.cycle_ns)
        .filter(|c| *c > 0.0);
    let mark = if r.below_resolution { "<" } else { "" };
    match cycle_ns {
        Some(c) => format!("{mark}{ns:.2} ns ({:.1} c)", ns / c),
        None => format!("{mark}{ns:.2} ns"),
    }
}

fn statement_table(run: &Run) -> Option<String> {
    if !cpu::has_statements(run) {
        return None;
    }
    let mut header = vec!["statement (seed 003 §3)"];
    header.extend(TYPES);
    let mut t = new_table(&header);
    for s in STATEMENTS {
        let mut row = vec![s.to_string()];
        for ty in TYPES {
            row.push(cell(cpu::statement(run, ty, s), run.environment.cpu.mhz));
        }
        t.add_row(row);
    }
    right(&mut t, &[1, 2, 3, 4, 5]);
    let mhz = TYPES
        .iter()
        .flat_map(|ty| STATEMENTS.iter().map(move |s| (ty, s)))
        .filter_map(|(ty, s)| cpu::statement(run, ty, s))
        .filter_map(|r| r.details_as::<Statement>()?.measured_mhz)
        .collect::<Vec<_>>();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "C statements, per statement in a dependent chain (for10/while10/repeat10: a whole \
         10-iteration loop); c = cycles of the clock measured beside each row"
    );
    if let (Some(lo), Some(hi)) = (
        mhz.iter().cloned().reduce(f64::min),
        mhz.iter().cloned().reduce(f64::max),
    ) {
        let _ = writeln!(out, "measured clock {lo:.0}–{hi:.0} MHz");
    }
    let _ = writeln!(out, "{t}");
    Some(out)
}

fn chess_line(run: &Run) -> Option<String> {
    let d: Chess = cpu::chess(run)?;
    Some(format!(
        "cpu.chess: {} plies at depth {}, {} nodes per game, {:.0} nodes/s (seed 000 Table 1: \
         the 11/70 took 13:06 of user CPU for its 130 moves)\n",
        d.plies, d.depth, d.nodes_per_game, d.nodes_per_second
    ))
}

//! Seed 000 (Brandt & Thompson, *Benchmark of UNIX on DEC 11/70*, Bell Labs 1975): the
//! USG 11/45 against a prototype 11/70. Figures are whole jobs ("time" of a program or a
//! shell procedure), printed as m:ss.s; the unit is seconds per job, as timeshare's
//! job rows report them. Added to the machines `pdp11-45` and `pdp11-70`.
//!
//! Transcribed: Table 1 (the 130-move chess game: `cpu.chess`), Table 3 (programs 1–4 in
//! C: `cpu.intfloat.1` … `.4`), Table 9 (N copies of a compute-bound program, average
//! real per copy: `load.cpu.N`) and Table 10 (N command scripts, real per script:
//! `load.script.N`). The seed's configurations differ in I/O devices only: the 11/45 is
//! C1 in Table 1 and C2 elsewhere; the 11/70 is C4 in Table 1 and C7 elsewhere.
//!
//! Bases: Table 1 is per game of 130 plies (both sides of a 65-move game), Table 3 per
//! program run; Table 9's real is "the average of all the programs run simultaneously",
//! so it is per copy, and Table 10's columns "have the same meaning", so per script — the
//! figures `load.cpu.N` and `load.script.N` report.
//!
//! Not transcribed: Table 2 (Gibson-mix programs 1–5 in C and Fortran: which one
//! `cpu.gibson` is cannot be told), Table 4 (`cpu.cache` reports ns per read; the seed
//! gives only the whole run's time, not the number of reads), Table 5 (raw disk-to-disk
//! copies on devices of the time), Tables 6–8 (rebuilding UNIX and the Fortran compiler,
//! and a crypt run over /usr/dict/words: different programs from `mixed.*`'s bundled
//! ones, so a ratio would mean nothing), Table 11 (interference ratios, no per-op figure).

use super::{minutes_seconds, per_op, Figure, Quantity};
use crate::model::details::load::{PER_COPY, PER_SCRIPT};

/// (table, row, id, 11/45 real, 11/70 real), real as printed.
#[rustfmt::skip]
const JOBS: &[(&str, &str, &str, &str, &str)] = &[
    ("Table 1", "chess", "cpu.chess", "29:09", "13:16"),
    ("Table 3", "1 (C)", "cpu.intfloat.1", "11.3", "4.7"),
    ("Table 3", "2 (C)", "cpu.intfloat.2", "23.0", "16.0"),
    ("Table 3", "3 (C)", "cpu.intfloat.3", "15.3", "7.3"),
    ("Table 3", "4 (C)", "cpu.intfloat.4", "32.0", "26.3"),
    ("Table 9", "# Execs 1", "load.cpu.1", "22.3", "8.5"),
    ("Table 9", "# Execs 2", "load.cpu.2", "54.7", "15.8"),
    ("Table 9", "# Execs 5", "load.cpu.5", "2:26.8", "39.4"),
    ("Table 9", "# Execs 10", "load.cpu.10", "4:22.8", "1:02.0"),
    ("Table 10", "# Scripts 1", "load.script.1", "9:20.3", "4:18.7"),
    ("Table 10", "# Scripts 5", "load.script.5", "44:58.1", "16:35.9"),
    ("Table 10", "# Scripts 9", "load.script.9", "87:49.3", "29:27.4"),
];

/// Tables 9 and 10's CPU column: (table, row, id, 11/45, 11/70), as printed. "Total CPU
/// time required (user plus system)", and nearly constant from 1 to 15 copies, so one
/// copy's (one script's): the figure the rows report as user + system per copy.
#[rustfmt::skip]
const CPU: &[(&str, &str, &str, &str, &str)] = &[
    ("Table 9", "# Execs 1", "load.cpu.1", "22.7", "8.5"),
    ("Table 9", "# Execs 2", "load.cpu.2", "22.9", "8.5"),
    ("Table 9", "# Execs 5", "load.cpu.5", "23.0", "8.6"),
    ("Table 9", "# Execs 10", "load.cpu.10", "23.0", "8.7"),
    ("Table 10", "# Scripts 1", "load.script.1", "6:00.5", "3:13.3"),
    ("Table 10", "# Scripts 5", "load.script.5", "6:23.1", "3:23.7"),
    ("Table 10", "# Scripts 9", "load.script.9", "6:38.9", "3:33.6"),
];

pub fn figures() -> Vec<Figure> {
    let mut out = Vec::new();
    for &(table, row, id, real45, real70) in JOBS {
        let config45 = if table == "Table 1" { "C1" } else { "C2" };
        let config70 = if table == "Table 1" { "C4" } else { "C7" };
        for (machine, config, printed) in [
            ("pdp11-45", config45, real45),
            ("pdp11-70", config70, real70),
        ] {
            out.push(job(machine, id, table, row, config, printed));
        }
    }
    // Table 9, 15 copies: the 11/70 only ("Ran Out Of Swap Space" on the 11/45).
    out.push(job(
        "pdp11-70",
        "load.cpu.15",
        "Table 9",
        "# Execs 15",
        "C7",
        "1:26.8",
    ));
    for &(table, row, id, cpu45, cpu70) in CPU {
        for (machine, config, printed) in [("pdp11-45", "C2", cpu45), ("pdp11-70", "C7", cpu70)] {
            out.push(cpu(machine, id, table, row, config, printed));
        }
    }
    out.push(cpu(
        "pdp11-70",
        "load.cpu.15",
        "Table 9",
        "# Execs 15",
        "C7",
        "8.8",
    ));
    out
}

/// A CPU (user + system) figure of Table 9 or 10, per copy or script.
fn cpu(
    machine: &'static str,
    id: &'static str,
    table: &str,
    row: &str,
    config: &str,
    printed: &str,
) -> Figure {
    let mut f = job(machine, id, table, row, config, printed);
    f.quantity = Quantity::Cpu;
    f.place = format!("{table}, row {row}, Config {config}, CPU");
    f.unit = crate::model::Unit::SecondsPerOp;
    f
}

/// What one of a row's figures is per, by the seed's text.
fn basis(id: &str) -> &'static str {
    match id.split('.').nth(1) {
        Some("chess") => "game of 130 plies",
        Some("intfloat") => "program run",
        Some("cpu") => PER_COPY,
        _ => PER_SCRIPT,
    }
}

fn job(
    machine: &'static str,
    id: &'static str,
    table: &str,
    row: &str,
    config: &str,
    printed: &str,
) -> Figure {
    let mut f = per_op(
        machine,
        id,
        Quantity::Headline,
        "000",
        format!("{table}, row {row}, Config {config}, Real"),
        format!(
            "{printed} {}",
            if printed.contains(':') { "(m:ss)" } else { "s" }
        ),
        minutes_seconds(printed),
        1.0,
        "job",
        basis(id),
    );
    f.unit = crate::model::Unit::Seconds;
    f.conversion = format!("{printed} = {} s per job", minutes_seconds(printed));
    f
}

//! Seed 004 (Tuori, *A UNIX Benchmarking Tool*, DCIEM 1982): a system exerciser run on a
//! PDP-11/44 (Version 7), a VAX-11/780 (4.1BSD, 3 MB) and a Perkin-Elmer 3242 (Wollongong
//! Edition VII, 3 MB).
//!
//! The seed's results against the number of processes are graphs, not printed figures,
//! so the only numbers in the text are each job type run alone (real, user and sys
//! seconds, "on the P-E" and "on the VAX") and the P-E's 80-process average (real 15:43,
//! user 11:13, sys 3:51 over 7 trials; kept here as a comment, not a figure: it is a whole
//! batch whose mix of job types the text does not give). The PDP-11/44 has no printed
//! figure at all: `reference` says so rather than list it with none.
//!
//! Ids: the exerciser's job types `exercise.ed`, `exercise.cc`, `exercise.float`,
//! `exercise.nroff`, each per job run alone — what `timeshare exercise` stores for a type
//! from its trusted run, made alone before any batch.

use super::{minutes_seconds, per_op, Comparability, Figure, Machine, Quantity};
use crate::model::Unit;

pub fn machines() -> Vec<Machine> {
    vec![
        Machine {
            name: "vax780-4.1bsd",
            hardware: "DEC VAX-11/780, 3 MB",
            system: "4.1BSD",
            about: "seed 004: each job type alone, real, user and sys (the load curves are graphs only)",
        },
        Machine {
            name: "pe3242",
            hardware: "Perkin-Elmer 3242, 3 MB",
            system: "Wollongong Edition VII UNIX",
            about: "seed 004: each job type alone, real, user and sys (the load curves are graphs only)",
        },
        Machine {
            name: "pdp11-44",
            hardware: "DEC PDP-11/44, 256 KB",
            system: "Version 7 UNIX",
            about: "seed 004: graphs only, no figure printed in the text",
        },
    ]
}

/// Whether today's row of `f`'s id does the paper's work ([`Comparability`]): the same
/// kinds of job by today's programs on bundled inputs, and today's figure is one cold
/// run of each type.
pub fn comparability(f: &Figure) -> Comparability {
    if f.id == "exercise.cc" {
        return Comparability::Like(
            "today's C job compiles the bundled program with today's compiler and then runs \
             what it compiled, where the paper's job was the compile alone; today's figure \
             is one cold run",
        );
    }
    Comparability::Like(
        "the exerciser's 1982 jobs (their editor scripts, input texts and programs) are not \
         at hand: today's do the same kind of work with today's programs on bundled inputs, \
         and today's figure is one cold run",
    )
}

/// The paper's one statement of its spread (§3): 7 trials at 80 processes on the P-E,
/// mean real, user and sys of the whole batch as printed (m:ss), and their standard
/// deviations in seconds.
const EIGHTY: ([&str; 3], [f64; 3]) = (["15:43", "11:13", "3:51"], [3.3, 0.8, 2.8]);

/// The line under `table 004-graphs`: the paper's 80-process trials beside today's
/// `--trials` (whose cells are mean and SD likewise), as printed, never divided: the
/// batch's mix of job types is not given.
pub fn eighty_processes(key: &str) -> Vec<String> {
    if key != "004-graphs" {
        return Vec::new();
    }
    let ([real, user, sys], [sd_real, sd_user, sd_sys]) = EIGHTY;
    vec![format!(
        "7 trials at 80 processes on the P-E (the paper's measure of its spread, the batch's \
         totals): real {real} (SD {sd_real} s), user {user} (SD {sd_user} s), sys {sys} (SD \
         {sd_sys} s); set beside today's in the spread table above: the SD over the mean is \
         the figure comparable across machines, the totals being of another mix of jobs"
    )]
}

/// How many trials the paper's 80-process figures are of.
pub const EIGHTY_TRIALS: usize = 7;

/// The paper's 80-process trials as (what, mean, SD), seconds of the whole batch: real,
/// user, sys, in that order.
pub fn eighty_spread() -> [(&'static str, f64, f64); 3] {
    let (means, sds) = EIGHTY;
    let what = ["real", "user", "sys"];
    std::array::from_fn(|k| (what[k], minutes_seconds(means[k]), sds[k]))
}

/// What each figure is per: one instance of the job type, run alone.
const BASIS: &str = "job run alone";

/// Each job alone: label as printed, id, then (real, user, sys) seconds on the P-E and on
/// the VAX.
#[rustfmt::skip]
const JOBS: &[(&str, &str, [f64; 3], [f64; 3])] = &[
    ("editor", "exercise.ed", [10.2, 4.4, 3.8], [11.6, 3.7, 2.4]),
    ("C compile", "exercise.cc", [39.0, 26.5, 7.1], [30.5, 20.3, 3.5]),
    ("floating point", "exercise.float", [16.0, 12.7, 2.2], [25.0, 23.5, 1.3]),
    ("nroff", "exercise.nroff", [9.6, 5.0, 3.1], [9.0, 4.4, 1.9]),
];

pub fn figures() -> Vec<Figure> {
    let mut out = Vec::new();
    for &(label, id, pe, vax) in JOBS {
        for (machine, on, times) in [("pe3242", "P-E", pe), ("vax780-4.1bsd", "VAX", vax)] {
            let columns = [
                (Quantity::Headline, "real"),
                (Quantity::User, "user"),
                (Quantity::System, "sys"),
            ];
            for (k, (quantity, column)) in columns.into_iter().enumerate() {
                let mut f = per_op(
                    machine,
                    id,
                    quantity,
                    "004",
                    format!("§3 job times alone \"on the {on}\", {label}, {column}"),
                    format!("{} s", times[k]),
                    times[k],
                    1.0,
                    "job run alone",
                    BASIS,
                );
                f.unit = Unit::Seconds;
                out.push(f);
            }
        }
    }
    out
}

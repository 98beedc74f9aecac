//! Seed 004 (Tuori, *A UNIX Benchmarking Tool*, DCIEM 1982): a system exerciser run on a
//! PDP-11/44 (Version 7), a VAX-11/780 (4.1BSD, 3 MB) and a Perkin-Elmer 3242 (Wollongong
//! Edition VII, 3 MB).
//!
//! The seed's results against the number of processes are graphs, not printed figures,
//! so the only numbers in the text are each job type run alone (real seconds, "on the
//! P-E" and "on the VAX") and the P-E's 80-process average (real 15:43, user 11:13,
//! sys 3:51 over 7 trials; kept here as a comment, not a figure: it is a whole batch). The
//! PDP-11/44 has no printed figure at all and is listed with none.
//!
//! Ids: the exerciser's job types `exercise.ed`, `exercise.cc`, `exercise.float`,
//! `exercise.nroff` (one instance of the job, seconds per job). The catalogue names the
//! job types (§8) but no ids yet; these keys follow its `family.name` rule and must match
//! the exercise family's ids when it lands.

use super::{per_op, Figure, Machine, Quantity};
use crate::model::Unit;

pub fn machines() -> Vec<Machine> {
    vec![
        Machine {
            name: "vax780-4.1bsd",
            hardware: "DEC VAX-11/780, 3 MB",
            system: "4.1BSD",
            about: "seed 004: each job type alone (the load curves are graphs only)",
        },
        Machine {
            name: "pe3242",
            hardware: "Perkin-Elmer 3242, 3 MB",
            system: "Wollongong Edition VII UNIX",
            about: "seed 004: each job type alone (the load curves are graphs only)",
        },
        Machine {
            name: "pdp11-44",
            hardware: "DEC PDP-11/44, 256 KB",
            system: "Version 7 UNIX",
            about: "seed 004: graphs only, no figure printed in the text",
        },
    ]
}

/// Each job alone: label as printed, id, real seconds on the P-E, real seconds on the VAX.
const JOBS: &[(&str, &str, f64, f64)] = &[
    ("editor", "exercise.ed", 10.2, 11.6),
    ("C compile", "exercise.cc", 39.0, 30.5),
    ("floating point", "exercise.float", 16.0, 25.0),
    ("nroff", "exercise.nroff", 9.6, 9.0),
];

pub fn figures() -> Vec<Figure> {
    let mut out = Vec::new();
    for &(label, id, pe, vax) in JOBS {
        for (machine, on, real) in [("pe3242", "P-E", pe), ("vax780-4.1bsd", "VAX", vax)] {
            let mut f = per_op(
                machine,
                id,
                Quantity::Headline,
                "004",
                format!("§3 job times alone \"on the {on}\", {label}, real"),
                format!("{real} s"),
                real,
                1.0,
                "job",
            );
            f.unit = Unit::Seconds;
            out.push(f);
        }
    }
    out
}

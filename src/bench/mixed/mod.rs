//! §7 of the catalogue: CPU and I/O together (seed 000, Brandt & Thompson 1975, §3 "Mixed
//! I/O and CPU", Tables 6–8). The seed timed whole jobs run single-thread with `time`:
//! rebuilding the system (Table 6), building the Fortran compiler (Table 7) and a
//! password-guessing run fed through a pipe (Table 8). Here:
//!
//! - `mixed.build`: the bundled multi-file C program built from scratch with make and the
//!   system compiler, then run and its output checked (Table 6);
//! - `mixed.fortran`: a bundled Fortran library of builtin functions and I/O routines and a
//!   program linked against it, built from scratch with gfortran and ar, run and checked
//!   (Table 7; skipped where gfortran is not installed);
//! - `mixed.crypt`: every word of a bundled word list, then every reversed word (reversed
//!   by a second process and passed through a pipe), hashed and matched against a bundled
//!   password file; the number of matches is checked (Table 8).
//!
//! Both are whole jobs: one operation is one complete job, a few samples, and the
//! harness's user/system times (getrusage of self + reaped children) give the seed's CPU
//! column beside the real one.

use crate::harness::contract::Benchmark;

mod build;
mod crypt;
mod fortran;

/// The family's section of `docs/benchmarks.md`.
#[linkme::distributed_slice(crate::model::catalogue::SECTIONS)]
fn section() -> crate::model::catalogue::Section {
    crate::model::catalogue::Section {
        order: 120,
        family: "mixed",
        heading: "`mixed` — CPU and I/O together",
        seeds: "Seed 000 Tables 6–8: building a program, a password search fed through a pipe.",
    }
}

/// The family's place in the catalogue: registered here, gathered by
/// [`crate::bench::Registry`].
#[linkme::distributed_slice(crate::bench::FAMILIES)]
fn family() -> crate::bench::Family {
    crate::bench::Family::rows("mixed", 160, |_| all())
}

pub fn all() -> Vec<Benchmark> {
    vec![build::benchmark(), fortran::benchmark(), crypt::benchmark()]
}

//! §4 of the catalogue: compute. Seed 003 (the PERQ note): the C statement table in 16-
//! and 32-bit, the Zilog sieve and procedure-call programs; seed 000 (Bell Labs 1975): the
//! chess game of Table 1, the Gibson-mix program of Table 2 and the integer-versus-float
//! programs of Table 3. (`cpu.cache`, Table 4, lives in `bench/cache`.)
//!
//! Each row is a [`Benchmark`]: metadata, a sampling plan and a function that prepares the
//! workload. Every kernel checks its own answer (prime count, checksum, move list) and a
//! wrong one fails the row.

use crate::harness::contract::{Benchmark, Plan};
use crate::model::{Mode, Source};

pub mod chess;
pub mod clock;
mod gibson;
mod intfloat;
mod kernels;
pub mod stmt;

/// The family's section of `docs/benchmarks.md`.
#[linkme::distributed_slice(crate::model::catalogue::SECTIONS)]
fn section() -> crate::model::catalogue::Section {
    crate::model::catalogue::Section {
        order: 80,
        family: "cpu",
        heading: "`cpu` — compute",
        seeds: "Seed 003's C statement tables, sieve and procedure calls; seed 000's chess game, Gibson \
            mix, integer-versus-float programs and cache reads (Tables 1–4).",
    }
}

/// The family's place in the catalogue: registered here, gathered by
/// [`crate::bench::Registry`].
#[linkme::distributed_slice(crate::bench::FAMILIES)]
fn family() -> crate::bench::Family {
    crate::bench::Family::rows("cpu", 110, |_| all())
}

pub fn all() -> Vec<Benchmark> {
    let mut rows = stmt::rows();
    rows.extend(kernels::rows());
    rows.extend(gibson::rows());
    rows.extend(intfloat::rows());
    rows.extend(chess::rows());
    rows
}

/// Calibrated batches without the harness's per-iteration loop correction: for kernels
/// whose operation is a whole program (a sieve, a million calls) or whose own loop is
/// unrolled so that its cost is a small fraction of an operation, run in parallel with it.
pub fn calibrated_whole(mode: Mode) -> Plan {
    Plan::calibrated_no_loop(mode)
}

/// The seed-003 place of a row of its C statement tables.
pub const fn perq(place: &'static str) -> Source {
    Source::seed("003", place)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_family_has_every_catalogue_id() {
        let all = all();
        let ids: Vec<&str> = all.iter().map(|b| b.id()).collect();
        for id in [
            "cpu.stmt.i16.for10",
            "cpu.stmt.f64.ptr",
            "cpu.stmt.i64.div",
            "cpu.sieve",
            "cpu.proc_call",
            "cpu.gibson",
            "cpu.intfloat.1",
            "cpu.intfloat.4",
            "cpu.chess",
        ] {
            assert!(ids.contains(&id), "{id} missing");
        }
        assert_eq!(ids.len(), 85 + 2 + 1 + 4 + 1);
        assert!(all.iter().all(|b| b.family() == "cpu"));
    }
}

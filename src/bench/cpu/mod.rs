//! §4 of the catalogue: compute. Seed 003 (the PERQ note): the C statement table in 16-
//! and 32-bit, the Zilog sieve and procedure-call programs; seed 000 (Bell Labs 1975): the
//! chess game of Table 1, the Gibson-mix program of Table 2 and the integer-versus-float
//! programs of Table 3. (`cpu.cache`, Table 4, lives in `bench/cache`.)
//!
//! Each row is a [`Row`]: metadata, a sampling plan and a function that prepares the
//! workload. Every kernel checks its own answer (prime count, checksum, move list) and a
//! wrong one fails the row.

use anyhow::Result;

use super::{Benchmark, Ctx, Plan, Workload};
use crate::model::{Metric, Mode, Source};

pub mod chess;
pub mod clock;
mod gibson;
mod intfloat;
mod kernels;
pub mod stmt;

pub fn all() -> Vec<Box<dyn Benchmark>> {
    let mut rows: Vec<Row> = stmt::rows();
    rows.extend_from_slice(kernels::ROWS);
    rows.extend_from_slice(gibson::ROWS);
    rows.extend_from_slice(intfloat::ROWS);
    rows.extend_from_slice(chess::ROWS);
    rows.into_iter()
        .map(|row| Box::new(row) as Box<dyn Benchmark>)
        .collect()
}

/// One row of §4.
#[derive(Clone, Copy)]
pub struct Row {
    pub id: &'static str,
    pub about: &'static str,
    pub source: Source,
    pub metric: Metric,
    pub plan: fn(Mode) -> Plan,
    pub prepare: fn(&Ctx) -> Result<Box<dyn Workload>>,
}

impl Benchmark for Row {
    fn id(&self) -> &'static str {
        self.id
    }
    fn about(&self) -> &'static str {
        self.about
    }
    fn source(&self) -> Source {
        self.source
    }
    fn metric(&self) -> Metric {
        self.metric
    }
    fn plan(&self, mode: Mode) -> Plan {
        (self.plan)(mode)
    }
    fn prepare(&self, ctx: &Ctx) -> Result<Box<dyn Workload>> {
        (self.prepare)(ctx)
    }
}

/// Calibrated batches without the harness's per-iteration loop correction: for kernels
/// whose operation is a whole program (a sieve, a million calls) or whose own loop is
/// unrolled so that its cost is a small fraction of an operation, run in parallel with it.
pub fn calibrated_whole(mode: Mode) -> Plan {
    Plan {
        subtract_loop: false,
        ..Plan::calibrated(mode)
    }
}

/// The seed-003 place of a row of its C statement tables.
pub const fn perq(place: &'static str) -> Source {
    Source::seed("003", place)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Host;
    use crate::harness::clock::now_ns;
    use crate::harness::rusage::thread_preemptions;
    use crate::model::RunOptions;

    /// The fastest of up to `tries` timings of `run(n)` in ns, preferring timings during
    /// which the thread was not preempted (the harness's culling rule): on a loaded
    /// 2-core machine most timings of a few ms are disturbed, and only clean ones show
    /// the work itself.
    fn clean_ns(w: &mut dyn Workload, n: u64, tries: usize) -> u64 {
        let mut best_clean = u64::MAX;
        let mut best_any = u64::MAX;
        let mut clean = 0;
        for _ in 0..tries {
            let p0 = thread_preemptions();
            let t0 = now_ns();
            w.run(n).expect("the kernel checks its own result");
            let t = now_ns() - t0;
            best_any = best_any.min(t);
            if thread_preemptions() == p0 {
                best_clean = best_clean.min(t);
                clean += 1;
                if clean >= 3 {
                    break;
                }
            }
        }
        if best_clean == u64::MAX {
            best_any
        } else {
            best_clean
        }
    }

    /// Twice the operations take about twice the time for every kernel of the family:
    /// nothing was optimised away, and each operation is really done. (Meaningful in the
    /// release profile, which `cargo test --release` uses.)
    #[test]
    fn twice_the_operations_take_twice_the_time() {
        let options = RunOptions::default();
        let host = Host::detect();
        let scratch = tempfile::tempdir().unwrap();
        let ctx = Ctx {
            mode: Mode::Quick,
            options: &options,
            scratch: scratch.path(),
            host: &host,
        };
        let mut bad = Vec::new();
        for b in all() {
            let mut w = b.prepare(&ctx).unwrap();
            // A batch of at least 0.2 ms (a whole game for the chess row): short enough to
            // fit in one scheduler time slice on a loaded machine.
            let mut n = 1;
            while n < 1 << 40 && clean_ns(w.as_mut(), n, 3) < 200_000 {
                n *= 4;
            }
            // Interleaved, so that both sizes see the same phases of the machine's load
            // (a VM's stolen time does not show as a preemption).
            // Rounds stop early once the ratio is plainly about 2.
            let rounds = if b.id() == "cpu.chess" { 1 } else { 12 };
            let (mut one, mut two) = (u64::MAX, u64::MAX);
            for round in 0..rounds {
                one = one.min(clean_ns(w.as_mut(), n, 3));
                two = two.min(clean_ns(w.as_mut(), 2 * n, 3));
                let ratio = two as f64 / one as f64;
                if round >= 2 && (1.8..=2.2).contains(&ratio) {
                    break;
                }
            }
            let ratio = two as f64 / one as f64;
            if !(1.6..=2.5).contains(&ratio) {
                bad.push(format!(
                    "{}: n = {n}: {one} ns, 2n: {two} ns, ratio {ratio:.2}",
                    b.id()
                ));
            }
        }
        assert!(
            bad.is_empty(),
            "not proportional to the work:\n{}",
            bad.join("\n")
        );
    }

    #[test]
    fn the_family_has_every_catalogue_id() {
        let ids: Vec<&str> = all().iter().map(|b| b.id()).collect();
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
        assert!(all().iter().all(|b| b.family() == "cpu"));
    }
}

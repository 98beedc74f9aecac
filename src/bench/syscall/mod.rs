//! §1 of the catalogue: the cost of a system call (seed 002, Perez & Raleigh 1976), the
//! clock read that corrects every figure (002's "event call"), argument passing, and the
//! subroutine calls 002 and the PERQ note (003) set beside them.
//!
//! Each row is a [`Benchmark`]: its metadata and a function that prepares a loop over
//! one operation. The files group alike rows: `process` (ids and signals), `time` (clocks),
//! `files` (descriptors and paths), `tty`, `args`, `calls`.

use anyhow::Result;

use crate::harness::contract::{Benchmark, Derived, Workload};
use crate::model::{Basis, Source, Unit};

mod args;
pub(crate) mod calls;
mod files;
mod process;
pub mod raw;
mod time;
mod tty;

/// A new pseudo-terminal pair (master, slave), for the rows that need one.
pub use tty::open_pty;

/// The family's section of `docs/benchmarks.md`.
#[linkme::distributed_slice(crate::model::catalogue::SECTIONS)]
fn section() -> crate::model::catalogue::Section {
    crate::model::catalogue::Section {
        order: 10,
        family: "syscall",
        heading: "`syscall` — the cost of a system call",
        seeds:
            "Seed 002 (Bell Labs 1976) timed each system call, its arguments and the clock that \
            timed them; seed 003 adds the PERQ's file-status and open/close rows and nested calls.",
    }
}

/// The family's place in the catalogue: registered here, gathered by
/// [`crate::bench::Registry`].
#[linkme::distributed_slice(crate::bench::FAMILIES)]
fn family() -> crate::bench::Family {
    crate::bench::Family {
        derived,
        ..crate::bench::Family::rows("syscall", 10, |_| all())
    }
}

pub fn all() -> Vec<Benchmark> {
    [
        time::rows(),
        process::rows(),
        files::rows(),
        tty::rows(),
        args::rows(),
        calls::rows(),
    ]
    .into_iter()
    .flatten()
    // `timer.clock` and `call.*` are in §1 with the system calls.
    .map(|b| b.with_family("syscall"))
    .map(|b| {
        if TIMED_ONE_BY_ONE.contains(&b.id()) {
            b.timed_one_by_one()
        } else {
            b
        }
    })
    .collect()
}

/// The rows of seed 002 Figures 3, 4, 5 and 6, whose mean and SD the paper took over single
/// calls: each is also timed one call at a time, so that today's mean and SD are the same
/// statistic (a test keeps this list equal to the rows those figures name).
pub const TIMED_ONE_BY_ONE: &[&str] = &[
    "syscall.getpid",
    "syscall.getuid",
    "syscall.getgid",
    "syscall.time.raw",
    "syscall.times",
    "syscall.alarm",
    "syscall.signal",
    "syscall.kill",
    "syscall.nice",
    "syscall.setuid",
    "syscall.setgid",
    "syscall.dup",
    "syscall.gtty",
    "call.subroutine",
    "syscall.args.0",
    "syscall.indirect.1",
    "syscall.indirect.2",
    "syscall.indirect.3",
    "syscall.indirect.4",
];

/// Figures computed from the rows' medians after a run.
pub fn derived() -> Vec<Derived> {
    vec![
        Derived {
            id: "timer.clock.kernel",
            about: "the clock read inside the kernel: clock_gettime forced into the kernel less \
                    the same entry and exit with no work (002 Figure 2's sys column, the event \
                    call made from system code)",
            source: fig("Figure 2: event call timing, sys"),
            unit: Unit::SecondsPerOp,
            basis: Basis::per("clock read"),
            inputs: &["syscall.time.raw", "syscall.args.0"],
            compute: time::inside_the_kernel,
        },
        Derived {
            id: "syscall.args.slope",
            about:
                "the cost of one more system call argument: the slope of syscall.indirect.1–4's \
                medians (002 Figure 3's 95, 70 and 30 µs per argument)",
            source: fig("Figure 3 text: the increment per argument"),
            unit: Unit::SecondsPerOp,
            basis: Basis::per(PER_ARGUMENT),
            inputs: args::INDIRECT,
            compute: args::per_argument,
        },
    ]
}

/// What `syscall.args.slope` is per.
pub const PER_ARGUMENT: &str = "system call argument";

/// Why the id-setting rows need root (002 tested them "apart in a program that had
/// super-user permissions").
const ROOT_ONLY: &str = "setting the process's ids is privileged";

/// Seed 002's figure for a row, as a source.
const fn fig(place: &'static str) -> Source {
    Source::seed("002", place)
}

/// The result of a C call returning -1 on error, as an error naming the call.
pub fn check(ret: i64, what: &str) -> Result<i64> {
    if ret < 0 {
        let e = std::io::Error::last_os_error();
        anyhow::bail!("{what}: {e}");
    }
    Ok(ret)
}

/// How a call reports failure: the raw instruction returns −errno; the C library returns
/// −1 and sets errno.
#[derive(Clone, Copy)]
pub enum Convention {
    Raw,
    Libc,
}

/// A loop over one system call whose every return value is checked: a call that fails
/// (EBADF, EPERM…) fails the row instead of timing an error path. The check is one
/// well-predicted branch per call.
pub struct Calls<F: FnMut() -> i64> {
    what: &'static str,
    convention: Convention,
    op: F,
}

impl<F: FnMut() -> i64> Calls<F> {
    pub fn boxed(what: &'static str, convention: Convention, op: F) -> Box<dyn Workload>
    where
        F: 'static,
    {
        Box::new(Calls {
            what,
            convention,
            op,
        })
    }
}

impl<F: FnMut() -> i64> Workload for Calls<F> {
    fn run(&mut self, n: u64) -> Result<()> {
        let mut failed = 0u64;
        let mut last = 0i64;
        for _ in 0..n {
            let r = (self.op)();
            if r < 0 {
                failed += 1;
                last = r;
            }
        }
        if failed > 0 {
            let err = match self.convention {
                Convention::Raw => std::io::Error::from_raw_os_error(-last as i32),
                Convention::Libc => std::io::Error::last_os_error(),
            };
            anyhow::bail!("{} failed {failed} of {n} times: {err}", self.what);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::{self, Quantity};

    #[test]
    fn the_rows_timed_one_by_one_are_those_of_seed_002_s_mean_and_sd() {
        let mut named: Vec<String> = reference::figures()
            .into_iter()
            .filter(|f| f.seed == "002" && f.quantity == Quantity::Mean)
            .map(|f| f.id)
            .collect();
        named.sort();
        named.dedup();
        let mut listed: Vec<String> = TIMED_ONE_BY_ONE.iter().map(|s| s.to_string()).collect();
        listed.sort();
        assert_eq!(listed, named);
        // And the flag reaches the registered rows.
        for b in all() {
            assert_eq!(
                b.times_single_calls(),
                TIMED_ONE_BY_ONE.contains(&b.id()),
                "{}",
                b.id()
            );
        }
    }
}

//! `thread` (threads and switches): creating a thread beside creating a process, and the
//! context switch with a working set, among N processes passing a token (lmbench's
//! `lat_ctx -s`), set beside seed 001's `ctx.switch`. The ring rows' ids begin with
//! `ctx.` so that they sort beside `ctx.switch`; `run thread` selects them all.
//!
//! # Timing model
//! `thread.create`: one operation is pthread_create of a thread that returns at once,
//! with default attributes (an 8 MiB stack mapping, reused by glibc from its cache of
//! stacks), and pthread_join of it; `proc.fork.0` is the same for a process. The rings:
//! see [`ring`].

use anyhow::{bail, Result};

use crate::bench::micro::processes;
use crate::harness::anchor::{Anchor, Parse};
use crate::harness::contract::{Benchmark, Workload};
use crate::model::Source;

pub mod ring;

/// Ring sizes (processes) and working sets (bytes per process) of the `ctx.ring` rows.
pub const RINGS: [usize; 2] = [2, 16];
pub const SETS: [usize; 3] = [0, 16 << 10, 64 << 10];

/// The family's section of `docs/benchmarks.md`.
#[linkme::distributed_slice(crate::model::catalogue::SECTIONS)]
fn section() -> crate::model::catalogue::Section {
    crate::model::catalogue::Section {
        order: 150,
        family: "thread",
        heading: "`thread` — threads and switches",
        seeds:
            "Beyond the seeds: thread create and join beside fork and wait; a token passed round \
            a ring of N processes with a working set each (lmbench's lat_ctx -s).",
    }
}

/// The family's place in the catalogue: registered here, gathered by
/// [`crate::bench::Registry`].
#[linkme::distributed_slice(crate::bench::FAMILIES)]
fn family() -> crate::bench::Family {
    crate::bench::Family::rows("thread", 70, |_| all())
}

pub fn all() -> Vec<Benchmark> {
    let mut rows = vec![Benchmark::new(
        "thread.create",
        "pthread_create of a thread that returns at once, then pthread_join (beside proc.fork.0)",
        Source::Modern("a thread's creation beside a process's (proc.fork.0)"),
        |_| Ok(Box::new(ThreadCreate) as Box<dyn Workload>),
    )
    .with_plan(processes)
    .per("thread create + join")];
    for n in RINGS {
        for s in SETS {
            rows.push(ring_row(n, s));
        }
    }
    rows
}

fn ring_row(n: usize, set: usize) -> Benchmark {
    let kib = set >> 10;
    let (about, args): (&'static str, &'static [&'static str]) = match (n, kib) {
        (2, 0) => (
            "a token passed round 2 processes, no working set (lat_ctx -s 0 2)",
            &["-N", "5", "-s", "0", "2"],
        ),
        (2, 16) => (
            "a token passed round 2 processes, each summing 16 KiB of its own (lat_ctx -s 16 2)",
            &["-N", "5", "-s", "16", "2"],
        ),
        (2, _) => (
            "a token passed round 2 processes, each summing 64 KiB of its own (lat_ctx -s 64 2)",
            &["-N", "5", "-s", "64", "2"],
        ),
        (_, 0) => (
            "a token passed round 16 processes, no working set (lat_ctx -s 0 16)",
            &["-N", "5", "-s", "0", "16"],
        ),
        (_, 16) => (
            "a token passed round 16 processes, each summing 16 KiB of its own (lat_ctx -s 16 16)",
            &["-N", "5", "-s", "16", "16"],
        ),
        (_, _) => (
            "a token passed round 16 processes, each summing 64 KiB of its own (lat_ctx -s 64 16)",
            &["-N", "5", "-s", "64", "16"],
        ),
    };
    Benchmark::new(
        format!("ctx.ring.{n}.{kib}k"),
        about,
        Source::Modern("context switches with a working set, what lmbench's lat_ctx measures"),
        move |_| Ok(Box::new(ring::Ring::start(n, set)?) as Box<dyn Workload>),
    )
    .with_family("thread")
    .partnered()
    .per_job(
        n as u64,
        "token pass between processes (a context switch on one CPU)",
    )
    .anchor(
        Anchor::lmbench(
            "lmbench lat_ctx",
            "lat_ctx",
            args,
            Parse::LmbenchCtxWholePass,
            "per token pass (a switch, a pipe write and read, the working-set sum): lat_ctx's \
             figure with the one-process pass it subtracts (its ovr) added back",
        )
        .per_row_op(1.0 / n as f64),
    )
}

extern "C" fn returns_at_once(_: *mut libc::c_void) -> *mut libc::c_void {
    std::ptr::null_mut()
}

/// pthread_create + pthread_join, nothing else.
struct ThreadCreate;

impl Workload for ThreadCreate {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            let mut t: libc::pthread_t = 0;
            // SAFETY: a thread with default attributes running a function that touches
            // nothing; joined before the next is made.
            let rc = unsafe {
                libc::pthread_create(
                    &mut t,
                    std::ptr::null(),
                    returns_at_once,
                    std::ptr::null_mut(),
                )
            };
            if rc != 0 {
                bail!("pthread_create: {}", std::io::Error::from_raw_os_error(rc));
            }
            // SAFETY: joins the thread just created.
            let rc = unsafe { libc::pthread_join(t, std::ptr::null_mut()) };
            if rc != 0 {
                bail!("pthread_join: {}", std::io::Error::from_raw_os_error(rc));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_ring_row_says_and_runs_what_its_id_says() {
        let rows = all();
        for n in RINGS {
            for s in SETS {
                let id = format!("ctx.ring.{n}.{}k", s >> 10);
                let b = rows.iter().find(|b| b.id() == id).unwrap();
                let cmd = format!("-s {} {n})", s >> 10);
                assert!(b.about().ends_with(&cmd), "{id}: {}", b.about());
                let a = &b.anchors()[0];
                assert!(a.command_line().ends_with(&cmd[..cmd.len() - 1]), "{id}");
                assert_eq!(a.per_row_op, 1.0 / n as f64);
                assert_eq!(b.family(), "thread");
            }
        }
    }

    #[test]
    fn threads_are_created_and_joined() {
        ThreadCreate.run(20).unwrap();
    }
}

//! `wait` (locks and waits): what a process pays to hand the CPU to another through a
//! lock or a semaphore, and to ask the kernel which of N descriptors are ready. fcntl
//! record locks, flock and System V semaphores passed back and forth between two
//! processes (lmbench's `lat_fcntl`, `lat_sem`), a futex wake/wait round trip between two
//! threads, a pthread mutex with and without contention, and select, poll and epoll on
//! N = 10, 100 and 1000 descriptors (lmbench's `lat_select`).
//!
//! Timing models: [`locks`] (the process round trips), [`threads`] (futex and mutex),
//! [`mod@events`] (select, poll, epoll).

use anyhow::Result;

use crate::harness::anchor::{Anchor, Parse};
use crate::harness::contract::{Benchmark, Ctx, LoopWorkload, Workload};
use crate::model::Source;

pub mod events;
pub mod locks;
pub mod threads;

use events::{Call, Waits};
use locks::{Kind, LockPingPong, SemPingPong};
use threads::{FutexPingPong, MutexLoop};

/// The descriptor counts of the select, poll and epoll rows.
pub const COUNTS: [usize; 3] = [10, 100, 1000];

/// The family's section of `docs/benchmarks.md`.
#[linkme::distributed_slice(crate::model::catalogue::SECTIONS)]
fn section() -> crate::model::catalogue::Section {
    crate::model::catalogue::Section {
        order: 140,
        family: "wait",
        heading: "`wait` — locks and waits",
        seeds:
            "Beyond the seeds: record locks, flock, semaphores, futexes and mutexes between two \
            processes or threads; select, poll and epoll on N descriptors (lmbench's lat_fcntl, \
            lat_sem, lat_select).",
    }
}

/// The family's place in the catalogue: registered here, gathered by
/// [`crate::bench::Registry`].
#[linkme::distributed_slice(crate::bench::FAMILIES)]
fn family() -> crate::bench::Family {
    crate::bench::Family::rows("wait", 140, |_| all())
}

pub fn all() -> Vec<Benchmark> {
    let mut rows = vec![
        Benchmark::new(
            "wait.fcntl",
            "round trip between two processes through fcntl record locks (lat_fcntl)",
            Source::Modern("record locking, what lmbench's lat_fcntl measures"),
            |c| boxed(LockPingPong::prepare(c, Kind::Fcntl)),
        )
        .partnered()
        .per("round trip (each side waits for a lock once)")
        .anchor(
            Anchor::lmbench(
                "lmbench lat_fcntl",
                "lat_fcntl",
                &["-N", "5"],
                Parse::LmbenchMicroseconds,
                "per round trip of the lock between two processes",
            )
            // Debian's lat_fcntl makes its lock files there, and not the directory: it
            // runs with a private view of it.
            .with_dir("/var/tmp/lmbench")
            .explained(
                "lat_fcntl's two-lock pattern lets a process take again a lock it has just \
                 released before the other runs: a C copy of it, pinned to one CPU, made no \
                 voluntary context switch in 100,000 iterations of its timed process (perf \
                 stat of lat_fcntl itself: 0.20 switches per fcntl call, 0.8 per operation it \
                 reports), so its figure is of lock calls that wake a partner that then fails \
                 to get the lock; wait.fcntl's rotation hands the lock over both ways, 2 \
                 switches per round trip",
            ),
        ),
        Benchmark::new(
            "wait.flock",
            "round trip between two processes through flock on three files",
            Source::Modern("BSD whole-file locks, beside the fcntl record locks"),
            |c| boxed(LockPingPong::prepare(c, Kind::Flock)),
        )
        .partnered()
        .per("round trip (each side waits for a lock once)"),
        Benchmark::new(
            "wait.sem",
            "round trip between two processes through a System V semaphore pair (lat_sem)",
            Source::Modern("System V semaphores, what lmbench's lat_sem measures"),
            |_| boxed(SemPingPong::prepare()),
        )
        .partnered()
        .per("round trip (each side waits on a semaphore once)")
        .anchor(
            Anchor::lmbench(
                "lmbench lat_sem",
                "lat_sem",
                &["-N", "5"],
                Parse::LmbenchMicroseconds,
                "per half round trip (lat_sem divides its round trips' time by twice their \
                 number), so two per round trip",
            )
            .per_row_op(0.5),
        ),
        Benchmark::new(
            "wait.futex",
            "futex wake/wait round trip between two threads on one word",
            Source::Modern("the primitive under every Linux lock and condition variable"),
            |_| Ok(Box::new(FutexPingPong::start()) as Box<dyn Workload>),
        )
        .partnered()
        .per("round trip (wake the other, wait to be woken)"),
        Benchmark::new(
            "wait.mutex",
            "pthread_mutex_lock + unlock, no other thread wants it",
            Source::Modern("the uncontended lock: two atomic instructions, no system call"),
            |_| Ok(Box::new(MutexLoop::start(false)) as Box<dyn Workload>),
        )
        .per("lock + unlock"),
        Benchmark::new(
            "wait.mutex.contended",
            "pthread_mutex_lock + unlock while another thread does the same on it",
            Source::Modern("a contended lock: futex waits and cache-line transfers"),
            |_| Ok(Box::new(MutexLoop::start(true)) as Box<dyn Workload>),
        )
        .partnered()
        .per("lock + unlock by the measuring thread"),
        Benchmark::new(
            "wait.mutex.std",
            "Rust's std Mutex lock + unlock, uncontended (beside the pthread mutex)",
            Source::Modern("the lock Rust programs use; a futex word without pthread's checks"),
            |_| {
                let m = std::sync::Mutex::new(0u64);
                Ok(Box::new(LoopWorkload::new(move || {
                    *m.lock().unwrap() += 1;
                })) as Box<dyn Workload>)
            },
        )
        .per("lock + unlock"),
    ];
    for n in COUNTS {
        rows.push(select_row(n));
        rows.push(event_row(Call::Poll, n));
        rows.push(event_row(Call::Epoll, n));
    }
    rows
}

fn boxed<W: Workload + 'static>(w: Result<W>) -> Result<Box<dyn Workload>> {
    Ok(Box::new(w?))
}

fn events(ctx: &Ctx, call: Call, n: usize) -> Result<Box<dyn Workload>> {
    Ok(Box::new(Waits::prepare(call, n, ctx.scratch)?))
}

/// Why lat_select examines fewer descriptors than it names: it passes its count N as
/// select's `nfds`, so of the N descriptors it dups (numbered from its lowest free one)
/// only those below N are examined. `strace -f` of `lat_select -N 1 -n N file` here:
/// `pselect6(10, NULL, [6 8], …) = 2`, and 91 of 100, 990 of 1000; the row examines all N.
const LAT_SELECT_EXAMINES_FEWER: &str =
    "lat_select passes N as select's nfds, so only its descriptors numbered below N are \
     examined: 2 of 10, 91 of 100, 990 of 1000 here (strace: pselect6(10, NULL, [6 8], ...) \
     = 2); the row examines all N, five times the tool's descriptors at N = 10";

fn select_row(n: usize) -> Benchmark {
    let (about, args): (&'static str, &'static [&'static str]) = match n {
        10 => (
            "select on 10 descriptors of a regular file, all ready (lat_select -n 10 file)",
            &["-N", "5", "-n", "10", "file"],
        ),
        100 => (
            "select on 100 descriptors of a regular file, all ready (lat_select -n 100 file)",
            &["-N", "5", "-n", "100", "file"],
        ),
        _ => (
            "select on 1000 descriptors of a regular file, all ready (lat_select -n 1000 file)",
            &["-N", "5", "-n", "1000", "file"],
        ),
    };
    Benchmark::new(
        format!("wait.select.{n}"),
        about,
        Source::Modern("select's cost by descriptor count, what lmbench's lat_select measures"),
        move |c| events(c, Call::Select, n),
    )
    .per("select call")
    .anchor(
        Anchor::lmbench(
            "lmbench lat_select file",
            "lat_select",
            args,
            Parse::LmbenchMicroseconds,
            "per select call on N descriptors of a regular file",
        )
        .explained(LAT_SELECT_EXAMINES_FEWER),
    )
}

fn event_row(call: Call, n: usize) -> Benchmark {
    let (id, about, op) = match (call, n) {
        (Call::Poll, 10) => (
            "wait.poll.10",
            "poll on 10 descriptors of a regular file, all ready",
            "poll call",
        ),
        (Call::Poll, 100) => (
            "wait.poll.100",
            "poll on 100 descriptors of a regular file, all ready",
            "poll call",
        ),
        (Call::Poll, _) => (
            "wait.poll.1000",
            "poll on 1000 descriptors of a regular file, all ready",
            "poll call",
        ),
        (_, 10) => (
            "wait.epoll.10",
            "epoll_wait reporting 10 ready eventfds (level-triggered)",
            "epoll_wait call",
        ),
        (_, 100) => (
            "wait.epoll.100",
            "epoll_wait reporting 100 ready eventfds (level-triggered)",
            "epoll_wait call",
        ),
        (_, _) => (
            "wait.epoll.1000",
            "epoll_wait reporting 1000 ready eventfds (level-triggered)",
            "epoll_wait call",
        ),
    };
    Benchmark::new(
        id,
        about,
        Source::Modern("readiness by descriptor count: poll and epoll beside select"),
        move |c| events(c, call, n),
    )
    .per(op)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every select row's lat_select pair carries the measured reason the tool examines
    /// fewer descriptors; no other row of the family is excused by it.
    #[test]
    fn only_the_select_rows_are_excused_lat_select_s_short_nfds() {
        let rows = all();
        let selects: Vec<&Benchmark> = rows
            .iter()
            .filter(|b| b.id().starts_with("wait.select."))
            .collect();
        assert_eq!(selects.len(), 3);
        for b in &selects {
            assert_eq!(
                b.anchors()[0].explained,
                Some(LAT_SELECT_EXAMINES_FEWER),
                "{}",
                b.id()
            );
        }
        let excused_elsewhere = rows
            .iter()
            .filter(|b| !b.id().starts_with("wait.select."))
            .flat_map(|b| b.anchors())
            .any(|a| a.explained == Some(LAT_SELECT_EXAMINES_FEWER));
        assert!(!excused_elsewhere);
    }
}

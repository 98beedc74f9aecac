//! Seed 001 §3.2.5 (and §4.1.3): finding one process among N. 4.2BSD searched its process
//! table linearly in kill, exit, wait, fork and the scheduler, and the paper measured up to
//! 20% of a loaded VAX's kernel time in `schedcpu`'s search alone; 4.3BSD threaded the
//! table into lists. These rows make N idle processes and time the two ways a process is
//! found today: by the kernel, from its pid (`kill(pid, 0)`), and by a program, walking
//! `/proc` as ps and pgrep do.
//!
//! Ids: `proc.table.kill.N`, `proc.table.walk.N`, N = 100, 1000, 10000.
//!
//! # Timing model
//! Before sampling, N children are forked; each only waits in `pause()` (and dies with
//! this process). One operation of `kill` is one `kill(pid, 0)` of the next child in turn
//! (every child is asked in a cycle, none twice in a row); it must succeed. One operation
//! of `walk` is opendir("/proc"), readdir until the entry of the next child in turn,
//! closedir; the child must be found. /proc lists processes by ascending pid, so a walk
//! reads on average half the children and every process made before them. Nothing else is
//! inside the timed region; the children are killed and reaped after sampling.
//!
//! A quick run measures N = 100 and 1000 and skips 10000 with the reason (forking and
//! reaping 10,000 processes takes seconds, and their memory a gigabyte on some systems).

use std::ffi::CStr;

use anyhow::{bail, Result};

use super::super::micro::berkeley;
use crate::harness::children::Child;
use crate::harness::contract::{Benchmark, Ctx, Skip, Workload};
use crate::harness::limits::{preflight, Needs};
use crate::model::Mode;

/// The largest population a quick run makes.
pub const QUICK_MAX: usize = 1000;

/// How a process is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Find {
    /// By the kernel, from its pid: kill(pid, 0).
    Kill,
    /// By a program reading /proc's directory.
    Walk,
}

#[rustfmt::skip]
pub fn rows() -> Vec<Benchmark> { vec![
    row("proc.table.kill.100", "kill(pid, 0) of one of 100 idle children in turn (001 §3.2.5)",
        Find::Kill, 100),
    row("proc.table.kill.1000", "kill(pid, 0) of one of 1,000 idle children in turn (001 §3.2.5)",
        Find::Kill, 1000),
    row("proc.table.kill.10000", "kill(pid, 0) of one of 10,000 idle children (001 §3.2.5; full runs)",
        Find::Kill, 10000),
    row("proc.table.walk.100", "read /proc up to one of 100 idle children in turn (001 §3.2.5)",
        Find::Walk, 100),
    row("proc.table.walk.1000", "read /proc up to one of 1,000 idle children in turn (001 §3.2.5)",
        Find::Walk, 1000),
    row("proc.table.walk.10000", "read /proc up to one of 10,000 idle children (001 §3.2.5; full runs)",
        Find::Walk, 10000),
]}

fn row(id: &'static str, about: &'static str, find: Find, n: usize) -> Benchmark {
    let op = match find {
        Find::Kill => "kill(pid, 0) of one process among N",
        Find::Walk => "walk of /proc to one process among N",
    };
    Benchmark::new(
        id,
        about,
        berkeley("§3.2.5: process table management"),
        move |ctx| prepare(ctx, find, n),
    )
    .per(op)
}

fn prepare(ctx: &Ctx, find: Find, n: usize) -> Result<Box<dyn Workload>> {
    if ctx.mode == Mode::Quick && n > QUICK_MAX {
        return Err(Skip::new(format!(
            "a quick run makes at most {QUICK_MAX} processes; {n} are measured in a full run"
        ))
        .into());
    }
    let needs = Needs {
        dir: ctx.scratch,
        bytes: 0,
        processes: n as u64,
        files: 0,
        memory: 0,
    };
    preflight(&needs, ctx.host.is_root).map_err(Skip::new)?;
    Ok(Box::new(Population::new(find, n)?))
}

/// N idle children and the one to find next.
pub struct Population {
    find: Find,
    children: Vec<Child>,
    next: usize,
    /// Processes on the machine beside the children when they were made.
    others: usize,
}

impl Population {
    pub fn new(find: Find, n: usize) -> Result<Population> {
        let others = processes_listed()?;
        let mut children = Vec::with_capacity(n);
        for _ in 0..n {
            children.push(Child::fork(None, idle)?);
        }
        Ok(Population {
            find,
            children,
            next: 0,
            others,
        })
    }

    fn next_pid(&mut self) -> libc::pid_t {
        let pid = self.children[self.next].pid();
        self.next = (self.next + 1) % self.children.len();
        pid
    }
}

/// A child's whole life: wait for a signal, forever (async-signal-safe).
fn idle() -> i32 {
    loop {
        // SAFETY: pause has no memory effects.
        unsafe { libc::pause() };
    }
}

impl Workload for Population {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            let pid = self.next_pid();
            let found = match self.find {
                Find::Kill => signal_zero(pid),
                Find::Walk => walk_to(pid)?,
            };
            if !found {
                bail!("process {pid}, a live child, was not found");
            }
        }
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        vec![format!(
            "{} idle children of this row beside {} other processes on the machine",
            self.children.len(),
            self.others
        )]
    }
}

/// kill(pid, 0): the kernel finds the process and checks the permission, sending nothing.
fn signal_zero(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 delivers nothing; the pid is our own live child.
    unsafe { libc::kill(pid, 0) == 0 }
}

/// Read /proc's entries until `pid`'s; whether it was there.
pub fn walk_to(pid: libc::pid_t) -> Result<bool> {
    let mut found = false;
    read_proc(|entry| {
        found = entry == Some(pid);
        found
    })?;
    Ok(found)
}

/// How many processes /proc lists now.
pub fn processes_listed() -> Result<usize> {
    let mut n = 0;
    read_proc(|entry| {
        n += usize::from(entry.is_some());
        false
    })?;
    Ok(n)
}

/// Walk /proc with readdir, handing each entry's pid (None for a non-process entry) to
/// `stop` until it says so. libc's readdir, as ps and pgrep walk it, without the
/// allocation per entry that std's read_dir adds.
fn read_proc(mut stop: impl FnMut(Option<libc::pid_t>) -> bool) -> Result<()> {
    // SAFETY: a NUL-terminated path; the stream is closed below on every path.
    let dir = unsafe { libc::opendir(c"/proc".as_ptr()) };
    if dir.is_null() {
        bail!("cannot open /proc: {}", std::io::Error::last_os_error());
    }
    loop {
        // SAFETY: dir is an open stream; the entry is read before the next readdir.
        let entry = unsafe { libc::readdir(dir) };
        if entry.is_null() {
            break;
        }
        // SAFETY: d_name is NUL-terminated inside the entry readdir returned.
        let name = unsafe { CStr::from_ptr((*entry).d_name.as_ptr()) };
        if stop(pid_of(name.to_bytes())) {
            break;
        }
    }
    // SAFETY: the stream opened above, closed once.
    unsafe { libc::closedir(dir) };
    Ok(())
}

/// The pid a /proc entry's name is, if it is all digits.
fn pid_of(name: &[u8]) -> Option<libc::pid_t> {
    if name.is_empty() || !name.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(name).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::super::super::micro::testing::forking;
    use super::*;

    #[test]
    fn a_pid_name_is_all_digits() {
        assert_eq!(pid_of(b"4242"), Some(4242));
        assert_eq!(pid_of(b"self"), None);
        assert_eq!(pid_of(b"42a"), None);
        assert_eq!(pid_of(b""), None);
    }

    #[test]
    fn every_child_is_found_both_ways_and_a_dead_one_is_not() {
        let _g = forking();
        let mut p = Population::new(Find::Walk, 5).unwrap();
        assert!(
            processes_listed().unwrap() >= 6,
            "the children and this process"
        );
        p.run(10).unwrap();
        p.find = Find::Kill;
        p.run(10).unwrap();
        // A child gone: neither way finds it, and the row fails instead of timing a miss.
        let gone = p.children.pop().unwrap();
        let pid = gone.pid();
        drop(gone);
        assert!(!signal_zero(pid));
        assert!(!walk_to(pid).unwrap());
        p.children.push(Child::adopt(pid));
        p.next = p.children.len() - 1;
        let err = p.run(1).unwrap_err().to_string();
        assert!(err.contains("was not found"), "{err}");
        // Child::adopt of a reaped pid: forget it, so its drop does not wait for it.
        std::mem::forget(p.children.pop());
    }

    #[test]
    fn the_children_go_with_the_workload() {
        let _g = forking();
        let p = Population::new(Find::Kill, 3).unwrap();
        let pids: Vec<_> = p.children.iter().map(Child::pid).collect();
        drop(p);
        for pid in pids {
            assert!(!signal_zero(pid), "child {pid} outlived its workload");
        }
    }

    #[test]
    fn a_quick_run_skips_the_largest_population_and_says_why() {
        let b = rows()
            .into_iter()
            .find(|b| b.id() == "proc.table.walk.10000")
            .unwrap();
        let ctx = crate::harness::contract::StandaloneCtx::new(crate::model::RunOptions {
            mode: Mode::Quick,
            ..Default::default()
        })
        .unwrap();
        let err = b.prepare(&ctx.ctx()).err().expect("skipped in quick mode");
        let skip = err.downcast_ref::<Skip>().expect("a skip, not a failure");
        assert!(skip.0.contains("full run"), "{}", skip.0);
    }
}

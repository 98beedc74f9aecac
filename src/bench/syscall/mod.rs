//! §1 of the catalogue: the cost of a system call (seed 002, Perez & Raleigh 1976), the
//! clock read that corrects every figure (002's "event call"), argument passing, and the
//! subroutine calls 002 and the PERQ note (003) set beside them.
//!
//! Each row is a [`Row`]: its metadata and a function that prepares a loop over one
//! operation. The files group alike rows: `process` (ids and signals), `time` (clocks),
//! `files` (descriptors and paths), `tty`, `args`, `calls`.

use anyhow::Result;

use super::{Benchmark, Ctx, Host, Plan, Skip, Workload};
use crate::model::{Mode, Source};

mod args;
mod calls;
mod files;
mod process;
pub mod raw;
mod time;
mod tty;

pub fn all() -> Vec<Box<dyn Benchmark>> {
    [
        time::ROWS,
        process::ROWS,
        files::ROWS,
        tty::ROWS,
        args::ROWS,
        calls::ROWS,
    ]
    .into_iter()
    .flatten()
    .map(|row| Box::new(*row) as Box<dyn Benchmark>)
    .collect()
}

/// One row of §1.
#[derive(Clone, Copy)]
pub struct Row {
    pub id: &'static str,
    pub about: &'static str,
    pub source: Source,
    /// Root only (002 "tested apart in a program that had super-user permissions").
    pub needs_root: bool,
    /// `None`: the default calibrated plan.
    pub plan: Option<fn(Mode) -> Plan>,
    pub prepare: fn(&Ctx) -> Result<Box<dyn Workload>>,
}

impl Row {
    /// A calibrated, unprivileged row: the common case.
    pub const fn new(
        id: &'static str,
        about: &'static str,
        source: Source,
        prepare: fn(&Ctx) -> Result<Box<dyn Workload>>,
    ) -> Row {
        Row {
            id,
            about,
            source,
            needs_root: false,
            plan: None,
            prepare,
        }
    }
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
    fn family(&self) -> &'static str {
        "syscall"
    }
    fn plan(&self, mode: Mode) -> Plan {
        self.plan
            .map_or_else(|| Plan::calibrated(mode), |p| p(mode))
    }
    fn supported(&self, host: &Host) -> Result<(), Skip> {
        if self.needs_root && !host.is_root {
            return Err(Skip::new(
                "needs root: setting the process's ids is privileged (run as root to include it)",
            ));
        }
        Ok(())
    }
    fn prepare(&self, ctx: &Ctx) -> Result<Box<dyn Workload>> {
        (self.prepare)(ctx)
    }
}

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

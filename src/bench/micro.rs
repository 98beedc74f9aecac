//! What the micro-operation families of catalogue §2 (`signal`, `pipe`, `udg`, `proc`)
//! share: their sources and sampling plans, and helpers for their tests. Every row whose
//! operation involves a partner or child process is marked
//! [`partnered`](crate::harness::contract::Benchmark::partnered): the seed's `*self`
//! programs (pipeself, udgself, signocsw) and kt9 are the only ones a single process does.

use crate::harness::contract::Plan;
use crate::model::{Mode, Source};

/// Seed 001 (Berkeley), at `place`.
pub const fn berkeley(place: &'static str) -> Source {
    Source::seed("001", place)
}

/// Seed 003 (the PERQ note), at `place`.
pub const fn perq(place: &'static str) -> Source {
    Source::seed("003", place)
}

/// Rows whose operation is long (a 5 MB transfer, a whole piper run): a fixed number of
/// single-operation samples.
pub fn whole_transfers(mode: Mode) -> Plan {
    match mode {
        Mode::Quick => Plan::fixed(1, 9),
        Mode::Full => Plan::fixed(1, 31),
    }
}

/// Rows whose operation is a process creation (50 µs – 2 ms): fewer, longer samples than
/// the default, since each operation already dwarfs the clock.
pub fn processes(mode: Mode) -> Plan {
    let mut plan = Plan::calibrated(mode);
    plan.samples = match mode {
        Mode::Quick => 15,
        Mode::Full => 31,
    };
    plan.target = std::time::Duration::from_millis(match mode {
        Mode::Quick => 8,
        Mode::Full => 20,
    });
    plan
}

/// Helpers for the families' unit tests.
#[cfg(test)]
pub mod testing {
    use std::sync::{Mutex, MutexGuard};

    use crate::harness::contract::{Ctx, StandaloneCtx};
    use crate::model::{Placement, RunOptions};

    static FORKING: Mutex<()> = Mutex::new(());

    /// Tests that fork children holding pipe ends run one at a time: a child forked by
    /// another test thread would inherit our write ends and hide end-of-file.
    pub fn forking() -> MutexGuard<'static, ()> {
        FORKING.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Run `f` with a context for `placement`.
    pub fn with_ctx<T>(placement: Placement, f: impl FnOnce(&Ctx) -> T) -> T {
        let standalone = StandaloneCtx::new(RunOptions {
            placement,
            ..RunOptions::default()
        })
        .unwrap();
        f(&standalone.ctx())
    }

    /// Run `f` with a default context and keep the context: a workload made by `f` works
    /// in the context's scratch directory, which goes when the context is dropped.
    pub fn with_kept_ctx<T>(f: impl FnOnce(&Ctx) -> T) -> (T, StandaloneCtx) {
        let standalone = StandaloneCtx::new(RunOptions::default()).unwrap();
        (f(&standalone.ctx()), standalone)
    }
}

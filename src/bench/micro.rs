//! The row type shared by the micro-operation families of CATALOGUE §2 (`signal`, `pipe`,
//! `udg`, `proc`): metadata beside a function that prepares the workload, as
//! `syscall::Row` does, plus a metric, a plan and a support check per row.

use anyhow::Result;

use super::{Benchmark, Ctx, Host, Plan, Skip, Workload};
use crate::model::{Metric, Mode, Source};

#[derive(Clone, Copy)]
pub struct Row {
    pub id: &'static str,
    pub about: &'static str,
    pub source: Source,
    pub metric: Metric,
    /// `None`: the default calibrated plan.
    pub plan: Option<fn(Mode) -> Plan>,
    pub supported: Option<fn(&Host) -> Result<(), Skip>>,
    pub prepare: fn(&Ctx) -> Result<Box<dyn Workload>>,
}

impl Row {
    /// A calibrated latency row that runs everywhere: the common case.
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
            metric: Metric::latency(),
            plan: None,
            supported: None,
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
    fn metric(&self) -> Metric {
        self.metric
    }
    fn plan(&self, mode: Mode) -> Plan {
        self.plan
            .map_or_else(|| Plan::calibrated(mode), |p| p(mode))
    }
    fn supported(&self, host: &Host) -> Result<(), Skip> {
        self.supported.map_or(Ok(()), |s| s(host))
    }
    fn prepare(&self, ctx: &Ctx) -> Result<Box<dyn Workload>> {
        (self.prepare)(ctx)
    }
}

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
        Mode::Quick => 11,
        Mode::Full => 31,
    };
    plan.target = std::time::Duration::from_millis(match mode {
        Mode::Quick => 3,
        Mode::Full => 20,
    });
    plan
}

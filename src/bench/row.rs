//! The row type of families whose every row has its own metric and plan (`cpu`, `io`,
//! `fs`): metadata beside the functions that plan and prepare it. `syscall::Row` and
//! `micro::Row` add what their families need (root, support checks, culling policy).

use anyhow::Result;

use super::{Benchmark, Ctx, Plan, Workload};
use crate::model::{Metric, Mode, Source};

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

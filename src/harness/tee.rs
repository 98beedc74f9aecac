//! Two observers fed the same events, in order (progress on the terminal and the results
//! store, for instance). An error from either stops the run, as it would alone.

use anyhow::Result;

use super::Observer;
use crate::model::{BenchResult, Run};

pub struct Tee<'a> {
    pub first: &'a mut dyn Observer,
    pub second: Option<&'a mut dyn Observer>,
}

impl Observer for Tee<'_> {
    fn run_started(&mut self, run: &Run, total: usize) {
        self.first.run_started(run, total);
        if let Some(s) = self.second.as_mut() {
            s.run_started(run, total);
        }
    }

    fn bench_started(&mut self, index: usize, id: &str) {
        self.first.bench_started(index, id);
        if let Some(s) = self.second.as_mut() {
            s.bench_started(index, id);
        }
    }

    fn work_done(&mut self, done: usize, planned: usize, id: &str, what: &str) {
        self.first.work_done(done, planned, id, what);
        if let Some(s) = self.second.as_mut() {
            s.work_done(done, planned, id, what);
        }
    }

    fn bench_finished(&mut self, result: &BenchResult) -> Result<()> {
        self.first.bench_finished(result)?;
        if let Some(s) = self.second.as_mut() {
            s.bench_finished(result)?;
        }
        Ok(())
    }

    fn run_finished(&mut self, run: &Run) {
        self.first.run_finished(run);
        if let Some(s) = self.second.as_mut() {
            s.run_finished(run);
        }
    }
}

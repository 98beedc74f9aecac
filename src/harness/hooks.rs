//! The hooks a run calls as it goes on, so that the harness itself prints nothing: the
//! command line's progress bar and the store's writer are both observers.

use anyhow::Result;

use crate::model::{BenchResult, Run};

/// Hooks called while a run goes on; every one defaults to doing nothing. Called between
/// benchmarks only, never while a sample is being timed.
pub trait Observer {
    fn run_started(&mut self, _run: &Run, _total: usize) {}
    fn bench_started(&mut self, _index: usize, _id: &str) {}
    /// In a run across processes: `done` of the `planned` rows × processes have finished,
    /// the last of them `id` (`what` says which process runs now). The merged rows come to
    /// `bench_finished` at the end, all at once; this is what moves before.
    fn work_done(&mut self, _done: usize, _planned: usize, _id: &str, _what: &str) {}
    fn bench_finished(&mut self, _result: &BenchResult) -> Result<()> {
        Ok(())
    }
    /// The run as it ended: status, end time, and the warnings and environment the
    /// checks at its end completed. Called once, after the last `bench_finished`; never
    /// when the run ended in an error.
    fn run_finished(&mut self, _run: &Run) {}
}

//! The observer that stores a run as it goes: the run row at `run_started` (status
//! `running`, with this process's identity), each result at `bench_finished`, the final
//! status at [`Recorder::finish`]. If the run ends any other way (an error, a panic
//! unwinding), `Drop` marks it interrupted; if the process is killed outright, the run
//! stays `running` and its dead writer makes it read back as interrupted.

use anyhow::{Context, Result};
use chrono::Utc;

use super::{Store, StoreError};
use crate::harness::Observer;
use crate::model::Overhead;
use crate::model::{BenchResult, Run, RunStatus};

pub struct Recorder {
    store: Store,
    overhead: Overhead,
    run_id: Option<i64>,
    /// An error from `run_started` (which cannot return one), reported at the next hook.
    pending: Option<StoreError>,
    saved: usize,
    finished: bool,
}

impl Recorder {
    pub fn new(store: Store, overhead: Overhead) -> Recorder {
        Recorder {
            store,
            overhead,
            run_id: None,
            pending: None,
            saved: 0,
            finished: false,
        }
    }

    /// The stored run's id, once it has started.
    pub fn run_id(&self) -> Option<i64> {
        self.run_id
    }

    pub fn path(&self) -> &str {
        self.store.path()
    }

    /// Replace the stored run's warnings (a check made after the run added one).
    pub fn set_warnings(&mut self, warnings: &[String]) -> Result<()> {
        self.take_pending()?;
        if let Some(id) = self.run_id {
            self.store
                .set_warnings(id, warnings)
                .with_context(|| format!("cannot record the warnings of run {id}"))?;
        }
        Ok(())
    }

    /// Record the run's final status and end time.
    pub fn finish(&mut self, run: &Run) -> Result<()> {
        self.take_pending()?;
        self.finished = true;
        if let Some(id) = self.run_id {
            self.store
                .finish_run(id, run.status, run.finished_at.unwrap_or_else(Utc::now))
                .with_context(|| format!("cannot record the end of run {id}"))?;
        }
        Ok(())
    }

    fn take_pending(&mut self) -> Result<()> {
        match self.pending.take() {
            Some(e) => Err(anyhow::Error::new(e).context("cannot store the run")),
            None => Ok(()),
        }
    }
}

impl Observer for Recorder {
    fn run_started(&mut self, run: &Run, _total: usize) {
        match self.store.begin_run(run, &self.overhead) {
            Ok(id) => self.run_id = Some(id),
            Err(e) => self.pending = Some(e),
        }
    }

    fn bench_finished(&mut self, result: &BenchResult) -> Result<()> {
        self.take_pending()?;
        if let Some(id) = self.run_id {
            self.store
                .save_result(id, self.saved, result)
                .with_context(|| format!("cannot store the result of {}", result.id))?;
            self.saved += 1;
        }
        Ok(())
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if let (Some(id), false) = (self.run_id, self.finished) {
            // Best effort: the run did not end normally, and there is nobody to tell.
            let _ = self
                .store
                .finish_run(id, RunStatus::Interrupted, Utc::now());
        }
    }
}

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
    /// The first store error while the run went on (a full disk): the run keeps
    /// measuring, nothing more is stored, and [`Recorder::finish`] reports it.
    failed: Option<anyhow::Error>,
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
            failed: None,
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
        self.amend("warnings", |store, id| store.set_warnings(id, warnings))
    }

    /// Replace the stored run's environment (the clock's rate, measured over the run).
    pub fn set_environment(&mut self, environment: &crate::model::Environment) -> Result<()> {
        self.amend("environment", |store, id| {
            store.set_environment(id, environment)
        })
    }

    /// Change the stored run's header after it ran. Nothing is written once the store has
    /// failed (a full disk): [`Recorder::finish`] reports that failure, with what it lost.
    fn amend(
        &mut self,
        what: &str,
        change: impl FnOnce(&mut Store, i64) -> Result<(), StoreError>,
    ) -> Result<()> {
        self.take_pending()?;
        if self.failed.is_some() {
            return Ok(());
        }
        if let Some(id) = self.run_id {
            change(&mut self.store, id)
                .with_context(|| format!("cannot record the {what} of run {id}"))?;
        }
        Ok(())
    }

    /// Record the run's final status and end time; the first store error of the run, if
    /// there was one (what was measured is then only in the caller's hands).
    pub fn finish(&mut self, run: &Run) -> Result<()> {
        self.take_pending()?;
        if let Some(e) = self.failed.take() {
            // The run row stays `running` with this dead writer, or is marked
            // interrupted by `Drop` if the store accepts that much: it reads back as
            // incomplete, never as whole.
            return Err(e.context(format!(
                "the store failed after {} of {} results; the run was not stored whole",
                self.saved,
                run.results.len()
            )));
        }
        self.finished = true;
        if let Some(id) = self.run_id {
            self.store
                .finish_run(id, run.status, run.finished_at.unwrap_or_else(Utc::now))
                .with_context(|| format!("cannot record the end of run {id}"))?;
        }
        Ok(())
    }

    /// A store error with its cause named when the file system is full.
    fn explained(&self, e: StoreError, what: String) -> anyhow::Error {
        let path = self.store.path();
        let e = match super::no_space(std::path::Path::new(path), path) {
            Some(full) => anyhow::Error::new(e).context(full.to_string()),
            None => anyhow::Error::new(e),
        };
        e.context(what)
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

    /// Never stops the run: a store that fails (a full disk, a read-only file) is
    /// remembered, and the run goes on to be shown and written to `--json`.
    fn bench_finished(&mut self, result: &BenchResult) -> Result<()> {
        if self.failed.is_some() {
            return Ok(());
        }
        if let Some(e) = self.pending.take() {
            self.failed = Some(self.explained(e, "cannot store the run".into()));
            return Ok(());
        }
        if let Some(id) = self.run_id {
            match self.store.save_result(id, self.saved, result) {
                Ok(()) => self.saved += 1,
                Err(e) => {
                    self.failed =
                        Some(self.explained(e, format!("cannot store the result of {}", result.id)))
                }
            }
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

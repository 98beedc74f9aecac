//! The observer that stores a run as it goes: the run row at `run_started` (status
//! `running`, with this process's identity), each result at `bench_finished`, the run's
//! end — status, end time, final warnings and environment — at `run_finished`, in one
//! write; [`Recorder::stored`] then says how it went. If the run ends any other way (an
//! error, a panic unwinding), `Drop` marks it interrupted; if the process is killed
//! outright, the run stays `running` and its dead writer makes it read back as
//! interrupted.

use anyhow::{Context, Result};

use super::error::StoreError;
use super::Store;
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
    /// measuring, nothing more is stored, and [`Recorder::stored`] reports it.
    failed: Option<anyhow::Error>,
    /// How recording the run's end went, once it has finished.
    ended: Option<Result<()>>,
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
            ended: None,
        }
    }

    pub fn path(&self) -> &str {
        self.store.path()
    }

    /// The store, and the id of the run once stored, for what is stored beside the run
    /// after it ended (an observation of the machine during it).
    pub fn store_and_run(&mut self) -> (&mut Store, Option<i64>) {
        (&mut self.store, self.run_id)
    }

    /// The stored run's id once the run has finished and been stored whole; the first
    /// store error of the run otherwise (what was measured is then only in the caller's
    /// hands). Asked after what was measured is shown, so that a full disk hides nothing.
    pub fn stored(&mut self) -> Result<Option<i64>> {
        match self.ended.take() {
            Some(Ok(())) => Ok(self.run_id),
            Some(Err(e)) => Err(e),
            None => Err(anyhow::anyhow!("the run did not finish")),
        }
    }

    /// Record the run's end (see [`Store::end_run`]), or the first store error of the run.
    fn end(&mut self, run: &Run) -> Result<()> {
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
                .end_run(id, run)
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

    fn run_finished(&mut self, run: &Run) {
        self.ended = Some(self.end(run));
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if let (Some(id), false) = (self.run_id, self.finished) {
            // Best effort: the run did not end normally, and there is nobody to tell.
            let _ =
                self.store
                    .finish_run(id, RunStatus::Interrupted, crate::model::wallclock::now());
        }
    }
}

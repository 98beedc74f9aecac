//! `exercise`: seed 004's exerciser in a session of its own (`Session::run_own`): the
//! jobs' batches, their report printed and written, the run stored whole at the end, the
//! machine observed beside it if asked.

use anyhow::{Context, Result};

use super::Ended;
use crate::exercise::{self, Config, Interrupted};
use crate::harness::{Observer, Session, Strategy};
use crate::model::usage::UsageError;
use crate::model::{Run, RunOptions, RunStatus};
use crate::report;
use crate::report::outfile::OutputFile;
use crate::report::output;
use crate::store::Store;

/// An exercise, as the command line checked it.
pub struct Request {
    pub config: Config,
    /// The run record's options.
    pub options: RunOptions,
    /// Where the run goes; `None` for `--no-save` (or no store at all).
    pub store: Option<Store>,
    /// `--json`, opened.
    pub json: Option<OutputFile>,
    /// `--observe-system`.
    pub observe_system: bool,
}

/// Run the exercise; `Ended::NothingChecked` when every job type was skipped.
pub fn run(request: Request) -> Result<Ended> {
    let Request {
        config,
        options,
        mut store,
        json,
        observe_system,
    } = request;
    // The session owns the stored record: environment, warnings, the checks at the end.
    let session = Session::new(options, &config.dir, Strategy::OneProcess)?;
    let mut progress = |msg: &str| output::say(&format!("exercise: {msg}"));
    let watch = super::observe::SystemWatch::start(observe_system)?;
    let mut at_end = StoreAtEnd {
        store: store.as_mut(),
        stored: None,
    };
    let mut outcome = None;
    let ended = session.run_own(0, &mut at_end, &mut |run, observer| {
        let (report, kept) = exercise::exercise(&config, &mut progress)?;
        for result in report.results() {
            observer.bench_finished(&result)?;
            run.results.push(result);
        }
        run.status = RunStatus::Complete;
        outcome = Some((report, kept));
        Ok(())
    });
    let stored = at_end.stored.take();
    let observed = watch.map(super::observe::SystemWatch::stop);
    if !config.keep {
        crate::harness::debris::remove_own_scratch(&config.dir);
    }
    let ended = match ended {
        Ok(ended) => ended,
        Err(e) if e.downcast_ref::<Interrupted>().is_some() => {
            eprintln!("timeshare: {e}");
            return Ok(Ended::Interrupted);
        }
        Err(e) => return Err(e),
    };
    let (report, kept) = outcome.context("the exercise ended without its report")?;
    let text = report::exercise::render(&report);
    if json.as_ref().is_some_and(OutputFile::is_stdout) {
        eprint!("{}", report::style::fit(&text));
    } else {
        output::print_text(&text)?;
    }
    if let Some(path) = kept {
        output::say(&format!("kept the scratch directory: {}", path.display()));
    }
    if let Some(out) = json {
        let mut bytes = serde_json::to_vec_pretty(&report)?;
        bytes.push(b'\n');
        out.write(&bytes)?;
    }
    for w in &ended.late_warnings {
        output::warn(w);
    }
    let stored = match (stored, store.as_ref()) {
        (Some(id), Some(store)) => {
            let id = id.context("cannot store the exercise's run")?;
            output::say(&format!("stored as run {id} in {}", store.path()));
            Some(id)
        }
        _ => None,
    };
    if let Some(o) = observed {
        super::observe::keep_beside(o, store.as_mut().map(|s| (s, stored)));
    }
    Ok(if report.failed > 0 || report.devez_failed() > 0 {
        Ended::Failed
    } else if report.passed == 0 {
        Ended::NothingChecked
    } else {
        Ended::Success
    })
}

/// The exercise's store: its run written whole once the session has finished it, in one
/// transaction, as the exerciser always stored it (an interrupted exercise stores
/// nothing).
struct StoreAtEnd<'a> {
    store: Option<&'a mut Store>,
    stored: Option<Result<i64, crate::store::StoreError>>,
}

impl Observer for StoreAtEnd<'_> {
    fn run_finished(&mut self, run: &Run) {
        if let Some(store) = self.store.as_deref_mut() {
            self.stored = Some(store.save_run(run));
        }
    }
}

/// What an instance needs, roughly: a compile (the `cc` job) runs four processes at once
/// (sh, cc, cc1, as or ld), holds a few dozen files open, maps about 64 MiB and writes
/// about 256 KiB; the trusted runs and the batch's directories take a few MiB more.
pub fn preflight(config: &Config) -> Result<()> {
    let instances = match &config.request {
        crate::exercise::Request::Counts(c) => c.iter().map(|(_, n)| *n).sum::<usize>(),
        crate::exercise::Request::Sweep {
            totals,
            blend: Some(_),
            ..
        } => totals.iter().copied().max().unwrap_or(0),
        // N copies of each type.
        crate::exercise::Request::Sweep { totals, types, .. } => {
            totals.iter().copied().max().unwrap_or(0) * types.len()
        }
    } as u64;
    let needs = crate::harness::limits::Needs {
        dir: &config.dir,
        bytes: (4 << 20) + instances * (256 << 10) + config.devez.as_ref().map_or(0, |d| d.size),
        processes: instances * 4 + 4,
        files: 32,
        memory: 64 << 20,
    };
    crate::harness::limits::preflight(&needs, crate::harness::process::is_root())
        .map_err(|why| UsageError(format!("cannot exercise here: {why}")).into())
}

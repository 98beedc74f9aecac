//! `timeshare run [ID|FAMILY…] [--quick|--full] [--json FILE] [--cpu N]`
//!
//! Everything the user typed is checked before the first measurement: the selection, the
//! CPU, the directories and the output file, so a typo costs nothing and leaves nothing.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{UsageError, EXIT_FAILED, EXIT_INTERRUPTED};
use crate::bench::Registry;
use crate::harness::tee::Tee;
use crate::harness::{cpu, interrupt, Observer, Runner};
use crate::model::{BenchResult, LoadOptions, Mode, Placement, Run, RunOptions, RunStatus, Status};
use crate::report;
use crate::store::Recorder;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Benchmark ids, families or id prefixes, mixed freely (default: everything registered)
    pub select: Vec<String>,
    /// Few, short samples: a first look in seconds (the default)
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,
    /// More and longer samples: figures to keep
    #[arg(long)]
    pub full: bool,
    /// Also write the whole result as JSON to FILE ('-' for standard output)
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Pin the measuring process to CPU N
    #[arg(long, value_name = "N")]
    pub cpu: Option<usize>,
    /// Where two-process benchmarks put their two sides
    #[arg(long, value_enum, default_value_t = PlacementArg::Free)]
    pub placement: PlacementArg,
    /// Directory for the benchmarks' scratch files (default: the temporary directory)
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// A label to remember the run by
    #[arg(long)]
    pub label: Option<String>,
    /// Also show elapsed, user and system time per operation and the kernel's counters
    #[arg(long, short = 'w')]
    pub wide: bool,
    /// Do not store the run in the results database
    #[arg(long)]
    pub no_save: bool,
    #[command(flatten)]
    pub db: super::db::DbArgs,
    /// Pages the vm family allocates (default 7500, as in seed 001's run script)
    #[arg(long, value_name = "N")]
    pub pages: Option<u64>,
    /// Run the vm family inside a memory cgroup limited to SIZE (e.g. 12M), so it pages
    #[arg(long, value_name = "SIZE", value_parser = crate::bench::vm::parse_size)]
    pub memory_limit: Option<u64>,
    /// Options of the `load` family (boxed: they are rarely given)
    #[command(flatten)]
    pub load: Box<LoadArgs>,
}

/// The `load` family's options (§6).
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// load.cpu: numbers of simultaneous copies, e.g. 1,2,4,8 (default 1,2,5,10,15)
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub copies: Vec<u16>,
    /// load.script: numbers of simultaneous users (default 1,5,9)
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub users: Vec<u16>,
    /// load.iointerference: numbers of concurrent readers, 0 = alone (default 0,1,2,3,4)
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = clap::value_parser!(u16).range(0..=64))]
    pub readers: Vec<u16>,
    /// load.cpu: memory each copy touches, in MiB (default 16)
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    pub footprint_mib: Option<u64>,
    /// load.script: the command script: `user1975` (default), `dev`, or a script file
    #[arg(long, value_name = "NAME|FILE")]
    pub script: Option<String>,
    /// load.script: seconds between two users' starts (default: one user's script time / 16)
    #[arg(long, value_name = "SECONDS")]
    pub stagger: Option<f64>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PlacementArg {
    /// Let the scheduler place them
    Free,
    /// Both on one CPU
    Same,
    /// On different CPUs
    Spread,
}

impl From<PlacementArg> for Placement {
    fn from(p: PlacementArg) -> Self {
        match p {
            PlacementArg::Free => Placement::Free,
            PlacementArg::Same => Placement::Same,
            PlacementArg::Spread => Placement::Spread,
        }
    }
}

pub fn execute(args: RunArgs) -> Result<u8> {
    let load = load_options(&args.load)?;
    if let Some(c) = args.cpu {
        cpu::check_usable(c).map_err(|e| UsageError(e.to_string()))?;
    }
    let dir = scratch_dir(args.dir.as_deref())?;
    let mut json = args.json.as_deref().map(JsonOut::open).transpose()?;
    let options = RunOptions {
        mode: if args.full { Mode::Full } else { Mode::Quick },
        selection: args.select.clone(),
        cpu: args.cpu,
        placement: args.placement.into(),
        label: args.label.clone(),
        pages: args.pages,
        memory_limit: args.memory_limit,
        load,
    };
    crate::bench::vm::check_options(&options).map_err(UsageError)?;
    let reg = Registry::new(&options);
    let chosen = reg.select(&args.select)?;
    // The database is opened (and its schema checked) before anything is measured.
    let store = if args.no_save {
        None
    } else {
        args.db.open_for_run()?
    };
    interrupt::install()?;

    let runner = Runner::new(options, &dir)?;
    let mut recorder = store.map(|s| Recorder::new(s, runner.overhead));
    let mut progress = Progress::new();
    let mut observers = Tee {
        first: &mut progress,
        second: recorder.as_mut().map(|r| r as &mut dyn Observer),
    };
    let run = runner.execute(&chosen, reg.derived(), &mut observers)?;
    progress.finish();

    let table = report::extra::full_report(&run, &runner.overhead, args.wide);
    if matches!(json, Some(JsonOut::Stdout)) {
        eprint!("{table}");
    } else {
        print!("{table}");
    }
    if let Some(out) = json.take() {
        out.write(&report::json::to_json(&run)?)?;
    }
    // After the table, so that a store error cannot hide what was measured.
    if let Some(r) = recorder.as_mut() {
        r.finish(&run)?;
        if let Some(id) = r.run_id() {
            eprintln!("stored as run {id} in {}", r.path());
        }
    }
    Ok(exit_code(&run))
}

/// The `load` family's options, checked now (a bad script is a usage error, exit 2).
fn load_options(args: &LoadArgs) -> Result<LoadOptions> {
    let list = |v: &[u16]| v.iter().map(|&n| n as usize).collect::<Vec<_>>();
    if let Some(s) = args.stagger {
        if !(s.is_finite() && (0.0..=3600.0).contains(&s)) {
            return Err(UsageError(format!("--stagger {s}: give seconds from 0 to 3600")).into());
        }
    }
    if let Some(script) = &args.script {
        crate::bench::load::script::load(Some(script))
            .map_err(|e| UsageError(format!("--script {script}: {e:#}")))?;
    }
    Ok(LoadOptions {
        copies: list(&args.copies),
        users: list(&args.users),
        readers: list(&args.readers),
        footprint_mib: args.footprint_mib,
        script: args.script.clone(),
        stagger_s: args.stagger,
    })
}

fn exit_code(run: &Run) -> u8 {
    if run.status == RunStatus::Interrupted {
        EXIT_INTERRUPTED
    } else if run
        .results
        .iter()
        .any(|r| matches!(r.status, Status::Failed { .. }))
    {
        EXIT_FAILED
    } else {
        0
    }
}

/// The directory for scratch files: it must exist and be writable, checked now.
fn scratch_dir(dir: Option<&Path>) -> Result<PathBuf> {
    let dir = dir
        .map(Path::to_path_buf)
        .unwrap_or_else(std::env::temp_dir);
    if !dir.is_dir() {
        return Err(UsageError(format!("--dir {}: not a directory", dir.display())).into());
    }
    tempfile::tempdir_in(&dir).map_err(|e| {
        UsageError(format!(
            "--dir {}: cannot create files there: {e}",
            dir.display()
        ))
    })?;
    Ok(dir)
}

/// Where the JSON goes. A file is written to a temporary sibling first and renamed into
/// place at the end, so an error or an interrupt never leaves half a file.
enum JsonOut {
    Stdout,
    File {
        target: PathBuf,
        temp: tempfile::NamedTempFile,
    },
}

impl JsonOut {
    fn open(path: &Path) -> Result<JsonOut> {
        if path == Path::new("-") {
            return Ok(JsonOut::Stdout);
        }
        let bad =
            |why: String| UsageError(format!("cannot write --json {}: {why}", path.display()));
        if path.is_dir() {
            return Err(bad("it is a directory".into()).into());
        }
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let temp = tempfile::Builder::new()
            .prefix(".timeshare-")
            .suffix(".json.tmp")
            .tempfile_in(parent)
            .map_err(|e| bad(e.to_string()))?;
        Ok(JsonOut::File {
            target: path.to_path_buf(),
            temp,
        })
    }

    fn write(self, bytes: &[u8]) -> Result<()> {
        match self {
            JsonOut::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(bytes)?;
                out.flush()?;
            }
            JsonOut::File { target, mut temp } => {
                temp.write_all(bytes)
                    .and_then(|_| temp.as_file().sync_all())
                    .with_context(|| format!("cannot write {}", target.display()))?;
                temp.persist(&target)
                    .with_context(|| format!("cannot write {}", target.display()))?;
            }
        }
        Ok(())
    }
}

/// A progress line on standard error, drawn only between benchmarks (no ticking thread
/// that could steal a CPU from a sample) and only when standard error is a terminal.
struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    fn new() -> Progress {
        Progress { bar: None }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Observer for Progress {
    fn run_started(&mut self, run: &Run, total: usize) {
        for w in &run.warnings {
            eprintln!("warning: {w}");
        }
        if !std::io::stderr().is_terminal() {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{elapsed:>4} [{bar:30}] {pos}/{len} {msg}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        self.bar = Some(bar);
    }

    fn bench_started(&mut self, _index: usize, id: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(id.to_string());
        }
    }

    fn bench_finished(&mut self, result: &BenchResult) -> Result<()> {
        if let Some(bar) = &self.bar {
            if !result.derived {
                bar.inc(1);
            }
        }
        Ok(())
    }
}

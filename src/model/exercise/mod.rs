//! What an exercise records: per instance, per job type and per batch, serialised as the
//! `--json` output. Times are seconds; user and system time come from wait4(2) and include
//! every process the instance's shell started.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::basis::Basis;
use super::details::Details;
use super::devez::{Devez, DevezRun};
use super::environment::Environment;
use super::result::{
    BenchResult, OpTimes, Run, RunOptions, RunStatus, Sample, Status, Tool, SCHEMA_VERSION,
};
use super::stats::Summary;
use super::unit::{Better, Unit};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// "timeshare.exercise/1": the shape of this record.
    pub schema: String,
    pub version: String,
    pub started_at: chrono::DateTime<chrono::Utc>,
    /// True for `--sweep`: one batch per number of processes.
    pub sweep: bool,
    /// `--trials`: how many times each batch ran, each time a fresh batch checked in
    /// full (1 in records made before the option).
    #[serde(default = "one")]
    pub trials: usize,
    pub types: Vec<TypeRecord>,
    pub batches: Vec<Batch>,
    /// Instances that ran and matched, instances that failed, job types skipped.
    pub passed: usize,
    pub failed: usize,
    pub skipped_types: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TypeRecord {
    pub name: String,
    pub about: String,
    #[serde(flatten)]
    pub state: TypeState,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum TypeState {
    /// Set up: the trusted output exists.
    Ready {
        trusted_file: String,
        trusted_bytes: u64,
        /// The setup run that made the trusted output: one instance alone, before any
        /// batch (the seed's "individually, they take the following times"). Real time,
        /// and its shell's user and system time (wait4, children included).
        setup_real_s: f64,
        #[serde(default)]
        setup_user_s: f64,
        #[serde(default)]
        setup_sys_s: f64,
    },
    /// Cannot run here; nothing of it ran.
    Skipped { reason: String },
    /// Its setup run failed, so there is nothing to compare with: every instance of it
    /// counts as failed.
    SetupFailed { reason: String },
}

fn one() -> usize {
    1
}

/// One run phase: instances of several types started together.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Batch {
    /// Which trial of its batch this was, from 1 (1 in records made before `--trials`).
    #[serde(default = "one")]
    pub trial: usize,
    /// Number of instances started together.
    pub processes: usize,
    /// From the first start to the last end (the seed's `time` of the whole batch).
    pub elapsed_s: f64,
    pub per_type: Vec<Times>,
    pub total: Times,
    pub instances: Vec<Instance>,
    /// The device exerciser that ran beside the batch (`--devez`), absent without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub devez: Option<Devez>,
}

impl Batch {
    /// Whether the device exerciser beside it failed (a block that did not read back as
    /// written, or an error that stopped it): that fails the batch like a failed instance.
    pub fn devez_failed(&self) -> bool {
        self.devez.as_ref().is_some_and(Devez::failed)
    }
}

/// Figures for a group of instances (one type, or all of a batch).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Times {
    pub job: String,
    pub processes: usize,
    pub passed: usize,
    pub failed: usize,
    /// Instances that started (the means below are over these; one that could not start
    /// or whose type's setup failed has no times).
    pub started: usize,
    /// Mean elapsed time of one instance, start to end.
    pub mean_real_s: f64,
    /// The seed's per-process curves: total user and system time divided by the processes
    /// started.
    pub user_per_process_s: f64,
    pub sys_per_process_s: f64,
    pub user_total_s: f64,
    pub sys_total_s: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Instance {
    pub job: String,
    /// 1-based within its type: `cc#3` is the third cc instance.
    pub index: usize,
    /// Its scratch directory relative to the run's root, e.g. `cc/3`.
    pub dir: String,
    pub outcome: Outcome,
    pub real_s: f64,
    pub user_s: f64,
    pub sys_s: f64,
    /// Exit code when it exited, `None` when killed or never started.
    pub exit_code: Option<i32>,
}

impl Instance {
    pub fn name(&self) -> String {
        format!("{}#{}", self.job, self.index)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Outcome {
    /// Ran, exited 0, output identical to the trusted copy.
    Pass,
    /// The output file differs from the trusted copy.
    Mismatch {
        file: String,
        #[serde(flatten)]
        difference: Difference,
    },
    /// Exited 0 but left no output file.
    MissingOutput { file: String, error: String },
    /// Exited with a non-zero status; the last line of its standard error.
    ExitStatus { code: i32, stderr: String },
    /// Killed or crashed.
    Signalled { signal: i32, name: String },
    /// Still running after `--timeout`: killed.
    TimedOut { after_s: f64 },
    /// fork/exec or opening its files failed; the limit it most likely hit.
    CouldNotStart {
        error: String,
        limit: Option<String>,
    },
    /// Its type's setup failed: nothing to compare with.
    SetupFailed { reason: String },
    /// It failed because a resource ran out (disk space, processes, open files, memory):
    /// which one, the evidence, and what the failure looked like.
    OutOfResources {
        resource: String,
        detail: String,
        symptom: String,
    },
}

impl Outcome {
    pub fn passed(&self) -> bool {
        matches!(self, Outcome::Pass)
    }

    /// Whether a process was started (and so has times).
    pub fn started(&self) -> bool {
        !matches!(
            self,
            Outcome::CouldNotStart { .. } | Outcome::SetupFailed { .. }
        )
    }

    /// One line for the table and the failure list.
    pub fn describe(&self) -> String {
        match self {
            Outcome::Pass => "pass".into(),
            Outcome::Mismatch {
                file,
                difference: d,
            } => format!(
                "{file} differs from the trusted copy at byte {} ({} bytes, trusted {})",
                d.offset, d.actual_len, d.expected_len
            ),
            Outcome::MissingOutput { file, error } => format!("no output {file}: {error}"),
            Outcome::ExitStatus { code, stderr } => format!("exit status {code}: {stderr}"),
            Outcome::Signalled { signal, name } => format!("killed by {name} (signal {signal})"),
            Outcome::TimedOut { after_s } => {
                format!("still running after {after_s:.0} s: killed (--timeout)")
            }
            Outcome::CouldNotStart { error, limit } => match limit {
                Some(l) => format!("could not start: {error}; limit: {l}"),
                None => format!("could not start: {error}"),
            },
            Outcome::SetupFailed { reason } => format!("setup failed: {reason}"),
            Outcome::OutOfResources {
                resource,
                detail,
                symptom,
            } => format!("ran out of {resource}: {detail} (seen as: {symptom})"),
        }
    }
}

impl Times {
    pub fn of<'a>(job: &str, instances: impl Iterator<Item = &'a Instance>) -> Times {
        let all: Vec<&Instance> = instances.collect();
        let ran: Vec<&&Instance> = all.iter().filter(|i| i.outcome.started()).collect();
        let n = ran.len();
        let per = |total: f64| if n == 0 { 0.0 } else { total / n as f64 };
        let user: f64 = ran.iter().map(|i| i.user_s).sum();
        let sys: f64 = ran.iter().map(|i| i.sys_s).sum();
        Times {
            job: job.to_string(),
            processes: all.len(),
            started: n,
            passed: all.iter().filter(|i| i.outcome.passed()).count(),
            failed: all.iter().filter(|i| !i.outcome.passed()).count(),
            mean_real_s: per(ran.iter().map(|i| i.real_s).sum()),
            user_per_process_s: per(user),
            sys_per_process_s: per(sys),
            user_total_s: user,
            sys_total_s: sys,
        }
    }
}

/// Where two outputs first differ and what they hold around that place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Difference {
    /// Offset of the first differing byte (or of the end of the shorter file).
    pub offset: u64,
    pub expected_len: u64,
    pub actual_len: u64,
    /// The bytes around `offset` in each, escaped for a terminal, starting at
    /// `context_start`.
    pub context_start: u64,
    pub expected: String,
    pub actual: String,
}

// ---------------------------------------------------------------------------------------
// An exercise as a stored run: what `history`, `show`, `export`, `compare` and `table`
// read, like any run's results.

/// A job type's record and a batch's are stored as their results' details.
impl super::details::Record for TypeRecord {}
impl super::details::Record for Batch {}
impl super::details::Record for BatchTrials {}

/// A stored `exercise.batch.N` row's record: every trial of the batch, in the order they
/// ran (one with `--trials 1`), and the mean and SD across them of its per-process
/// figures — how the seed gives its 80-process figure ("7 trials … average times … with
/// standard deviations").
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BatchTrials {
    pub processes: usize,
    pub trials: Vec<Batch>,
    /// The batch's elapsed time over its processes (the row's figure per process).
    pub real_per_process: Spread,
    /// Its user and system time per process started.
    pub user_per_process: Spread,
    pub sys_per_process: Spread,
}

/// The mean and the sample standard deviation (n − 1 in the denominator; 0 for one value)
/// of a figure across trials.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub mean: f64,
    pub sd: f64,
}

impl Spread {
    pub fn of(values: &[f64]) -> Spread {
        match Summary::from_values(values) {
            Ok(s) => Spread {
                mean: s.mean,
                sd: s.sd,
            },
            // No trial or a figure that is not a number: none, shown as such.
            Err(_) => Spread {
                mean: f64::NAN,
                sd: f64::NAN,
            },
        }
    }
}

impl BatchTrials {
    /// The trials of one batch (the same processes), with their spread.
    pub fn of(trials: Vec<Batch>) -> BatchTrials {
        let per = |f: fn(&Batch) -> f64| Spread::of(&trials.iter().map(f).collect::<Vec<_>>());
        BatchTrials {
            processes: trials.first().map_or(0, |b| b.processes),
            real_per_process: per(|b| b.elapsed_s / b.processes.max(1) as f64),
            user_per_process: per(|b| b.total.user_per_process_s),
            sys_per_process: per(|b| b.total.sys_per_process_s),
            trials,
        }
    }

    /// Instances that failed, over every trial.
    pub fn failed(&self) -> usize {
        self.trials.iter().map(|b| b.total.failed).sum()
    }

    /// Trials whose device exerciser failed.
    pub fn devez_failed(&self) -> usize {
        self.trials.iter().filter(|b| b.devez_failed()).count()
    }
}

/// The batches of a report grouped by their number of processes, each group's trials in
/// the order they ran; the groups in the order of their first trial.
pub fn by_batch(batches: &[Batch]) -> Vec<BatchTrials> {
    let mut sizes: Vec<usize> = Vec::new();
    for b in batches {
        if !sizes.contains(&b.processes) {
            sizes.push(b.processes);
        }
    }
    sizes
        .iter()
        .map(|&n| {
            BatchTrials::of(
                batches
                    .iter()
                    .filter(|b| b.processes == n)
                    .cloned()
                    .collect(),
            )
        })
        .collect()
}

/// The family of an exercise's results.
pub const FAMILY: &str = "exercise";
/// What `exercise.TYPE` is per: one instance of the type, run alone (seed 004 §3's
/// "individually, they take the following times").
pub const ALONE: &str = "job run alone";
/// The seed and place of the figures.
const ALONE_SOURCE: &str =
    "seed 004, §3 each job type alone (here: the trusted run of setup, before any batch)";
const BATCH_SOURCE: &str =
    "seed 004, §3 graphs: real, user and sys per process against the number of processes";

/// `exercise.cc`: one job of a type, run alone.
pub fn alone_id(job: &str) -> String {
    format!("{FAMILY}.{job}")
}

/// `exercise.batch.20`: a batch of 20 processes started together.
pub fn batch_id(processes: usize) -> String {
    format!("{FAMILY}.batch.{processes}")
}

/// What a batch's figure is per: the whole batch, a job of its processes, named with its
/// mix of job types so that two batches of different mixes are never divided.
pub fn batch_basis(b: &Batch) -> Basis {
    let mix: Vec<String> = b
        .per_type
        .iter()
        .map(|t| format!("{}×{}", t.job, t.processes))
        .collect();
    Basis::owned(
        b.processes as u64,
        format!("exerciser process ({})", mix.join(", ")),
    )
}

/// Each batch size with its types' figures, the mean over its trials (the figures of
/// its one batch without `--trials`); counts summed over the trials.
pub fn trial_means(batches: &[Batch]) -> Vec<(usize, Vec<Times>)> {
    by_batch(batches)
        .iter()
        .map(|g| {
            let mut types: Vec<Times> = Vec::new();
            for t in g.trials.iter().flat_map(|b| &b.per_type) {
                match types.iter_mut().find(|x| x.job == t.job) {
                    Some(x) => {
                        x.processes += t.processes;
                        x.passed += t.passed;
                        x.failed += t.failed;
                        x.mean_real_s += t.mean_real_s;
                        x.user_per_process_s += t.user_per_process_s;
                        x.sys_per_process_s += t.sys_per_process_s;
                    }
                    None => types.push(t.clone()),
                }
            }
            let n = g.trials.len() as f64;
            for x in &mut types {
                x.mean_real_s /= n;
                x.user_per_process_s /= n;
                x.sys_per_process_s /= n;
            }
            (g.processes, types)
        })
        .collect()
}

impl Report {
    /// Batches whose device exerciser failed (`--devez`): each fails the exercise like a
    /// failed instance.
    pub fn devez_failed(&self) -> usize {
        self.batches.iter().filter(|b| b.devez_failed()).count()
    }

    /// The exercise as a run: for each job type, `exercise.TYPE` — its trusted run, made
    /// alone during setup (real time the headline; user and system in `times`); for each
    /// batch, `exercise.batch.N` — the batch's elapsed time as `time` gave it for the
    /// seed's batches, per job of N processes (so one process's share is elapsed / N, the
    /// seed's graphs), with the user and system time of all its processes in `times`. A
    /// skipped type is skipped, a type whose setup failed and a batch with a failed
    /// instance (in any of its trials) are failed: work not done is never a figure. With
    /// `--trials`, a batch's row has one sample per trial and their mean and SD. The records themselves are
    /// the details, so the report can be rebuilt ([`Report::from_run`]).
    pub fn to_run(
        &self,
        options: RunOptions,
        environment: Environment,
        warnings: Vec<String>,
        finished_at: DateTime<Utc>,
    ) -> Run {
        Run {
            schema_version: SCHEMA_VERSION,
            tool: Tool::this(),
            options,
            environment,
            started_at: self.started_at,
            finished_at: Some(finished_at),
            status: RunStatus::Complete,
            warnings,
            results: self.results(),
        }
    }

    /// The exercise's results, as [`Report::to_run`] stores them: each job type alone,
    /// then each batch.
    pub fn results(&self) -> Vec<BenchResult> {
        let mut results: Vec<BenchResult> = self.types.iter().map(alone_result).collect();
        results.extend(by_batch(&self.batches).iter().map(batch_result));
        results
    }

    /// The report of a stored exercise run, rebuilt from its results' details; `None`
    /// when `run` has no exercise result.
    pub fn from_run(run: &Run) -> Option<Report> {
        let mine: Vec<&BenchResult> = run.results.iter().filter(|r| r.family == FAMILY).collect();
        if mine.is_empty() {
            return None;
        }
        let batch_prefix = format!("{FAMILY}.batch.");
        let types: Vec<TypeRecord> = mine
            .iter()
            .filter(|r| !r.id.starts_with(&batch_prefix))
            .filter_map(|r| r.details_as::<TypeRecord>())
            .collect();
        // A row stored before `--trials` holds its one batch itself.
        let mut batches: Vec<Batch> = mine
            .iter()
            .filter(|r| r.id.starts_with(&batch_prefix))
            .flat_map(|r| {
                r.details_as::<BatchTrials>()
                    .map(|t| t.trials)
                    .or_else(|| r.details_as::<Batch>().map(|b| vec![b]))
                    .unwrap_or_default()
            })
            .collect();
        // Back in the order they ran: trial by trial (a stable sort keeps each trial's
        // batches in the sweep's order).
        batches.sort_by_key(|b| b.trial);
        Some(Report {
            schema: "timeshare.exercise/1".to_string(),
            version: run.tool.version.clone(),
            started_at: run.started_at,
            sweep: run.options.selection.iter().any(|w| w == "--sweep"),
            trials: batches.iter().map(|b| b.trial).max().unwrap_or(1),
            passed: batches.iter().map(|b| b.total.passed).sum(),
            failed: batches.iter().map(|b| b.total.failed).sum(),
            skipped_types: types
                .iter()
                .filter(|t| matches!(t.state, TypeState::Skipped { .. }))
                .count(),
            types,
            batches,
        })
    }
}

/// A result with one figure (a job timed once): its summary, one sample, its times.
fn one_figure(r: &mut BenchResult, real_s: f64, user_s: f64, sys_s: f64) {
    r.status = Status::Ok;
    r.summary = Summary::from_values(&[real_s]).ok();
    r.samples = vec![Sample {
        value: real_s,
        preemptions: 0,
        // Not known: the job ran in other processes, on whatever CPUs.
        cpu_start: -1,
        cpu_end: -1,
        culled: false,
        invocation: None,
        steal_s: None,
        freq_hz: None,
    }];
    r.times = Some(OpTimes {
        ops: 1,
        elapsed_s: real_s,
        user_s,
        system_s: sys_s,
    });
    r.duration_s = real_s;
}

fn empty(id: String, source: &str, basis: Basis) -> BenchResult {
    BenchResult::new(
        id,
        FAMILY,
        source,
        Unit::Seconds,
        Better::Lower,
        Some(basis),
    )
}

fn alone_result(t: &TypeRecord) -> BenchResult {
    let mut r = empty(alone_id(&t.name), ALONE_SOURCE, Basis::per(ALONE));
    match &t.state {
        TypeState::Ready {
            setup_real_s,
            setup_user_s,
            setup_sys_s,
            ..
        } => {
            one_figure(&mut r, *setup_real_s, *setup_user_s, *setup_sys_s);
            r.notes.push(
                "one instance alone: the trusted run of setup, its type's first, timed once".into(),
            );
        }
        TypeState::Skipped { reason } => {
            r.status = Status::Skipped {
                reason: reason.clone(),
            }
        }
        TypeState::SetupFailed { reason } => {
            r.status = Status::Failed {
                error: format!("setup failed: {reason}"),
            }
        }
    }
    r.details = Some(Details::of(t));
    r
}

fn batch_result(t: &BatchTrials) -> BenchResult {
    let first = t.trials.first().expect("a batch has at least one trial");
    let mut r = empty(batch_id(t.processes), BATCH_SOURCE, batch_basis(first));
    let elapsed: f64 = t.trials.iter().map(|b| b.elapsed_s).sum();
    if t.failed() > 0 || t.devez_failed() > 0 {
        r.status = Status::Failed {
            error: failed_trials(t),
        };
        r.duration_s = elapsed;
    } else {
        trial_figures(&mut r, t);
        r.notes.push(if t.trials.len() == 1 {
            format!(
                "{} processes started together; elapsed of the batch, timed once",
                t.processes
            )
        } else {
            format!(
                "{} processes started together; elapsed of the batch, mean of {} trials \
                 (one sample per trial; user and system the means of the trials' totals)",
                t.processes,
                t.trials.len()
            )
        });
        r.notes.extend(devez_note(t));
    }
    r.notes.push(mix_note(first));
    r.details = Some(Details::of(t));
    r
}

/// The batch's mix of job types, so that two sizes' mixes can be compared from the rows:
/// `--sweep` splits each size over its types by largest remainder of equal shares,
/// `--blend` by whole blends (the same mix at every size).
pub fn mix_note(b: &Batch) -> String {
    let counts: Vec<String> = b
        .per_type
        .iter()
        .map(|t| format!("{} {}", t.job, t.processes))
        .collect();
    format!(
        "mix of the {} processes: {} (split by share, largest remainder)",
        b.processes,
        counts.join(", ")
    )
}

/// The batch's total elapsed time (the seed's `time` of the whole batch, its first graph)
/// per number of processes: mean and SD over the trials, and whether any trial failed.
pub fn elapsed_by_size(batches: &[Batch]) -> Vec<(usize, Spread, bool)> {
    by_batch(batches)
        .iter()
        .map(|g| {
            let elapsed: Vec<f64> = g.trials.iter().map(|b| b.elapsed_s).collect();
            let failed = g.failed() > 0 || g.devez_failed() > 0;
            (g.processes, Spread::of(&elapsed), failed)
        })
        .collect()
}

/// What the device exerciser beside the batch did, over its trials, when it ran.
fn devez_note(t: &BatchTrials) -> Option<String> {
    let runs: Vec<&DevezRun> = t
        .trials
        .iter()
        .filter_map(|b| b.devez.as_ref().and_then(Devez::ran))
        .collect();
    let first = runs.first()?;
    let sum = |f: fn(&DevezRun) -> u64| runs.iter().map(|r| f(r)).sum::<u64>();
    // Whole passes only: what was read back is what was written.
    Some(format!(
        "devez beside it ({}): {} pass{}, {:.0} MiB written and read back as written",
        first.target,
        sum(|r| r.passes),
        if sum(|r| r.passes) == 1 { "" } else { "es" },
        sum(|r| r.bytes_read) as f64 / f64::from(1u32 << 20),
    ))
}

/// Why a batch row failed: its failed instances, named with their trial when it had
/// several.
fn failed_trials(t: &BatchTrials) -> String {
    let several = t.trials.len() > 1;
    let failed: Vec<String> = t
        .trials
        .iter()
        .flat_map(|b| b.instances.iter().map(move |i| (b.trial, i)))
        .filter(|(_, i)| !i.outcome.passed())
        .take(3)
        .map(|(trial, i)| {
            let at = if several {
                format!(" (trial {trial})")
            } else {
                String::new()
            };
            format!("{}{at}: {}", i.name(), i.outcome.describe())
        })
        .collect();
    let more = if t.failed() > failed.len() {
        "; …"
    } else {
        ""
    };
    let of = t.processes * t.trials.len();
    let trials = if several {
        format!(" over {} trials", t.trials.len())
    } else {
        String::new()
    };
    let devez: Vec<String> = t
        .trials
        .iter()
        .filter_map(|b| {
            let why = b.devez.as_ref()?.ran()?.failure()?;
            Some(if several {
                format!("devez (trial {}): {why}", b.trial)
            } else {
                format!("devez: {why}")
            })
        })
        .collect();
    let instances = (t.failed() > 0).then(|| {
        format!(
            "{} of {of} instances failed{trials} ({}{more})",
            t.failed(),
            failed.join("; ")
        )
    });
    instances
        .into_iter()
        .chain(devez)
        .collect::<Vec<_>>()
        .join("; ")
}

/// A passed batch's figures: one sample per trial (its elapsed time), their summary (the
/// mean and SD across trials), the means of the trials' user and system totals.
fn trial_figures(r: &mut BenchResult, t: &BatchTrials) {
    let n = t.trials.len() as f64;
    let mean = |f: fn(&Batch) -> f64| t.trials.iter().map(f).sum::<f64>() / n;
    let elapsed: Vec<f64> = t.trials.iter().map(|b| b.elapsed_s).collect();
    one_figure(
        r,
        mean(|b| b.elapsed_s),
        mean(|b| b.total.user_total_s),
        mean(|b| b.total.sys_total_s),
    );
    r.summary = Summary::from_values(&elapsed).ok();
    // In the order the trials ran (the record's `trials` name each one).
    r.samples = elapsed
        .iter()
        .map(|&value| Sample {
            value,
            ..r.samples[0].clone()
        })
        .collect();
    r.duration_s = elapsed.iter().sum();
}

/// A stored sweep for the report's tests: for each size, the elapsed time of each trial
/// (every instance an `ed` that passed, user 60% and system 20% of its real time), the
/// size `failing` with one instance failed in its first trial.
#[cfg(test)]
pub fn sweep_fixture(sizes: &[(usize, &[f64])], failing: Option<usize>) -> Run {
    let mut batches = Vec::new();
    for trial in 1..=sizes.iter().map(|s| s.1.len()).max().unwrap_or(0) {
        for &(n, elapsed) in sizes {
            let Some(&elapsed_s) = elapsed.get(trial - 1) else {
                continue;
            };
            let instances: Vec<Instance> = (1..=n)
                .map(|index| Instance {
                    job: "ed".into(),
                    index,
                    dir: format!("ed/{index}"),
                    outcome: if failing == Some(n) && trial == 1 && index == 1 {
                        Outcome::ExitStatus {
                            code: 1,
                            stderr: "ed: out of memory".into(),
                        }
                    } else {
                        Outcome::Pass
                    },
                    real_s: elapsed_s,
                    user_s: 0.6 * elapsed_s,
                    sys_s: 0.2 * elapsed_s,
                    exit_code: Some(0),
                })
                .collect();
            batches.push(Batch {
                trial,
                processes: n,
                elapsed_s,
                per_type: vec![Times::of("ed", instances.iter())],
                total: Times::of("all", instances.iter()),
                instances,
                devez: None,
            });
        }
    }
    let report = Report {
        schema: "timeshare.exercise/1".into(),
        version: "0".into(),
        started_at: crate::model::wallclock::now(),
        sweep: true,
        trials: batches.iter().map(|b| b.trial).max().unwrap_or(1),
        types: vec![TypeRecord {
            name: "ed".into(),
            about: "edit".into(),
            state: TypeState::Ready {
                trusted_file: "text.txt".into(),
                trusted_bytes: 10,
                setup_real_s: 0.02,
                setup_user_s: 0.01,
                setup_sys_s: 0.005,
            },
        }],
        batches,
        passed: 0,
        failed: 0,
        skipped_types: 0,
    };
    report.to_run(
        RunOptions::default(),
        Environment::default(),
        vec![],
        crate::model::wallclock::now(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instance(job: &str, index: usize, outcome: Outcome, real_s: f64) -> Instance {
        Instance {
            job: job.into(),
            index,
            dir: format!("{job}/{index}"),
            outcome,
            real_s,
            user_s: real_s / 2.0,
            sys_s: real_s / 10.0,
            exit_code: Some(0),
        }
    }

    fn batch(instances: Vec<Instance>, elapsed_s: f64) -> Batch {
        let mut jobs: Vec<String> = Vec::new();
        for i in &instances {
            if !jobs.contains(&i.job) {
                jobs.push(i.job.clone());
            }
        }
        Batch {
            trial: 1,
            processes: instances.len(),
            elapsed_s,
            per_type: jobs
                .iter()
                .map(|j| Times::of(j, instances.iter().filter(|i| &i.job == j)))
                .collect(),
            total: Times::of("all", instances.iter()),
            instances,
            devez: None,
        }
    }

    fn report() -> Report {
        let ready = |real| TypeState::Ready {
            trusted_file: "out".into(),
            trusted_bytes: 10,
            setup_real_s: real,
            setup_user_s: real / 2.0,
            setup_sys_s: real / 4.0,
        };
        Report {
            schema: "timeshare.exercise/1".into(),
            version: "0".into(),
            started_at: crate::model::wallclock::now(),
            sweep: false,
            trials: 1,
            types: vec![
                TypeRecord {
                    name: "cc".into(),
                    about: "compile".into(),
                    state: ready(0.4),
                },
                TypeRecord {
                    name: "ed".into(),
                    about: "edit".into(),
                    state: ready(0.02),
                },
                TypeRecord {
                    name: "nroff".into(),
                    about: "format".into(),
                    state: TypeState::Skipped {
                        reason: "no `nroff` on PATH".into(),
                    },
                },
            ],
            batches: vec![batch(
                vec![
                    instance("cc", 1, Outcome::Pass, 1.0),
                    instance("cc", 2, Outcome::Pass, 1.2),
                    instance("ed", 1, Outcome::Pass, 0.2),
                ],
                1.5,
            )],
            passed: 3,
            failed: 0,
            skipped_types: 1,
        }
    }

    fn to_run(r: &Report) -> Run {
        r.to_run(
            RunOptions::default(),
            Environment::default(),
            vec![],
            crate::model::wallclock::now(),
        )
    }

    #[test]
    fn each_type_alone_and_each_batch_are_results_with_their_bases() {
        let run = to_run(&report());
        let ids: Vec<&str> = run.results.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "exercise.cc",
                "exercise.ed",
                "exercise.nroff",
                "exercise.batch.3"
            ]
        );
        let cc = &run.results[0];
        assert_eq!(cc.status, Status::Ok);
        assert_eq!(cc.median(), Some(0.4));
        assert_eq!(cc.basis, Some(Basis::per(ALONE)));
        let times = cc.times.as_ref().unwrap();
        assert_eq!((times.user_s, times.system_s), (0.2, 0.1));
        assert!(matches!(run.results[2].status, Status::Skipped { .. }));
        let b = &run.results[3];
        assert_eq!(b.median(), Some(1.5), "the batch's elapsed time");
        assert_eq!(
            b.basis,
            Some(Basis::owned(3, "exerciser process (cc×2, ed×1)".into()))
        );
        // Per process, as the seed's graphs: elapsed / 3, user of all / 3.
        let per = b.measure().unwrap().per_op().unwrap();
        assert!((per.value() - 0.5).abs() < 1e-12);
        let user = b.times.as_ref().unwrap().user_s;
        assert!((user - 1.2).abs() < 1e-12, "{user}");
    }

    #[test]
    fn a_batch_with_a_failed_instance_or_a_failed_setup_has_no_figure() {
        let mut r = report();
        r.batches[0].instances[1].outcome = Outcome::ExitStatus {
            code: 1,
            stderr: "cc: error".into(),
        };
        r.batches[0] = batch(r.batches[0].instances.clone(), 1.5);
        r.types[1].state = TypeState::SetupFailed {
            reason: "ed crashed".into(),
        };
        let run = to_run(&r);
        let Status::Failed { error } = &run.results[3].status else {
            panic!("{:?}", run.results[3].status);
        };
        assert!(
            error.starts_with("1 of 3 instances failed (cc#2: exit status 1"),
            "{error}"
        );
        assert_eq!(run.results[3].median(), None);
        assert!(matches!(run.results[1].status, Status::Failed { .. }));
        assert!(run.results[3].details.is_some(), "the record is kept");
    }

    #[test]
    fn the_report_is_rebuilt_from_its_stored_run() {
        let r = report();
        let json = serde_json::to_string(&to_run(&r)).unwrap();
        let back = Report::from_run(&serde_json::from_str(&json).unwrap()).unwrap();
        assert_eq!(back.types.len(), 3);
        assert_eq!(back.types[2].name, "nroff");
        assert_eq!(back.batches.len(), 1);
        assert_eq!(back.batches[0].instances.len(), 3);
        assert_eq!((back.passed, back.failed, back.skipped_types), (3, 0, 1));
        let plain = Run {
            results: vec![],
            ..to_run(&r)
        };
        assert!(Report::from_run(&plain).is_none());
    }

    #[test]
    fn each_batch_row_names_its_mix_and_the_elapsed_curve_is_per_size() {
        let run = sweep_fixture(&[(2, &[1.0, 3.0]), (4, &[2.0])], Some(4));
        let b2 = run
            .results
            .iter()
            .find(|r| r.id == "exercise.batch.2")
            .unwrap();
        assert!(
            b2.notes.contains(
                &"mix of the 2 processes: ed 2 (split by share, largest remainder)".into()
            ),
            "{:?}",
            b2.notes
        );
        let report = Report::from_run(&run).unwrap();
        let curve = elapsed_by_size(&report.batches);
        assert_eq!(curve.len(), 2);
        assert_eq!((curve[0].0, curve[0].1.mean, curve[0].2), (2, 2.0, false));
        assert!((curve[0].1.sd - 2f64.sqrt()).abs() < 1e-12);
        assert_eq!((curve[1].0, curve[1].2), (4, true));
    }

    /// Two trials of each of two sizes, run trial by trial: one row per size, one sample
    /// per trial; a failure in one trial fails its size's row only; the report comes back
    /// from the stored run in the order it ran.
    #[test]
    fn trials_of_a_batch_are_one_row_with_a_sample_each() {
        let trial = |t: usize, n: usize, elapsed: f64, ok: bool| {
            let outcome = |k| {
                if ok || k > 1 {
                    Outcome::Pass
                } else {
                    Outcome::Signalled {
                        signal: 9,
                        name: "SIGKILL".into(),
                    }
                }
            };
            let mut b = batch(
                (1..=n)
                    .map(|k| instance("ed", k, outcome(k), elapsed))
                    .collect(),
                elapsed,
            );
            b.trial = t;
            b
        };
        let mut r = report();
        r.trials = 2;
        r.batches = vec![
            trial(1, 1, 1.0, true),
            trial(1, 2, 3.0, true),
            trial(2, 1, 2.0, true),
            trial(2, 2, 5.0, false),
        ];
        let run = to_run(&r);
        let one = run
            .results
            .iter()
            .find(|x| x.id == "exercise.batch.1")
            .unwrap();
        assert_eq!(one.status, Status::Ok);
        let values: Vec<f64> = one.samples.iter().map(|s| s.value).collect();
        assert_eq!(values, [1.0, 2.0]);
        let summary = one.summary.as_ref().unwrap();
        assert_eq!((summary.mean, summary.n), (1.5, 2));
        assert!((summary.sd - 0.5f64.sqrt()).abs() < 1e-12, "{summary:?}");
        let spread = one.details_as::<BatchTrials>().unwrap().real_per_process;
        assert_eq!(spread.mean, 1.5);
        let two = run
            .results
            .iter()
            .find(|x| x.id == "exercise.batch.2")
            .unwrap();
        let Status::Failed { error } = &two.status else {
            panic!("{:?}", two.status);
        };
        assert!(
            error.starts_with("1 of 4 instances failed over 2 trials (ed#1 (trial 2): killed"),
            "{error}"
        );
        assert!(two.summary.is_none());
        // The charts' points: each size's mean over its trials, counts over all of them.
        let means = trial_means(&r.batches);
        assert_eq!(means.len(), 2);
        let (n, ed) = (&means[0].0, &means[0].1[0]);
        assert_eq!((*n, ed.processes, ed.mean_real_s), (1, 2, 1.5));
        let back = Report::from_run(&run).unwrap();
        assert_eq!(back.trials, 2);
        let order: Vec<(usize, usize)> = back
            .batches
            .iter()
            .map(|b| (b.trial, b.processes))
            .collect();
        assert_eq!(order, [(1, 1), (1, 2), (2, 1), (2, 2)]);
    }

    /// A row stored before `--trials` (its details one batch) still reads, as one trial.
    #[test]
    fn a_row_stored_before_trials_reads_as_one_trial() {
        let r = report();
        let mut run = to_run(&r);
        let row = run
            .results
            .iter_mut()
            .find(|x| x.id == "exercise.batch.3")
            .unwrap();
        let mut old = serde_json::to_value(&r.batches[0]).unwrap();
        old.as_object_mut().unwrap().remove("trial");
        row.details = Some(serde_json::from_value(old).unwrap());
        let back = Report::from_run(&run).unwrap();
        assert_eq!((back.trials, back.batches.len()), (1, 1));
        assert_eq!(back.batches[0].trial, 1);
        assert_eq!(back.batches[0].instances.len(), 3);
    }
}

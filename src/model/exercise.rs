//! What an exercise records: per instance, per job type and per batch, serialised as the
//! `--json` output. Times are seconds; user and system time come from wait4(2) and include
//! every process the instance's shell started.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::basis::Basis;
use super::details::Details;
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

/// One run phase: instances of several types started together.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Batch {
    /// Number of instances started together.
    pub processes: usize,
    /// From the first start to the last end (the seed's `time` of the whole batch).
    pub elapsed_s: f64,
    pub per_type: Vec<Times>,
    pub total: Times,
    pub instances: Vec<Instance>,
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

impl Report {
    /// The exercise as a run: for each job type, `exercise.TYPE` — its trusted run, made
    /// alone during setup (real time the headline; user and system in `times`); for each
    /// batch, `exercise.batch.N` — the batch's elapsed time as `time` gave it for the
    /// seed's batches, per job of N processes (so one process's share is elapsed / N, the
    /// seed's graphs), with the user and system time of all its processes in `times`. A
    /// skipped type is skipped, a type whose setup failed and a batch with a failed
    /// instance are failed: work not done is never a figure. The records themselves are
    /// the details, so the report can be rebuilt ([`Report::from_run`]).
    pub fn to_run(
        &self,
        options: RunOptions,
        environment: Environment,
        warnings: Vec<String>,
        finished_at: DateTime<Utc>,
    ) -> Run {
        let mut results: Vec<BenchResult> = self.types.iter().map(alone_result).collect();
        results.extend(self.batches.iter().map(batch_result));
        Run {
            schema_version: SCHEMA_VERSION,
            tool: Tool::this(),
            options,
            environment,
            started_at: self.started_at,
            finished_at: Some(finished_at),
            status: RunStatus::Complete,
            warnings,
            results,
        }
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
        let batches: Vec<Batch> = mine
            .iter()
            .filter(|r| r.id.starts_with(&batch_prefix))
            .filter_map(|r| r.details_as::<Batch>())
            .collect();
        Some(Report {
            schema: "timeshare.exercise/1".to_string(),
            version: run.tool.version.clone(),
            started_at: run.started_at,
            sweep: run.options.selection.iter().any(|w| w == "--sweep"),
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

fn batch_result(b: &Batch) -> BenchResult {
    let mut r = empty(batch_id(b.processes), BATCH_SOURCE, batch_basis(b));
    if b.total.failed > 0 {
        let failed: Vec<String> = b
            .instances
            .iter()
            .filter(|i| !i.outcome.passed())
            .take(3)
            .map(|i| format!("{}: {}", i.name(), i.outcome.describe()))
            .collect();
        r.status = Status::Failed {
            error: format!(
                "{} of {} instances failed ({}{})",
                b.total.failed,
                b.processes,
                failed.join("; "),
                if b.total.failed > failed.len() {
                    "; …"
                } else {
                    ""
                }
            ),
        };
        r.duration_s = b.elapsed_s;
    } else {
        one_figure(
            &mut r,
            b.elapsed_s,
            b.total.user_total_s,
            b.total.sys_total_s,
        );
        r.notes.push(format!(
            "{} processes started together; elapsed of the batch, timed once",
            b.processes
        ));
    }
    r.details = Some(Details::of(b));
    r
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
            processes: instances.len(),
            elapsed_s,
            per_type: jobs
                .iter()
                .map(|j| Times::of(j, instances.iter().filter(|i| &i.job == j)))
                .collect(),
            total: Times::of("all", instances.iter()),
            instances,
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
            started_at: Utc::now(),
            sweep: false,
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
            Utc::now(),
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
}

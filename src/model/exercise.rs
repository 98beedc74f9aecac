//! What an exercise records: per instance, per job type and per batch, serialised as the
//! `--json` output. Times are seconds; user and system time come from wait4(2) and include
//! every process the instance's shell started.

use serde::{Deserialize, Serialize};

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
        /// The untimed setup run that made the trusted output.
        setup_real_s: f64,
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

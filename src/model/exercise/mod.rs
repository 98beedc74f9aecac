//! What an exercise records: per instance, per job type and per batch, serialised as the
//! `--json` output. Times are seconds; user and system time come from wait4(2) and include
//! every process the instance's shell started.

use serde::{Deserialize, Serialize};

use super::basis::Basis;
use super::details::Details;
use super::devez::{Devez, DevezRun};
use super::result::{BenchResult, OpTimes, Run, Sample, Status};
use super::stats::Summary;
use super::unit::{Better, Unit};

mod as_run;
pub use as_run::*;

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
        Run::of(r.results())
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

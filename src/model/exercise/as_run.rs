//! An exercise as a stored run: what `history`, `show`, `export`, `compare` and `table`
//! read, like any run's results.

use super::*;

/// A job type's record and a batch's are stored as their results' details.
impl crate::model::details::Record for TypeRecord {}
impl crate::model::details::Record for Batch {}
impl crate::model::details::Record for BatchTrials {}

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
pub(super) const ALONE_SOURCE: &str =
    "seed 004, §3 each job type alone (here: the trusted run of setup, before any batch)";
pub(super) const BATCH_SOURCE: &str =
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

    /// The exercise as a run's results: for each job type, `exercise.TYPE` — its trusted
    /// run, made alone during setup (real time the headline; user and system in `times`);
    /// for each batch, `exercise.batch.N` — the batch's elapsed time as `time` gave it for
    /// the seed's batches, per job of N processes (so one process's share is elapsed / N,
    /// the seed's graphs), with the user and system time of all its processes in `times`.
    /// A skipped type is skipped, a type whose setup failed and a batch with a failed
    /// instance (in any of its trials) are failed: work not done is never a figure. With
    /// `--trials`, a batch's row has one sample per trial and their mean and SD. The
    /// records themselves are the details, so the report can be rebuilt
    /// ([`Report::from_run`]). Each job type alone, then each batch.
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
pub(super) fn one_figure(r: &mut BenchResult, real_s: f64, user_s: f64, sys_s: f64) {
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

pub(super) fn empty(id: String, source: &str, basis: Basis) -> BenchResult {
    BenchResult::new(
        id,
        FAMILY,
        source,
        Unit::Seconds,
        Better::Lower,
        Some(basis),
    )
}

pub(super) fn alone_result(t: &TypeRecord) -> BenchResult {
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

pub(super) fn batch_result(t: &BatchTrials) -> BenchResult {
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
pub(super) fn devez_note(t: &BatchTrials) -> Option<String> {
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
pub(super) fn failed_trials(t: &BatchTrials) -> String {
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
pub(super) fn trial_figures(r: &mut BenchResult, t: &BatchTrials) {
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
    Run::of(report.results())
}

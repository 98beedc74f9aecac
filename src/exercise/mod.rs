//! §8 of the catalogue: the system exerciser of seed 004 (Tuori, DCIEM 1982). Several
//! copies of ordinary jobs run at once; each output is compared byte for byte with a
//! trusted copy made beforehand. It tells whether a machine can be trusted under load, and
//! it measures it: real, user and system time per process against the number of
//! processes (the seed's graphs).
//!
//! The phases are the seed's:
//! 1. **setup** — each job type runs once, alone, to make its trusted output (after an
//!    untimed build step if it has one); one scratch directory per instance is made;
//! 2. **run** — every instance starts at once (each `sh -c JOB` in its own process group),
//!    and timeshare waits for all of them;
//! 3. **check** — each instance's output is compared with the trusted copy;
//! 4. **cleanup** — the scratch directories are removed (also on error or interrupt).
//!
//! # Timing model
//! Per instance: real = from just before its fork to its reaping (the reaping loop polls
//! every few milliseconds, which bounds the error); user and system = wait4's rusage of
//! its shell, which includes every descendant the shell reaped (compiler passes,
//! programs). Per batch: elapsed from the first fork to the last reaping. The per-process
//! curves are totals divided by the number of processes, as the seed plotted them.

pub mod compare;
pub mod devez;
pub mod jobs;
pub mod loopdev;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::harness::{interrupt, limits, procgroup};
use crate::model::devez::Devez;
use crate::model::exercise::{Batch, Instance, Outcome, Report, Times, TypeRecord, TypeState};
use jobs::JobType;

/// What to run.
#[derive(Debug, Clone)]
pub enum Request {
    /// One batch with these many instances of each type.
    Counts(Vec<(&'static JobType, usize)>),
    /// One batch per total, each total split over the types by their shares ([`spread`]).
    Sweep {
        types: Vec<&'static JobType>,
        totals: Vec<usize>,
        /// `--blend`: each type's share, in `types`' order, every total a whole number of
        /// blends (so the mix is the same at every total), every type required to run.
        /// `None`: equal shares over the types that can run, by largest remainder.
        blend: Option<Vec<usize>>,
    },
}

#[derive(Debug, Clone)]
pub struct Config {
    pub request: Request,
    /// Where the run's scratch directory is made.
    pub dir: PathBuf,
    /// Keep the scratch directory (its path is reported) instead of removing it.
    pub keep: bool,
    /// An instance still running after this is killed and fails.
    pub timeout: Duration,
    /// How many times each batch runs (`--trials`), each time fresh and checked in full.
    pub trials: usize,
    /// This executable and its subcommands (for job types that run timeshare itself).
    pub exe: PathBuf,
    pub subcommands: Vec<String>,
    /// One copy of the device exerciser beside every batch (`--devez`), on this target.
    pub devez: Option<devez::Setup>,
}

/// The run stopped because the user asked (Ctrl-C, SIGTERM); everything it started was
/// killed and reaped and its directory removed.
#[derive(Debug, thiserror::Error)]
#[error("interrupted: every instance was killed and reaped, the scratch directory removed")]
pub struct Interrupted;

/// Progress messages (phases), for the caller to show or not.
pub type Progress<'a> = &'a mut dyn FnMut(&str);

/// Run the exercise: setup, then one or more batches of run + check + cleanup.
pub fn exercise(config: &Config, progress: Progress) -> Result<(Report, Option<PathBuf>)> {
    let started_at = crate::model::wallclock::now();
    let root = tempfile::Builder::new()
        .prefix(&crate::harness::debris::exercise_prefix())
        .tempdir_in(&config.dir)
        .with_context(|| format!("cannot make a directory in {}", config.dir.display()))?;
    let types = requested_types(&config.request);
    let mut records = Vec::new();
    let host = crate::harness::contract::Host::detect();
    let on_path = |p: &str| host.find_program(p).is_some();
    for job in &types {
        let state = match jobs::unavailable(job, &on_path, &config.subcommands) {
            Some(reason) => TypeState::Skipped { reason },
            None => {
                progress(&format!("setup: {} (trusted run)", job.name));
                set_up(job, root.path(), config)?
            }
        };
        records.push(TypeRecord {
            name: job.name.to_string(),
            about: job.about.to_string(),
            state,
        });
    }
    // After the root directory, so dropped before it: a loop device is detached before its
    // backing file goes with the directory, on every way out of this function.
    let target = match &config.devez {
        Some(setup) => {
            let t = devez::prepare(setup, root.path(), &on_path)?;
            progress(&format!("setup: {}", t.describe()));
            Some(t)
        }
        None => None,
    };
    let runnable: Vec<&JobType> = types
        .iter()
        .copied()
        .filter(|j| !matches!(state_of(&records, j.name), TypeState::Skipped { .. }))
        .collect();
    blend_can_run(&config.request, &records)?;
    let points: Vec<_> = batch_counts(&config.request, &runnable)
        .into_iter()
        .filter(|counts| counts.iter().map(|c| c.1).sum::<usize>() > 0)
        .collect();
    let mut batches = Vec::new();
    // Trial-major: every batch size once, then again. Whatever drifts during the run (the
    // machine's other load, its temperature and clock, the page cache) then falls on
    // every size alike; all the trials of one size in a row would let it pass for an
    // effect of the number of processes.
    for trial in 1..=config.trials {
        for counts in &points {
            let total: usize = counts.iter().map(|c| c.1).sum();
            progress(&if config.trials == 1 {
                format!("run: {total} instances at once")
            } else {
                format!(
                    "run: trial {trial} of {}: {total} instances at once",
                    config.trials
                )
            });
            let seed = devez::new_seed(batches.len());
            let beside = target.as_ref().map(|t| (t, seed));
            let mut batch = run_batch(counts, &records, root.path(), config, beside)?;
            batch.trial = trial;
            batches.push(batch);
        }
    }
    let passed = batches
        .iter()
        .map(|b: &Batch| b.total.passed)
        .sum::<usize>();
    let failed = batches.iter().map(|b| b.total.failed).sum::<usize>();
    let skipped_types = records
        .iter()
        .filter(|r| matches!(r.state, TypeState::Skipped { .. }))
        .count();
    drop(target);
    let kept = if config.keep {
        Some(root.keep())
    } else {
        progress("cleanup");
        root.close()
            .context("cannot remove the exercise's scratch directory")?;
        None
    };
    let report = Report {
        schema: "timeshare.exercise/1".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        started_at,
        sweep: matches!(config.request, Request::Sweep { .. }),
        trials: config.trials,
        types: records,
        batches,
        passed,
        failed,
        skipped_types,
    };
    Ok((report, kept))
}

fn requested_types(request: &Request) -> Vec<&'static JobType> {
    match request {
        Request::Counts(c) => c.iter().map(|(j, _)| *j).collect(),
        Request::Sweep { types, .. } => types.clone(),
    }
}

fn state_of<'a>(records: &'a [TypeRecord], name: &str) -> &'a TypeState {
    &records
        .iter()
        .find(|r| r.name == name)
        .expect("every type has a record")
        .state
}

/// The instance counts of each batch, over the types that are not skipped.
fn batch_counts(
    request: &Request,
    runnable: &[&'static JobType],
) -> Vec<Vec<(&'static JobType, usize)>> {
    match request {
        Request::Counts(c) => vec![c
            .iter()
            .filter(|(j, _)| runnable.iter().any(|r| r.name == j.name))
            .copied()
            .collect()],
        Request::Sweep {
            totals,
            blend: Some(shares),
            types,
        } => totals.iter().map(|&n| spread(n, types, shares)).collect(),
        // Without a blend, N copies of each type: every batch is N blends of one of each,
        // so the mix of job types is the same at every N (seed 004 ran one blend at every
        // load). Spreading N processes over the types would run cc alone at 1 and one of
        // each only from N = types on.
        Request::Sweep { totals, .. } => totals
            .iter()
            .map(|&n| runnable.iter().map(|j| (*j, n)).collect())
            .collect(),
    }
}

/// A `--blend` asks for a mix; a type of it that cannot run here would change the mix, so
/// the exercise stops before any batch and says which and why.
fn blend_can_run(request: &Request, records: &[TypeRecord]) -> Result<()> {
    let Request::Sweep {
        types,
        blend: Some(_),
        ..
    } = request
    else {
        return Ok(());
    };
    for job in types {
        if let TypeState::Skipped { reason } = state_of(records, job.name) {
            anyhow::bail!(
                "--blend: {} cannot run here ({reason}), and without it the mix is not the                  one asked for",
                job.name
            );
        }
    }
    Ok(())
}

/// `n` processes over `types` in proportion to `shares`, by largest remainder (Hamilton's
/// method): each type first takes the whole part of n × share / Σshares, then the
/// processes left over go one each to the largest fractional parts, ties to the type
/// listed first. The counts add up to n and each is within one process of its exact
/// share; when n is a whole number of blends (a multiple of Σshares) every type has
/// exactly its share, so the mix is the same at every such n.
pub fn spread(
    n: usize,
    types: &[&'static JobType],
    shares: &[usize],
) -> Vec<(&'static JobType, usize)> {
    let total: usize = shares.iter().sum();
    if types.is_empty() || total == 0 {
        return Vec::new();
    }
    let mut counts: Vec<usize> = shares.iter().map(|s| n * s / total).collect();
    // The remainders, in units of 1/total: n × share mod total.
    let mut order: Vec<usize> = (0..types.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(n * shares[i] % total));
    let left = n - counts.iter().sum::<usize>();
    for &i in order.iter().take(left) {
        counts[i] += 1;
    }
    types
        .iter()
        .zip(counts)
        .map(|(j, c)| (*j, c))
        .filter(|(_, c)| *c > 0)
        .collect()
}

/// The setup phase of one type: inputs into `TYPE/trusted`, the build step (if any) in
/// `TYPE/bin`, one trusted run.
fn set_up(job: &'static JobType, root: &Path, config: &Config) -> Result<TypeState> {
    let base = root.join(job.name);
    let bin = base.join("bin");
    let trusted = base.join("trusted");
    for dir in [&bin, &trusted] {
        std::fs::create_dir_all(dir)?;
        write_inputs(job, dir)?;
    }
    if let Some(build) = job.build {
        let ran = run_all(&[spec(build, &bin, &bin, config)], config.timeout)?;
        if let Some(why) = failure(&ran[0], &bin) {
            return Ok(TypeState::SetupFailed {
                reason: format!("build step `{build}`: {why}"),
            });
        }
    }
    let ran = run_all(&[spec(job.script, &trusted, &bin, config)], config.timeout)?;
    if let Some(why) = failure(&ran[0], &trusted) {
        return Ok(TypeState::SetupFailed {
            reason: format!("trusted run `{}`: {why}", job.script),
        });
    }
    match std::fs::read(trusted.join(job.output)) {
        Ok(bytes) if !bytes.is_empty() => Ok(TypeState::Ready {
            trusted_file: job.output.to_string(),
            trusted_bytes: bytes.len() as u64,
            setup_real_s: ran[0].real_s,
            setup_user_s: ran[0].user_s,
            setup_sys_s: ran[0].sys_s,
        }),
        Ok(_) => Ok(TypeState::SetupFailed {
            reason: format!("the trusted run left {} empty", job.output),
        }),
        Err(e) => Ok(TypeState::SetupFailed {
            reason: format!("the trusted run made no {}: {e}", job.output),
        }),
    }
}

fn write_inputs(job: &JobType, dir: &Path) -> Result<()> {
    for (name, bytes) in (job.inputs)() {
        std::fs::write(dir.join(name), bytes)
            .with_context(|| format!("cannot write {}", dir.join(name).display()))?;
    }
    Ok(())
}

/// One batch: make the instance directories, start every instance, wait, check, remove
/// the directories.
fn run_batch(
    counts: &[(&'static JobType, usize)],
    records: &[TypeRecord],
    root: &Path,
    config: &Config,
    devez: Option<(&devez::Target, u32)>,
) -> Result<Batch> {
    let mut specs = Vec::new();
    let mut names = Vec::new();
    for &(job, count) in counts {
        let base = root.join(job.name);
        for index in 1..=count {
            let dir = base.join(index.to_string());
            std::fs::create_dir_all(&dir)?;
            write_inputs(job, &dir)?;
            specs.push(spec(job.script, &dir, &base.join("bin"), config));
            names.push((job, index, dir));
        }
    }
    // Types whose setup failed still get their directories (and show as failed) but are
    // not started: there would be nothing to compare them with.
    let startable: Vec<bool> = names
        .iter()
        .map(|(job, _, _)| matches!(state_of(records, job.name), TypeState::Ready { .. }))
        .collect();
    let to_start: Vec<Spec> = specs
        .iter()
        .zip(&startable)
        .filter(|(_, s)| **s)
        .map(|(sp, _)| sp.clone())
        .collect();
    let before = limits::Snapshot::take();
    let (ran, elapsed_s, devez) = run_beside_devez(&to_start, config.timeout, devez);
    let mut ran = ran?.into_iter();
    let mut instances = Vec::new();
    for ((job, index, dir), can) in names.iter().zip(&startable) {
        let rel = format!("{}/{index}", job.name);
        let instance = if *can {
            let r = ran.next().expect("one result per started instance");
            let trusted = root.join(job.name).join("trusted").join(job.output);
            Instance {
                job: job.name.to_string(),
                index: *index,
                outcome: by_cause(check(&r, job, dir, &trusted, &rel), &before, dir),
                dir: rel,
                real_s: r.real_s,
                user_s: r.user_s,
                sys_s: r.sys_s,
                exit_code: match r.end {
                    Some(procgroup::End::Exited(c)) => Some(c),
                    _ => None,
                },
            }
        } else {
            let reason = match state_of(records, job.name) {
                TypeState::SetupFailed { reason } => reason.clone(),
                _ => "not set up".into(),
            };
            Instance {
                job: job.name.to_string(),
                index: *index,
                outcome: Outcome::SetupFailed { reason },
                dir: rel,
                real_s: 0.0,
                user_s: 0.0,
                sys_s: 0.0,
                exit_code: None,
            }
        };
        instances.push(instance);
    }
    if !config.keep {
        for (job, _, dir) in &names {
            std::fs::remove_dir_all(dir)
                .with_context(|| format!("cannot remove {} ({})", dir.display(), job.name))?;
        }
    }
    let per_type = counts
        .iter()
        .map(|(job, _)| Times::of(job.name, instances.iter().filter(|i| i.job == job.name)))
        .collect();
    Ok(Batch {
        trial: 1,
        processes: instances.len(),
        elapsed_s,
        per_type,
        total: Times::of("all", instances.iter()),
        instances,
        devez,
    })
}

/// Run the batch's instances and, on a thread of its own, the device exerciser beside
/// them until they are all over (it finishes the pass it is in). The elapsed time is the
/// instances' alone: the exerciser's last pass may outlast them.
fn run_beside_devez(
    specs: &[Spec],
    timeout: Duration,
    devez: Option<(&devez::Target, u32)>,
) -> (Result<Vec<Ran>>, f64, Option<Devez>) {
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let beside = match devez {
            Some((devez::Target::Ready(device), seed)) => {
                let stop = &stop;
                Some(s.spawn(move || device.exercise(seed, stop, timeout)))
            }
            _ => None,
        };
        let started = Instant::now();
        let ran = run_all(specs, timeout);
        let elapsed_s = started.elapsed().as_secs_f64();
        stop.store(true, Ordering::Relaxed);
        let record = match beside {
            Some(h) => Some(Devez::Ran(
                h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            )),
            None => devez.and_then(|(t, _)| t.skipped()),
        };
        (ran, elapsed_s, record)
    })
}

/// The check phase for one instance: how it ended, then its output byte for byte.
fn check(r: &Ran, job: &JobType, dir: &Path, trusted: &Path, rel: &str) -> Outcome {
    if let Some(outcome) = end_outcome(r, dir) {
        return outcome;
    }
    let file = format!("{rel}/{}", job.output);
    let actual = match std::fs::read(dir.join(job.output)) {
        Ok(b) => b,
        Err(e) => {
            return Outcome::MissingOutput {
                file,
                error: e.to_string(),
            }
        }
    };
    let expected = match std::fs::read(trusted) {
        Ok(b) => b,
        Err(e) => {
            return Outcome::MissingOutput {
                file: trusted.display().to_string(),
                error: format!("the trusted copy went missing: {e}"),
            }
        }
    };
    match compare::compare(&expected, &actual) {
        None => Outcome::Pass,
        Some(difference) => Outcome::Mismatch { file, difference },
    }
}

/// A failure named by the resource that ran out, when the evidence (the file system, the
/// cgroup's events, what the job wrote to standard error) names one: "no space left"
/// rather than "cc.out differs at byte 0", the cgroup's `pids.max` rather than
/// RLIMIT_NPROC, EMFILE rather than the compiler's last line.
fn by_cause(outcome: Outcome, before: &limits::Snapshot, dir: &Path) -> Outcome {
    if matches!(
        outcome,
        Outcome::Pass | Outcome::TimedOut { .. } | Outcome::SetupFailed { .. }
    ) {
        return outcome;
    }
    let stderr = std::fs::read(dir.join("stderr"))
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    match limits::cause(before, dir, &stderr) {
        Some((resource, detail)) => Outcome::OutOfResources {
            resource,
            detail,
            symptom: outcome.describe(),
        },
        None => outcome,
    }
}

/// A failure in how the process ended, if any.
fn end_outcome(r: &Ran, dir: &Path) -> Option<Outcome> {
    if let Some((error, limit)) = &r.start_error {
        return Some(Outcome::CouldNotStart {
            error: error.clone(),
            limit: limit.clone(),
        });
    }
    if r.timed_out {
        return Some(Outcome::TimedOut { after_s: r.real_s });
    }
    match r.end {
        Some(procgroup::End::Signalled(sig)) => Some(Outcome::Signalled {
            signal: sig,
            name: procgroup::signal_name(sig),
        }),
        Some(procgroup::End::Exited(0)) => None,
        Some(procgroup::End::Exited(code)) => Some(Outcome::ExitStatus {
            code,
            stderr: last_line(&dir.join("stderr")),
        }),
        None => Some(Outcome::CouldNotStart {
            error: "never started".into(),
            limit: None,
        }),
    }
}

/// For setup runs: why the run failed, if it did.
fn failure(r: &Ran, dir: &Path) -> Option<String> {
    end_outcome(r, dir).map(|o| o.describe())
}

fn last_line(path: &Path) -> String {
    std::fs::read(path)
        .map(|b| {
            String::from_utf8_lossy(&b)
                .lines()
                .rfind(|l| !l.trim().is_empty())
                .unwrap_or("(nothing on standard error)")
                .to_string()
        })
        .unwrap_or_else(|_| "(no standard error file)".into())
}

/// One process to start: `sh -c script` in `dir`.
#[derive(Debug, Clone)]
struct Spec {
    script: &'static str,
    dir: PathBuf,
    bin: PathBuf,
    exe: PathBuf,
}

fn spec(script: &'static str, dir: &Path, bin: &Path, config: &Config) -> Spec {
    Spec {
        script,
        dir: dir.to_path_buf(),
        bin: bin.to_path_buf(),
        exe: config.exe.clone(),
    }
}

/// How one process went.
#[derive(Debug, Clone, Default)]
struct Ran {
    /// `None` when it never started.
    end: Option<procgroup::End>,
    start_error: Option<(String, Option<String>)>,
    timed_out: bool,
    real_s: f64,
    user_s: f64,
    sys_s: f64,
}

/// Start every spec, each in its own process group, and wait for all of them. On an
/// interrupt, kill every group, reap every leader, wait for the groups to empty, and
/// return `Interrupted`.
fn run_all(specs: &[Spec], timeout: Duration) -> Result<Vec<Ran>> {
    let mut ran = vec![Ran::default(); specs.len()];
    let mut running: Vec<(usize, i32, Instant)> = Vec::new();
    let mut groups = Vec::new();
    let mark = mark_prefix();
    for (i, s) in specs.iter().enumerate() {
        if interrupt::requested() {
            break;
        }
        let start = Instant::now();
        match start_one(s, &format!("{mark}{i}")) {
            Ok(pid) => {
                running.push((i, pid, start));
                groups.push(pid);
            }
            Err(e) => ran[i].start_error = Some((e.to_string(), procgroup::limit_hit(&e))),
        }
    }
    while !running.is_empty() {
        if interrupt::requested() {
            stop_all(&running, &groups);
            return Err(Interrupted.into());
        }
        let mut k = 0;
        while k < running.len() {
            let (i, pid, start) = running[k];
            match procgroup::try_reap(pid) {
                Ok(Some(r)) => {
                    let out = &mut ran[i];
                    out.real_s = start.elapsed().as_secs_f64();
                    out.end = Some(r.end);
                    out.user_s = r.user_s;
                    out.sys_s = r.system_s;
                    running.swap_remove(k);
                    continue;
                }
                Ok(None) => {
                    if start.elapsed() > timeout && !ran[i].timed_out {
                        ran[i].timed_out = true;
                        procgroup::kill_group(pid);
                    }
                }
                Err(e) => {
                    stop_all(&running, &groups);
                    return Err(e).context("waiting for an instance");
                }
            }
            k += 1;
        }
        // Poll less often when many are running, so the reaping loop stays cheap.
        std::thread::sleep(Duration::from_micros(1000 + 10 * running.len() as u64));
    }
    // An instance is over when every process it started is gone, also one that left its
    // process group (`setsid`): only then is its output final and checked. What is still
    // running at the instance's timeout is killed and the instance timed out.
    if let Err(e) = wait_instances_gone(specs, &mut ran, timeout, &mark) {
        stop_all(&[], &groups);
        return Err(e);
    }
    // Whatever is left of the groups must not outlive the run.
    for g in &groups {
        if procgroup::group_alive(*g) {
            procgroup::kill_group(*g);
        }
    }
    procgroup::wait_groups_gone(&groups, Duration::from_secs(5));
    Ok(ran)
}

/// The environment variable that marks an instance's processes: `PID.NANOS.INDEX`, this
/// process's id, the batch's start time and the instance's index in the batch (two
/// batches at once in one process do not see each other's).
const MARK: &str = "TIMESHARE_EXERCISE_INSTANCE";

fn mark_prefix() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}.{nanos}.", std::process::id())
}

/// Wait until no process of any instance is left, killing those of an instance past its
/// timeout (from its start, so one that outlived its shell gets what remained of it).
fn wait_instances_gone(
    specs: &[Spec],
    ran: &mut [Ran],
    timeout: Duration,
    mark: &str,
) -> Result<()> {
    let started = Instant::now();
    loop {
        let left = procgroup::marked_processes(MARK, mark);
        if left.is_empty() {
            return Ok(());
        }
        if interrupt::requested() {
            for (pid, _) in &left {
                // SAFETY: a signal to a process of our own instance; no memory involved.
                unsafe { libc::kill(*pid, libc::SIGKILL) };
            }
            return Err(Interrupted.into());
        }
        for (pid, value) in &left {
            let index = value
                .rsplit('.')
                .next()
                .and_then(|i| i.parse::<usize>().ok())
                .filter(|&i| i < specs.len());
            let over = match index {
                Some(i) => ran[i].real_s + started.elapsed().as_secs_f64() > timeout.as_secs_f64(),
                None => started.elapsed() > timeout,
            };
            if over {
                if let Some(i) = index {
                    ran[i].timed_out = true;
                }
                // SAFETY: a signal to a process of our own instance; no memory involved.
                unsafe { libc::kill(*pid, libc::SIGKILL) };
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn start_one(s: &Spec, mark: &str) -> std::io::Result<i32> {
    let stdout = File::create(s.dir.join("stdout"))?;
    let stderr = File::create(s.dir.join("stderr"))?;
    // The job's own temporary directory (the compiler's files, a sort's runs), inside the
    // scratch directory, so that whatever a killed job leaves goes with it.
    let tmp = s.dir.join(".tmp");
    std::fs::create_dir_all(&tmp)?;
    // /bin/sh by its path: the job's own programs are looked up on PATH, the shell is not.
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(s.script)
        .current_dir(&s.dir)
        .env("LC_ALL", "C")
        .env("TZ", "UTC0")
        .env("TMPDIR", &tmp)
        .env(MARK, mark)
        .env("EXERCISE_BIN", &s.bin)
        .env("TIMESHARE_EXE", &s.exe)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    let child = procgroup::in_own_group(&mut cmd).spawn()?;
    Ok(child.id() as i32)
}

/// Kill every group still running, reap the leaders, wait for the groups to empty.
fn stop_all(running: &[(usize, i32, Instant)], groups: &[i32]) {
    for &(_, pid, _) in running {
        procgroup::kill_group(pid);
    }
    for &(_, pid, _) in running {
        let _ = procgroup::reap_blocking(pid);
    }
    for g in groups {
        procgroup::kill_group(*g);
    }
    procgroup::wait_groups_gone(groups, Duration::from_secs(5));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(c: &[(&'static JobType, usize)]) -> Vec<(&'static str, usize)> {
        c.iter().map(|(j, n)| (j.name, *n)).collect()
    }

    #[test]
    fn a_sweep_spreads_processes_evenly_in_table_order() {
        let types: Vec<&JobType> = jobs::JOBS.iter().take(4).collect();
        let equal = [1; 4];
        let c = spread(5, &types, &equal);
        assert_eq!(
            named(&c),
            [("cc", 2), ("nroff", 1), ("ed", 1), ("float", 1)]
        );
        assert_eq!(spread(2, &types, &equal).len(), 2);
        assert!(spread(3, &[], &[]).is_empty());
    }

    #[test]
    fn a_sweep_without_a_blend_runs_every_type_at_every_n() {
        let types: Vec<&JobType> = jobs::JOBS.iter().take(4).collect();
        let request = Request::Sweep {
            types: types.clone(),
            totals: vec![1, 2, 4],
            blend: None,
        };
        let batches = batch_counts(&request, &types);
        assert_eq!(batches.len(), 3);
        for (counts, n) in batches.iter().zip([1, 2, 4]) {
            let names: Vec<&str> = counts.iter().map(|(j, _)| j.name).collect();
            assert_eq!(names, ["cc", "nroff", "ed", "float"], "N = {n}");
            assert!(
                counts.iter().all(|&(_, c)| c == n),
                "N = {n}: {:?}",
                named(counts)
            );
        }
    }

    #[test]
    fn a_blend_gives_the_same_mix_at_every_whole_number_of_blends() {
        let types: Vec<&JobType> = jobs::JOBS.iter().take(4).collect();
        let shares = [3, 1, 2, 2];
        for blends in [1, 2, 5, 10] {
            let n = 8 * blends;
            let c = spread(n, &types, &shares);
            let want: Vec<usize> = shares.iter().map(|s| s * blends).collect();
            assert_eq!(c.iter().map(|x| x.1).collect::<Vec<_>>(), want, "n = {n}");
        }
        // Between whole blends: the counts add up and each is within one of its share.
        for n in 1..40 {
            let c = spread(n, &types, &shares);
            assert_eq!(c.iter().map(|x| x.1).sum::<usize>(), n);
            for (j, got) in &c {
                let k = types.iter().position(|t| t.name == j.name).unwrap();
                let exact = (n * shares[k]) as f64 / 8.0;
                assert!(
                    (*got as f64 - exact).abs() < 1.0,
                    "n = {n}: {} {got}",
                    j.name
                );
            }
        }
        // Largest remainder, not the first type: 3 of 3:1:2:2 is 1.125, 0.375, 0.75, 0.75.
        assert_eq!(
            named(&spread(3, &types, &shares)),
            [("cc", 1), ("ed", 1), ("float", 1)]
        );
    }

    /// A stand-in timeshare whose `chess-game` prints a fixed game, or exits 1 when `fail`.
    fn fake_exe(dir: &Path, fail: bool) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let exe = dir.join("fake-timeshare");
        let body = if fail { "exit 1" } else { "echo '1. e4 e5'" };
        std::fs::write(
            &exe,
            format!("#!/bin/sh\n[ \"$1\" = chess-game ] && {body}\n"),
        )
        .unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        exe
    }

    fn devez_config(scratch: &Path, exe: PathBuf, devez: devez::Setup) -> Config {
        Config {
            request: Request::Counts(vec![(jobs::find("chess").unwrap(), 2)]),
            dir: scratch.to_path_buf(),
            keep: false,
            timeout: Duration::from_secs(120),
            trials: 1,
            exe,
            subcommands: vec!["chess-game".into()],
            devez: Some(devez),
        }
    }

    fn is_empty(dir: &Path) -> bool {
        std::fs::read_dir(dir).unwrap().next().is_none()
    }

    /// Whether a loop device is still attached over a file below `dir`.
    fn loop_left_in(dir: &Path) -> bool {
        let out = Command::new("losetup").arg("-a").output().unwrap();
        String::from_utf8_lossy(&out.stdout).contains(&*dir.to_string_lossy())
    }

    /// A byte changed on the target between the write pass and the read pass — on the
    /// file itself, through another descriptor — fails the batch though every job
    /// passed: in the report, the exit's count, and the stored row.
    #[test]
    fn a_corrupted_block_on_the_devez_target_fails_the_batch() {
        fn corrupt(path: &Path, _pass: u64) {
            devez::tests::flip_at(path, 2 * devez::BLOCK + 77, 3);
        }
        let exes = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let setup = devez::Setup {
            kind: devez::Kind::File,
            size: devez::MIN_SIZE,
            tamper: Some(corrupt),
        };
        let config = devez_config(scratch.path(), fake_exe(exes.path(), false), setup);
        let (report, _) = exercise(&config, &mut |_| {}).unwrap();
        assert_eq!((report.passed, report.failed), (2, 0));
        assert_eq!(report.devez_failed(), 1);
        let run = report.batches[0]
            .devez
            .as_ref()
            .unwrap()
            .ran()
            .unwrap()
            .clone();
        assert!(
            run.passes >= 1 && run.verify_errors == run.passes,
            "{run:?}"
        );
        assert_eq!((run.errors[0].block, run.errors[0].first_bad_byte), (2, 77));
        let stored = report.results();
        let row = stored.iter().find(|r| r.id == "exercise.batch.2").unwrap();
        let crate::model::Status::Failed { error } = &row.status else {
            panic!("{:?}", row.status);
        };
        assert!(
            error.starts_with("devez: ") && error.contains("block 2"),
            "{error}"
        );
        let text = crate::report::exercise::render(&report);
        assert!(
            text.contains("FAIL devez beside the batch of 2 processes"),
            "{text}"
        );
        assert!(text.contains("summary: FAIL"), "{text}");
        assert!(is_empty(scratch.path()), "the scratch file is gone");
    }

    /// A batch whose jobs fail still leaves no scratch file and, as root, no loop device
    /// attached; as anyone else the loop target is skipped with the reason and no file
    /// is exercised in its place.
    #[test]
    fn a_failed_batch_leaves_no_devez_target_behind() {
        let exes = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        // SAFETY: geteuid cannot fail.
        let root = unsafe { libc::geteuid() } == 0;
        for kind in [devez::Kind::File, devez::Kind::Loop] {
            let setup = devez::Setup {
                kind,
                size: devez::MIN_SIZE,
                tamper: None,
            };
            let config = devez_config(scratch.path(), fake_exe(exes.path(), true), setup);
            let (report, _) = exercise(&config, &mut |_| {}).unwrap();
            assert_eq!((report.passed, report.failed), (0, 2), "{kind:?}");
            match report.batches[0].devez.as_ref().unwrap() {
                Devez::Ran(r) => assert!(!r.failed() && r.passes >= 1, "{r:?}"),
                Devez::Skipped { target, reason } => {
                    assert_eq!((kind, target.as_str()), (devez::Kind::Loop, "loop"));
                    assert!(!reason.is_empty());
                    if !root {
                        assert!(reason.contains("needs root"), "{reason}");
                    }
                }
            }
            assert!(
                is_empty(scratch.path()),
                "{kind:?}: the scratch directory is gone"
            );
            if kind == devez::Kind::Loop && root {
                assert!(!loop_left_in(scratch.path()), "the loop device is detached");
            }
        }
    }

    /// The chess job is one table entry that runs this executable's `chess-game`: with a
    /// stand-in executable that has it, the job runs and is checked like any other.
    #[test]
    fn the_chess_entry_runs_the_exe_subcommand_when_it_exists() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("fake-timeshare");
        std::fs::write(
            &exe,
            "#!/bin/sh\n[ \"$1\" = chess-game ] && echo '1. e4 e5'\n",
        )
        .unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let chess = jobs::find("chess").unwrap();
        let mut config = Config {
            request: Request::Counts(vec![(chess, 2)]),
            dir: dir.path().to_path_buf(),
            keep: false,
            timeout: Duration::from_secs(60),
            trials: 1,
            exe,
            subcommands: vec!["chess-game".into()],
            devez: None,
        };
        let (report, _) = exercise(&config, &mut |_| {}).unwrap();
        assert_eq!(
            (report.passed, report.failed, report.skipped_types),
            (2, 0, 0)
        );
        config.subcommands.clear();
        let (report, _) = exercise(&config, &mut |_| {}).unwrap();
        assert_eq!(
            (report.passed, report.failed, report.skipped_types),
            (0, 0, 1)
        );
    }
}

//! Invocations as a level of the experiment: the same benchmarks measured again in fresh
//! processes, so that what differs from one process to the next (where the kernel put it
//! and its memory, the host's scheduling, the neighbours) is sampled instead of frozen
//! into one run's figures (see `model::levels`).
//!
//! Each invocation re-executes a timeshare binary with the hidden subcommand [`COMMAND`]:
//! it reads the run's options from a file, measures the listed ids in the order given,
//! and writes its `Run` as JSON to a file in the round's scratch directory. The order is
//! shuffled from one round to the next, so that a drift of the machine during the run
//! does not fall on the same ids every time. With two sides (`timeshare ab`), each round
//! runs both, in the order A B, then B A, then A B … so that a steady drift favours
//! neither.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use rand::seq::SliceRandom;

use super::children;
use super::contract::{Benchmark, Plan};
use super::interrupt;
use crate::model::{Mode, Run, RunOptions, RunStatus};

/// The hidden subcommand that measures one invocation.
pub const COMMAND: &str = "internal-invocation";

/// Invocations per run when `--invocations` is not given: quick mode measures every row
/// in [`QUICK_INVOCATIONS`] fresh processes with a third of one process's samples each
/// (see [`plan_for`]), so that two quick runs are compared at the process level — one
/// process's samples cannot see how far processes differ, and two one-process quick runs
/// of one binary were called changed for 111 of 286 ids; `--invocations 1` is the one
/// process of before. Full mode samples the process level with ten processes, each
/// measuring every row with the quick plan (see [`plan_mode`]). Why ten short processes
/// rather than three long ones: on the 2-vCPU VM this was tuned on, a row's figure in one
/// process is tight (±1–3 ns for `getpid`) but the process lands in one of two states for
/// the whole row (127 or 165 ns, the state belongs to the vCPU it runs on and lasts tens
/// of seconds), so nearly all the variance is between processes and more samples in a
/// process buy nothing (Kalibera and Jones: spend on the level that varies). Ten
/// processes give the median of their medians a distribution-free 95% interval,
/// `[x₍₂₎, x₍₉₎]` (97.9%), and cost no more than the three long ones did (docs/noise.md
/// has the figures).
pub fn default_invocations(mode: Mode) -> usize {
    match mode {
        Mode::Quick => QUICK_INVOCATIONS,
        Mode::Full => FULL_INVOCATIONS,
    }
}

/// The processes a quick run shares one process's samples between: the fewest that the
/// comparison tests at the process level (`model::change::MIN_INVOCATIONS`).
pub const QUICK_INVOCATIONS: usize = 3;

/// Invocations of a full run when `--invocations` is not given.
pub const FULL_INVOCATIONS: usize = 10;

/// Whether a run across several processes measures `b` in its first process only
/// ([`Benchmark::measured_in_one_process`]). Such a row's plan is its own mode's.
pub fn measured_once(b: &Benchmark) -> bool {
    b.measured_once_reason().is_some()
}

/// The ids round `r` measures, in the order given: every row in the first round; after
/// it, those not [`measured_once`]. The load rows (N copies, N users' shells, K readers
/// beside a program) and the network sweeps (a score of sizes, each moved three times)
/// last seconds each: measured in every one of a full run's ten processes, the load rows
/// took 102–123 s of each and the sweeps 62 s of each later process's 112 s.
pub fn ids_of_round(benches: &[&Benchmark], r: usize) -> Vec<String> {
    benches
        .iter()
        .filter(|b| r == 0 || !measured_once(b))
        .map(|b| b.id().to_string())
        .collect()
}

/// How a process of this run samples `b`: the plan of [`plan_mode`], its samples shared
/// out in a quick run across processes (a third of one quick process's in each, so the
/// three processes of a default quick run take what one process took before: 7 samples
/// of ≥ 2 ms instead of 21, one whole job instead of three), a row [`measured_once`]
/// with its own mode's plan, and `--precision`'s planned samples over all of it.
pub fn plan_for(b: &Benchmark, options: &RunOptions) -> Plan {
    let mut plan = if measured_once(b) {
        b.plan(options.mode)
    } else {
        let mut plan = b.plan(plan_mode(options));
        if shares_samples(options) {
            plan.samples = plan.samples.div_ceil(QUICK_INVOCATIONS);
        }
        plan
    };
    if let Some(&n) = options.samples.get(b.id()) {
        plan.samples = n;
    }
    plan
}

/// A quick run across processes (not one planned to a precision, whose pilot counts on
/// whole quick plans) shares one process's samples out between its processes.
fn shares_samples(options: &RunOptions) -> bool {
    options.mode == Mode::Quick
        && options.invocations.unwrap_or(1) > 1
        && options.precision.is_none()
}

/// The mode whose per-process plan (samples, their length) a process of this run
/// measures with: a full run across several processes measures each of them with the
/// quick plan — its figures come from the number of processes, not from long samples in
/// each; everything else (sizes, what a row does) stays the run's own mode.
pub fn plan_mode(options: &RunOptions) -> Mode {
    match options.mode {
        Mode::Full if options.invocations.unwrap_or(1) > 1 => Mode::Quick,
        mode => mode,
    }
}

/// One thing measured: a timeshare binary and the options it runs with.
#[derive(Debug, Clone)]
pub struct Side {
    /// A short name for messages ("A", "self").
    pub name: String,
    pub exe: PathBuf,
    pub options: RunOptions,
    /// The scratch directory the invocation measures in (`--dir`).
    pub dir: PathBuf,
}

impl Side {
    /// Measure `ids` in a fresh process, in that order. `work` is a private directory for
    /// the files that go to and from the child. A process not `first` of its side skips
    /// what the merged result keeps from the first only (details' percentile passes,
    /// single calls; see `model::levels::merge`).
    ///
    /// `on_row(n, id)` is called for each row the child reports finished, its n-th, `id`
    /// (it appends a byte to a file per row; read here between the polls of its exit that
    /// were made anyway): a progress bar can move, row by row, while a process of hundreds
    /// of rows runs.
    pub fn invoke(
        &self,
        ids: &[String],
        work: &Path,
        tag: &str,
        first: bool,
        on_row: &mut dyn FnMut(usize, &str),
    ) -> Result<Run> {
        let options = work.join(format!("{tag}-options.json"));
        let out = work.join(format!("{tag}-run.json"));
        let rows_done = work.join(format!("{tag}-rows"));
        std::fs::write(&options, serde_json::to_vec(&self.options)?)
            .with_context(|| format!("cannot write {}", options.display()))?;
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        let mut command = Command::new(&self.exe);
        // SAFETY: the hook calls only async-signal-safe functions (`die_with_parent`).
        unsafe {
            command.pre_exec(move || children::die_with_parent(libc::SIGTERM, parent));
        }
        let memory_events = super::limits::Cgroup::read().memory_events;
        let mut child = command
            .arg(COMMAND)
            .arg("--options")
            .arg(&options)
            .arg("--out")
            .arg(&out)
            .arg("--dir")
            .arg(&self.dir)
            .arg("--rows-done")
            .arg(&rows_done)
            .args((!first).then_some("--later"))
            .arg("--")
            .args(ids)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start {}", self.exe.display()))?;
        // A Ctrl-C at the terminal reaches the child too; a signal sent to this process
        // alone is passed on, so that the child stops and writes what it measured.
        let mut forwarded = false;
        let mut reported = 0;
        let status = loop {
            let done = std::fs::metadata(&rows_done).map_or(0, |m| m.len() as usize);
            // The child measures `ids` in order: its n-th row is ids[n - 1].
            for n in reported + 1..=done.min(ids.len()) {
                on_row(n, &ids[n - 1]);
            }
            reported = reported.max(done.min(ids.len()));
            if let Some(status) = child.try_wait()? {
                break status;
            }
            if !forwarded && interrupt::requested() {
                // SAFETY: kill(2) on the pid of a child we have not reaped yet.
                unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
                forwarded = true;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let text = match std::fs::read(&out) {
            Ok(t) => t,
            Err(_) if interrupt::requested() => return Err(interrupt::Interrupted.into()),
            Err(e) => {
                if let Some(reason) = killed_by(&status, memory_events) {
                    // What the dead process left in the scratch directory (its pid is in
                    // every name, and it is reaped: `clean`'s sweep removes it).
                    super::debris::sweep_scratch(&self.dir);
                    let rows_done = std::fs::metadata(&rows_done).map_or(0, |m| m.len() as usize);
                    return Err(Killed { rows_done, reason }.into());
                }
                bail!(
                    "invocation {tag} of {} ended ({status}) without a result: {e}",
                    self.exe.display(),
                )
            }
        };
        let run: Run = serde_json::from_slice(&text)
            .with_context(|| format!("cannot read the result of invocation {tag}"))?;
        Ok(run)
    }
}

/// An invocation's process killed by a signal (the OOM killer's SIGKILL, an abort) before
/// it wrote its result: the rows it finished before, and why it died.
#[derive(Debug)]
pub struct Killed {
    pub rows_done: usize,
    pub reason: String,
}

impl std::fmt::Display for Killed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} after {} rows", self.reason, self.rows_done)
    }
}

impl std::error::Error for Killed {}

/// Why a child that ended by a signal died: the OOM killer at our cgroup's memory limit
/// when the cgroup counted an OOM kill while it ran (a bare "signal 9" says nothing of
/// why), else the signal; `None` for a child that exited.
fn killed_by(status: &std::process::ExitStatus, memory_events_before: u64) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    let signal = status.signal()?;
    let cg = super::limits::Cgroup::read();
    Some(match cg.memory_max {
        Some(max) if signal == libc::SIGKILL && cg.memory_events > memory_events_before => {
            format!(
                "its process was killed by the kernel's OOM killer at the cgroup's memory \
                 limit, memory.max = {} MiB",
                max >> 20
            )
        }
        _ => format!(
            "its process was killed by signal {signal}{}",
            signal_name(signal)
        ),
    })
}

/// " (SIGKILL)" and the like, for the signals a measuring process dies of.
fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGKILL => " (SIGKILL)",
        libc::SIGABRT => " (SIGABRT)",
        libc::SIGSEGV => " (SIGSEGV)",
        libc::SIGBUS => " (SIGBUS)",
        libc::SIGTERM => " (SIGTERM)",
        _ => "",
    }
}

/// Measure `ids` in a fresh process of `side`, as [`Side::invoke`], surviving a process
/// killed in a row: that row is recorded in `killed` with the reason and the other rows
/// are measured again in a fresh process (those finished before the kill included: the
/// dead process wrote none of them), until a process ends with its result. `None` when
/// every row was killed.
fn invoke_surviving_kills(
    side: &Side,
    ids: &[String],
    work: &Path,
    tag: &str,
    first: bool,
    on_row: &mut dyn FnMut(usize, &str),
    killed: &mut Vec<(String, String)>,
) -> Result<Option<Run>> {
    let mut ids = ids.to_vec();
    let mut attempt = 0;
    loop {
        if ids.is_empty() {
            return Ok(None);
        }
        let tag = match attempt {
            0 => tag.to_string(),
            n => format!("{tag}-again{n}"),
        };
        match side.invoke(&ids, work, &tag, first, on_row) {
            Ok(run) => return Ok(Some(run)),
            Err(e) => {
                let Some(k) = e.downcast_ref::<Killed>() else {
                    return Err(e);
                };
                let Some(row) = ids.get(k.rows_done).cloned() else {
                    // Killed after its last row, as it wrote its result: no row to blame.
                    return Err(e.context(format!("invocation {tag} of {}", side.exe.display())));
                };
                killed.push((
                    row.clone(),
                    format!("{} while it measured this row", k.reason),
                ));
                ids.retain(|id| *id != row);
            }
        }
        attempt += 1;
    }
}

/// Each row a process was killed in failed in every run of its side, with the reason:
/// its figures from the other processes are not kept (the row is what killed a process,
/// or died with it). A row no run of the side holds is added to the side's last run.
fn fail_killed_rows(
    runs: &mut [Run],
    killed: &[(String, String)],
    benches: &[&Benchmark],
) -> Result<()> {
    for (id, reason) in killed {
        let b = benches
            .iter()
            .find(|b| b.id() == id)
            .with_context(|| format!("{id} is not a row of this run"))?;
        let failed = b.failed_result(reason.clone());
        let mut held = false;
        for run in runs.iter_mut() {
            for r in run.results.iter_mut().filter(|r| r.id == *id) {
                *r = failed.clone();
                held = true;
            }
        }
        match runs.last_mut() {
            Some(last) if !held => last.results.push(failed),
            Some(_) => {}
            None => bail!("{id}: {reason}, and no process of the run ended with a result"),
        }
    }
    Ok(())
}

/// What the rounds produced: per side, one `Run` per finished invocation.
pub struct Rounds {
    pub runs: Vec<Vec<Run>>,
    pub interrupted: bool,
}

/// What [`measure`] reports as it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Round `r` (0-based) begins.
    Round(usize),
    /// A process has finished one more row, `id`: `done` of the `planned` rows ×
    /// processes of the whole measurement (every side, every round).
    Row {
        done: usize,
        planned: usize,
        id: String,
    },
}

/// The rows × processes [`measure`] will run: what a progress bar counts to.
pub fn planned_rows(sides: usize, benches: &[&Benchmark], rounds: usize) -> usize {
    (0..rounds)
        .map(|r| ids_of_round(benches, r).len() * sides)
        .sum()
}

/// `rounds` rounds of every side over `benches`, shuffled anew each round. `on_step` is
/// told each round before it begins and each row as a process finishes it. Stops early,
/// keeping what was measured, on an interrupt. A process killed in a row (the OOM killer,
/// an abort) costs that row, failed with the reason in every run of its side, not the
/// measurement: the other rows of that process are measured again in a fresh one.
pub fn measure(
    sides: &[Side],
    benches: &[&Benchmark],
    rounds: usize,
    scratch_root: &Path,
    on_step: &mut dyn FnMut(Step),
) -> Result<Rounds> {
    let planned = planned_rows(sides.len(), benches, rounds);
    let mut finished = 0;
    let work = tempfile::Builder::new()
        .prefix(&super::debris::invocations_prefix())
        .tempdir_in(scratch_root)
        .with_context(|| {
            format!(
                "cannot make a scratch directory in {}",
                scratch_root.display()
            )
        })?;
    let mut rng = rand::make_rng::<rand::rngs::SmallRng>();
    let mut out = Rounds {
        runs: vec![Vec::new(); sides.len()],
        interrupted: false,
    };
    // Per side: the rows a process was killed in, and why.
    let mut killed: Vec<Vec<(String, String)>> = vec![Vec::new(); sides.len()];
    'rounds: for r in 0..rounds {
        on_step(Step::Round(r));
        let mut order = ids_of_round(benches, r);
        if order.is_empty() {
            // Every id was one measured in the first process only.
            continue;
        }
        if r > 0 {
            order.shuffle(&mut rng);
        }
        let mut which: Vec<usize> = (0..sides.len()).collect();
        if r % 2 == 1 {
            which.reverse();
        }
        for s in which {
            if interrupt::requested() {
                out.interrupted = true;
                break 'rounds;
            }
            let mut on_row = |done: usize, id: &str| {
                on_step(Step::Row {
                    done: finished + done,
                    planned,
                    id: id.to_string(),
                })
            };
            let tag = format!("{s}-{r}");
            // A row a process was killed in is not measured again in a later round.
            let ids: Vec<String> = order
                .iter()
                .filter(|id| !killed[s].iter().any(|(k, _)| k == *id))
                .cloned()
                .collect();
            let got = invoke_surviving_kills(
                &sides[s],
                &ids,
                work.path(),
                &tag,
                r == 0,
                &mut on_row,
                &mut killed[s],
            );
            let run = match got {
                Ok(Some(run)) => run,
                Ok(None) => {
                    finished += order.len();
                    continue;
                }
                Err(e) if e.downcast_ref::<interrupt::Interrupted>().is_some() => {
                    out.interrupted = true;
                    break 'rounds;
                }
                Err(e) => return Err(e),
            };
            let stopped = run.status == RunStatus::Interrupted;
            finished += order.len();
            out.runs[s].push(run);
            if stopped {
                out.interrupted = true;
                break 'rounds;
            }
        }
    }
    for (runs, killed) in out.runs.iter_mut().zip(&killed) {
        fail_killed_rows(runs, killed, benches)?;
    }
    work.close()
        .context("cannot remove the invocations' scratch directory")?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_and_full_both_sample_the_process_level() {
        assert_eq!(default_invocations(Mode::Quick), QUICK_INVOCATIONS);
        assert_eq!(QUICK_INVOCATIONS, crate::model::change::MIN_INVOCATIONS);
        assert!(default_invocations(Mode::Full) >= crate::model::change::MIN_INVOCATIONS);
        // Enough processes for a distribution-free 95% interval of their median.
        let (j, level) = crate::model::stats::median_ci_rank(default_invocations(Mode::Full));
        assert!(level >= 0.95 && j >= 2, "{j} {level}");
    }

    #[test]
    fn a_full_run_across_processes_measures_each_with_the_quick_plan() {
        let with = |mode, invocations| RunOptions {
            mode,
            invocations,
            ..RunOptions::default()
        };
        assert_eq!(plan_mode(&with(Mode::Full, Some(10))), Mode::Quick);
        assert_eq!(plan_mode(&with(Mode::Full, None)), Mode::Full);
        assert_eq!(plan_mode(&with(Mode::Full, Some(1))), Mode::Full);
        assert_eq!(plan_mode(&with(Mode::Quick, Some(5))), Mode::Quick);
    }

    fn bench(id: &'static str) -> Benchmark {
        Benchmark::new(id, "t", crate::model::Source::seed("000", "t"), |_| {
            anyhow::bail!("not run")
        })
    }

    #[test]
    fn a_quick_run_across_processes_shares_one_process_s_samples_out() {
        let quick = |invocations| RunOptions {
            mode: Mode::Quick,
            invocations,
            ..RunOptions::default()
        };
        let calibrated = Plan::calibrated(Mode::Quick).samples;
        let b = bench("syscall.getpid");
        assert_eq!(plan_for(&b, &quick(None)).samples, calibrated);
        assert_eq!(
            plan_for(&b, &quick(Some(3))).samples,
            calibrated.div_ceil(3)
        );
        let job = bench("mixed.build").with_plan(Plan::job);
        assert_eq!(
            plan_for(&job, &quick(Some(3))).samples,
            1,
            "one whole job each"
        );
        // Planned samples (--precision) are taken as planned.
        let mut planned = quick(Some(3));
        planned.samples.insert("syscall.getpid".into(), 40);
        assert_eq!(plan_for(&b, &planned).samples, 40);
        let mut precise = quick(Some(3));
        precise.precision = Some(0.02);
        assert_eq!(plan_for(&b, &precise).samples, calibrated);
    }

    #[test]
    fn rows_measured_once_are_measured_in_the_first_process_with_their_own_mode_s_plan() {
        let once = |id| bench(id).measured_in_one_process("many processes already");
        let rows = [
            bench("syscall.getpid"),
            once("load.cpu.1"),
            once("net.tcp.bw"),
            bench("pipe.back"),
        ];
        let benches: Vec<&Benchmark> = rows.iter().collect();
        assert_eq!(
            ids_of_round(&benches, 0),
            ["syscall.getpid", "load.cpu.1", "net.tcp.bw", "pipe.back"]
        );
        assert_eq!(ids_of_round(&benches, 1), ["syscall.getpid", "pipe.back"]);
        let full = RunOptions {
            mode: Mode::Full,
            invocations: Some(10),
            ..RunOptions::default()
        };
        let load = once("load.cpu.1").with_plan(Plan::job);
        assert_eq!(plan_for(&load, &full), Plan::job(Mode::Full));
        assert_eq!(
            plan_for(&bench("syscall.getpid"), &full),
            Plan::calibrated(Mode::Quick),
            "the others: the quick plan in each of the ten"
        );
    }
}

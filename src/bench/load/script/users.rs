//! Running N users.
//!
//! Each user's script is run by a shell of its own, as in 1975: a child process of
//! timeshare (the hidden subcommand [`USER_SHELL`]) that starts the user's commands one
//! after another, times each one, and writes what it saw to a report file when the script
//! ends. The driver only starts the N shells at their staggered times and waits for them:
//! starting and reaping every command itself cost it about 120 µs of CPU per command, 5%
//! of the children's CPU at two users, a load of its own beside the users it measured.
//! The shell's own CPU is part of its script's (the kernel accounts a shell and the
//! commands it reaped together), as the 1975 shell's was part of its user's work.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use super::format::{pipefail_shell, How, Script};
use super::Ticker;
use crate::harness::contract::Host;
use crate::harness::copies::{Children, Exit, SpawnError};
use crate::harness::interrupt;
use crate::harness::interrupt::Interrupted;
use crate::harness::rusage;

/// The hidden subcommand that runs one user's script (see [`user_shell`]).
pub const USER_SHELL: &str = "internal-load-user";

/// How long a shell has, past the run's deadline, to stop its command and write its
/// report before the driver stops it.
pub(super) const SHELL_GRACE: Duration = Duration::from_secs(10);

/// How long a shell asked to stop (an error, Ctrl-C) has to kill its command and end.
pub(super) const SHELL_STOP: Duration = Duration::from_secs(2);

/// How one command ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) enum Outcome {
    Ok,
    Failed(String),
    Missing,
    /// Optional and not installed.
    Absent,
    /// Killed after `--command-timeout`, or when the run passed `--run-timeout`: why.
    TimedOut(String),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct CmdRecord {
    pub(super) index: usize,
    pub(super) real_s: f64,
    pub(super) cpu_s: f64,
    pub(super) outcome: Outcome,
}

/// How long a command and a whole staggered run may take (`--command-timeout`,
/// `--run-timeout`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(super) struct Limits {
    pub(super) command: Duration,
    pub(super) run: Duration,
}

impl Limits {
    pub(super) fn of(o: &crate::model::LoadOptions) -> Limits {
        Limits {
            command: o.command_timeout(),
            run: o.run_timeout(),
        }
    }
}

/// "2 s", "1.5 s", "300 s".
pub(super) fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// One sample: every user's script real and CPU time, and every command.
#[derive(Debug, Default)]
pub(super) struct RunOut {
    pub(super) scripts: Vec<(f64, f64)>,
    /// Per user, the system part of the script's CPU time.
    pub(super) script_system_s: Vec<f64>,
    /// Per user, the shell's own part of the script's CPU time (the script's CPU less
    /// its commands').
    pub(super) shell_cpu_s: Vec<f64>,
    /// The whole staggered run: first user's start to last user's end.
    pub(super) wall_s: f64,
    pub(super) commands: Vec<CmdRecord>,
    pub(super) limit_hit: Option<String>,
}

/// What a user's shell is given: its script, its directory, and its time limits.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UserJob {
    pub(super) script: Script,
    pub(super) dir: PathBuf,
    /// Where the commands' standard error goes (the first line names a failure).
    pub(super) err: PathBuf,
    /// The optional commands that are not installed (the driver looked once).
    pub(super) absent: Vec<usize>,
    /// The shell for `sh -c` lines and its options (the driver chose it once, so that
    /// no user's shell spends its user's time trying shells).
    pub(super) sh: Vec<String>,
    pub(super) limits: Limits,
    /// What is left of `--run-timeout` when the shell starts.
    pub(super) run_left: Duration,
    /// The driver's pid: the shell stops if its parent is another (the driver died).
    pub(super) driver_pid: u32,
}

/// What a user's shell reports when its script ends.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct UserReport {
    pub(super) commands: Vec<CmdRecord>,
    /// The first command's start to the last command's end.
    pub(super) real_s: f64,
    /// The commands' own CPU time (user + system), summed.
    pub(super) commands_cpu_s: f64,
    /// The shell's own user and system time before its first command (its start and
    /// the user's set-up): not part of the script's.
    pub(super) before_script_s: (f64, f64),
    /// The run passed `--run-timeout`: (commands killed, commands not started).
    pub(super) stopped: Option<(usize, usize)>,
    /// The machine refused a process.
    pub(super) limit_hit: Option<String>,
}

/// `timeshare internal-load-user --job FILE --report FILE`: run one user's script as
/// its shell and write the report. The shell stops (and kills its running command's
/// group) when the driver dies: the kernel sends it SIGTERM then, which the interrupt
/// handler turns into a stop, so a driver killed outright leaves no command running.
pub fn user_shell(job: &Path, report: &Path) -> Result<()> {
    // SAFETY: plain system calls on this process.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) };
    interrupt::install()?;
    let text = std::fs::read(job).with_context(|| format!("cannot read {}", job.display()))?;
    let job: UserJob = serde_json::from_slice(&text)
        .with_context(|| format!("{} is not a user's job", job.display()))?;
    if std::os::unix::process::parent_id() != job.driver_pid {
        bail!("the driver is gone");
    }
    let out = run_user(&job)?;
    std::fs::write(report, serde_json::to_vec(&out)?)
        .with_context(|| format!("cannot write {}", report.display()))
}

/// The user's private directory with the script's files, made afresh.
pub(super) fn set_up_user(script: &Script, dir: &Path) -> Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::create_dir_all(dir)?;
    for (name, body) in &script.files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, body).with_context(|| format!("cannot create {name}"))?;
    }
    Ok(())
}

/// Run the script of `job` to its end (or its limits): what a user's shell does. The
/// user's directory is set up first, by the shell (creating files is most of what a
/// driver doing it for every user spends), and the shell's CPU time up to then is
/// reported so that it is not counted as the script's.
pub(super) fn run_user(job: &UserJob) -> Result<UserReport> {
    let deadline = Instant::now() + job.run_left;
    set_up_user(&job.script, &job.dir)?;
    let before = rusage::this_process();
    let mut out = UserReport {
        before_script_s: (before.user_s, before.system_s),
        ..UserReport::default()
    };
    let mut kids = Children::new();
    let started = Instant::now();
    let script = &job.script;
    let mut next = 0;
    while next < script.commands.len() {
        if interrupt::requested() {
            return Err(Interrupted.into());
        }
        let index = next;
        next += 1;
        if Instant::now() >= deadline {
            out.stopped = Some((0, script.commands.len() - index));
            return Ok(out);
        }
        let record = |outcome, real_s, cpu_s| CmdRecord {
            index,
            real_s,
            cpu_s,
            outcome,
        };
        if job.absent.contains(&index) {
            out.commands.push(record(Outcome::Absent, 0.0, 0.0));
            continue;
        }
        let stderr = File::create(&job.err).context("cannot create a stderr file")?;
        let mut command = match script.commands[index].command(&job.dir, stderr, &job.sh) {
            Ok(c) => c,
            Err(e) => {
                out.commands
                    .push(record(Outcome::Failed(format!("{e:#}")), 0.0, 0.0));
                continue;
            }
        };
        let pid = match kids.spawn(0, &mut command) {
            Ok(pid) => pid,
            Err(SpawnError::Missing(_)) => {
                out.commands.push(record(Outcome::Missing, 0.0, 0.0));
                continue;
            }
            Err(e @ SpawnError::Limit { .. }) => {
                out.limit_hit = Some(e.to_string());
                return Ok(out);
            }
            Err(e) => {
                out.commands
                    .push(record(Outcome::Failed(e.to_string()), 0.0, 0.0));
                continue;
            }
        };
        let command_started = Instant::now();
        let killed_at = (command_started + job.limits.command).min(deadline);
        let mut killed = None;
        let r = loop {
            let wait_until = if killed.is_some() {
                Instant::now() + Duration::from_secs(1)
            } else {
                killed_at
            };
            if let Some(r) = kids.wait_next(wait_until)? {
                break r;
            }
            if killed.is_none() && Instant::now() >= killed_at {
                // Its whole group: the `cat` of `sleep 30 | cat` too.
                kids.kill(pid);
                killed = Some(if killed_at == deadline {
                    format!(
                        "timed out: still running when the run passed {}, killed \
                         (--run-timeout)",
                        seconds(job.limits.run)
                    )
                } else {
                    format!(
                        "timed out: still running after {}, killed (--command-timeout)",
                        seconds(job.limits.command)
                    )
                });
            }
        };
        let outcome = match (killed, r.exit) {
            (Some(why), _) => Outcome::TimedOut(why),
            (None, Exit::Code(0)) => Outcome::Ok,
            (None, Exit::Code(127)) if script.commands[index].how == How::Shell => Outcome::Missing,
            (None, e) => Outcome::Failed(failure_message(e, &job.err)),
        };
        let run_over = matches!(&outcome, Outcome::TimedOut(why) if why.contains("--run-timeout"));
        out.commands_cpu_s += r.cpu_s();
        out.commands.push(record(outcome, r.real_s, r.cpu_s()));
        if run_over {
            out.stopped = Some((1, script.commands.len() - next));
            return Ok(out);
        }
    }
    out.real_s = started.elapsed().as_secs_f64();
    Ok(out)
}

/// Run `n` users of `script` under `root`, user i's shell starting at i × `stagger`.
pub(super) fn run_users(
    script: &Script,
    n: usize,
    stagger: Duration,
    limits: Limits,
    root: &Path,
    label: &str,
) -> Result<RunOut> {
    let host = Host::detect();
    // This very program, even if its file was replaced during the run.
    let exe = crate::harness::children::own_program()?;
    let absent = absent_commands(script, &host);
    let mut jobs = Vec::with_capacity(n);
    for i in 0..n {
        jobs.push(prepare_user(script, i, root, &absent, limits)?);
    }
    let mut out = RunOut {
        scripts: vec![(0.0, 0.0); n],
        script_system_s: vec![0.0; n],
        shell_cpu_s: vec![0.0; n],
        ..Default::default()
    };
    // Asked to stop first: a shell killed outright would leave its command running.
    let mut kids = Children::with_grace(SHELL_STOP);
    let mut ticker = Ticker::new(label);
    let (mut started, mut finished) = (0, 0);
    let (mut killed, mut never) = (0, 0);
    let t0 = Instant::now();
    let run_end = t0 + limits.run;
    while finished < n {
        let now = Instant::now();
        // A user whose turn comes after the run's end never starts.
        while started < n && now >= t0 + stagger * started as u32 && now < run_end {
            let mut job = jobs[started].clone();
            job.run_left = run_end - now;
            if let Err(why) = start_shell(&exe, &job, started, root, &mut kids) {
                out.limit_hit = Some(why);
                return Ok(out);
            }
            started += 1;
        }
        if started < n && now >= run_end {
            never += script.commands.len() * (n - started);
            finished += n - started;
            started = n;
            continue;
        }
        if now >= run_end + SHELL_GRACE {
            kids.terminate_all(SHELL_GRACE);
            bail!("the users' shells did not stop after the run passed --run-timeout");
        }
        ticker.tick(finished, n, "scripts");
        let next_start = (started < n).then(|| t0 + stagger * started as u32);
        let deadline = [next_start, Some(run_end + SHELL_GRACE)]
            .into_iter()
            .flatten()
            .fold(now + Duration::from_secs(1), Instant::min);
        if kids.running() == 0 {
            sleep_until(deadline)?;
            continue;
        }
        let Some(r) = kids.wait_next(deadline)? else {
            continue;
        };
        finished += 1;
        let report = read_report(root, r.tag, r.exit)?;
        if let Some(why) = &report.limit_hit {
            out.limit_hit = Some(format!(
                "ran out while starting user {}'s commands: {why}",
                r.tag + 1
            ));
            return Ok(out);
        }
        out.commands.extend(report.commands.iter().cloned());
        match report.stopped {
            Some((k, not_started)) => {
                killed += k;
                never += not_started;
            }
            None => {
                // The kernel's figure for the shell and its commands, less what the
                // shell spent before the script began.
                let (user_before, system_before) = report.before_script_s;
                let system = (r.system_s - system_before).max(0.0);
                let cpu = (r.user_s - user_before).max(0.0) + system;
                out.scripts[r.tag] = (report.real_s, cpu);
                out.script_system_s[r.tag] = system;
                out.shell_cpu_s[r.tag] = (cpu - report.commands_cpu_s).max(0.0);
            }
        }
    }
    out.wall_s = t0.elapsed().as_secs_f64();
    if killed + never > 0 {
        out.limit_hit = Some(format!(
            "timed out: the run was still going after {} (--run-timeout): {killed} running \
             command(s) killed, {never} not started",
            seconds(limits.run)
        ));
    }
    Ok(out)
}

/// The optional commands of `script` that are not installed here, by index.
pub(super) fn absent_commands(script: &Script, host: &Host) -> Vec<usize> {
    (script.commands.iter().enumerate())
        .filter(|(_, c)| c.optional && host.find_program(c.program()).is_none())
        .map(|(i, _)| i)
        .collect()
}

/// The job user `i`'s shell is given.
pub(super) fn prepare_user(
    script: &Script,
    i: usize,
    root: &Path,
    absent: &[usize],
    limits: Limits,
) -> Result<UserJob> {
    let _ = std::fs::remove_file(report_path(root, i));
    Ok(UserJob {
        script: script.clone(),
        dir: root.join(format!("user{i}")),
        err: root.join(format!("user{i}.stderr")),
        absent: absent.to_vec(),
        sh: {
            let (sh, opts) = pipefail_shell();
            std::iter::once(sh)
                .chain(opts.iter())
                .map(|s| s.to_string())
                .collect()
        },
        limits,
        run_left: limits.run,
        driver_pid: std::process::id(),
    })
}

pub(super) fn report_path(root: &Path, i: usize) -> PathBuf {
    root.join(format!("user{i}.report.json"))
}

/// Start user `i`'s shell; `Err` is the machine refusing the process (the run's limit).
pub(super) fn start_shell(
    exe: &Path,
    job: &UserJob,
    i: usize,
    root: &Path,
    kids: &mut Children,
) -> Result<(), String> {
    let job_file = root.join(format!("user{i}.job.json"));
    let shell_err = root.join(format!("user{i}.shell.stderr"));
    let prepared = serde_json::to_vec(job)
        .map_err(anyhow::Error::from)
        .and_then(|j| Ok(std::fs::write(&job_file, j)?))
        .and_then(|()| Ok(File::create(&shell_err)?));
    let shell_err = prepared.map_err(|e| format!("cannot prepare user {}'s shell: {e}", i + 1))?;
    let mut shell = Command::new(exe);
    shell
        .arg(USER_SHELL)
        .arg("--job")
        .arg(&job_file)
        .arg("--report")
        .arg(report_path(root, i))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(shell_err);
    match kids.spawn(i, &mut shell) {
        Ok(_) => Ok(()),
        Err(e) => Err(format!(
            "ran out while starting user {}'s shell: {e}",
            i + 1
        )),
    }
}

/// The report of user `i`'s shell, which ended with `exit`; an error naming the shell's
/// own message when there is none or it cannot be read.
pub(super) fn read_report(root: &Path, i: usize, exit: Exit) -> Result<UserReport> {
    let text = std::fs::read(report_path(root, i));
    let shell_said = || {
        let err = root.join(format!("user{i}.shell.stderr"));
        failure_message(exit, &err)
    };
    let text = text.map_err(|_| {
        anyhow::anyhow!(
            "user {}'s shell ended without a report ({})",
            i + 1,
            shell_said()
        )
    })?;
    parse_report(&text).with_context(|| format!("user {}'s shell ({})", i + 1, shell_said()))
}

/// A shell's report, refused when it is not one or names a command the script lacks.
pub(super) fn parse_report(text: &[u8]) -> Result<UserReport> {
    let report: UserReport =
        serde_json::from_slice(text).context("its report is not a user's report")?;
    let bad = |x: f64| !x.is_finite() || x < 0.0;
    if bad(report.real_s)
        || bad(report.commands_cpu_s)
        || bad(report.before_script_s.0)
        || bad(report.before_script_s.1)
        || report
            .commands
            .iter()
            .any(|c| bad(c.real_s) || bad(c.cpu_s))
    {
        bail!("its report holds a negative or non-finite time");
    }
    Ok(report)
}

pub(super) fn sleep_until(deadline: Instant) -> Result<()> {
    while Instant::now() < deadline {
        if interrupt::requested() {
            return Err(Interrupted.into());
        }
        std::thread::sleep((deadline - Instant::now()).min(Duration::from_millis(50)));
    }
    Ok(())
}

/// "exit 1: sort: cannot read …" — the status and the first line the command wrote to
/// standard error.
pub(super) fn failure_message(exit: Exit, stderr: &Path) -> String {
    let first = std::fs::read_to_string(stderr)
        .ok()
        .and_then(|t| t.lines().find(|l| !l.trim().is_empty()).map(str::to_string))
        .map(|l| l.chars().take(120).collect::<String>());
    match first {
        Some(l) => format!("{exit}: {l}"),
        None => exit.to_string(),
    }
}

// ---------------------------------------------------------------------------------------
// The benchmark.

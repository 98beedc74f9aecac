//! `load.script.N`: N users each running a command script, started at staggered intervals
//! (seed 000, Table 10 and Attachment C).
//!
//! # Timing model
//! One operation is one whole run: user i's shell starts at i × stagger, sets up the
//! user's private directory (the script's `@file` blocks; not part of the script's time)
//! and runs the script's commands one after another. The shell is a child process of
//! timeshare (the hidden `internal-load-user`), one per user as in 1975: it starts every
//! command itself (directly, or through `sh -c` for lines with pipes, quotes or globs), so
//! each command's real time is from its start to the shell seeing it end, and its CPU time
//! is the kernel's wait4 figure (user + system, its own children included). A script's
//! real time runs from its first command's start to its last command's end; its CPU is
//! the kernel's figure for the shell, which holds its commands' and the shell's own (the
//! shell's share is in the details). The driver only starts the shells and reads their
//! reports, so its own CPU stays a small fraction of its children's.
//! The headline is the seed's: Table 10's real per script, averaged over the users of one
//! run (its columns "have the same meaning" as Table 9's), with user and system time per
//! script. The staggered run's wall time, Inc = real at N / real of one user alone, and
//! Attachment C's per-command table (count, %, average real, average CPU, real/CPU,
//! summed over every sample as the seed summed its runs) are in the details.
//!
//! The stagger defaults to the single user's script time / 16: the seed started users
//! 15 s apart with a script of about 4 minutes. `--stagger` sets it.
//!
//! Every command's exit status is checked. A command that exits non-zero, is killed, or
//! is missing is counted per command and makes the row `failed` (its details, with the
//! per-command table, are kept): a script that did less work than it should must never
//! pass for a clean, faster figure (UnixBench's shell test scores higher when `sort` is
//! broken). A program the script needs that is not on PATH skips the row before it
//! starts, naming it and its package ([`lacking_programs`]); commands marked optional
//! (`?cmd`) that are not installed are noted as absent.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use super::{driver_cpu, lock, remembered, LoadState, Ticker};
use crate::harness::contract::{Benchmark, Ctx, Host, OwnFigures, Skip, Workload};
use crate::harness::copies::{self, Children, Exit, SpawnError};
use crate::harness::interrupt;
use crate::harness::interrupt::Interrupted;
use crate::harness::rusage::{self, DriverMeter};
use crate::harness::state::Shared;
use crate::model::details::load::{CommandAccount, DriverCpu, Scripts, ScriptsSummary, PER_SCRIPT};
use crate::model::median;
use crate::model::Details;
use crate::model::{Metric, OpTimes, Source};

/// The seed's 1975 user (Attachment C's command mix).
pub const USER1975: &str = include_str!("../../../scripts/user1975.sh");
/// A developer at work today.
pub const DEV: &str = include_str!("../../../scripts/dev.sh");

struct ScriptLoad {
    id: String,
    users: usize,
}

// ---------------------------------------------------------------------------------------
// The script format.

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Script {
    pub name: String,
    /// Files created in each user's directory before the script starts.
    pub files: Vec<(String, String)>,
    pub commands: Vec<Cmd>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cmd {
    pub line: String,
    /// The name it is accounted under: the program, or `a | b` for a pipeline.
    pub label: String,
    /// `?cmd`: run only if installed.
    pub optional: bool,
    pub how: How,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum How {
    /// Run by timeshare itself, with simple redirections.
    Direct {
        argv: Vec<String>,
        stdin: Option<String>,
        stdout: Option<(String, bool)>,
    },
    /// Through `sh -c` (pipes, quotes, globs…).
    Shell,
}

/// Characters that need a shell.
const SHELL_CHARS: &[char] = &[
    '|', '&', ';', '$', '`', '"', '\'', '\\', '*', '?', '(', ')', '[', ']', '{', '}', '~', '!',
];

/// The script `name_or_file`: a bundled name (`user1975`, `dev`) or a file to read.
pub fn load(name_or_file: Option<&str>) -> Result<Script> {
    match name_or_file {
        None | Some("user1975") => parse("user1975", USER1975),
        Some("dev") => parse("dev", DEV),
        Some(file) => {
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("cannot read the script {file}"))?;
            parse(file, &text).with_context(|| format!("in the script {file}"))
        }
    }
}

pub fn parse(name: &str, text: &str) -> Result<Script> {
    let mut files = Vec::new();
    let mut commands = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, raw)) = lines.next() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(fname) = line.strip_prefix("@file") {
            let fname = fname.trim();
            if fname.is_empty() || fname.starts_with('/') || fname.split('/').any(|c| c == "..") {
                bail!(
                    "line {}: @file needs a relative name inside the user's directory",
                    i + 1
                );
            }
            let mut body = String::new();
            loop {
                match lines.next() {
                    Some((_, l)) if l.trim() == "@end" => break,
                    Some((_, l)) => {
                        body.push_str(l);
                        body.push('\n');
                    }
                    None => bail!("line {}: @file {fname} has no @end", i + 1),
                }
            }
            files.push((fname.to_string(), body));
            continue;
        }
        commands.push(parse_command(line).with_context(|| format!("line {}", i + 1))?);
    }
    if commands.is_empty() {
        bail!("the script has no commands");
    }
    Ok(Script {
        name: name.to_string(),
        files,
        commands,
    })
}

fn parse_command(line: &str) -> Result<Cmd> {
    let (optional, line) = match line.strip_prefix('?') {
        Some(rest) => (true, rest.trim()),
        None => (false, line),
    };
    let label_of = |word: &str| word.rsplit('/').next().unwrap_or(word).to_string();
    // `VAR=value cmd` is shell syntax too.
    let assigns = line
        .split_whitespace()
        .next()
        .is_some_and(|w| w.contains('='));
    if line.contains(SHELL_CHARS) || assigns {
        return Ok(shell_command(line, optional));
    }
    let mut argv = Vec::new();
    let (mut stdin, mut stdout) = (None, None);
    let mut words = line.split_whitespace();
    while let Some(w) = words.next() {
        let mut target = |rest: &str| -> Result<String> {
            if rest.is_empty() {
                words
                    .next()
                    .map(str::to_string)
                    .context("redirection without a file")
            } else {
                Ok(rest.to_string())
            }
        };
        if let Some(rest) = w.strip_prefix(">>") {
            stdout = Some((target(rest)?, true));
        } else if let Some(rest) = w.strip_prefix('>') {
            stdout = Some((target(rest)?, false));
        } else if let Some(rest) = w.strip_prefix('<') {
            stdin = Some(target(rest)?);
        } else if w.contains(['<', '>']) {
            // `2>err` and the like: leave them to the shell.
            return Ok(shell_command(line, optional));
        } else {
            argv.push(w.to_string());
        }
    }
    let Some(first) = argv.first() else {
        bail!("a redirection without a command");
    };
    Ok(Cmd {
        line: line.to_string(),
        label: label_of(first),
        optional,
        how: How::Direct {
            argv,
            stdin,
            stdout,
        },
    })
}

/// A line run through `sh -c`. A pipeline is accounted under its programs (`nroff | col`,
/// as Attachment C did); a list (`a && b`, `a; b`, `a || b`, `a &`) under its whole line,
/// since any of its commands may be the one that failed.
fn shell_command(line: &str, optional: bool) -> Cmd {
    let label_of = |word: &str| word.rsplit('/').next().unwrap_or(word).to_string();
    let label = if is_list(line) {
        line.to_string()
    } else {
        line.split('|')
            .filter_map(|stage| stage.split_whitespace().find(|w| !w.contains('=')))
            .map(label_of)
            .collect::<Vec<_>>()
            .join(" | ")
    };
    Cmd {
        line: line.to_string(),
        label: if label.is_empty() { "sh".into() } else { label },
        optional,
        how: How::Shell,
    }
}

/// Whether `line` holds more than one command joined by `&&`, `||`, `;` or `&` (outside
/// quotes; `2>&1` and `>&2` are redirections, not lists).
fn is_list(line: &str) -> bool {
    let mut quote = None;
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '\\') => i += 1,
            (None, ';') => return true,
            (None, '|') if chars.get(i + 1) == Some(&'|') => return true,
            (None, '&') => {
                let redirect =
                    i > 0 && matches!(chars[i - 1], '>' | '<') || chars.get(i + 1) == Some(&'>');
                if !redirect {
                    return true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Words a shell line may begin with that are the shell's own, not programs on PATH.
const SHELL_WORDS: &[&str] = &[
    "cd", "export", "set", "unset", "read", "exec", ".", "source", "eval", "wait", "umask",
    "ulimit", "trap", "shift", "alias", "exit", "return",
];

/// The Debian packages of the programs the bundled scripts run, for the skip's hint.
const PACKAGES: &[(&str, &str)] = &[
    ("ed", "ed"),
    ("nroff", "groff-base"),
    ("col", "bsdextrautils"),
    ("ps", "procps"),
    ("cc", "gcc"),
];

/// The programs `script` must run that are not on PATH here, each named once: a script
/// missing one would fail every time it ran that command, so the row is skipped before
/// it starts, naming them, rather than failed after (optional `?` commands are noted as
/// absent instead). A list (`a && b`) is not looked into: its words need not be programs;
/// nor is a relative path (`./app`), which the script builds itself.
pub fn lacking_programs(script: &Script, host: &Host) -> Vec<String> {
    let mut lacking: Vec<String> = Vec::new();
    for c in script.commands.iter().filter(|c| !c.optional) {
        for program in c.programs() {
            // A relative path (`./app`) is a program the script itself builds.
            let built_here = program.contains('/') && !program.starts_with('/');
            if !built_here
                && !lacking.iter().any(|p| p == program)
                && !SHELL_WORDS.contains(&program)
                && host.find_program(program).is_none()
            {
                lacking.push(program.to_string());
            }
        }
    }
    lacking
}

/// The skip for `lacking` programs of `script`, with the packages that bring the known
/// ones.
fn lacking_skip(script: &Script, lacking: &[String]) -> Skip {
    let named: Vec<String> = lacking.iter().map(|p| format!("`{p}`")).collect();
    let packages: Vec<&str> = lacking
        .iter()
        .filter_map(|p| PACKAGES.iter().find(|(q, _)| q == p).map(|(_, pkg)| *pkg))
        .collect();
    let hint = if packages.is_empty() {
        String::new()
    } else {
        format!(
            " (on Debian or Ubuntu: apt-get install {})",
            packages.join(" ")
        )
    };
    let are = if lacking.len() == 1 {
        "it is"
    } else {
        "they are"
    };
    Skip::new(format!(
        "the {} script runs {} and {are} not on PATH{hint}",
        script.name,
        named.join(", ")
    ))
}

impl Cmd {
    /// The programs this command starts: each stage of a pipeline; nothing for a list.
    fn programs(&self) -> Vec<&str> {
        match &self.how {
            How::Direct { argv, .. } => vec![argv[0].as_str()],
            How::Shell if is_list(&self.line) => Vec::new(),
            How::Shell => self
                .line
                .split('|')
                .filter_map(|stage| stage.split_whitespace().find(|w| !w.contains('=')))
                .collect(),
        }
    }

    /// The program this command needs, for the optional check.
    fn program(&self) -> &str {
        match &self.how {
            How::Direct { argv, .. } => &argv[0],
            How::Shell => self.line.split_whitespace().next().unwrap_or("sh"),
        }
    }

    /// The command to start in `dir`; `sh` is the shell (and its options) for `sh -c`
    /// lines.
    fn command(&self, dir: &Path, stderr: File, sh: &[String]) -> Result<Command> {
        let mut c = match &self.how {
            How::Direct {
                argv,
                stdin,
                stdout,
            } => {
                let mut c = Command::new(&argv[0]);
                c.args(&argv[1..]);
                c.stdin(match stdin {
                    Some(f) => Stdio::from(
                        File::open(dir.join(f)).with_context(|| format!("cannot open < {f}"))?,
                    ),
                    None => Stdio::null(),
                });
                c.stdout(match stdout {
                    Some((f, append)) => Stdio::from(
                        File::options()
                            .create(true)
                            .write(true)
                            .append(*append)
                            .truncate(!*append)
                            .open(dir.join(f))
                            .with_context(|| format!("cannot open > {f}"))?,
                    ),
                    None => Stdio::null(),
                });
                c
            }
            How::Shell => {
                let mut c = Command::new(&sh[0]);
                c.args(&sh[1..])
                    .args(["-c", &self.line])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null());
                c
            }
        };
        // The user's directory is their home too: nothing touches the real one.
        c.current_dir(dir).env("HOME", dir).stderr(stderr);
        Ok(c)
    }
}

/// The shell for `sh -c` lines, with `pipefail` where one offers it, so that a failing
/// stage anywhere in a pipeline (a broken `sort` feeding `uniq`) fails the command, not
/// only the last one. Debian's dash before 0.5.13 has no pipefail; bash then does the job.
/// Without either, only a pipeline's last stage is checked (said in the details).
pub fn pipefail_shell() -> &'static (&'static str, &'static [&'static str]) {
    static SHELL: std::sync::OnceLock<(&'static str, &'static [&'static str])> =
        std::sync::OnceLock::new();
    SHELL.get_or_init(|| {
        let works = |sh: &str| {
            Command::new(sh)
                .args(["-o", "pipefail", "-c", "true"])
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        if works("sh") {
            ("sh", &["-o", "pipefail"])
        } else if works("bash") {
            ("bash", &["-o", "pipefail"])
        } else {
            ("sh", &[])
        }
    })
}

fn shell_description() -> String {
    let (sh, opts) = pipefail_shell();
    if opts.is_empty() {
        format!("{sh} -c (no pipefail here: only a pipeline's last stage is checked)")
    } else {
        format!("{sh} {} -c", opts.join(" "))
    }
}

// ---------------------------------------------------------------------------------------
// Running N users.
//
// Each user's script is run by a shell of its own, as in 1975: a child process of
// timeshare (the hidden subcommand [`USER_SHELL`]) that starts the user's commands one
// after another, times each one, and writes what it saw to a report file when the script
// ends. The driver only starts the N shells at their staggered times and waits for them:
// starting and reaping every command itself cost it about 120 µs of CPU per command, 5%
// of the children's CPU at two users, a load of its own beside the users it measured.
// The shell's own CPU is part of its script's (the kernel accounts a shell and the
// commands it reaped together), as the 1975 shell's was part of its user's work.

/// The hidden subcommand that runs one user's script (see [`user_shell`]).
pub const USER_SHELL: &str = "internal-load-user";

/// How long a shell has, past the run's deadline, to stop its command and write its
/// report before the driver stops it.
const SHELL_GRACE: Duration = Duration::from_secs(10);

/// How long a shell asked to stop (an error, Ctrl-C) has to kill its command and end.
const SHELL_STOP: Duration = Duration::from_secs(2);

/// How one command ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Outcome {
    Ok,
    Failed(String),
    Missing,
    /// Optional and not installed.
    Absent,
    /// Killed after `--command-timeout`, or when the run passed `--run-timeout`: why.
    TimedOut(String),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct CmdRecord {
    index: usize,
    real_s: f64,
    cpu_s: f64,
    outcome: Outcome,
}

/// How long a command and a whole staggered run may take (`--command-timeout`,
/// `--run-timeout`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Limits {
    command: Duration,
    run: Duration,
}

impl Limits {
    fn of(o: &crate::model::LoadOptions) -> Limits {
        Limits {
            command: o.command_timeout(),
            run: o.run_timeout(),
        }
    }
}

/// "2 s", "1.5 s", "300 s".
fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// One sample: every user's script real and CPU time, and every command.
#[derive(Debug, Default)]
struct RunOut {
    scripts: Vec<(f64, f64)>,
    /// Per user, the system part of the script's CPU time.
    script_system_s: Vec<f64>,
    /// Per user, the shell's own part of the script's CPU time (the script's CPU less
    /// its commands').
    shell_cpu_s: Vec<f64>,
    /// The whole staggered run: first user's start to last user's end.
    wall_s: f64,
    commands: Vec<CmdRecord>,
    limit_hit: Option<String>,
}

/// What a user's shell is given: its script, its directory, and its time limits.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UserJob {
    script: Script,
    dir: PathBuf,
    /// Where the commands' standard error goes (the first line names a failure).
    err: PathBuf,
    /// The optional commands that are not installed (the driver looked once).
    absent: Vec<usize>,
    /// The shell for `sh -c` lines and its options (the driver chose it once, so that
    /// no user's shell spends its user's time trying shells).
    sh: Vec<String>,
    limits: Limits,
    /// What is left of `--run-timeout` when the shell starts.
    run_left: Duration,
    /// The driver's pid: the shell stops if its parent is another (the driver died).
    driver_pid: u32,
}

/// What a user's shell reports when its script ends.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct UserReport {
    commands: Vec<CmdRecord>,
    /// The first command's start to the last command's end.
    real_s: f64,
    /// The commands' own CPU time (user + system), summed.
    commands_cpu_s: f64,
    /// The shell's own user and system time before its first command (its start and
    /// the user's set-up): not part of the script's.
    before_script_s: (f64, f64),
    /// The run passed `--run-timeout`: (commands killed, commands not started).
    stopped: Option<(usize, usize)>,
    /// The machine refused a process.
    limit_hit: Option<String>,
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
fn set_up_user(script: &Script, dir: &Path) -> Result<()> {
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
fn run_user(job: &UserJob) -> Result<UserReport> {
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
fn run_users(
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
fn absent_commands(script: &Script, host: &Host) -> Vec<usize> {
    (script.commands.iter().enumerate())
        .filter(|(_, c)| c.optional && host.find_program(c.program()).is_none())
        .map(|(i, _)| i)
        .collect()
}

/// The job user `i`'s shell is given.
fn prepare_user(
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

fn report_path(root: &Path, i: usize) -> PathBuf {
    root.join(format!("user{i}.report.json"))
}

/// Start user `i`'s shell; `Err` is the machine refusing the process (the run's limit).
fn start_shell(
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
fn read_report(root: &Path, i: usize, exit: Exit) -> Result<UserReport> {
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
fn parse_report(text: &[u8]) -> Result<UserReport> {
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

fn sleep_until(deadline: Instant) -> Result<()> {
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
fn failure_message(exit: Exit, stderr: &Path) -> String {
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

pub fn row(n: usize) -> Benchmark {
    let it = ScriptLoad {
        id: format!("load.script.{n}"),
        users: n,
    };
    Benchmark::new(
        it.id.clone(),
        "N users running a command script, staggered starts: real, CPU, Inc, per-command table",
        Source::seed("000", "Table 10, Attachment C"),
        move |ctx| it.prepare(ctx),
    )
    .with_metric(Metric::job())
    .with_plan(super::plan)
    .measured_in_one_process(super::ONE_PROCESS)
    // Table 10's real: per script, averaged over the users (see `own_figures`).
    .per(PER_SCRIPT)
}

impl ScriptLoad {
    fn prepare(&self, ctx: &Ctx) -> Result<Box<dyn Workload>> {
        let meter = DriverMeter::start();
        let shared = ctx.state.get::<LoadState>();
        let o = &ctx.options.load;
        let script = load(o.script.as_deref())?;
        let lacking = lacking_programs(&script, ctx.host);
        if !lacking.is_empty() {
            return Err(lacking_skip(&script, &lacking).into());
        }
        let limits = Limits::of(o);
        copies::check_room(
            // A shell, and at most a `sh -c` and two stages under it, per user.
            self.users * 4,
            0,
            copies::process_limit(),
            None,
            ctx.host.is_root,
        )
        .map_err(|why| anyhow::anyhow!("refused: {why}"))?;
        let base_key = format!("script.{}.{}", script.name, script.commands.len());
        // The single user's time is Inc's base and sets the default stagger: measure it
        // now if the load.script.1 row has not.
        let base = if self.users == 1 {
            None
        } else {
            Some(remembered(&shared, &base_key, || {
                let out = run_users(&script, 1, Duration::ZERO, limits, ctx.scratch, &self.id)?;
                if let Some(why) = out.limit_hit {
                    bail!("measuring one user alone, Inc's baseline: {why}");
                }
                Ok(out.scripts[0].0)
            })?)
        };
        let stagger = Duration::from_secs_f64(match (o.stagger_s, base) {
            (Some(s), _) => s,
            (None, Some(b)) => b / 16.0,
            (None, None) => 0.0,
        });
        Ok(Box::new(ScriptWorkload {
            budget: super::budget_note(
                ctx.mode,
                &format!("each a staggered run of the {} script", script.name),
            ),
            shared,
            id: self.id.clone(),
            users: self.users,
            script,
            stagger,
            limits,
            root: ctx.scratch.to_path_buf(),
            base_key,
            runs: Vec::new(),
            limit_hit: None,
            meter,
            driver: None,
        }))
    }
}

struct ScriptWorkload {
    /// The note saying what time the row was given.
    budget: String,
    /// The run's load state: baselines and the knee's points.
    shared: Shared<LoadState>,
    id: String,
    users: usize,
    script: Script,
    stagger: Duration,
    limits: Limits,
    root: PathBuf,
    base_key: String,
    runs: Vec<RunOut>,
    limit_hit: Option<String>,
    /// Started with the row's set-up; read once every command is reaped.
    meter: DriverMeter,
    driver: Option<DriverCpu>,
}

impl Workload for ScriptWorkload {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            if self.limit_hit.is_some() {
                return Ok(());
            }
            let out = run_users(
                &self.script,
                self.users,
                self.stagger,
                self.limits,
                &self.root,
                &self.id,
            )?;
            self.limit_hit = out.limit_hit.clone();
            self.runs.push(out);
        }
        Ok(())
    }

    fn details(&mut self) -> Option<Details> {
        let commands = accounting(&self.script, &self.runs);
        let failures: usize = commands
            .iter()
            .map(|r| r.failed + r.missing + r.timed_out)
            .sum();
        Some(Details::of(&Scripts {
            users: self.users,
            script: self.script.name.clone(),
            commands_per_script: self.script.commands.len(),
            stagger_s: self.stagger.as_secs_f64(),
            shell: shell_description(),
            runs: self.runs.len(),
            failures,
            clean: failures == 0 && self.limit_hit.is_none(),
            commands,
            limit_hit: self.limit_hit.clone(),
            driver: self.driver,
            summary: self.summary(failures),
        }))
    }

    fn notes(&self) -> Vec<String> {
        std::iter::once(self.budget.clone())
            .chain(self.driver.iter().map(DriverCpu::note))
            .collect()
    }

    /// Table 10's figure: each run's average real time of a script (over its users);
    /// user and system time per script.
    fn own_figures(&mut self) -> Option<OwnFigures> {
        let scripts = self.runs.iter().map(|r| r.scripts.len()).sum::<usize>();
        if scripts == 0 {
            return None;
        }
        let n = scripts as f64;
        let sum = |f: &dyn Fn(&RunOut) -> f64| self.runs.iter().map(f).sum::<f64>() / n;
        let real = sum(&|r| r.scripts.iter().map(|s| s.0).sum());
        let cpu = sum(&|r| r.scripts.iter().map(|s| s.1).sum());
        let system = sum(&|r| r.script_system_s.iter().sum());
        Some(OwnFigures {
            values: self
                .runs
                .iter()
                .map(|r| r.scripts.iter().map(|s| s.0).sum::<f64>() / r.scripts.len().max(1) as f64)
                .collect(),
            times: OpTimes {
                ops: scripts as u64,
                elapsed_s: real,
                user_s: cpu - system,
                system_s: system,
            },
            note: format!(
                "per script, as seed 000 Table 10: the average real time of the {} users' \
                 scripts; the staggered run's wall time is in the details",
                self.users
            ),
        })
    }

    /// A script run with a failed or missing command did less work, so its time must
    /// never pass for a clean figure (UnixBench's shell test scores higher with a broken
    /// `sort`): the row fails, its per-command table kept.
    fn finish(&mut self) -> anyhow::Result<()> {
        self.driver = Some(driver_cpu(&self.meter));
        match self.failure() {
            Some(why) => Err(anyhow::anyhow!(why)),
            None => Ok(()),
        }
    }
}

impl ScriptWorkload {
    /// Table 10's columns over the complete runs; `None` before the first. A clean single
    /// user's time becomes the run's baseline for Inc.
    fn summary(&self, failures: usize) -> Option<ScriptsSummary> {
        let complete: Vec<&RunOut> = self.runs.iter().filter(|r| r.limit_hit.is_none()).collect();
        if complete.is_empty() {
            return None;
        }
        let mean = |v: &[(f64, f64)], f: fn(&(f64, f64)) -> f64| {
            v.iter().map(f).sum::<f64>() / v.len() as f64
        };
        let over_runs = |f: fn(&(f64, f64)) -> f64| {
            median(
                &complete
                    .iter()
                    .map(|r| mean(&r.scripts, f))
                    .collect::<Vec<_>>(),
            )
        };
        let real = over_runs(|s| s.0);
        if self.users == 1 && failures == 0 {
            lock(&self.shared).set(&self.base_key, real);
        }
        let base = lock(&self.shared).get(&self.base_key);
        Some(ScriptsSummary {
            avg_real_s: real,
            run_real_s: Some(median(
                &complete.iter().map(|r| r.wall_s).collect::<Vec<_>>(),
            )),
            avg_cpu_s: over_runs(|s| s.1),
            avg_shell_cpu_s: Some(median(
                &complete
                    .iter()
                    .map(|r| r.shell_cpu_s.iter().sum::<f64>() / r.shell_cpu_s.len().max(1) as f64)
                    .collect::<Vec<_>>(),
            )),
            baseline_real_s: base,
            inc: base.map(|b| real / b),
            per_script_real_cpu_s: self.runs.iter().map(|r| r.scripts.clone()).collect(),
        })
    }

    fn failure(&self) -> Option<String> {
        if let Some(limit) = &self.limit_hit {
            return Some(limit.clone());
        }
        let table = accounting(&self.script, &self.runs);
        let total: usize = table.iter().map(|r| r.count).sum();
        let bad_of = |r: &CommandAccount| r.failed + r.missing + r.timed_out;
        let bad: Vec<String> = table
            .iter()
            .filter(|r| bad_of(r) > 0)
            .map(|r| {
                let what = if r.missing > 0 && r.failed + r.timed_out == 0 {
                    "missing".to_string()
                } else {
                    r.first_error.clone().unwrap_or_else(|| "failed".into())
                };
                format!("`{}` ×{} ({what})", r.command, bad_of(r))
            })
            .collect();
        if bad.is_empty() {
            return None;
        }
        let n: usize = table.iter().map(bad_of).sum();
        let timed_out: usize = table.iter().map(|r| r.timed_out).sum();
        let how = if timed_out == n {
            "timed out"
        } else if timed_out > 0 {
            "failed, timed out or were missing"
        } else {
            "failed or were missing"
        };
        Some(format!(
            "{n} of {total} commands {how}: {}; the script's times are not a clean figure",
            bad.join(", ")
        ))
    }
}

/// Attachment C: per command name, summed over every run and user, most frequent first.
fn accounting(script: &Script, runs: &[RunOut]) -> Vec<CommandAccount> {
    #[derive(Default)]
    struct Acc {
        count: usize,
        real: f64,
        cpu: f64,
        failed: usize,
        missing: usize,
        absent: usize,
        timed_out: usize,
        first_error: Option<String>,
        order: usize,
    }
    let mut by: BTreeMap<&str, Acc> = BTreeMap::new();
    for rec in runs.iter().flat_map(|r| &r.commands) {
        let cmd = &script.commands[rec.index];
        let a = by.entry(cmd.label.as_str()).or_default();
        if a.count + a.absent == 0 {
            a.order = rec.index;
        }
        match &rec.outcome {
            Outcome::Absent => {
                a.absent += 1;
                continue;
            }
            Outcome::Missing => a.missing += 1,
            Outcome::Failed(why) => {
                a.failed += 1;
                a.first_error.get_or_insert_with(|| why.clone());
            }
            Outcome::TimedOut(why) => {
                a.timed_out += 1;
                a.first_error.get_or_insert_with(|| why.clone());
            }
            Outcome::Ok => {}
        }
        a.count += 1;
        a.real += rec.real_s;
        a.cpu += rec.cpu_s;
    }
    let (n, real, cpu) = by.values().fold((0, 0.0, 0.0), |(n, r, c), a| {
        (n + a.count, r + a.real, c + a.cpu)
    });
    let pct = |x: f64, total: f64| if total > 0.0 { 100.0 * x / total } else { 0.0 };
    let mut lines: Vec<(usize, CommandAccount)> = by
        .into_iter()
        .map(|(name, a)| {
            let per = |x: f64| if a.count > 0 { x / a.count as f64 } else { 0.0 };
            (
                a.order,
                CommandAccount {
                    command: name.to_string(),
                    count: a.count,
                    count_pct: pct(a.count as f64, n as f64),
                    avg_real_s: per(a.real),
                    real_pct: pct(a.real, real),
                    avg_cpu_s: per(a.cpu),
                    cpu_pct: pct(a.cpu, cpu),
                    real_per_cpu: (a.cpu > 0.0).then(|| a.real / a.cpu),
                    failed: a.failed,
                    missing: a.missing,
                    absent: a.absent,
                    timed_out: a.timed_out,
                    first_error: a.first_error,
                },
            )
        })
        .collect();
    // Most frequent first, as in the seed; ties in script order.
    lines.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(&b.0)));
    lines.into_iter().map(|l| l.1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        command: Duration::from_secs(60),
        run: Duration::from_secs(600),
    };

    #[test]
    fn the_1975_script_has_the_seeds_mix() {
        let s = load(None).unwrap();
        let count = |label: &str| s.commands.iter().filter(|c| c.label == label).count();
        // Per script in Attachment C: 312 commands in 3 runs.
        for (label, n) in [
            ("ed", 18),
            ("sh", 12),
            ("ls", 12),
            ("cat", 10),
            ("rm", 8),
            ("cp", 6),
            ("cc", 4),
            ("pr", 4),
            ("du", 4),
            ("mv", 4),
            ("nroff | col", 2),
            ("ps", 2),
            ("grep", 2),
            ("pwd", 2),
            ("rmdir", 2),
            ("who", 2),
            ("echo", 2),
            ("mkdir", 2),
            ("date", 2),
            ("chmod", 2),
        ] {
            assert_eq!(count(label), n, "{label}");
        }
        assert!(s.files.iter().any(|(n, _)| n == "prog.c"));
        assert!(load(Some("dev")).is_ok());
    }

    #[test]
    fn lines_are_run_directly_or_through_the_shell() {
        let c = parse_command("ed -s memo < add.ed").unwrap();
        assert_eq!(
            c.how,
            How::Direct {
                argv: vec!["ed".into(), "-s".into(), "memo".into()],
                stdin: Some("add.ed".into()),
                stdout: None
            }
        );
        let c = parse_command("grep -c the memo >>counts").unwrap();
        assert!(matches!(c.how, How::Direct { stdout: Some((ref f, true)), .. } if f == "counts"));
        let c = parse_command("nroff doc.nr | /usr/bin/col -b > doc.out").unwrap();
        assert_eq!((c.how, c.label.as_str()), (How::Shell, "nroff | col"));
        let c = parse_command("?python3 x.py").unwrap();
        assert!(c.optional);
        assert_eq!(parse_command("ls 2>/dev/null").unwrap().how, How::Shell);
        let c = parse_command("LC_ALL=C sort f").unwrap();
        assert_eq!((c.how, c.label.as_str()), (How::Shell, "sort"));
        assert_eq!(parse_command("ls 2>/dev/null").unwrap().label, "ls");
    }

    #[test]
    fn a_list_is_accounted_under_its_whole_line() {
        for line in [
            "true && false",
            "a; b",
            "a || b",
            "sleep 1 & wait",
            "cd d && ls | wc",
        ] {
            assert_eq!(parse_command(line).unwrap().label, line, "{line}");
        }
        for (line, label) in [
            ("ls 2>&1 | wc", "ls | wc"),
            ("echo 'a;b' | cat", "echo | cat"),
            ("cc x.c >&2", "cc"),
        ] {
            assert_eq!(parse_command(line).unwrap().label, label, "{line}");
        }
    }

    /// One user's script run by its shell, in this process, as a one-user sample.
    fn alone(s: &Script, limits: Limits, root: &Path) -> (UserReport, RunOut) {
        let job = prepare_user(s, 0, root, &absent_commands(s, &Host::detect()), limits).unwrap();
        let report = run_user(&job).unwrap();
        let out = RunOut {
            commands: report.commands.clone(),
            ..Default::default()
        };
        (report, out)
    }

    #[test]
    fn a_hung_command_is_killed_and_counted_as_timed_out() {
        let dir = tempfile::tempdir().unwrap();
        let s = parse("t", "echo a\nsleep 30 | cat\necho b\n").unwrap();
        let limits = Limits {
            command: Duration::from_millis(300),
            run: Duration::from_secs(60),
        };
        let started = Instant::now();
        let (report, out) = alone(&s, limits, dir.path());
        assert!(started.elapsed() < Duration::from_secs(20), "not killed");
        assert_eq!(report.stopped, None, "the script went on");
        let t = accounting(&s, &[out]);
        let line = |c: &str| t.iter().find(|l| l.command == c).unwrap().clone();
        let hung = line("sleep | cat");
        assert_eq!((hung.timed_out, hung.failed), (1, 0));
        assert!(
            hung.first_error.unwrap().contains("--command-timeout"),
            "{t:?}"
        );
        assert_eq!(line("echo").count, 2, "the script went on after it");
    }

    #[test]
    fn a_run_past_its_timeout_is_stopped_and_said() {
        let dir = tempfile::tempdir().unwrap();
        let s = parse("t", "sleep 30\necho never\necho never again\n").unwrap();
        let limits = Limits {
            command: Duration::from_secs(60),
            run: Duration::from_millis(300),
        };
        let (report, out) = alone(&s, limits, dir.path());
        assert_eq!(report.stopped, Some((1, 2)), "one killed, two not started");
        let t = accounting(&s, &[out]);
        let sleep = t.iter().find(|l| l.command == "sleep").unwrap();
        assert_eq!(sleep.timed_out, 1);
        assert!(
            sleep
                .first_error
                .as_ref()
                .unwrap()
                .contains("--run-timeout"),
            "{t:?}"
        );
        assert!(
            t.iter().all(|l| l.command != "echo"),
            "nothing started after"
        );
    }

    #[test]
    fn a_shells_report_survives_the_trip_and_a_corrupted_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let s = parse("t", "@file f\nb\na\n@end\nsort f\nfalse\n").unwrap();
        // The job goes to the shell as JSON: the script must come back the same.
        let job = prepare_user(&s, 0, dir.path(), &[], LIMITS).unwrap();
        let back: UserJob = serde_json::from_slice(&serde_json::to_vec(&job).unwrap()).unwrap();
        assert_eq!(back.script, s);
        let report = run_user(&back).unwrap();
        let text = serde_json::to_vec(&report).unwrap();
        let read = parse_report(&text).unwrap();
        assert_eq!(read.commands.len(), 2);
        assert!(matches!(read.commands[1].outcome, Outcome::Failed(_)));
        assert!(read.real_s > 0.0 && read.real_s >= read.commands[0].real_s);
        let cut = &text[..text.len() / 2];
        let e = format!("{:#}", parse_report(cut).unwrap_err());
        assert!(e.contains("not a user's report"), "{e}");
        let negative =
            String::from_utf8(text.clone())
                .unwrap()
                .replacen("\"real_s\":", "\"real_s\":-", 1);
        let e = format!("{:#}", parse_report(negative.as_bytes()).unwrap_err());
        assert!(e.contains("negative"), "{e}");
    }

    #[test]
    fn bad_scripts_are_refused_with_the_line() {
        let e = format!("{:#}", parse("t", "ls\n@file x\nabc\n").unwrap_err());
        assert!(e.contains("no @end"), "{e}");
        let e = format!("{:#}", parse("t", "@file ../x\n@end\nls\n").unwrap_err());
        assert!(e.contains("line 1"), "{e}");
        assert!(parse("t", "# nothing\n").is_err());
        assert!(parse("t", "ls >").is_err());
    }

    #[test]
    fn a_program_the_script_needs_and_lacks_skips_the_row_naming_it() {
        let script = parse(
            "t",
            "cat notes\n\
             cat notes | timeshare-no-such-filter -b\n\
             cd /tmp && timeshare-no-such-word\n\
             ?timeshare-no-such-optional\n\
             /timeshare/no/such/ed - notes\n\
             ./built-by-the-script\n",
        )
        .unwrap();
        let host = Host::detect();
        let lacking = lacking_programs(&script, &host);
        assert_eq!(
            lacking,
            ["timeshare-no-such-filter", "/timeshare/no/such/ed"],
            "a pipeline's every stage, not a list's words, not an optional command"
        );
        let ed = parse("t", "ed - notes\nnroff doc.nr | col -b\n").unwrap();
        let skip = lacking_skip(&ed, &["ed".into(), "col".into()]);
        assert_eq!(
            skip.0,
            "the t script runs `ed`, `col` and they are not on PATH (on Debian or Ubuntu: \
             apt-get install ed bsdextrautils)"
        );
    }

    #[test]
    fn failures_and_missing_commands_are_counted_per_command() {
        let dir = tempfile::tempdir().unwrap();
        let s = parse(
            "t",
            "@file f\nb\na\n@end\nsort f\nfalse\ntimeshare-no-such-program x\n\
             ?timeshare-no-such-optional\ncat f | timeshare-no-such-program\nfalse | cat\necho done\n",
        )
        .unwrap();
        let (_, out) = alone(&s, LIMITS, dir.path());
        let t = accounting(&s, &[out]);
        let line = |c: &str| t.iter().find(|l| l.command == c).unwrap().clone();
        assert_eq!((line("sort").count, line("sort").failed), (1, 0));
        assert_eq!(line("false").failed, 1);
        assert!(line("false").first_error.unwrap().contains("exit 1"));
        assert_eq!(line("timeshare-no-such-program").missing, 1);
        assert_eq!(line("cat | timeshare-no-such-program").missing, 1);
        assert_eq!(line("timeshare-no-such-optional").absent, 1);
        assert_eq!(
            line("false | cat").failed,
            1,
            "a failing first stage is seen"
        );
        assert_eq!(line("echo").count, 1, "the rest of the script ran");
    }
}

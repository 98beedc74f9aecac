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
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};

use super::{driver_cpu, lock, remembered, LoadState, Ticker};
use crate::harness::contract::{Benchmark, Ctx, OwnFigures, Workload};
use crate::harness::copies;
use crate::harness::rusage::DriverMeter;
use crate::harness::state::Shared;
use crate::model::details::load::{CommandAccount, DriverCpu, Scripts, ScriptsSummary, PER_SCRIPT};
use crate::model::median;
use crate::model::Details;
use crate::model::{Metric, OpTimes, Source};

/// The seed's 1975 user (Attachment C's command mix).
pub const USER1975: &str = include_str!("../../../../scripts/user1975.sh");
/// A developer at work today.
pub const DEV: &str = include_str!("../../../../scripts/dev.sh");

mod format;
mod users;

pub use format::{lacking_programs, load, parse, pipefail_shell, Cmd, How, Script};
use format::{lacking_skip, shell_description};
use users::{run_users, Limits, Outcome, RunOut};
pub use users::{user_shell, UserJob, UserReport, USER_SHELL};

struct ScriptLoad {
    id: String,
    users: usize,
}

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
    use std::path::Path;
    use std::time::Instant;

    use super::format::parse_command;
    use super::users::{absent_commands, parse_report, prepare_user, run_user};
    use super::*;
    use crate::harness::contract::Host;

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

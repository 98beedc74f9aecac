//! `mixed.build` — seed 000 Tables 6 and 7: "a shell procedure was written to compile each
//! of the system modules … and, finally, link edit everything together", timed with
//! `time` (real and CPU). Here the bundled multi-file C program (`assets/cprog/`, nine
//! modules and a header) is built from scratch with `make` and the system compiler, and
//! the program it produces is run and its output compared with the first build's.
//!
//! # Timing model
//! One operation = remove the build directory, write the sources into a fresh one, run
//! `make` (serial, like the seed's shell procedure; `-O2`), run the built program and
//! compare its output with the trusted output of the untimed build that `prepare` makes.
//! In a later process of a run across several (`Ctx::first_process` false) there is no
//! untimed build: the run's first process made it, which warmed the compiler's files in
//! the page cache, and a merged result keeps the first process's details only; the first
//! timed build's output, checked by the program's own check, is the one every later build
//! of the process must match (a build there is as much of the process's time as its
//! samples, ~2 s here, twice per run).
//! Writing the sources and running the program are a few milliseconds against the build's
//! hundreds. CPU time (user + system) comes from the harness's getrusage of reaped
//! children: make, cc, cc1, as, ld and the program.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, ensure, Context, Result};

use crate::assets;
use crate::harness::contract::{Benchmark, Ctx, Host, Plan, Skip, Workload};
use crate::harness::interrupt::Interrupted;
use crate::harness::{interrupt, procgroup};
use crate::model::details::mixed;
use crate::model::Details;
use crate::model::{Metric, Source};

pub fn benchmark() -> Benchmark {
    Benchmark::new("mixed.build", "build a bundled 9-module C program from scratch with make and cc, run it, check its output", Source::seed(
            "000",
            "Tables 6 and 7 (recompiling the system, building a compiler)",
        ), prepare)
.with_metric(Metric::job())
.with_plan(Plan::job)
.requires(supported)
}

fn supported(host: &Host) -> Result<(), Skip> {
    for program in ["make", "cc"] {
        if host.find_program(program).is_none() {
            return Err(Skip::new(format!(
                "no `{program}` on PATH (install make and a C compiler, e.g. gcc)"
            )));
        }
    }
    Ok(())
}
fn prepare(ctx: &Ctx) -> Result<Box<dyn Workload>> {
    prepare_job(ctx, &C_PROGRAM)
}

/// A bundled program built from scratch with make and checked: its files, how make is
/// called, and the check its first output must pass.
pub(super) struct Job {
    /// (name, text), written into the build directory.
    pub files: &'static [(&'static str, &'static str)],
    /// The source files' endings, for the details' count of sources and lines.
    pub sources: &'static [&'static str],
    /// make's arguments after `-s`.
    pub make_args: &'static [&'static str],
    /// How make is called, as the details name it.
    pub make: &'static str,
    /// The program's own verdict on its output.
    pub check: fn(&[u8]) -> Result<()>,
}

const C_PROGRAM: Job = Job {
    files: assets::CPROG_FILES,
    sources: &[".c"],
    make_args: &["CC=cc", "CFLAGS=-O2"],
    make: "make (serial), CFLAGS=-O2",
    check: check_program_output,
};

/// The workload of `job`: in a run's first process, one untimed build first, whose
/// checked output every timed build must give.
pub(super) fn prepare_job(ctx: &Ctx, job: &'static Job) -> Result<Box<dyn Workload>> {
    let dir = ctx.scratch.join("build");
    let trusted = if ctx.first_process {
        let out = build_and_run(&dir, job).context("the untimed first build")?;
        (job.check)(&out)?;
        Some(out)
    } else {
        None
    };
    Ok(Box::new(Builder {
        job,
        dir,
        untimed_build: trusted.is_some(),
        trusted,
        builds: 0,
    }))
}

/// The note of a later process, which made no untimed first build.
const NO_UNTIMED_BUILD: &str = "a later process of the run: no untimed first build (the \
     first process's warmed the compiler); its first timed build's output, checked by the \
     program itself, is what its other builds must match";

struct Builder {
    job: &'static Job,
    dir: PathBuf,
    /// The output every build must give: the untimed first build's, or (in a later
    /// process, which makes none) the first timed build's once the program's own check
    /// passed on it.
    trusted: Option<Vec<u8>>,
    /// Whether `prepare` made the untimed first build (false in a later process).
    untimed_build: bool,
    builds: u64,
}

impl Workload for Builder {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            let out = build_and_run(&self.dir, self.job)?;
            let Some(trusted) = &self.trusted else {
                (self.job.check)(&out).with_context(|| format!("build {}", self.builds + 1))?;
                self.trusted = Some(out);
                self.builds += 1;
                continue;
            };
            if out != *trusted {
                let at = out
                    .iter()
                    .zip(trusted)
                    .position(|(a, b)| a != b)
                    .unwrap_or(out.len().min(trusted.len()));
                bail!(
                    "build {}: the program's output differs from the first build's at byte {at}",
                    self.builds + 1
                );
            }
            self.builds += 1;
        }
        Ok(())
    }

    fn details(&mut self) -> Option<Details> {
        let is_source = |n: &str| self.job.sources.iter().any(|e| n.ends_with(e));
        let sources = self.job.files.iter().filter(|(n, _)| is_source(n)).count();
        let lines: usize = self
            .job
            .files
            .iter()
            .filter(|(n, _)| is_source(n) || n.ends_with(".h"))
            .map(|(_, t)| t.lines().count())
            .sum();
        Some(Details::of(&mixed::Build {
            sources,
            lines,
            make: self.job.make.into(),
            builds_checked: self.builds,
            output_bytes: self.trusted.as_ref().map_or(0, Vec::len),
        }))
    }

    fn notes(&self) -> Vec<String> {
        if self.untimed_build {
            Vec::new()
        } else {
            vec![NO_UNTIMED_BUILD.to_string()]
        }
    }
}

/// Build `job` from scratch in `dir` and return the built program's standard output.
fn build_and_run(dir: &Path, job: &Job) -> Result<Vec<u8>> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    std::fs::create_dir_all(dir)?;
    for (name, text) in job.files {
        std::fs::write(dir.join(name), text)?;
    }
    let make = procgroup::with_default_signals(
        Command::new("make")
            .arg("-s")
            .args(job.make_args)
            .current_dir(dir)
            .env("LC_ALL", "C")
            .stdin(Stdio::null()),
    )
    .output()
    .context("cannot run make")?;
    if interrupt::requested() {
        // Ctrl-C reached make too: an interrupt, not a failed build.
        return Err(Interrupted.into());
    }
    if !make.status.success() {
        bail!("make failed ({}): {}", make.status, last_line(&make.stderr));
    }
    let prog = procgroup::with_default_signals(
        Command::new(dir.join("prog"))
            .current_dir(dir)
            .stdin(Stdio::null()),
    )
    .output()
    .context("cannot run the built program")?;
    ensure!(
        prog.status.success(),
        "the built program failed ({})",
        prog.status
    );
    Ok(prog.stdout)
}

/// The program checks itself; its output must say so.
fn check_program_output(out: &[u8]) -> Result<()> {
    let text = String::from_utf8_lossy(out);
    ensure!(
        text.contains("total checksum") && text.matches("sorted=yes").count() == 4,
        "the built program's output is not what it should be: {}",
        last_line(out)
    );
    Ok(())
}

pub(super) fn last_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or("(no output)")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::contract::StandaloneCtx;
    use crate::model::details::mixed::Build;
    use crate::model::RunOptions;

    /// `mixed.build` prepared in the first process of a run or a later one, with its
    /// scratch directory; `None` where the host has no make or cc.
    fn prepared(first_process: bool) -> Option<(Box<dyn Workload>, StandaloneCtx)> {
        let standalone = StandaloneCtx::new(RunOptions::default()).unwrap();
        if supported(&standalone.host).is_err() {
            return None;
        }
        let ctx = Ctx {
            first_process,
            ..standalone.ctx()
        };
        let w = prepare(&ctx).unwrap();
        Some((w, standalone))
    }

    #[test]
    fn a_later_process_makes_no_untimed_build_and_says_so() {
        let Some((mut w, dir)) = prepared(false) else {
            return;
        };
        assert!(!dir.path().join("build").exists(), "built before sampling");
        assert_eq!(w.notes(), vec![NO_UNTIMED_BUILD.to_string()]);
        // Its first timed build is checked by the program's own check and becomes what
        // the next must match.
        w.run(2).unwrap();
        let d = w.details().unwrap().read::<Build>().unwrap();
        assert_eq!(d.builds_checked, 2);
        assert!(d.output_bytes > 0);
    }

    #[test]
    fn the_first_process_builds_untimed_first_and_notes_nothing() {
        let Some((mut w, dir)) = prepared(true) else {
            return;
        };
        assert!(dir.path().join("build/prog").exists());
        assert!(w.notes().is_empty());
        w.run(1).unwrap();
        assert_eq!(
            w.details().unwrap().read::<Build>().unwrap().builds_checked,
            1
        );
    }

    #[test]
    fn output_without_the_programs_own_verdict_is_refused() {
        assert!(check_program_output(b"total checksum 1\n").is_err());
        let good = "sorted=yes\n".repeat(4) + "total checksum 1\n";
        assert!(check_program_output(good.as_bytes()).is_ok());
    }
}

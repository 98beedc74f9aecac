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
    let dir = ctx.scratch.join("build");
    let trusted = build_and_run(&dir).context("the untimed first build")?;
    check_program_output(&trusted)?;
    Ok(Box::new(Builder {
        dir,
        trusted,
        builds: 0,
    }))
}

struct Builder {
    dir: PathBuf,
    trusted: Vec<u8>,
    builds: u64,
}

impl Workload for Builder {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            let out = build_and_run(&self.dir)?;
            if out != self.trusted {
                let at = out
                    .iter()
                    .zip(&self.trusted)
                    .position(|(a, b)| a != b)
                    .unwrap_or(out.len().min(self.trusted.len()));
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
        let sources = assets::CPROG_FILES
            .iter()
            .filter(|(n, _)| n.ends_with(".c"))
            .count();
        let lines: usize = assets::CPROG_FILES
            .iter()
            .filter(|(n, _)| n.ends_with(".c") || n.ends_with(".h"))
            .map(|(_, t)| t.lines().count())
            .sum();
        Some(Details::of(&mixed::Build {
            sources,
            lines,
            make: "make (serial), CFLAGS=-O2".into(),
            builds_checked: self.builds,
            output_bytes: self.trusted.len(),
        }))
    }
}

/// Build from scratch in `dir` and return the built program's standard output.
fn build_and_run(dir: &Path) -> Result<Vec<u8>> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    std::fs::create_dir_all(dir)?;
    for (name, text) in assets::CPROG_FILES {
        std::fs::write(dir.join(name), text)?;
    }
    let make = procgroup::with_default_signals(
        Command::new("make")
            .args(["-s", "CC=cc", "CFLAGS=-O2"])
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

fn last_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or("(no output)")
        .to_string()
}

//! `mixed.fortran` — seed 000 Table 7: "the Fortran compiler was built. A shell procedure
//! was used to assemble the various modules of this compiler and link edit them into an
//! executable load module. It then assembled all of the Fortran builtin functions and I/O
//! routines and placed them in their respective libraries." The 1975 compiler's sources
//! are not at hand; the same kind of job is done with today's Fortran compiler: a bundled
//! set of builtin functions (integer and real: abs, power, square roots, gcd, exp) and I/O
//! routines (`assets/fortran/`), each module compiled by itself, put in its library with
//! `ar`, and a program linked against both, which calls every routine and checks each
//! result against the compiler's intrinsic or a known value.
//!
//! One operation is one build from scratch and one run of the program, as `mixed.build`'s
//! (same timing model, same details); the row is skipped, with the reason, where gfortran
//! is not installed (Debian's `gfortran` package), and every other row runs.

use anyhow::{ensure, Result};

use super::build::{last_line, prepare_job, Job};
use crate::assets;
use crate::harness::contract::{Benchmark, Host, Plan, Skip};
use crate::model::{Metric, Source};

pub fn benchmark() -> Benchmark {
    Benchmark::new(
        "mixed.fortran",
        "build a bundled Fortran library (6 builtin functions, 3 I/O routines) and a program \
         linked against it from scratch with make, gfortran and ar, run it, check its output",
        Source::seed(
            "000",
            "Table 7 (building the Fortran compiler and its libraries)",
        ),
        |ctx| prepare_job(ctx, &FORTRAN),
    )
    .with_metric(Metric::job())
    .with_plan(Plan::job)
    .requires(supported)
}

const FORTRAN: Job = Job {
    files: assets::FORTRAN_FILES,
    sources: &[".f90"],
    make_args: &["FC=gfortran", "FFLAGS=-O2"],
    make: "make (serial), gfortran FFLAGS=-O2, ar",
    check: check_program_output,
};

/// A system program the row needs, by name, with what provides it.
const NEEDED: &[(&str, &str)] = &[
    ("make", "make"),
    (
        "gfortran",
        "the Fortran compiler, e.g. the Debian package gfortran",
    ),
    ("ar", "binutils"),
];

fn supported(host: &Host) -> Result<(), Skip> {
    match missing(|program| host.find_program(program).is_some()) {
        Some(why) => Err(Skip::new(why)),
        None => Ok(()),
    }
}

/// Why the row cannot run, given whether each program is on PATH: the first one missing.
fn missing(found: impl Fn(&str) -> bool) -> Option<String> {
    NEEDED
        .iter()
        .find(|(program, _)| !found(program))
        .map(|(program, from)| {
            format!("a system program is missing: no `{program}` on PATH (install {from})")
        })
}

/// The program checks every routine; its output must say that none failed.
fn check_program_output(out: &[u8]) -> Result<()> {
    let text = String::from_utf8_lossy(out);
    ensure!(
        text.lines().any(|l| l == "failed checks 0")
            && text.lines().any(|l| l == "fortran library check: ok"),
        "the built Fortran program's output is not what it should be: {}",
        last_line(out)
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::contract::StandaloneCtx;
    use crate::model::details::mixed::Build;
    use crate::model::RunOptions;

    #[test]
    fn output_with_a_failed_check_or_without_the_verdict_is_refused() {
        let good = "failed checks 0\nfortran library check: ok\n";
        assert!(check_program_output(good.as_bytes()).is_ok());
        assert!(check_program_output(b"failed checks 2\nfortran library check: FAILED\n").is_err());
        assert!(check_program_output(b"failed checks 0\n").is_err());
        // A count that merely starts with 0 is not none.
        assert!(check_program_output(b"failed checks 01\nfortran library check: ok\n").is_err());
    }

    #[test]
    fn without_gfortran_on_path_the_row_is_skipped_naming_the_missing_program() {
        let why = missing(|program| program != "gfortran").unwrap();
        assert_eq!(
            why,
            "a system program is missing: no `gfortran` on PATH (install the Fortran \
             compiler, e.g. the Debian package gfortran)"
        );
        assert!(missing(|program| program != "ar").unwrap().contains("`ar`"));
        assert_eq!(missing(|_| true), None);
    }

    /// Where gfortran is installed: the build's program passes its own checks, and a
    /// corrupted library routine (fsqrt off by one part in 10^6) is caught.
    #[test]
    fn the_built_program_checks_itself_and_a_wrong_routine_is_caught() {
        let standalone = StandaloneCtx::new(RunOptions::default()).unwrap();
        if supported(&standalone.host).is_err() {
            return;
        }
        let ctx = standalone.ctx();
        let mut w = prepare_job(&ctx, &FORTRAN).unwrap();
        w.run(1).unwrap();
        let d = w.details().unwrap().read::<Build>().unwrap();
        assert_eq!((d.sources, d.builds_checked), (10, 1));
        let dir = ctx.scratch.join("broken");
        let files: Vec<(&str, String)> = assets::FORTRAN_FILES
            .iter()
            .map(|&(n, t)| {
                let t = if n == "fsqrt.f90" {
                    t.replace("fsqrt = r\n", "fsqrt = r * 1.000001d0\n")
                } else {
                    t.to_string()
                };
                (n, t)
            })
            .collect();
        assert!(files.iter().any(|(_, t)| t.contains("1.000001d0")));
        std::fs::create_dir_all(&dir).unwrap();
        for (n, t) in &files {
            std::fs::write(dir.join(n), t).unwrap();
        }
        let make = std::process::Command::new("make")
            .args(["-s", "FC=gfortran", "FFLAGS=-O2"])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(make.status.success());
        let out = std::process::Command::new(dir.join("prog"))
            .output()
            .unwrap();
        assert!(check_program_output(&out.stdout).is_err());
    }
}

//! §2 `proc`: process creation, seed 001's `forks`, `vforks`, `execs` and `vexecs`
//! (Table 1/2, Appendix A, and Table 3's rerun with ~1 KB more environment), plus the
//! modern posix_spawn and `sh -c`. Timing model in [`create`].
//!
//! Ids: `proc.<fork|vfork>.<0|1k|100k>`, `proc.<exec|vexec>.<null|big>.<0|1k|100k>`,
//! `proc.exec.<null|big>.<0|1k|100k>.env1k`, `proc.spawn`, `proc.shell`; the last
//! component of the seed's rows is the heap growth before the loop. And finding a process
//! among N (001 §3.2.5), `proc.table.<kill|walk>.N`: see [`table`].

use anyhow::Result;

use super::micro::{berkeley, processes};
use crate::harness::anchor::{Anchor, Parse};
use crate::harness::contract::{Benchmark, Ctx, Derived, Host, Skip, SupportCheck, Workload};
use crate::model::{Basis, Source, Unit};

pub mod create;
pub mod jobs;
pub mod table;

use create::{Create, Creation};
use jobs::{ExecArgs, Job};

/// The family's section of `docs/benchmarks.md`.
#[linkme::distributed_slice(crate::model::catalogue::SECTIONS)]
fn section() -> crate::model::catalogue::Section {
    crate::model::catalogue::Section {
        order: 60,
        family: "proc",
        heading: "`proc` — creating processes",
        seeds: "Seed 001 Table 1/2 and 3: `forks`, `vforks`, `execs`, `vexecs` of the null and big jobs.",
    }
}

/// The family's place in the catalogue: registered here, gathered by
/// [`crate::bench::Registry`].
#[linkme::distributed_slice(crate::bench::FAMILIES)]
fn family() -> crate::bench::Family {
    crate::bench::Family {
        derived,
        ..crate::bench::Family::rows("proc", 60, |_| all())
    }
}

pub fn all() -> Vec<Benchmark> {
    let mut all = rows();
    all.extend(table::rows());
    all
}

pub fn derived() -> Vec<Derived> {
    vec![Derived {
        id: "proc.exec.env_byte",
        about: "exec cost per byte of environment: (exec with 1,080 more bytes − without) / \
                1,080, mean of the 0 and 1k heap rows (001 Table 3)",
        source: berkeley("Table 3 and its text: ms per byte of exec arguments"),
        unit: Unit::SecondsPerOp,
        basis: Basis::per("byte of environment"),
        inputs: &[
            "proc.exec.null.0.env1k",
            "proc.exec.null.0",
            "proc.exec.null.1k.env1k",
            "proc.exec.null.1k",
        ],
        compute: per_environment_byte,
    }]
}

/// ((env0 − base0) + (env1k − base1k)) / 2 / extra bytes.
pub fn per_environment_byte(v: &[f64]) -> f64 {
    let extra = jobs::extra_environment_bytes() as f64;
    ((v[0] - v[1]) + (v[2] - v[3])) / 2.0 / extra
}

const KB: usize = 1024;

fn fork_only(how: Create, heap: usize) -> Result<Box<dyn Workload>> {
    Ok(Box::new(Creation::new(how, None, heap)?))
}

fn exec_job(
    ctx: &Ctx,
    how: Create,
    job: Job,
    heap: usize,
    more_env: bool,
) -> Result<Box<dyn Workload>> {
    let path = jobs::install(job, ctx.scratch)?;
    let extra = if more_env {
        jobs::extra_environment()
    } else {
        Vec::new()
    };
    let args = ExecArgs::new(&path, &[], extra)?;
    Ok(Box::new(Creation::new(how, Some(args), heap)?))
}

fn shell(ctx: &Ctx) -> Result<Box<dyn Workload>> {
    let sh = ctx
        .host
        .find_program("sh")
        .ok_or_else(|| anyhow::anyhow!("no sh on PATH"))?;
    let null = jobs::install(Job::Null, ctx.scratch)?;
    let command = null.to_string_lossy().into_owned();
    let args = ExecArgs::new(&sh, &["-c", &command], Vec::new())?;
    Ok(Box::new(Creation::new(Create::Spawn, Some(args), 0)?))
}

fn need_null(_: &Host) -> Result<(), Skip> {
    jobs::available(Job::Null)
}

fn need_big(_: &Host) -> Result<(), Skip> {
    jobs::available(Job::Big)
}

fn need_sh(host: &Host) -> Result<(), Skip> {
    host.find_program("sh")
        .ok_or_else(|| Skip::new("no `sh` on PATH"))?;
    need_null(host)
}

/// A process-creation row: the processes plan, a child in every operation, and a check
/// that its job exists.
fn row(
    id: &'static str,
    about: &'static str,
    source: Source,
    supported: Option<SupportCheck>,
    prepare: fn(&Ctx) -> Result<Box<dyn Workload>>,
) -> Benchmark {
    let b = Benchmark::new(id, about, source, prepare)
        .with_plan(processes)
        .partnered()
        .per(creation_op(id));
    match supported {
        Some(check) => b.requires(check),
        None => b,
    }
}

/// Why proc.fork.0 is cheaper than lmbench's `lat_proc fork`.
pub const LAT_PROC_EXIT: &str = "two measured causes. (1) lat_proc's child leaves by \
exit(), whose C-library handlers write to pages shared copy-on-write with the parent: the \
same C loop takes 26 minor faults per fork with exit() against 18 with _exit() (lat_proc: \
29 over its whole run) and 1.15-1.2 times the time. (2) Waiting for the new child to be \
scheduled: on a loaded CPU the child queues behind other runnable tasks, and in that C \
loop under a load of 10 on 2 CPUs the median fork took 181-243 us but the mean 600-760 us; \
lmbench's figure is the median of long batches (ENOUGH, 1 s on this machine under load), \
which contain those waits, timeshare's the median of 8 ms samples, fewer of which do. The \
parent's size is not a cause: timeshare's is larger (624 KiB anonymous, 35 mappings, \
against lat_proc's 92 KiB, 23), which would make it slower, and lat_proc's wait() loop \
reaps the child as waitpid() does";

/// Where lmbench's `lat_proc exec` finds the program it executes (its `hello`): compiled
/// into Debian's lat_proc. The crosscheck gives the tool a private view of that directory
/// (see [`crate::harness::toolview`]) and never touches the shared one.
pub const LAT_PROC_EXEC_DIR: &str = "/var/tmp/lmbench";
pub const LAT_PROC_EXEC_NAME: &str = "hello";

/// proc.exec.null.0 against `lat_proc exec` with the same program on both sides: the
/// crosscheck puts the null job where lat_proc looks for its `hello`, in the tool's private
/// view of that directory. With lmbench's own dynamically linked `hello` the pair read 0.33×:
/// the gap was the programs (a static job of two instructions against a C library's
/// start-up), not the fork and exec.
fn lat_proc_exec() -> Anchor {
    Anchor::lmbench(
        "lmbench lat_proc exec",
        "lat_proc",
        &["exec"],
        Parse::LmbenchMicroseconds,
        "per fork, execve of the null job, its exit, wait",
    )
    .with_exec_file(LAT_PROC_EXEC_DIR, LAT_PROC_EXEC_NAME, Job::Null.image())
}

/// What one operation of a process-creation row is, by its id (001 Table 1's words).
fn creation_op(id: &str) -> &'static str {
    match id.split('.').nth(1) {
        Some("fork") => "fork-exit-wait",
        Some("vfork") => "vfork-exit-wait",
        Some("exec") => "fork-exec-exit-wait",
        Some("vexec") => "vfork-exec-exit-wait",
        Some("spawn") => "posix_spawn-exit-wait",
        _ => "posix_spawn of sh -c running the null job, wait",
    }
}

const NULL: Option<SupportCheck> = Some(need_null);
const BIG: Option<SupportCheck> = Some(need_big);
use Create::{Fork, Spawn, Vfork};
use Job::{Big, Null};

#[rustfmt::skip]
fn rows() -> Vec<Benchmark> { vec![
    row("proc.fork.0", "fork-exit-wait (001 forks0)", berkeley("Table 1/2: forks0"), None,
        |_| fork_only(Fork, 0))
        .expects_syscalls(&[("clone", 1.0), ("wait4", 1.0), ("exit_group", 1.0)])
        .anchor(Anchor::lmbench("lmbench lat_proc fork", "lat_proc", &["fork"],
            Parse::LmbenchMicroseconds, "per fork, exit() in the child, waitpid")
            .explained(LAT_PROC_EXIT)),
    row("proc.fork.1k", "grow the heap 1 KB, touch it, then fork-exit-wait (001 forks1k)",
        berkeley("Table 1/2: forks1k"), None, |_| fork_only(Fork, KB)),
    row("proc.fork.100k", "grow the heap 100 KB, touch it, then fork-exit-wait (001 forks100k)",
        berkeley("Table 1/2: forks100k"), None, |_| fork_only(Fork, 100 * KB)),
    row("proc.vfork.0", "vfork-exit-wait (001 vforks0)", berkeley("Table 1/2: vforks0"), None,
        |_| fork_only(Vfork, 0)),
    row("proc.vfork.1k", "grow the heap 1 KB, then vfork-exit-wait (001 vforks1k)",
        berkeley("Table 1/2: vforks1k"), None, |_| fork_only(Vfork, KB)),
    row("proc.vfork.100k", "grow the heap 100 KB, then vfork-exit-wait (001 vforks100k)",
        berkeley("Table 1/2: vforks100k"), None, |_| fork_only(Vfork, 100 * KB)),
    row("proc.exec.null.0", "fork-exec the null job-exit-wait (001 execs0null)",
        berkeley("Table 1/2: execs0null"), NULL, |ctx| exec_job(ctx, Fork, Null, 0, false))
        .anchor(lat_proc_exec()),
    row("proc.exec.null.1k", "heap +1 KB, then fork-exec the null job-exit-wait (001 execs1knull)",
        berkeley("Table 1/2: execs1knull"), NULL, |ctx| exec_job(ctx, Fork, Null, KB, false)),
    row("proc.exec.null.100k", "heap +100 KB, then fork-exec the null job (001 execs100knull)",
        berkeley("Table 1/2: execs100knull"), NULL, |ctx| exec_job(ctx, Fork, Null, 100 * KB, false)),
    row("proc.exec.big.0", "fork-exec the big job (250 KB data)-exit-wait (001 execs0big)",
        berkeley("Table 1/2: execs0big"), BIG, |ctx| exec_job(ctx, Fork, Big, 0, false)),
    row("proc.exec.big.1k", "heap +1 KB, then fork-exec the big job (001 execs1kbig)",
        berkeley("Table 1/2: execs1kbig"), BIG, |ctx| exec_job(ctx, Fork, Big, KB, false)),
    row("proc.exec.big.100k", "heap +100 KB, then fork-exec the big job (001 execs100kbig)",
        berkeley("Table 1/2: execs100kbig"), BIG, |ctx| exec_job(ctx, Fork, Big, 100 * KB, false)),
    row("proc.vexec.null.0", "vfork-exec the null job-exit-wait (001 vexecs0null)",
        berkeley("Table 1/2: vexecs0null"), NULL, |ctx| exec_job(ctx, Vfork, Null, 0, false)),
    row("proc.vexec.null.1k", "heap +1 KB, then vfork-exec the null job (001 vexecs1knull)",
        berkeley("Table 1/2: vexecs1knull"), NULL, |ctx| exec_job(ctx, Vfork, Null, KB, false)),
    row("proc.vexec.null.100k", "heap +100 KB, then vfork-exec the null job (001 vexecs100knull)",
        berkeley("Table 1/2: vexecs100knull"), NULL, |ctx| exec_job(ctx, Vfork, Null, 100 * KB, false)),
    row("proc.vexec.big.0", "vfork-exec the big job-exit-wait (001 vexecs0big)",
        berkeley("Table 1/2: vexecs0big"), BIG, |ctx| exec_job(ctx, Vfork, Big, 0, false)),
    row("proc.vexec.big.1k", "heap +1 KB, then vfork-exec the big job (001 vexecs1kbig)",
        berkeley("Table 1/2: vexecs1kbig"), BIG, |ctx| exec_job(ctx, Vfork, Big, KB, false)),
    row("proc.vexec.big.100k", "heap +100 KB, then vfork-exec the big job (001 vexecs100kbig)",
        berkeley("Table 1/2: vexecs100kbig"), BIG, |ctx| exec_job(ctx, Vfork, Big, 100 * KB, false)),
    row("proc.exec.null.0.env1k", "proc.exec.null.0 with 1,080 more bytes of environment",
        berkeley("Table 3: execs0null (1K env)"), NULL, |ctx| exec_job(ctx, Fork, Null, 0, true)),
    row("proc.exec.null.1k.env1k", "proc.exec.null.1k with 1,080 more bytes of environment",
        berkeley("Table 3: execs1knull (1K env)"), NULL, |ctx| exec_job(ctx, Fork, Null, KB, true)),
    row("proc.exec.null.100k.env1k", "proc.exec.null.100k with 1,080 more bytes of environment",
        berkeley("run script: execs 1000 102400 nulljob, large environment"), NULL,
        |ctx| exec_job(ctx, Fork, Null, 100 * KB, true)),
    row("proc.exec.big.0.env1k", "proc.exec.big.0 with 1,080 more bytes of environment",
        berkeley("run script: execs 1000 0 bigjob, large environment"), BIG,
        |ctx| exec_job(ctx, Fork, Big, 0, true)),
    row("proc.exec.big.1k.env1k", "proc.exec.big.1k with 1,080 more bytes of environment",
        berkeley("run script: execs 1000 1024 bigjob, large environment"), BIG,
        |ctx| exec_job(ctx, Fork, Big, KB, true)),
    row("proc.exec.big.100k.env1k", "proc.exec.big.100k with 1,080 more bytes of environment",
        berkeley("run script: execs 1000 102400 bigjob, large environment"), BIG,
        |ctx| exec_job(ctx, Fork, Big, 100 * KB, true)),
    row("proc.spawn", "posix_spawn the null job, wait", Source::Modern(
        "posix_spawn, how modern programs start processes (vfork-like in glibc)"), NULL,
        |ctx| exec_job(ctx, Spawn, Null, 0, false)),
    row("proc.shell", "posix_spawn `sh -c` of the null job, wait", Source::Modern(
        "a shell command, as system() and scripts start programs"), Some(need_sh), shell),
]}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exec_is_checked_against_lat_proc_running_the_null_job() {
        let row = rows()
            .into_iter()
            .find(|b| b.id() == "proc.exec.null.0")
            .unwrap();
        let a = &row.anchors()[0];
        assert_eq!(a.command_line(), "lat_proc exec");
        let placed = a.exec_file.expect("lat_proc is given the program to exec");
        assert_eq!(placed.name, LAT_PROC_EXEC_NAME);
        assert_eq!(a.dir, Some(LAT_PROC_EXEC_DIR));
        assert_eq!(placed.image, Job::Null.image(), "the row's own null job");
        assert!(a.explained.is_none(), "like for like: no gap to explain");
    }

    #[test]
    fn environment_cost_is_per_extra_byte() {
        // 1,080 µs more with the extra environment, in both heap rows → 1 µs per byte.
        let v = per_environment_byte(&[2.080e-3, 1.0e-3, 2.280e-3, 1.2e-3]);
        assert!((v - 1e-6).abs() < 1e-12, "{v}");
    }
}

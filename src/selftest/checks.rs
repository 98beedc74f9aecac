//! The checks, in the order they run. Each prepares registered rows by id (so it measures
//! exactly what `run` measures) or the workload behind them, and states its claim as
//! figures with strict and loose bounds.

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::timing::{self, batch_lasting, doubling, fastest_per_op, seconds, Clock, Doubling};
use super::{Bounds, Check, Env, Figure, Measured};
use crate::bench::proc::create::{Create, Creation};
use crate::bench::Registry;
use crate::harness::contract::{Plan, Skip, StandaloneCtx, Workload};
use crate::harness::{Observer, Session, Strategy};
use crate::model::{LoadOptions, Metric, Mode, Overhead, Placement, Run, RunOptions};

/// Twice the operations take about twice the time.
const DOUBLING: (Bounds, Bounds) = (Bounds::between(1.6, 2.5), Bounds::between(1.3, 3.5));
/// The sampler's own: a spin of twice the length reads twice the figure.
const SPIN_RATIO: (Bounds, Bounds) = (Bounds::between(1.8, 2.2), Bounds::between(1.5, 2.7));
/// A 50 µs spin reads 50 µs (a spin cannot be shorter than asked; longer is interference).
const SPIN_US: (Bounds, Bounds) = (Bounds::between(49.0, 60.0), Bounds::between(49.0, 100.0));
/// (t(3r) − t(r)) / (t(2r) − t(r)) for the compute kernel: 2, whatever its fixed cost.
const DIFFERENCES: (Bounds, Bounds) = (Bounds::between(1.5, 2.7), Bounds::between(1.3, 3.2));
/// A bigger job or parent costs no less (Linux maps the job's data instead of copying it,
/// so the difference is small: only an inversion beyond the noise fails).
const NO_LESS: (Bounds, Bounds) = (Bounds::above(0.85), Bounds::above(0.7));
/// A round trip through a child costs more than a message to yourself (about 4× here).
const ROUND_TRIP: (Bounds, Bounds) = (Bounds::above(1.5), Bounds::above(1.1));
/// Fork copies the page tables of a 64 MB heap.
const HEAP: (Bounds, Bounds) = (Bounds::above(1.3), Bounds::above(1.1));
/// vfork shares the memory instead: cheaper than fork, heap or not.
const CHEAPER: (Bounds, Bounds) = (Bounds::below(1.0), Bounds::below(1.0));
/// Name translation: 16 components against 1, 8 against 1, a symbolic link against the
/// same two components without it.
const NAMEI_16: (Bounds, Bounds) = (Bounds::above(1.3), Bounds::above(1.15));
const NAMEI_8: (Bounds, Bounds) = (Bounds::above(1.1), Bounds::above(1.0));
const SYMLINK: (Bounds, Bounds) = (Bounds::above(1.05), Bounds::above(1.0));
/// Copies up to the number of CPUs run side by side; twice as many take twice as long.
const SIDE_BY_SIDE: (Bounds, Bounds) = (Bounds::below(1.25), Bounds::below(1.5));
/// A load row's driver takes under 1% of its children's CPU time (in %): the same bound
/// on a busy machine, since other processes' time is neither the driver's nor its
/// children's.
const DRIVER_SHARE: (Bounds, Bounds) = (Bounds::below(1.0), Bounds::below(1.0));
const SHARED: (Bounds, Bounds) = (Bounds::between(1.5, 2.5), Bounds::between(1.3, 3.0));

/// Every bound pair above, for the test that loose ones are never narrower.
#[cfg(test)]
pub const BOUNDS: &[(Bounds, Bounds)] = &[
    DOUBLING,
    SPIN_RATIO,
    SPIN_US,
    DIFFERENCES,
    NO_LESS,
    ROUND_TRIP,
    HEAP,
    CHEAPER,
    NAMEI_16,
    NAMEI_8,
    SYMLINK,
    SIDE_BY_SIDE,
    SHARED,
    DRIVER_SHARE,
    super::aa::FALSE_CHANGES,
    super::aa::FOUND,
];

fn figure(name: impl Into<String>, value: f64, (strict, loose): (Bounds, Bounds)) -> Figure {
    Figure::ratio(name, value, strict, loose)
}

fn doubled(what: &str, d: Doubling) -> Figure {
    figure(format!("{what}: t(2n) / t(n)"), d.ratio(), DOUBLING).with_basis(d.basis())
}

pub fn all() -> Vec<Check> {
    vec![
        Check {
            id: "load.cpu.shape",
            claim: "copies up to the number of CPUs run side by side; twice as many take \
                    twice as long (needs the machine otherwise idle)",
            pinned: false,
            measure: load_cpu_shape,
        },
        Check {
            id: "harness.spin",
            claim: "the sampler reads a 50 µs operation as 50 µs, and one twice as long as \
                    twice that",
            pinned: true,
            measure: spin,
        },
        Check {
            id: "signal.doubling",
            claim: "twice the signals take about twice the time",
            pinned: true,
            measure: |env| {
                doubling_of(
                    &[("signal.self", 5_000), ("signal.pingpong", 500)],
                    Placement::Same,
                    env,
                )
            },
        },
        Check {
            id: "message.doubling",
            claim: "twice the pipe and datagram messages take about twice the time",
            pinned: true,
            measure: |env| {
                doubling_of(
                    &[
                        ("pipe.self.4", 5_000),
                        ("pipe.back.4", 500),
                        ("udg.self.4", 3_000),
                        ("udg.back.4", 500),
                    ],
                    Placement::Same,
                    env,
                )
            },
        },
        Check {
            id: "message.round_trip",
            claim: "a round trip through a child costs more than a message to yourself",
            pinned: true,
            measure: round_trip,
        },
        Check {
            id: "pipe.bw.doubling",
            claim: "twice the transfers take about twice the time (kt9, kt11, piper)",
            pinned: true,
            measure: |env| {
                doubling_of(
                    &[("pipe.bw.self", 1), ("pipe.bw.both", 1), ("pipe.piper", 4)],
                    Placement::Same,
                    env,
                )
            },
        },
        Check {
            id: "proc.doubling",
            claim: "twice the forks, vforks and execs of the null job take about twice the \
                    time",
            pinned: true,
            measure: proc_doubling,
        },
        Check {
            id: "proc.fork.heap",
            claim: "fork copies the page tables of what the parent touched; vfork shares them",
            pinned: true,
            measure: fork_heap,
        },
        Check {
            id: "proc.bigger",
            claim: "a bigger parent forks, and a bigger job execs, at no less cost (001 Table 2)",
            pinned: true,
            measure: bigger,
        },
        Check {
            id: "io.doubling",
            claim: "twice the cached block reads take about twice the time",
            pinned: true,
            measure: |env| doubling_of(&[("io.disk.seqread.cached", 4_000)], Placement::Free, env),
        },
        Check {
            id: "fs.namei",
            claim: "name translation grows with the path, and a symbolic link costs more \
                    (002 §3.2.2)",
            pinned: true,
            measure: namei,
        },
        Check {
            id: "load.kernel.doubling",
            claim: "the compute program of Table 9 takes time in proportion to its rounds",
            pinned: true,
            measure: kernel_doubling,
        },
        Check {
            id: "load.driver",
            claim: "a load row's driver (timeshare itself) uses under 1% of the CPU time \
                    of the children it starts and accounts, in every kind of load row",
            pinned: false,
            measure: load_driver,
        },
        Check {
            id: "noise.aa",
            claim: "the same build measured twice, alternating (syscall, 20 processes each), \
                    calls at most 5% of ids changed; a 10% slowdown injected into one id is \
                    found",
            pinned: false,
            measure: super::aa::aa,
        },
        Check {
            id: "cpu.doubling",
            claim: "twice the operations take about twice the time, for every cpu kernel",
            pinned: true,
            measure: cpu_doubling,
        },
    ]
}

/// A registered row prepared in a scratch directory of its own; the workload goes before
/// the directory.
struct Row {
    w: Box<dyn Workload>,
    _ctx: StandaloneCtx,
}

fn row(id: &str, placement: Placement, mode: Mode) -> Result<Row> {
    let reg = Registry::with_defaults();
    let b = reg
        .find(id)
        .with_context(|| format!("no registered benchmark {id}"))?;
    let ctx = StandaloneCtx::new(RunOptions {
        mode,
        placement,
        ..RunOptions::default()
    })?;
    if let Err(skip) = b.supported(&ctx.host) {
        return Err(super::CannotCheck(format!("{id} cannot run here: {}", skip.0)).into());
    }
    let w = match b.prepare(&ctx.ctx()) {
        Ok(w) => w,
        Err(e) => match e.downcast_ref::<Skip>() {
            Some(skip) => {
                return Err(super::CannotCheck(format!("{id} cannot run here: {}", skip.0)).into())
            }
            None => return Err(e.context(format!("preparing {id}"))),
        },
    };
    Ok(Row { w, _ctx: ctx })
}

/// Twice the operations for each row: the measuring thread's CPU time of run(2n) over
/// run(n).
fn doubling_of(rows: &[(&str, u64)], placement: Placement, env: &Env) -> Result<Measured> {
    let mut figures = Vec::new();
    for &(id, n) in rows {
        let mut r = row(id, placement, env.mode)?;
        let d = doubling(r.w.as_mut(), n, Clock::Thread, env.repeats)?;
        figures.push(doubled(id, d));
    }
    Ok(Measured::Figures(figures))
}

/// The spin is on the wall clock, as the sampler's samples are: a preempted spin ends as
/// soon as it runs again, so it can only read long, and the fastest sample is the one to
/// compare.
fn spin(env: &Env) -> Result<Measured> {
    struct Spin(Duration);
    impl Workload for Spin {
        fn run(&mut self, n: u64) -> Result<()> {
            for _ in 0..n {
                let start = Instant::now();
                while start.elapsed() < self.0 {}
            }
            Ok(())
        }
    }
    let plan = Plan::fixed(20, env.repeats);
    let fastest = |us: u64| -> Result<f64> {
        let m = crate::harness::sampler::measure(
            &mut Spin(Duration::from_micros(us)),
            &plan,
            &Metric::latency(),
            &Overhead::none(),
        )?;
        Ok(m.samples
            .iter()
            .map(|s| s.value)
            .fold(f64::INFINITY, f64::min))
    };
    let (mut one, mut two) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..3 {
        one = one.min(fastest(50)?);
        two = two.min(fastest(100)?);
    }
    Ok(Measured::Figures(vec![
        Figure {
            unit: " µs",
            ..figure("a 50 µs operation", one * 1e6, SPIN_US)
        },
        figure("100 µs / 50 µs", two / one, SPIN_RATIO).with_basis(format!(
            "{} and {}",
            seconds(one),
            seconds(two)
        )),
    ]))
}

fn round_trip(env: &Env) -> Result<Measured> {
    let mut figures = Vec::new();
    for transport in ["pipe", "udg"] {
        let (back, own) = (format!("{transport}.back.4"), format!("{transport}.self.4"));
        let mut b = row(&back, Placement::Free, env.mode)?;
        let mut s = row(&own, Placement::Free, env.mode)?;
        let t = fastest_per_op(
            &mut [b.w.as_mut(), s.w.as_mut()],
            1_000,
            Clock::Wall,
            env.repeats,
        )?;
        figures.push(
            figure(format!("{back} / {own}"), t[0] / t[1], ROUND_TRIP).with_basis(format!(
                "{} and {} per message",
                seconds(t[0]),
                seconds(t[1])
            )),
        );
    }
    Ok(Measured::Figures(figures))
}

fn proc_doubling(env: &Env) -> Result<Measured> {
    // Fork and vfork do their copying in the parent, which the thread's CPU time sees;
    // an exec's work is the child's, so it is timed on the wall clock (pinned, the child
    // runs on the same CPU).
    let mut figures = Vec::new();
    for (id, n, clock) in [
        ("proc.fork.0", 10, Clock::Thread),
        ("proc.vfork.0", 20, Clock::Thread),
        ("proc.exec.null.0", 10, Clock::Wall),
    ] {
        let mut r = row(id, Placement::Free, env.mode)?;
        let d = doubling(r.w.as_mut(), n, clock, env.repeats)?;
        figures.push(doubled(id, d));
    }
    Ok(Measured::Figures(figures))
}

/// The parent's fastest CPU time for one creation, over `tries`.
fn creation_cpu_s(how: Create, heap: usize, tries: usize) -> Result<f64> {
    let mut w = Creation::new(how, None, heap)?;
    let mut best = f64::INFINITY;
    for _ in 0..tries {
        best = best.min(timing::time(&mut w, 1, Clock::Thread)?);
    }
    Ok(best)
}

fn fork_heap(env: &Env) -> Result<Measured> {
    // One at a time: the big heap must not exist while a small fork is timed.
    const BIG: usize = 64 << 20;
    let (mut s, mut b, mut vs, mut vb) =
        (f64::INFINITY, f64::INFINITY, f64::INFINITY, f64::INFINITY);
    for _ in 0..3 {
        s = s.min(creation_cpu_s(Create::Fork, 0, env.repeats)?);
        b = b.min(creation_cpu_s(Create::Fork, BIG, env.repeats)?);
        vs = vs.min(creation_cpu_s(Create::Vfork, 0, env.repeats)?);
        vb = vb.min(creation_cpu_s(Create::Vfork, BIG, env.repeats)?);
    }
    Ok(Measured::Figures(vec![
        figure("fork with 64 MB more heap / fork", b / s, HEAP).with_basis(format!(
            "{} and {} of the parent's CPU",
            seconds(b),
            seconds(s)
        )),
        figure("vfork / fork, with 64 MB more heap", vb / b, CHEAPER).with_basis(format!(
            "{} and {}",
            seconds(vb),
            seconds(b)
        )),
        figure("vfork / fork", vs / s, CHEAPER).with_basis(format!(
            "{} and {}",
            seconds(vs),
            seconds(s)
        )),
    ]))
}

fn bigger(env: &Env) -> Result<Measured> {
    // Each row made anew in every round and alone while timed: a 100 KB heap kept beside
    // proc.fork.0 would be copied by its forks too.
    let pairs = [
        ("proc.fork.100k", "proc.fork.0"),
        ("proc.exec.big.0", "proc.exec.null.0"),
    ];
    let mut best = [[f64::INFINITY; 2]; 2];
    for _ in 0..3 {
        for (pair, ids) in pairs.iter().enumerate() {
            for (k, id) in [ids.0, ids.1].into_iter().enumerate() {
                let mut r = row(id, Placement::Free, env.mode)?;
                let t = fastest_per_op(&mut [r.w.as_mut()], 10, Clock::Wall, env.repeats)?;
                best[pair][k] = best[pair][k].min(t[0]);
            }
        }
    }
    Ok(Measured::Figures(
        pairs
            .iter()
            .zip(best)
            .map(|((big, small), [b, s])| {
                figure(format!("{big} / {small}"), b / s, NO_LESS).with_basis(format!(
                    "{} and {}",
                    seconds(b),
                    seconds(s)
                ))
            })
            .collect(),
    ))
}

fn namei(env: &Env) -> Result<Measured> {
    let ids = [
        "fs.namei.1",
        "fs.namei.8",
        "fs.namei.16",
        "fs.namei.2",
        "fs.namei.symlink",
    ];
    let mut rows = ids
        .iter()
        .map(|id| row(id, Placement::Free, env.mode))
        .collect::<Result<Vec<_>>>()?;
    let mut ws: Vec<&mut dyn Workload> = rows
        .iter_mut()
        .map(|r| r.w.as_mut() as &mut dyn Workload)
        .collect();
    let t = fastest_per_op(&mut ws, 1_000, Clock::Thread, env.repeats)?;
    let pair = |what: &str, a: usize, b: usize, bounds| {
        figure(what, t[a] / t[b], bounds).with_basis(format!(
            "{} and {}",
            seconds(t[a]),
            seconds(t[b])
        ))
    };
    Ok(Measured::Figures(vec![
        pair("fs.namei.16 / fs.namei.1", 2, 0, NAMEI_16),
        pair("fs.namei.8 / fs.namei.1", 1, 0, NAMEI_8),
        pair("fs.namei.symlink / fs.namei.2", 4, 3, SYMLINK),
    ]))
}

fn kernel_doubling(env: &Env) -> Result<Measured> {
    use crate::bench::load::kernel::compute;
    // Each call also maps and first-touches the footprint, a fixed cost: with
    // t(r) = a + b·r, (t(3r) − t(r)) / (t(2r) − t(r)) = 2 whatever a is.
    let r = 2_000;
    let mut t = [f64::INFINITY; 3];
    for _ in 0..env.repeats.min(9) {
        for (k, rounds) in [r, 2 * r, 3 * r].into_iter().enumerate() {
            let t0 = timing::thread_cpu_s();
            compute(1 << 20, rounds).context("cannot map the compute program's memory")?;
            t[k] = t[k].min(timing::thread_cpu_s() - t0);
        }
    }
    Ok(Measured::Figures(vec![figure(
        "(t(3r) − t(r)) / (t(2r) − t(r))",
        (t[2] - t[0]) / (t[1] - t[0]),
        DIFFERENCES,
    )
    .with_basis(format!(
        "r = {r}: {}, {}, {}",
        seconds(t[0]),
        seconds(t[1]),
        seconds(t[2])
    ))]))
}

fn cpu_doubling(env: &Env) -> Result<Measured> {
    let ctx = StandaloneCtx::new(RunOptions {
        mode: env.mode,
        ..RunOptions::default()
    })?;
    let mut figures = Vec::new();
    for b in crate::bench::cpu::all() {
        let mut w = b
            .prepare(&ctx.ctx())
            .with_context(|| format!("preparing {}", b.id()))?;
        // A batch of at least 0.2 ms (a whole game for the chess row): short enough to
        // fit in one scheduler time slice on a loaded machine.
        let mut n = batch_lasting(w.as_mut(), 200e-6, Clock::Thread)?;
        let whole_job = n == 1 && timing::time(w.as_mut(), 1, Clock::Thread)? > 0.05;
        let repeats = if whole_job { 3 } else { env.repeats };
        let mut d = doubling(w.as_mut(), n, Clock::Thread, repeats)?;
        if !DOUBLING.0.contains(d.ratio()) && !whole_job {
            // Once more with batches 8 times longer, so that anything constant per call (a
            // timer interrupt, a frequency step) weighs less.
            n *= 8;
            d = doubling(w.as_mut(), n, Clock::Thread, repeats)?;
        }
        figures.push(doubled(b.id(), d));
    }
    Ok(Measured::Figures(figures))
}

struct Silent;
impl Observer for Silent {}

/// The rows `ids` run through the runner as `run` runs them, with `options`, in a scratch
/// directory of their own.
fn run_rows(options: RunOptions, ids: &[impl AsRef<str>]) -> Result<Run> {
    let reg = Registry::new(&options);
    let benches = ids
        .iter()
        .map(|id| {
            let id = id.as_ref();
            reg.find(id).with_context(|| format!("no {id}"))
        })
        .collect::<Result<Vec<_>>>()?;
    let scratch = tempfile::Builder::new().prefix("timeshare-").tempdir()?;
    let session = Session::new(options, scratch.path(), Strategy::OneProcess)?;
    Ok(session.run(&benches, &[], None, &mut Silent)?.run)
}

/// One row of each kind of load run through the runner as `run` runs it, with its
/// driver's share of its children's CPU time as recorded in its details.
fn load_driver(env: &Env) -> Result<Measured> {
    use crate::model::details::load::{CpuCopies, DriverCpu, IoInterference, Scripts};
    let options = RunOptions {
        mode: env.mode,
        load: LoadOptions {
            copies: vec![2],
            users: vec![2],
            readers: vec![1],
            ..LoadOptions::default()
        },
        ..RunOptions::default()
    };
    let ids = ["load.cpu.2", "load.script.2", "load.iointerference.1"];
    let run = run_rows(options, &ids)?;
    let mut figures = Vec::new();
    for id in ids {
        let r = run
            .results
            .iter()
            .find(|r| r.id == id)
            .with_context(|| format!("{id} did not run"))?;
        let details = r
            .details
            .as_ref()
            .with_context(|| format!("{id}: no details ({:?})", r.status))?;
        let driver: Option<DriverCpu> = match id.split('.').nth(1) {
            Some("cpu") => details.read::<CpuCopies>().and_then(|d| d.driver),
            Some("script") => details.read::<Scripts>().and_then(|d| d.driver),
            _ => details.read::<IoInterference>().and_then(|d| d.driver),
        };
        let d = driver.with_context(|| format!("{id}: no driver CPU in its details"))?;
        let share = d.share.unwrap_or(f64::INFINITY);
        figures.push(Figure {
            unit: "%",
            ..figure(
                format!("{id}: driver CPU, % of its children's"),
                share * 100.0,
                DRIVER_SHARE,
            )
            .with_basis(d.describe())
        });
    }
    Ok(Measured::Figures(figures))
}

fn load_cpu_shape(env: &Env) -> Result<Measured> {
    let cpus = crate::harness::cpu::usable_cpus().len();
    let busy = crate::harness::sysinfo::busy_processes();
    if !busy.is_empty() {
        return Ok(Measured::Skipped(format!(
            "other processes are running ({}): this claim holds only on an idle machine",
            busy.join(", ")
        )));
    }
    let copies = if cpus > 1 {
        vec![1, cpus, 2 * cpus]
    } else {
        vec![1, 2]
    };
    let options = RunOptions {
        mode: env.mode,
        load: LoadOptions {
            copies: copies.clone(),
            footprint_mib: Some(1),
            ..LoadOptions::default()
        },
        ..RunOptions::default()
    };
    let ids: Vec<String> = copies.iter().map(|c| format!("load.cpu.{c}")).collect();
    let run = run_rows(options, &ids)?;
    let mut batch = Vec::new();
    for id in &ids {
        let r = run
            .results
            .iter()
            .find(|r| &r.id == id)
            .with_context(|| format!("{id} did not run"))?;
        match r.median() {
            Some(m) => batch.push(m),
            None => bail!("{id}: {:?}", r.status),
        }
    }
    let busy = crate::harness::sysinfo::busy_processes();
    if !busy.is_empty() {
        return Ok(Measured::Skipped(format!(
            "other processes started running ({}): this claim holds only on an idle machine",
            busy.join(", ")
        )));
    }
    let mut figures = Vec::new();
    if cpus > 1 {
        figures.push(
            figure(
                format!("{cpus} copies / 1"),
                batch[1] / batch[0],
                SIDE_BY_SIDE,
            )
            .with_basis(format!("{} and {}", seconds(batch[1]), seconds(batch[0]))),
        );
    }
    let last = batch.len() - 1;
    figures.push(
        figure(
            format!("{} copies / 1", copies[last]),
            batch[last] / batch[0],
            SHARED,
        )
        .with_basis(format!(
            "{} and {}",
            seconds(batch[last]),
            seconds(batch[0])
        )),
    );
    Ok(Measured::Figures(figures))
}

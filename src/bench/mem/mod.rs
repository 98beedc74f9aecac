//! `mem` (catalogue §4, beside `cpu.cache`): memory bandwidth by buffer size, as lmbench's
//! `bw_mem` measures it: read (`rd`), write (`wr`), copy (`cp`) and zero (`bzero`) passes
//! over a buffer, with one thread (`mem.rd`) and with one thread per usable CPU, each over
//! a buffer of its own (`mem.rd.all_cpus`). Bytes per second.
//!
//! # Timing model
//! What a pass is: see [`passes`]. `prepare` sweeps buffer sizes first, timing each size
//! with the thread(s) doing enough passes for ~1 ms (quick) or ~5 ms (full) and keeping
//! the best and the median of several timings (3 quick, 11 full): in full mode every
//! power of two from 4 KiB to 8 × the last cache level (at least the headline size); in
//! quick mode only half of each data cache level's size, which is enough to see each
//! level's plateau (the row's details say which), and the headline size's point is taken
//! from the headline's own samples rather than timed twice. The headline is then sampled by
//! the harness: one operation is one pass over a 128 MiB buffer per thread (four times
//! the 32 MiB last-level cache of the machine it was written on, so main memory; a
//! fixed size so the figure compares across machines), bytes per second of all threads.
//! With several threads every thread waits at a barrier, then passes; the time is from
//! the earliest start to the latest end.

use std::sync::Barrier;
use std::time::Instant;

use anyhow::{bail, Result};

use crate::harness::anchor::{Anchor, Parse};
use crate::harness::contract::{Benchmark, Ctx, Plan, Workload};
use crate::harness::{cpu, interrupt, interrupt::Interrupted, sysinfo};
use crate::model::details::cache::NamedCache;
use crate::model::details::mem::{BandPoint, MemSweep};
use crate::model::{Details, Metric, Mode, Source};

pub mod passes;

use passes::Op;

/// The headline buffer per thread: 128 MiB.
pub const HEADLINE: usize = 128 << 20;
const SMALLEST: u64 = 4 << 10;

const OPS: [Op; 4] = [Op::Rd, Op::Wr, Op::Cp, Op::Bzero];

pub fn all() -> Vec<Benchmark> {
    let cpus = cpu::usable_cpus().len().max(1);
    let mut rows: Vec<Benchmark> = OPS.iter().map(|&op| row(op, false, 1)).collect();
    rows.extend(OPS.iter().map(|&op| row(op, true, cpus)));
    rows
}

/// The row of `op` with one thread, or (`all_cpus`) with `threads`, one per usable CPU.
fn row(op: Op, all_cpus: bool, threads: usize) -> Benchmark {
    let one = !all_cpus;
    let id = if one {
        format!("mem.{}", op.name())
    } else {
        format!("mem.{}.all_cpus", op.name())
    };
    let about = match (op, one) {
        (Op::Rd, true) => {
            "read a buffer, one 32-bit load per 16 bytes, by size; 128 MiB headline (bw_mem rd)"
        }
        (Op::Wr, true) => {
            "write a buffer, one 32-bit store per 16 bytes, by size; 128 MiB headline (bw_mem wr)"
        }
        (Op::Cp, true) => {
            "copy a buffer to another, one word per 16 bytes, by size; 128 MiB headline (bw_mem cp)"
        }
        (Op::Bzero, true) => "zero a buffer with memset, by size; 128 MiB headline (bw_mem bzero)",
        (Op::Rd, false) => {
            "mem.rd on every usable CPU at once, a buffer each; bytes/s of all (bw_mem -P)"
        }
        (Op::Wr, false) => {
            "mem.wr on every usable CPU at once, a buffer each; bytes/s of all (bw_mem -P)"
        }
        (Op::Cp, false) => {
            "mem.cp on every usable CPU at once, a buffer each; bytes/s of all (bw_mem -P)"
        }
        (Op::Bzero, false) => {
            "mem.bzero on every usable CPU at once, a buffer each; bytes/s of all (bw_mem -P)"
        }
    };
    let basis = match op {
        Op::Rd => "byte read (one 32-bit load per 16 bytes counts all 16)",
        Op::Wr => "byte written (one 32-bit store per 16 bytes counts all 16)",
        Op::Cp => "byte copied (one word per 16 bytes counts all 16)",
        Op::Bzero => "byte zeroed",
    };
    Benchmark::new(
        id,
        about,
        Source::Modern("memory bandwidth by size, what lmbench's bw_mem measures"),
        move |c| prepare(c, op, threads),
    )
    .with_metric(Metric::throughput((HEADLINE * threads) as u64))
    .with_plan(headline_plan)
    .per(basis)
    .anchor(anchor(op, all_cpus))
}

/// The headline's samples: one pass each (a pass over 128 MiB takes 10–50 ms).
fn headline_plan(mode: Mode) -> Plan {
    match mode {
        Mode::Quick => Plan::fixed(1, 5),
        Mode::Full => Plan::fixed(1, 21),
    }
}

/// `bw_mem [-P {cpus}] -N 5 128m OP`: its MB/s (10^6 bytes) of all its processes
/// (`{cpus}` is the number of usable CPUs, put in by the crosscheck).
fn anchor(op: Op, all_cpus: bool) -> Anchor {
    let (tool, args): (&'static str, &'static [&'static str]) = match (op, all_cpus) {
        (Op::Rd, false) => ("lmbench bw_mem rd", &["-N", "5", "128m", "rd"]),
        (Op::Wr, false) => ("lmbench bw_mem wr", &["-N", "5", "128m", "wr"]),
        (Op::Cp, false) => ("lmbench bw_mem cp", &["-N", "5", "128m", "cp"]),
        (Op::Bzero, false) => ("lmbench bw_mem bzero", &["-N", "5", "128m", "bzero"]),
        (Op::Rd, true) => (
            "lmbench bw_mem -P rd",
            &["-P", "{cpus}", "-N", "5", "128m", "rd"],
        ),
        (Op::Wr, true) => (
            "lmbench bw_mem -P wr",
            &["-P", "{cpus}", "-N", "5", "128m", "wr"],
        ),
        (Op::Cp, true) => (
            "lmbench bw_mem -P cp",
            &["-P", "{cpus}", "-N", "5", "128m", "cp"],
        ),
        (Op::Bzero, true) => (
            "lmbench bw_mem -P bzero",
            &["-P", "{cpus}", "-N", "5", "128m", "bzero"],
        ),
    };
    Anchor::lmbench(
        tool,
        "bw_mem",
        args,
        Parse::LmbenchMegabytesPerSecond,
        "per byte of the 128 MiB buffer(s), every byte counted as bw_mem counts it",
    )
}

/// One thread's buffers: the source and, for a copy, the destination.
struct Buffers {
    src: Vec<u32>,
    dst: Vec<u32>,
}

impl Buffers {
    /// Buffers of `bytes`, every page written (so no pass pays first-touch faults).
    fn new(op: Op, bytes: usize) -> Buffers {
        let words = bytes / 4;
        let src: Vec<u32> = (0..words as u32).collect();
        let dst = if op.needs_destination() {
            vec![1u32; words]
        } else {
            Vec::new()
        };
        Buffers { src, dst }
    }

    /// `passes` passes over the first `bytes` of the buffers.
    fn passes(&mut self, op: Op, bytes: usize, passes: u64) {
        let words = bytes / 4;
        let dst_words = if self.dst.is_empty() { 0 } else { words };
        for _ in 0..passes {
            passes::pass(op, &mut self.src[..words], &mut self.dst[..dst_words]);
        }
    }
}

/// Every thread's buffers, passed over together.
struct Team {
    op: Op,
    buffers: Vec<Buffers>,
    /// The bytes per thread the last pass went over (what `check` can check).
    last_bytes: usize,
}

impl Team {
    fn new(op: Op, threads: usize, bytes: usize) -> Team {
        let buffers = if threads == 1 {
            vec![Buffers::new(op, bytes)]
        } else {
            // Each thread writes its own buffer first, so its pages are local to it.
            std::thread::scope(|s| {
                let hs: Vec<_> = (0..threads)
                    .map(|_| s.spawn(move || Buffers::new(op, bytes)))
                    .collect();
                hs.into_iter().map(|h| h.join().unwrap()).collect()
            })
        };
        Team {
            op,
            buffers,
            last_bytes: 0,
        }
    }

    /// Seconds for every thread to make `n` passes over `bytes` of its buffers: from the
    /// earliest start to the latest end.
    fn time(&mut self, bytes: usize, n: u64) -> f64 {
        let op = self.op;
        self.last_bytes = bytes;
        if self.buffers.len() == 1 {
            let t0 = Instant::now();
            self.buffers[0].passes(op, bytes, n);
            return t0.elapsed().as_secs_f64();
        }
        let barrier = Barrier::new(self.buffers.len());
        let spans: Vec<(Instant, Instant)> = std::thread::scope(|s| {
            let hs: Vec<_> = self
                .buffers
                .iter_mut()
                .map(|b| {
                    let barrier = &barrier;
                    s.spawn(move || {
                        barrier.wait();
                        let t0 = Instant::now();
                        b.passes(op, bytes, n);
                        (t0, Instant::now())
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let start = spans.iter().map(|s| s.0).min().unwrap();
        let end = spans.iter().map(|s| s.1).max().unwrap();
        (end - start).as_secs_f64()
    }

    fn check(&self) -> Result<()> {
        let words = self.last_bytes / 4;
        for b in &self.buffers {
            let dst = &b.dst[..words.min(b.dst.len())];
            if let Err(e) = passes::check(self.op, &b.src[..words], dst) {
                bail!(e);
            }
        }
        Ok(())
    }
}

/// The largest size the full sweep goes to: 1 GiB per thread.
const FULL_TOP: u64 = 1 << 30;

/// The sizes to sweep: in full mode every power of two from 4 KiB to 8 × the last cache
/// (at least the headline, at most 1 GiB); in quick mode half of each cache level below
/// the headline (whose point the headline's own samples give).
pub fn sweep_sizes(mode: Mode, caches: &[u64], headline: u64) -> Vec<u64> {
    let mut sizes: Vec<u64> = match mode {
        Mode::Quick => caches
            .iter()
            .map(|c| (c / 2).max(SMALLEST).next_power_of_two())
            .filter(|&s| s < headline)
            .collect(),
        Mode::Full => {
            let top = (8 * caches.iter().copied().max().unwrap_or(0))
                .next_power_of_two()
                .clamp(headline, FULL_TOP.max(headline));
            std::iter::successors(Some(SMALLEST), |s| Some(s * 2))
                .take_while(|&s| s <= top)
                .collect()
        }
    };
    if mode == Mode::Full {
        sizes.push(headline);
    }
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

fn prepare(ctx: &Ctx, op: Op, threads: usize) -> Result<Box<dyn Workload>> {
    let caches: Vec<NamedCache> = crate::bench::cache::steps::data_caches(&sysinfo::caches())
        .into_iter()
        .map(|(name, bytes)| NamedCache { name, bytes })
        .collect();
    let cache_bytes: Vec<u64> = caches.iter().map(|c| c.bytes).collect();
    let sizes = sweep_sizes(ctx.mode, &cache_bytes, HEADLINE as u64);
    let largest = sizes
        .last()
        .map_or(HEADLINE, |&s| (s as usize).max(HEADLINE));
    let (target, repeats) = match ctx.mode {
        Mode::Quick => (1e-3, 3),
        Mode::Full => (5e-3, 11),
    };
    let mut team = Team::new(op, threads, largest);
    let mut points = Vec::new();
    for &bytes in &sizes {
        if interrupt::requested() {
            return Err(Interrupted.into());
        }
        points.push(time_size(&mut team, bytes as usize, target, repeats));
    }
    team.check()?;
    let sampled = match ctx.mode {
        Mode::Quick => {
            "quick mode: half of each cache level's size, 3 timings each, and the headline \
             size from the headline's samples"
        }
        Mode::Full => "every power of two from 4 KiB to 8 × the last cache level",
    };
    let details = MemSweep {
        op: op.name().into(),
        loop_desc: op.loop_desc().into(),
        threads,
        sizes: points,
        caches,
        headline_bytes: HEADLINE as u64,
        sampled: sampled.into(),
        repeats,
    };
    Ok(Box::new(Headline {
        team,
        notes: notes_of(&details),
        details: Some(details),
        timings: Vec::new(),
    }))
}

/// Bytes per second of the team at `bytes` per thread: passes enough for `target`
/// seconds, `repeats` times; the best and the median.
fn time_size(team: &mut Team, bytes: usize, target: f64, repeats: usize) -> BandPoint {
    // One untimed pass warms the caches and tells how many passes fill the target.
    let once = team.time(bytes, 1).max(1e-7);
    let n = ((target / once).ceil() as u64).clamp(1, 1 << 20);
    let total = (bytes * team.buffers.len()) as f64 * n as f64;
    let mut bps: Vec<f64> = (0..repeats)
        .map(|_| total / team.time(bytes, n).max(1e-9))
        .collect();
    bps.sort_by(f64::total_cmp);
    BandPoint {
        bytes: bytes as u64,
        best_bps: bps[bps.len() - 1],
        median_bps: bps[bps.len() / 2],
    }
}

/// The sampled part: passes over the headline size.
struct Headline {
    team: Team,
    details: Option<MemSweep>,
    notes: Vec<String>,
    /// Bytes per second of every batch of passes the harness asked for, the warm-up first.
    timings: Vec<f64>,
}

impl Workload for Headline {
    fn run(&mut self, n: u64) -> Result<()> {
        let s = self.team.time(HEADLINE, n);
        let bytes = (HEADLINE * self.team.buffers.len()) as f64 * n as f64;
        self.timings.push(bytes / s.max(1e-9));
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        self.team.check()
    }

    fn details(&mut self) -> Option<Details> {
        let mut d = self.details.take()?;
        // The first batch is the harness's warm-up, on cold caches and page tables.
        let warm = self.timings.get(1..).unwrap_or(&[]);
        with_headline_point(&mut d, warm);
        Some(Details::of(&d))
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }
}

/// The headline size's point from the headline's own batches when the sweep did not time
/// that size (quick mode): their best and median.
fn with_headline_point(d: &mut MemSweep, timings: &[f64]) {
    if timings.is_empty() || d.sizes.iter().any(|p| p.bytes == d.headline_bytes) {
        return;
    }
    let mut bps = timings.to_vec();
    bps.sort_by(f64::total_cmp);
    d.sizes.push(BandPoint {
        bytes: d.headline_bytes,
        best_bps: bps[bps.len() - 1],
        median_bps: bps[bps.len() / 2],
    });
    d.sizes.sort_by_key(|p| p.bytes);
}

/// The row's notes: the loop, and the best figure at each size below the headline.
fn notes_of(d: &MemSweep) -> Vec<String> {
    let levels: Vec<String> = d
        .sizes
        .iter()
        .filter(|p| p.bytes < d.headline_bytes)
        .map(|p| {
            format!(
                "{} {}",
                crate::model::unit::human(p.bytes),
                crate::model::unit::format_rate(p.best_bps)
            )
        })
        .collect();
    let mut notes = vec![format!("loop: {}", d.loop_desc)];
    if !levels.is_empty() {
        notes.push(format!(
            "best by size ({}): {}",
            d.sampled,
            levels.join(", ")
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_mode_samples_one_size_per_cache_level_below_the_headline() {
        let caches = [32 << 10, 512 << 10, 32 << 20];
        assert_eq!(
            sweep_sizes(Mode::Quick, &caches, 128 << 20),
            vec![16 << 10, 256 << 10, 16 << 20]
        );
        // A cache level larger than the headline is swept to 8 times its size in full
        // mode, and left out of quick mode.
        let big = [48 << 10, 2 << 20, 260 << 20];
        let quick = sweep_sizes(Mode::Quick, &big, 128 << 20);
        assert_eq!(quick.last(), Some(&(1 << 20)));
        let full = sweep_sizes(Mode::Full, &big, 128 << 20);
        assert_eq!(full.first(), Some(&(4 << 10)));
        assert_eq!(full.last(), Some(&(1 << 30)), "capped at 1 GiB");
        let here = sweep_sizes(Mode::Full, &caches, 128 << 20);
        assert_eq!(here.last(), Some(&(256 << 20)), "8 × 32 MiB");
        assert!(full.windows(2).all(|w| w[1] == 2 * w[0]));
    }

    #[test]
    fn a_sweep_without_caches_still_has_the_headline() {
        assert!(sweep_sizes(Mode::Quick, &[], 1 << 20).is_empty());
        let full = sweep_sizes(Mode::Full, &[], 1 << 20);
        assert_eq!((full[0], *full.last().unwrap()), (4 << 10, 1 << 20));
    }

    #[test]
    fn the_team_moves_the_bytes_it_counts() {
        let mut t = Team::new(Op::Cp, 2, 64 << 10);
        let p = time_size(&mut t, 16 << 10, 1e-4, 3);
        assert!(p.best_bps >= p.median_bps && p.median_bps > 0.0);
        t.check().unwrap();
    }

    #[test]
    fn quick_mode_takes_the_headline_point_from_the_headline_s_own_batches() {
        let mut d = MemSweep {
            op: "rd".into(),
            loop_desc: String::new(),
            threads: 1,
            sizes: vec![BandPoint {
                bytes: 16 << 10,
                best_bps: 5e10,
                median_bps: 4e10,
            }],
            caches: Vec::new(),
            headline_bytes: 128 << 20,
            sampled: String::new(),
            repeats: 3,
        };
        with_headline_point(&mut d, &[1e10, 3e10, 2e10]);
        let last = d.sizes.last().unwrap();
        assert_eq!(
            (last.bytes, last.best_bps, last.median_bps),
            (128 << 20, 3e10, 2e10)
        );
        // Timed by the sweep already (full mode): left as it is.
        let before = d.sizes.clone();
        with_headline_point(&mut d, &[9e10]);
        assert_eq!(d.sizes, before);
    }

    #[test]
    fn each_row_names_its_anchor_with_its_threads() {
        let rows = all();
        let rd = rows.iter().find(|b| b.id() == "mem.rd").unwrap();
        assert_eq!(rd.anchors()[0].command_line(), "bw_mem -N 5 128m rd");
        let par = rows.iter().find(|b| b.id() == "mem.cp.all_cpus").unwrap();
        assert_eq!(
            par.anchors()[0].command_line(),
            "bw_mem -P {cpus} -N 5 128m cp"
        );
    }
}

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
//!
//! The buffers are made and written in full once per process and passed from one `mem`
//! row to the next in it ([`Pool`]); the last `mem` row of the process frees them.

use std::sync::Barrier;
use std::time::Instant;

use anyhow::{bail, Result};

use crate::harness::anchor::{Anchor, Parse};
use crate::harness::contract::{Benchmark, Ctx, Plan, Workload};
use crate::harness::state::{Shared, Upcoming};
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

/// The family's section of `docs/benchmarks.md`.
#[linkme::distributed_slice(crate::model::catalogue::SECTIONS)]
fn section() -> crate::model::catalogue::Section {
    crate::model::catalogue::Section {
        order: 130,
        family: "mem",
        heading: "`mem` — memory bandwidth",
        seeds:
            "Beyond the seeds: read, write, copy and zero by buffer size across the cache levels, \
            one thread and one per CPU (lmbench's bw_mem).",
    }
}

/// The family's place in the catalogue: registered here, gathered by
/// [`crate::bench::Registry`].
#[linkme::distributed_slice(crate::bench::FAMILIES)]
fn family() -> crate::bench::Family {
    crate::bench::Family::rows("mem", 100, |_| all())
}

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

/// A buffer of 32-bit words that a fork does not copy (`MADV_DONTFORK` on its whole
/// pages, undone before it is freed): the buffers live on between the `mem` rows of a
/// process ([`Pool`]), and the rows measured between them — `proc.fork`'s forks of this
/// process, the `load` rows' copies — must not pay for copying their page tables.
struct Words(Vec<u32>);

impl Words {
    /// `words` words, every page written (so no pass pays first-touch faults). An
    /// allocation refused (`ulimit -v`) is an error naming the limit, not an abort that
    /// takes the whole process and its run with it.
    fn new(words: usize, fill: impl Fn(u32) -> u32) -> Result<Words> {
        let mut v = Vec::new();
        if v.try_reserve_exact(words).is_err() {
            let limit = crate::harness::procgroup::limit_hit(&std::io::Error::from_raw_os_error(
                libc::ENOMEM,
            ))
            .unwrap_or_default();
            bail!(
                "cannot allocate a {} MiB buffer: the address-space limit was reached ({limit})",
                (words * 4) >> 20
            );
        }
        v.extend((0..words as u32).map(fill));
        let w = Words(v);
        w.advise(libc::MADV_DONTFORK);
        Ok(w)
    }

    /// `advice` on the whole pages inside the buffer (none for a small one).
    fn advise(&self, advice: libc::c_int) {
        let page = 4096usize;
        let start = self.0.as_ptr() as usize;
        let end = start + std::mem::size_of_val(&self.0[..]);
        let (lo, hi) = (start.next_multiple_of(page), end / page * page);
        if hi > lo {
            // SAFETY: whole pages inside this buffer's own allocation; the advice changes
            // what a fork inherits, not the memory.
            unsafe { libc::madvise(lo as *mut libc::c_void, hi - lo, advice) };
        }
    }
}

/// Whether `bytes` of new buffers fit under the cgroup's memory limit, all of a row's
/// threads' together (asked once, before any is made: the cgroup charges a buffer only as
/// its pages are written, so threads asking one by one would each see room for theirs);
/// if not, an error naming the limit (the row fails, the run goes on), where the kernel's
/// OOM killer would end the whole process and its run. Besides the buffers the process
/// needs room of its own to go on (its other allocations, a multi-process run's parent in
/// the same group): 32 MiB.
fn check_cgroup_room(bytes: u64) -> Result<()> {
    const SPARE: u64 = 32 << 20;
    if let Some((max, used)) = crate::harness::limits::cgroup_memory() {
        if used + bytes + SPARE > max {
            bail!(
                "cannot allocate {} MiB of buffers: it would pass the cgroup's memory \
                 limit (memory.max = {} MiB, {} MiB in use besides the page cache), where \
                 the kernel's OOM killer would end the process",
                bytes >> 20,
                max >> 20,
                used >> 20
            );
        }
    }
    Ok(())
}

impl Drop for Words {
    fn drop(&mut self) {
        // The allocator may hand these pages out again: a fork must copy them then.
        self.advise(libc::MADV_DOFORK);
    }
}

/// Buffers that one `mem` row of a process leaves for the next (kept in the run's state):
/// making and touching 128 MiB takes 50–100 ms here, and eight rows in each of a quick
/// run's three processes made 45 of them (2 threads, a copy's two buffers). Every buffer
/// was written in full when made, in this process, so a row that takes one pays no
/// first-touch faults, as with a new one; what it holds is what the last pass left, which
/// no pass reads for its figure (a read's sum is discarded, the check looks at what the
/// row's own last pass wrote). Emptied when no `mem` row follows in the process.
#[derive(Default)]
pub struct Pool {
    spare: Vec<Words>,
}

impl Pool {
    /// A kept buffer of exactly `words` words, if there is one.
    fn take(&mut self, words: usize) -> Option<Words> {
        let i = self.spare.iter().position(|w| w.0.len() == words)?;
        Some(self.spare.swap_remove(i))
    }
}

/// One thread's buffers: the source and, for a copy, the destination.
struct Buffers {
    src: Words,
    dst: Words,
}

impl Buffers {
    /// Buffers of `bytes`, from `kept` (the pool's) where it has them, the others made
    /// and every page written.
    fn new(op: Op, bytes: usize, kept: (Option<Words>, Option<Words>)) -> Result<Buffers> {
        let words = bytes / 4;
        let src = match kept.0 {
            Some(w) => w,
            None => Words::new(words, |i| i)?,
        };
        let dst = match (op.needs_destination(), kept.1) {
            (false, _) => Words(Vec::new()),
            (true, Some(w)) => w,
            (true, None) => Words::new(words, |_| 1)?,
        };
        Ok(Buffers { src, dst })
    }

    /// `passes` passes over the first `bytes` of the buffers.
    fn passes(&mut self, op: Op, bytes: usize, passes: u64) {
        let words = bytes / 4;
        let dst_words = if self.dst.0.is_empty() { 0 } else { words };
        for _ in 0..passes {
            passes::pass(op, &mut self.src.0[..words], &mut self.dst.0[..dst_words]);
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
    /// Buffers of `bytes` for `threads` threads, taken from `pool` where it has them.
    fn new(op: Op, threads: usize, bytes: usize, pool: &mut Pool) -> Result<Team> {
        let words = bytes / 4;
        let kept: Vec<(Option<Words>, Option<Words>)> = (0..threads)
            .map(|_| {
                let src = pool.take(words);
                let dst = op.needs_destination().then(|| pool.take(words)).flatten();
                (src, dst)
            })
            .collect();
        let new_buffers = kept
            .iter()
            .map(|(src, dst)| {
                usize::from(src.is_none()) + usize::from(op.needs_destination() && dst.is_none())
            })
            .sum::<usize>();
        check_cgroup_room((new_buffers * bytes) as u64)?;
        let buffers: Result<Vec<Buffers>> = if threads == 1 {
            kept.into_iter()
                .map(|k| Buffers::new(op, bytes, k))
                .collect()
        } else {
            // Each thread writes the buffers it makes itself, so their pages are local to
            // it (a kept buffer was written by one of an earlier row's threads).
            std::thread::scope(|s| {
                let hs: Vec<_> = kept
                    .into_iter()
                    .map(|k| s.spawn(move || Buffers::new(op, bytes, k)))
                    .collect();
                hs.into_iter().map(|h| h.join().unwrap()).collect()
            })
        };
        Ok(Team {
            op,
            buffers: buffers?,
            last_bytes: 0,
        })
    }

    /// Give the buffers back to `pool` for the next row.
    fn keep_in(self, pool: &mut Pool) {
        for b in self.buffers {
            pool.spare.push(b.src);
            if !b.dst.0.is_empty() {
                pool.spare.push(b.dst);
            }
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
            let dst = &b.dst.0[..words.min(b.dst.0.len())];
            if let Err(e) = passes::check(self.op, &b.src.0[..words], dst) {
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
    let pool = ctx.state.get::<Pool>();
    let keep = ctx
        .state
        .get::<Upcoming>()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .any_starts_with("mem.");
    let mut team = {
        let mut pool = pool.lock().unwrap_or_else(|p| p.into_inner());
        let team = Team::new(op, threads, largest, &mut pool);
        if !keep {
            // The last `mem` row of this process: what it does not use goes now.
            pool.spare.clear();
        }
        team
    }?;
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
        team: Some(team),
        pool,
        keep,
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
    /// `None` once given back to the pool.
    team: Option<Team>,
    /// The process's kept buffers, and whether a `mem` row follows in this process to
    /// take them (if not, the pool is emptied when the row is done).
    pool: Shared<Pool>,
    keep: bool,
    details: Option<MemSweep>,
    notes: Vec<String>,
    /// Bytes per second of every batch of passes the harness asked for, the warm-up first.
    timings: Vec<f64>,
}

impl Workload for Headline {
    fn run(&mut self, n: u64) -> Result<()> {
        let team = self
            .team
            .as_mut()
            .expect("the team until the row is dropped");
        let s = team.time(HEADLINE, n);
        let bytes = (HEADLINE * team.buffers.len()) as f64 * n as f64;
        self.timings.push(bytes / s.max(1e-9));
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        self.team
            .as_ref()
            .expect("the team until the row is dropped")
            .check()
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

impl Drop for Headline {
    fn drop(&mut self) {
        let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        match self.team.take() {
            Some(team) if self.keep => team.keep_in(&mut pool),
            _ => pool.spare.clear(),
        }
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
        let mut t = Team::new(Op::Cp, 2, 64 << 10, &mut Pool::default()).unwrap();
        let p = time_size(&mut t, 16 << 10, 1e-4, 3);
        assert!(p.best_bps >= p.median_bps && p.median_bps > 0.0);
        t.check().unwrap();
    }

    #[test]
    fn a_kept_buffer_of_the_size_is_taken_and_the_team_still_checks() {
        let words = (64 << 10) / 4;
        let mut pool = Pool::default();
        pool.spare.push(Words::new(words / 2, |_| 7).unwrap());
        pool.spare.push(Words::new(words, |_| 7).unwrap());
        let kept = pool.spare[1].0.as_ptr();
        let mut t = Team::new(Op::Cp, 1, 64 << 10, &mut pool).unwrap();
        assert_eq!(
            t.buffers[0].src.0.as_ptr(),
            kept,
            "the kept buffer of that size"
        );
        assert_ne!(t.buffers[0].dst.0.as_ptr(), kept);
        assert_eq!(t.buffers[0].dst.0.len(), words, "the missing one made");
        assert!(
            t.buffers[0].dst.0.iter().all(|&w| w == 1),
            "a made buffer is written in full"
        );
        assert_eq!(pool.spare.len(), 1, "the other size left in the pool");
        // What the kept buffer held (7s) is overwritten by the pass the check looks at.
        t.time(64 << 10, 1);
        t.check().unwrap();
        t.keep_in(&mut pool);
        assert_eq!(pool.spare.len(), 3, "source and destination given back");
    }

    /// The flags of the mapping holding `addr` in /proc/self/smaps ("dc": not copied on
    /// fork).
    fn vm_flags_at(addr: usize) -> String {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((lo, hi)) = range.split_once('-') {
                    if let (Ok(lo), Ok(hi)) =
                        (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                    {
                        inside = (lo..hi).contains(&addr);
                        continue;
                    }
                }
            }
            if inside {
                if let Some(flags) = line.strip_prefix("VmFlags:") {
                    return flags.trim().to_string();
                }
            }
        }
        panic!("no mapping holds {addr:#x}")
    }

    #[test]
    fn a_buffer_is_not_copied_by_a_fork_until_it_is_given_back() {
        let w = Words::new(4 << 20, |i| i).unwrap();
        let middle = w.0.as_ptr() as usize + (8 << 20);
        let flags = vm_flags_at(middle);
        assert!(flags.split(' ').any(|f| f == "dc"), "{flags}");
        w.advise(libc::MADV_DOFORK);
        let flags = vm_flags_at(middle);
        assert!(!flags.split(' ').any(|f| f == "dc"), "{flags}");
    }

    #[test]
    fn the_last_mem_row_of_a_process_empties_the_pool() {
        for keep in [true, false] {
            let pool: Shared<Pool> = Default::default();
            pool.lock()
                .unwrap()
                .spare
                .push(Words::new(1024, |i| i).unwrap());
            let team = Team::new(Op::Rd, 2, 8 << 10, &mut pool.lock().unwrap()).unwrap();
            let row = Headline {
                team: Some(team),
                pool: pool.clone(),
                keep,
                details: None,
                notes: Vec::new(),
                timings: Vec::new(),
            };
            drop(row);
            let left = pool.lock().unwrap().spare.len();
            assert_eq!(left, if keep { 3 } else { 0 }, "keep: {keep}");
        }
    }

    #[test]
    fn a_row_keeps_its_buffers_only_when_a_mem_row_follows() {
        let c = crate::harness::contract::StandaloneCtx::new(Default::default()).unwrap();
        *c.state.get::<Upcoming>().lock().unwrap() =
            Upcoming(vec!["proc.fork.0".into(), "mem.wr".into()]);
        let w = prepare(&c.ctx(), Op::Rd, 1).unwrap();
        drop(w);
        let pool = c.state.get::<Pool>();
        assert_eq!(pool.lock().unwrap().spare.len(), 1);
        assert_eq!(pool.lock().unwrap().spare[0].0.len(), HEADLINE / 4);
        *c.state.get::<Upcoming>().lock().unwrap() = Upcoming(vec!["proc.fork.0".into()]);
        let w = prepare(&c.ctx(), Op::Wr, 1).unwrap();
        assert!(pool.lock().unwrap().spare.is_empty(), "taken");
        drop(w);
        assert!(
            pool.lock().unwrap().spare.is_empty(),
            "the last mem row: freed"
        );
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

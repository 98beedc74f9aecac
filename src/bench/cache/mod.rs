//! `cpu.cache` (catalogue §4): the memory hierarchy seen through random dependent reads,
//! after seed 000 Table 4 (Bell Labs timed random reads from an array on the 11/70 to see
//! its cache). Its id makes `run cpu` select it; it lives apart from `bench/cpu/`.
//!
//! The array is a pointer chase: the first word of each 64-byte line holds the *address*
//! of the next line to read, in a random cyclic permutation (Sattolo's shuffle) of the
//! array's lines, so every read is one dependent load of the address the previous one
//! returned — nothing else on the critical path (an index into the array would add an
//! address computation to every step, one cycle: 25% at L1) — and no prefetcher can guess
//! it: the time per read is the load latency of wherever the line lives (lmbench's
//! lat_mem_rd idea, our code). The seed's program read at independent random indices,
//! whose loads a modern out-of-order core would overlap; the dependent chain keeps one
//! read in flight, as on the 11/70. `timeshare crosscheck cpu.cache` sets it beside the
//! same chase written in C ([`CHASE_C`]) at five sizes.
//!
//! Each size is named by the cache sysfs says holds it ([`steps`]), so the names are the
//! same in every run.
//!
//! # Timing model
//! `prepare` sweeps sizes from 4 KiB doubling to well past the last cache level (8 × its
//! size, rounded up to a power of two, at least 64 MiB; at most 512 MiB in quick mode,
//! 4 GiB in full, or `--cache-max`; never over a quarter of the available memory), timing
//! a fixed number of reads per size several times; the per-size figures (median and
//! minimum of the repeats, in ns per read) and the levels named in them are the row's
//! `details`. The headline is then sampled by the harness as usual: one operation is one
//! dependent read at the largest size, i.e. main-memory latency. No loop overhead is
//! subtracted: a dependent load's latency hides the loop's own instructions.
//!
//! The page size and whether the array got transparent huge pages (the kernel's THP mode
//! and the array's `AnonHugePages` in /proc/self/smaps) are recorded: past the TLB's
//! reach, 4 KiB pages add a page walk to most reads, which huge pages avoid, and that is
//! most of what separates two chases at large sizes.

use std::hint::black_box;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};

use crate::harness::anchor::{Anchor, BuiltFromC, RowFigure};
use crate::harness::contract::{Benchmark, Ctx, Plan, Workload};
use crate::harness::{interrupt, interrupt::Interrupted, sysinfo};
use crate::model::details::cache::{CacheSweep, NamedCache, Paging, SizePoint};
use crate::model::{Details, Mode, Source};

pub mod options;
pub mod steps;

/// Bytes per chain element: one cache line, so no two reads share a line.
const LINE: usize = 64;
/// Up to this many lines (64 MiB) a size is warmed by a whole turn of its cycle; past it
/// by `reads` loads (a whole turn of 256 MiB is 4 Mi misses, about a second, and every
/// load there misses every cache anyway). The C chase uses the same bound.
pub const WARM_LINES: usize = 1 << 20;
const SLOTS: usize = LINE / std::mem::size_of::<usize>();
const SMALLEST: u64 = 4 << 10;

/// The family's place in the catalogue: registered here, gathered by
/// [`crate::bench::Registry`].
#[linkme::distributed_slice(crate::bench::FAMILIES)]
fn family() -> crate::bench::Family {
    crate::bench::Family {
        options: Some(&options::OPTIONS),
        ..crate::bench::Family::rows("cache", 90, |_| all())
    }
}

pub fn all() -> Vec<Benchmark> {
    vec![benchmark()]
}

pub fn benchmark() -> Benchmark {
    Benchmark::new(
        "cpu.cache",
        "random dependent reads swept from 4 KiB past the last cache; ns per read per size",
        Source::seed("000", "Table 4, cache random reads"),
        prepare,
    )
    .with_plan(|mode| {
        let mut plan = Plan::calibrated(mode);
        plan.subtract_loop = false;
        plan
    })
    // Measured in each of a quick run's three processes, the curve took 1.7 s in each
    // (5.1 s in all): every process paid the set-up of every size's shuffled cycle again.
    .measured_in_one_process(
        "the row sweeps sizes from 4 KiB past the last cache, each sampled on its own",
    )
    .anchor(chase_anchor("C pointer chase at 16K", &CHASE_ARGS[0]))
    .anchor(chase_anchor("C pointer chase at 256K", &CHASE_ARGS[1]))
    .anchor(chase_anchor("C pointer chase at 4M", &CHASE_ARGS[2]))
    .anchor(chase_anchor("C pointer chase at 64M", &CHASE_ARGS[3]))
    .anchor(chase_anchor("C pointer chase at 256M", &CHASE_ARGS[4]))
}

/// The same pointer chase in a few lines of C: the crosscheck builds it with the system's
/// compiler and runs it beside the row at five sizes (one per level of a common machine:
/// L1, L2, L3, memory within and past the TLB's reach). It does the row's work the row's
/// way: one zeroed array swept from 4 KiB doubling up to the size, the same cycle line for
/// line ([`cycle_order`]), the same warm-up ([`WARM_LINES`]), the same timings and the
/// same statistic; it prints the cycle's hash ([`cycle_hash`]) so a test can hold the two
/// layouts equal.
pub const CHASE_C: BuiltFromC = BuiltFromC {
    name: "timeshare-chase",
    source: include_str!("chase.c"),
};

/// The C chase's arguments per size: bytes, then the quick sweep's reads, repeats and
/// least milliseconds of timings ([`sweep_plan`]; a test holds them equal).
const CHASE_ARGS: [[&str; 4]; 5] = [
    ["16384", "20000", "15", "100"],
    ["262144", "20000", "15", "100"],
    ["4194304", "20000", "15", "100"],
    ["67108864", "20000", "15", "100"],
    ["268435456", "20000", "15", "100"],
];

fn chase_anchor(tool: &'static str, args: &'static [&'static str; 4]) -> Anchor {
    let bytes: u64 = args[0].parse().expect("a size in bytes");
    Anchor::built_from_c(
        tool,
        CHASE_C,
        args,
        "pointer chase",
        "ns per dependent load at one size of the row's own sweep (one zeroed array linked \
         from 4 KiB doubling up, the row's cycle line for line, a whole turn of it first up \
         to 64 MiB and 20,000 loads past that), the minimum of the timings of 20,000 loads \
         taken for 100 ms and at least 15 of them",
    )
    .against(RowFigure::SweepMinimumAt { bytes })
    .tolerance(
        0.05,
        "the same loop of dependent loads on both sides: any gap is the code, not the method",
    )
}

fn prepare(ctx: &Ctx) -> Result<Box<dyn Workload>> {
    let caches = steps::data_caches(&sysinfo::caches());
    let largest_cache = caches.iter().map(|c| c.1).max();
    let max = match ctx.options.cache_max {
        Some(asked) => fit_in_memory(asked.max(SMALLEST), available_memory()),
        None => largest_size(ctx.mode, largest_cache, available_memory()),
    };
    let SweepPlan {
        reads,
        repeats,
        least,
    } = sweep_plan(ctx.mode);
    let mut chain = Chain::new(max as usize);
    let mut sweep = Vec::new();
    let mut size = SMALLEST;
    while size <= max {
        if interrupt::requested() {
            return Err(Interrupted.into());
        }
        chain.link(size as usize);
        sweep.push(chain.time_size(reads, repeats, least)?);
        size *= 2;
    }
    let paging = chain.paging();
    let points: Vec<(u64, f64)> = sweep.iter().map(|p| (p.bytes, p.min_ns)).collect();
    let (plateaus, steps) = steps::find(&points, &caches);
    let details = CacheSweep {
        line_bytes: LINE,
        reads_per_size: reads,
        repeats,
        least_ms_per_size: Some(least.as_millis() as u64),
        sizes: sweep,
        plateaus,
        steps,
        caches: caches
            .iter()
            .map(|(name, bytes)| NamedCache {
                name: name.clone(),
                bytes: *bytes,
            })
            .collect(),
        headline_bytes: max,
        detected_on: "the minimum of the repeats per size (least disturbed by other load), \
                      each size named by the cache sysfs says holds it"
            .into(),
        paging: Some(paging),
    };
    Ok(Box::new(Headline {
        at: chain.start(),
        chain,
        notes: notes_of(&details),
        details: Some(details),
    }))
}

/// How each size is timed: many short timings rather than a few long ones, since on a
/// shared machine the minimum of short ones finds the quiet moments (the levels' figures
/// are taken from it). The crosscheck's C chase is run with the same.
pub struct SweepPlan {
    /// Dependent reads per timing.
    pub reads: u64,
    /// Timings per size, at least.
    pub repeats: usize,
    /// Time spent timing each size, at least: on a VM another tenant's work on the
    /// sibling hyperthread or in the shared L3 slows the chase for tens of milliseconds
    /// at a stretch, so 15 timings in one millisecond can all fall inside one such
    /// stretch. Measured at rest, 10 processes each of the C chase at 256 KiB: 15
    /// timings gave 3.72–8.38 ns, three of ten past 4.3; 1,500 timings (110 ms)
    /// 3.72–4.35 ns, eight of ten within 3.80.
    pub least: Duration,
}

pub fn sweep_plan(mode: Mode) -> SweepPlan {
    match mode {
        Mode::Quick => SweepPlan {
            reads: 20_000,
            repeats: 15,
            least: Duration::from_millis(100),
        },
        Mode::Full => SweepPlan {
            reads: 50_000,
            repeats: 41,
            least: Duration::from_millis(300),
        },
    }
}

/// The largest array: 8 × the last cache level rounded up to a power of two (at least
/// 64 MiB), capped by the mode and by a quarter of the available memory.
pub fn largest_size(mode: Mode, largest_cache: Option<u64>, available: u64) -> u64 {
    let want = (8 * largest_cache.unwrap_or(32 << 20)).next_power_of_two();
    let cap = match mode {
        Mode::Quick => 512 << 20,
        Mode::Full => 4 << 30,
    };
    fit_in_memory(want.clamp(64 << 20, cap), available)
}

/// `bytes` rounded down to a power of two, halved until it is at most a quarter of the
/// available memory.
pub fn fit_in_memory(bytes: u64, available: u64) -> u64 {
    let mut max = if bytes.is_power_of_two() {
        bytes
    } else {
        bytes.next_power_of_two() / 2
    };
    while max > SMALLEST && max > available / 4 {
        max /= 2;
    }
    max
}

/// The kernel's transparent-huge-page mode: the bracketed word of
/// /sys/kernel/mm/transparent_hugepage/enabled (`always [madvise] never` → `madvise`).
pub fn thp_mode(enabled: &str) -> Option<String> {
    let start = enabled.find('[')? + 1;
    let end = start + enabled[start..].find(']')?;
    Some(enabled[start..end].to_string())
}

/// The AnonHugePages (bytes) of the mapping of /proc/self/smaps that holds `addr`.
pub fn anon_huge_bytes(smaps: &str, addr: usize) -> Option<u64> {
    let mut inside = false;
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if let Some((lo, hi)) = first.split_once('-') {
            if let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
            {
                inside = (lo..hi).contains(&addr);
                continue;
            }
        }
        if inside {
            if let Some(v) = line.strip_prefix("AnonHugePages:") {
                let kib: u64 = v.split_whitespace().next()?.parse().ok()?;
                return Some(kib * 1024);
            }
        }
    }
    None
}

fn available_memory() -> u64 {
    crate::harness::meminfo::available_bytes().unwrap_or(u64::MAX)
}

/// An array of lines linked into one random cycle of pointers over its first `lines`
/// lines: the first word of each line holds the address of the next line's.
struct Chain {
    slots: Vec<usize>,
    lines: usize,
}

impl Chain {
    fn new(bytes: usize) -> Chain {
        Chain {
            slots: vec![0; bytes / std::mem::size_of::<usize>()],
            lines: 0,
        }
    }

    /// The address of line 0, where every chase starts.
    fn start(&self) -> usize {
        self.slots.as_ptr() as usize
    }

    /// The line an address in the chain points at.
    fn line_of(&self, addr: usize) -> usize {
        (addr - self.start()) / LINE
    }

    /// Link the first `bytes` of the array into one random cycle ([`cycle_order`]).
    fn link(&mut self, bytes: usize) {
        let lines = bytes / LINE;
        let order = cycle_order(lines);
        let start = self.start();
        for k in 0..lines {
            let next = order[(k + 1) % lines] as usize;
            self.slots[order[k] as usize * SLOTS] = start + next * LINE;
        }
        self.lines = lines;
    }

    /// [`cycle_hash`] of the linked cycle as the chase follows it: the line numbers
    /// visited from line 0, read from the pointers themselves (the tests hold it to the C
    /// chase's; the row never walks a large chain just to hash it).
    #[cfg(test)]
    fn walked_hash(&self) -> u64 {
        let mut at = self.start();
        let lines = (0..self.lines).map(|_| {
            let line = self.line_of(at);
            at = self.slots[line * SLOTS];
            line as u32
        });
        cycle_hash(lines)
    }

    /// The page size, the kernel's THP mode and how much of the array huge pages hold.
    fn paging(&self) -> Paging {
        // An address in the middle of the array names its mapping in smaps.
        let addr = self.slots.as_ptr().wrapping_add(self.slots.len() / 2) as usize;
        Paging {
            page_bytes: sysinfo::page_size(),
            thp_mode: std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
                .ok()
                .and_then(|s| thp_mode(&s)),
            array_bytes: (self.slots.len() * std::mem::size_of::<usize>()) as u64,
            huge_page_bytes: std::fs::read_to_string("/proc/self/smaps")
                .ok()
                .and_then(|s| anon_huge_bytes(&s, addr)),
        }
    }

    /// Follow the chain `n` steps from the address `at`; the address it ended at. Each
    /// step is one load whose address is the value the previous load returned.
    #[inline(never)]
    fn chase(&self, mut at: usize, n: u64) -> usize {
        debug_assert!(self.line_of(at) < self.lines);
        for _ in 0..n {
            // SAFETY: `at` is the start of a line of `slots` that `link` linked: every
            // address stored in the linked lines is the start of another linked line,
            // and `slots` is borrowed (not moved or freed) for the whole chase.
            at = unsafe { *(at as *const usize) };
        }
        black_box(at)
    }

    /// Walk the whole chain once, checking every address is a linked line and the walk
    /// returns to the start after exactly `lines` steps and not before (the warm-up for
    /// sizes up to 64 MiB).
    fn walk_checked(&self) -> Result<()> {
        let start = self.start();
        let end = start + self.lines * LINE;
        let mut at = start;
        for step in 1..=self.lines {
            // A plain indexed read: a corrupt link is caught here, never followed.
            at = self.slots[(at - start) / std::mem::size_of::<usize>()];
            if !(start..end).contains(&at) || !(at - start).is_multiple_of(LINE) {
                bail!(
                    "the pointer chain over {} lines leaves its lines at step {step}",
                    self.lines
                );
            }
            if at == start && step != self.lines {
                bail!(
                    "the pointer chain over {} lines closes after {step}",
                    self.lines
                );
            }
        }
        if at != start {
            bail!("the pointer chain over {} lines is not a cycle", self.lines);
        }
        Ok(())
    }

    /// ns per read at the current size: warm (checking the chain where that is cheap),
    /// then timings of `reads` reads, `repeats` of them and for `least` at least. Larger
    /// chains are built by the same code and not walked in full (a 512 MiB chain is 8 M
    /// dependent misses).
    fn time_size(&self, reads: u64, repeats: usize, least: Duration) -> Result<SizePoint> {
        let mut at = self.start();
        if self.lines <= WARM_LINES {
            self.walk_checked()?;
        } else {
            at = self.chase(at, reads);
        }
        let began = Instant::now();
        let mut ns = Vec::with_capacity(repeats);
        while ns.len() < repeats || began.elapsed() < least {
            let t0 = Instant::now();
            at = self.chase(at, reads);
            ns.push(t0.elapsed().as_nanos() as f64 / reads as f64);
        }
        ns.sort_by(f64::total_cmp);
        Ok(SizePoint {
            bytes: (self.lines * LINE) as u64,
            median_ns: ns[ns.len() / 2],
            min_ns: ns[0],
        })
    }
}

/// The order in which a chase of `lines` lines visits them: Sattolo's shuffle (a uniformly
/// random cyclic permutation, so the chase visits every line before repeating) driven by
/// xorshift64 seeded with the line count; line `order[k]` points at line `order[k + 1]`.
/// The C chase carries the same few lines, so both sides chase the same cycle.
pub fn cycle_order(lines: usize) -> Vec<u32> {
    let mut order: Vec<u32> = (0..lines as u32).collect();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15 ^ lines as u64;
    for i in (1..lines).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        order.swap(i, (x % i as u64) as usize);
    }
    order
}

/// FNV-1a over the line numbers of a cycle in the order visited from line 0 (what the C
/// chase prints as "cycle hash").
pub fn cycle_hash(visited: impl IntoIterator<Item = u32>) -> u64 {
    visited.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, line| {
        (h ^ u64::from(line)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The sampled part: dependent reads at the largest size.
struct Headline {
    chain: Chain,
    at: usize,
    details: Option<CacheSweep>,
    notes: Vec<String>,
}

impl Workload for Headline {
    fn run(&mut self, n: u64) -> Result<()> {
        self.at = self.chain.chase(self.at, n);
        Ok(())
    }

    fn details(&mut self) -> Option<Details> {
        self.details.take().map(|d| Details::of(&d))
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }
}

/// The row's notes: the pages behind the array and the plateaus the curve shows.
fn notes_of(d: &CacheSweep) -> Vec<String> {
    let mut notes = vec![format!(
        "each size: one zeroed array linked from 4 KiB doubling up, a random cycle of its \
         64-byte lines (the C chase's, line for line), a whole turn of it first up to \
         64 MiB ({} loads past that), then the minimum of {} timings of {} loads",
        d.reads_per_size, d.repeats, d.reads_per_size
    )];
    if let Some(p) = &d.paging {
        notes.push(p.sentence());
    }
    let levels: Vec<String> = d
        .plateaus
        .iter()
        .map(|p| format!("{} {:.1} ns", p.level, p.ns))
        .collect();
    if !levels.is_empty() {
        notes.push(format!(
            "levels (named by the caches sysfs reports): {}",
            levels.join(", ")
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_is_one_cycle_over_every_line() {
        let mut c = Chain::new(1 << 20);
        c.link(64 << 10);
        c.walk_checked().unwrap();
        let mut seen = vec![false; c.lines];
        let mut at = c.start();
        for _ in 0..c.lines {
            let line = c.line_of(at);
            assert!(!seen[line], "line {line} visited twice");
            seen[line] = true;
            at = c.slots[line * SLOTS];
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(at, c.start());
        // The chase follows the same cycle: a whole turn comes back to the start.
        assert_eq!(c.chase(c.start(), c.lines as u64), c.start());
        assert_ne!(c.chase(c.start(), c.lines as u64 - 1), c.start());
    }

    #[test]
    fn a_broken_chain_is_caught() {
        let mut c = Chain::new(1 << 16);
        c.link(1 << 16);
        let second = c.line_of(c.slots[0]);
        c.slots[second * SLOTS] = c.start(); // a two-line loop
        assert!(c.walk_checked().is_err());
        c.link(1 << 16);
        c.slots[0] = c.start() + 8; // not the start of a line
        assert!(c.walk_checked().is_err());
        c.link(1 << 16);
        c.slots[0] = 0; // outside the array
        assert!(c.walk_checked().is_err());
    }

    /// A size is timed for the plan's least time even when its repeats take less.
    #[test]
    fn a_size_is_timed_for_its_least_time() {
        let mut c = Chain::new(1 << 16);
        c.link(1 << 16);
        let began = Instant::now();
        let point = c.time_size(100, 2, Duration::from_millis(40)).unwrap();
        assert!(began.elapsed() >= Duration::from_millis(40));
        assert!(
            point.min_ns > 0.0 && point.min_ns <= point.median_ns,
            "{point:?}"
        );
    }

    #[test]
    fn the_c_chase_runs_as_the_quick_sweep_does() {
        let plan = sweep_plan(Mode::Quick);
        let anchors = benchmark().anchors().to_vec();
        assert_eq!(anchors.len(), CHASE_ARGS.len());
        for (a, args) in anchors.iter().zip(CHASE_ARGS) {
            let least_ms = plan.least.as_millis().to_string();
            let quick = [plan.reads.to_string(), plan.repeats.to_string(), least_ms];
            assert_eq!(args[1..], quick);
            let bytes: u64 = args[0].parse().unwrap();
            assert!(bytes.is_power_of_two() && bytes >= SMALLEST, "{bytes}");
            assert_eq!(a.row_figure, RowFigure::SweepMinimumAt { bytes });
            assert!(a.built.is_some() && a.tolerance <= 0.05);
        }
        assert!(
            CHASE_C.source.contains("p = *p"),
            "one dependent load per step"
        );
    }

    /// [`cycle_hash`] of [`cycle_order`] as a chase follows it from line 0, without
    /// linking an array (256 MiB of it).
    fn hash_of_order(lines: usize) -> u64 {
        let order = cycle_order(lines);
        let from_zero = order.iter().position(|&l| l == 0).unwrap();
        cycle_hash((0..lines).map(|k| order[(from_zero + k) % lines]))
    }

    /// The hashes the C chase printed for these sizes ("cycle hash" of `timeshare-chase
    /// 65536 …` and `… 268435456 …`): the row's cycle is the C chase's, line for line.
    #[test]
    fn the_row_links_the_c_chase_s_cycle() {
        let mut c = Chain::new(1 << 16);
        c.link(1 << 16);
        assert_eq!(c.walked_hash(), 0x1aca_4192_fabb_b725);
        assert_eq!(hash_of_order(c.lines), c.walked_hash());
        assert_eq!(hash_of_order((256 << 20) / LINE), 0x23ac_936d_72a4_deb5);
        // A different size is a different cycle, not a prefix of the same one.
        c.link(1 << 15);
        assert_ne!(c.walked_hash(), 0x1aca_4192_fabb_b725);
        c.walk_checked().unwrap();
    }

    /// The C chase built here (when a C compiler is at hand) sweeps the row's sizes over
    /// the row's cycle and refuses a size the row never measures.
    #[test]
    fn the_c_chase_built_here_sweeps_the_row_s_layout() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("chase.c");
        let program = dir.path().join(CHASE_C.name);
        std::fs::write(&source, CHASE_C.source).unwrap();
        let built = std::process::Command::new("cc")
            .args(["-O2", "-o"])
            .arg(&program)
            .arg(&source)
            .status();
        if !matches!(built, Ok(s) if s.success()) {
            eprintln!("no C compiler here: the C chase is not checked");
            return;
        }
        let run = |args: &[&str]| std::process::Command::new(&program).args(args).output();
        for bytes in [1usize << 16, 1 << 20] {
            let out = run(&[&bytes.to_string(), "100", "2", "1"]).unwrap();
            assert!(out.status.success());
            let text = String::from_utf8(out.stdout).unwrap();
            let sizes: Vec<usize> = text
                .lines()
                .filter_map(|l| l.strip_prefix("at ")?.split(' ').next()?.parse().ok())
                .collect();
            let want: Vec<usize> = (12..=bytes.trailing_zeros()).map(|b| 1 << b).collect();
            assert_eq!(sizes, want, "{text}");
            let mut c = Chain::new(bytes);
            c.link(bytes);
            let hash = format!("cycle hash: {:016x}", c.walked_hash());
            assert!(text.lines().any(|l| l == hash), "{hash} not in\n{text}");
            let anchor = chase_anchor("C chase", &CHASE_ARGS[0]);
            assert!(anchor.seconds_per_row_op(&text).is_some_and(|s| s > 0.0));
        }
        for bad in [
            &["65000", "100", "2", "1"][..],
            &["2048", "100", "2", "1"],
            &["65536", "0", "2", "1"],
            &["65536", "100", "2"],
        ] {
            let out = run(bad).unwrap();
            assert_eq!(out.status.code(), Some(2), "{bad:?}");
            assert!(out.stdout.is_empty());
            assert_eq!(String::from_utf8(out.stderr).unwrap().lines().count(), 1);
        }
    }

    #[test]
    fn the_sweep_goes_to_eight_times_the_last_cache() {
        let l3 = 260 << 20;
        assert_eq!(largest_size(Mode::Quick, Some(l3), u64::MAX), 512 << 20);
        assert_eq!(largest_size(Mode::Full, Some(l3), u64::MAX), 4 << 30);
        // 8 × 48 MiB = 384 MiB → 512 MiB; 8 × 32 MiB = 256 MiB.
        assert_eq!(
            largest_size(Mode::Quick, Some(48 << 20), u64::MAX),
            512 << 20
        );
        assert_eq!(
            largest_size(Mode::Quick, Some(32 << 20), u64::MAX),
            256 << 20
        );
        assert_eq!(largest_size(Mode::Quick, Some(4 << 20), u64::MAX), 64 << 20);
        assert_eq!(largest_size(Mode::Quick, Some(l3), 1 << 30), 256 << 20);
    }

    #[test]
    fn an_asked_size_is_a_power_of_two_that_fits() {
        assert_eq!(fit_in_memory(1 << 30, u64::MAX), 1 << 30);
        assert_eq!(fit_in_memory(3 << 29, u64::MAX), 1 << 30);
        assert_eq!(fit_in_memory(1 << 30, 1 << 30), 256 << 20);
    }

    #[test]
    fn the_thp_mode_is_the_bracketed_word() {
        assert_eq!(
            thp_mode("always [madvise] never\n").as_deref(),
            Some("madvise")
        );
        assert_eq!(
            thp_mode("[always] madvise never").as_deref(),
            Some("always")
        );
        assert_eq!(thp_mode("always madvise never"), None);
    }

    #[test]
    fn huge_pages_are_read_from_the_mapping_that_holds_the_array() {
        let smaps = "\
55d0a0000000-55d0a0021000 rw-p 00000000 00:00 0                          [heap]
Size:                132 kB
AnonHugePages:         0 kB
7f1200000000-7f1210000000 rw-p 00000000 00:00 0
Size:             262144 kB
AnonHugePages:    260096 kB
VmFlags: rd wr mr mw me ac
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
AnonHugePages:         0 kB
";
        assert_eq!(anon_huge_bytes(smaps, 0x7f1208000000), Some(260096 * 1024));
        assert_eq!(anon_huge_bytes(smaps, 0x55d0a0000100), Some(0));
        assert_eq!(anon_huge_bytes(smaps, 0x1000), None);
    }
}

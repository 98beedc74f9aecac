//! §3 of the catalogue: paging, after seed 001 (Berkeley, 4.1 vs 4.2BSD) Tables 6, 7 and 8
//! and its Appendix A programs `seqpage`, `randpage` and `gausspage`, run as its `run`
//! script ran them: 7,500 pages (`--pages` changes it), `seqpage` 10 passes, `randpage`
//! 30,000 touches, `gausspage -s S` 30,000 steps. Plus `vm.pagefault`, the cost of one
//! fault on a mapped file.
//!
//! Each row is a whole job (see `job.rs` for its timing model) on freshly mapped memory,
//! so that the first-touch faults are counted, and reports what Table 7 reported — real,
//! user and system time and the faults — and Table 8's fault service time.
//!
//! A 7,500-page working set fits in any modern machine, so by default only first-touch
//! (minor) faults happen. With `--memory-limit SIZE` the jobs run in a child inside a
//! memory cgroup smaller than the working set, on a file mapping (there may be no swap),
//! so pages are written back and read again: major faults, as on the seed's 4.5 MB VAX.

use std::fs::File;
use std::io::Write;

use anyhow::{Context, Result};

use crate::harness::memlimit::MemoryCgroup;
use crate::model::details::vm;
use crate::model::{median, Details, Metric, RunOptions, Source};

pub mod job;
pub mod mmap;
pub mod options;
pub mod pagefault;
pub mod pattern;
pub mod region;

use crate::harness::contract::{Benchmark, Ctx, Plan, Workload};
use job::{JobSpec, JobStats};
use pattern::Pattern;
use region::Advice;

/// Seed 001's run script: `seqpage -p 7500`.
pub const DEFAULT_PAGES: u64 = 7_500;

/// The family's section of `docs/benchmarks.md`.
#[linkme::distributed_slice(crate::model::catalogue::SECTIONS)]
fn section() -> crate::model::catalogue::Section {
    crate::model::catalogue::Section {
        order: 70,
        family: "vm",
        heading: "`vm` — paging",
        seeds: "Seed 001 Tables 6–8: `seqpage`, `randpage`, `gausspage`.",
    }
}

/// The family's place in the catalogue: registered here, gathered by
/// [`crate::bench::Registry`].
#[linkme::distributed_slice(crate::bench::FAMILIES)]
fn family() -> crate::bench::Family {
    crate::bench::Family {
        options: Some(&options::OPTIONS),
        ..crate::bench::Family::rows("vm", 80, all)
    }
}

/// The family's rows for a run with `options`: each paging job's figure is per job of the
/// page touches it makes over `--pages` pages.
pub fn all(options: &RunOptions) -> Vec<Benchmark> {
    let pages = pages(options);
    let mut all: Vec<Benchmark> = CASES.iter().map(|c| c.benchmark(pages)).collect();
    all.extend(pagefault::benchmarks());
    all.extend(mmap::benchmarks());
    all
}

/// One paging case of Table 6: an access pattern and the advice given first.
#[derive(Clone, Copy)]
pub struct Case {
    pub id: &'static str,
    pub about: &'static str,
    pub place: &'static str,
    pub pattern: Pattern,
    pub advice: Advice,
}

const SEQ: Pattern = Pattern::Seq { passes: 10 };
const RAND: Pattern = Pattern::Rand { touches: 30_000 };
const fn gauss(sd: f64) -> Pattern {
    Pattern::Gauss { sd, steps: 30_000 }
}

pub const CASES: &[Case] = &[
    Case {
        id: "vm.seqpage",
        about: "touch every page in order, 10 passes (seqpage -p 7500 10)",
        place: "Table 7, seqpage",
        pattern: SEQ,
        advice: Advice::Normal,
    },
    Case {
        id: "vm.seqpage.advise",
        about: "seqpage after madvise(MADV_SEQUENTIAL) (seqpage -v)",
        place: "Table 7, seqpage-v",
        pattern: SEQ,
        advice: Advice::Sequential,
    },
    Case {
        id: "vm.randpage",
        about: "touch a random page 30,000 times (randpage -p 7500 30000)",
        place: "Table 7/8, randpage",
        pattern: RAND,
        advice: Advice::Normal,
    },
    Case {
        id: "vm.randpage.advise",
        about: "randpage after madvise(MADV_RANDOM) (randpage -v)",
        place: "Table 7/8, randpage-v",
        pattern: RAND,
        advice: Advice::Random,
    },
    Case {
        id: "vm.gausspage.1",
        about: "30,000 Gaussian steps, SD 1 page (gausspage -s 1)",
        place: "Table 7, gausspage.1",
        pattern: gauss(1.0),
        advice: Advice::Normal,
    },
    Case {
        id: "vm.gausspage.10",
        about: "30,000 Gaussian steps, SD 10 pages",
        place: "Table 7, gausspage.10",
        pattern: gauss(10.0),
        advice: Advice::Normal,
    },
    Case {
        id: "vm.gausspage.30",
        about: "30,000 Gaussian steps, SD 30 pages",
        place: "Table 7, gausspage.30",
        pattern: gauss(30.0),
        advice: Advice::Normal,
    },
    Case {
        id: "vm.gausspage.40",
        about: "30,000 Gaussian steps, SD 40 pages",
        place: "Table 7, gausspage.40",
        pattern: gauss(40.0),
        advice: Advice::Normal,
    },
    Case {
        id: "vm.gausspage.50",
        about: "30,000 Gaussian steps, SD 50 pages",
        place: "Table 7, gausspage.50",
        pattern: gauss(50.0),
        advice: Advice::Normal,
    },
    Case {
        id: "vm.gausspage.60",
        about: "30,000 Gaussian steps, SD 60 pages",
        place: "Table 7, gausspage.60",
        pattern: gauss(60.0),
        advice: Advice::Normal,
    },
    Case {
        id: "vm.gausspage.80",
        about: "30,000 Gaussian steps, SD 80 pages",
        place: "Table 7, gausspage.80",
        pattern: gauss(80.0),
        advice: Advice::Normal,
    },
    Case {
        id: "vm.gausspage.10000",
        about: "30,000 Gaussian steps, SD 10,000 pages (the seed's gausspage.inf)",
        place: "Table 7/8, gausspage.inf",
        pattern: gauss(10_000.0),
        advice: Advice::Normal,
    },
];

impl Case {
    fn benchmark(self, pages: u64) -> Benchmark {
        Benchmark::new(
            self.id,
            self.about,
            Source::seed("001", self.place),
            move |ctx| self.prepare(ctx),
        )
        .with_metric(Metric::job())
        .with_plan(Plan::job)
        .per_job(self.pattern.touches(pages), "page touch")
    }

    fn prepare(&self, ctx: &Ctx) -> Result<Box<dyn Workload>> {
        let pages = pages(ctx.options);
        let spec = JobSpec {
            pattern: self.pattern,
            advice: self.advice,
            pages,
        };
        let limit = match ctx.options.memory_limit {
            None => Limit::NotAsked,
            Some(_) if in_memory_fs(ctx.scratch) => Limit::Unavailable(format!(
                "the scratch directory {} is on tmpfs, whose pages cannot leave memory \
                 without swap; use --dir on a disk file system",
                ctx.scratch.display()
            )),
            Some(bytes) => match MemoryCgroup::create(bytes) {
                Err(why) => Limit::Unavailable(why),
                Ok(group) => {
                    let file = paging_file(ctx, pages)?;
                    Limit::Applied { group, file }
                }
            },
        };
        Ok(Box::new(Paging {
            spec,
            distinct: pattern::distinct_pages(self.pattern, pages),
            limit,
            jobs: Vec::new(),
        }))
    }
}

/// Whether `dir` is on tmpfs/ramfs, where a file's pages are memory that cannot be
/// written back: under a memory limit without swap the job would be killed, not paged.
fn in_memory_fs(dir: &std::path::Path) -> bool {
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    const RAMFS_MAGIC: i64 = 0x8584_58f6;
    let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    // SAFETY: statfs fills a plain struct for a NUL-terminated path.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: the path is NUL-terminated and the struct is valid to write.
    if unsafe { libc::statfs(path.as_ptr(), &mut st) } != 0 {
        return false;
    }
    matches!(st.f_type as i64, TMPFS_MAGIC | RAMFS_MAGIC)
}

/// `--pages`, or the seed's 7,500.
pub fn pages(options: &RunOptions) -> u64 {
    options.pages.unwrap_or(DEFAULT_PAGES)
}

/// Whether the family runs under a memory limit, and if not, why.
enum Limit {
    NotAsked,
    Unavailable(String),
    Applied { group: MemoryCgroup, file: File },
}

/// A paging row, prepared: the jobs it ran so far, for `details`.
struct Paging {
    spec: JobSpec,
    /// Pages the pattern touches at least once: the first-touch faults to expect.
    distinct: u64,
    limit: Limit,
    jobs: Vec<JobStats>,
}

impl Workload for Paging {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            let stats = match &self.limit {
                Limit::Applied { group, file } => job::run_in_child(&self.spec, file, group)?,
                _ => {
                    let s = job::run_here(&self.spec, None)?;
                    check_first_touches(&s, self.distinct)?;
                    s
                }
            };
            self.jobs.push(stats);
        }
        Ok(())
    }

    fn details(&mut self) -> Option<Details> {
        let med = |f: fn(&JobStats) -> f64| median(&self.jobs.iter().map(f).collect::<Vec<_>>());
        let faults = med(|j| j.faults() as f64);
        let system = med(|j| j.system_s);
        Some(Details::of(&vm::Paging {
            pages: self.spec.pages,
            page_size: region::page_size(),
            pattern: format!("{:?}", self.spec.pattern),
            advice: self.spec.advice.name().to_string(),
            touches: self.jobs.first().map(|j| j.touches),
            distinct_pages: self.distinct,
            real_s: med(|j| j.real_s),
            user_s: med(|j| j.user_s),
            system_s: system,
            minor_faults: med(|j| j.minor_faults as f64),
            major_faults: med(|j| j.major_faults as f64),
            first_pass_minor_faults: matches!(self.spec.pattern, Pattern::Seq { .. })
                .then(|| med(|j| j.first_pass_minor_faults as f64)),
            fault_service_s: (faults > 0.0).then(|| system / faults),
            memory_limit: self.memory_limit(),
            jobs: self.jobs.clone(),
        }))
    }
}

impl Paging {
    fn memory_limit(&self) -> vm::MemoryLimit {
        let not_applied = |why: String| vm::MemoryLimit {
            applied: false,
            why: Some(why),
            bytes: None,
            how: None,
            dir: None,
            memory: None,
        };
        match &self.limit {
            Limit::NotAsked => not_applied(format!(
                "not asked (--memory-limit): {} pages fit in memory, so only first-touch \
                 faults happen",
                self.spec.pages
            )),
            Limit::Unavailable(why) => not_applied(format!(
                "cannot set a memory limit here, ran without: {why}"
            )),
            Limit::Applied { group, .. } => vm::MemoryLimit {
                applied: true,
                why: None,
                bytes: Some(group.limit_bytes),
                how: Some(group.describe()),
                dir: Some(group.dir().display().to_string()),
                memory: Some(
                    "shared mapping of a scratch file, page cache dropped before each job".into(),
                ),
            },
        }
    }
}

/// Fresh anonymous memory must fault once per page first touched; fewer means huge pages
/// or prefaulting hid them, and the row would be a wrong number.
fn check_first_touches(s: &JobStats, distinct: u64) -> Result<()> {
    if (s.faults() as f64) < 0.9 * distinct as f64 {
        anyhow::bail!(
            "the kernel counted {} faults for {distinct} first touches of fresh memory \
             (huge pages or prefaulting?): the fault figures would be wrong",
            s.faults()
        );
    }
    Ok(())
}

/// The file that memory-limit mode maps: `pages` pages of real blocks (not a sparse
/// hole), so that every page evicted is read back from the disk.
fn paging_file(ctx: &Ctx, pages: u64) -> Result<File> {
    let path = ctx.scratch.join("paging");
    let mut f = File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    let chunk = vec![0x5au8; 1 << 20];
    let mut left = pages * region::page_size();
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        f.write_all(&chunk[..n])
            .with_context(|| format!("cannot write {}", path.display()))?;
        left -= n as u64;
    }
    job::drop_cache(&f)?;
    Ok(f)
}

/// "12M", "512K", "1G", "4096" → bytes (binary multiples).
pub use crate::harness::options::parse_size;

/// Check `--pages` and `--memory-limit` together before anything runs (each alone is
/// checked by its declaration in `options.rs`): the working set must fit in this
/// machine's memory and swap, and a limit must be below the working set, else nothing
/// would page.
fn check_options(options: &RunOptions) -> Result<(), String> {
    let pages = pages(options);
    let bytes = pages.saturating_mul(region::page_size());
    let (mem, swap) = memory_and_swap();
    if mem > 0 && bytes > mem + swap {
        return Err(format!(
            "--pages {pages}: {} is more than this machine's {} of memory and swap; \
             choose fewer pages",
            mib(bytes),
            mib(mem + swap)
        ));
    }
    if let Some(limit) = options.memory_limit {
        if limit >= bytes {
            return Err(format!(
                "--memory-limit {}: not below the working set of {pages} pages ({}), so \
                 nothing would page; choose a smaller limit or more --pages",
                mib(limit),
                mib(bytes)
            ));
        }
    }
    Ok(())
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
}

/// MemTotal and SwapTotal in bytes (0 when unreadable).
fn memory_and_swap() -> (u64, u64) {
    use crate::harness::meminfo;
    (meminfo::total_bytes(), meminfo::swap_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tmpfs_is_recognised_as_memory() {
        if std::path::Path::new("/dev/shm").is_dir() {
            assert!(in_memory_fs(std::path::Path::new("/dev/shm")));
        }
        assert!(!in_memory_fs(std::path::Path::new("/proc/self")));
    }

    #[test]
    fn an_allocation_larger_than_the_machine_is_refused() {
        let opts = |pages, limit| RunOptions {
            pages: Some(pages),
            memory_limit: limit,
            ..RunOptions::default()
        };
        assert_eq!(check_options(&opts(7_500, None)), Ok(()));
        let e = check_options(&opts(1 << 40, None)).unwrap_err();
        assert!(e.contains("more than this machine"), "{e}");
        let e = check_options(&opts(7_500, Some(1 << 30))).unwrap_err();
        assert!(e.contains("not below the working set"), "{e}");
        assert_eq!(check_options(&opts(7_500, Some(12 << 20))), Ok(()));
    }

    #[test]
    fn every_table_6_program_is_a_row() {
        let all = all(&RunOptions::default());
        let ids: Vec<_> = all.iter().map(|b| b.id()).collect();
        assert_eq!(ids.len(), 17); // with vm.pagefault, vm.pagefault.page and vm.mmap.{1m,8m,64m}
        for s in [1, 10, 30, 40, 50, 60, 80, 10000] {
            assert!(ids.contains(&format!("vm.gausspage.{s}").as_str()));
        }
    }

    #[test]
    fn each_paging_job_is_per_its_page_touches_over_the_pages_asked() {
        let basis = |pages: Option<u64>, id: &str| {
            let options = RunOptions {
                pages,
                ..RunOptions::default()
            };
            all(&options)
                .into_iter()
                .find(|b| b.id() == id)
                .map(|b| b.metric().basis.clone())
                .unwrap()
        };
        use crate::model::Basis;
        assert_eq!(basis(None, "vm.seqpage"), Basis::job(75_000, "page touch"));
        assert_eq!(
            basis(Some(1_000), "vm.seqpage"),
            Basis::job(10_000, "page touch")
        );
        assert_eq!(
            basis(Some(1_000), "vm.randpage"),
            Basis::job(30_000, "page touch")
        );
        assert_eq!(
            basis(None, "vm.gausspage.40"),
            Basis::job(30_000, "page touch")
        );
    }
}

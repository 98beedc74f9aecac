//! The page cache's reads counted in the kernel: the BPF programs of
//! `bpf/pagecache.bpf.c` on the three filemap tracepoints keep the counting model of
//! `super::caches` in maps — each thread's runs of pages added and not yet read, each
//! file's read-ahead pages not yet asked for as ranges, the counts per file and in all —
//! so that no record per page or read batch crosses to user space; this side reads the
//! maps once, at the end.
//!
//! What the maps bound, and what it costs when they are full, is counted and said with
//! the figures: a thread keeps its last 16 runs of pages added (joined while they follow
//! on; a run older than a second is forgotten, as the record path forgets pages it can
//! no longer claim), a file keeps 8 ranges of pages read ahead and not yet used (a
//! sequential reader needs one), and the 16,384 files last read are counted apart (the
//! totals are kept whatever the files). A file's ranges are changed without a lock: two CPUs changing one file's
//! at the same instant may lose a change.
//!
//! Loading needs CAP_BPF and CAP_PERFMON (root) and a kernel with BPF tracepoint programs
//! and `bpf_loop` (Linux 5.17); where one is missing `KernelCacheCounting::start` says
//! why and the record path is used.

use std::collections::HashMap;

use anyhow::Result;

use super::pages::{File, PageCache, PageCounts};

/// The object clang built from `bpf/pagecache.bpf.c`, when it did (build.rs).
#[cfg(timeshare_bpf)]
const OBJECT: Option<&[u8]> = Some(aya::include_bytes_aligned!(concat!(
    env!("OUT_DIR"),
    "/pagecache.bpf.o"
)));
#[cfg(not(timeshare_bpf))]
const OBJECT: Option<&[u8]> = None;

/// The programs, each with its tracepoint in the `filemap` group.
const PROGRAMS: [(&str, &str); 3] = [
    ("timeshare_page_added", "mm_filemap_add_to_page_cache"),
    (
        "timeshare_page_deleted",
        "mm_filemap_delete_from_page_cache",
    ),
    ("timeshare_pages_read", "mm_filemap_get_pages"),
];

/// The program's `struct config`: where each field is in the tracepoints' records.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct Config {
    add: [u32; 4],
    read: [u32; 4],
}

/// The program's `struct file`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct KFile {
    dev: u32,
    pad: u32,
    ino: u64,
}

/// Ranges of read-ahead pages a file keeps (as `RANGES` in the program).
const RANGES: usize = 8;

/// The program's `struct file_state`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct FileState {
    counts: PageCounts,
    ahead: i64,
    lo: [u64; RANGES],
    hi: [u64; RANGES],
    oldest: u32,
    pad: u32,
}

// SAFETY: plain C structs of integers, laid out as the program's (repr(C)), without
// padding.
unsafe impl aya::Pod for Config {}
// SAFETY: as above.
unsafe impl aya::Pod for KFile {}
// SAFETY: as above.
unsafe impl aya::Pod for PageCounts {}
// SAFETY: as above.
unsafe impl aya::Pod for FileState {}

/// The program's `enum stat`, each with what it costs the figures.
const STATS: [(u32, &str); 3] = [
    (
        0,
        "pages added were forgotten before their thread read (more than 16 runs of pages a \
         thread within a second): not counted missed",
    ),
    (
        1,
        "pages read ahead were forgotten (more than 8 ranges of them in a file): neither used \
         nor evicted",
    ),
    (
        2,
        "reads' files were not counted apart (the map of files was full): in the totals only",
    ),
];

/// Whether this build carries the BPF page-cache counter (clang was there).
pub fn built() -> bool {
    OBJECT.is_some()
}

/// The page cache counted in the kernel; [`KernelCacheCounting::stop`] ends it.
pub struct KernelCacheCounting {
    bpf: aya::Ebpf,
}

impl KernelCacheCounting {
    /// Load and attach the programs, or say why not (not built, not allowed, not
    /// supported).
    /// `folio` and `batch`: where the add/delete records' i_ino, index, s_dev and order
    /// are, and the read batches' i_ino, s_dev, index and last_index (from tracefs).
    pub(super) fn start(folio: [usize; 4], batch: [usize; 4]) -> std::result::Result<Self, String> {
        let object = OBJECT.ok_or(
            "this timeshare was built without clang, so without its BPF page-cache counter \
             (build.rs)",
        )?;
        let as_u32 = |at: usize| u32::try_from(at).unwrap_or(u32::MAX);
        let config = Config {
            add: folio.map(as_u32),
            read: batch.map(as_u32),
        };
        let mut bpf = aya::EbpfLoader::new()
            .btf(None)
            .set_global("cfg", &config, true)
            .load(object)
            .map_err(|e| format!("loading the BPF page-cache maps: {e}"))?;
        for (name, tracepoint) in PROGRAMS {
            attach(&mut bpf, name, tracepoint).map_err(|e| {
                format!(
                    "attaching the BPF page-cache counter: {}",
                    super::bpfobj::verdict_of(&e)
                )
            })?;
        }
        Ok(KernelCacheCounting { bpf })
    }

    /// Detach the programs and read what they counted.
    pub fn stop(mut self) -> Result<PageCache> {
        for (name, _) in PROGRAMS {
            let p: Option<&mut aya::programs::TracePoint> =
                self.bpf.program_mut(name).and_then(|p| p.try_into().ok());
            if let Some(p) = p {
                let _ = p.unload();
            }
        }
        read(&self.bpf)
    }
}

fn attach(bpf: &mut aya::Ebpf, name: &str, tracepoint: &str) -> Result<()> {
    let p: &mut aya::programs::TracePoint = super::bpfobj::program(bpf, name)?.try_into()?;
    p.load()?;
    p.attach("filemap", tracepoint)?;
    Ok(())
}

fn map<'a>(bpf: &'a aya::Ebpf, name: &str) -> Result<&'a aya::maps::Map> {
    bpf.map(name)
        .ok_or_else(|| anyhow::anyhow!("no {name} map in the BPF page-cache object"))
}

/// The maps, as the record path's [`PageCache`].
fn read(bpf: &aya::Ebpf) -> Result<PageCache> {
    let totals = aya::maps::PerCpuArray::<_, PageCounts>::try_from(map(bpf, "totals")?)?;
    let mut total = PageCounts::default();
    for per_cpu in totals.get(&0, 0)?.iter() {
        total.add(per_cpu);
    }
    let files = aya::maps::HashMap::<_, KFile, FileState>::try_from(map(bpf, "files")?)?;
    let mut by_file: HashMap<File, PageCounts> = HashMap::new();
    for entry in files.iter() {
        let (f, s) = entry?;
        by_file.insert((f.dev, f.ino), s.counts);
    }
    // What is still marked read ahead: what was read ahead less what was used or evicted
    // (per file, a bitmap cleared by two CPUs at once may differ by a page).
    let still_ahead = total
        .read_ahead
        .saturating_sub(total.read_ahead_used + total.read_ahead_evicted);
    let stats = aya::maps::PerCpuArray::<_, u64>::try_from(map(bpf, "stats")?)?;
    let mut short = Vec::new();
    for (which, what) in STATS {
        let n: u64 = stats.get(&which, 0)?.iter().sum();
        if n > 0 {
            short.push(format!("{n} {what}"));
        }
    }
    Ok(PageCache {
        total,
        still_ahead,
        short,
        counted_in_kernel: true,
        by_file,
    })
}

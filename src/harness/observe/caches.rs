//! 001 §2.3 and §3.2.6's cache figures — the page cache's hit ratio for reads, read-ahead
//! pages used before they were evicted, name-lookup hits and misses — each counted where
//! the kernel offers a way, or said exactly why not.
//!
//! # Counting model
//! Three of the kernel's `filemap` tracepoints on every CPU, read in time order
//! ([`super::stream`]): `mm_filemap_add_to_page_cache` (a folio of a file — device,
//! inode, first page, order — enters the cache), `mm_filemap_delete_from_page_cache` (it
//! leaves: evicted, truncated, invalidated) and `mm_filemap_get_pages`, which a read
//! (`read`, `pread`, `readv`, `sendfile`, `splice`: everything through `filemap_read`)
//! fires once per batch of pages, after the batch is in the cache, with the pages the
//! read asked for (from the batch's first to the request's last). The kernel adds the
//! pages a read misses in the reading thread, before that trace, so:
//!
//! - **pages asked for**: each read's first batch's range (a later batch of the same read
//!   — same thread, file and last page, a later first page — asks for nothing new);
//! - **missed by the read**: pages the same thread added to the same file since its last
//!   batch (within a second), inside the range asked for;
//! - **read ahead**: such pages outside the range — brought in before anyone asked. One
//!   of them asked for later by any read is **read ahead and used**, and counted missed
//!   too (the read found it only because reading had begun to bring it in — bcc's
//!   cachestat counts every page added as a miss likewise); one deleted from the cache
//!   before any read asked for it is **read ahead and evicted unused**;
//! - the **hit ratio** is 1 − missed ÷ asked for.
//!
//! Limits, said with each figure: a read asking past the end of its file (a 128 KiB
//! buffer for a 4 KiB file) counts the pages past the end as asked for, and so as hits —
//! the tracepoint does not carry the file's size; reads of mapped files (page faults),
//! direct I/O and tmpfs/shmem files do not pass through `filemap_get_pages` and are not
//! reads here; a thread that writes pages of a file and reads them back within a second
//! counts the written pages missed.
//!
//! The dentry cache has no tracepoint or counter of lookups at all; bcc's dcstat puts
//! kprobes on `lookup_fast` and `d_alloc_parallel`, which a kernel without kprobe events
//! (no `kprobe` PMU in /sys/bus/event_source/devices) cannot be asked.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use anyhow::Result;

use super::pages::{File, PageCache, PageCounts};
use super::perf::{explain, SyscallTracepoints};
use super::stream::{
    self, record_time, sample_raw, u32_at, u64_at, Consumer, Reading, TraceStream, RECORD_LOST,
    RECORD_SAMPLE,
};
use crate::model::observation::{CacheFigure, CacheValue, Part};

/// The kprobe PMU, through which perf_event_open counts a kernel function's calls.
const KPROBE_PMU: &str = "/sys/bus/event_source/devices/kprobe";
/// Ring buffer per CPU: a record is about 64 bytes, one per folio added or deleted and
/// one per read batch; 4 MiB holds 60,000, and the reader is woken at a quarter of it.
const BUFFER_BYTES: usize = 4 << 20;
/// How long after adding a page a thread's read may still claim it as its miss.
const CLAIM_NS: u64 = 1_000_000_000;
/// Pages a thread may have added without reading (writes, faults) before the oldest are
/// forgotten.
const MAX_UNCLAIMED: usize = 16_384;

pub const HIT_RATIO: &str = "page-cache hit ratio of reads";
pub const READ_AHEAD: &str = "read-ahead pages used before eviction";
pub const NAME_LOOKUP: &str = "name-lookup hits and misses (dentry cache)";

/// The three tracepoints and where their fields are.
#[derive(Debug, Clone, Copy, Default)]
struct Layout {
    add: u64,
    delete: u64,
    read: u64,
    /// add and delete share a layout: i_ino, index, s_dev, order.
    folio: [usize; 4],
    /// get_pages: i_ino, s_dev, index, last_index.
    batch: [usize; 4],
}

impl Layout {
    fn find() -> Option<Layout> {
        let add = "filemap/mm_filemap_add_to_page_cache";
        let read = "filemap/mm_filemap_get_pages";
        let at = |tp: &str, field: &str| stream::field_of(tp, field);
        Some(Layout {
            add: stream::tracepoint(add)?,
            delete: stream::tracepoint("filemap/mm_filemap_delete_from_page_cache")?,
            read: stream::tracepoint(read)?,
            folio: [
                at(add, "i_ino")?,
                at(add, "index")?,
                at(add, "s_dev")?,
                at(add, "order")?,
            ],
            batch: [
                at(read, "i_ino")?,
                at(read, "s_dev")?,
                at(read, "index")?,
                at(read, "last_index")?,
            ],
        })
    }
}

/// One record of the stream, decoded.
#[derive(Debug, Clone, PartialEq)]
enum PageEvent {
    Added {
        tid: u32,
        file: File,
        first: u64,
        pages: u64,
    },
    Deleted {
        file: File,
        first: u64,
        pages: u64,
    },
    Read {
        tid: u32,
        file: File,
        first: u64,
        last: u64,
    },
    Lost(u64),
}

fn decode(ty: u32, b: &[u8], l: &Layout) -> Option<(u64, PageEvent)> {
    let time = record_time(ty, b)?;
    if ty == RECORD_LOST {
        return Some((time, PageEvent::Lost(u64_at(b, 8)?)));
    }
    if ty != RECORD_SAMPLE {
        return None;
    }
    let tid = u32_at(b, 4)?;
    let raw = sample_raw(b);
    let kind = u16::from_ne_bytes(raw.get(0..2)?.try_into().ok()?) as u64;
    let event = if kind == l.add || kind == l.delete {
        let [ino, index, dev, order] = l.folio;
        let file = (u32_at(raw, dev)?, u64_at(raw, ino)?);
        let first = u64_at(raw, index)?;
        // A folio of order n holds 2^n pages.
        let pages = 1u64 << (*raw.get(order)?).min(20);
        if kind == l.add {
            PageEvent::Added {
                tid,
                file,
                first,
                pages,
            }
        } else {
            PageEvent::Deleted { file, first, pages }
        }
    } else if kind == l.read {
        let [ino, dev, index, last] = l.batch;
        PageEvent::Read {
            tid,
            file: (u32_at(raw, dev)?, u64_at(raw, ino)?),
            first: u64_at(raw, index)?,
            last: u64_at(raw, last)?,
        }
    } else {
        return None;
    };
    Some((time, event))
}

/// What the reader has counted.
#[derive(Default)]
struct PageTally {
    /// Pages each thread added and no read of its own has claimed yet: (time, file,
    /// first page, pages).
    unclaimed: HashMap<u32, Vec<(u64, File, u64, u64)>>,
    /// Read-ahead pages no read has asked for yet, by file.
    ahead: HashMap<File, BTreeSet<u64>>,
    /// Each thread's last batch: (file, first, last), to know a read's later batches.
    last_batch: HashMap<u32, (File, u64, u64)>,
    by_file: HashMap<File, PageCounts>,
    lost: u64,
    last_pruned: u64,
}

impl PageTally {
    fn take(&mut self, time: u64, event: PageEvent) {
        match event {
            PageEvent::Added {
                tid,
                file,
                first,
                pages,
            } => {
                let mine = self.unclaimed.entry(tid).or_default();
                if mine.len() >= MAX_UNCLAIMED {
                    mine.drain(..MAX_UNCLAIMED / 2);
                }
                mine.push((time, file, first, pages));
            }
            PageEvent::Deleted { file, first, pages } => {
                if let Some(set) = self.ahead.get_mut(&file) {
                    let gone = (first..first + pages).filter(|p| set.remove(p)).count() as u64;
                    if gone > 0 {
                        self.by_file.entry(file).or_default().read_ahead_evicted += gone;
                    }
                    if set.is_empty() {
                        self.ahead.remove(&file);
                    }
                }
            }
            PageEvent::Read {
                tid,
                file,
                first,
                last,
            } => self.read(time, tid, file, first, last),
            PageEvent::Lost(n) => self.lost += n,
        }
        if time > self.last_pruned + CLAIM_NS {
            self.prune(time);
        }
    }

    /// One read batch of `tid` asking for pages `first..=last` of `file`.
    fn read(&mut self, time: u64, tid: u32, file: File, first: u64, last: u64) {
        let mut c = PageCounts {
            batches: 1,
            ..PageCounts::default()
        };
        let later_batch = matches!(
            self.last_batch.insert(tid, (file, first, last)),
            Some((f, before, l)) if f == file && l == last && before < first
        );
        if !later_batch {
            c.asked = last.saturating_sub(first) + 1;
        }
        let asked = first..=last;
        for (added, f, start, pages) in self.unclaimed.remove(&tid).unwrap_or_default() {
            if f != file || time.saturating_sub(added) > CLAIM_NS {
                continue;
            }
            for p in start..start + pages {
                if asked.contains(&p) {
                    c.missed_by_read += 1;
                } else if self.ahead.entry(file).or_default().insert(p) {
                    c.read_ahead += 1;
                }
            }
        }
        if let Some(set) = self.ahead.get_mut(&file) {
            let used: Vec<u64> = set.range(first..=last).copied().collect();
            for p in &used {
                set.remove(p);
            }
            c.read_ahead_used += used.len() as u64;
            if set.is_empty() {
                self.ahead.remove(&file);
            }
        }
        self.by_file.entry(file).or_default().add(&c);
    }

    /// Forget pages added too long ago for a read to claim (written, or faulted in).
    fn prune(&mut self, now: u64) {
        self.last_pruned = now;
        self.unclaimed.retain(|_, v| {
            v.retain(|a| now.saturating_sub(a.0) <= CLAIM_NS);
            !v.is_empty()
        });
    }

    fn total(&self) -> PageCounts {
        let mut t = PageCounts::default();
        for c in self.by_file.values() {
            t.add(c);
        }
        t
    }

    fn still_ahead(&self) -> u64 {
        self.ahead.values().map(|s| s.len() as u64).sum()
    }
}

struct PageReader {
    layout: Layout,
    tally: PageTally,
}

impl Consumer for PageReader {
    type Event = PageEvent;

    fn decode(&self, ty: u32, bytes: &[u8]) -> Option<(u64, PageEvent)> {
        decode(ty, bytes, &self.layout)
    }

    fn take(&mut self, time: u64, event: PageEvent) {
        self.tally.take(time, event);
    }
}

/// Counting the page cache's reads on every CPU, in the kernel or from perf's records;
/// [`CacheCounting::stop`] ends it.
pub struct CacheCounting(CountingPath);

enum CountingPath {
    Kernel(super::kcache::KernelCacheCounting),
    Records(Reading<PageReader>),
}

impl CacheCounting {
    /// Open the filemap tracepoints on every CPU and count in the kernel where BPF can
    /// be loaded, else read their records; fails with the exact reason (privilege, a
    /// kernel without them). Why the kernel path did not run goes into `notes`.
    pub fn start(is_root: bool, notes: &mut Vec<String>) -> std::result::Result<Self, String> {
        // TIMESHARE_NO_BPF takes the record path, to compare the two on one machine.
        let in_kernel = std::env::var_os("TIMESHARE_NO_BPF").is_none();
        Self::start_on(is_root, in_kernel, notes)
    }

    /// As [`CacheCounting::start`], the kernel path tried only if `in_kernel`.
    fn start_on(
        is_root: bool,
        in_kernel: bool,
        notes: &mut Vec<String>,
    ) -> std::result::Result<Self, String> {
        // Finding the syscall tracepoints mounts tracefs where root may and it is not.
        SyscallTracepoints::find(is_root, notes).map_err(|why| {
            why.replace("the syscall tracepoints are", "the filemap tracepoints are")
        })?;
        let layout = Layout::find().ok_or(
            "this kernel has no filemap:mm_filemap_get_pages, _add_to_page_cache and \
             _delete_from_page_cache tracepoints (or tracefs does not show their formats)",
        )?;
        let kernel = if in_kernel {
            super::kcache::KernelCacheCounting::start(layout.folio, layout.batch)
        } else {
            Err("TIMESHARE_NO_BPF is set".to_string())
        };
        match kernel {
            Ok(k) => return Ok(CacheCounting(CountingPath::Kernel(k))),
            Err(why) => notes.push(format!(
                "page cache counted from perf's records, not in the kernel: {why}"
            )),
        }
        Self::start_records(layout)
    }

    fn start_records(layout: Layout) -> std::result::Result<Self, String> {
        let trace = TraceStream::open(
            &[layout.add, layout.delete, layout.read],
            &stream::online_cpus(),
            BUFFER_BYTES,
            false,
        )
        .map_err(|e| format!("tracing the page cache on each CPU: {}", explain(&e, false)))?;
        let reader = PageReader {
            layout,
            tally: PageTally::default(),
        };
        let reading = Reading::start(trace, "timeshare-observe-pages", reader)
            .map_err(|e| format!("starting the reader of the filemap tracepoints: {e}"))?;
        Ok(CacheCounting(CountingPath::Records(reading)))
    }

    pub fn stop(self) -> Result<PageCache> {
        let r = match self.0 {
            CountingPath::Kernel(k) => return k.stop(),
            CountingPath::Records(reading) => reading.finish()?,
        };
        let short = if r.tally.lost > 0 {
            vec![format!(
                "{} records lost (the buffer was full): short by as many",
                r.tally.lost
            )]
        } else {
            Vec::new()
        };
        Ok(PageCache {
            total: r.tally.total(),
            still_ahead: r.tally.still_ahead(),
            short,
            counted_in_kernel: false,
            by_file: r.tally.by_file,
        })
    }
}

const HOW_HIT: &str = "filemap tracepoints: pages asked for by reads (each read's first batch \
    in mm_filemap_get_pages), missed = pages the reading thread added to that file inside the \
    range (mm_filemap_add_to_page_cache) plus read-ahead pages later asked for; 1 − missed ÷ \
    asked. Pages asked for past a file's end count as hits (the tracepoint has no file size); \
    mapped files (page faults), direct I/O and tmpfs are not reads here";
const HOW_AHEAD: &str = "filemap tracepoints: pages a read added outside the range it asked for \
    are read ahead; used = asked for by a later read, evicted = deleted from the cache \
    (mm_filemap_delete_from_page_cache) first; used ÷ (used + evicted)";

/// The cache figures of a span: the page cache's as counted (or why not), the dentry
/// cache's reason.
pub fn figures(counted: &std::result::Result<PageCache, String>) -> Vec<CacheFigure> {
    // Which path counted, and what it could not keep.
    let said = |p: &PageCache| {
        let path = if p.counted_in_kernel {
            "; counted in the kernel (BPF maps)"
        } else {
            "; counted from perf's records"
        };
        let short: String = p.short.iter().map(|s| format!("; {s}")).collect();
        format!("{path}{short}")
    };
    let (hit, ahead) = match counted {
        Ok(p) => {
            let t = &p.total;
            let counts = |pairs: &[(&str, u64)]| -> BTreeMap<String, u64> {
                pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
            };
            let hit = CacheValue {
                ratio: t.hit_ratio(),
                counts: counts(&[
                    ("pages asked for", t.asked),
                    ("read batches", t.batches),
                    ("missed, brought in by the read", t.missed_by_read),
                    ("missed, brought in ahead by read-ahead", t.read_ahead_used),
                ]),
                how: format!("{HOW_HIT}{}", said(p)),
            };
            let ahead = CacheValue {
                ratio: t.read_ahead_used_ratio(),
                counts: counts(&[
                    ("read ahead", t.read_ahead),
                    ("used", t.read_ahead_used),
                    ("evicted unused", t.read_ahead_evicted),
                    ("not yet used at the end", p.still_ahead),
                ]),
                how: format!("{HOW_AHEAD}{}", said(p)),
            };
            (Part::Measured(hit), Part::Measured(ahead))
        }
        Err(why) => (
            Part::unavailable(why.clone()),
            Part::unavailable(why.clone()),
        ),
    };
    vec![
        CacheFigure {
            name: HIT_RATIO.into(),
            value: hit,
        },
        CacheFigure {
            name: READ_AHEAD.into(),
            value: ahead,
        },
        CacheFigure {
            name: NAME_LOOKUP.into(),
            value: Part::unavailable(name_lookup_reason()),
        },
    ]
}

fn name_lookup_reason() -> String {
    let needs = "no tracepoint or counter marks a dentry-cache lookup; bcc's dcstat puts kprobes \
                 on lookup_fast (a lookup) and d_alloc_parallel (a miss). The kernel profile's \
                 VFS and name-lookup share stands for namei's cost meanwhile";
    if Path::new(KPROBE_PMU).exists() {
        format!("{needs}; this kernel has kprobe events, which timeshare does not yet use")
    } else {
        format!(
            "{needs}; this kernel has no kprobe events ({KPROBE_PMU} is absent: built without \
             CONFIG_KPROBE_EVENTS)"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: File = (8 << 20 | 1, 42);

    fn added(tid: u32, first: u64, pages: u64) -> PageEvent {
        PageEvent::Added {
            tid,
            file: F,
            first,
            pages,
        }
    }

    fn read(tid: u32, first: u64, last: u64) -> PageEvent {
        PageEvent::Read {
            tid,
            file: F,
            first,
            last,
        }
    }

    /// A cold sequential read: the first read brings in its page and 31 ahead; the reads
    /// after it find the pages read ahead (missed all the same); the second pass hits.
    #[test]
    fn misses_read_ahead_and_hits_are_told_apart() {
        let mut t = PageTally::default();
        t.take(10, added(7, 0, 1));
        t.take(11, added(7, 1, 31));
        t.take(12, read(7, 0, 0));
        for i in 1..32 {
            t.take(20 + i, read(7, i, i));
        }
        let c = t.total();
        assert_eq!(c.asked, 32);
        assert_eq!(c.missed_by_read, 1);
        assert_eq!((c.read_ahead, c.read_ahead_used), (31, 31));
        assert_eq!(c.hit_ratio(), Some(0.0), "a cold read misses every page");
        assert_eq!(c.read_ahead_used_ratio(), Some(1.0));
        for i in 0..32 {
            t.take(100 + i, read(7, i, i));
        }
        let c = t.total();
        assert_eq!(c.asked, 64);
        assert_eq!(c.hit_ratio(), Some(0.5), "the second pass hits every page");
    }

    #[test]
    fn a_reads_later_batches_ask_for_nothing_new_and_eviction_is_counted() {
        let mut t = PageTally::default();
        // One read of pages 0..=63, in two batches; the first brought in 0..=15 and
        // read ahead 64..=79, which is then evicted unused.
        t.take(1, added(7, 0, 16));
        t.take(2, added(7, 64, 16));
        t.take(3, read(7, 0, 63));
        t.take(4, read(7, 16, 63));
        t.take(
            5,
            PageEvent::Deleted {
                file: F,
                first: 64,
                pages: 4,
            },
        );
        let c = t.total();
        assert_eq!(c.asked, 64, "the second batch is the same read's");
        assert_eq!(c.batches, 2);
        assert_eq!(c.missed_by_read, 16);
        assert_eq!((c.read_ahead, c.read_ahead_evicted), (16, 4));
        assert_eq!(t.still_ahead(), 12);
        assert_eq!(c.read_ahead_used_ratio(), Some(0.0));
        // Another thread's pages, or pages added long before, are not this read's misses.
        t.take(10, added(8, 100, 1));
        t.take(11, added(7, 101, 1));
        t.take(11 + 2 * CLAIM_NS, read(7, 100, 101));
        assert_eq!(t.total().missed_by_read, 16);
    }

    #[test]
    fn every_cache_figure_says_how_or_why_not() {
        let f = figures(&Err("needs root".into()));
        assert_eq!(f.len(), 3);
        assert_eq!(f[0].value.reason(), Some("needs root"));
        assert!(f[2].value.reason().unwrap().contains("kprobe"));
        let mut p = PageCache::default();
        p.total.asked = 10;
        p.total.missed_by_read = 4;
        let f = figures(&Ok(p));
        let v = f[0].value.measured().unwrap();
        assert_eq!(v.ratio, Some(0.6));
        assert_eq!(v.counts["pages asked for"], 10);
        assert!(v.how.contains("past a file's end"), "{}", v.how);
        assert_eq!(f[1].value.measured().unwrap().ratio, None, "none decided");
    }

    fn is_root() -> bool {
        // SAFETY: geteuid has no preconditions.
        unsafe { libc::geteuid() == 0 }
    }

    /// Read every byte of `path` with 64 KiB reads, while the page cache is counted (in
    /// the kernel where it can be, if `in_kernel`); with the counts, how many of its pages
    /// were in the cache once the counting had started, just before the first read.
    fn counted_pass(path: &Path, in_kernel: bool) -> Option<(PageCache, u64)> {
        use std::io::Read;
        let counting = match CacheCounting::start_on(is_root(), in_kernel, &mut Vec::new()) {
            Ok(c) => c,
            Err(why) => {
                eprintln!("skipped: {why}");
                assert!(!is_root(), "root can trace the page cache: {why}");
                return None;
            }
        };
        let mut f = std::fs::File::open(path).unwrap();
        let cached = cached_pages(&f);
        let mut buf = vec![0u8; 64 << 10];
        while f.read(&mut buf).unwrap() > 0 {}
        Some((counting.stop().unwrap(), cached))
    }

    /// How many of the open file's pages are in the page cache: `mincore` over a mapping
    /// of it, which brings none in (no page is touched).
    fn cached_pages(f: &std::fs::File) -> u64 {
        use std::os::unix::io::AsRawFd;
        let len = f.metadata().unwrap().len() as usize;
        if len == 0 {
            return 0;
        }
        // SAFETY: a fresh read-only shared mapping of our own descriptor, never read
        // through, unmapped below.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                f.as_raw_fd(),
                0,
            )
        };
        assert_ne!(
            map,
            libc::MAP_FAILED,
            "mmap: {}",
            std::io::Error::last_os_error()
        );
        let mut vec = vec![0u8; len.div_ceil(4096)];
        // SAFETY: the mapping is `len` bytes; `vec` has one byte per 4 KiB page of it.
        let r = unsafe { libc::mincore(map, len, vec.as_mut_ptr()) };
        let err = std::io::Error::last_os_error();
        // SAFETY: the mapping made above, unmapped once.
        unsafe { libc::munmap(map, len) };
        assert_eq!(r, 0, "mincore: {err}");
        vec.iter().filter(|&&b| b & 1 == 1).count() as u64
    }

    /// An 8 MiB file, written and dropped from the cache, with its `stat` device and
    /// inode; None where the temporary directory is on tmpfs.
    fn cold_file(dir: &Path) -> Option<(std::path::PathBuf, u64, u64)> {
        use std::os::unix::fs::MetadataExt;
        use std::os::unix::io::AsRawFd;
        // SAFETY: statfs writes into the struct we pass; the path is NUL-terminated.
        let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
        let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: as above.
        unsafe { libc::statfs(c.as_ptr(), &mut fs) };
        if fs.f_type == libc::TMPFS_MAGIC {
            eprintln!("skipped: the temporary directory is on tmpfs, whose reads bypass the page cache's read path");
            return None;
        }
        let path = dir.join("data");
        std::fs::write(&path, vec![7u8; 8 << 20]).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        file.sync_all().unwrap();
        // SAFETY: advice on our own open descriptor.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        let meta = file.metadata().unwrap();
        Some((path, meta.dev(), meta.ino()))
    }

    /// A file read twice, dropped from the cache first: the first pass mostly misses,
    /// the second mostly hits, and read-ahead brought in most of the first's pages — on
    /// each path, and both paths count the same.
    #[test]
    fn a_file_read_twice_misses_then_hits_on_each_path() {
        let mut seen = Vec::new();
        for in_kernel in [true, false] {
            let dir = tempfile::tempdir().unwrap();
            let Some((path, dev, ino, first, second)) =
                two_passes_kept_cached(dir.path(), in_kernel)
            else {
                return;
            };
            if in_kernel && super::super::kcache::built() {
                assert!(first.counted_in_kernel, "root counts in the kernel");
            }
            let (a, b) = (first.of_file(dev, ino), second.of_file(dev, ino));
            assert_eq!(a.asked, 2048, "8 MiB in 4 KiB pages: {a:?}");
            assert!(
                a.hit_ratio().unwrap() < 0.5,
                "the first pass misses: {a:?} (in kernel {}, total {:?}, short {:?})",
                first.counted_in_kernel,
                first.total,
                first.short
            );
            assert!(
                a.read_ahead_used > 0,
                "sequential reads are read ahead: {a:?}"
            );
            assert_eq!(b.asked, 2048, "{b:?}");
            assert!(b.hit_ratio().unwrap() > 0.9, "the second pass hits: {b:?}");
            let e = evicted_ahead(&path, in_kernel).of_file(dev, ino);
            assert!(
                e.read_ahead_evicted > 0,
                "read ahead, never read, evicted: {e:?}"
            );
            eprintln!(
                "in kernel {}: first {a:?}, second {b:?}, evicted {e:?}",
                first.counted_in_kernel
            );
            seen.push((a, b, e));
        }
        // The same reads of the same cold file: the same pages asked for, missed and read
        // ahead, whichever path counted them.
        if let [(ka, kb, ke), (ra, rb, re)] = seen[..] {
            assert_eq!((ka.asked, ka.batches), (ra.asked, ra.batches));
            assert_eq!(ka.missed(), ra.missed(), "kernel {ka:?}, records {ra:?}");
            assert_eq!(
                ka.read_ahead, ra.read_ahead,
                "kernel {ka:?}, records {ra:?}"
            );
            assert_eq!(
                kb.missed(),
                rb.missed(),
                "second pass: kernel {kb:?}, records {rb:?}"
            );
            assert_eq!(
                (ke.read_ahead, ke.read_ahead_evicted),
                (re.read_ahead, re.read_ahead_evicted),
                "kernel {ke:?}, records {re:?}"
            );
        }
    }

    /// Passes over one cold file before its second pass finds it wholly cached.
    const ATTEMPTS: usize = 3;

    /// A cold file read twice, each pass counted: the file with its `stat` device and
    /// inode, and the two passes' counts; None where the test cannot run here.
    ///
    /// The second pass is meant to find every page the first brought in, but the machine
    /// may evict clean pages whenever it likes: on this VM a DAMON scheme (the kernel's
    /// proactive reclaim, `/sys/kernel/mm/damon/admin/kdamonds/0`, action `pageout`) pages
    /// out idle-looking memory every 5 s, and a file read a few seconds ago loses a few
    /// pages at a time with 20 GB free. A page evicted between the passes is missed again
    /// by the second, on one path and not the other: the two paths' second passes then
    /// differed by a few pages (one failure in a whole lib run beside two busy loops,
    /// where starting the counting between the passes takes longest). So the pages in the
    /// cache are counted just before the second pass reads, and when the machine took some
    /// both passes run again on a new cold file: what the counts must be is unchanged.
    fn two_passes_kept_cached(
        dir: &Path,
        in_kernel: bool,
    ) -> Option<(std::path::PathBuf, u64, u64, PageCache, PageCache)> {
        for attempt in 1..=ATTEMPTS {
            let (path, dev, ino) = cold_file(dir)?;
            let (first, _) = counted_pass(&path, in_kernel)?;
            let (second, cached) = counted_pass(&path, in_kernel).unwrap();
            let pages = std::fs::metadata(&path).unwrap().len().div_ceil(4096);
            if cached == pages {
                return Some((path, dev, ino, first, second));
            }
            eprintln!(
                "attempt {attempt}: {cached} of {pages} pages still cached when the second \
                 pass began (the machine evicted the rest): both passes again"
            );
            std::fs::remove_file(&path).unwrap();
        }
        panic!("the machine evicted pages between the passes in each of {ATTEMPTS} attempts");
    }

    /// Both paths at once over one cold read: the kernel counter's programs pass every
    /// event on to perf's buffers, so a reader of the same tracepoints beside it (here
    /// the record path; a user's `perf record -e filemap:*` alike) misses nothing. A
    /// program returning 0 hid them all: the records then counted no page missed.
    #[test]
    fn the_kernel_counter_hides_no_event_from_a_perf_reader_beside_it() {
        use std::io::Read;
        if !is_root() || !super::super::kcache::built() {
            eprintln!("skipped: the kernel counter needs root and a build with clang");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let Some((path, dev, ino)) = cold_file(dir.path()) else {
            return;
        };
        let kernel = CacheCounting::start_on(true, true, &mut Vec::new()).unwrap();
        let records = CacheCounting::start_on(true, false, &mut Vec::new()).unwrap();
        let mut f = std::fs::File::open(&path).unwrap();
        let mut buf = vec![0u8; 64 << 10];
        while f.read(&mut buf).unwrap() > 0 {}
        let (r, k) = (records.stop().unwrap(), kernel.stop().unwrap());
        assert!(k.counted_in_kernel && !r.counted_in_kernel);
        let (k, r) = (k.of_file(dev, ino), r.of_file(dev, ino));
        assert!(k.missed() > 0, "a cold file misses: {k:?}");
        assert_eq!(
            (k.asked, k.missed(), k.read_ahead),
            (r.asked, r.missed(), r.read_ahead),
            "kernel {k:?}, records beside it {r:?}"
        );
    }

    /// The file dropped from the cache, its first 16 KiB read (read-ahead brings in more),
    /// then dropped again, counted: what was read ahead and never asked for is evicted.
    fn evicted_ahead(path: &Path, in_kernel: bool) -> PageCache {
        use std::io::Read;
        use std::os::unix::io::AsRawFd;
        let drop_cache = |f: &std::fs::File| {
            // SAFETY: advice on our own open descriptor.
            unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        };
        let mut f = std::fs::File::open(path).unwrap();
        drop_cache(&f);
        let counting = CacheCounting::start_on(is_root(), in_kernel, &mut Vec::new()).unwrap();
        let mut buf = vec![0u8; 16 << 10];
        f.read_exact(&mut buf).unwrap();
        drop_cache(&f);
        counting.stop().unwrap()
    }
}

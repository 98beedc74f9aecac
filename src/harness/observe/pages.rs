//! What the page cache's counting yields, whichever path counted it: the counts of a
//! file or of all ([`PageCounts`]) and of a span ([`PageCache`]). The model and the
//! record path are in [`super::caches`], the kernel path in [`super::kcache`].

use std::collections::HashMap;

/// A file: the kernel's device number of its file system, and its inode.
pub(super) type File = (u32, u64);

/// The counts of one file, or of all; laid out as `struct counts` of the kernel path's
/// program (`bpf/pagecache.bpf.c`), which fills it as it is.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PageCounts {
    pub asked: u64,
    pub batches: u64,
    /// Missed pages the read brought in itself.
    pub missed_by_read: u64,
    /// Pages brought in ahead of any request (outside the adding read's range).
    pub read_ahead: u64,
    /// … of them, asked for later (and counted missed).
    pub read_ahead_used: u64,
    /// … of them, deleted from the cache before any read asked for them.
    pub read_ahead_evicted: u64,
}

impl PageCounts {
    pub(super) fn add(&mut self, o: &PageCounts) {
        self.asked += o.asked;
        self.batches += o.batches;
        self.missed_by_read += o.missed_by_read;
        self.read_ahead += o.read_ahead;
        self.read_ahead_used += o.read_ahead_used;
        self.read_ahead_evicted += o.read_ahead_evicted;
    }

    pub fn missed(&self) -> u64 {
        self.missed_by_read + self.read_ahead_used
    }

    /// 1 − missed ÷ asked, when anything was asked for.
    pub fn hit_ratio(&self) -> Option<f64> {
        (self.asked > 0).then(|| (1.0 - self.missed() as f64 / self.asked as f64).clamp(0.0, 1.0))
    }

    /// Read-ahead pages used ÷ (used + evicted unused), when any was decided.
    pub fn read_ahead_used_ratio(&self) -> Option<f64> {
        let decided = self.read_ahead_used + self.read_ahead_evicted;
        (decided > 0).then(|| self.read_ahead_used as f64 / decided as f64)
    }
}

/// What the page-cache tracepoints counted over a span.
#[derive(Debug, Clone, Default)]
pub struct PageCache {
    pub total: PageCounts,
    /// Read-ahead pages neither asked for nor evicted by the end.
    pub still_ahead: u64,
    /// What the counting could not keep, each with what it costs the figures ("1,024
    /// records lost (the buffer was full): short by as many").
    pub short: Vec<String>,
    /// Counted in BPF maps ([`super::kcache`]), not from perf's records.
    pub counted_in_kernel: bool,
    pub(super) by_file: HashMap<File, PageCounts>,
}

impl PageCache {
    /// The counts of one file (its `stat` device and inode).
    pub fn of_file(&self, st_dev: u64, st_ino: u64) -> PageCounts {
        // The kernel's dev_t is major << 20 | minor; stat's is glibc's encoding.
        let dev = (libc::major(st_dev) << 20) | libc::minor(st_dev);
        self.by_file
            .get(&(dev, st_ino))
            .copied()
            .unwrap_or_default()
    }
}

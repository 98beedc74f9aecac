//! 001 §2.3 and §3.2.6's cache figures — the page cache's hit ratio for reads, read-ahead
//! pages used before they were evicted, name-lookup hits and misses — each counted where
//! the kernel offers a way, or said exactly why not.
//!
//! The kernel keeps no counter of page-cache or dentry-cache *lookups*: its tracepoints
//! mark pages added to the cache (`filemap:mm_filemap_add_to_page_cache`) and read
//! batches (`filemap:mm_filemap_get_pages`), not hits, and its read-ahead tracepoints mark
//! windows started, not pages used. The tools that report these ratios (bcc's cachestat
//! and dcstat) put kprobes on `folio_mark_accessed`, `lookup_fast` and `d_alloc_parallel`;
//! a kernel without kprobe events (no `kprobe` PMU in /sys/bus/event_source/devices)
//! cannot be asked.

use std::path::Path;

use crate::model::observation::{CacheFigure, Part};

/// The kprobe PMU, through which perf_event_open counts a kernel function's calls.
const KPROBE_PMU: &str = "/sys/bus/event_source/devices/kprobe";

/// The cache figures of this machine (each unavailable with its reason, for now).
pub fn figures() -> Vec<CacheFigure> {
    let kprobes = Path::new(KPROBE_PMU).exists();
    let no_kprobes = format!(
        "this kernel has no kprobe events ({KPROBE_PMU} is absent: built without \
         CONFIG_KPROBE_EVENTS)"
    );
    let why = |needs: &str| {
        if kprobes {
            format!("{needs}; this kernel has kprobe events, which timeshare does not yet use")
        } else {
            format!("{needs}; {no_kprobes}")
        }
    };
    vec![
        CacheFigure {
            name: "page-cache hit ratio of reads".into(),
            value: Part::unavailable(why(
                "the kernel counts pages added to the cache (a miss) but not pages found \
                 in it: a hit is seen only by a kprobe on folio_mark_accessed, as bcc's \
                 cachestat does",
            )),
        },
        CacheFigure {
            name: "read-ahead pages used before eviction".into(),
            value: Part::unavailable(why(
                "the read-ahead tracepoints (readahead:page_cache_*_ra) mark windows \
                 started, and a page's first use only clears its PG_readahead flag, which \
                 no tracepoint or counter reports; a kprobe on page_cache_async_ra's \
                 callers would",
            )),
        },
        CacheFigure {
            name: "name-lookup hits and misses (dentry cache)".into(),
            value: Part::unavailable(why(
                "no tracepoint or counter marks a dentry-cache lookup; bcc's dcstat puts \
                 kprobes on lookup_fast (a lookup) and d_alloc_parallel (a miss). The kernel \
                 profile's VFS and name-lookup share stands for namei's cost meanwhile",
            )),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cache_figure_says_how_or_why_not() {
        let f = figures();
        assert_eq!(f.len(), 3);
        for c in &f {
            let why = c.value.reason().expect("unavailable here");
            assert!(why.contains("kprobe"), "{why}");
        }
    }
}

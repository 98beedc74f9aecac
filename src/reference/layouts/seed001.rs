//! Seed 001's tables' layouts.

use super::*;
use crate::reference::{self, Quantity};

/// Today's path translations by cache state and depth (001 Tables 9 and 10).
const NAMEI_BY_STATE: &[&str] = &[
    "fs.namei.1",
    "fs.namei.2",
    "fs.namei.4",
    "fs.namei.8",
    "fs.namei.neg.1",
    "fs.namei.neg.2",
    "fs.namei.neg.4",
    "fs.namei.neg.8",
    "fs.namei.cold.1",
    "fs.namei.cold.2",
    "fs.namei.cold.4",
    "fs.namei.cold.8",
];

/// Why seed 001's namei times are printed in a line, not in a column.
const NAMEI_CALL: &str = "the paper's ms/call (the line above) is the mean namei call of a \
     time-sharing machine's whole day — paths of every length, hits and misses mixed — timed \
     inside the kernel by its profiler; today's rows are one stat(2) of a path of D components \
     in one cache state: warm (fs.namei.D), a name that does not exist (fs.namei.neg.D, a \
     negative dentry) or cold (fs.namei.cold.D). Per call both, but not the same call: no \
     ratio is formed";

/// What the cold rows evict, and when they are skipped.
const NAMEI_COLD: &str = "the cold rows drop the dentry and the inode caches (2 into \
     /proc/sys/vm/drop_caches, machine-wide) before each single timed lookup; the page \
     cache, and with it the directories' blocks, stays. They need root and a disk-backed \
     directory, and are skipped with the reason otherwise";

/// 4.3BSD's hit rates, which Linux does not count.
const NAMEI_HITS: &str = "the paper's hit rates (the line above) cannot be counted here: \
     Linux keeps no count of dentry cache hits and misses that user space can read (a kernel \
     tracer could count them); Linux has one dentry cache where 4.3BSD had a per-process and a \
     system-wide one, and the rows set its three states side by side instead";

#[rustfmt::skip]
pub const TABLES: &[SeedTable] = &[
    SeedTable { key: "001-1", seed: "001", prefix: "Table 1,", title: "kernel benchmark programs",
        why: &["a list of programs and their counts, no figures: their results are `table 001-2`"], ..T },
    SeedTable { key: "001-2", seed: "001", prefix: "Table 2,", title: "Kernel Benchmark results (elapsed, user, system)", quantities: HUS, ..T },
    SeedTable { key: "001-3", seed: "001", prefix: "Table 2,", title: "Benchmark results with a large (1 KB) environment", quantities: HUS,
        name: Some("Table 3"), only: Some("proc.exec.null."),
        why: &["Table 3 repeats Table 2's exec rows with 1 KB more environment; the figures are Table 2's"], ..T },
    SeedTable { key: "001-4", seed: "001", prefix: "Table 4,", title: "call times for namei in 4.2BSD",
        ids: &["fs.namei.1", "fs.namei.2", "fs.namei.4", "fs.namei.8", "fs.namei.symlink",
               "fs.namei.cold.1", "fs.namei.cold.2", "fs.namei.cold.4", "fs.namei.cold.8"],
        why: &[NAMEI_CALL, NAMEI_COLD,
               "the paper's % of kernel needs a profile of the kernel over a day's work: not measured"],
        paper: reference::paper_lines, ..T },
    SeedTable { key: "001-5", seed: "001", prefix: "Table 5,", title: "active file systems during buffer cache tests",
        why: &["a description of the machine's file systems, no figures; today's is in `timeshare sysinfo`"], ..T },
    SeedTable { key: "001-6", seed: "001", prefix: "Table 6,", title: "paging benchmark programs",
        why: &["a list of programs, no figures: their results are `table 001-7`"], ..T },
    SeedTable { key: "001-7", seed: "001", prefix: "Table 7,", title: "Paging benchmark results (real, user, system, page faults)", quantities: HUSF,
        why: &["the paper paged 7,500 1 KB pages on a 4.5 MB machine; today's rows page only under \
                --memory-limit or with --pages larger than memory (the paging line above says which \
                rows did); page faults are per page touch, as the times are"], ..T },
    SeedTable { key: "001-8", seed: "001", prefix: "Table 8,", title: "Page fault service times (system time / page faults)", quantities: FS,
        notes: &["the paper's caption says microseconds, but its figures are in units of 10 µs: \
                  each is Table 7's system time / page faults, truncated (randpage, 4.2BSD: \
                  77.2 s / 9,776 faults = 7.90 ms, printed 789); read as µs they would be 10× \
                  too small, and so would every ratio"], ..T },
    SeedTable { key: "001-9", seed: "001", prefix: "Table 9,", title: "call times for namei with the per-process cache",
        ids: NAMEI_BY_STATE, why: &[NAMEI_CALL, NAMEI_COLD, NAMEI_HITS], paper: reference::paper_lines, ..T },
    SeedTable { key: "001-10", seed: "001", prefix: "Table 10,", title: "call times for namei with both caches",
        ids: NAMEI_BY_STATE, why: &[NAMEI_CALL, NAMEI_COLD, NAMEI_HITS], paper: reference::paper_lines, ..T },
    SeedTable { key: "001-11", seed: "001", prefix: "Table 11,", title: "alternative inline code expansions",
        why: &["a study of the kernel's generated code (sed scripts expanding calls inline), not a \
                measurement of a running system: nothing to measure"], ..T },
    SeedTable { key: "001-net", seed: "001", prefix: "§3.2.7/§4.1.7", title: "network throughput by message size and where protocol work is charged",
        name: Some("§3.2.7, §4.1.7"),
        ids: &["net.tcp.bw", "net.udp.bw", "net.unix.bw", "net.tcp.rtt", "net.udp.rtt", "net.tcp.connect"],
        why: &["the paper printed no figures for the network, only its findings: 1024 bytes was the \
                throughput-optimal message size (small mbufs), some arbitrary sizes degraded badly, \
                and protocol work in software interrupts is rarely charged to the receiving \
                process; today's rows only, over loopback rather than an Ethernet: the curve by \
                size and the CPU per byte at each end and in softirq are in `timeshare show RUN` \
                (`--chart`) and the HTML report"], ..T },
    SeedTable { key: "001-lsl", seed: "001", prefix: "§4.1.1 ls -l", title: "ls -l of a big directory as the name caches were added (system time)",
        quantities: &[Quantity::System], all_shown: true, ids: &["fs.lsl"], paper: reference::paper_lines,
        why: &["the paper's three figures (the line above) are one machine in three states of its \
                kernel; today's fs.lsl lists a directory of as many files and lstats each, its \
                system time per listing the like-for-like figure; ls -l also formatted its \
                listing and looked up each owner, and fs.lsl's basis is a generic operation, so \
                no ratio is formed"], ..T },
];

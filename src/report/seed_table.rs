//! A run printed in the layout of one of the seeds' tables: the seed's rows in the seed's
//! order, today's figure beside the historical machines' columns, and today's speed-up
//! over the last of them (over each of its configurations, where the table has it in
//! more than one: seed 000's 11/70 in C7 and C8). All figures per operation (the
//! conversion of each historical figure is in `timeshare reference MACHINE`): today's
//! whole jobs are divided by the operations their basis declares, and a row whose figures
//! are of different operations says "not comparable", with the reason under the table.

use crate::model::details::load::{IoInterference, BYTE_READ_BESIDE, PER_COMMAND};
use crate::model::details::vm::{Paging, PAGE_FAULT};
use crate::model::resolution::shown_stored;
use crate::model::unit::format_value;
use crate::model::{Basis, BenchResult, Better, Measure, NotComparable, Run, Status, Unit};
use crate::reference::{self, Comparability, Figure, Quantity};

use comfy_table::{ColumnConstraint, Width};

use super::compare::figures3;
use super::table::{bound_text, new_table, right, MIN_TEXT_COLUMN};

/// A table or figure of one of the five papers, as `timeshare table KEY` prints it.
pub struct SeedTable {
    pub key: &'static str,
    pub seed: &'static str,
    /// The start of the figures' `place`: "Table 2," selects seed 001's Table 2.
    pub prefix: &'static str,
    pub title: &'static str,
    /// The paper's columns, each set beside today's figure of the same statistic and basis.
    pub quantities: &'static [Quantity],
    /// The table's name in the paper when `prefix` is another's ("Table 3").
    pub name: Option<&'static str>,
    /// Only the rows whose id starts with this (Table 3 of seed 001 is Table 2's exec rows).
    pub only: Option<&'static str>,
    /// Today's rows shown beside the paper's, after those the historical figures name
    /// (tables whose figures are not transcribed, or that have extra rows).
    pub ids: &'static [&'static str],
    /// Where today's system cannot be measured the paper's way, or the table compares
    /// different programs: one sentence each, printed under the table.
    pub why: &'static [&'static str],
    /// The paper's figures that cannot be set in a column beside today's (another
    /// operation, or a count not made here), as lines printed under the table; by key.
    pub paper: fn(&str) -> Vec<String>,
    /// Every statistic shown without `--wide` (a short table whose rows stay readable).
    pub all_shown: bool,
    /// How the paper's figures were read, where a reader checking them needs to know
    /// (001 Table 8's printed unit): printed under the table, not a difference from
    /// today's, so no effect on the status.
    pub notes: &'static [&'static str],
    /// A graph of the paper's, whose points today are the rows whose id is this prefix and
    /// a number (`exercise.batch.N`): as many as the run has, so not in `ids`. Printed as
    /// today's curve from one run ([`super::seed_curve`]).
    pub curve: Option<&'static str>,
}

fn no_lines(_key: &str) -> Vec<String> {
    Vec::new()
}

const H: &[Quantity] = &[Quantity::Headline];
const HUS: &[Quantity] = &[Quantity::Headline, Quantity::User, Quantity::System];
/// Seed 000 Tables 9 and 10 (and Attachment B, their configurations): real and CPU per
/// copy (script), Inc, the load's effect, and Ratio Real, the 11/45's real over the 11/70's.
const HCIR: &[Quantity] = &[
    Quantity::Headline,
    Quantity::Cpu,
    Quantity::Inc,
    Quantity::RatioReal,
];
/// Seed 002's columns: median, mean and SD per call, the mean and SD of single calls as
/// the paper's; then today's mean and SD of the batches, which the paper has not.
const MMS: &[Quantity] = &[
    Quantity::Headline,
    Quantity::Mean,
    Quantity::Sd,
    Quantity::BatchMean,
    Quantity::BatchSd,
];
const FS: &[Quantity] = &[Quantity::FaultService];
/// Seed 000 Table 11: the timed program's user CPU, ratio alone and the readers' rate.
const TABLE11: &[Quantity] = &[
    Quantity::ProgramUser,
    Quantity::RatioAlone,
    Quantity::ReadRate,
];
/// Seed 000 Attachment C: per command, its share of the commands, average real time and
/// its share of all the real time, the same of CPU time, and real/CPU.
const COMMANDS: &[Quantity] = &[
    Quantity::CommandShare,
    Quantity::CommandReal,
    Quantity::CommandRealShare,
    Quantity::CommandCpu,
    Quantity::CommandCpuShare,
    Quantity::CommandRealPerCpu,
];
/// Seed 001 Table 7: real, user, system and page faults.
const HUSF: &[Quantity] = &[
    Quantity::Headline,
    Quantity::User,
    Quantity::System,
    Quantity::Faults,
];

const T: SeedTable = SeedTable {
    key: "",
    seed: "",
    prefix: "",
    title: "",
    quantities: H,
    name: None,
    only: None,
    ids: &[],
    why: &[],
    paper: no_lines,
    all_shown: false,
    notes: &[],
    curve: None,
};

/// Seed 002's mean and SD are of single calls; today's are both, named.
const SD_OF_BATCHES: &str = "the paper's mean and SD are of single calls timed one by one, and so \
     are today's \"1 call\" lines (2,001 calls in quick mode, 10,001 in full, the cost of an \
     empty timed region and of a loop iteration taken from each; \"—\" for a run made before \
     they were measured); the median, the ratio's figure, is of calibrated batches, and the \
     batches' mean and SD are smaller than the calls' by about the square root of the batch";

/// Figure 4's and 5's rows without a row today, and why.
const NOT_ROWS: &str = "rows of the paper not set beside one today: csw (reading the console \
     switch register: no such device or call today); stme (stime sets the system clock, which \
     would disturb the machine's time for everyone, even set to the time just read: never run); \
     gtty(m) (gtty with the system in multi-user mode: today's system always is, and \
     syscall.gtty, TCGETS on a pseudo-terminal the row opens, is set beside gtty(s))";

/// Seed 002's floating-point save, added to every system call in 1976, is today a cost of
/// the context switch.
const FP_SAVE: &str = "the paper's floating-point save (170 µs on the 11/45, 140 µs on the \
     11/70, added to every system call from a C program) has no per-call counterpart: Linux \
     saves floating-point and vector registers on a context switch, not on a system call. \
     Today's cost is pipe.back.4.fpu − pipe.back.4 (the (today) rows), per pipe round trip \
     of two switches: a different operation, so no ratio";

/// Attachment C's per-command table against today's: what is and is not comparable.
const ATTACHMENT_C: &[&str] = &[
    "the 1975 script's commands are matched to today's user1975 script's by name; each did \
     its own day's work on its own day's files, so a ratio compares two commands' lengths \
     as much as two machines. The paper's **gok (nroff in a pipe, as its accounting named \
     it) and colv (col) have no line today: the pipeline is one line, nroff | col, \
     accounted as one, with no line in the paper",
    "the paper's sh is the shell running a nested script, its time including the commands \
     it ran, which the accounting also counted on their own lines (sh's 26.53 s is 37% of \
     the 11/45's real): its % columns and the Total's averages count those commands twice. \
     Today each user's script has a shell of timeshare's own, not an accounting line; sh \
     is `sh count.sh` (wc and grep, counted in sh's time only), so the sh and Total lines \
     have no ratio",
    "the paper's real times were accounted in whole seconds per command (its averages are \
     multiples of 1/count s): a printed 0.00 s is shown as < 1 s, with no real/CPU, and a real/CPU printed 0.0 as \
     < 0.05. The \
     Total line's averages are over every command, sh included, as the paper's",
    "the 11/70 is in two configurations with 5 scripts: C7, the paper's 11/70, and C8, the \
     same with /tmp on the memory device (one run); each has its column and its ratio",
];

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
    SeedTable { key: "000-1", seed: "000", prefix: "Table 1,", title: "chess, 130 moves (real)",
        why: &["the paper timed its own chess program; cpu.chess is timeshare's engine playing a fixed \
                130-ply game without floating point: the same kind of work, not the same program"], ..T },
    SeedTable { key: "000-2", seed: "000", paper: reference::paper_lines, prefix: "Table 2,", title: "Gibson-mix programs, CPU per loop (ms)",
        ids: &["cpu.gibson"],
        why: &["the paper's five Gibson-mix programs (C and Fortran) are not printed and the loop's \
                operation counts are not given, so no historical figure is set beside cpu.gibson"], ..T },
    SeedTable { key: "000-3", seed: "000", prefix: "Table 3,", title: "compute-bound programs 1–4 in C (real)",
        why: &["programs 1–4 came from an IBM 370/168 comparison and are not printed; cpu.intfloat.1–4 \
                are timeshare's integer (1, 3) and floating-point (2, 4) counterparts: different programs"], ..T },
    SeedTable { key: "000-4", seed: "000", paper: reference::paper_lines, prefix: "Table 4,", title: "cache-resident random reads",
        ids: &["cpu.cache"],
        why: &["the paper gives the whole run's time without the number of reads, and an 85.3% cache \
                hit rate; cpu.cache gives ns per read by array size. Today's hit rate needs the \
                CPU's performance counters: the line above gives it where a run counted them \
                (`run cpu.cache --counters`), or why it is unavailable"], ..T },
    SeedTable { key: "000-5", seed: "000", prefix: "Table 5,", title: "raw disk-to-disk copies (dd, 8192-word blocks), bytes per second of real time",
        why: &["the paper copied raw RK05, RP03, RP04 and RS04 devices; io.copy copies a file to another \
                on the working directory's device, page cache bypassed: only the paper's copies of a \
                disk to itself (the rows marked *) are set beside it, and the copies between two \
                devices have no counterpart",
               "the paper's µsec/wd is (Real − CPU) / words; both columns here are bytes / Real"], ..T },
    SeedTable { key: "000-6", seed: "000", paper: reference::paper_lines, prefix: "Table 6,", title: "recompiling UNIX (real, CPU)",
        ids: &["mixed.build"],
        why: &["the 1975 system's sources are not at hand; mixed.build builds a bundled multi-file C \
                program with today's compiler: a build, not the same build"], ..T },
    SeedTable { key: "000-7", seed: "000", paper: reference::paper_lines, prefix: "Table 7,", title: "building the Fortran compiler (real, CPU)",
        why: &["no counterpart: the 1975 Fortran compiler's sources and assembler are not on today's \
                system, and building a modern Fortran compiler is a different job of hours; \
                mixed.build (000-6) is the nearest measured build"], ..T },
    SeedTable { key: "000-8", seed: "000", paper: reference::paper_lines, prefix: "Table 8,", title: "password guessing (crypt of a word list, reversed through a pipe)",
        ids: &["mixed.crypt"],
        why: &["the paper used /etc/passwd and the 72,000 words of /usr/dict/words with the 1975 crypt; \
                mixed.crypt uses a bundled word list and today's crypt, so no ratio is given"], ..T },
    SeedTable { key: "000-9", seed: "000", prefix: "Table 9,", title: "N copies of a compute-bound program (real and CPU per copy)",
        quantities: HCIR,
        why: &["the comparison is Inc, each machine's average real time per copy over one copy's \
                alone: today's beside the paper's on each row's inc line. Today's copy is \
                calibrated to about 0.5 s of CPU alone on this machine (the paper's program took \
                8.5 s on the 11/70), so the real and CPU times are of two programs' lengths and \
                get no speed-up (—); the batch's wall time is in `timeshare show RUN`"], ..T },
    SeedTable { key: "000-10", seed: "000", prefix: "Table 10,", title: "N command scripts (real and CPU per script)",
        quantities: HCIR,
        why: &["the 1975 script ran the commands of its day; load.script runs the bundled user1975 \
                script's nearest modern equivalents",
               "the like-for-like comparison is Inc, each machine's average real time per script \
                over one script's alone, today's beside the paper's on each row's inc line; the \
                last columns divide the 11/70's real time by today's, two scripts' lengths as much \
                as two machines, so they are marked ≈",
               "the 11/70 is in two configurations: C7, the paper's 11/70 (the one `compare` and \
                `reference` set beside a run), and C8, the same with /tmp on the memory device, \
                run with 1 and 5 scripts only; each has its column and its ratio"], ..T },
    SeedTable { key: "000-B", seed: "000", prefix: "Table 10,", name: Some("Attachment B"),
        title: "the configuration sweep: the command scripts and copies per configuration (`run --configs`)",
        quantities: HCIR, ids: &["load.script.1", "load.cpu.1"], why: super::seed_configs::WHY, ..T },
    SeedTable { key: "000-11", seed: "000", prefix: "Table 11,", title: "a compute-bound program beside K disk readers (usr CPU, ratio alone, read rate)",
        quantities: TABLE11,
        why: &["the paper's readers were dd's of raw RS04, RP04, RP03 and RK05 devices; today's read \
                files on the working directory's device",
               "the last column divides the chess subset's user CPU (2:11 alone) by today's \
                calibrated program's: two programs' lengths as much as two machines; ratio alone \
                (user CPU alone / user CPU beside the readers) is the figure comparable across \
                machines"], ..T },
    SeedTable { key: "000-C", seed: "000", prefix: "Attachment C", title: "per-command accounting of the command script",
        quantities: COMMANDS, ids: &["load.script.1", "load.script.5", "load.script.9"],
        why: ATTACHMENT_C, ..T },
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
    SeedTable { key: "002-1", seed: "002", prefix: "Figure 1,", title: "cycle stealing by Unibus DMA devices",
        why: &["a diagram of the Unibus's DMA cycle stealing: no figures, and no Unibus today"], ..T },
    SeedTable { key: "002-2", seed: "002", prefix: "Figure 2,", title: "Event (clock) call timing, user",
        why: &["Figure 2's sys column (the event recorded from inside the kernel) is not set beside a \
                row: a clock read inside the kernel cannot be timed from user space without a \
                kernel tracer",
               "the paper checked its KW11-P clock against the time of day and a line-frequency clock \
                before trusting it; timeshare reads CLOCK_MONOTONIC, records the clock source with \
                every run (`timeshare sysinfo`) and the cost of a read, which it subtracts from \
                every figure (the first line of `timeshare show RUN`), and compares CLOCK_MONOTONIC's \
                rate with CLOCK_MONOTONIC_RAW's over the run (the environment's clock_rate, in \
                ppm), warning beyond 1000 ppm"], ..T },
    SeedTable { key: "002-3", seed: "002", prefix: "Figure 3,", title: "Direct vs. indirect system call timing (median)",
        ids: &["syscall.args.1", "syscall.args.2", "syscall.args.3", "syscall.args.4"],
        why: &["D(r0+0args) is the system-call instruction (syscall.args.0); the paper's indirect \
                call (`sys indir`, the call's copy fetched from user space) has no instruction \
                today, and I(r0+N args) are set beside the C library's syscall(2) with N \
                arguments (syscall.indirect.N); the (today) rows are the instruction with N \
                argument registers loaded. The per-argument increment is the slope of the \
                indirect rows (the paper's 95, 70 and 30 µs from its text); the 11/45 and \
                11/70 figures in parentheses, the paper's correction to no floating point, are \
                the columns without fpp",
               "syscall.args.0's timed loop is syscall.args.N's without its N register loads \
                (the generated code: 12 instructions a call against 12 + N, the same getpid \
                entry and exit), so the direct call cannot cost more than args.1–5 by its own \
                work: where a run shows it above them, the difference is the run's (order, \
                frequency, a neighbour), and rows measured together pinned to one CPU \
                (`timeshare run syscall.args --cpu 1`) agree"], ..T },
    SeedTable { key: "002-4", seed: "002", prefix: "Figure 4 ", title: "System call timing, no floating point (median, mean, SD)",
        quantities: MMS, why: &[SD_OF_BATCHES, NOT_ROWS], ..T },
    SeedTable { key: "002-5", seed: "002", prefix: "Figure 5 ", title: "System call timing, floating point (median, mean, SD)",
        quantities: MMS, ids: &["pipe.back.4", "pipe.back.4.fpu"], why: &[SD_OF_BATCHES, FP_SAVE], ..T },
    SeedTable { key: "002-6", seed: "002", prefix: "Figure 6,", title: "Subroutine call (median, mean, SD)",
        quantities: MMS, why: &[SD_OF_BATCHES], ..T },
    SeedTable { key: "003-c16", seed: "003", prefix: "C statements (16 bits)", title: "C statements, 16-bit integers",
        paper: reference::paper_lines, ..T },
    SeedTable { key: "003-c32", seed: "003", prefix: "C statements (32 bits)", title: "C statements, 32-bit integers",
        paper: reference::paper_lines, ..T },
    SeedTable { key: "003-kashtan", seed: "003", prefix: "Kashtan", title: "Kashtan programs kt5–kt11 (real, user, sys)",
        quantities: HUS, all_shown: true,
        why: &["the note's User and Sys are set beside today's for the programs of one process \
                (kt5, kt6, kt8, kt9); kt7, kt10 and kt11 run two, and the note's times are most \
                likely of both (time(1) counts a child the program waited for) where today's \
                count the measuring process and the children reaped during the samples only, \
                not a partner living across them: their historical user and system are not \
                transcribed (—). For the rates (kt5, kt9–kt11) user and system are shares (%) of \
                the real time, the note's (its seconds over its real time) as today's; for the \
                others seconds per operation. kt8's user is 0.0 in the note, under its tenth \
                of a second: left out",
               "the kernel splits CPU time into user and system by its clock tick: a 0 is a \
                share no tick saw, and a single process's share can come out a few percent \
                over 100%"], ..T },
    SeedTable { key: "003-zilog", seed: "003", prefix: "Zilog", title: "Zilog programs",
        ids: &["io.disk.seqwrite", "io.disk.seqread", "io.disk.randread"],
        paper: reference::paper_lines,
        why: &["the disk test's columns hold three figures each for four machines (the line \
                above) and the note does not say which machine has none. Its other disk test, \
                the Kashtan table, has no Accent column, so a missing Accent is the likeliest \
                reading, but a guess: a figure set in the wrong machine's column would make a \
                wrong ratio, so the (today) rows have no historical figure beside them"], ..T },
    SeedTable { key: "004-jobs", seed: "004", prefix: "§3", title: "each job type alone (real, user, sys)", quantities: HUS, ..T },
    SeedTable { key: "004-graphs", seed: "004", prefix: "Graphs", title: "real, user, sys per process against the number of processes",
        curve: Some("exercise.batch."), paper: reference::paper_lines,
        why: &["the paper's curves are drawn, not tabulated, so there is no historical column: \
                today's curve only, the exercise.batch.N rows of the newest stored run that has \
                them"], ..T },
];

pub fn find(key: &str) -> Option<&'static SeedTable> {
    TABLES.iter().find(|t| t.key == key)
}

/// How far a table is reproduced, from its data (the coverage page's status column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    /// The paper's figures beside today's, nothing said against them.
    Reproduced,
    /// The paper's figures beside today's, with a line saying what differs.
    Partly,
    /// Today's rows measured, no historical figure set beside them (the line says why).
    MeasuredOnly,
    /// Nothing to measure today (the line says why).
    NotMeasurable,
}

impl Coverage {
    pub fn name(self) -> &'static str {
        match self {
            Coverage::Reproduced => "reproduced",
            Coverage::Partly => "partly",
            Coverage::MeasuredOnly => "today only",
            Coverage::NotMeasurable => "not measured",
        }
    }
}

impl SeedTable {
    /// The paper's figures in this table, in transcription order.
    pub fn figures(&self) -> Vec<Figure> {
        reference::figures()
            .into_iter()
            .chain(reference::other_config_figures())
            .chain(reference::other_table_figures())
            .chain(reference::command_figures())
            .filter(|f| f.seed == self.seed && f.place.starts_with(self.prefix))
            .filter(|f| self.only.is_none_or(|p| f.id.starts_with(p)))
            .collect()
    }

    /// How the figures beside today's compare, counted for the docs ("24 same
    /// operation, 4 ≈ another program, 6 not comparable"), with the reasons of the latter
    /// two, each once.
    pub fn comparability(&self) -> (String, Vec<&'static str>) {
        let figures = self.figures();
        let count =
            |f: fn(&Comparability) -> bool| figures.iter().filter(|g| f(&g.comparability)).count();
        let counts = [
            (count(|c| *c == Comparability::Same), "same operation"),
            (
                count(|c| matches!(c, Comparability::Like(_))),
                "≈ same kind of work, another program",
            ),
            (
                count(|c| matches!(c, Comparability::Not(_))),
                "not comparable",
            ),
        ];
        let text: Vec<String> = counts
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect();
        let mut reasons: Vec<&'static str> = Vec::new();
        for why in figures.iter().filter_map(|f| f.comparability.reason()) {
            if !reasons.contains(&why) {
                reasons.push(why);
            }
        }
        (text.join(", "), reasons)
    }

    /// (label as printed, id) in the seed's order, then today's extra rows.
    pub fn rows(&self, figures: &[Figure]) -> Vec<(String, String)> {
        let mut rows: Vec<(String, String)> = Vec::new();
        for f in figures {
            if !rows.iter().any(|(_, id)| *id == f.id) {
                rows.push((row_label(f), f.id.clone()));
            }
        }
        for id in self.ids {
            if !rows.iter().any(|(_, i)| i == id) {
                rows.push(("(today)".to_string(), id.to_string()));
            }
        }
        rows
    }

    /// "Table 3", "Figure 4", "Attachment C": the table's name in the paper.
    pub fn name(&self) -> &'static str {
        self.name
            .unwrap_or_else(|| self.prefix.trim_end_matches([',', ' ']))
    }

    /// How far this table is reproduced: "reproduced" only when every figure is of
    /// today's operation and every readable row of the paper is in a column (none only in
    /// a `paper:` line, none without a row today).
    pub fn status(&self) -> Coverage {
        let figures = self.figures();
        let same = figures
            .iter()
            .all(|f| f.comparability == Comparability::Same);
        let all_laid_out = (self.paper)(self.key).is_empty();
        match (figures.is_empty(), self.why.is_empty(), self.ids.is_empty()) {
            (false, true, _) if same && all_laid_out => Coverage::Reproduced,
            (false, _, _) => Coverage::Partly,
            (true, _, false) => Coverage::MeasuredOnly,
            (true, _, true) if self.curve.is_some() => Coverage::MeasuredOnly,
            (true, _, true) => Coverage::NotMeasurable,
        }
    }

    /// The statistics printed: all of the paper's with `wide`; by default the user and
    /// system columns are left out of the tables that have them (001 Tables 2, 3 and 7,
    /// 004's jobs), whose headline is the elapsed time: three machines by three
    /// statistics would not fit the width.
    /// Tables marked `all_shown` (003's Kashtan programs, seven rows) print them all.
    pub fn shown(&self, wide: bool) -> Vec<Quantity> {
        self.quantities
            .iter()
            .copied()
            .filter(|q| wide || self.all_shown || !matches!(q, Quantity::User | Quantity::System))
            .collect()
    }

    /// The historical columns, in the order of the figures: one per machine, or one per
    /// configuration of a machine the table has in more than one.
    fn columns(&self, figures: &[Figure]) -> Vec<MachineColumn> {
        let mut seen: Vec<(&'static str, Option<&str>)> = Vec::new();
        for f in figures {
            if !seen.contains(&(f.machine, f.config())) {
                seen.push((f.machine, f.config()));
            }
        }
        let configs_of = |m: &str| seen.iter().filter(|(other, _)| *other == m).count();
        let mut columns: Vec<MachineColumn> = Vec::new();
        for &(machine, config) in &seen {
            let column = MachineColumn {
                machine,
                config: (configs_of(machine) > 1)
                    .then(|| config.map(str::to_string))
                    .flatten(),
            };
            if !columns.contains(&column) {
                columns.push(column);
            }
        }
        columns
    }
}

/// A historical column of a table: a machine, and its configuration where the table has
/// the machine in more than one (seed 000's Table 10: the 11/70 in C7 and in C8), each
/// configuration's figures in a column of their own and never taken for another's.
#[derive(Debug, Clone, PartialEq, Eq)]
struct MachineColumn {
    machine: &'static str,
    config: Option<String>,
}

impl MachineColumn {
    /// Whether `f` is of this column.
    fn holds(&self, f: &Figure) -> bool {
        f.machine == self.machine && self.config.as_deref().is_none_or(|c| f.config() == Some(c))
    }

    /// "pdp11-70", or "pdp11-70 (C8)" where the configuration is named.
    fn name(&self) -> String {
        match &self.config {
            Some(c) => format!("{} ({c})", self.machine),
            None => self.machine.to_string(),
        }
    }

    /// "11/70", or "11/70 C8".
    fn short(&self) -> String {
        match &self.config {
            Some(c) => format!("{} {c}", short(self.machine)),
            None => short(self.machine),
        }
    }
}

/// A machine's name as a column header, as short as the seeds' own ("4.3bsd", "11/70").
fn short(machine: &str) -> String {
    if let Some(rest) = machine.strip_prefix("pdp") {
        return rest.replacen('-', "/", 1).replace('-', " ");
    }
    if let Some(rest) = machine.strip_prefix("vax750-") {
        return rest.to_string();
    }
    machine.to_string()
}

/// "Table 2, row syscall, Elapsed Time 4.3" → "syscall"; otherwise the place's second part.
fn row_label(f: &Figure) -> String {
    let mut parts = f.place.split(", ");
    let _table = parts.next();
    let second = parts.next().unwrap_or(&f.id);
    second.strip_prefix("row ").unwrap_or(second).to_string()
}

/// What today's column of `quantity` is, for a row of `unit` and `basis`: the unit and
/// basis of the figure the layout sets beside the paper's. User, system and CPU time are
/// kept per operation of the headline's basis; the fault service time is per page fault.
pub fn column_kind(quantity: Quantity, unit: Unit, basis: &Basis) -> (Unit, Basis) {
    match quantity {
        Quantity::Headline
        | Quantity::Mean
        | Quantity::Sd
        | Quantity::BatchMean
        | Quantity::BatchSd => (unit, basis.clone()),
        // A rate's operation is its bytes, but its CPU time was counted per sampled
        // transfer: the time is given as a share of the real time, which needs no count.
        Quantity::User | Quantity::System | Quantity::Cpu if unit == Unit::BytesPerSecond => {
            (Unit::Ratio, basis.clone())
        }
        Quantity::User | Quantity::System | Quantity::Cpu => (Unit::SecondsPerOp, basis.clone()),
        Quantity::FaultService => (Unit::SecondsPerOp, Basis::per(PAGE_FAULT)),
        Quantity::Faults => (Unit::Count, basis.clone()),
        Quantity::ProgramUser => (Unit::SecondsPerOp, basis.clone()),
        Quantity::RatioAlone | Quantity::Inc | Quantity::RatioReal => (Unit::Ratio, basis.clone()),
        Quantity::ReadRate => (Unit::BytesPerSecond, Basis::per(BYTE_READ_BESIDE)),
        // A `load.script.N` row's per-command accounting, whatever the row's own basis.
        Quantity::CommandShare
        | Quantity::CommandRealShare
        | Quantity::CommandCpuShare
        | Quantity::CommandRealPerCpu => (Unit::Ratio, Basis::per(PER_COMMAND)),
        Quantity::CommandReal | Quantity::CommandCpu => {
            (Unit::SecondsPerOp, Basis::per(PER_COMMAND))
        }
    }
}

/// Today's figure of `quantity` for a result, with the unit and basis of
/// [`column_kind`]; no headline, mean or SD when the headline is under one cycle (at
/// `mhz`), under the clock's resolution or not positive (see `not_resolved`).
pub fn today(r: Option<&BenchResult>, quantity: Quantity, mhz: Option<f64>) -> Option<Measure> {
    let r = r.filter(|r| r.status == Status::Ok)?;
    let basis = r.basis.as_ref()?;
    let times = r.times.as_ref();
    let value = match quantity {
        // The mean and SD of samples the clock did not resolve are not resolved either,
        // whether of single calls or of batches.
        Quantity::Headline
        | Quantity::Mean
        | Quantity::Sd
        | Quantity::BatchMean
        | Quantity::BatchSd
            if not_resolved(r, mhz).is_some() =>
        {
            return None
        }
        Quantity::Headline => r.median()?,
        Quantity::Mean => r.single_calls.as_ref()?.mean_s,
        Quantity::Sd => r.single_calls.as_ref()?.sd_s,
        Quantity::BatchMean => r.summary.as_ref()?.mean,
        Quantity::BatchSd => r.summary.as_ref()?.sd,
        Quantity::User => cpu_figure(r.unit, times?, times?.user_s)?,
        Quantity::System => cpu_figure(r.unit, times?, times?.system_s)?,
        Quantity::Cpu => cpu_figure(r.unit, times?, times?.user_s + times?.system_s)?,
        Quantity::FaultService => r.details_as::<Paging>()?.fault_service_s?,
        Quantity::Faults => {
            let p = r.details_as::<Paging>()?;
            let touches = p.touches.filter(|&t| t > 0)? as f64;
            (p.minor_faults + p.major_faults) / touches
        }
        Quantity::ProgramUser => r.details_as::<IoInterference>()?.user_s,
        Quantity::RatioAlone => r.details_as::<IoInterference>()?.ratio_alone?,
        Quantity::Inc => load_inc(r)?,
        // Two historical machines' ratio: nothing of today's.
        Quantity::RatioReal => return None,
        // The details count bytes per µs; the column is bytes per second.
        Quantity::ReadRate => r.details_as::<IoInterference>()?.bytes_per_us * 1e6,
        // Per command, not per row: `super::seed_commands` reads them.
        Quantity::CommandShare
        | Quantity::CommandReal
        | Quantity::CommandRealShare
        | Quantity::CommandCpu
        | Quantity::CommandCpuShare
        | Quantity::CommandRealPerCpu => return None,
    };
    let (unit, basis) = column_kind(quantity, r.unit, basis);
    Some(Measure::new(value, unit, basis))
}

/// Where today's load stopped coping, as a result beside the paper's "Ran Out Of Swap
/// Space": each `load.cpu.N` or `load.script.N` row whose copies or users hit a limit of
/// the system (processes, memory, a timeout), with the limit, rather than a blank.
fn failure_points(results: &[&BenchResult]) -> Vec<String> {
    use crate::model::details::load::{CpuCopies, Scripts};
    results
        .iter()
        .filter_map(|r| {
            let why = match r.details_as::<CpuCopies>() {
                Some(c) => c.limit_hit,
                None => r.details_as::<Scripts>()?.limit_hit,
            }?;
            Some(format!("failure point: {} stopped coping: {why}\n", r.id))
        })
        .collect()
}

/// Today's Inc of a `load.cpu.N` or `load.script.N` row: its average real time per copy
/// (script) over one's alone, as the paper's.
fn load_inc(r: &BenchResult) -> Option<f64> {
    use crate::model::details::load::{CpuCopies, Scripts};
    match r.details_as::<CpuCopies>() {
        Some(c) => c.summary?.inc,
        None => r.details_as::<Scripts>()?.summary?.inc,
    }
}

/// CPU seconds per operation, or for a rate row their share of the real time (see
/// [`column_kind`]); none when no real time was measured.
fn cpu_figure(unit: Unit, times: &crate::model::OpTimes, cpu_s: f64) -> Option<f64> {
    match unit {
        Unit::BytesPerSecond => (times.elapsed_s > 0.0).then(|| cpu_s / times.elapsed_s),
        _ => Some(cpu_s),
    }
}

/// A figure as a cell: counts per operation (faults per page touch) are fractions, which
/// a count's whole-number format would round away.
fn cell(value: f64, unit: Unit) -> String {
    match unit {
        Unit::Count => figures3(value),
        _ => format_value(value, unit),
    }
}

/// A figure of `quantity` as a cell, the paper's or today's: a CPU time that is a share
/// of the real time reads as one.
fn figure_text(quantity: Quantity, value: f64, unit: Unit) -> String {
    let cpu = matches!(quantity, Quantity::User | Quantity::System | Quantity::Cpu);
    match unit {
        Unit::Ratio if cpu && value == 0.0 => "0".into(),
        Unit::Ratio if cpu => format!("{}%", figures3(value * 100.0)),
        _ => cell(value, unit),
    }
}

/// The bound and why, when `r`'s headline is not a measured figure.
fn not_resolved(r: &BenchResult, mhz: Option<f64>) -> Option<(String, &'static str)> {
    let s = shown_stored(r, mhz)?;
    Some((bound_text(s)?, s.why()?))
}

/// Today's figure per operation, or why there is none.
fn today_text(r: Option<&BenchResult>, quantity: Quantity, mhz: Option<f64>) -> String {
    if let (Some(r), Quantity::Headline) = (r.filter(|r| r.status == Status::Ok), quantity) {
        if let Some((bound, _)) = not_resolved(r, mhz) {
            return bound;
        }
    }
    let cpu = matches!(quantity, Quantity::User | Quantity::System | Quantity::Cpu);
    match (r, today(r, quantity, mhz)) {
        (_, Some(m)) if m.unit() == Unit::Count || (cpu && m.unit() == Unit::Ratio) => {
            figure_text(quantity, m.value(), m.unit())
        }
        // The kernel splits CPU time into user and system by its tick: a share that no
        // tick saw is an exact zero, not a measured one.
        (_, Some(m)) if cpu && m.value() == 0.0 => "0".into(),
        (_, Some(m)) => match m.per_op() {
            Ok(one) => format_value(one.value(), one.unit()),
            Err(_) => format_value(m.value(), m.unit()),
        },
        (None, _) => "not run".into(),
        (Some(r), None) => match &r.status {
            Status::Skipped { .. } => "skipped".into(),
            Status::Failed { .. } => "failed".into(),
            Status::Ok if r.basis.is_none() => "basis unknown".into(),
            Status::Ok => "—".into(),
        },
    }
}

/// A run today's figures may come from, and the name the table gives it ("run 12").
pub struct Source<'a> {
    pub name: String,
    pub run: &'a Run,
}

/// The result of `id` in the first of `sources` (newest first) that measured it, else the
/// first that has it at all (skipped, failed), with the index of its source.
pub(super) fn pick<'a>(sources: &'a [Source<'a>], id: &str) -> Option<(usize, &'a BenchResult)> {
    let find = |ok: bool| {
        sources.iter().enumerate().find_map(|(k, s)| {
            s.run
                .results
                .iter()
                .find(|r| r.id == id && (!ok || r.status == Status::Ok))
                .map(|r| (k, r))
        })
    };
    find(true).or_else(|| find(false))
}

/// The table for one run (named `run_name` in the title). `wide` shows every column of
/// the paper ([`SeedTable::shown`]).
pub fn render(table: &SeedTable, run: &Run, run_name: &str, wide: bool) -> String {
    render_from(
        table,
        &[Source {
            name: run_name.to_string(),
            run,
        }],
        wide,
    )
}

/// A column's header: its short name, broken at its first space onto a second line
/// ("11/45" over "fpp", "11/70" over "C8"), so that the header is no wider than the
/// figures under it.
fn header_of(column: &MachineColumn) -> String {
    let name = column.short();
    if name.contains(' ') {
        name.replacen(' ', "\n", 1)
    } else {
        name.replacen('-', "\n", 1)
    }
}

/// The narrowest the row label column is squeezed to: "FOR loop" still reads.
const LEAST_LABEL: usize = 8;

/// The width every table prints within by default (`--wide` may exceed it).
pub const DEFAULT_WIDTH: usize = 100;

/// The table with today's figure of each row from the newest of `sources` that has it
/// (newest first); a column says which run each row came from when there is more than one.
///
/// One column per machine: where a table has several statistics (seed 002's median, mean
/// and SD; seed 000's real and CPU; seed 001's elapsed, user and system with `wide`), a
/// row's cell holds one line per statistic, named in the `stat` column, so the table's
/// width does not grow with the number of statistics.
pub fn render_from(table: &SeedTable, sources: &[Source], wide: bool) -> String {
    if table.key == "000-B" {
        return super::seed_configs::render_from(sources);
    }
    if table.quantities == COMMANDS {
        return super::seed_commands::render_from(table, sources);
    }
    if let Some(prefix) = table.curve {
        return super::seed_curve::render(table, prefix, sources.first());
    }
    let figures = table.figures();
    let columns = table.columns(&figures);
    let several = sources.len() > 1;
    let shown = table.shown(wide);
    let stacked = shown.len() > 1;
    let names: Vec<&str> = shown.iter().map(|&q| column_name(table, q)).collect();
    let mut header = vec!["row".to_string(), "id".to_string()];
    if several {
        header.push("run".to_string());
    }
    if stacked {
        header.push("stat".to_string());
        header.push("today".to_string());
    } else {
        header.push(format!("today\n{}", names[0]));
    }
    for c in &columns {
        header.push(header_of(c));
    }
    let ratio = table.quantities[0];
    // Today against the last machine, in each of its configurations the table has.
    let last = columns.last().map(|c| c.machine);
    let against: Vec<&MachineColumn> = columns.iter().filter(|c| Some(c.machine) == last).collect();
    for c in &against {
        header.push(format!("today vs\n{}", c.short()));
    }
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = new_table(&header_refs);
    let mut reasons: Vec<String> = Vec::new();
    let mut used: Vec<usize> = Vec::new();
    let mut results: Vec<&BenchResult> = Vec::new();
    let mut label_width = "row".len();
    for (label, id) in table.rows(&figures) {
        let picked = pick(sources, &id);
        let result = picked.map(|(_, r)| r);
        let mhz = picked.and_then(|(i, _)| sources[i].run.environment.cpu.mhz);
        if let Some((_, why)) = result.and_then(|r| not_resolved(r, mhz)) {
            reasons.push(format!("not comparable: {id}: {why}"));
        }
        results.extend(result);
        label_width = label_width.max(label.chars().count());
        let mut row = vec![label, id.clone()];
        if several {
            row.push(match picked {
                Some((k, _)) => {
                    if !used.contains(&k) {
                        used.push(k);
                    }
                    sources[k].name.clone()
                }
                None => String::new(),
            });
        } else if picked.is_some() && used.is_empty() {
            used.push(0);
        }
        if stacked {
            row.push(names.join("\n"));
        }
        let then_of = |c: &MachineColumn, q: Quantity| {
            figures
                .iter()
                .find(|f| c.holds(f) && f.id == id && f.quantity == q)
        };
        let then_text =
            |c: &MachineColumn, q: Quantity| then_of(c, q).map(|f| figure_text(q, f.value, f.unit));
        let today_cells: Vec<String> = shown.iter().map(|&q| today_text(result, q, mhz)).collect();
        row.push(today_cells.join("\n"));
        for c in &columns {
            let cells: Vec<Option<String>> = shown.iter().map(|&q| then_text(c, q)).collect();
            row.push(if cells.iter().all(Option::is_none) {
                reference::printed_words(table.name(), c.machine, &id)
                    .map(two_lines)
                    .unwrap_or_default()
            } else {
                cells
                    .into_iter()
                    .map(|c| c.unwrap_or_else(|| "—".into()))
                    .collect::<Vec<_>>()
                    .join("\n")
            });
        }
        if columns.is_empty() {
            t.add_row(row);
            continue;
        }
        for c in &against {
            row.push(match (today(result, ratio, mhz), then_of(c, ratio)) {
                (Some(now), Some(f)) => match f.measure().divided_by(&now) {
                    Ok(then_over_now) => {
                        let better = result.map(|r| r.better).unwrap_or(Better::Lower);
                        let factor = match better {
                            Better::Lower => then_over_now,
                            Better::Higher => 1.0 / then_over_now,
                        };
                        speed_up_cell(&id, f, factor, &mut reasons)
                    }
                    Err(why) => {
                        let why = match why {
                            NotComparable::Ops { first, second } => {
                                format!("today per {second}, {} per {first}", c.short())
                            }
                            other => other.to_string(),
                        };
                        reasons.push(format!("not comparable: {id}: {why}"));
                        "not\ncomparable".into()
                    }
                },
                _ => String::new(),
            });
        }
        t.add_row(row);
    }
    let first_col = if several { 3 } else { 2 } + usize::from(stacked);
    let cols: Vec<usize> = (first_col..header.len()).collect();
    right(&mut t, &cols);
    // The id is what a reader searches for: it never wraps; the seed's row label may.
    super::table::no_wrap(&mut t, &[1]);
    if stacked {
        super::table::no_wrap(&mut t, &[first_col - 1]);
    }
    // The seed's row label wraps into what the figures leave of the width, down to a
    // word or two a line rather than past the width.
    if let Some(label) = t.column_mut(0) {
        label.remove_constraint();
    }
    let widest = t.to_string().lines().map(|l| l.chars().count()).max();
    let limit = usize::from(t.width().unwrap_or(u16::MAX));
    if let Some(excess) = widest.and_then(|w| w.checked_sub(limit)).filter(|&e| e > 0) {
        let label_now = label_width.min(usize::from(MIN_TEXT_COLUMN));
        let least = label_now.saturating_sub(excess).max(LEAST_LABEL);
        if least < label_now {
            if let Some(label) = t.column_mut(0) {
                // The constraint's width includes the cell's padding, a space each side.
                let least = Width::Fixed(least as u16 + 2);
                label.set_constraint(ColumnConstraint::UpperBoundary(least));
            }
        }
    }
    let today_is = match (several, sources.first()) {
        (false, Some(s)) => describe(s),
        (true, _) => format!(
            "the newest run that has each row (column run): {}",
            used.iter()
                .map(|&k| describe(&sources[k]))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        (false, None) => "no run".to_string(),
    };
    let mut out = format!(
        "seed {} {}: {}, per operation — today = {today_is}",
        table.seed,
        table.name(),
        table.title,
    );
    if columns.is_empty() {
        out.push_str(&format!("; {}\n{t}\n", without_columns(table)));
    } else {
        let names: Vec<String> = columns.iter().map(MachineColumn::name).collect();
        out.push_str(&format!(
            "; columns: {}\n{t}\nhistorical figures are the seed's, converted to one operation \
             (`timeshare reference MACHINE` shows each conversion), and today's whole jobs are \
             divided by the operations they hold; {}.\n",
            names.join(", "),
            ratio_columns_are(
                &against,
                column_name(table, ratio),
                figures
                    .iter()
                    .any(|f| f.quantity == ratio && f.comparability != Comparability::Same)
            ),
        ));
    }
    let hidden: Vec<&str> = table
        .quantities
        .iter()
        .filter(|q| !shown.contains(q))
        .map(|&q| column_name(table, q))
        .collect();
    if !hidden.is_empty() {
        out.push_str(&format!(
            "the paper's {} columns: `timeshare table {} --wide`\n",
            hidden.join(" and "),
            table.key
        ));
    }
    if shown
        .iter()
        .any(|q| matches!(q, Quantity::Faults | Quantity::FaultService))
    {
        out.extend(paging_line(&results));
    }
    out.extend(cache_hit_line(&results));
    out.extend(failure_points(&results));
    for line in (table.paper)(table.key) {
        out.push_str(&format!("paper: {line}\n"));
    }
    for n in table.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    for w in table.why {
        out.push_str(&format!("why: {w}\n"));
    }
    for r in reasons {
        out.push_str(&format!("{r}\n"));
    }
    out
}

/// What a heading says of a table with no historical column: the paper's figures are
/// in its `paper:` lines where it has them, else it has none.
pub(super) fn without_columns(table: &SeedTable) -> &'static str {
    if (table.paper)(table.key).is_empty() {
        "no historical figures"
    } else {
        "the paper's figures in the lines under the table, not in a column"
    }
}

/// Today's speed-up over the figure `f` as its [`Comparability`] lets it be printed: as
/// it is, marked "≈" or withheld, with the reason under the table (once per row).
fn speed_up_cell(id: &str, f: &Figure, factor: f64, reasons: &mut Vec<String>) -> String {
    let c = f.comparability;
    if let Some(why) = c.reason() {
        let kind = match c {
            Comparability::Not(_) => "not comparable:",
            _ => Comparability::MARK,
        };
        note_reason(reasons, kind, id, why);
    }
    c.shown(&format!("{}×", figures3(factor)))
        .unwrap_or_else(|| "—".to_string())
}

/// Adds `id` to the line under a table that gives `why` ("≈ load.script.1,
/// load.script.5: why"), or a new line: a reason shared by many rows is said once.
pub(super) fn note_reason(reasons: &mut Vec<String>, kind: &str, id: &str, why: &str) {
    let tail = format!(": {why}");
    let start = format!("{kind} ");
    match reasons
        .iter_mut()
        .find(|l| l.starts_with(&start) && l.ends_with(&tail))
    {
        Some(line) => {
            let ids = &line[start.len()..line.len() - tail.len()];
            if !ids.split(", ").any(|i| i == id) {
                *line = format!("{start}{ids}, {id}{tail}");
            }
        }
        None => reasons.push(format!("{start}{id}{tail}")),
    }
}

/// Words a table prints in place of a figure, on two lines of about equal length, so
/// that they widen their column little ("Ran Out Of" over "Swap Space").
fn two_lines(words: &str) -> String {
    let half = words.len() / 2;
    let at = words
        .match_indices(' ')
        .map(|(i, _)| i)
        .min_by_key(|&i| i.abs_diff(half));
    match at {
        Some(i) => format!("{}\n{}", &words[..i], &words[i + 1..]),
        None => words.to_string(),
    }
}

/// What the ratio columns are: "the last column is how many times faster today is than
/// pdp11-70 (elapsed)", or the same of each configuration's column.
/// `marked`: some figure of the table is not of today's operation, and the sentence says
/// how its ratio is printed.
fn ratio_columns_are(against: &[&MachineColumn], statistic: &str, marked: bool) -> String {
    let name = ratio_columns_name(against, statistic);
    if !marked {
        return name;
    }
    format!(
        "{name}, marked {} where today's row does the same kind of work with another program, \
         and \"—\" where the work differs (the reasons below)",
        Comparability::MARK
    )
}

fn ratio_columns_name(against: &[&MachineColumn], statistic: &str) -> String {
    match against {
        [one] => format!(
            "the last column is how many times faster today is than {} ({statistic})",
            one.name()
        ),
        several => {
            let names: Vec<String> = several.iter().map(|c| c.name()).collect();
            format!(
                "the last columns are how many times faster today is than {}, one column each \
                 ({statistic})",
                names.join(" and ")
            )
        }
    }
}

/// Which of today's paging rows really paged, and how they ran (001 Tables 7 and 8: the
/// paper paged 7,500 1 KB pages on a 4.5 MB machine): under a memory limit or not, and
/// whether any fault was served from the disk (a major fault) rather than from memory.
/// Seed 000 Table 4's cache hit rate today, from `cpu.cache`'s counted pass (`--counters`):
/// 1 − cache-misses / cache-references, or why there is none.
fn cache_hit_line(results: &[&BenchResult]) -> Option<String> {
    let r = super::views::cache::among(results)?;
    let Some(counters) = r.observe.as_ref().and_then(|o| o.counters.as_ref()) else {
        return Some(
            "cache hit rate today: not counted in this run (`timeshare run cpu.cache \
             --counters` counts it where the CPU's performance counters can be read)\n"
                .to_string(),
        );
    };
    let line = match (
        counters.total("cache-references"),
        counters.total("cache-misses"),
    ) {
        (Some(refs), Some(misses)) if refs > 0 && misses <= refs => format!(
            "cache hit rate today: {:.1}% (1 − cache-misses / cache-references over cpu.cache's \
             counted pass of every array size: the CPU's own events, on most x86 CPUs its \
             last-level cache, where the 11/70 had one cache and counted hits of all reads \
             and writes; no ratio is formed)",
            100.0 * (1.0 - misses as f64 / refs as f64)
        ),
        (Some(refs), Some(misses)) => format!(
            "cache hit rate today: not a rate ({misses} cache-misses of {refs} \
             cache-references counted)"
        ),
        _ => format!(
            "cache hit rate today: unavailable ({})",
            counters
                .unavailable("cache-references")
                .or_else(|| counters.unavailable("cache-misses"))
                .unwrap_or("the cache events were not counted")
        ),
    };
    Some(line + "\n")
}

fn paging_line(results: &[&BenchResult]) -> Option<String> {
    let mut limited: Vec<&str> = Vec::new();
    let mut free: Vec<&str> = Vec::new();
    let mut major: Vec<&str> = Vec::new();
    let mut why: Option<String> = None;
    for r in results {
        let Some(p) = r.details_as::<Paging>() else {
            continue;
        };
        if p.memory_limit.applied {
            limited.push(&r.id);
        } else {
            free.push(&r.id);
            why = why.or(p.memory_limit.why.clone());
        }
        if p.major_faults > 0.0 {
            major.push(&r.id);
        }
    }
    if limited.is_empty() && free.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    if !limited.is_empty() {
        parts.push(format!("under a memory limit: {}", limited.join(", ")));
    }
    if !free.is_empty() {
        let all = if limited.is_empty() {
            "every row"
        } else {
            "the others"
        };
        parts.push(match why {
            Some(why) => format!("{all} without a memory limit ({why})"),
            None => format!("{all} without a memory limit"),
        });
    }
    parts.push(if major.is_empty() {
        "no row paged from the disk: every fault was a minor one, served from memory".to_string()
    } else {
        format!("paged from the disk (major faults): {}", major.join(", "))
    });
    Some(format!(
        "paging today: {}; faults are per page touch.\n",
        parts.join("; ")
    ))
}

/// A column's statistic as the paper names it: seed 002's headline is the median.
fn column_name(table: &SeedTable, q: Quantity) -> &'static str {
    let single_calls = table.quantities.contains(&Quantity::Mean);
    match q {
        Quantity::Headline if single_calls => "median (batches)",
        Quantity::Mean if single_calls => "mean (1 call)",
        Quantity::Sd if single_calls => "SD (1 call)",
        q => q.name(),
    }
}

pub(super) fn describe(s: &Source) -> String {
    format!(
        "{} ({}, {})",
        s.name,
        super::style::escape(&s.run.environment.hostname),
        s.run.started_at.format("%Y-%m-%d %H:%M UTC")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::OpTimes;

    /// A measured row of `unit` whose sampled operation took 1 s, 0.25 s of it in user
    /// mode and `system_s` in the kernel.
    fn timed(unit: Unit, system_s: f64) -> BenchResult {
        let better = match unit {
            Unit::BytesPerSecond => Better::Higher,
            _ => Better::Lower,
        };
        BenchResult {
            status: Status::Ok,
            summary: Some(crate::model::Summary::around(5e6, 1e4)),
            times: Some(OpTimes {
                ops: 10,
                elapsed_s: 1.0,
                user_s: 0.25,
                system_s,
            }),
            ..BenchResult::new(
                "pipe.bw.self",
                "pipe",
                "fixture",
                unit,
                better,
                Some(Basis::per("byte")),
            )
        }
    }

    /// A measured time row of `id`: `seconds` per operation of `basis`.
    fn ok_result(id: &str, seconds: f64, basis: Basis) -> BenchResult {
        BenchResult {
            status: Status::Ok,
            summary: Some(crate::model::Summary::around(seconds, seconds / 100.0)),
            ..BenchResult::new(
                id,
                "syscall",
                "fixture",
                Unit::SecondsPerOp,
                Better::Lower,
                Some(basis),
            )
        }
    }

    #[test]
    fn a_rate_row_s_cpu_time_is_a_share_of_its_real_time_never_seconds_per_byte() {
        let r = timed(Unit::BytesPerSecond, 0.5);
        let user = today(Some(&r), Quantity::User, None).unwrap();
        assert_eq!(user.unit(), Unit::Ratio);
        assert!((user.value() - 0.25).abs() < 1e-12, "{user:?}");
        assert_eq!(today_text(Some(&r), Quantity::System, None), "50.0%");
        // A time row keeps seconds per operation.
        let t = timed(Unit::SecondsPerOp, 0.5);
        assert_eq!(
            today(Some(&t), Quantity::User, None).unwrap().unit(),
            Unit::SecondsPerOp
        );
        assert_eq!(
            column_kind(Quantity::Cpu, Unit::BytesPerSecond, &Basis::per("byte")).0,
            Unit::Ratio
        );
    }

    #[test]
    fn a_share_no_tick_saw_is_printed_as_zero_and_no_real_time_gives_none() {
        let r = timed(Unit::BytesPerSecond, 0.0);
        assert_eq!(today_text(Some(&r), Quantity::System, None), "0");
        let mut none = timed(Unit::BytesPerSecond, 0.5);
        none.times.as_mut().unwrap().elapsed_s = 0.0;
        assert!(today(Some(&none), Quantity::User, None).is_none());
    }

    /// A run of `cpu.cache` whose counted pass read `counters` (none: not counted).
    fn cache_run(counters: Option<Vec<(&'static str, crate::model::observe::Reading)>>) -> Run {
        use crate::model::observe::{Counted, Observation, PerfCounters};
        let observe = counters.map(|cs| Observation {
            counters: Some(PerfCounters {
                ops: 1000,
                counters: cs
                    .into_iter()
                    .map(|(name, reading)| Counted {
                        name: name.to_string(),
                        hardware: true,
                        reading,
                    })
                    .collect(),
            }),
            ..Observation::default()
        });
        Run::of(vec![BenchResult {
            status: Status::Ok,
            summary: Some(crate::model::Summary::around(2e-9, 1e-11)),
            observe,
            ..BenchResult::new(
                "cpu.cache",
                "cache",
                "fixture",
                Unit::SecondsPerOp,
                Better::Lower,
                None,
            )
        }])
    }

    #[test]
    fn table_4_s_hit_rate_is_today_s_counted_one_or_says_why_not() {
        use crate::model::observe::Reading;
        let table = find("000-4").unwrap();
        let counted = |total| Reading::Counted {
            total,
            per_op: total as f64 / 1000.0,
            running: 1.0,
        };
        let text = render(
            table,
            &cache_run(Some(vec![
                ("cache-references", counted(1000)),
                ("cache-misses", counted(27)),
            ])),
            "run 1",
            false,
        );
        assert!(
            text.contains("cache hit rate today: 97.3% (1 − cache-misses"),
            "{text}"
        );
        let pmu = "no hardware PMU: the kernel exposes no CPU performance counters here";
        let none = |name: &'static str| {
            (
                name,
                Reading::Unavailable {
                    reason: pmu.to_string(),
                },
            )
        };
        let text = render(
            table,
            &cache_run(Some(vec![none("cache-references"), none("cache-misses")])),
            "run 1",
            false,
        );
        assert!(
            text.contains(&format!("cache hit rate today: unavailable ({pmu})")),
            "{text}"
        );
        let text = render(table, &cache_run(None), "run 1", false);
        assert!(
            text.contains("cache hit rate today: not counted in this run"),
            "{text}"
        );
        // More misses than references is not a rate, and is not printed as one.
        let text = render(
            table,
            &cache_run(Some(vec![
                ("cache-references", counted(10)),
                ("cache-misses", counted(27)),
            ])),
            "run 1",
            false,
        );
        let line = text
            .lines()
            .find(|l| l.starts_with("cache hit rate today"))
            .unwrap();
        assert!(line.contains("not a rate") && !line.contains('%'), "{line}");
    }

    /// A run whose `load.script.N` rows took `real_s` per script, CPU a quarter of it.
    fn scripts_run(rows: &[(usize, f64)]) -> Run {
        use crate::model::details::load::PER_SCRIPT;
        let results = rows
            .iter()
            .map(|&(n, real_s)| BenchResult {
                status: Status::Ok,
                summary: Some(crate::model::Summary::around(real_s, real_s / 100.0)),
                times: Some(OpTimes {
                    ops: 1,
                    elapsed_s: real_s,
                    user_s: real_s / 8.0,
                    system_s: real_s / 8.0,
                }),
                ..BenchResult::new(
                    format!("load.script.{n}"),
                    "load",
                    "fixture",
                    Unit::Seconds,
                    Better::Lower,
                    Some(Basis::per(PER_SCRIPT)),
                )
            })
            .collect();
        Run::of(results)
    }

    #[test]
    fn table_10_of_seed_000_sets_c8_beside_c7_each_with_its_own_ratio() {
        let table = find("000-10").unwrap();
        let text = render(
            table,
            &scripts_run(&[(1, 0.5), (5, 1.0), (9, 2.0)]),
            "run 1",
            false,
        );
        let header: String = text.lines().take(6).collect::<Vec<_>>().join("\n");
        assert!(header.contains("pdp11-70 (C7), pdp11-70 (C8)"), "{text}");
        let cells = |prefix: &str| -> Vec<String> {
            let line = text
                .lines()
                .find(|l| l.starts_with(prefix))
                .unwrap_or_else(|| panic!("no {prefix}: {text}"));
            line.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect()
        };
        // 1 script: C7's 4:18.7 and C8's 4:07.0, each over today's 0.5 s.
        assert_eq!(
            cells(" # Scripts 1"),
            [
                "# Scripts 1",
                "load.script.1",
                "elapsed",
                "500 ms",
                "560 s",
                "259 s",
                "247 s",
                &format!("≈{}×", figures3(258.7 / 0.5)),
                &format!("≈{}×", figures3(247.0 / 0.5)),
            ],
            "{text}"
        );
        // 5 scripts: C8's 16:25.4 over today's 1 s.
        let five = cells(" # Scripts 5");
        assert_eq!(
            five.last().unwrap(),
            &format!("≈{}×", figures3(985.4)),
            "{text}"
        );
        // 9 scripts: C8 ran none, so no C8 figure and no ratio against it; C7's is there.
        let nine = cells(" # Scripts 9");
        assert_eq!(nine.len(), 7, "{nine:?}\n{text}");
        assert_eq!(nine[5], "1767 s", "{text}");
        assert_eq!(nine[6], format!("≈{}×", figures3(1767.4 / 2.0)), "{text}");
    }

    #[test]
    fn table_9_prints_the_paper_s_words_today_s_failure_point_and_no_speed_up() {
        use crate::model::details::load::CpuCopies;
        use crate::model::Details;
        let copies = CpuCopies {
            copies: 15,
            footprint_bytes: 0,
            rounds: 0,
            per_copy_real_user_sys_s: Vec::new(),
            limit_hit: Some("fork: no more processes (RLIMIT_NPROC)".into()),
            driver: None,
            summary: None,
        };
        let mut run = scripts_run(&[]);
        run.results.push(BenchResult {
            status: Status::Ok,
            summary: Some(crate::model::Summary::around(2.0, 0.01)),
            details: Some(Details::of(&copies)),
            ..BenchResult::new(
                "load.cpu.15",
                "load",
                "fixture",
                Unit::Seconds,
                Better::Lower,
                Some(Basis::per(crate::model::details::load::PER_COPY)),
            )
        });
        let text = render(find("000-9").unwrap(), &run, "run 1", false);
        let row = text.lines().find(|l| l.contains(" load.cpu.15 ")).unwrap();
        assert!(row.contains("Ran Out Of"), "{text}");
        assert!(!row.contains('×'), "a copy's length is calibrated: {text}");
        assert!(
            text.contains(
                "failure point: load.cpu.15 stopped coping: fork: no more processes (RLIMIT_NPROC)"
            ),
            "{text}"
        );
        assert!(
            text.contains("not comparable: load.cpu.15: today's copy"),
            "{text}"
        );
    }

    #[test]
    fn a_table_with_one_configuration_a_machine_keeps_one_column_and_one_ratio() {
        // Table 9: the 11/70 in C7 only.
        let table = find("000-9").unwrap();
        let figures = table.figures();
        let columns: Vec<String> = table.columns(&figures).iter().map(|c| c.name()).collect();
        assert_eq!(columns, ["pdp11-45", "pdp11-70"]);
        let columns: Vec<String> = find("000-10")
            .unwrap()
            .columns(&find("000-10").unwrap().figures())
            .iter()
            .map(|c| c.name())
            .collect();
        assert_eq!(columns, ["pdp11-45", "pdp11-70 (C7)", "pdp11-70 (C8)"]);
    }

    #[test]
    fn kashtan_shows_today_s_user_and_system_and_table_2_keeps_them_for_wide() {
        let kashtan = find("003-kashtan").unwrap();
        assert_eq!(
            kashtan.shown(false),
            vec![Quantity::Headline, Quantity::User, Quantity::System]
        );
        // The note's User and Sys of the one-process programs, none of the two-process.
        let figures = kashtan.figures();
        let has = |id: &str, q: Quantity| figures.iter().any(|f| f.id == id && f.quantity == q);
        assert!(has("pipe.bw.self", Quantity::System) && has("io.randwrite", Quantity::User));
        assert!(!has("pipe.bw.one", Quantity::System) && !has("signal.self", Quantity::User));
        assert_eq!(
            find("001-2").unwrap().shown(false),
            vec![Quantity::Headline]
        );
    }

    /// The figures after `id` on its line in `text`, in the order printed (a wrapped label
    /// leaves the figures on the id's line; the label's own numbers come before the id).
    fn figures_on(text: &str, id: &str) -> Vec<f64> {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().any(|w| w == id))
            .unwrap_or_else(|| panic!("no {id}: {text}"));
        line.split_whitespace()
            .skip_while(|w| *w != id)
            .filter_map(|w| w.parse::<f64>().ok())
            .collect()
    }

    #[test]
    fn the_perq_notes_stat_and_open_close_are_rows_with_ratios() {
        // Columns perq-accent, perq-mcunix, perq-pnx, pdp11-70-ral: 208, 24, 19, 8 ms
        // and > 1 sec, 26, 19, 7 ms, as printed.
        let run = Run::of(vec![
            ok_result("syscall.stat", 2e-6, Basis::per("stat of a file")),
            ok_result(
                "syscall.open_close",
                4e-6,
                Basis::per("open and close of a file"),
            ),
        ]);
        let c32 = render(find("003-c32").unwrap(), &run, "run 1", false);
        assert_eq!(
            figures_on(&c32, "syscall.stat"),
            [2.0, 208.0, 24.0, 19.0, 8.0]
        );
        // Accent's cell is the words "> 1 sec", whose 1 the line's numbers include.
        assert_eq!(
            figures_on(&c32, "syscall.open_close"),
            [4.0, 1.0, 26.0, 19.0, 7.0]
        );
        let line = |id: &str| c32.lines().find(|l| l.contains(id)).unwrap().to_string();
        // Today over the 11/70: 8 ms / 2 µs and 7 ms / 4 µs.
        assert!(
            line("syscall.stat").contains(&format!("{}×", figures3(4000.0))),
            "{c32}"
        );
        assert!(
            line("syscall.open_close").contains(&format!("{}×", figures3(1750.0))),
            "{c32}"
        );
        assert!(
            line("syscall.open_close").contains("> 1"),
            "Accent's words: {c32}"
        );
        assert!(
            !c32.contains("stat / open and close"),
            "no longer a paper: line: {c32}"
        );
    }

    #[test]
    fn no_heading_says_no_historical_figures_above_a_paper_line() {
        let empty = Run::of(vec![]);
        let mut with_lines = 0;
        for table in TABLES.iter().filter(|t| t.key != "000-B") {
            let text = render(table, &empty, "run 1", false);
            if text.lines().any(|l| l.starts_with("paper: ")) {
                with_lines += 1;
                assert!(
                    !text.contains("no historical figures"),
                    "{}: {text}",
                    table.key
                );
            }
        }
        assert!(with_lines >= 5, "{with_lines} tables with paper: lines");
    }

    #[test]
    fn tables_9_and_10_have_the_paper_s_ratio_real_in_c7_and_c8() {
        let ratio_real = |key: &str, config: &str| -> Vec<f64> {
            find(key)
                .unwrap()
                .figures()
                .iter()
                .filter(|f| f.quantity == Quantity::RatioReal && f.config() == Some(config))
                .map(|f| f.value)
                .collect()
        };
        assert_eq!(ratio_real("000-9", "C7"), [2.6, 3.5, 3.7, 4.2]);
        assert_eq!(ratio_real("000-10", "C7"), [2.2, 2.7, 3.0]);
        assert_eq!(ratio_real("000-10", "C8"), [2.3, 2.7]);
        let text = render(find("000-9").unwrap(), &Run::of(vec![]), "run 1", false);
        assert!(text.contains("ratio real"), "{text}");
        // The 10-copy row's 11/70 cell holds its real, CPU, Inc and Ratio Real.
        let start = text.find("load.cpu.10").unwrap();
        let row: String = text[start..].lines().take(4).collect::<Vec<_>>().join("\n");
        assert!(row.contains("4.2"), "{row}");
    }

    #[test]
    fn the_perq_notes_nested_calls_are_rows_in_their_columns() {
        // Columns perq-accent, perq-mcunix, perq-pnx, pdp11-70-ral, as printed.
        let empty = Run::of(vec![]);
        let c16 = render(find("003-c16").unwrap(), &empty, "run 1", false);
        let c32 = render(find("003-c32").unwrap(), &empty, "run 1", false);
        assert_eq!(
            figures_on(&c16, "call.nested5.noargs"),
            [484.0, 78.0, 78.0, 110.0]
        );
        assert_eq!(
            figures_on(&c16, "call.nested5"),
            [590.0, 120.0, 126.0, 117.0]
        );
        assert_eq!(
            figures_on(&c16, "call.nested5.byref"),
            [522.0, 99.0, 102.0, 114.0]
        );
        assert_eq!(
            figures_on(&c32, "call.nested5.noargs"),
            [484.0, 78.0, 78.0, 110.0]
        );
        assert_eq!(
            figures_on(&c32, "call.nested5"),
            [537.0, 103.0, 104.0, 130.0]
        );
        assert_eq!(
            figures_on(&c32, "call.nested5.byref"),
            [504.0, 102.0, 102.0, 132.0]
        );
        for text in [&c16, &c32] {
            assert!(!text.contains("no row today"), "{text}");
        }
    }

    #[test]
    fn seed_004s_spread_is_set_beside_the_80_process_trials() {
        use crate::model::exercise::sweep_fixture;
        let run = sweep_fixture(&[(8, &[10.0, 12.0, 14.0]), (80, &[100.0, 110.0])], None);
        let text = render(find("004-graphs").unwrap(), &run, "run 1", false);
        assert!(
            text.contains("today's 2 trials at 80 (exercise.batch.80)"),
            "{text}"
        );
        let row = |what: &str| -> Vec<String> {
            let line = text
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{what} ")))
                .unwrap_or_else(|| panic!("no {what}: {text}"));
            line.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(String::from)
                .collect()
        };
        // The paper's 15:43 ± 3.3 s (0.35%); today's 105 s ± 7.07 s (6.73%); user 60% of
        // it per instance, 80 instances.
        assert_eq!(
            row("real"),
            ["real", "943 s", "3.30 s", "0.35%", "105 s", "7.07 s", "6.73%"]
        );
        assert_eq!(row("user")[1..4], ["673 s", "800 ms", "0.12%"]);
        assert_eq!(row("user")[4..], ["5040 s", "339 s", "6.73%"]);
        assert_eq!(row("sys")[3], "1.21%");
        // Without a size of several trials, no spread and how to make one.
        let once = sweep_fixture(&[(8, &[10.0]), (16, &[20.0])], None);
        let text = render(find("004-graphs").unwrap(), &once, "run 1", false);
        assert!(text.contains("--sweep 16 --trials 7"), "{text}");
    }

    #[test]
    fn seed_004s_failure_point_is_the_first_size_that_failed() {
        use crate::model::exercise::sweep_fixture;
        let run = sweep_fixture(&[(4, &[1.0]), (8, &[2.0]), (16, &[4.0])], Some(8));
        let text = render(find("004-graphs").unwrap(), &run, "run 1", false);
        assert!(
            text.contains("failure point: 8 processes, the first number of the sweep that failed"),
            "{text}"
        );
        assert!(
            text.contains("failed: exercise.batch.8 (8 processes): 1 of 8"),
            "{text}"
        );
    }
}

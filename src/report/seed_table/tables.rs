//! The seeds' tables, one entry each: key, the paper's columns and rows, and the sentences
//! printed under them where today's system cannot be measured the paper's way.

use super::*;

pub(super) const H: &[Quantity] = &[Quantity::Headline];
pub(super) const HUS: &[Quantity] = &[Quantity::Headline, Quantity::User, Quantity::System];
/// Seed 000 Tables 9 and 10 (and Attachment B, their configurations): real and CPU per
/// copy (script), Inc, the load's effect, and Ratio Real, the 11/45's real over the 11/70's.
pub(super) const HCIR: &[Quantity] = &[
    Quantity::Headline,
    Quantity::Cpu,
    Quantity::Inc,
    Quantity::RatioReal,
];
/// Seed 002's columns: median, mean and SD per call, the mean and SD of single calls as
/// the paper's; then today's mean and SD of the batches, which the paper has not.
pub(super) const MMS: &[Quantity] = &[
    Quantity::Headline,
    Quantity::Mean,
    Quantity::Sd,
    Quantity::BatchMean,
    Quantity::BatchSd,
];
/// Seed 002 Figure 3's columns: median, mean and SD per call, of single calls as the
/// paper's; the mean and SD only with `--wide`, where five machines' columns leave room.
pub(super) const MED_MEAN_SD: &[Quantity] = &[Quantity::Headline, Quantity::Mean, Quantity::Sd];
pub(super) const FS: &[Quantity] = &[Quantity::FaultService];
/// Seed 000 Table 11: the timed program's user CPU, ratio alone and the readers' rate.
pub(super) const TABLE11: &[Quantity] = &[
    Quantity::ProgramUser,
    Quantity::RatioAlone,
    Quantity::ReadRate,
];
/// Seed 000 Attachment C: per command, its share of the commands, average real time and
/// its share of all the real time, the same of CPU time, and real/CPU.
pub(super) const COMMANDS: &[Quantity] = &[
    Quantity::CommandShare,
    Quantity::CommandReal,
    Quantity::CommandRealShare,
    Quantity::CommandCpu,
    Quantity::CommandCpuShare,
    Quantity::CommandRealPerCpu,
];
/// Seed 001 Table 7: real, user, system and page faults.
pub(super) const HUSF: &[Quantity] = &[
    Quantity::Headline,
    Quantity::User,
    Quantity::System,
    Quantity::Faults,
];

pub(super) const T: SeedTable = SeedTable {
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
    wide_only: &[],
    notes: &[],
    curve: None,
};

/// Seed 002's mean and SD are of single calls; today's are both, named.
pub(super) const SD_OF_BATCHES: &str =
    "the paper's mean and SD are of single calls timed one by one, and so \
     are today's \"1 call\" lines (2,001 calls in quick mode, 10,001 in full, the cost of an \
     empty timed region and of a loop iteration taken from each; \"—\" for a run made before \
     they were measured); the median, the ratio's figure, is of calibrated batches, and the \
     batches' mean and SD are smaller than the calls' by about the square root of the batch";

/// Figure 4's and 5's rows without a row today, and why.
pub(super) const NOT_ROWS: &str =
    "rows of the paper not set beside one today: csw (reading the console \
     switch register: no such device or call today); stme (stime sets the system clock, which \
     would disturb the machine's time for everyone, even set to the time just read: never run); \
     gtty(m) (gtty with the system in multi-user mode: today's system always is, and \
     syscall.gtty, TCGETS on a pseudo-terminal the row opens, is set beside gtty(s))";

/// Seed 002's floating-point save, added to every system call in 1976, is today a cost of
/// the context switch.
pub(super) const FP_SAVE: &str =
    "the paper's floating-point save (170 µs on the 11/45, 140 µs on the \
     11/70, added to every system call from a C program) has no per-call counterpart: Linux \
     saves floating-point and vector registers on a context switch, not on a system call. \
     Today's cost is pipe.back.4.fpu − pipe.back.4 (the (today) rows), per pipe round trip \
     of two switches: a different operation, so no ratio";

/// Attachment C's per-command table against today's: what is and is not comparable.
pub(super) const ATTACHMENT_C: &[&str] = &[
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
pub(super) const NAMEI_BY_STATE: &[&str] = &[
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
pub(super) const NAMEI_CALL: &str =
    "the paper's ms/call (the line above) is the mean namei call of a \
     time-sharing machine's whole day — paths of every length, hits and misses mixed — timed \
     inside the kernel by its profiler; today's rows are one stat(2) of a path of D components \
     in one cache state: warm (fs.namei.D), a name that does not exist (fs.namei.neg.D, a \
     negative dentry) or cold (fs.namei.cold.D). Per call both, but not the same call: no \
     ratio is formed";

/// What the cold rows evict, and when they are skipped.
pub(super) const NAMEI_COLD: &str = "the cold rows drop the dentry and the inode caches (2 into \
     /proc/sys/vm/drop_caches, machine-wide) before each single timed lookup; the page \
     cache, and with it the directories' blocks, stays. They need root and a disk-backed \
     directory, and are skipped with the reason otherwise";

/// 4.3BSD's hit rates, which Linux does not count.
pub(super) const NAMEI_HITS: &str =
    "the paper's hit rates (the line above) cannot be counted here: \
     Linux keeps no count of dentry cache hits and misses that user space can read (a kernel \
     tracer could count them); Linux has one dentry cache where 4.3BSD had a per-process and a \
     system-wide one, and the rows set its three states side by side instead";

#[rustfmt::skip]
pub const TABLES: &[SeedTable] = &[
    SeedTable { key: "000-1", seed: "000", prefix: "Table 1,", title: "chess, 130 moves (real, user and sys CPU)",
        quantities: HUS, all_shown: true,
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
        quantities: &[Quantity::Headline, Quantity::Cpu], all_shown: true, ids: &["mixed.build"],
        why: &["the 1975 system's sources are not at hand; mixed.build builds a bundled multi-file C \
                program with today's compiler: a build, not the same build"], ..T },
    SeedTable { key: "000-7", seed: "000", paper: reference::paper_lines, prefix: "Table 7,", title: "building the Fortran compiler (real, CPU)",
        quantities: &[Quantity::Headline, Quantity::Cpu], all_shown: true, ids: &["mixed.fortran"],
        why: &["the 1975 Fortran compiler's sources and assembler are not at hand, and building a \
                modern Fortran compiler is a different job of hours; mixed.fortran does the \
                table's kind of work with today's gfortran: a bundled library of builtin \
                functions and I/O routines, each module compiled by itself and put in its \
                library with ar, and a program linked against them and checked: a build, not \
                the same build. Skipped, with the reason, where gfortran is not installed"], ..T },
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
        quantities: HCIR, ids: &["load.script.1", "load.cpu.1"], why: crate::report::seed_configs::WHY, ..T },
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
    SeedTable { key: "002-2", seed: "002", prefix: "Figure 2,", title: "Event (clock) call timing, sys and user",
        why: &["Figure 2's sys column is the event call made from system code: today's \
                timer.clock.kernel, the clock read inside the kernel, is found as \
                syscall.time.raw (clock_gettime forced into the kernel) less syscall.args.0 \
                (the same entry and exit with no work), both of one run; a clock read inside \
                the kernel cannot be timed by itself from user space",
               "the paper checked its KW11-P clock against the time of day and a line-frequency clock \
                before trusting it; timeshare reads CLOCK_MONOTONIC, records the clock source with \
                every run (`timeshare sysinfo`) and the cost of a read, which it subtracts from \
                every figure (the first line of `timeshare show RUN`), and compares CLOCK_MONOTONIC's \
                rate with CLOCK_MONOTONIC_RAW's over the run (the environment's clock_rate, in \
                ppm), warning beyond 1000 ppm"], ..T },
    SeedTable { key: "002-3", seed: "002", prefix: "Figure 3,", title: "Direct vs. indirect system call timing (median, mean, SD)",
        quantities: MED_MEAN_SD, wide_only: &[Quantity::Mean, Quantity::Sd],
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
                (`timeshare run syscall.args --cpu 1`) agree",
               "the paper's mean and SD are of single calls, with floating point (the 11/40 \
                had none; the figures in parentheses correct only the median), and so are \
                today's \"1 call\" lines (2,001 calls in quick mode, 10,001 in full); the \
                median, the ratio's figure, is of calibrated batches"], ..T },
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

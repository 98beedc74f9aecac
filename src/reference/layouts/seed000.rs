//! Seed 000's tables' layouts.

use super::*;
use crate::reference::{self, Quantity};

/// The rows of Tables 9 and 10 and Attachments B and C: N command scripts at once
/// (`load.script.N`), and N copies of a compute-bound program (`load.cpu.N`).
pub const SCRIPTS: &str = "load.script.";
pub const COPIES: &str = "load.cpu.";

/// The row of `n` command scripts at once.
pub fn scripts_row(n: impl std::fmt::Display) -> String {
    format!("{SCRIPTS}{n}")
}

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

/// Said under the table.
pub const CONFIGURATIONS_WHY: &[&str] = &[
    "each configuration is compared with another on the same machine only: Inc (real per \
     script or copy over one alone) and, where the sweep has both, tmp=disk ÷ tmp=tmpfs real \
     beside the paper's C7 ÷ C8 (/tmp on an RS04 disk ÷ /tmp on the memory device, the same \
     11/70 otherwise); no speed-up over the 11/70, whose script and program were other work \
     (`table 000-10`, `table 000-9`)",
    "C2 is the paper's 11/45 and C7 its 11/70 in Tables 9 and 10; C8 ran 1 and 5 scripts \
     only; Tables 6 and 7 (builds, `table 000-6`, `000-7`) are the paper's other figures of \
     C1, C5, C6 and C9",
    "today's mem=SIZE puts the run in a memory cgroup of SIZE (page cache included): the \
     nearest to the paper's 15 or 40 I/O buffers; swap has no configuration (the copies \
     page to files, the cgroup has no swap)",
];

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
        quantities: HCIR, ids: &["load.script.1", "load.cpu.1"], why: CONFIGURATIONS_WHY, ..T },
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
];

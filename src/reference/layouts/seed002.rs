//! Seed 002's tables' layouts.

use super::*;

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

#[rustfmt::skip]
pub const TABLES: &[SeedTable] = &[
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
];

//! Seed 002 (Perez & Raleigh, *UNIX System Call Measurements*, Bell Labs 1976): PDP-11/40,
//! 11/45 and 11/70, each system call timed 100 times, median/mean/SD in µs per call.
//!
//! Reading of the OCR: each figure's caption comes *after* its table ("Figure 4 / System
//! Call Timing (usec.) - nofpp" follows the table whose 11/40 columns are filled). The
//! text confirms it: "a direct system call takes a minimum of 520, 450, and 220 usec. on
//! 11/40, 11/45, 11/70" matches the first table's getpid row (520, 460, 230), and the
//! floating-point save adds 170 (11/45) / 140 (11/70) µs, which matches the second table
//! (620, 330). So:
//! - Figure 2: event (clock) call, sys and user, nfpp and fpp: the user column is
//!   `timer.clock`, the sys column (the event recorded from system code)
//!   `timer.clock.kernel`, derived as syscall.time.raw − syscall.args.0;
//! - Figure 3: direct vs indirect, 0–4 arguments after r0; values in parentheses are the
//!   seed's own correction to a machine without floating point;
//! - Figure 4: system calls, no floating-point hardware (the machines `pdp11-40`,
//!   `pdp11-45`, `pdp11-70`);
//! - Figure 5: system calls with floating-point hardware (`pdp11-45-fpp`, `pdp11-70-fpp`;
//!   the 11/40 had none);
//! - Figure 6: the empty subroutine call.
//!
//! Row names as printed and their ids: gpid getpid, guid getuid, ggid getgid, sig signal,
//! time → `syscall.time.raw` (in 1976 time(2) was a real system call, so the honest
//! modern counterpart is the one forced into the kernel, not the vDSO read), gtty(s) →
//! `syscall.gtty` (the single-user row; the multi-user row is not kept). Not transcribed:
//! csw (reading the console switch register: no modern counterpart) and stme (stime:
//! never run, it would set the clock). dup was timed in groups of twelve but the printed
//! figure is per call, and the twelve descriptors were closed outside the timing ("the
//! recording program was forced to close twelve files before continuing"): its basis is a
//! dup call, where `syscall.dup` times a dup and its close, so the two are never divided.
//!
//! Bases: every figure is per call (Figure 4 and 5 "System Call Timing", Figure 3's
//! direct and indirect calls), Figure 6 per subroutine call, Figure 2 per event call —
//! the clock read every other figure was corrected by, `timer.clock`'s operation.
//! Figure 3's direct "D(r0+0args)" is `syscall.args.0` (the instruction itself; it costs
//! what getpid does) and its indirect "I(r0+1arg)" … "I(r0+4args)" are
//! `syscall.indirect.1` … `.4` (through syscall(2), today's nearest counterpart of `sys
//! indir`); the text's increment per argument (95, 70, 30 µs) is per argument, beside
//! the derived `syscall.args.slope`.

use super::{per_op, Comparability, Figure, Machine, Quantity};

pub fn machines() -> Vec<Machine> {
    vec![
        Machine {
            name: "pdp11-40",
            hardware: "DEC PDP-11/40",
            system: "UNIX (Bell Labs, 1976)",
            about: "seed 002 Figures 2, 3, 4, 6",
        },
        Machine {
            name: "pdp11-45",
            hardware: "DEC PDP-11/45",
            system: "UNIX (Bell Labs, 1975–76)",
            about: "seed 002 Figures 2, 3, 4, 6 (no floating-point hardware); seed 000 Tables 1, 3, 5, 9, 10",
        },
        Machine {
            name: "pdp11-45-fpp",
            hardware: "DEC PDP-11/45 with floating-point processor",
            system: "UNIX (Bell Labs, 1976)",
            about: "seed 002 Figures 2, 3, 5: floating-point registers saved on every call",
        },
        Machine {
            name: "pdp11-70",
            hardware: "DEC PDP-11/70",
            system: "UNIX (Bell Labs, 1975–76)",
            about: "seed 002 Figures 2, 3, 4, 6 (no floating-point hardware); seed 000 Tables 1, 3, 5, 9, 10, 11 (prototype 11/70)",
        },
        Machine {
            name: "pdp11-70-fpp",
            hardware: "DEC PDP-11/70 with floating-point processor",
            system: "UNIX (Bell Labs, 1976)",
            about: "seed 002 Figures 2, 3, 5: floating-point registers saved on every call",
        },
    ]
}

/// Figure 4 (no fpp) as printed: row, id, then (median, mean, SD) in µs for the 11/40,
/// 11/45 and 11/70.
#[rustfmt::skip]
const FIGURE_4: &[(&str, &str, [[f64; 3]; 3])] = &[
    ("alarm", "syscall.alarm", [[540.0, 582.0, 157.0], [480.0, 488.0, 34.0], [220.0, 244.0, 82.0]]),
    ("dup", "syscall.dup", [[790.0, 838.0, 60.0], [680.0, 679.0, 39.0], [320.0, 323.0, 22.0]]),
    ("ggid", "syscall.getgid", [[520.0, 545.0, 45.0], [460.0, 495.0, 156.0], [220.0, 228.0, 53.0]]),
    ("gpid", "syscall.getpid", [[520.0, 537.0, 44.0], [460.0, 471.0, 43.0], [230.0, 236.0, 52.0]]),
    ("guid", "syscall.getuid", [[530.0, 564.0, 155.0], [460.0, 465.0, 25.0], [220.0, 241.0, 77.0]]),
    ("gtty(s)", "syscall.gtty", [[1310.0, 1381.0, 227.0], [1010.0, 1049.0, 177.0], [560.0, 578.0, 55.0]]),
    ("kill", "syscall.kill", [[880.0, 942.0, 219.0], [720.0, 725.0, 33.0], [380.0, 379.0, 12.0]]),
    ("nice", "syscall.nice", [[550.0, 567.0, 44.0], [480.0, 500.0, 112.0], [240.0, 249.0, 61.0]]),
    ("time", "syscall.time.raw", [[560.0, 584.0, 49.0], [490.0, 506.0, 118.0], [230.0, 242.0, 53.0]]),
    ("times", "syscall.times", [[1320.0, 1346.0, 66.0], [1020.0, 1028.0, 47.0], [520.0, 527.0, 15.0]]),
    ("sig", "syscall.signal", [[970.0, 993.0, 55.0], [770.0, 779.0, 41.0], [390.0, 396.0, 56.0]]),
    ("sgid", "syscall.setgid", [[810.0, 918.0, 246.0], [540.0, 580.0, 157.0], [270.0, 291.0, 91.0]]),
    ("suid", "syscall.setuid", [[720.0, 764.0, 196.0], [480.0, 493.0, 53.0], [260.0, 269.0, 64.0]]),
];

/// Figure 5 (fpp) as printed: row, id, then (median, mean, SD) in µs for the 11/45 and
/// 11/70 (the 11/40 columns are empty).
#[rustfmt::skip]
const FIGURE_5: &[(&str, &str, [[f64; 3]; 2])] = &[
    ("alarm", "syscall.alarm", [[630.0, 640.0, 31.0], [350.0, 363.0, 17.0]]),
    ("dup", "syscall.dup", [[830.0, 826.0, 37.0], [460.0, 455.0, 26.0]]),
    ("ggid", "syscall.getgid", [[620.0, 653.0, 171.0], [350.0, 357.0, 53.0]]),
    ("gpid", "syscall.getpid", [[620.0, 636.0, 121.0], [330.0, 345.0, 56.0]]),
    ("guid", "syscall.getuid", [[620.0, 643.0, 122.0], [340.0, 350.0, 56.0]]),
    ("gtty(s)", "syscall.gtty", [[1180.0, 1177.0, 32.0], [730.0, 732.0, 17.0]]),
    ("kill", "syscall.kill", [[870.0, 896.0, 110.0], [490.0, 516.0, 34.0]]),
    ("nice", "syscall.nice", [[640.0, 651.0, 108.0], [350.0, 374.0, 82.0]]),
    ("time", "syscall.time.raw", [[650.0, 655.0, 43.0], [350.0, 362.0, 56.0]]),
    ("times", "syscall.times", [[1180.0, 1197.0, 138.0], [660.0, 653.0, 58.0]]),
    ("sig", "syscall.signal", [[930.0, 972.0, 207.0], [500.0, 507.0, 18.0]]),
    ("sgid", "syscall.setgid", [[700.0, 720.0, 109.0], [430.0, 435.0, 61.0]]),
    ("suid", "syscall.setuid", [[650.0, 660.0, 118.0], [380.0, 386.0, 16.0]]),
];

/// Figure 3 as printed: row, id, the 11/40's (Med, Mean, SD), the 11/45's and the 11/70's
/// (Med, Mean, SD, and the Med in parentheses, the paper's correction to no floating
/// point). The 11/40 had no floating point: no correction. The Mean and SD are of the
/// machines as measured, with floating point; the paper corrected only the median.
type Row3 = (&'static str, &'static str, [f64; 3], [f64; 4], [f64; 4]);

#[rustfmt::skip]
const FIGURE_3: &[Row3] = &[
    ("D(r0+0args)", "syscall.args.0", [520.0, 549.0, 153.0], [615.0, 616.0, 5.0, 445.0], [360.0, 367.0, 43.0, 220.0]),
    ("I(r0+1arg)", "syscall.indirect.1", [790.0, 812.0, 52.0], [800.0, 861.0, 161.0, 630.0], [420.0, 436.0, 70.0, 280.0]),
    ("I(r0+2args)", "syscall.indirect.2", [890.0, 909.0, 53.0], [870.0, 904.0, 84.0, 700.0], [470.0, 481.0, 13.0, 330.0]),
    ("I(r0+3args)", "syscall.indirect.3", [980.0, 1005.0, 52.0], [940.0, 1005.0, 169.0, 770.0], [500.0, 523.0, 21.0, 360.0]),
    ("I(r0+4args)", "syscall.indirect.4", [1080.0, 1106.0, 60.0], [1005.0, 1069.0, 169.0, 835.0], [520.0, 524.0, 16.0, 380.0]),
];

/// Why Figure 2's sys column is set beside a difference of two system calls.
const KERNEL_CLOCK: &str = "the paper's event routine was called from system code and \
     wrote its time to a trace buffer; today's figure is the clock read inside the kernel \
     found as a difference, clock_gettime forced into the kernel less the same entry and \
     exit with no work (syscall.time.raw − syscall.args.0): the read and the copy of its \
     result to the caller";

const CPUS: [&str; 3] = ["11/40", "11/45", "11/70"];

/// Whether today's row of `f`'s id does the paper's work ([`Comparability`]): every call
/// is today's same call, but for the indirect call, which has no instruction today, and the
/// clock read inside the kernel, which is found as a difference of two calls.
pub fn comparability(f: &Figure) -> Comparability {
    if f.id.starts_with("syscall.indirect.") {
        return Comparability::Like(
            "the paper's indirect call (sys indir) fetched the call from user space; no \
             instruction does that today, and the C library's syscall(2) with N arguments \
             stands in",
        );
    }
    if f.id == "timer.clock.kernel" {
        return Comparability::Like(KERNEL_CLOCK);
    }
    Comparability::Same
}

fn micro(
    machine: &'static str,
    id: &'static str,
    place: String,
    printed: String,
    us: f64,
    what: &str,
) -> Figure {
    per_op(
        machine,
        id,
        Quantity::Headline,
        "002",
        place,
        printed,
        us * 1e-6,
        1.0,
        what,
        basis(id),
    )
}

/// What a figure of `id` is per.
fn basis(id: &str) -> &'static str {
    match id {
        "syscall.dup" => "dup call",
        "call.subroutine" => "subroutine call",
        "timer.clock" | "timer.clock.kernel" => "clock read",
        _ => "system call",
    }
}

/// A row's median, mean and SD as printed, in µs per call: three figures of one place
/// ("Figure 4 (nofpp), row gpid, 11/70" + " Med").
fn stats(
    machine: &'static str,
    id: &'static str,
    place: String,
    [med, mean, sd]: [f64; 3],
) -> Vec<Figure> {
    let printed = format!("Med {med} µs (Mean {mean}, SD {sd})");
    let mut out = Vec::new();
    for (column, quantity, us) in [
        ("Med", Quantity::Headline, med),
        ("Mean", Quantity::Mean, mean),
        ("SD", Quantity::Sd, sd),
    ] {
        let mut f = micro(
            machine,
            id,
            format!("{place} {column}"),
            printed.clone(),
            us,
            "call",
        );
        f.quantity = quantity;
        out.push(f);
    }
    out
}

pub fn figures() -> Vec<Figure> {
    let mut out = Vec::new();
    let nofpp = ["pdp11-40", "pdp11-45", "pdp11-70"];
    for &(row, id, cols) in FIGURE_4 {
        for (k, [med, mean, sd]) in cols.into_iter().enumerate() {
            out.extend(stats(
                nofpp[k],
                id,
                format!("Figure 4 (nofpp), row {row}, {}", CPUS[k]),
                [med, mean, sd],
            ));
        }
    }
    let fpp = ["pdp11-45-fpp", "pdp11-70-fpp"];
    for &(row, id, cols) in FIGURE_5 {
        for (k, [med, mean, sd]) in cols.into_iter().enumerate() {
            out.extend(stats(
                fpp[k],
                id,
                format!("Figure 5 (fpp), row {row}, {}", CPUS[k + 1]),
                [med, mean, sd],
            ));
        }
    }
    for &(row, id, m40, m45, m70) in FIGURE_3 {
        out.extend(stats(
            "pdp11-40",
            id,
            format!("Figure 3, row {row}, 11/40"),
            m40,
        ));
        for (cpu, [med, mean, sd, without], fp_machine, machine) in [
            ("11/45", m45, "pdp11-45-fpp", "pdp11-45"),
            ("11/70", m70, "pdp11-70-fpp", "pdp11-70"),
        ] {
            out.extend(stats(
                fp_machine,
                id,
                format!("Figure 3, row {row}, {cpu}"),
                [med, mean, sd],
            ));
            out.push(micro(
                machine,
                id,
                format!("Figure 3, row {row}, {cpu} Med, figure in parentheses (nofpp)"),
                format!("({without}) µs"),
                without,
                "call",
            ));
        }
    }
    // Figure 3's text: "That increment may be approximated as 95 usec., 70usec., and 30
    // usec. for the 11/40, 11/45 and 11/70 respectively. Because the latter two figures
    // represent systems with floating point…": per argument, the fpp machines' columns.
    for (machine, cpu, us) in [
        ("pdp11-40", "11/40", 95.0),
        ("pdp11-45-fpp", "11/45", 70.0),
        ("pdp11-70-fpp", "11/70", 30.0),
    ] {
        let mut f = micro(
            machine,
            "syscall.args.slope",
            format!("Figure 3, row per argument (text), {cpu}"),
            format!("{us} µs"),
            us,
            "argument",
        );
        f.basis = crate::model::Basis::per("system call argument");
        out.push(f);
    }
    // Figure 6: one empty subroutine call, Med (Mean, SD) in µs; no floating point involved.
    for (machine, cpu, med, mean, sd) in [
        ("pdp11-40", "11/40", 64.0, 64.0, 2.0),
        ("pdp11-45", "11/45", 37.0, 37.0, 1.0),
        ("pdp11-70", "11/70", 18.0, 18.0, 5.0),
    ] {
        out.extend(stats(
            machine,
            "call.subroutine",
            format!("Figure 6, row subroutine call, {cpu}"),
            [med, mean, sd],
        ));
    }
    // Figure 2: the event call made from system code ("sys" column) and from a user
    // program ("user" column), the clock read every other figure was corrected by; its
    // nfpp and fpp rows are one row here, the fpp figures in the `-fpp` machines' columns.
    // The 11/40 had no floating point, and its fpp cells are empty.
    for (machine, cpu, row, sys, user) in [
        ("pdp11-40", "11/40", "nfpp", 220.0, 1340.0),
        ("pdp11-45", "11/45", "nfpp", 150.0, 870.0),
        ("pdp11-45-fpp", "11/45", "fpp", 150.0, 1040.0),
        ("pdp11-70", "11/70", "nfpp", 77.0, 420.0),
        ("pdp11-70-fpp", "11/70", "fpp", 77.0, 560.0),
    ] {
        let inside = micro(
            machine,
            "timer.clock.kernel",
            format!("Figure 2, row event call (sys), {cpu} {row}"),
            format!("{sys} µs"),
            sys,
            "event call",
        );
        out.push(inside);
        out.push(micro(
            machine,
            "timer.clock",
            format!("Figure 2, row event call (user), {cpu} {row}"),
            format!("{user} µs"),
            user,
            "event call",
        ));
    }
    out
}

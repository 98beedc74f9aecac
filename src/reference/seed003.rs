//! Seed 003 (RAL PERQ UNIX Implementation Note 60, 1983): a half-MB PERQ under PNX
//! Release 1, beside a PERQ under Accent Unix (1 MB), a PERQ under early microcode UNIX
//! (half MB) and RAL's PDP-11/70 (`pdp11-70-ral`: a different installation and year from
//! seed 002's 11/70, so kept apart).
//!
//! Reading of the OCR (heavily damaged):
//! - The C statement tables lost their row structure: each column's figures run together
//!   in one line. In both tables the first thirteen figures of every column line up with
//!   the first thirteen row labels (FOR, REPEAT, WHILE loops of 10 iterations; x = 0;
//!   x = a; x = a/2*3+4-5; x = a/a*a+a-a; `ar[j] = ar[j-1]`; IF (x<50); IF (x<1); 5 nested
//!   proc calls; with value par's; with ref par's) — the patterns agree across the four
//!   columns. After them the labels are garbled (several "x = a # b") and the columns hold
//!   different counts, so the arithmetic rows are not transcribed. Exception: the 11/70's
//!   16-bit column holds two extra figures among the IF rows ("6 1.6 1.6 1.6 1.4" where
//!   three are expected), so its array and IF rows are left out too.
//! - "Single Precision (16 bits)" is `cpu.stmt.i16.*`, "Double Precision (32 bits)" is
//!   `cpu.stmt.i32.*` (the note's precision is the integer width). IF (x<50) is taken as
//!   the branch that is taken (`if_true`), IF (x<1) as `if_false`. The three "5 nested
//!   proc calls" rows: the first, without parameters, is `call.nested5.noargs`, "with
//!   value par's" `call.nested5`, "with ref par's" `call.nested5.byref`; one operation is
//!   the whole nest of five calls, as printed. The 16-bit table's figures are the ids'
//!   headlines; the 32-bit table's are laid out under `table 003-c32` only
//!   ([`table_32_calls`]).
//! - Zilog table: the disk test's three columns hold three figures for four machines, so
//!   which machine is missing cannot be told: not transcribed as figures, but kept as
//!   printed ([`zilog_disk`]) for a line under the table. The Kashtan table, the note's
//!   other disk test, has no Accent column, which makes a missing Accent the likeliest
//!   reading — a guess the figures are not set on. Accent's "sys" (712 s) and
//!   "piper" (398 s) are two orders of magnitude above the others; they are kept as
//!   printed (Accent ran UNIX as an emulation), but a lost decimal point cannot be ruled
//!   out.
//! - Kashtan table (m:ss, PDP-11/70, Microcode Unix, PNX only): Real, User and Sys for
//!   each machine. User and Sys are transcribed for the one-process programs (kt5, kt6,
//!   kt8, kt9; see `KASHTAN_CPU`), for the rates as a share of the real time. kt9–kt11 are
//!   5 MBytes, taken as 5 × 2^20 bytes; kt11 moves 5 MB each way, and its rate is the
//!   total (10 MB) over the real time.
//! - kt7, "Two processes signal each other 20,000 times", is read as 20,000 round trips
//!   (a signal each way), the unit Berkeley's csw counted — seed 001 modelled its kernel
//!   benchmarks "after the Kashtan benchmarks", and its csw's count is of round trips
//!   although its Table 1 calls them "context switches". The per-round-trip figure this
//!   gives on the 11/70 (4.2 ms) matches the VAX-11/750's csw (4.5 ms), a machine of the
//!   same speed by the two notes' getpid (310 µs here, 280 µs under 4.1BSD); read as
//!   20,000 single signals it would be twice that.
//!
//! Bases: the statement tables are per statement (a loop row's statement is the whole
//! 10-iteration loop), the nested-call rows per nest of five calls; the Zilog programs
//! per one of the operations their description counts (sieve pass, call of
//! dummy(a, b, c), getpid call, 512-byte pipe write); kt6 per random 512-byte write, kt7
//! per signal round trip, kt8 per signal to itself; kt5 and kt9–kt11 are rates of the
//! bytes they name.

use super::{minutes_seconds, per_op, Comparability, Figure, Machine, Quantity};
use crate::model::{Basis, Unit};

pub fn machines() -> Vec<Machine> {
    vec![
        Machine {
            name: "pdp11-70-ral",
            hardware: "DEC PDP-11/70 (Rutherford Appleton Laboratory)",
            system: "UNIX, one user on the machine (1983)",
            about: "seed 003: C statements, Kashtan and Zilog programs",
        },
        Machine {
            name: "perq-accent",
            hardware: "Three Rivers PERQ, 1 MB",
            system: "Accent UNIX",
            about: "seed 003: C statements, Zilog programs",
        },
        Machine {
            name: "perq-mcunix",
            hardware: "Three Rivers PERQ, 0.5 MB",
            system: "early microcode UNIX",
            about: "seed 003: C statements, Kashtan and Zilog programs",
        },
        Machine {
            name: "perq-pnx",
            hardware: "Three Rivers PERQ, 0.5 MB",
            system: "PNX Release 1",
            about: "seed 003: C statements, Kashtan and Zilog programs",
        },
    ]
}

const COLUMNS: [(&str, &str); 4] = [
    ("perq-accent", "AccUnix PERQ"),
    ("perq-mcunix", "Mi-Unix PERQ"),
    ("perq-pnx", "PNX PERQ"),
    ("pdp11-70-ral", "PDP 11/70"),
];

/// The first thirteen rows of the C statement tables: label, catalogue statement (or
/// the `call.*` id for the nested-call rows).
const STATEMENT_ROWS: [(&str, &str); 13] = [
    ("FOR loop (10 iterations)", "for10"),
    ("REPEAT loop (10 iterations)", "repeat10"),
    ("WHILE loop (10 iterations)", "while10"),
    ("x = 0;", "zero"),
    ("x = a;", "assign"),
    ("x = a/2*3+4-5;", "expr1"),
    ("x = a/a*a+a-a;", "expr2"),
    ("ar[j] = ar[j-1];", "array"),
    ("IF (x<50) ;ELSE;", "if_true"),
    ("IF (x<1) ;ELSE;", "if_false"),
    ("5 nested proc calls", "call.nested5.noargs"),
    ("with value par's", "call.nested5"),
    ("with ref par's", "call.nested5.byref"),
];

/// The 16-bit table's first thirteen figures per column (µs), as printed; `None` where
/// the column cannot be read (see the module comment).
#[rustfmt::skip]
const TABLE_16: [[Option<f64>; 13]; 4] = [
    [Some(195.0), Some(157.0), Some(197.0), Some(2.3), Some(3.7), Some(41.0), Some(52.0), Some(22.0), Some(13.0), Some(13.0), Some(484.0), Some(590.0), Some(522.0)],
    [Some(239.0), Some(220.0), Some(239.0), Some(6.0), Some(11.0), Some(35.0), Some(60.0), Some(22.0), Some(11.0), Some(9.0), Some(78.0), Some(120.0), Some(99.0)],
    [Some(256.0), Some(237.0), Some(255.0), Some(6.0), Some(12.0), Some(36.0), Some(63.0), Some(25.0), Some(13.0), Some(10.0), Some(78.0), Some(126.0), Some(102.0)],
    [Some(48.0), Some(48.0), Some(55.0), Some(2.4), Some(2.4), Some(14.0), Some(16.0), None, None, None, Some(110.0), Some(117.0), Some(114.0)],
];

/// The 32-bit table's first ten figures per column (µs), as printed.
#[rustfmt::skip]
const TABLE_32: [[f64; 10]; 4] = [
    [232.0, 194.0, 222.0, 1.9, 4.2, 36.0, 44.0, 40.0, 14.0, 12.0],
    [155.0, 147.0, 156.0, 1.4, 2.1, 28.0, 36.0, 22.0, 7.6, 5.0],
    [158.0, 155.0, 157.0, 2.1, 2.8, 28.0, 37.0, 22.0, 7.4, 4.2],
    [102.0, 122.0, 89.0, 5.3, 5.4, 97.0, 102.0, 11.0, 2.3, 2.1],
];

/// The 32-bit table's nested-call rows per column (µs), as printed: the 16-bit table's
/// rows 11–13 again ("5 nested proc calls", "with value par's", "with ref par's").
/// Kept apart from [`figures`] ([`table_32_calls`]): `call.nested5.noargs`, `call.nested5`
/// and `call.nested5.byref` have the 16-bit table's figures there already, and a machine has
/// one headline per id.
#[rustfmt::skip]
const TABLE_32_CALLS: [[f64; 3]; 4] = [
    [484.0, 537.0, 504.0],
    [78.0, 103.0, 102.0],
    [78.0, 104.0, 102.0],
    [110.0, 130.0, 132.0],
];

/// The 32-bit table's last three figures per column, as printed: a row whose label the
/// OCR lost, then stat and open/close ("the last two system calls for file statistics
/// (stat), and opening and closing a file", the note's text). Accent's open/close is
/// printed "> 1 sec": words, not a figure.
#[rustfmt::skip]
const TABLE_32_LAST: [(&str, &str, Option<&str>); 4] = [
    ("70ms", "208ms", None),
    ("223us", "24ms", Some("26ms")),
    ("243us", "19ms", Some("19ms")),
    ("370us", "8ms", Some("7ms")),
];

/// The operations of the note's stat and open/close rows, as today's `syscall.stat` and
/// `syscall.open_close` name theirs (tests/it/basis.rs holds the two to one name).
const STAT_OP: &str = "stat of a file";
const OPEN_CLOSE_OP: &str = "open and close of a file";

/// "223us", "24ms" as printed in the 32-bit table: seconds.
fn printed_seconds(text: &str) -> f64 {
    let (number, scale) = match text.strip_suffix("us") {
        Some(n) => (n, 1e-6),
        None => (text.strip_suffix("ms").expect(text), 1e-3),
    };
    number.parse::<f64>().expect(text) * scale
}

/// The 32-bit table's stat and open/close rows, as figures of `syscall.stat` and
/// `syscall.open_close` (one stat; one open and its close). Accent's open/close is
/// printed "> 1 sec", words and not a figure: its cell prints them ([`WORDS`]).
pub fn table_32_file_calls() -> Vec<Figure> {
    let mut out = Vec::new();
    for ((machine, column), (_, stat, open_close)) in COLUMNS.into_iter().zip(TABLE_32_LAST) {
        let rows = [
            ("stat", "syscall.stat", STAT_OP, Some(stat)),
            (
                "open/close",
                "syscall.open_close",
                OPEN_CLOSE_OP,
                open_close,
            ),
        ];
        for (label, id, op, printed) in rows {
            let Some(printed) = printed else { continue };
            out.push(per_op(
                machine,
                id,
                Quantity::Headline,
                "003",
                format!("C statements (32 bits), row {label}, {column}"),
                printed.to_string(),
                printed_seconds(printed),
                1.0,
                op,
                op,
            ));
        }
    }
    out
}

/// Cells of the 32-bit table that print words where a figure would be: (table, machine,
/// id, the words as printed).
pub const WORDS: &[(&str, &str, &str, &str)] = &[(
    "C statements (32 bits)",
    "perq-accent",
    "syscall.open_close",
    "> 1 sec",
)];

/// The 32-bit table's three nested-call rows, as figures of `call.nested5.noargs`,
/// `call.nested5` and `call.nested5.byref` (see [`TABLE_32_CALLS`] why apart).
pub fn table_32_calls() -> Vec<Figure> {
    let mut out = Vec::new();
    for (c, (machine, column)) in COLUMNS.into_iter().enumerate() {
        for (k, (label, id)) in STATEMENT_ROWS[10..].iter().enumerate() {
            out.push(statement(
                machine,
                id,
                "32 bits",
                label,
                column,
                TABLE_32_CALLS[c][k],
            ));
        }
    }
    out
}

/// The lines under `table 003-c32`: the rows of the paper no row of today's does (the
/// 32-bit table's row whose label was lost; stat and open/close are rows,
/// [`table_32_file_calls`]). Every row of the 16-bit table that could be read is laid out.
pub fn statement_lines(key: &str) -> Vec<String> {
    if key != "003-c32" {
        return Vec::new();
    }
    let lost: Vec<String> = COLUMNS
        .iter()
        .zip(TABLE_32_LAST)
        .map(|((_, column), (first, _, _))| format!("{column} {first}"))
        .collect();
    vec![format!(
        "the row before stat, its label lost in the OCR: {}; not set beside a row",
        lost.join(", ")
    )]
}

/// Zilog programs, seconds as printed for PDP 11/70, Acc Unix, Microcode, PNX: row, id,
/// operations, what they are, what one is (the basis).
type ZilogRow = (
    &'static str,
    &'static str,
    f64,
    &'static str,
    &'static str,
    [f64; 4],
);

#[rustfmt::skip]
const ZILOG: &[ZilogRow] = &[
    ("sieve", "cpu.sieve", 20.0, "sieve passes over 0..8191", "sieve pass over 8,191 flags", [3.7, 27.0, 11.5, 14.0]),
    ("proc", "cpu.proc_call", 1_000_000.0, "calls of dummy(a, b, c)", "call of dummy(a, b, c)", [36.1, 148.4, 41.9, 42.2]),
    ("sys", "syscall.getpid", 10_000.0, "getpid calls", "system call", [3.1, 712.0, 2.3, 2.5]),
    ("piper", "pipe.piper", 2_000.0, "pipe writes of 512 bytes", "512-byte pipe write", [16.2, 398.0, 7.7, 8.5]),
];
const ZILOG_MACHINES: [&str; 4] = ["pdp11-70-ral", "perq-accent", "perq-mcunix", "perq-pnx"];

/// The Zilog disk test as printed: a) 1000 sequential writes, b) 1000 sequential reads,
/// c) 1000 random reads, seconds — three figures each for the table's four machines, in
/// an order whose missing machine the note does not give.
const ZILOG_DISK: [(&str, &str, [f64; 3]); 3] = [
    ("a", "1000 sequential writes", [32.2, 42.8, 44.4]),
    ("b", "1000 sequential reads", [17.5, 36.3, 36.0]),
    ("c", "1000 random reads", [37.4, 59.7, 71.0]),
];

/// The Zilog disk test's figures as lines for `table 003-zilog`: printed, never set in
/// a machine's column (which machine each belongs to cannot be told).
pub fn zilog_disk(key: &str) -> Vec<String> {
    if key != "003-zilog" {
        return Vec::new();
    }
    let columns: Vec<String> = ZILOG_DISK
        .iter()
        .map(|(col, what, secs)| {
            format!(
                "{col}) {what}: {:.1} s, {:.1} s, {:.1} s",
                secs[0], secs[1], secs[2]
            )
        })
        .collect();
    vec![format!(
        "disk test, three figures for four machines (PDP 11/70, Accent, Microcode, PNX), the \
         missing one not given: {}",
        columns.join("; ")
    )]
}

/// Kashtan programs, real time as printed (m:ss) for PDP 11/70, Microcode Unix, PNX.
#[rustfmt::skip]
const KASHTAN: &[(&str, &str, [&str; 3])] = &[
    ("kt5", "io.seqwrite", ["1:42", "45", "2:40"]),
    ("kt6", "io.randwrite", ["30", "7:53", "9:41"]),
    ("kt7", "signal.pingpong", ["1:24", "1:10", "1:14"]),
    ("kt8", "signal.self", ["5", "5", "5"]),
    ("kt9", "pipe.bw.self", ["1:00", "32", "34"]),
    ("kt10", "pipe.bw.one", ["1:06", "42", "46"]),
    ("kt11", "pipe.bw.both", ["2:15", "1:24", "1:30"]),
];
const KASHTAN_MACHINES: [&str; 3] = ["pdp11-70-ral", "perq-mcunix", "perq-pnx"];

/// The Kashtan table's User and Sys columns, as printed (seconds, or m:ss), for the
/// programs that run in one process. kt7, kt10 and kt11 run two, and the note's times are
/// most likely of both (time(1) counts a child the program waited for) where today's rows
/// count the measuring process only: not transcribed. kt8's User is 0.0 on every machine,
/// under the note's tenth of a second: not a figure, left out.
/// (program, User per machine where printed above 0.0, Sys per machine)
type KashtanCpu = (&'static str, [Option<&'static str>; 3], [&'static str; 3]);

#[rustfmt::skip]
const KASHTAN_CPU: &[KashtanCpu] = &[
    ("kt5", [Some("0.1"), Some("0.1"), Some("0.2")], ["22.1", "27.8", "28.3"]),
    ("kt6", [Some("0.7"), Some("0.2"), Some("0.1")], ["10.4", "3:58", "5:15.8"]),
    ("kt8", [None, None, None], ["2.5", "4.1", "4.0"]),
    ("kt9", [Some("0.4"), Some("0.3"), Some("1.1")], ["47.7", "30.7", "33.1"]),
];
const MB: f64 = 1_048_576.0;

pub fn figures() -> Vec<Figure> {
    let mut out = Vec::new();
    statements(&mut out);
    out.extend(table_32_file_calls());
    for &(row, id, ops, what, op, secs) in ZILOG {
        for (k, machine) in ZILOG_MACHINES.into_iter().enumerate() {
            out.push(per_op(
                machine,
                id,
                Quantity::Headline,
                "003",
                format!("Zilog programs, row {row}, {machine}"),
                format!("{} s", secs[k]),
                secs[k],
                ops,
                what,
                op,
            ));
        }
    }
    for &(prog, id, reals) in KASHTAN {
        for (k, machine) in KASHTAN_MACHINES.into_iter().enumerate() {
            let real = kashtan(machine, prog, id, reals[k]);
            if let Some((_, users, systems)) = KASHTAN_CPU.iter().find(|c| c.0 == prog) {
                let secs = minutes_seconds(reals[k]);
                if let Some(user) = users[k] {
                    out.push(kashtan_cpu(&real, secs, Quantity::User, "User", user));
                }
                out.push(kashtan_cpu(
                    &real,
                    secs,
                    Quantity::System,
                    "Sys",
                    systems[k],
                ));
            }
            out.push(real);
        }
    }
    out
}

/// A Kashtan program's User or Sys time as the layout sets it beside today's: for a rate
/// (kt5, kt9) the share of the program's real time, which needs no byte count; otherwise
/// seconds per operation, counted as the real time is.
fn kashtan_cpu(real: &Figure, real_s: f64, quantity: Quantity, column: &str, text: &str) -> Figure {
    let cpu_s = minutes_seconds(text);
    let printed = if text.contains(':') {
        format!("{text} (m:ss)")
    } else {
        format!("{text} s")
    };
    let (value, unit, conversion) = if real.unit == Unit::BytesPerSecond {
        let conversion = format!("{printed} of {real_s} s real: a share of the real time");
        (cpu_s / real_s, Unit::Ratio, conversion)
    } else {
        let ops = real_s / real.value;
        let conversion = format!("{printed} / {} operations, as the real time", ops.round());
        (cpu_s / ops, Unit::SecondsPerOp, conversion)
    };
    Figure {
        quantity,
        place: real.place.replace(", Real", &format!(", {column}")),
        printed,
        conversion,
        value,
        unit,
        ..real.clone()
    }
}

fn statements(out: &mut Vec<Figure>) {
    for (c, (machine, column)) in COLUMNS.into_iter().enumerate() {
        for (r, (label, stmt)) in STATEMENT_ROWS.into_iter().enumerate() {
            if stmt.is_empty() {
                continue;
            }
            let table16 = TABLE_16[c][r];
            let (id16, id32) = if stmt.starts_with("call.") {
                (stmt.to_string(), None)
            } else {
                (stmt_id("i16", stmt), Some(stmt_id("i32", stmt)))
            };
            if let Some(us) = table16 {
                out.push(statement(machine, &id16, "16 bits", label, column, us));
            }
            if let (Some(id), true) = (id32, r < 10) {
                out.push(statement(
                    machine,
                    &id,
                    "32 bits",
                    label,
                    column,
                    TABLE_32[c][r],
                ));
            }
        }
    }
}

/// `cpu.stmt.i16.for10`.
fn stmt_id(width: &str, stmt: &str) -> String {
    format!("cpu.stmt.{width}.{stmt}")
}

fn statement(
    machine: &'static str,
    id: &str,
    table: &str,
    label: &str,
    column: &str,
    us: f64,
) -> Figure {
    let op = if id.starts_with("call.") {
        "nest of five calls"
    } else {
        "statement"
    };
    per_op(
        machine,
        id,
        Quantity::Headline,
        "003",
        format!("C statements ({table}), row {label}, {column}"),
        format!("{us} µs"),
        us * 1e-6,
        1.0,
        op,
        op,
    )
}

fn kashtan(machine: &'static str, prog: &str, id: &'static str, real: &str) -> Figure {
    let secs = minutes_seconds(real);
    let place = format!("Kashtan programs, {prog}, {machine}, Real");
    let printed = if real.contains(':') {
        format!("{real} (m:ss)")
    } else {
        format!("{real} s")
    };
    let rate = |bytes: f64, what: &str, op: &'static str| Figure {
        machine,
        id: id.to_string(),
        quantity: Quantity::Headline,
        seed: "003",
        place: place.clone(),
        printed: printed.clone(),
        conversion: format!("{what} / {secs} s"),
        value: bytes / secs,
        unit: Unit::BytesPerSecond,
        basis: Basis::per(op),
        comparability: Comparability::Same,
    };
    match prog {
        "kt5" => rate(2.0 * MB, "2 MBytes written", "byte written to disk"),
        "kt9" => rate(
            5.0 * MB,
            "5 MBytes through a pipe to itself",
            "byte written to oneself through a pipe",
        ),
        "kt10" => rate(
            5.0 * MB,
            "5 MBytes between two processes",
            "byte sent to another process through a pipe",
        ),
        "kt11" => rate(
            10.0 * MB,
            "5 MBytes each way (10 MBytes in all)",
            "byte through a pipe, both directions counted",
        ),
        _ => {
            let (ops, what, op) = match prog {
                "kt6" => (4_000.0, "random 512-byte writes", "random 512-byte write"),
                "kt7" => (
                    20_000.0,
                    "signal round trips between two processes",
                    "signal round trip",
                ),
                _ => (1_000.0, "signals to itself", "signal to oneself"),
            };
            per_op(
                machine,
                id,
                Quantity::Headline,
                "003",
                place,
                printed,
                secs,
                ops,
                what,
                op,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_zilog_disk_line_keeps_the_three_figures_of_each_column_in_order() {
        let lines = zilog_disk("003-zilog");
        assert_eq!(lines.len(), 1);
        assert!(
            lines[0].contains("a) 1000 sequential writes: 32.2 s, 42.8 s, 44.4 s"),
            "{lines:?}"
        );
        assert!(
            lines[0].contains("c) 1000 random reads: 37.4 s, 59.7 s, 71.0 s"),
            "{lines:?}"
        );
        assert!(zilog_disk("003-kashtan").is_empty());
        // Not a figure: no machine's column holds the disk test.
        assert!(figures().iter().all(|f| !f.id.starts_with("io.disk.")));
    }
}

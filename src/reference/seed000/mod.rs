//! Seed 000 (Brandt & Thompson, *Benchmark of UNIX on DEC 11/70*, Bell Labs 1975): the
//! USG 11/45 against a prototype 11/70. Figures are whole jobs ("time" of a program or a
//! shell procedure), printed as m:ss.s; the unit is seconds per job, as timeshare's
//! job rows report them. Added to the machines `pdp11-45` and `pdp11-70`.
//!
//! Transcribed: Table 1 (the 130-move chess game: `cpu.chess`), Table 3 (programs 1–4 in
//! C: `cpu.intfloat.1` … `.4`), Table 9 (N copies of a compute-bound program, average
//! real per copy: `load.cpu.N`) and Table 10 (N command scripts, real per script:
//! `load.script.N`). The seed's configurations differ in I/O devices only: the 11/45 is
//! C1 in Table 1 and C2 elsewhere; the 11/70 is C4 in Table 1 and C7 elsewhere, and
//! Table 10 has it also as C8 (C7 with /tmp on the memory device, 1 and 5 scripts:
//! [`config_c8`]). C7 is the paper's 11/70, the one `pdp11-70`'s figures are of; C8's are
//! kept out of [`figures`], so that a figure found by machine, id and quantity is never
//! C8's, and the seed tables set them in a column of their own.
//!
//! Bases: Table 1 is per game of 130 plies (both sides of a 65-move game), Table 3 per
//! program run; Table 9's real is "the average of all the programs run simultaneously",
//! so it is per copy, and Table 10's columns "have the same meaning", so per script — the
//! figures `load.cpu.N` and `load.script.N` report.
//!
//! Also transcribed: Table 5's copies of a disk to itself (the rows marked *, RP03 on the
//! 11/45, RP04 on the 11/70: `io.copy`, which copies a file to another on one device) as
//! bytes per second of real time, and Table 11 (the chess subset beside 1–4 `dd` readers,
//! 11/70 C7 only: `load.iointerference.K`), its Usr CPU, Ratio Alone and wds/µsec.
//!
//! Not transcribed: Table 2 (Gibson-mix programs 1–5 in C and Fortran: which one
//! `cpu.gibson` is cannot be told), Table 4 (`cpu.cache` reports ns per read; the seed
//! gives only the whole run's time, not the number of reads), Table 5's copies between
//! two devices (RF11, RK05, RS03/RS04 to RP03/RP04: no pair of today's devices to set
//! beside them), Tables 6–8 (rebuilding UNIX and the Fortran compiler, and a crypt run
//! over /usr/dict/words: different programs from `mixed.*`'s bundled ones, so a ratio
//! would mean nothing).
//!
//! Attachment C (the shell accounting of Table 10's scripts, per command: 11/45 C2 and
//! 11/70 C7, 1, 5 and 9 scripts, and 11/70 C8, 5 scripts) is transcribed as tables of its
//! own ([`attachment_c()`]), and as figures of `load.script.N` per command
//! ([`attachment_c_figures`]): its rows are commands, not catalogue ids, so they are kept
//! out of [`super::figures`] and only `table 000-C` sets them beside today's accounting.

use super::{minutes_seconds, per_op, Comparability, Figure, Quantity};
use crate::model::details::io::BYTE_COPIED;
use crate::model::details::load::{BYTE_READ_BESIDE, PER_COPY, PER_PROGRAM_RUN, PER_SCRIPT};
use crate::model::{Basis, Unit};

/// (table, row, id, 11/45 real, 11/70 real), real as printed.
#[rustfmt::skip]
const JOBS: &[(&str, &str, &str, &str, &str)] = &[
    ("Table 1", "chess", "cpu.chess", "29:09", "13:16"),
    ("Table 3", "1 (C)", "cpu.intfloat.1", "11.3", "4.7"),
    ("Table 3", "2 (C)", "cpu.intfloat.2", "23.0", "16.0"),
    ("Table 3", "3 (C)", "cpu.intfloat.3", "15.3", "7.3"),
    ("Table 3", "4 (C)", "cpu.intfloat.4", "32.0", "26.3"),
    ("Table 9", "# Execs 1", "load.cpu.1", "22.3", "8.5"),
    ("Table 9", "# Execs 2", "load.cpu.2", "54.7", "15.8"),
    ("Table 9", "# Execs 5", "load.cpu.5", "2:26.8", "39.4"),
    ("Table 9", "# Execs 10", "load.cpu.10", "4:22.8", "1:02.0"),
    ("Table 10", "# Scripts 1", "load.script.1", "9:20.3", "4:18.7"),
    ("Table 10", "# Scripts 5", "load.script.5", "44:58.1", "16:35.9"),
    ("Table 10", "# Scripts 9", "load.script.9", "87:49.3", "29:27.4"),
];

/// Tables 2, 4, 6, 7 and 8 as printed: figures that no row of today's does the same work
/// as (the Gibson-mix programs are not printed; Table 4 gives no count of reads; the 1975
/// system and compilers are not at hand), so never divided, only printed under the
/// table: (key, the table's lines).
#[rustfmt::skip]
const PRINTED: &[(&str, &[&str])] = &[
    ("000-2", &[
        "Table 2, CPU ms per loop, C1 (11/45) / C4 (11/70) / Ratio: 1 (Fort) 3.3 / 2.4 / 1.4; \
         2 (C) .18 / .14 / 1.3; 2 (Fort) .68 / .45 / 1.5; 3 (C) 640 / 480 / 1.3; \
         3 (Fort) 2080 / 1300 / 1.6; 4 (C) .56 / .42 / 1.3; 4 (Fort) .9 / .6 / 1.5; \
         5 (C) 210 / 150 / 1.4; 5 (Fort) 780 / 430 / 1.8",
    ]),
    ("000-4", &[
        "Table 4, Real / User CPU: C3 (11/45) 1:12.0 / 1:12.8; C7 (11/70) 33.5 / 33.5; the \
         11/70's cache hit rate 85.3%",
    ]),
    ("000-6", &[
        "Table 6, Real / CPU / Ratio Real: C1 17:39 / 6:54; C2 13:28 / 7:00.7; C5 8:34 / 3:29 / \
         2.0 (1.6); C6 5:34 / 3:31.3 / 3.2 (2.4); C7 5:19 / 3:31.4 / 3.3 (2.5); C8* 5:06 / 3:43 \
         / 3.5 (2.6) (* two more device drivers compiled)",
    ]),
    ("000-7", &[
        "Table 7, Real / CPU / Ratio Real: C1 14:41 / 3:14.7; C2 10:05 / 3:12; C7 4:01 / 1:46.6 \
         / 3.7 (2.5); C8 3:44 / 1:45.9 / 3.9 (2.7); C9 3:15 / 1:54.2 / 4.5 (3.1)",
    ]),
    ("000-8", &[
        "Table 8, Real / CPU / Ratio Real: C1 12:43 / 12:26.5; C2 12:32 / 12:28.5; C4 5:24 / \
         5:08.6 / 2.4; C7 5:12 / 5:10.0 / 2.4",
    ]),
];

/// The lines under `table KEY` for Tables 2, 4, 6, 7 and 8: the paper's figures as
/// printed, with no ratio beside today's.
pub fn printed_tables(key: &str) -> Vec<String> {
    PRINTED
        .iter()
        .filter(|(k, _)| *k == key)
        .flat_map(|(_, lines)| {
            lines
                .iter()
                .map(|l| format!("{l} (no ratio: another program's work)"))
        })
        .collect()
}

/// Tables 9 and 10's Inc column: (table, row, id, machine, config, Inc), as printed. One
/// copy's (script's) row has none: it is the ratio's denominator.
#[rustfmt::skip]
const INC: &[(&str, &str, &str, &str, &str, &str)] = &[
    ("Table 9", "# Execs 2", "load.cpu.2", "pdp11-45", "C2", "2.5"),
    ("Table 9", "# Execs 5", "load.cpu.5", "pdp11-45", "C2", "6.6"),
    ("Table 9", "# Execs 10", "load.cpu.10", "pdp11-45", "C2", "11.8"),
    ("Table 9", "# Execs 2", "load.cpu.2", "pdp11-70", "C7", "1.9"),
    ("Table 9", "# Execs 5", "load.cpu.5", "pdp11-70", "C7", "4.6"),
    ("Table 9", "# Execs 10", "load.cpu.10", "pdp11-70", "C7", "7.3"),
    ("Table 9", "# Execs 15", "load.cpu.15", "pdp11-70", "C7", "10.2"),
    ("Table 10", "# Scripts 5", "load.script.5", "pdp11-45", "C2", "4.8"),
    ("Table 10", "# Scripts 9", "load.script.9", "pdp11-45", "C2", "9.4"),
    ("Table 10", "# Scripts 5", "load.script.5", "pdp11-70", "C7", "3.8"),
    ("Table 10", "# Scripts 9", "load.script.9", "pdp11-70", "C7", "6.8"),
    ("Table 10", "# Scripts 5", "load.script.5", "pdp11-70", "C8", "4.0"),
];

/// Tables 9 and 10's Ratio Real column: (table, row, id, config, Ratio Real), as printed
/// on the 11/70's rows (the 11/45's real over the 11/70's; C8's over C2's as well). 15
/// copies has "-": the 11/45 ran out of swap space.
#[rustfmt::skip]
const RATIO_REAL: &[(&str, &str, &str, &str, &str)] = &[
    ("Table 9", "# Execs 1", "load.cpu.1", "C7", "2.6"),
    ("Table 9", "# Execs 2", "load.cpu.2", "C7", "3.5"),
    ("Table 9", "# Execs 5", "load.cpu.5", "C7", "3.7"),
    ("Table 9", "# Execs 10", "load.cpu.10", "C7", "4.2"),
    ("Table 10", "# Scripts 1", "load.script.1", "C7", "2.2"),
    ("Table 10", "# Scripts 5", "load.script.5", "C7", "2.7"),
    ("Table 10", "# Scripts 9", "load.script.9", "C7", "3.0"),
    ("Table 10", "# Scripts 1", "load.script.1", "C8", "2.3"),
    ("Table 10", "# Scripts 5", "load.script.5", "C8", "2.7"),
];

/// The Ratio Real figures of the 11/70 in C7, or in C8 (kept apart, as its other figures).
fn ratio_real_figures(c8: bool) -> Vec<Figure> {
    RATIO_REAL
        .iter()
        .filter(|r| (r.3 == "C8") == c8)
        .map(|&(table, row, id, config, printed)| {
            let mut f = job("pdp11-70", id, table, row, config, "0");
            f.quantity = Quantity::RatioReal;
            f.place = format!("{table}, row {row}, Config {config}, Ratio Real");
            f.printed = printed.to_string();
            f.conversion = format!("{printed}: the 11/45's real over the 11/70's, as printed");
            f.value = printed.parse().expect(printed);
            f.unit = Unit::Ratio;
            f
        })
        .collect()
}

/// The Inc figures of `config` (C8's are kept apart, as its other figures).
fn inc_figures(c8: bool) -> Vec<Figure> {
    INC.iter()
        .filter(|i| (i.4 == "C8") == c8)
        .map(|&(table, row, id, machine, config, printed)| {
            let mut f = job(machine, id, table, row, config, "0");
            f.quantity = Quantity::Inc;
            f.place = format!("{table}, row {row}, Config {config}, Inc");
            f.printed = printed.to_string();
            f.conversion = format!(
                "{printed}: average real per {} over one's alone, as printed",
                basis(id)
            );
            f.value = printed.parse().expect(printed);
            f.unit = Unit::Ratio;
            f
        })
        .collect()
}

/// Cells of the tables that print words where a figure would be: (table, machine, id,
/// the words as printed). Table 9's 11/45 could not run 15 copies.
pub const WORDS: &[(&str, &str, &str, &str)] = &[(
    "Table 9",
    "pdp11-45",
    "load.cpu.15",
    "Ran Out Of Swap Space",
)];

/// Table 1's User CPU and Sys CPU columns: (config, machine, User, Sys), as printed, of
/// the one 130-move game: today's `cpu.chess` times its own user and system per game.
#[rustfmt::skip]
const CHESS_CPU: &[(&str, &str, &str, &str)] = &[
    ("C1", "pdp11-45", "28:53.1", "11.5"),
    ("C4", "pdp11-70", "13:06.1", "6.3"),
];

/// Table 1's User and Sys CPU figures of `cpu.chess`, per game.
fn chess_cpu_figures() -> Vec<Figure> {
    let mut out = Vec::new();
    for &(config, machine, user, sys) in CHESS_CPU {
        for (quantity, column, printed) in [
            (Quantity::User, "User CPU", user),
            (Quantity::System, "Sys CPU", sys),
        ] {
            let mut f = job(machine, "cpu.chess", "Table 1", "chess", config, printed);
            f.quantity = quantity;
            f.place = format!("Table 1, row chess, Config {config}, {column}");
            f.unit = Unit::SecondsPerOp;
            out.push(f);
        }
    }
    out
}

/// Tables 9 and 10's CPU column: (table, row, id, 11/45, 11/70), as printed. "Total CPU
/// time required (user plus system)", and nearly constant from 1 to 15 copies, so one
/// copy's (one script's): the figure the rows report as user + system per copy.
#[rustfmt::skip]
const CPU: &[(&str, &str, &str, &str, &str)] = &[
    ("Table 9", "# Execs 1", "load.cpu.1", "22.7", "8.5"),
    ("Table 9", "# Execs 2", "load.cpu.2", "22.9", "8.5"),
    ("Table 9", "# Execs 5", "load.cpu.5", "23.0", "8.6"),
    ("Table 9", "# Execs 10", "load.cpu.10", "23.0", "8.7"),
    ("Table 10", "# Scripts 1", "load.script.1", "6:00.5", "3:13.3"),
    ("Table 10", "# Scripts 5", "load.script.5", "6:23.1", "3:23.7"),
    ("Table 10", "# Scripts 9", "load.script.9", "6:38.9", "3:33.6"),
];

pub fn figures() -> Vec<Figure> {
    let mut out = Vec::new();
    for &(table, row, id, real45, real70) in JOBS {
        let config45 = if table == "Table 1" { "C1" } else { "C2" };
        let config70 = if table == "Table 1" { "C4" } else { "C7" };
        for (machine, config, printed) in [
            ("pdp11-45", config45, real45),
            ("pdp11-70", config70, real70),
        ] {
            out.push(job(machine, id, table, row, config, printed));
        }
    }
    // Table 9, 15 copies: the 11/70 only ("Ran Out Of Swap Space" on the 11/45).
    out.push(job(
        "pdp11-70",
        "load.cpu.15",
        "Table 9",
        "# Execs 15",
        "C7",
        "1:26.8",
    ));
    for &(table, row, id, cpu45, cpu70) in CPU {
        for (machine, config, printed) in [("pdp11-45", "C2", cpu45), ("pdp11-70", "C7", cpu70)] {
            out.push(cpu(machine, id, table, row, config, printed));
        }
    }
    out.push(cpu(
        "pdp11-70",
        "load.cpu.15",
        "Table 9",
        "# Execs 15",
        "C7",
        "8.8",
    ));
    out.extend(chess_cpu_figures());
    out.extend(inc_figures(false));
    out.extend(ratio_real_figures(false));
    out
}

/// Whether today's row of `f`'s id does the paper's work ([`Comparability`]). Every row
/// of seed 000 today runs another program than the paper's, so none is the same
/// operation except Table 11's ratio alone, a dimensionless ratio of one program to
/// itself.
pub fn comparability(f: &Figure) -> Comparability {
    use Comparability::{Like, Not, Same};
    let family = f.id.split('.').nth(1).unwrap_or_default();
    match (family, f.quantity) {
        // A machine against itself, loaded and not: comparable across machines.
        (_, Quantity::Inc) => Same,
        (_, Quantity::RatioReal) => Not(
            "Ratio Real is the 11/45's real time over the 11/70's: a ratio of two machines of \
             1975, with no figure of today's to divide",
        ),
        ("chess", _) => Like(
            "the paper timed its own chess program; cpu.chess is timeshare's engine playing \
             a fixed 130-ply game: the same kind of work, another program",
        ),
        ("intfloat", _) => Like(
            "the paper's programs 1–4 are not printed; cpu.intfloat.1–4 are timeshare's \
             integer and floating-point counterparts",
        ),
        ("copy", _) => Like(
            "the paper copied a raw disk device to itself with dd; io.copy copies a file to \
             another on one device, the page cache bypassed",
        ),
        ("cpu", _) => Not(
            "today's copy is calibrated to about 0.5 s of CPU on the machine that runs it \
             (the paper's took 8.5 s on the 11/70): a ratio would be of the two programs' \
             lengths. Inc, real per copy over one copy's alone, is the figure comparable \
             across machines",
        ),
        ("script", _) if f.place.contains("row sh,") || f.place.contains("row Total,") => Not(
            "the paper's sh line is a nested script's shell, its time holding commands also \
             counted on their own lines (and so the Total's); today's sh is one small script",
        ),
        (
            "script",
            Quantity::CommandShare
            | Quantity::CommandRealShare
            | Quantity::CommandCpuShare
            | Quantity::CommandRealPerCpu,
        ) => Not("a share of the commands, of their time, or a real/CPU is not a speed"),
        ("script", _) => Like(
            "the 1975 script ran its day's commands on its day's files; today's user1975 \
             script runs their nearest modern equivalents",
        ),
        ("iointerference", Quantity::RatioAlone) => Same,
        ("iointerference", Quantity::ReadRate) => Like(
            "the paper's readers were dd's of raw RS04, RP04, RP03 and RK05 devices; today's \
             read files on the working directory's device",
        ),
        ("iointerference", _) => Not(
            "the paper's program was a subset of its chess program (2:11 alone); today's is \
             calibrated on the machine that runs it: a ratio would be of two programs' \
             lengths. Ratio alone is the figure comparable across machines",
        ),
        _ => Same,
    }
}

/// Table 10's third configuration, C8: the 11/70 of C7 with /tmp on the memory device
/// (Attachment B), 1 and 5 scripts only: (row, id, Real, CPU), as printed. Its Inc (4.0)
/// and Ratio Real (2.3, 2.7: the 11/45's C2 real over C8's) are not figures of their own;
/// the test below checks them against the real times.
#[rustfmt::skip]
const C8_SCRIPTS: &[(&str, &str, &str, &str)] = &[
    ("# Scripts 1", "load.script.1", "4:07.0", "3:11.2"),
    ("# Scripts 5", "load.script.5", "16:25.4", "3:22.9"),
];

/// Table 10's Config C8 rows, real and CPU per script, as C7's are. Not among
/// [`figures`]: C8 is the same machine as C7 (`pdp11-70`), and a figure looked up by
/// machine, id and quantity (`headline`, `compare`) must be C7's, the paper's main 11/70.
pub fn config_c8() -> Vec<Figure> {
    let mut out = Vec::new();
    for &(row, id, real, cpu_time) in C8_SCRIPTS {
        out.push(job("pdp11-70", id, "Table 10", row, "C8", real));
        out.push(cpu("pdp11-70", id, "Table 10", row, "C8", cpu_time));
    }
    out.extend(inc_figures(true));
    out.extend(ratio_real_figures(true));
    out
}

/// A CPU (user + system) figure of Table 9 or 10, per copy or script.
fn cpu(
    machine: &'static str,
    id: &'static str,
    table: &str,
    row: &str,
    config: &str,
    printed: &str,
) -> Figure {
    let mut f = job(machine, id, table, row, config, printed);
    f.quantity = Quantity::Cpu;
    f.place = format!("{table}, row {row}, Config {config}, CPU");
    f.unit = crate::model::Unit::SecondsPerOp;
    f
}

/// What one of a row's figures is per, by the seed's text.
fn basis(id: &str) -> &'static str {
    match id.split('.').nth(1) {
        Some("chess") => "game of 130 plies",
        Some("intfloat") => "program run",
        Some("cpu") => PER_COPY,
        _ => PER_SCRIPT,
    }
}

fn job(
    machine: &'static str,
    id: &'static str,
    table: &str,
    row: &str,
    config: &str,
    printed: &str,
) -> Figure {
    let mut f = per_op(
        machine,
        id,
        Quantity::Headline,
        "000",
        format!("{table}, row {row}, Config {config}, Real"),
        format!(
            "{printed} {}",
            if printed.contains(':') { "(m:ss)" } else { "s" }
        ),
        minutes_seconds(printed),
        1.0,
        "job",
        basis(id),
    );
    f.unit = crate::model::Unit::Seconds;
    f.conversion = format!("{printed} = {} s per job", minutes_seconds(printed));
    f
}

/// A PDP-11 word: 16 bits.
const WORD_BYTES: f64 = 2.0;
/// dd's block in Table 5: "8192 word blocks".
const DD_BLOCK_WORDS: f64 = 8192.0;

/// Table 5's copies of a disk to itself, the rows the paper marks *: (machine, config,
/// row, # blks, Real as printed).
#[rustfmt::skip]
const SELF_COPIES: &[(&str, &str, &str, &str, &str)] = &[
    ("pdp11-45", "C2", "RP03 to RP03*", "100", "28.0"),
    ("pdp11-70", "C7", "RP04 to RP04*", "100", "13.0"),
];

/// Table 5 (p. 3): `dd` of a raw disk to itself in 8192-word blocks, as bytes per second
/// of real time: # blks × 8192 words × 2 bytes / Real. The paper's own µsec/wd column is
/// (Real − CPU) / words, a transfer time without the CPU's share, which `io.copy` does not
/// separate; Real is the statistic both measure.
pub fn table5() -> Vec<Figure> {
    SELF_COPIES
        .iter()
        .map(|&(machine, config, row, blocks, real)| {
            let blocks: f64 = blocks.parse().expect(blocks);
            let bytes = blocks * DD_BLOCK_WORDS * WORD_BYTES;
            let seconds = minutes_seconds(real);
            Figure {
                machine,
                id: "io.copy".to_string(),
                quantity: Quantity::Headline,
                seed: "000",
                place: format!("Table 5, row disk to itself, Config {config} {row}, Real"),
                printed: format!("{blocks} blks in {real} s"),
                conversion: format!("{blocks} × 8192 words × 2 bytes = {bytes} bytes / {real} s"),
                value: bytes / seconds,
                unit: Unit::BytesPerSecond,
                basis: Basis::per(BYTE_COPIED),
                comparability: Comparability::Same,
            }
        })
        .collect()
}

/// Table 11 (p. 5), 11/70 C7: (row, K readers, Usr CPU, Ratio Alone, wds/µsec), as printed.
/// "Pgm Alone" has no ratio (it is the ratio's denominator) and no readers (its 0 wds/µsec).
#[rustfmt::skip]
const INTERFERENCE: &[(&str, usize, &str, Option<&str>, &str)] = &[
    ("Pgm Alone", 0, "2:11", None, "0"),
    ("+RS04", 1, "2:28", Some(".89"), ".5"),
    ("+RS04+RP04", 2, "2:48", Some(".78"), ".9"),
    ("+RS04+RP04+RP03", 3, "3:07", Some(".70"), "1.03"),
    ("+RS04+RP04+RP03+RK05", 4, "3:28", Some(".63"), "1.12"),
];

/// Table 11: the chess subset's user CPU per run of it, ratio alone (dimensionless, per
/// the same run) and the readers' words per µs as bytes per second (a word is 2 bytes).
pub fn table11() -> Vec<Figure> {
    let mut out = Vec::new();
    for &(row, k, user, ratio, words_per_us) in INTERFERENCE {
        let id = format!("load.iointerference.{k}");
        let place = |column: &str| format!("Table 11, row {row}, Config C7, {column}");
        let figure =
            |quantity, column: &str, printed: String, conversion: String, value, unit, basis| {
                Figure {
                    machine: "pdp11-70",
                    id: id.clone(),
                    quantity,
                    seed: "000",
                    place: place(column),
                    printed,
                    conversion,
                    value,
                    unit,
                    basis,
                    comparability: Comparability::Same,
                }
            };
        out.push(figure(
            Quantity::ProgramUser,
            "Usr CPU",
            format!("{user} (m:ss)"),
            format!(
                "{user} = {} s per run of the program",
                minutes_seconds(user)
            ),
            minutes_seconds(user),
            Unit::Seconds,
            Basis::per(PER_PROGRAM_RUN),
        ));
        if let Some(ratio) = ratio {
            let value: f64 = ratio.parse().expect(ratio);
            out.push(figure(
                Quantity::RatioAlone,
                "Ratio Alone",
                ratio.to_string(),
                format!("{ratio}: usr CPU alone / usr CPU beside the readers, as printed"),
                value,
                Unit::Ratio,
                Basis::per(PER_PROGRAM_RUN),
            ));
        }
        let words: f64 = words_per_us.parse().expect(words_per_us);
        if words == 0.0 {
            // "Pgm Alone" prints 0: no readers, nothing measured to set beside today's.
            continue;
        }
        out.push(figure(
            Quantity::ReadRate,
            "wds/µsec",
            format!("{words_per_us} wds/µs"),
            format!("{words_per_us} words/µs × 2 bytes × 10^6 µs/s"),
            words * WORD_BYTES * 1e6,
            Unit::BytesPerSecond,
            Basis::per(BYTE_READ_BESIDE),
        ));
    }
    out
}

mod attachment_c;
pub use attachment_c::{
    attachment_c, attachment_c_figures, scripts_name, CommandLine, CommandTable,
    ACCOUNTED_REAL_RESOLUTION_S,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_5_self_copy_on_the_11_70_is_bytes_over_real_time() {
        let f = table5()
            .into_iter()
            .find(|f| f.machine == "pdp11-70")
            .expect("transcribed");
        // 100 blocks of 8192 16-bit words in 13.0 s.
        assert!((f.value - 1_638_400.0 / 13.0).abs() < 1e-6, "{f:?}");
        assert_eq!(f.unit, Unit::BytesPerSecond);
        assert!(f.place.contains("RP04 to RP04*"), "{}", f.place);
    }

    #[test]
    fn table_11_ratio_alone_is_dimensionless_and_per_run_of_the_program() {
        let ratios: Vec<Figure> = table11()
            .into_iter()
            .filter(|f| f.quantity == Quantity::RatioAlone)
            .collect();
        let values: Vec<f64> = ratios.iter().map(|f| f.value).collect();
        assert_eq!(values, vec![0.89, 0.78, 0.70, 0.63]);
        for f in &ratios {
            assert_eq!(f.unit, Unit::Ratio);
            assert_eq!(f.basis, Basis::per(PER_PROGRAM_RUN));
        }
        // The program alone has no ratio: it is the ratio's denominator.
        assert!(ratios.iter().all(|f| f.id != "load.iointerference.0"));
    }

    #[test]
    fn table_11_words_per_microsecond_become_bytes_per_second() {
        let rate = table11()
            .into_iter()
            .find(|f| f.quantity == Quantity::ReadRate && f.id == "load.iointerference.1")
            .expect("transcribed");
        // .5 words of 2 bytes each µs.
        assert!((rate.value - 1e6).abs() < 1e-6, "{rate:?}");
        let user = table11()
            .into_iter()
            .find(|f| f.quantity == Quantity::ProgramUser && f.id == "load.iointerference.4")
            .expect("transcribed");
        assert!((user.value - 208.0).abs() < 1e-9, "3:28 is {}", user.value);
    }

    #[test]
    fn table_1_user_and_sys_cpu_are_the_game_s_as_printed() {
        let chess = |machine: &str, quantity| {
            figures()
                .into_iter()
                .find(|f| f.machine == machine && f.id == "cpu.chess" && f.quantity == quantity)
                .unwrap_or_else(|| panic!("{machine} {quantity:?}"))
        };
        // 28:53.1 and 13:06.1 of user CPU, 11.5 and 6.3 s of system, per game.
        assert!((chess("pdp11-45", Quantity::User).value - 1733.1).abs() < 1e-9);
        assert!((chess("pdp11-70", Quantity::User).value - 786.1).abs() < 1e-9);
        assert!((chess("pdp11-45", Quantity::System).value - 11.5).abs() < 1e-9);
        assert!((chess("pdp11-70", Quantity::System).value - 6.3).abs() < 1e-9);
        // The paper's own check: "the ratio of 11/45 user CPU time to 11/70 user CPU time
        // for this particular test is 2.2".
        let ratio =
            chess("pdp11-45", Quantity::User).value / chess("pdp11-70", Quantity::User).value;
        assert!((ratio - 2.2).abs() < 0.05, "{ratio}");
        assert_eq!(chess("pdp11-70", Quantity::User).config(), Some("C4"));
    }

    /// Table 10's real time of `config` with `id`'s number of scripts, C8's included.
    fn table_10_real(config: &str, id: &str) -> f64 {
        figures()
            .into_iter()
            .chain(config_c8())
            .find(|f| {
                f.place.starts_with("Table 10,")
                    && f.config() == Some(config)
                    && f.id == id
                    && f.quantity == Quantity::Headline
            })
            .unwrap_or_else(|| panic!("Table 10, {config}, {id}"))
            .value
    }

    #[test]
    fn table_10_s_printed_inc_and_ratio_real_follow_from_its_real_times() {
        // (config, scripts, Inc, Ratio Real) as printed: Inc is the real time over the
        // same configuration's with 1 script, Ratio Real the 11/45's (C2) over it. A real
        // time misread, or C8's set in C7's place, breaks one.
        #[rustfmt::skip]
        let printed: &[(&str, usize, Option<f64>, Option<f64>)] = &[
            ("C2", 5, Some(4.8), None),
            ("C2", 9, Some(9.4), None),
            ("C7", 1, None, Some(2.2)),
            ("C7", 5, Some(3.8), Some(2.7)),
            ("C7", 9, Some(6.8), Some(3.0)),
            ("C8", 1, None, Some(2.3)),
            ("C8", 5, Some(4.0), Some(2.7)),
        ];
        for &(config, n, inc, ratio) in printed {
            let id = format!("load.script.{n}");
            let real = table_10_real(config, &id);
            let one_decimal = |x: f64, printed: f64| (x - printed).abs() <= 0.05 + 1e-9;
            if let Some(inc) = inc {
                let x = real / table_10_real(config, "load.script.1");
                assert!(
                    one_decimal(x, inc),
                    "{config} {n}: Inc {x:.3}, printed {inc}"
                );
            }
            if let Some(ratio) = ratio {
                let x = table_10_real("C2", &id) / real;
                assert!(
                    one_decimal(x, ratio),
                    "{config} {n}: Ratio Real {x:.3}, printed {ratio}"
                );
            }
        }
    }
}

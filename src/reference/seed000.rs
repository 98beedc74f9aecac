//! Seed 000 (Brandt & Thompson, *Benchmark of UNIX on DEC 11/70*, Bell Labs 1975): the
//! USG 11/45 against a prototype 11/70. Figures are whole jobs ("time" of a program or a
//! shell procedure), printed as m:ss.s; the unit is seconds per job, as timeshare's
//! job rows report them. Added to the machines `pdp11-45` and `pdp11-70`.
//!
//! Transcribed: Table 1 (the 130-move chess game: `cpu.chess`), Table 3 (programs 1–4 in
//! C: `cpu.intfloat.1` … `.4`), Table 9 (N copies of a compute-bound program, average
//! real per copy: `load.cpu.N`) and Table 10 (N command scripts, real per script:
//! `load.script.N`). The seed's configurations differ in I/O devices only: the 11/45 is
//! C1 in Table 1 and C2 elsewhere; the 11/70 is C4 in Table 1 and C7 elsewhere.
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
//! would mean nothing), and Attachment C's per-command accounting (`load.script.N`'s
//! details hold today's; the paper's commands have no rows of their own to key figures by).

use super::{minutes_seconds, per_op, Figure, Quantity};
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
}

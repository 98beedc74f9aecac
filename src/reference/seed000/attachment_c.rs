//! Seed 000's Attachment C: the shell accounting of the command scripts, per command.

use crate::model::details::load::PER_COMMAND;
use crate::model::{Basis, Unit};
use crate::reference::{Comparability, Figure, Quantity};

/// One line of Attachment C as printed: command, No. Cmds, its % of the Total, Avg Real
/// (s), its % of the total real, Avg CPU (s), its %, Real/CPU. The text of the paper
/// prints all but the first table with its cells shifted under a five-column header; the
/// cells are placed here by meaning (count, %, time, %, time, %, ratio), and the test
/// below checks each table's arithmetic so that a cell put in the wrong place is caught.
#[rustfmt::skip]
type Line = (&'static str, u32, &'static str, &'static str, &'static str, &'static str, &'static str, &'static str);

/// 11/45, Config C2, 1 script, summation of 3 runs.
#[rustfmt::skip]
const C2_1: &[Line] = &[
    ("ed", 54, "17.31", "9.04", "19.00", "6.51", "20.37", "1.4"),
    ("sh", 36, "11.54", "26.53", "37.17", "18.66", "38.93", "1.4"),
    ("ls", 36, "11.54", "2.44", "3.43", "1.30", "2.71", "1.9"),
    ("cat", 30, "9.62", "1.93", "2.26", "0.93", "1.61", "2.1"),
    ("rm", 24, "7.69", "1.42", "1.32", "0.40", "0.56", "3.5"),
    ("cp", 18, "5.77", "1.39", "0.97", "0.37", "0.38", "3.8"),
    ("cc", 12, "3.85", "35.25", "16.47", "20.31", "14.12", "1.7"),
    ("pr", 12, "3.85", "6.67", "3.11", "5.73", "3.99", "1.2"),
    ("du", 12, "3.85", "1.17", "0.54", "0.64", "0.44", "1.8"),
    ("mv", 12, "3.85", "0.50", "0.23", "0.15", "0.10", "3.4"),
    ("**gok", 6, "1.92", "55.33", "12.92", "29.19", "10.15", "1.9"),
    ("colv", 6, "1.92", "1.00", "0.23", "13.71", "4.77", "0.1"),
    ("ps", 6, "1.92", "4.00", "0.93", "2.18", "0.76", "1.8"),
    ("grep", 6, "1.92", "3.00", "0.70", "2.13", "0.74", "1.4"),
    ("pwd", 6, "1.92", "1.17", "0.27", "0.38", "0.13", "3.0"),
    ("rmdir", 6, "1.92", "0.33", "0.08", "0.17", "0.06", "2.0"),
    ("who", 6, "1.92", "0.17", "0.04", "0.12", "0.04", "1.4"),
    ("echo", 6, "1.92", "0.17", "0.04", "0.12", "0.04", "1.4"),
    ("mkdir", 6, "1.92", "0.33", "0.08", "0.11", "0.04", "3.0"),
    ("date", 6, "1.92", "0.50", "0.12", "0.09", "0.03", "5.6"),
    ("chmod", 6, "1.92", "0.33", "0.08", "0.08", "0.03", "4.3"),
];

/// 11/45, Config C2, 5 scripts, summation of 3 runs.
#[rustfmt::skip]
const C2_5: &[Line] = &[
    ("ed", 260, "16.95", "40.73", "17.85", "7.05", "20.44", "5.8"),
    ("sh", 182, "11.86", "117.82", "36.15", "19.44", "39.46", "6.1"),
    ("ls", 174, "11.34", "15.02", "4.40", "1.60", "3.11", "9.4"),
    ("cat", 148, "9.65", "7.55", "1.88", "0.95", "1.57", "7.9"),
    ("rm", 118, "7.69", "7.49", "1.49", "0.43", "0.56", "17.5"),
    ("cp", 90, "5.87", "4.52", "0.69", "0.37", "0.37", "12.3"),
    ("pr", 60, "3.91", "25.48", "2.58", "5.83", "3.90", "4.4"),
    ("du", 59, "3.85", "10.22", "1.02", "1.24", "0.82", "8.2"),
    ("mv", 58, "3.78", "5.36", "0.52", "0.14", "0.09", "37.9"),
    ("cc", 57, "3.72", "196.25", "18.86", "21.36", "13.58", "9.2"),
    ("colv", 30, "1.96", "5.17", "0.26", "13.86", "4.64", "0.4"),
    ("ps", 30, "1.96", "24.67", "1.25", "2.37", "0.79", "10.4"),
    ("pwd", 30, "1.96", "6.07", "0.31", "0.40", "0.13", "15.1"),
    ("rmdir", 30, "1.96", "2.33", "0.12", "0.16", "0.05", "14.5"),
    ("mkdir", 30, "1.96", "2.80", "0.14", "0.13", "0.04", "20.8"),
    ("who", 30, "1.96", "4.33", "0.22", "0.11", "0.04", "40.6"),
    ("date", 30, "1.96", "2.03", "0.10", "0.10", "0.03", "20.0"),
    ("chmod", 30, "1.96", "3.00", "0.15", "0.08", "0.03", "39.7"),
    ("**gok", 29, "1.89", "223.93", "10.95", "29.69", "9.60", "7.5"),
    ("grep", 29, "1.89", "18.34", "0.90", "2.19", "0.71", "8.4"),
    ("echo", 29, "1.89", "3.41", "0.17", "0.11", "0.03", "31.9"),
];

/// 11/45, Config C2, 9 scripts, summation of 2 runs.
#[rustfmt::skip]
const C2_9: &[Line] = &[
    ("ed", 302, "16.68", "83.22", "18.38", "7.14", "19.44", "11.7"),
    ("sh", 218, "12.04", "224.56", "35.81", "20.32", "39.93", "11.1"),
    ("ls", 206, "11.37", "32.06", "4.83", "1.89", "3.51", "16.9"),
    ("cat", 177, "9.77", "16.76", "2.17", "0.98", "1.56", "17.1"),
    ("rm", 138, "7.62", "17.01", "1.72", "0.44", "0.55", "38.3"),
    ("cp", 103, "5.69", "10.12", "0.76", "0.38", "0.35", "26.8"),
    ("mv", 71, "3.92", "10.51", "0.55", "0.15", "0.09", "71.8"),
    ("du", 70, "3.87", "29.53", "1.51", "1.94", "1.23", "15.2"),
    ("cc", 69, "3.81", "368.81", "18.62", "21.14", "13.15", "17.4"),
    ("pr", 68, "3.75", "47.34", "2.35", "5.45", "3.34", "8.7"),
    ("**gok", 36, "1.99", "340.03", "8.96", "29.78", "9.66", "11.4"),
    ("colv", 36, "1.99", "8.22", "0.22", "13.95", "4.53", "0.6"),
    ("pwd", 36, "1.99", "11.61", "0.31", "0.39", "0.13", "29.8"),
    ("who", 36, "1.99", "8.03", "0.21", "0.14", "0.05", "55.6"),
    ("mkdir", 36, "1.99", "6.83", "0.18", "0.14", "0.04", "50.0"),
    ("date", 36, "1.99", "4.64", "0.12", "0.10", "0.03", "44.7"),
    ("ps", 35, "1.93", "76.86", "1.97", "5.10", "1.61", "15.1"),
    ("rmdir", 35, "1.93", "6.00", "0.15", "0.17", "0.06", "34.3"),
    ("echo", 35, "1.93", "5.86", "0.15", "0.11", "0.04", "51.3"),
    ("grep", 34, "1.88", "34.56", "0.86", "2.22", "0.68", "15.6"),
    ("chmod", 34, "1.88", "6.76", "0.17", "0.08", "0.03", "82.1"),
];

/// 11/70, Config C7, 1 script, summation of 3 runs.
#[rustfmt::skip]
const C7_1: &[Line] = &[
    ("ed", 54, "17.25", "4.67", "21.45", "3.86", "22.67", "1.2"),
    ("sh", 36, "11.50", "12.14", "37.19", "9.91", "38.84", "1.2"),
    ("ls", 36, "11.50", "1.03", "3.15", "0.67", "2.63", "1.5"),
    ("cat", 31, "9.90", "1.26", "3.32", "0.50", "1.69", "2.5"),
    ("rm", 24, "7.67", "0.50", "1.02", "0.22", "0.57", "2.3"),
    ("cp", 18, "5.75", "0.67", "1.02", "0.23", "0.44", "3.0"),
    ("cc", 12, "3.83", "14.75", "15.06", "10.70", "13.98", "1.4"),
    ("pr", 12, "3.83", "3.17", "3.23", "2.64", "3.45", "1.2"),
    ("du", 12, "3.83", "0.67", "0.68", "0.36", "0.47", "1.8"),
    ("mv", 12, "3.83", "0.33", "0.34", "0.08", "0.11", "4.1"),
    ("**gok", 6, "1.92", "20.00", "10.21", "12.99", "8.49", "1.5"),
    ("colv", 6, "1.92", "0.00", "0.00", "6.29", "4.11", "0.0"),
    ("ps", 6, "1.92", "2.67", "1.36", "2.30", "1.50", "1.2"),
    ("grep", 6, "1.92", "2.00", "1.02", "0.98", "0.64", "2.0"),
    ("pwd", 6, "1.92", "0.83", "0.43", "0.21", "0.14", "4.0"),
    ("mkdir", 6, "1.92", "0.33", "0.17", "0.09", "0.06", "3.8"),
    ("rmdir", 6, "1.92", "0.00", "0.00", "0.09", "0.06", "0.0"),
    ("who", 6, "1.92", "0.17", "0.09", "0.07", "0.05", "2.3"),
    ("echo", 6, "1.92", "0.17", "0.09", "0.06", "0.04", "2.7"),
    ("date", 6, "1.92", "0.17", "0.09", "0.06", "0.04", "3.0"),
    ("chmod", 6, "1.92", "0.17", "0.09", "0.04", "0.03", "3.8"),
];

/// 11/70, Config C7, 5 scripts, summation of 3 runs.
#[rustfmt::skip]
const C7_5: &[Line] = &[
    ("ed", 266, "17.43", "22.08", "26.67", "4.18", "23.37", "5.3"),
    ("sh", 183, "11.99", "45.13", "37.51", "10.20", "39.22", "4.4"),
    ("ls", 174, "11.40", "4.56", "3.61", "0.81", "2.96", "5.6"),
    ("cat", 148, "9.70", "3.16", "2.13", "0.53", "1.65", "5.9"),
    ("rm", 114, "7.47", "2.12", "1.10", "0.22", "0.54", "9.5"),
    ("cp", 87, "5.70", "1.80", "0.71", "0.21", "0.39", "8.4"),
    ("pr", 59, "3.87", "7.80", "2.09", "2.61", "3.23", "3.0"),
    ("cc", 58, "3.80", "52.50", "13.83", "11.00", "13.40", "4.8"),
    ("du", 58, "3.80", "3.81", "1.00", "0.65", "0.79", "5.9"),
    ("mv", 56, "3.67", "0.68", "0.17", "0.08", "0.09", "9.0"),
    ("colv", 30, "1.97", "0.27", "0.04", "6.37", "4.01", "0.0"),
    ("ps", 30, "1.97", "21.43", "2.92", "2.48", "1.56", "8.6"),
    ("pwd", 30, "1.97", "2.67", "0.36", "0.21", "0.13", "12.8"),
    ("mkdir", 30, "1.97", "0.70", "0.10", "0.09", "0.06", "7.9"),
    ("who", 30, "1.97", "0.93", "0.13", "0.09", "0.05", "10.8"),
    ("date", 30, "1.97", "0.33", "0.05", "0.06", "0.04", "5.9"),
    ("grep", 29, "1.90", "4.59", "0.60", "1.01", "0.62", "4.5"),
    ("rmdir", 29, "1.90", "0.76", "0.10", "0.10", "0.06", "7.6"),
    ("chmod", 29, "1.90", "0.45", "0.06", "0.04", "0.03", "10.4"),
    ("**gok", 28, "1.83", "53.25", "6.77", "13.20", "7.77", "4.0"),
    ("echo", 28, "1.83", "0.57", "0.07", "0.06", "0.04", "9.2"),
];

/// 11/70, Config C7, 9 scripts, summation of 2 runs.
#[rustfmt::skip]
const C7_9: &[Line] = &[
    ("ed", 309, "16.94", "36.91", "22.67", "4.26", "21.92", "8.7"),
    ("sh", 218, "11.95", "94.33", "40.87", "11.00", "39.95", "8.6"),
    ("ls", 211, "11.57", "6.66", "2.79", "0.92", "3.23", "7.2"),
    ("cat", 173, "9.48", "3.25", "1.12", "0.55", "1.58", "5.9"),
    ("rm", 139, "7.62", "2.60", "0.72", "0.23", "0.54", "11.1"),
    ("cp", 106, "5.81", "1.96", "0.41", "0.22", "0.39", "8.9"),
    ("mv", 71, "3.89", "0.82", "0.12", "0.08", "0.10", "10.1"),
    ("cc", 70, "3.84", "79.03", "10.99", "10.99", "12.81", "7.2"),
    ("du", 70, "3.84", "4.67", "0.65", "0.81", "0.94", "5.8"),
    ("pr", 68, "3.73", "9.90", "1.34", "2.26", "2.56", "4.4"),
    ("rmdir", 36, "1.97", "1.00", "0.07", "0.10", "0.06", "10.4"),
    ("date", 36, "1.97", "0.39", "0.03", "0.06", "0.04", "6.6"),
    ("chmod", 36, "1.97", "0.50", "0.04", "0.05", "0.03", "10.0"),
    ("**gok", 35, "1.92", "174.26", "12.12", "13.24", "7.72", "13.2"),
    ("colv", 35, "1.92", "0.40", "0.03", "6.42", "3.74", "0.1"),
    ("ps", 35, "1.92", "76.31", "5.31", "6.04", "3.52", "12.6"),
    ("grep", 35, "1.92", "4.57", "0.32", "1.03", "0.60", "4.4"),
    ("pwd", 35, "1.92", "3.09", "0.21", "0.24", "0.14", "12.9"),
    ("who", 35, "1.92", "1.11", "0.08", "0.08", "0.05", "13.8"),
    ("mkdir", 35, "1.92", "0.71", "0.05", "0.08", "0.05", "9.1"),
    ("echo", 35, "1.92", "0.94", "0.07", "0.06", "0.03", "16.2"),
];

/// 11/70, Config C8 (C7 with /tmp on the memory device), 5 scripts, summation of 1 run.
#[rustfmt::skip]
const C8_5: &[Line] = &[
    ("ed", 89, "17.32", "25.39", "30.43", "4.27", "24.16", "5.9"),
    ("sh", 61, "11.87", "47.43", "38.95", "10.10", "39.17", "4.7"),
    ("ls", 59, "11.48", "4.22", "3.35", "0.77", "2.88", "5.5"),
    ("cat", 49, "9.53", "2.69", "1.78", "0.53", "1.66", "5.1"),
    ("rm", 39, "7.59", "1.82", "0.96", "0.21", "0.52", "8.6"),
    ("cp", 30, "5.84", "1.63", "0.66", "0.22", "0.42", "7.3"),
    ("pr", 20, "3.89", "7.15", "1.93", "2.68", "3.41", "2.7"),
    ("du", 20, "3.89", "3.80", "1.02", "0.61", "0.78", "6.2"),
    ("mv", 19, "3.70", "0.74", "0.19", "0.07", "0.09", "10.1"),
    ("cc", 18, "3.50", "45.17", "10.95", "11.12", "12.73", "4.1"),
    ("**gok", 10, "1.95", "51.30", "6.91", "13.20", "8.39", "3.9"),
    ("colv", 10, "1.95", "0.20", "0.03", "6.30", "4.01", "0.0"),
    ("ps", 10, "1.95", "10.90", "1.47", "1.17", "0.74", "9.3"),
    ("grep", 10, "1.95", "4.10", "0.55", "1.02", "0.65", "4.0"),
    ("pwd", 10, "1.95", "2.50", "0.34", "0.22", "0.14", "11.6"),
    ("rmdir", 10, "1.95", "0.80", "0.11", "0.09", "0.06", "8.7"),
    ("mkdir", 10, "1.95", "0.80", "0.11", "0.09", "0.06", "8.7"),
    ("who", 10, "1.95", "0.80", "0.11", "0.08", "0.05", "10.2"),
    ("date", 10, "1.95", "0.30", "0.04", "0.05", "0.03", "6.4"),
    ("chmod", 10, "1.95", "0.60", "0.08", "0.04", "0.03", "13.8"),
    ("echo", 9, "1.75", "0.44", "0.05", "0.06", "0.03", "7.5"),
];

/// (machine, config, scripts, runs, lines, Total's No. Cmds, Avg Real, Avg CPU, Real/CPU,
/// unlisted commands).
type Accounting = (
    &'static str,
    &'static str,
    usize,
    usize,
    &'static [Line],
    u32,
    &'static str,
    &'static str,
    &'static str,
    u32,
);

/// The seven tables, as [`Accounting`]; the last field counts the commands the Total holds
/// that no printed line does.
///
/// Three Totals count one command more than their lines add up to (1534 for 1533, 1824
/// for 1823 and C8's 514 for 513), and their percentages are of the Total (C8's ed, 89
/// commands, is 17.32%: 89/514, where 89/513 would be 17.35%): a line of one command was
/// left out of the printed table, not mistyped. Their real and CPU averages and shares
/// add up to the Total's as the others' do.
#[rustfmt::skip]
const ACCOUNTING: &[Accounting] = &[
    ("pdp11-45", "C2", 1, 3, C2_1, 312, "8.23", "5.53", "1.5", 0),
    ("pdp11-45", "C2", 5, 3, C2_5, 1534, "38.67", "5.85", "6.6", 1),
    ("pdp11-45", "C2", 9, 2, C2_9, 1811, "75.48", "6.13", "12.3", 0),
    ("pdp11-70", "C7", 1, 3, C7_1, 313, "3.75", "2.93", "1.3", 0),
    ("pdp11-70", "C7", 5, 3, C7_5, 1526, "14.43", "3.12", "4.6", 0),
    ("pdp11-70", "C7", 9, 2, C7_9, 1824, "27.58", "3.29", "8.4", 1),
    ("pdp11-70", "C8", 5, 1, C8_5, 514, "14.45", "3.06", "4.7", 1),
];
/// One line of an Attachment C table (or its Total line), as numbers. Percentages are as
/// printed (0–100); the Total line prints none.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandLine {
    pub command: &'static str,
    pub count: u32,
    pub count_pct: Option<f64>,
    pub avg_real_s: f64,
    pub real_pct: Option<f64>,
    pub avg_cpu_s: f64,
    pub cpu_pct: Option<f64>,
    pub real_per_cpu: f64,
}

/// One of Attachment C's tables: one machine and configuration, N scripts at once, its
/// lines summed over `runs` runs.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandTable {
    pub machine: &'static str,
    pub config: &'static str,
    pub scripts: usize,
    pub runs: usize,
    pub lines: Vec<CommandLine>,
    pub total: CommandLine,
    /// Commands the Total counts that no printed line holds.
    pub unlisted: u32,
}

/// The real times were accounted in whole seconds per command: every average is a
/// multiple of 1/count s (0.17 s is 1 s in 6 commands). A printed 0.00 is a command none
/// of whose runs reached a second: no figure, only the bound.
pub const ACCOUNTED_REAL_RESOLUTION_S: f64 = 1.0;

fn number(text: &str) -> f64 {
    text.parse().expect(text)
}

/// Attachment C's seven tables, in the paper's order.
pub fn attachment_c() -> Vec<CommandTable> {
    ACCOUNTING
        .iter()
        .map(
            |&(machine, config, scripts, runs, lines, count, real, cpu, ratio, unlisted)| {
                CommandTable {
                    machine,
                    config,
                    scripts,
                    runs,
                    lines: lines
                        .iter()
                        .map(
                            |&(command, count, count_pct, real, real_pct, cpu, cpu_pct, ratio)| {
                                CommandLine {
                                    command,
                                    count,
                                    count_pct: Some(number(count_pct)),
                                    avg_real_s: number(real),
                                    real_pct: Some(number(real_pct)),
                                    avg_cpu_s: number(cpu),
                                    cpu_pct: Some(number(cpu_pct)),
                                    real_per_cpu: number(ratio),
                                }
                            },
                        )
                        .collect(),
                    total: CommandLine {
                        command: "Total",
                        count,
                        count_pct: None,
                        avg_real_s: number(real),
                        real_pct: None,
                        avg_cpu_s: number(cpu),
                        cpu_pct: None,
                        real_per_cpu: number(ratio),
                    },
                    unlisted,
                }
            },
        )
        .collect()
}

/// "1 script", "5 scripts".
pub fn scripts_name(n: usize) -> String {
    format!("{n} script{}", if n == 1 { "" } else { "s" })
}

/// Attachment C as figures of `load.script.N`, per command: count % (of all commands),
/// average real and CPU per command, real/CPU; the Total line's averages are over every
/// command, sh included. A real time printed 0.00 is under the accounting's resolution
/// and gives no figure (nor a real/CPU).
pub fn attachment_c_figures() -> Vec<Figure> {
    let mut out = Vec::new();
    for t in attachment_c() {
        for line in t.lines.iter().chain([&t.total]) {
            out.extend(command_figures(&t, line));
        }
    }
    out
}

fn command_figures(t: &CommandTable, line: &CommandLine) -> Vec<Figure> {
    let id = format!("load.script.{}", t.scripts);
    let of = format!(
        "{} {} commands over {} runs of {}",
        line.count,
        line.command,
        t.runs,
        scripts_name(t.scripts)
    );
    let figure =
        |quantity, column: &str, printed: String, conversion: String, value, unit| Figure {
            machine: t.machine,
            id: id.clone(),
            quantity,
            seed: "000",
            place: format!(
                "Attachment C, row {}, Config {}, {}, {column}",
                line.command,
                t.config,
                scripts_name(t.scripts)
            ),
            printed,
            conversion,
            value,
            unit,
            basis: Basis::per(PER_COMMAND),
            comparability: Comparability::Same,
        };
    let mut out = Vec::new();
    if let Some(pct) = line.count_pct {
        out.push(figure(
            Quantity::CommandShare,
            "No. Cmds %",
            format!("{pct:.2}%"),
            format!("{} of the {} commands", line.count, t.total.count),
            pct / 100.0,
            Unit::Ratio,
        ));
    }
    let resolved = line.avg_real_s > 0.0;
    if resolved {
        out.push(figure(
            Quantity::CommandReal,
            "Avg Real",
            format!("{:.2} s", line.avg_real_s),
            format!("{:.2} s per command, the average of {of}", line.avg_real_s),
            line.avg_real_s,
            Unit::SecondsPerOp,
        ));
    }
    // The % beside Avg Real: of all the commands' real time (0.00 when the real time was
    // under the accounting's second).
    if let Some(pct) = line.real_pct.filter(|&p| p > 0.0) {
        out.push(figure(
            Quantity::CommandRealShare,
            "Real %",
            format!("{pct:.2}%"),
            "of all the commands' real time".to_string(),
            pct / 100.0,
            Unit::Ratio,
        ));
    }
    out.push(figure(
        Quantity::CommandCpu,
        "Avg CPU",
        format!("{:.2} s", line.avg_cpu_s),
        format!("{:.2} s per command, the average of {of}", line.avg_cpu_s),
        line.avg_cpu_s,
        Unit::SecondsPerOp,
    ));
    if let Some(pct) = line.cpu_pct.filter(|&p| p > 0.0) {
        out.push(figure(
            Quantity::CommandCpuShare,
            "CPU %",
            format!("{pct:.2}%"),
            "of all the commands' CPU time".to_string(),
            pct / 100.0,
            Unit::Ratio,
        ));
    }
    // A Real/CPU printed 0.0 (colv's 0.27 s / 6.37 s) is under its one decimal: no figure.
    if resolved && line.real_per_cpu > 0.0 {
        out.push(figure(
            Quantity::CommandRealPerCpu,
            "Real/CPU",
            format!("{:.1}", line.real_per_cpu),
            "Avg Real / Avg CPU, as printed".to_string(),
            line.real_per_cpu,
            Unit::Ratio,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `printed` lies within what its inputs, each rounded to `half` of its last digit
    /// either way, allow: the interval [lo, hi] widened by the printed figure's own
    /// rounding.
    fn within(printed: f64, lo: f64, hi: f64, own: f64) -> bool {
        lo - own - 1e-9 <= printed && printed <= hi + own + 1e-9
    }

    /// The arithmetic of one table: the counts add up to the Total (less its unlisted
    /// commands), each % is its line's share of the Total, Real/CPU is Avg Real / Avg CPU,
    /// and the Total's averages are the lines' averages weighted by their counts. Every
    /// check allows the rounding of the printed figures (2 decimals, Real/CPU 1) and no
    /// more. Returns what does not add up.
    fn arithmetic(t: &CommandTable) -> Vec<String> {
        const HALF: f64 = 0.005;
        let mut wrong = Vec::new();
        let total = f64::from(t.total.count);
        let listed: u32 = t.lines.iter().map(|l| l.count).sum();
        if listed + t.unlisted != t.total.count {
            wrong.push(format!(
                "counts add up to {listed} + {} unlisted, the Total says {}",
                t.unlisted, t.total.count
            ));
        }
        // Σ count × average, low and high, for real and CPU.
        let sums = |avg: fn(&CommandLine) -> f64| {
            t.lines.iter().fold((0.0, 0.0), |(lo, hi), l| {
                let n = f64::from(l.count);
                (lo + n * (avg(l) - HALF).max(0.0), hi + n * (avg(l) + HALF))
            })
        };
        let (real_lo, real_hi) = sums(|l| l.avg_real_s);
        let (cpu_lo, cpu_hi) = sums(|l| l.avg_cpu_s);
        for l in &t.lines {
            let n = f64::from(l.count);
            let count_pct = 100.0 * n / total;
            if !within(l.count_pct.unwrap(), count_pct, count_pct, HALF) {
                wrong.push(format!(
                    "{}: count {count_pct:.3}%, printed {:?}",
                    l.command, l.count_pct
                ));
            }
            let share = |avg: f64, lo: f64, hi: f64| {
                (
                    100.0 * n * (avg - HALF).max(0.0) / hi,
                    100.0 * n * (avg + HALF) / lo,
                )
            };
            let (lo, hi) = share(l.avg_real_s, real_lo, real_hi);
            if !within(l.real_pct.unwrap(), lo, hi, HALF) {
                wrong.push(format!(
                    "{}: real {lo:.3}–{hi:.3}%, printed {:?}",
                    l.command, l.real_pct
                ));
            }
            let (lo, hi) = share(l.avg_cpu_s, cpu_lo, cpu_hi);
            if !within(l.cpu_pct.unwrap(), lo, hi, HALF) {
                wrong.push(format!(
                    "{}: CPU {lo:.3}–{hi:.3}%, printed {:?}",
                    l.command, l.cpu_pct
                ));
            }
            wrong.extend(ratio_check(l));
        }
        // The unlisted commands may add anything from nothing to the longest line's average.
        let most = |avg: fn(&CommandLine) -> f64| {
            f64::from(t.unlisted) * t.lines.iter().map(avg).fold(0.0, f64::max)
        };
        let (lo, hi) = (real_lo / total, (real_hi + most(|l| l.avg_real_s)) / total);
        if !within(t.total.avg_real_s, lo, hi, HALF) {
            wrong.push(format!(
                "Total real {lo:.3}–{hi:.3}, printed {}",
                t.total.avg_real_s
            ));
        }
        let (lo, hi) = (cpu_lo / total, (cpu_hi + most(|l| l.avg_cpu_s)) / total);
        if !within(t.total.avg_cpu_s, lo, hi, HALF) {
            wrong.push(format!(
                "Total CPU {lo:.3}–{hi:.3}, printed {}",
                t.total.avg_cpu_s
            ));
        }
        wrong.extend(ratio_check(&t.total));
        wrong
    }

    /// Real/CPU (1 decimal) against Avg Real / Avg CPU (2 decimals each).
    fn ratio_check(l: &CommandLine) -> Option<String> {
        const HALF: f64 = 0.005;
        let lo = (l.avg_real_s - HALF).max(0.0) / (l.avg_cpu_s + HALF);
        let hi = (l.avg_real_s + HALF) / (l.avg_cpu_s - HALF);
        (!within(l.real_per_cpu, lo, hi, 0.05)).then(|| {
            format!(
                "{}: real/CPU {lo:.2}–{hi:.2}, printed {}",
                l.command, l.real_per_cpu
            )
        })
    }

    #[test]
    fn attachment_c_s_tables_add_up() {
        let tables = attachment_c();
        let which: Vec<(&str, usize)> = tables.iter().map(|t| (t.config, t.scripts)).collect();
        #[rustfmt::skip]
        assert_eq!(which, [("C2", 1), ("C2", 5), ("C2", 9), ("C7", 1), ("C7", 5), ("C7", 9), ("C8", 5)]);
        for t in &tables {
            let wrong = arithmetic(t);
            assert!(
                wrong.is_empty(),
                "{} {} {}: {wrong:#?}",
                t.machine,
                t.config,
                scripts_name(t.scripts)
            );
            assert_eq!(t.lines.len(), 21, "{} {}", t.machine, t.scripts);
        }
    }

    #[test]
    fn a_cell_in_the_wrong_column_is_caught() {
        let mut t = attachment_c().remove(1);
        assert!(arithmetic(&t).is_empty());
        // ed's Avg Real and its % swapped, as the shifted text invites.
        let ed = &mut t.lines[0];
        (ed.avg_real_s, ed.real_pct) = (ed.real_pct.unwrap(), Some(ed.avg_real_s));
        let wrong = arithmetic(&t);
        assert!(
            wrong.iter().any(|w| w.starts_with("ed: real")),
            "{wrong:#?}"
        );
        // A count one off.
        let mut t = attachment_c().remove(0);
        t.lines[3].count += 1;
        assert!(!arithmetic(&t).is_empty());
        // A Real/CPU read from the wrong line.
        let mut t = attachment_c().remove(3);
        t.lines[0].real_per_cpu = 1.5;
        let wrong = arithmetic(&t);
        assert!(
            wrong.iter().any(|w| w.starts_with("ed: real/CPU")),
            "{wrong:#?}"
        );
    }

    /// Config C8's table (the last).
    fn c8() -> CommandTable {
        let t = attachment_c().pop().unwrap();
        assert_eq!(
            (t.machine, t.config, t.scripts, t.runs),
            ("pdp11-70", "C8", 5, 1)
        );
        t
    }

    #[test]
    fn c8_s_lines_add_up_to_one_command_less_than_its_total_and_its_shares_are_of_the_total() {
        let t = c8();
        assert!(arithmetic(&t).is_empty(), "{:#?}", arithmetic(&t));
        let listed: u32 = t.lines.iter().map(|l| l.count).sum();
        assert_eq!((listed, t.total.count, t.unlisted), (513, 514, 1));
        // Read as a Total of the listed lines, the shares no longer hold: ed's 17.32% is
        // 89/514, not 89/513.
        let mut listed_only = t.clone();
        (listed_only.total.count, listed_only.unlisted) = (513, 0);
        let wrong = arithmetic(&listed_only);
        assert!(
            wrong.iter().any(|w| w.starts_with("ed: count")),
            "{wrong:#?}"
        );
    }

    #[test]
    fn a_c8_cell_in_the_wrong_column_is_caught() {
        // The text prints C8's cells shifted as the others': ed's Avg CPU and its % swapped.
        let mut t = c8();
        let ed = &mut t.lines[0];
        (ed.avg_cpu_s, ed.cpu_pct) = (ed.cpu_pct.unwrap(), Some(ed.avg_cpu_s));
        let wrong = arithmetic(&t);
        assert!(wrong.iter().any(|w| w.starts_with("ed: CPU")), "{wrong:#?}");
        // C7's 5-script line in C8's place (its ps: 21.43 s real for C8's 10.90 s).
        let mut t = c8();
        let ps = t.lines.iter_mut().find(|l| l.command == "ps").unwrap();
        ps.avg_real_s = 21.43;
        assert!(!arithmetic(&t).is_empty());
    }

    #[test]
    fn attachment_c_figures_are_per_command_and_a_zero_real_is_no_figure() {
        let figures = attachment_c_figures();
        for f in &figures {
            assert_eq!(f.basis, Basis::per(PER_COMMAND), "{f:?}");
            assert!(f.value > 0.0, "{f:?}");
            assert!(f.place.starts_with("Attachment C, row "), "{f:?}");
        }
        let find = |machine: &str, id: &str, row: &str, q: Quantity| {
            figures.iter().find(|f| {
                f.machine == machine
                    && f.id == id
                    && f.quantity == q
                    && f.place.contains(&format!("row {row},"))
            })
        };
        let sh = find("pdp11-45", "load.script.1", "sh", Quantity::CommandReal).unwrap();
        assert_eq!(sh.value, 26.53);
        assert_eq!(sh.unit, Unit::SecondsPerOp);
        // The 11/70's colv printed 0.00 s with 1 script: under a second each, no figure.
        assert!(find("pdp11-70", "load.script.1", "colv", Quantity::CommandReal).is_none());
        assert!(find("pdp11-70", "load.script.1", "colv", Quantity::CommandCpu).is_some());
        let total = find("pdp11-45", "load.script.1", "Total", Quantity::CommandReal).unwrap();
        assert_eq!(total.value, 8.23);
        assert!(find("pdp11-45", "load.script.1", "Total", Quantity::CommandShare).is_none());
    }
}

//! The seeds' tables' layouts, beside the seeds' figures: for each table of the five
//! papers that `timeshare table KEY` prints, its key, the paper's columns, the rows today
//! sets beside the paper's (by id), and the sentences printed under it. One file per seed;
//! `report/seed_table/` draws them.

pub mod seed000;
pub mod seed001;
pub mod seed002;
pub mod seed003;
pub mod seed004;

use crate::reference::Quantity;

/// A table or figure of one of the five papers, as `timeshare table KEY` prints it.
#[derive(Clone, Copy)]
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
    /// Statistics shown only with `--wide`, beside user and system time: those that would
    /// take a table past the default width (002 Figure 3's mean and SD).
    pub wide_only: &'static [Quantity],
    /// How the paper's figures were read, where a reader checking them needs to know
    /// (001 Table 8's printed unit): printed under the table, not a difference from
    /// today's, so no effect on the status.
    pub notes: &'static [&'static str],
    /// A graph of the paper's, whose points today are the rows whose id is this prefix and
    /// a number (`exercise.batch.N`): as many as the run has, so not in `ids`. Printed as
    /// today's curve from one run ([`crate::report::seed_curve`]).
    pub curve: Option<&'static str>,
}

pub fn no_lines(_key: &str) -> Vec<String> {
    Vec::new()
}

pub const H: &[Quantity] = &[Quantity::Headline];
pub const HUS: &[Quantity] = &[Quantity::Headline, Quantity::User, Quantity::System];
/// Seed 000 Tables 9 and 10 (and Attachment B, their configurations): real and CPU per
/// copy (script), Inc, the load's effect, and Ratio Real, the 11/45's real over the 11/70's.
pub const HCIR: &[Quantity] = &[
    Quantity::Headline,
    Quantity::Cpu,
    Quantity::Inc,
    Quantity::RatioReal,
];
/// Seed 002's columns: median, mean and SD per call, the mean and SD of single calls as
/// the paper's; then today's mean and SD of the batches, which the paper has not.
pub const MMS: &[Quantity] = &[
    Quantity::Headline,
    Quantity::Mean,
    Quantity::Sd,
    Quantity::BatchMean,
    Quantity::BatchSd,
];
/// Seed 002 Figure 3's columns: median, mean and SD per call, of single calls as the
/// paper's; the mean and SD only with `--wide`, where five machines' columns leave room.
pub const MED_MEAN_SD: &[Quantity] = &[Quantity::Headline, Quantity::Mean, Quantity::Sd];
pub const FS: &[Quantity] = &[Quantity::FaultService];
/// Seed 000 Table 11: the timed program's user CPU, ratio alone and the readers' rate.
pub const TABLE11: &[Quantity] = &[
    Quantity::ProgramUser,
    Quantity::RatioAlone,
    Quantity::ReadRate,
];
/// Seed 000 Attachment C: per command, its share of the commands, average real time and
/// its share of all the real time, the same of CPU time, and real/CPU.
pub const COMMANDS: &[Quantity] = &[
    Quantity::CommandShare,
    Quantity::CommandReal,
    Quantity::CommandRealShare,
    Quantity::CommandCpu,
    Quantity::CommandCpuShare,
    Quantity::CommandRealPerCpu,
];
/// Seed 001 Table 7: real, user, system and page faults.
pub const HUSF: &[Quantity] = &[
    Quantity::Headline,
    Quantity::User,
    Quantity::System,
    Quantity::Faults,
];

/// The rows the closing summary sets beside the papers' machines, in the order they are
/// shown: each one operation the seeds timed the same way as today's row does (a system
/// call, a signal, a pipe round trip, a fork, an exec).
pub const LIKE_FOR_LIKE: &[&str] = &[
    "syscall.getpid",
    "signal.self",
    "pipe.back.4",
    "proc.fork.0",
    "proc.exec.null.0",
];

/// The empty layout every table starts from (`..T`).
pub const T: SeedTable = SeedTable {
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

/// The tables of `parts`, one after another, as one array: `TABLES` is the seeds' files'
/// tables in the seeds' order, each seed's layouts kept in its own file.
pub const fn concat<const N: usize>(parts: &[&[SeedTable]]) -> [SeedTable; N] {
    let mut out = [T; N];
    let (mut k, mut i) = (0, 0);
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[k] = parts[i][j];
            k += 1;
            j += 1;
        }
        i += 1;
    }
    assert!(k == N, "N is the tables' count");
    out
}

/// How many tables `parts` hold, for [`concat()`]'s length.
pub const fn count(parts: &[&[SeedTable]]) -> usize {
    let (mut n, mut i) = (0, 0);
    while i < parts.len() {
        n += parts[i].len();
        i += 1;
    }
    n
}

const PARTS: &[&[SeedTable]] = &[
    seed000::TABLES,
    seed001::TABLES,
    seed002::TABLES,
    seed003::TABLES,
    seed004::TABLES,
];

/// Every seed table, in the seeds' order.
pub const TABLES: &[SeedTable] = &concat::<{ count(PARTS) }>(PARTS);

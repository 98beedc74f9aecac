//! The historical machines of the seeds, as data: each published figure keyed by the
//! catalogue id it corresponds to, with its source (seed file, table, row, column), the
//! figure as printed, the conversion to one operation, and its basis: what that one
//! operation is, in the seed's own terms ("system call", "page touch", "call of
//! dummy(a, b, c)"). A figure is only ever divided by a run's through
//! [`crate::model::Measure::divided_by`], which refuses two figures of different operations;
//! a test walks every figure against the registered row of its id.
//!
//! One file per seed. Every value is transcribed from the paper (docs/families.md lists them); where the OCR
//! of a seed is damaged, the file says how it was read, and figures that could not be read
//! with confidence are left out rather than guessed.

pub mod layouts;
mod seed000;
mod seed001;
mod seed002;
mod seed003;
mod seed004;

pub use seed001::{paging_42bsd, Paging42};
pub use seed004::{eighty_spread, EIGHTY_TRIALS};

pub use seed000::{
    attachment_c, scripts_name, CommandLine, CommandTable, ACCOUNTED_REAL_RESOLUTION_S,
};

use crate::model::{Basis, Measure, Unit};

/// A historical machine (hardware and system) that the seeds measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Machine {
    /// The name a user types: `vax750-4.3bsd`.
    pub name: &'static str,
    pub hardware: &'static str,
    pub system: &'static str,
    /// The seeds its figures come from, and anything a reader must know about them.
    pub about: &'static str,
}

/// Which of a row's figures a value is: the headline one that `compare` sets beside a
/// run's median, or one of the seed's other columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// Elapsed (real) time per operation, or the rate for throughput rows.
    Headline,
    /// User CPU time per operation.
    User,
    /// System CPU time per operation.
    System,
    /// User + system CPU time per operation (seed 000 Tables 9 and 10's CPU column).
    Cpu,
    /// Seed 000 Tables 9 and 10's Inc: the average real time per copy (script) over one
    /// copy's alone on the same machine, a dimensionless ratio of a machine to itself and
    /// so the figure comparable across machines.
    Inc,
    /// Seed 000 Tables 9 and 10's Ratio Real: the 11/45's average real time over the
    /// 11/70's for the same number of copies (scripts), printed on the 11/70's rows. A
    /// ratio of two historical machines: today has no counterpart, so no speed-up.
    RatioReal,
    /// The mean of single calls, each timed by itself (seed 002), where the headline is
    /// the median of calibrated batches.
    Mean,
    /// The standard deviation of single calls, each timed by itself (seed 002).
    Sd,
    /// Today's mean over the calibrated batches' per-call figures: no paper has it; shown
    /// beside the single calls' so that the two statistics are not mistaken for each other.
    BatchMean,
    /// Today's SD over the calibrated batches' per-call figures (smaller than the single
    /// calls' by about the square root of the batch).
    BatchSd,
    /// Page-fault service time: system time / page faults (001 Table 8).
    FaultService,
    /// Page faults per operation (001 Table 7's and 8's Page Faults, per page touch).
    Faults,
    /// User CPU time of the timed program alone, not of the readers beside it (000
    /// Table 11's Usr CPU).
    ProgramUser,
    /// The timed program's user CPU alone over its user CPU beside the readers: a
    /// dimensionless ratio (000 Table 11's Ratio Alone, .89 … .63).
    RatioAlone,
    /// The rate the readers beside the program read at (000 Table 11's wds/µsec).
    ReadRate,
    /// How many times a command ran, summed over the runs of a table (000 Attachment C's
    /// No. Cmds): a count of each machine's own runs, never divided.
    CommandCount,
    /// A command's share of all the commands the scripts ran (000 Attachment C's No.
    /// Cmds %), as a fraction.
    CommandShare,
    /// Real time per command, averaged over every time it ran (Attachment C's Avg Real).
    CommandReal,
    /// A command's share of all the commands' real time (Attachment C's % beside Avg
    /// Real), as a fraction.
    CommandRealShare,
    /// User + system time per command, likewise (Attachment C's Avg CPU).
    CommandCpu,
    /// A command's share of all the commands' CPU time (the % beside Avg CPU).
    CommandCpuShare,
    /// A command's Avg Real / Avg CPU (Attachment C's Real/CPU).
    CommandRealPerCpu,
}

impl Quantity {
    pub fn name(self) -> &'static str {
        match self {
            Quantity::Headline => "elapsed",
            Quantity::User => "user",
            Quantity::System => "system",
            Quantity::Cpu => "cpu",
            Quantity::Inc => "inc",
            Quantity::RatioReal => "ratio real",
            Quantity::Mean => "mean",
            Quantity::Sd => "SD",
            Quantity::BatchMean => "mean (batches)",
            Quantity::BatchSd => "SD (batches)",
            Quantity::FaultService => "fault service",
            Quantity::Faults => "faults",
            Quantity::ProgramUser => "usr CPU",
            Quantity::RatioAlone => "ratio alone",
            Quantity::ReadRate => "read rate",
            Quantity::CommandCount => "No. Cmds",
            Quantity::CommandShare => "count %",
            Quantity::CommandReal => "avg real",
            Quantity::CommandRealShare => "real %",
            Quantity::CommandCpuShare => "CPU %",
            Quantity::CommandCpu => "avg CPU",
            Quantity::CommandRealPerCpu => "real/CPU",
        }
    }
}

/// One published figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub machine: &'static str,
    pub id: String,
    pub quantity: Quantity,
    /// Seed number as in the catalogue ("001").
    pub seed: &'static str,
    /// Table or figure, row and column: "Table 2, row syscall, Elapsed 4.3".
    pub place: String,
    /// The figure as the seed prints it, with its unit: "23.0 s".
    pub printed: String,
    /// How `value` follows from `printed`: "23.0 s / 100,000 calls".
    pub conversion: String,
    /// The figure per operation, in `unit` (SI: seconds per op, or bytes per second).
    pub value: f64,
    pub unit: Unit,
    /// What `value` is per: always one operation (the conversion above made it so), named
    /// as the seed describes it.
    pub basis: Basis,
    /// Whether today's row of `id` does the same work, and so whether a ratio of the two
    /// is a speed-up: set by the seed's module.
    pub comparability: Comparability,
}

/// How a historical figure compares with today's row of its id: the one rule that every
/// printer of a ratio against the seeds follows (`compare`, `table`, `report`'s
/// comparison), through [`Comparability::shown`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparability {
    /// The same operation (a getpid, a page touch, a C statement): the ratio is a
    /// speed-up.
    Same,
    /// The same kind of work done by a different program (a chess engine, a command
    /// script): the ratio is shown marked [`Comparability::MARK`], the reason under the
    /// table.
    Like(&'static str),
    /// Different work, or a figure whose size today's row sets itself: no ratio, the
    /// reason instead.
    Not(&'static str),
}

impl Comparability {
    /// The mark of a ratio of the same kind of work by different programs.
    pub const MARK: &'static str = "≈";

    /// "same operation", "same kind of work", "not comparable": as the docs name them.
    pub fn name(self) -> &'static str {
        match self {
            Comparability::Same => "same operation",
            Comparability::Like(_) => "same kind of work, different program",
            Comparability::Not(_) => "not comparable",
        }
    }

    /// Why the ratio is marked or withheld; none for the same operation.
    pub fn reason(self) -> Option<&'static str> {
        match self {
            Comparability::Same => None,
            Comparability::Like(why) | Comparability::Not(why) => Some(why),
        }
    }

    /// A ratio's or speed-up's text ("12.3×", "today 12.3× faster") as this comparability
    /// lets it be printed: as it is, marked ("≈12.3×"), or not at all.
    pub fn shown(self, text: &str) -> Option<String> {
        match self {
            Comparability::Same => Some(text.to_string()),
            // "≈12.3×", but "≈ today 12.3× faster".
            Comparability::Like(_) if text.starts_with(char::is_alphabetic) => {
                Some(format!("{} {text}", Self::MARK))
            }
            Comparability::Like(_) => Some(format!("{}{text}", Self::MARK)),
            Comparability::Not(_) => None,
        }
    }
}

/// Each figure with the comparability its seed's module gives it. Seed 003 and most of
/// seed 001 reimplemented the papers' own programs (getpid, signals, pipes, paging, C
/// statements, the Kashtan and Zilog programs): those figures are of the same operation.
fn judged(mut figures: Vec<Figure>) -> Vec<Figure> {
    for f in &mut figures {
        f.comparability = match f.seed {
            "000" => seed000::comparability(f),
            "001" => seed001::comparability(f),
            "002" => seed002::comparability(f),
            "004" => seed004::comparability(f),
            _ => Comparability::Same,
        };
    }
    figures
}

impl Figure {
    /// The figure with its unit and basis: what a comparison divides.
    pub fn measure(&self) -> Measure {
        Measure::new(self.value, self.unit, self.basis.clone())
    }

    /// The configuration of the machine the figure was measured in, as its place names it
    /// ("Table 10, row # Scripts 1, Config C8, Real" → "C8"): seed 000 names one for every
    /// figure, the other seeds none.
    pub fn config(&self) -> Option<&str> {
        let (_, rest) = self.place.split_once("Config ")?;
        rest.split([',', ' ']).next().filter(|c| !c.is_empty())
    }
}

/// Every reference machine, in the order of the seeds.
pub fn machines() -> Vec<Machine> {
    let mut all = Vec::new();
    all.extend(seed002::machines());
    all.extend(seed001::machines());
    all.extend(seed003::machines());
    all.extend(seed004::machines());
    all
}

/// Seed 000's Attachment C as figures of `load.script.N`, per command (its rows are the
/// script's commands, not ids: `compare` and `reference` leave them out, `table 000-C`
/// sets them beside each command's line of today's accounting).
pub fn command_figures() -> Vec<Figure> {
    judged(seed000::attachment_c_figures())
}

/// Figures of a machine in another configuration than the one its [`figures`] are of:
/// seed 000's 11/70 in Config C8 (Table 10; its Attachment C table is among
/// [`command_figures`]), beside C7, the paper's main 11/70. Kept out of [`figures`], so
/// that one machine, id and quantity name one figure ([`headline`], `compare`); the seed
/// tables set them in a column of their own, and `timeshare reference MACHINE` lists them.
pub fn other_config_figures() -> Vec<Figure> {
    judged(seed000::config_c8())
}

/// Figures of a second table of the same ids on the same machine (seed 003's 32-bit
/// nested-call rows, whose ids have the 16-bit table's figures among [`figures`]): kept
/// out of [`figures`] as [`other_config_figures`] are, and set in their own table only.
pub fn other_table_figures() -> Vec<Figure> {
    judged(seed003::table_32_calls())
}

/// Every figure of every machine, one for each machine, id and quantity.
pub fn figures() -> Vec<Figure> {
    let mut all = Vec::new();
    all.extend(seed000::figures());
    all.extend(seed000::table5());
    all.extend(seed000::table11());
    all.extend(seed001::figures());
    all.extend(seed002::figures());
    all.extend(seed003::figures());
    all.extend(seed004::figures());
    judged(all)
}

/// The paper's figures for a `table` key that are printed as lines, never divided: seed
/// 000's Tables 2, 4, 6, 7 and 8 (another program's work), seed 001's namei profiles
/// (Tables 4, 9 and 10: another call than today's rows), seed 003's Zilog disk test
/// (three figures for four machines) and its rows without a row today, and seed 004's
/// 80-process trials.
pub fn paper_lines(key: &str) -> Vec<String> {
    let mut lines = seed000::printed_tables(key);
    lines.extend(seed001::namei_profile(key));
    lines.extend(seed001::ls_l(key));
    lines.extend(seed003::zilog_disk(key));
    lines.extend(seed003::statement_lines(key));
    lines.extend(seed004::eighty_processes(key));
    lines
}

/// The words a seed's table prints in the cell of `machine` and `id` where it has no
/// figure (seed 000 Table 9: the 11/45 "Ran Out Of Swap Space" at 15 copies); `table` is
/// the table's name ("Table 9").
pub fn printed_words(table: &str, machine: &str, id: &str) -> Option<&'static str> {
    seed000::WORDS
        .iter()
        .chain(seed003::WORDS)
        .find(|w| w.0 == table && w.1 == machine && w.2 == id)
        .map(|w| w.3)
}

pub fn machine(name: &str) -> Option<Machine> {
    machines().into_iter().find(|m| m.name == name)
}

/// The figures of `machine`, in transcription order.
pub fn figures_of(machine: &str) -> Vec<Figure> {
    figures()
        .into_iter()
        .filter(|f| f.machine == machine)
        .collect()
}

/// The headline figure of `id` on `machine`, if the seeds give one.
pub fn headline(machine: &str, id: &str) -> Option<Figure> {
    figures()
        .into_iter()
        .find(|f| f.machine == machine && f.id == id && f.quantity == Quantity::Headline)
}

/// A figure given as a total for `ops` operations, printed as `printed`, converted to
/// seconds per operation. `what` names the operations in the conversion's words ("getpid
/// calls"); `op` is one of them, the figure's basis ("system call").
#[allow(clippy::too_many_arguments)]
fn per_op(
    machine: &'static str,
    id: &str,
    quantity: Quantity,
    seed: &'static str,
    place: String,
    printed: String,
    seconds: f64,
    ops: f64,
    what: &str,
    op: &'static str,
) -> Figure {
    let conversion = if ops == 1.0 {
        format!("{printed} per {what}")
    } else {
        format!("{printed} / {} {what}", group_thousands(ops))
    };
    Figure {
        machine,
        id: id.to_string(),
        quantity,
        seed,
        place,
        printed,
        conversion,
        value: seconds / ops,
        unit: Unit::SecondsPerOp,
        basis: Basis::per(op),
        comparability: Comparability::Same,
    }
}

/// "100000" → "100,000", as the seeds print counts.
fn group_thousands(n: f64) -> String {
    crate::model::basis::group_thousands(n as u64)
}

/// Seconds from the seeds' "m:ss.s" or "ss.s" notation.
fn minutes_seconds(text: &str) -> f64 {
    text.split(':').fold(0.0, |acc, part| {
        acc * 60.0 + part.parse::<f64>().expect(text)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn getpid_under_4_3bsd_is_230_microseconds() {
        let f = headline("vax750-4.3bsd", "syscall.getpid").expect("transcribed");
        assert!((f.value - 230e-6).abs() < 1e-12, "{f:?}");
        assert_eq!(f.seed, "001");
        assert!(f.place.contains("Table 2"));
        assert!(f.conversion.contains("100,000"));
    }

    #[test]
    fn getpid_on_the_11_70_is_seed_002_figure_4() {
        let f = headline("pdp11-70", "syscall.getpid").expect("transcribed");
        assert!((f.value - 230e-6).abs() < 1e-12, "{f:?}");
        assert_eq!(f.seed, "002");
        assert!(f.place.contains("Figure 4"));
    }

    #[test]
    fn every_figure_belongs_to_a_listed_machine_and_is_positive() {
        let names: Vec<_> = machines().iter().map(|m| m.name).collect();
        for f in figures() {
            assert!(names.contains(&f.machine), "{f:?}");
            assert!(f.value.is_finite() && f.value > 0.0, "{f:?}");
        }
    }

    #[test]
    fn no_machine_has_two_headlines_for_one_id() {
        let mut seen = std::collections::HashSet::new();
        for f in figures()
            .iter()
            .filter(|f| f.quantity == Quantity::Headline)
        {
            assert!(seen.insert((f.machine, f.id.clone())), "duplicate {f:?}");
        }
    }

    // That every figure's id is a registered row, with the unit and basis of the row, is
    // checked where the registry can be seen: tests/it/basis.rs.

    #[test]
    fn the_11_70_s_headline_of_a_script_is_c7_s_never_c8_s() {
        let f = headline("pdp11-70", "load.script.1").expect("transcribed");
        assert_eq!(f.value, minutes_seconds("4:18.7"), "{f:?}");
        assert_eq!(f.config(), Some("C7"), "{f:?}");
        // C8's figures are of the same machine and ids, and never among `figures`.
        let c8 = other_config_figures();
        assert_eq!(
            c8.len(),
            7,
            "real and CPU of 1 and 5 scripts, Inc of 5, Ratio Real of 1 and 5: {c8:#?}"
        );
        for f in &c8 {
            assert_eq!((f.machine, f.config()), ("pdp11-70", Some("C8")), "{f:?}");
        }
        assert!(figures().iter().all(|f| f.config() != Some("C8")));
        let c8_one = c8
            .iter()
            .find(|f| f.id == "load.script.1" && f.quantity == Quantity::Headline)
            .expect("C8, 1 script");
        assert_eq!(c8_one.value, minutes_seconds("4:07.0"));
    }

    #[test]
    fn a_figure_s_configuration_is_read_from_its_place() {
        let f = |place: &str| Figure {
            place: place.to_string(),
            ..headline("pdp11-70", "load.script.1").unwrap()
        };
        assert_eq!(
            f("Table 10, row # Scripts 1, Config C8, CPU").config(),
            Some("C8")
        );
        assert_eq!(
            f("Table 5, row disk to itself, Config C7 RP04 to RP04*, Real").config(),
            Some("C7")
        );
        assert_eq!(f("Table 2, row syscall, Elapsed").config(), None);
    }

    #[test]
    fn minutes_and_seconds_are_read() {
        assert_eq!(minutes_seconds("29:09"), 1749.0);
        assert_eq!(minutes_seconds("1:02.0"), 62.0);
        assert_eq!(minutes_seconds("33.5"), 33.5);
        assert_eq!(group_thousands(100000.0), "100,000");
    }
}

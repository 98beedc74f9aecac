//! A run printed in the layout of one of the seeds' tables: the seed's rows in the seed's
//! order, today's figure beside the historical machines' columns, and today's speed-up
//! over the last of them (over each of its configurations, where the table has it in
//! more than one: seed 000's 11/70 in C7 and C8). All figures per operation (the
//! conversion of each historical figure is in `timeshare reference MACHINE`): today's
//! whole jobs are divided by the operations their basis declares, and a row whose figures
//! are of different operations says "not comparable", with the reason under the table.

use crate::model::details::load::{IoInterference, BYTE_READ_BESIDE, PER_COMMAND};
use crate::model::details::vm::{Paging, PAGE_FAULT};
use crate::model::resolution::shown_stored;
use crate::model::unit::format_value;
use crate::model::{Basis, BenchResult, Better, Measure, NotComparable, Run, Status, Unit};
use crate::reference::{self, Comparability, Figure, Quantity};

use comfy_table::{ColumnConstraint, Width};

use super::compare::figures3;
use crate::report::table::{bound_text, new_table, right, MIN_TEXT_COLUMN};

pub use crate::reference::layouts::SeedTable;

pub fn find(key: &str) -> Option<&'static SeedTable> {
    TABLES.iter().find(|t| t.key == key)
}

/// How far a table is reproduced, from its data (the coverage page's status column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    /// The paper's figures beside today's, nothing said against them.
    Reproduced,
    /// The paper's figures beside today's, with a line saying what differs.
    Partly,
    /// Today's rows measured, no historical figure set beside them (the line says why).
    MeasuredOnly,
    /// Nothing to measure today (the line says why).
    NotMeasurable,
}

impl Coverage {
    pub fn name(self) -> &'static str {
        match self {
            Coverage::Reproduced => "reproduced",
            Coverage::Partly => "partly",
            Coverage::MeasuredOnly => "today only",
            Coverage::NotMeasurable => "not measured",
        }
    }
}

impl SeedTable {
    /// The paper's figures in this table, in transcription order.
    pub fn figures(&self) -> Vec<Figure> {
        reference::figures()
            .into_iter()
            .chain(reference::other_config_figures())
            .chain(reference::other_table_figures())
            .chain(reference::command_figures())
            .filter(|f| f.seed == self.seed && f.place.starts_with(self.prefix))
            .filter(|f| self.only.is_none_or(|p| f.id.starts_with(p)))
            .collect()
    }

    /// How the figures beside today's compare, counted for the docs ("24 same
    /// operation, 4 ≈ another program, 6 not comparable"), with the reasons of the latter
    /// two, each once.
    pub fn comparability(&self) -> (String, Vec<&'static str>) {
        let figures = self.figures();
        let count =
            |f: fn(&Comparability) -> bool| figures.iter().filter(|g| f(&g.comparability)).count();
        let counts = [
            (count(|c| *c == Comparability::Same), "same operation"),
            (
                count(|c| matches!(c, Comparability::Like(_))),
                "≈ same kind of work, another program",
            ),
            (
                count(|c| matches!(c, Comparability::Not(_))),
                "not comparable",
            ),
        ];
        let text: Vec<String> = counts
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect();
        let mut reasons: Vec<&'static str> = Vec::new();
        for why in figures.iter().filter_map(|f| f.comparability.reason()) {
            if !reasons.contains(&why) {
                reasons.push(why);
            }
        }
        (text.join(", "), reasons)
    }

    /// (label as printed, id) in the seed's order, then today's extra rows.
    pub fn rows(&self, figures: &[Figure]) -> Vec<(String, String)> {
        let mut rows: Vec<(String, String)> = Vec::new();
        for f in figures {
            if !rows.iter().any(|(_, id)| *id == f.id) {
                rows.push((row_label(f), f.id.clone()));
            }
        }
        for id in self.ids {
            if !rows.iter().any(|(_, i)| i == id) {
                rows.push(("(today)".to_string(), id.to_string()));
            }
        }
        rows
    }

    /// "Table 3", "Figure 4", "Attachment C": the table's name in the paper.
    pub fn name(&self) -> &'static str {
        self.name
            .unwrap_or_else(|| self.prefix.trim_end_matches([',', ' ']))
    }

    /// How far this table is reproduced: "reproduced" only when every figure is of
    /// today's operation and every readable row of the paper is in a column (none only in
    /// a `paper:` line, none without a row today).
    pub fn status(&self) -> Coverage {
        let figures = self.figures();
        let same = figures
            .iter()
            .all(|f| f.comparability == Comparability::Same);
        let all_laid_out = (self.paper)(self.key).is_empty();
        match (figures.is_empty(), self.why.is_empty(), self.ids.is_empty()) {
            (false, true, _) if same && all_laid_out => Coverage::Reproduced,
            (false, _, _) => Coverage::Partly,
            (true, _, false) => Coverage::MeasuredOnly,
            (true, _, true) if self.curve.is_some() => Coverage::MeasuredOnly,
            (true, _, true) => Coverage::NotMeasurable,
        }
    }

    /// The statistics printed: all of the paper's with `wide`; by default the user and
    /// system columns are left out of the tables that have them (001 Tables 2, 3 and 7,
    /// 004's jobs), whose headline is the elapsed time: three machines by three
    /// statistics would not fit the width.
    /// Tables marked `all_shown` (003's Kashtan programs, seven rows) print them all.
    pub fn shown(&self, wide: bool) -> Vec<Quantity> {
        self.quantities
            .iter()
            .copied()
            .filter(|q| {
                wide || self.all_shown
                    || !(matches!(q, Quantity::User | Quantity::System)
                        || self.wide_only.contains(q))
            })
            .collect()
    }

    /// The historical columns, in the order of the figures: one per machine, or one per
    /// configuration of a machine the table has in more than one.
    fn columns(&self, figures: &[Figure]) -> Vec<MachineColumn> {
        let mut seen: Vec<(&'static str, Option<&str>)> = Vec::new();
        for f in figures {
            if !seen.contains(&(f.machine, f.config())) {
                seen.push((f.machine, f.config()));
            }
        }
        let configs_of = |m: &str| seen.iter().filter(|(other, _)| *other == m).count();
        let mut columns: Vec<MachineColumn> = Vec::new();
        for &(machine, config) in &seen {
            let column = MachineColumn {
                machine,
                config: (configs_of(machine) > 1)
                    .then(|| config.map(str::to_string))
                    .flatten(),
            };
            if !columns.contains(&column) {
                columns.push(column);
            }
        }
        columns
    }
}

/// A historical column of a table: a machine, and its configuration where the table has
/// the machine in more than one (seed 000's Table 10: the 11/70 in C7 and in C8), each
/// configuration's figures in a column of their own and never taken for another's.
#[derive(Debug, Clone, PartialEq, Eq)]
struct MachineColumn {
    machine: &'static str,
    config: Option<String>,
}

impl MachineColumn {
    /// Whether `f` is of this column.
    fn holds(&self, f: &Figure) -> bool {
        f.machine == self.machine && self.config.as_deref().is_none_or(|c| f.config() == Some(c))
    }

    /// "pdp11-70", or "pdp11-70 (C8)" where the configuration is named.
    fn name(&self) -> String {
        match &self.config {
            Some(c) => format!("{} ({c})", self.machine),
            None => self.machine.to_string(),
        }
    }

    /// "11/70", or "11/70 C8".
    fn short(&self) -> String {
        match &self.config {
            Some(c) => format!("{} {c}", short(self.machine)),
            None => short(self.machine),
        }
    }
}

/// A machine's name as a column header, as short as the seeds' own ("4.3bsd", "11/70").
fn short(machine: &str) -> String {
    if let Some(rest) = machine.strip_prefix("pdp") {
        return rest.replacen('-', "/", 1).replace('-', " ");
    }
    if let Some(rest) = machine.strip_prefix("vax750-") {
        return rest.to_string();
    }
    machine.to_string()
}

/// "Table 2, row syscall, Elapsed Time 4.3" → "syscall"; otherwise the place's second part.
fn row_label(f: &Figure) -> String {
    let mut parts = f.place.split(", ");
    let _table = parts.next();
    let second = parts.next().unwrap_or(&f.id);
    second.strip_prefix("row ").unwrap_or(second).to_string()
}

mod cells;
mod render;

pub use crate::reference::layouts::TABLES;
pub use cells::*;
pub use render::*;

#[cfg(test)]
mod tests;

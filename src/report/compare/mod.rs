//! `timeshare compare`: runs and historical machines side by side, one row per id.
//!
//! For every column after the first: its figure, the ratio to the first column's figure,
//! and a verdict. Between two runs the verdict comes from the stored samples
//! ([`crate::model::change`]: Mann–Whitney U plus a minimum effect), so noise is not
//! called a change. Against a historical machine there are no samples, only the seed's
//! figure, and the verdict is the speed-up of today's run over it.
//!
//! Every ratio is a [`crate::model::Measure::divided_by`]: both figures are brought to one operation of
//! their basis first (a run's job of 1,000,000 calls becomes one call), and two figures of
//! different operations (a batch of copies and one copy, a dup and a dup + close) are
//! "not comparable" with the reason, never a ratio. With a historical machine among the
//! columns, every figure is shown per operation, as the seeds' are.

//!
//! One concern a file: `cell` reads a column's figure for an id, `decide` tests two
//! runs' ids together, `judge` gives each pair its ratio and verdict (and
//! [`judgements`], the same as numbers for JSON, CSV and the report), `text` lays them
//! out as the terminal's table.

use std::fmt;

use crate::model::Run;
use crate::reference::{Figure, Machine};

mod cell;
#[cfg(test)]
mod compare_tests;
mod decide;
mod judge;
mod text;

pub use cell::{figures3, SideFigure};
use cell::{run_cell, short_source, Cell, Value};
pub use judge::{judgements, Judgement};
pub use text::compare_table;

/// One column of a comparison.
pub enum Column {
    /// A stored run: its short name ("run 12") and a line describing it.
    Run {
        name: String,
        about: String,
        run: Box<Run>,
    },
    /// A historical machine with its headline figures.
    Machine {
        machine: Machine,
        figures: Vec<Figure>,
    },
}

/// The columns share no id: there is nothing to compare. Says which ids each side has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoCommonIds(pub String);

impl fmt::Display for NoCommonIds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NoCommonIds {}

impl Column {
    /// The column's short name: "run 12", or the machine's.
    pub fn name(&self) -> &str {
        match self {
            Column::Run { name, .. } => name,
            Column::Machine { machine, .. } => machine.name,
        }
    }

    /// The column's name and what it is, on one line.
    pub fn describe(&self) -> String {
        match self {
            Column::Run { name, about, .. } => format!("{name}: {about}"),
            Column::Machine { machine, .. } => format!(
                "{}: {}, {} ({})",
                machine.name, machine.hardware, machine.system, machine.about
            ),
        }
    }

    fn is_machine(&self) -> bool {
        matches!(self, Column::Machine { .. })
    }

    fn ids(&self) -> Vec<String> {
        match self {
            Column::Run { run, .. } => run.results.iter().map(|r| r.id.clone()).collect(),
            Column::Machine { figures, .. } => figures.iter().map(|f| f.id.clone()).collect(),
        }
    }

    fn cell(&self, id: &str) -> Cell {
        match self {
            Column::Run { run, .. } => match run.results.iter().find(|r| r.id == id) {
                None => Cell::Missing,
                Some(r) => run_cell(r, run.environment.cpu.mhz),
            },
            Column::Machine { machine, figures } => match figures.iter().find(|f| f.id == id) {
                None => Cell::Missing,
                Some(f) => Cell::Value(Value {
                    value: f.value,
                    unit: f.unit,
                    measure: Some(f.measure()),
                    better: f.unit.default_better(),
                    samples: None,
                    ci: None,
                    source: Some(short_source(f.seed, &f.place, machine.name)),
                    below_resolution: false,
                    derived: false,
                    comparability: f.comparability,
                    did_not_page: false,
                }),
            },
        }
    }
}

/// The ids the first column shares with another, in the first column's order.
fn common_ids(columns: &[Column]) -> Vec<String> {
    let others: Vec<String> = columns[1..].iter().flat_map(Column::ids).collect();
    let mut ids: Vec<String> = Vec::new();
    for id in columns[0].ids() {
        if others.contains(&id) && !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

/// The ids to show: with a historical machine among the columns, those the first column
/// has and another column has too; otherwise every id of every run, first column first.
fn row_ids(columns: &[Column]) -> Vec<String> {
    if columns.iter().any(Column::is_machine) {
        return common_ids(columns);
    }
    let mut ids: Vec<String> = Vec::new();
    for c in columns {
        for id in c.ids() {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    ids
}

/// "run 3 has 5 ids (exercise.cc, exercise.ed, …)".
fn ids_of(c: &Column) -> String {
    let ids = c.ids();
    let mut unique: Vec<&String> = Vec::new();
    for id in &ids {
        if !unique.contains(&id) {
            unique.push(id);
        }
    }
    const SHOWN: usize = 4;
    let mut list: Vec<&str> = unique.iter().take(SHOWN).map(|s| s.as_str()).collect();
    if unique.len() > SHOWN {
        list.push("…");
    }
    match unique.len() {
        0 => format!("{} has no figure", c.name()),
        1 => format!("{} has 1 id ({})", c.name(), list.join(", ")),
        n => format!("{} has {n} ids ({})", c.name(), list.join(", ")),
    }
}

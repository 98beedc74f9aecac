//! `timeshare compare`: runs and historical machines side by side, one row per id.
//!
//! For every column after the first: its figure, the ratio to the first column's figure,
//! and a verdict. Between two runs the verdict comes from the stored samples
//! ([`crate::model::change`]: Mann–Whitney U plus a minimum effect), so noise is not
//! called a change. Against a historical machine there are no samples, only the seed's
//! figure, and the verdict is the speed-up of today's run over it.

use crate::model::change::{self, Verdict};
use crate::model::unit::format_value;
use crate::model::{BenchResult, Better, Run, Status, Unit};
use crate::reference::{Figure, Machine};

use super::style;
use super::table::{new_table, no_wrap, right};

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

impl Column {
    fn name(&self) -> &str {
        match self {
            Column::Run { name, .. } => name,
            Column::Machine { machine, .. } => machine.name,
        }
    }

    fn describe(&self) -> String {
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
                Some(r) => run_cell(r),
            },
            Column::Machine { figures, .. } => match figures.iter().find(|f| f.id == id) {
                None => Cell::Missing,
                Some(f) => Cell::Value {
                    value: f.value,
                    unit: f.unit,
                    better: f.unit.default_better(),
                    samples: None,
                    source: Some(format!("seed {}, {}", f.seed, f.place)),
                    below_resolution: false,
                },
            },
        }
    }
}

enum Cell {
    Missing,
    /// Skipped, failed or without a figure: the word to show.
    NoFigure(&'static str),
    Value {
        value: f64,
        unit: Unit,
        better: Better,
        /// The clean samples, for a run's measured (not derived) row.
        samples: Option<Vec<f64>>,
        source: Option<String>,
        /// The run's figure is the raw one: the operation was cheaper than the clock.
        below_resolution: bool,
    },
}

fn run_cell(r: &BenchResult) -> Cell {
    match (&r.status, r.median()) {
        (Status::Skipped { .. }, _) => Cell::NoFigure("skipped"),
        (Status::Failed { .. }, _) => Cell::NoFigure("failed"),
        (Status::Ok, None) => Cell::NoFigure("no figure"),
        (Status::Ok, Some(median)) => {
            let clean: Vec<f64> = r
                .samples
                .iter()
                .filter(|s| !s.culled)
                .map(|s| s.value)
                .collect();
            Cell::Value {
                value: median,
                unit: r.unit,
                better: r.better,
                samples: (!r.derived && !clean.is_empty()).then_some(clean),
                source: None,
                below_resolution: r.below_resolution,
            }
        }
    }
}

/// Seconds per operation and seconds per job are both seconds: comparable.
fn same_dimension(a: Unit, b: Unit) -> bool {
    let secs = |u| matches!(u, Unit::SecondsPerOp | Unit::Seconds);
    a == b || (secs(a) && secs(b))
}

/// The ids to show: with a historical machine among the columns, those the first column
/// has and another column has too; otherwise every id of every run, first column first.
fn row_ids(columns: &[Column]) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    let with_machine = columns.iter().any(Column::is_machine);
    for c in columns {
        for id in c.ids() {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    if with_machine {
        ids.retain(|id| {
            !matches!(columns[0].cell(id), Cell::Missing)
                && columns[1..]
                    .iter()
                    .any(|c| !matches!(c.cell(id), Cell::Missing))
        });
    }
    ids
}

/// The comparison table; `min_effect` is the smallest relative change called a change.
pub fn compare_table(columns: &[Column], min_effect: f64) -> String {
    let mut header = vec!["benchmark".to_string(), columns[0].name().to_string()];
    for c in &columns[1..] {
        header.push(c.name().to_string());
        header.push("ratio".into());
        header.push("verdict".into());
    }
    let with_machine = columns.iter().any(Column::is_machine);
    if with_machine {
        header.push("historical source".into());
    }
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = new_table(&header_refs);
    let ids = row_ids(columns);
    // Each later column is (figure, ratio, verdict) from index 2: verdicts at 4, 7, …
    let verdict_cols: Vec<usize> = (0..columns.len() - 1).map(|k| 4 + 3 * k).collect();
    for id in &ids {
        let first = columns[0].cell(id);
        let mut row = vec![id.clone(), show(&first)];
        let mut source = String::new();
        for c in &columns[1..] {
            let other = c.cell(id);
            row.push(show(&other));
            let (ratio, verdict) = judge(
                &first,
                &other,
                columns[0].is_machine(),
                c.is_machine(),
                min_effect,
            );
            row.push(ratio);
            row.push(verdict);
            if let (
                Cell::Value {
                    source: Some(s), ..
                },
                true,
            ) = (&other, source.is_empty())
            {
                source = s.clone();
            }
        }
        if with_machine {
            if let Cell::Value {
                source: Some(s), ..
            } = &first
            {
                source = s.clone();
            }
            row.push(source);
        }
        t.add_row(style::toned(row, |i, text| {
            if verdict_cols.contains(&i) {
                style::verdict_tone(text)
            } else {
                style::Tone::Plain
            }
        }));
    }
    let mut right_cols = vec![1];
    for k in 0..columns.len() - 1 {
        right_cols.push(2 + 3 * k);
        right_cols.push(3 + 3 * k);
    }
    right(&mut t, &right_cols);
    no_wrap(&mut t, &verdict_cols);
    let mut out = String::new();
    for c in columns {
        out.push_str(&c.describe());
        out.push('\n');
    }
    if ids.is_empty() {
        out.push_str("no id in common\n");
        return out;
    }
    out.push_str(&format!("{t}\n"));
    out.push_str(&format!(
        "ratio = column / {}. Between runs: a change is called when a Mann–Whitney U test on \
         the clean samples gives p < {} and the medians differ by at least {:.0}%; \
         otherwise \"no significant change\". Against a historical machine: today's speed-up.\n",
        columns[0].name(),
        change::ALPHA,
        min_effect * 100.0
    ));
    out
}

fn show(c: &Cell) -> String {
    match c {
        Cell::Missing => "—".into(),
        Cell::NoFigure(w) => (*w).into(),
        Cell::Value { value, unit, .. } => format_value(*value, *unit),
    }
}

/// The ratio and the verdict of `other` against `first`.
fn judge(
    first: &Cell,
    other: &Cell,
    first_is_machine: bool,
    other_is_machine: bool,
    min_effect: f64,
) -> (String, String) {
    let (
        Cell::Value {
            value: a,
            unit: ua,
            better,
            samples: sa,
            below_resolution: ra,
            ..
        },
        Cell::Value {
            value: b,
            unit: ub,
            samples: sb,
            below_resolution: rb,
            ..
        },
    ) = (first, other)
    else {
        return (String::new(), String::new());
    };
    if !same_dimension(*ua, *ub) {
        return (String::new(), "units differ".into());
    }
    let ratio = b / a;
    let ratio_text = format!("×{}", figures3(ratio));
    let verdict = match (first_is_machine, other_is_machine) {
        // A raw figure below the clock's resolution measures the clock, not the operation:
        // its changes are the clock's.
        (false, false) if *ra || *rb => "below resolution: no verdict".into(),
        (false, false) => match (sa, sb) {
            (Some(sa), Some(sb)) => {
                let c = change::compare(sa, sb, *better, min_effect);
                match c.verdict {
                    Verdict::Faster | Verdict::Slower => {
                        format!("{} (p = {:.1e})", c.verdict.describe(), c.p_value)
                    }
                    v => v.describe().to_string(),
                }
            }
            _ => "no samples (derived)".into(),
        },
        // Today's run against a machine: how many times faster today is.
        (false, true) => speed_up(*a, *b, *better),
        (true, false) => speed_up(*b, *a, *better),
        (true, true) => String::new(),
    };
    (ratio_text, verdict)
}

fn speed_up(today: f64, then: f64, better: Better) -> String {
    let factor = match better {
        Better::Lower => then / today,
        Better::Higher => today / then,
    };
    if factor >= 1.0 {
        format!("today {}× faster", figures3(factor))
    } else {
        format!("today {}× slower", figures3(1.0 / factor))
    }
}

/// Three significant figures, without exponent for the ranges that occur here.
pub fn figures3(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else if a >= 0.01 {
        format!("{v:.3}")
    } else {
        format!("{v:.2e}")
    }
}

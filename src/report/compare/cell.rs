//! A column's figure for one id, as the comparison reads it: missing, without a figure,
//! not resolved (a bound and why), or a value with its basis, samples and interval.

use crate::model::details::vm::Paging;
use crate::model::resolution;
use crate::model::unit::format_value;
use crate::model::{BenchResult, Better, Measure, Status, Unit};
use crate::reference::Comparability;

use super::super::table::bound_text;

pub(super) enum Cell {
    Missing,
    /// Skipped, failed or without a figure: the word to show.
    NoFigure(&'static str),
    /// Under one cycle, under the clock's resolution or not positive: the bound and why,
    /// never the raw figure.
    NotResolved {
        bound: String,
        why: &'static str,
    },
    Value(Value),
}

pub(super) struct Value {
    /// The figure as stored, in its unit.
    pub(super) value: f64,
    pub(super) unit: Unit,
    /// The same with its basis; `None` when an old record does not say what it is per.
    pub(super) measure: Option<Measure>,
    pub(super) better: Better,
    /// The clean samples, for a run's measured (not derived) row.
    pub(super) samples: Option<Vec<f64>>,
    /// The confidence interval of the median as factors of it (low, high), for a run's
    /// measured row with more than one sample.
    pub(super) ci: Option<(f64, f64)>,
    pub(super) source: Option<String>,
    /// The run's figure is the raw one: the operation was cheaper than the clock.
    pub(super) below_resolution: bool,
    /// A run's row computed from others (a difference): it has no samples of its own.
    pub(super) derived: bool,
    /// A historical figure's comparability with today's row; a run's is the same
    /// operation as another run's.
    pub(super) comparability: Comparability,
    /// A run's paging row (vm.*) that had no major fault: it measured memory, never the
    /// disk, so it is no counterpart of a machine's paging figure (`table 001-7` says so).
    pub(super) did_not_page: bool,
}

impl Value {
    /// The figure per operation (as the seeds give theirs), or as stored when its basis is
    /// unknown or it cannot be divided.
    pub(super) fn shown(&self, per_op: bool) -> String {
        match (&self.measure, per_op) {
            (Some(m), true) => match m.per_op() {
                Ok(one) => bounded_value(one.value(), one.unit()),
                Err(_) => bounded_value(self.value, self.unit),
            },
            _ => bounded_value(self.value, self.unit),
        }
    }
}

/// The longest a figure is printed in its unit's own way ("127 ns", "3.20 GB/s").
pub(super) const FIGURE_CHARS: usize = 12;

/// A figure as [`format_value`] writes it, or with an exponent ("1.00e300 s") when that
/// is longer than [`FIGURE_CHARS`] or reads zero: a figure of a broken or hostile record must not
/// widen every row of the table.
pub(super) fn bounded_value(value: f64, unit: Unit) -> String {
    let text = format_value(value, unit);
    // A figure too small for the unit's smallest prefix reads "0.00 ns": not zero.
    let reads_zero = value != 0.0 && !text.chars().any(|c| ('1'..='9').contains(&c));
    if text.chars().count() <= FIGURE_CHARS && !reads_zero {
        return text;
    }
    let symbol = match unit {
        Unit::Seconds | Unit::SecondsPerOp => " s",
        Unit::BytesPerSecond => " B/s",
        Unit::Ratio | Unit::Count => "",
    };
    format!("{value:.2e}{symbol}")
}

/// "003 Zilog programs, row sys": the seed and the place in it, without the machine's own
/// name, which heads the column already — a long citation would wrap every row.
pub(super) fn short_source(seed: &str, place: &str, machine: &str) -> String {
    let place = place
        .strip_suffix(machine)
        .map(|p| p.trim_end_matches([',', ' ']))
        .unwrap_or(place);
    format!("{seed} {}", place.replace(&format!(", {machine},"), ","))
}

pub(super) fn run_cell(r: &BenchResult, mhz: Option<f64>) -> Cell {
    let not_resolved = resolution::shown_stored(r, mhz).filter(|s| !s.is_figure());
    match (&r.status, r.median()) {
        (Status::Skipped { .. }, _) => Cell::NoFigure("skipped"),
        (Status::Failed { .. }, _) => Cell::NoFigure("failed"),
        (Status::Ok, None) => Cell::NoFigure("no figure"),
        (Status::Ok, Some(_)) if not_resolved.is_some() => {
            let s = not_resolved.expect("checked just above");
            Cell::NotResolved {
                bound: bound_text(s).unwrap_or_default(),
                why: s.why().unwrap_or_default(),
            }
        }
        (Status::Ok, Some(median)) => {
            let clean: Vec<f64> = r
                .samples
                .iter()
                .filter(|s| !s.culled)
                .map(|s| s.value)
                .collect();
            Cell::Value(Value {
                value: median,
                unit: r.unit,
                measure: r.measure(),
                better: r.better,
                samples: (!r.derived && !clean.is_empty()).then_some(clean),
                ci: r
                    .summary
                    .as_ref()
                    .filter(|s| !r.derived && s.n > 1 && s.median > 0.0)
                    .map(|s| (s.ci_low / s.median, s.ci_high / s.median)),
                source: None,
                below_resolution: r.below_resolution,
                derived: r.derived,
                comparability: Comparability::Same,
                did_not_page: r
                    .details_as::<Paging>()
                    .is_some_and(|p| p.major_faults == 0.0),
            })
        }
    }
}

/// A figure of one side of a comparison, as numbers: for `compare --format json`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SideFigure {
    pub value: f64,
    pub unit: Unit,
    /// The interval of the median, (low, high), in `unit`.
    pub interval: Option<(f64, f64)>,
}

impl Cell {
    /// The figure of a cell that has one.
    pub(super) fn figure(&self) -> Option<SideFigure> {
        match self {
            Cell::Value(v) => Some(SideFigure {
                value: v.value,
                unit: v.unit,
                interval: v.ci.map(|(lo, hi)| (v.value * lo, v.value * hi)),
            }),
            _ => None,
        }
    }
}

/// Remember that `id`'s figure in `cell` was a job, shown per operation.
pub(super) fn note_conversion(id: &str, cell: &Cell, converted: &mut Vec<String>) {
    if let Cell::Value(Value {
        measure: Some(m), ..
    }) = cell
    {
        let b = m.basis();
        let line = format!(
            "{id} (job of {} × {})",
            crate::model::basis::group_thousands(b.ops),
            b.op
        );
        if b.ops > 1 && m.unit().grows_with_work() && !converted.contains(&line) {
            converted.push(line);
        }
    }
}

pub(super) fn show(c: &Cell, per_op: bool) -> String {
    match c {
        Cell::Missing => "—".into(),
        Cell::NoFigure(w) => (*w).into(),
        Cell::NotResolved { bound, .. } => bound.clone(),
        Cell::Value(v) => v.shown(per_op),
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

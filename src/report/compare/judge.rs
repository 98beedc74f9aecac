//! One id of a later column judged against the first: the ratio per one operation (or
//! why there is none) and the verdict, as text for the table and as numbers
//! ([`judgements`]) for JSON, CSV, Markdown and the report.

use crate::model::change::Verdict;
use crate::model::{Better, NotComparable};
use crate::reference::Comparability;

use super::cell::{figures3, show, Cell, SideFigure, Value};
use super::decide::{decide, Decisions};
use super::{common_ids, ids_of, row_ids, Column, NoCommonIds};

/// One id of one later column judged against the first: what the report's comparison
/// chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    pub id: String,
    /// The figures as the table shows them.
    pub first: String,
    pub other: String,
    /// The later column's figure over the first's, per one operation of their basis.
    pub ratio: Option<f64>,
    /// The ratio's range from the two confidence intervals, where the columns have them.
    pub ratio_range: Option<(f64, f64)>,
    /// "faster (p = …)", "slower …", "no significant change", "today 40× faster",
    /// "not comparable: …", or empty when a side has no figure.
    pub verdict: String,
    /// Each side's figure as stored (in `unit`), with its 95% interval where it has one;
    /// `None` where the side has no figure (missing, skipped, failed, not resolved).
    pub first_figure: Option<SideFigure>,
    pub other_figure: Option<SideFigure>,
}

/// For each column after the first, its name and every shown id judged against the
/// first column (the comparison table's rows, as numbers).
pub fn judgements(
    columns: &[Column],
    min_effect: f64,
) -> Result<Vec<(String, Vec<Judgement>)>, NoCommonIds> {
    if common_ids(columns).is_empty() {
        let sides: Vec<String> = columns.iter().map(ids_of).collect();
        return Err(NoCommonIds(format!(
            "no id in common: {}",
            sides.join("; ")
        )));
    }
    let with_machine = columns.iter().any(Column::is_machine);
    let ids = row_ids(columns);
    let mut out = Vec::new();
    for c in &columns[1..] {
        // The same decisions as the terminal's table: one family of tests per column.
        let decisions = (!c.is_machine() && !columns[0].is_machine())
            .then(|| decide(&columns[0], c, &ids, min_effect));
        let mut rows = Vec::new();
        for id in &ids {
            let first = columns[0].cell(id);
            let other = c.cell(id);
            let decided = decisions
                .as_ref()
                .and_then(|d| Decisions::of(id, &d.verdicts));
            let (_, verdict) = judge(&columns[0], &first, c, &other, decided);
            let (ratio, ratio_range) = match (&first, &other) {
                (Cell::Value(a), Cell::Value(b)) => {
                    let ratio = match (&a.measure, &b.measure) {
                        (Some(ma), Some(mb)) => ma.check(mb).and_then(|()| mb.divided_by(ma)).ok(),
                        _ => None,
                    }
                    .filter(|_| !withheld(a, b));
                    let range = ratio.and_then(|q| match (a.ci, b.ci) {
                        (None, None) => None,
                        (ca, cb) => {
                            let (alo, ahi) = ca.unwrap_or((1.0, 1.0));
                            let (blo, bhi) = cb.unwrap_or((1.0, 1.0));
                            Some((q * blo / ahi, q * bhi / alo))
                        }
                    });
                    (ratio, range)
                }
                _ => (None, None),
            };
            rows.push(Judgement {
                id: id.clone(),
                first: show(&first, with_machine),
                other: show(&other, with_machine),
                ratio,
                ratio_range,
                verdict,
                first_figure: first.figure(),
                other_figure: other.figure(),
            });
        }
        out.push((c.name().to_string(), rows));
    }
    Ok(out)
}

/// Why `first` and `other` cannot be divided, in words naming the columns.
pub(super) fn not_comparable(first: &Column, other: &Column, why: NotComparable) -> String {
    match why {
        NotComparable::Ops {
            first: a,
            second: b,
        } => format!(
            "not comparable: {} per {a}, {} per {b}",
            first.name(),
            other.name()
        ),
        NotComparable::Units {
            first: a,
            second: b,
        } => format!(
            "not comparable: units differ ({} {}, {} {})",
            first.name(),
            a.symbol(),
            other.name(),
            b.symbol()
        ),
        NotComparable::NoOps => "not comparable: a job of no operations".into(),
    }
}

/// The ratio and the verdict of `other` against `first`; `decided` is the verdict of two
/// runs' figures from [`decide`].
pub(super) fn judge(
    first_col: &Column,
    first: &Cell,
    other_col: &Column,
    other: &Cell,
    decided: Option<String>,
) -> (String, String) {
    // The reason goes in the verdict, not beside the bound: the figure column stays narrow.
    if let Cell::NotResolved { why, .. } = first {
        // Where the other column has no figure, there is nothing to give a verdict on.
        if !matches!(other, Cell::Value(_) | Cell::NotResolved { .. }) {
            return (String::new(), String::new());
        }
        return (String::new(), format!("{why}: no verdict"));
    }
    if let Cell::NotResolved { why, .. } = other {
        return (String::new(), format!("{why}: no verdict"));
    }
    let (Cell::Value(a), Cell::Value(b)) = (first, other) else {
        return (String::new(), String::new());
    };
    let (Some(ma), Some(mb)) = (&a.measure, &b.measure) else {
        let unknown = if a.measure.is_none() {
            first_col.name()
        } else {
            other_col.name()
        };
        return (
            String::new(),
            format!("not comparable: {unknown} does not say what its figure is per"),
        );
    };
    // Checked in the columns' order, so that the reason names each side's operation.
    let ratio = match ma.check(mb).and_then(|()| mb.divided_by(ma)) {
        Ok(r) => r,
        Err(why) => return (String::new(), not_comparable(first_col, other_col, why)),
    };
    if paging_against_a_machine_that_paged(first_col, a, other_col, b) {
        return (String::new(), format!("not comparable: {DID_NOT_PAGE}"));
    }
    let ratio_text = format!("×{}", short_figures(time_ratio(ratio, a.better)));
    let verdict = match (first_col.is_machine(), other_col.is_machine()) {
        // A raw figure below the clock's resolution measures the clock, not the operation:
        // its changes are the clock's.
        (false, false) if a.below_resolution || b.below_resolution => {
            "below resolution: no verdict".into()
        }
        (false, false) => match (&a.samples, &b.samples) {
            // A run stored without its samples (an export's summaries) is still tested at
            // the process level: the decision, where there is one, stands.
            _ if decided.is_some() => decided.unwrap_or_default(),
            (Some(_), Some(_)) => Verdict::TooFew.describe().to_string(),
            _ if a.derived || b.derived => "no samples (derived)".into(),
            (None, _) => not_tested(first_col),
            (_, None) => not_tested(other_col),
        },
        // Today's run against a machine: how many times faster today is. `ratio` is
        // then/today when the machine is the other column, today/then when it is first.
        (false, true) => return historical(ratio_text, speed_up(ratio, a.better), b),
        (true, false) => return historical(ratio_text, speed_up(1.0 / ratio, b.better), a),
        (true, true) => String::new(),
    };
    (ratio_text, verdict)
}

/// Why an id both runs measured was not tested: `without` holds none of its samples (a
/// run stored with its summaries only), and the two were not both measured in enough
/// processes for a test of processes.
fn not_tested(without: &Column) -> String {
    format!(
        "not tested: {} holds no samples of it, and a test of processes needs {} processes \
         in each run",
        without.name(),
        crate::model::change::MIN_INVOCATIONS
    )
}

/// A ratio as the table prints it, in time per operation: a rate's ratio is inverted, so
/// that above 1 always means the column took longer than the first, as for times.
pub(super) fn time_ratio(ratio: f64, better: Better) -> f64 {
    match better {
        Better::Lower => ratio,
        Better::Higher => 1.0 / ratio,
    }
}

/// The ratio and speed-up of today's row against a historical figure, as the figure's
/// [`Comparability`] lets them be printed: as they are, marked with the reason after a
/// colon (the table's short verdict moves it to a note under the table), or no ratio and the reason.
pub(super) fn historical(ratio: String, speed_up: String, then: &Value) -> (String, String) {
    let c = then.comparability;
    match (c.shown(&ratio), c.shown(&speed_up), c.reason()) {
        (Some(ratio), Some(speed_up), None) => (ratio, speed_up),
        (Some(ratio), Some(speed_up), Some(why)) => (ratio, format!("{speed_up}: {why}")),
        (_, _, why) => (
            String::new(),
            format!("not comparable: {}", why.unwrap_or_default()),
        ),
    }
}

/// Whether the historical side of `a` and `b` withholds a ratio ([`Comparability::Not`]),
/// or today's paging row did not page beside a machine's that did.
pub(super) fn withheld(a: &Value, b: &Value) -> bool {
    let machine_and_unpaged = |x: &Value, y: &Value| x.source.is_some() && y.did_not_page;
    [a, b]
        .iter()
        .any(|v| matches!(v.comparability, Comparability::Not(_)))
        || machine_and_unpaged(a, b)
        || machine_and_unpaged(b, a)
}

/// Why a run's paging row that did not page gets no ratio against a machine's.
const DID_NOT_PAGE: &str = "today's row did not page (no major fault: every page was served \
                            from memory), the machine's paged from its disk";

/// Whether one side is a run's paging row that did not page and the other a machine's
/// figure (every historical paging figure is of a machine paging from its disk).
fn paging_against_a_machine_that_paged(
    first_col: &Column,
    a: &Value,
    other_col: &Column,
    b: &Value,
) -> bool {
    (other_col.is_machine() && a.did_not_page) || (first_col.is_machine() && b.did_not_page)
}

/// `then_over_today`: the historical figure over today's, both per operation.
pub(super) fn speed_up(then_over_today: f64, better: Better) -> String {
    let factor = match better {
        Better::Lower => then_over_today,
        Better::Higher => 1.0 / then_over_today,
    };
    if factor >= 1.0 {
        format!("today {}× faster", short_figures(factor))
    } else {
        format!("today {}× slower", short_figures(1.0 / factor))
    }
}

/// [`figures3`], with an exponent from 100,000 on: a ratio or a speed-up of extreme
/// figures stays a short cell ("×1.00e300", not 301 digits).
pub(super) fn short_figures(v: f64) -> String {
    if v.abs() >= 1e5 && v.is_finite() {
        format!("{v:.2e}")
    } else {
        figures3(v)
    }
}

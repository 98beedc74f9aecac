//! `timeshare compare`: runs and historical machines side by side, one row per id.
//!
//! For every column after the first: its figure, the ratio to the first column's figure,
//! and a verdict. Between two runs the verdict comes from the stored samples
//! ([`crate::model::change`]: Mann–Whitney U plus a minimum effect), so noise is not
//! called a change. Against a historical machine there are no samples, only the seed's
//! figure, and the verdict is the speed-up of today's run over it.
//!
//! Every ratio is a [`Measure::divided_by`]: both figures are brought to one operation of
//! their basis first (a run's job of 1,000,000 calls becomes one call), and two figures of
//! different operations (a batch of copies and one copy, a dup and a dup + close) are
//! "not comparable" with the reason, never a ratio. With a historical machine among the
//! columns, every figure is shown per operation, as the seeds' are.

use std::fmt;

use crate::model::agreement;
use crate::model::change::{self, Verdict};
use crate::model::details::vm::Paging;
use crate::model::resolution;
use crate::model::unit::format_value;
use crate::model::{BenchResult, Better, Measure, NotComparable, Run, Status, Unit};
use crate::reference::{Comparability, Figure, Machine};

use super::style;
use super::table::{bound_text, new_table, no_wrap, right};

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
                    comparability: f.comparability,
                    did_not_page: false,
                }),
            },
        }
    }
}

enum Cell {
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

struct Value {
    /// The figure as stored, in its unit.
    value: f64,
    unit: Unit,
    /// The same with its basis; `None` when an old record does not say what it is per.
    measure: Option<Measure>,
    better: Better,
    /// The clean samples, for a run's measured (not derived) row.
    samples: Option<Vec<f64>>,
    /// The confidence interval of the median as factors of it (low, high), for a run's
    /// measured row with more than one sample.
    ci: Option<(f64, f64)>,
    source: Option<String>,
    /// The run's figure is the raw one: the operation was cheaper than the clock.
    below_resolution: bool,
    /// A historical figure's comparability with today's row; a run's is the same
    /// operation as another run's.
    comparability: Comparability,
    /// A run's paging row (vm.*) that had no major fault: it measured memory, never the
    /// disk, so it is no counterpart of a machine's paging figure (`table 001-7` says so).
    did_not_page: bool,
}

impl Value {
    /// The figure per operation (as the seeds give theirs), or as stored when its basis is
    /// unknown or it cannot be divided.
    fn shown(&self, per_op: bool) -> String {
        match (&self.measure, per_op) {
            (Some(m), true) => match m.per_op() {
                Ok(one) => format_value(one.value(), one.unit()),
                Err(_) => format_value(self.value, self.unit),
            },
            _ => format_value(self.value, self.unit),
        }
    }
}

/// "003 Zilog programs, row sys": the seed and the place in it, without the machine's own
/// name, which heads the column already — a long citation would wrap every row.
fn short_source(seed: &str, place: &str, machine: &str) -> String {
    let place = place
        .strip_suffix(machine)
        .map(|p| p.trim_end_matches([',', ' ']))
        .unwrap_or(place);
    format!("{seed} {}", place.replace(&format!(", {machine},"), ","))
}

fn run_cell(r: &BenchResult, mhz: Option<f64>) -> Cell {
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
                comparability: Comparability::Same,
                did_not_page: r
                    .details_as::<Paging>()
                    .is_some_and(|p| p.major_faults == 0.0),
            })
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

/// The verdicts of one run column against the first, decided together: one test per id
/// that both have a measured figure for, then the Benjamini–Hochberg correction over
/// all of them, then the effect-size threshold.
struct Decisions {
    /// Per id: the verdict's text.
    verdicts: Vec<(String, String)>,
    tested: usize,
    changed: usize,
    /// How many tests were at the process level, and how many on samples.
    at_invocations: usize,
    at_samples: usize,
    /// The bounds (as ratios, e.g. 1.07) of the tests also held against a run-to-run
    /// spread learned from earlier runs.
    run_bounds: Vec<f64>,
}

impl Decisions {
    fn of(id: &str, list: &[(String, String)]) -> Option<String> {
        list.iter().find(|(i, _)| i == id).map(|(_, v)| v.clone())
    }
}

impl Decisions {
    /// At which level the ids were tested: processes, samples, or some of each.
    fn level_text(&self) -> String {
        match (self.at_invocations, self.at_samples) {
            (0, 0) => String::new(),
            (_, 0) => " (all at the process level)".to_string(),
            (0, _) => format!(
                " (all on samples: a run needs {} processes for the process level)",
                change::MIN_INVOCATIONS
            ),
            (i, s) => format!(" ({i} at the process level, {s} on samples)"),
        }
    }

    /// Whether the tests were also held against the run-to-run spread learned from
    /// earlier runs, and how wide that made the bound.
    fn runs_text(&self) -> String {
        let (lo, hi) = self
            .run_bounds
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), &b| {
                (lo.min(b), hi.max(b))
            });
        let range = if hi - lo < 0.005 {
            format!("×{}", figures3(hi))
        } else {
            format!("×{} to ×{}", figures3(lo), figures3(hi))
        };
        match self.run_bounds.len() {
            0 if self.tested > 0 => "none against how far this machine's runs differ: \
                 neither run learned that from earlier runs like it (the first runs on a \
                 machine, or sides measured alternately as `ab` does)"
                .to_string(),
            0 => String::new(),
            n => format!(
                "{n} of them also against how far this machine's earlier runs differed (a \
                 change must exceed {range})"
            ),
        }
    }
}

/// Joins a verdict and why it was reached state for state ([`change::StateMatch`]); the
/// table prints the verdict, "state for state", and the why under the table.
const STATE_FOR_STATE: &str = "; state for state: ";

/// The verdicts of `other` against `first` over `ids`, decided by the model's one rule
/// (`model::agreement::decide`: the same ids tested and corrected together as every A/A
/// check and detection figure counts them). Only two runs carry samples to test.
fn decide(first: &Column, other: &Column, ids: &[String], min_effect: f64) -> Decisions {
    let decided: Vec<agreement::Decided> = match (first, other) {
        (Column::Run { run: a, .. }, Column::Run { run: b, .. }) => {
            agreement::decide_runs(a, b, min_effect)
                .into_iter()
                .filter(|d| ids.contains(&d.id))
                .collect()
        }
        _ => Vec::new(),
    };
    let mut d = Decisions {
        verdicts: Vec::new(),
        tested: decided.len(),
        changed: 0,
        at_invocations: 0,
        at_samples: 0,
        run_bounds: Vec::new(),
    };
    for agreement::Decided {
        id, verdict, test, ..
    } in decided
    {
        let t = &test;
        match t.level {
            change::Level::Invocations => d.at_invocations += 1,
            change::Level::Samples => d.at_samples += 1,
        }
        if let Some(bound) = t.run_bound {
            d.run_bounds.push(bound.exp());
        }
        let v = verdict;
        let mut text = match v {
            Verdict::Faster | Verdict::Slower => {
                d.changed += 1;
                format!("{} (p = {:.1e})", v.describe(), t.p_value)
            }
            v => v.describe().to_string(),
        };
        if let Some(states) = t.states {
            text = format!("{text}{STATE_FOR_STATE}{}", states.describe());
        }
        d.verdicts.push((id, text));
    }
    d
}

/// The comparison table; `min_effect` is the smallest relative change called a change.
/// Refused when the first column shares no id with any other.
pub fn compare_table(columns: &[Column], min_effect: f64) -> Result<String, NoCommonIds> {
    if common_ids(columns).is_empty() {
        let sides: Vec<String> = columns.iter().map(ids_of).collect();
        return Err(NoCommonIds(format!(
            "no id in common: {}",
            sides.join("; ")
        )));
    }
    let with_machine = columns.iter().any(Column::is_machine);
    let mut header = vec!["benchmark".to_string(), columns[0].name().to_string()];
    for c in &columns[1..] {
        header.push(c.name().to_string());
        header.push("ratio".into());
        header.push("verdict".into());
    }
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = new_table(&header_refs);
    let ids = row_ids(columns);
    let decisions: Vec<Option<Decisions>> = columns[1..]
        .iter()
        .map(|c| {
            (!c.is_machine() && !columns[0].is_machine())
                .then(|| decide(&columns[0], c, &ids, min_effect))
        })
        .collect();
    // Each later column is (figure, ratio, verdict) from index 2: verdicts at 4, 7, …
    let verdict_cols: Vec<usize> = (0..columns.len() - 1).map(|k| 4 + 3 * k).collect();
    let mut converted: Vec<String> = Vec::new();
    let mut reasons: Vec<String> = Vec::new();
    // The rows a side did not resolve, by reason: the reason goes under the table, once.
    let mut unresolved: Vec<(String, Vec<String>)> = Vec::new();
    // The historical sources are long: they go under the table, one line per id, so the
    // figures keep one line each at a terminal's width.
    let mut sources: Vec<String> = Vec::new();
    for id in &ids {
        let first = columns[0].cell(id);
        let mut row = vec![id.clone(), show(&first, with_machine)];
        let mut source = String::new();
        for (k, c) in columns.iter().enumerate().skip(1) {
            let other = c.cell(id);
            row.push(show(&other, with_machine));
            let decided = decisions[k - 1]
                .as_ref()
                .and_then(|d| Decisions::of(id, &d.verdicts));
            let (ratio, verdict) = judge(&columns[0], &first, c, &other, decided);
            row.push(ratio);
            // The reason a pair cannot be divided is long: it goes under the table.
            if verdict.ends_with(": no verdict") && !verdict.starts_with("not comparable: ") {
                match unresolved.iter_mut().find(|(v, _)| *v == verdict) {
                    Some((_, ids)) if !ids.contains(id) => ids.push(id.clone()),
                    Some(_) => {}
                    None => unresolved.push((verdict, vec![id.clone()])),
                }
                row.push("no verdict".into());
            } else {
                row.push(verdict_cell(id, &verdict, &mut reasons));
            }
            if let (
                Cell::Value(Value {
                    source: Some(s), ..
                }),
                true,
            ) = (&other, source.is_empty())
            {
                source = s.clone();
            }
            if with_machine && k == 1 {
                note_conversion(id, &first, &mut converted);
            }
            if with_machine {
                note_conversion(id, &other, &mut converted);
            }
        }
        if with_machine {
            if let Cell::Value(Value {
                source: Some(s), ..
            }) = &first
            {
                source = s.clone();
            }
            if !source.is_empty() {
                sources.push(format!("  {id}: {source}"));
            }
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
    // Too wide for the output, the table is printed in parts, each with the ids and the
    // first column's figures beside one or more of the other columns.
    super::table::repeat_columns(&mut t, 2);
    let mut out = String::new();
    for c in columns {
        out.push_str(&c.describe());
        out.push('\n');
    }
    out.push_str(&format!("{t}\n"));
    if !sources.is_empty() {
        out.push_str("historical sources:\n");
        for line in sources {
            out.push_str(&line);
            out.push('\n');
        }
    }
    for r in reasons {
        out.push_str(&format!("{r}\n"));
    }
    for (verdict, ids) in unresolved {
        out.push_str(&format!("{verdict} — {}\n", ids.join(", ")));
    }
    for (c, d) in columns[1..].iter().zip(&decisions) {
        let Some(d) = d else { continue };
        out.push_str(&format!(
            "{} against {}: {} ids tested{}, {} called changed; {}.\n",
            c.name(),
            columns[0].name(),
            d.tested,
            d.level_text(),
            d.changed,
            d.runs_text()
        ));
    }
    out.push_str(&format!(
        "ratio = column / {}, each figure taken per one operation of its basis, in time per \
         operation (a rate's ratio is inverted: above 1, the column took longer); two figures \
         of different operations are \"not comparable\". Between runs: each id is tested — \
         at the process level (Welch's t on the logarithms of the medians of the processes \
         in each headline, the fast state, beside those of a slower state where both runs \
         have two in it, each state against its own; every process of both where a headline is one \
         process; state for state where one run's processes were all in the other's \
         slower state) when both runs measured it in at least {} \
         processes, else on samples (a Mann–Whitney U test on the clean samples) — the \
         p-values are corrected for the number of ids tested (Benjamini–Hochberg, false \
         discovery rate {:.0}%), and a change is called when the corrected test finds one, \
         the figures differ by at least {:.0}%, and, where a run learned how far this \
         machine's runs differ from earlier runs like it, by more than two such runs \
         differ in {:.0} of {:.0} cases (t · √2 · their spread); otherwise \"no significant \
         change\". Against a \
         historical machine: today's speed-up where today's row does the paper's operation, \
         marked {} where it does the same kind of work with another program (the reason \
         above), and none where the work differs.\n",
        columns[0].name(),
        change::MIN_INVOCATIONS,
        change::FDR * 100.0,
        min_effect * 100.0,
        (1.0 - change::ALPHA) * 100.0,
        100.0,
        Comparability::MARK
    ));
    if with_machine {
        out.push_str(
            "Figures are per operation, as the seeds give theirs (`timeshare reference \
             MACHINE` shows each historical conversion)",
        );
        if converted.is_empty() {
            out.push_str(".\n");
        } else {
            out.push_str(&format!(
                "; today's whole jobs divided by their operations: {}.\n",
                converted.join(", ")
            ));
        }
    }
    Ok(out)
}

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
    fn figure(&self) -> Option<SideFigure> {
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

/// Remember that `id`'s figure in `cell` was a job, shown per operation.
fn note_conversion(id: &str, cell: &Cell, converted: &mut Vec<String>) {
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

fn show(c: &Cell, per_op: bool) -> String {
    match c {
        Cell::Missing => "—".into(),
        Cell::NoFigure(w) => (*w).into(),
        Cell::NotResolved { bound, .. } => bound.clone(),
        Cell::Value(v) => v.shown(per_op),
    }
}

/// Why `first` and `other` cannot be divided, in words naming the columns.
fn not_comparable(first: &Column, other: &Column, why: NotComparable) -> String {
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
fn judge(
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
    let ratio_text = format!("×{}", figures3(time_ratio(ratio, a.better)));
    let verdict = match (first_col.is_machine(), other_col.is_machine()) {
        // A raw figure below the clock's resolution measures the clock, not the operation:
        // its changes are the clock's.
        (false, false) if a.below_resolution || b.below_resolution => {
            "below resolution: no verdict".into()
        }
        (false, false) => match (&a.samples, &b.samples) {
            (Some(_), Some(_)) => decided.unwrap_or_else(|| Verdict::TooFew.describe().to_string()),
            _ => "no samples (derived)".into(),
        },
        // Today's run against a machine: how many times faster today is. `ratio` is
        // then/today when the machine is the other column, today/then when it is first.
        (false, true) => return historical(ratio_text, speed_up(ratio, a.better), b),
        (true, false) => return historical(ratio_text, speed_up(1.0 / ratio, b.better), a),
        (true, true) => String::new(),
    };
    (ratio_text, verdict)
}

/// A ratio as the table prints it, in time per operation: a rate's ratio is inverted, so
/// that above 1 always means the column took longer than the first, as for times.
fn time_ratio(ratio: f64, better: Better) -> f64 {
    match better {
        Better::Lower => ratio,
        Better::Higher => 1.0 / ratio,
    }
}

/// The ratio and speed-up of today's row against a historical figure, as the figure's
/// [`Comparability`] lets them be printed: as they are, marked with the reason after a
/// colon ([`verdict_cell`] moves it under the table), or no ratio and the reason.
fn historical(ratio: String, speed_up: String, then: &Value) -> (String, String) {
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
fn withheld(a: &Value, b: &Value) -> bool {
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

/// A verdict's cell; its reason, when it has one (a pair not comparable, a ratio of the
/// same kind of work by different programs), goes under the table, once.
fn verdict_cell(id: &str, verdict: &str, reasons: &mut Vec<String>) -> String {
    if let Some(why) = verdict.strip_prefix("not comparable: ") {
        super::seed_table::note_reason(reasons, "not comparable:", id, why);
        return "not comparable".to_string();
    }
    if let Some((cell, why)) = verdict.split_once(STATE_FOR_STATE) {
        super::seed_table::note_reason(reasons, "state for state:", id, why);
        return format!("{cell}, state for state");
    }
    match verdict.split_once(": ") {
        Some((cell, why)) if verdict.starts_with(Comparability::MARK) => {
            super::seed_table::note_reason(reasons, Comparability::MARK, id, why);
            cell.to_string()
        }
        _ => verdict.to_string(),
    }
}

/// `then_over_today`: the historical figure over today's, both per operation.
fn speed_up(then_over_today: f64, better: Better) -> String {
    let factor = match better {
        Better::Lower => then_over_today,
        Better::Higher => 1.0 / then_over_today,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::invocations::Invocations;
    use crate::model::levels::merge;
    use crate::model::{Basis, Sample, Summary};
    use rand::{Rng, SeedableRng};

    /// A standard normal variate (Box–Muller).
    fn normal(rng: &mut rand::rngs::SmallRng) -> f64 {
        let (u, v): (f64, f64) = (rng.gen::<f64>().max(1e-300), rng.gen());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }

    /// One id measured in `k` invocations of 21 samples, with the noise seen on this
    /// kind of machine: each process lands 1.5% (sd) away from the true figure (1.0–1.6%
    /// measured here for syscall.read and syscall.getpid.libc), samples
    /// within it spread 3%, and one sample in ten hit by an interrupt (+30%).
    fn id_result(id: &str, truth: f64, k: usize, rng: &mut rand::rngs::SmallRng) -> BenchResult {
        id_in_states(id, truth, (k, k), rng)
    }

    /// [`id_result`] of `processes.1` processes, of which the first `processes.0` in the
    /// fast state and the rest in a state 35% slower (as a VM's host puts them).
    fn id_in_states(
        id: &str,
        truth: f64,
        processes: (usize, usize),
        rng: &mut rand::rngs::SmallRng,
    ) -> BenchResult {
        let (fast, k) = processes;
        let parts: Vec<BenchResult> = (0..k)
            .map(|i| {
                let state = if i < fast { 1.0 } else { 1.35 };
                let centre = truth * state * (0.015 * normal(rng)).exp();
                let values: Vec<f64> = (0..21)
                    .map(|_| {
                        let hit = if rng.gen::<f64>() < 0.1 { 1.3 } else { 1.0 };
                        centre * (0.03 * normal(rng)).exp() * hit
                    })
                    .collect();
                BenchResult {
                    summary: Summary::from_values(&values).ok(),
                    samples: values
                        .iter()
                        .map(|&value| Sample::unperturbed(value))
                        .collect(),
                    ..BenchResult::new(
                        id,
                        "syscall",
                        "test",
                        Unit::Seconds,
                        Better::Lower,
                        Some(Basis::per("call")),
                    )
                }
            })
            .collect();
        merge(&parts)
    }

    fn fixture(seed: u64, k: usize, slow: Option<(usize, f64)>) -> Column {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        let results = (0..40)
            .map(|i| {
                let factor = match slow {
                    Some((j, f)) if j == i => f,
                    _ => 1.0,
                };
                let truth = 1e-7 * (1.0 + i as f64) * factor;
                id_result(&format!("syscall.fixture{i}"), truth, k, &mut rng)
            })
            .collect();
        Column::Run {
            name: format!("run {seed}"),
            about: "fixture".into(),
            run: Box::new(Run::of(results)),
        }
    }

    fn changed(table: &str) -> Vec<String> {
        table
            .lines()
            .filter(|l| l.contains("faster (p") || l.contains("slower (p"))
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn an_a_a_comparison_stays_quiet_and_a_ten_percent_slowdown_is_found() {
        let mut false_calls = 0;
        let mut tested = 0;
        let mut found = 0;
        let pairs = 40;
        for seed in 0..pairs {
            let (a, b) = (fixture(2 * seed, 5, None), fixture(2 * seed + 1, 5, None));
            let t = compare_table(&[a, b], change::DEFAULT_MIN_EFFECT).unwrap();
            assert!(
                t.contains("40 ids tested (all at the process level)"),
                "{t}"
            );
            false_calls += changed(&t).len();
            tested += 40;

            let (a, b) = (
                fixture(2 * seed, 5, None),
                fixture(2 * seed + 1, 5, Some((7, 1.10))),
            );
            let t = compare_table(&[a, b], change::DEFAULT_MIN_EFFECT).unwrap();
            let calls = changed(&t);
            if calls
                .iter()
                .any(|l| l.contains("syscall.fixture7 ") && l.contains("slower"))
            {
                found += 1;
            }
            // Nothing else is called changed for it.
            assert!(calls.len() <= 2, "seed {seed}:\n{t}");
        }
        // Power, not certainty: with five processes a side and 1.5% between them, the
        // slowdown is found in nearly every pair (about 80% at 2% between processes).
        assert!(
            found * 100 >= 85 * pairs,
            "the 10% slowdown was found in only {found} of {pairs} pairs"
        );
        assert!(
            false_calls * 20 <= tested,
            "{false_calls} of {tested} A/A tests called changed"
        );
    }

    /// `c` with every figure of every id × `factor`, and each id's learned run-to-run
    /// spread `sd_log` when given.
    fn shifted(c: Column, factor: f64, sd_log: Option<f64>) -> Column {
        let Column::Run { name, about, run } = c else {
            unreachable!("a fixture is a run")
        };
        let mut results = run.results.clone();
        for id in run.results.iter().map(|r| r.id.clone()) {
            results = crate::model::agreement::inject_results(&results, &id, factor);
        }
        for r in &mut results {
            r.invocations.as_mut().unwrap().runs =
                sd_log.map(|sd_log| crate::model::invocations::RunLevel {
                    earlier_runs: 3,
                    sd_log,
                    df: 80,
                    low: 0.0,
                    high: 0.0,
                    process_low: 0.0,
                    process_high: 0.0,
                });
        }
        Column::Run {
            name,
            about,
            run: Box::new(Run::of(results)),
        }
    }

    #[test]
    fn a_whole_run_a_few_percent_off_is_the_machine_when_its_runs_differ_that_much() {
        // Every id of the second run 7% slower, its processes as tight as the first's
        // (1.5% apart): what a machine whose runs differ does to a run as a whole. The
        // processes alone call most of the 40 ids slower, and the footnote says nothing
        // was learned about the runs.
        let t = compare_table(
            &[
                fixture(1, 5, None),
                shifted(fixture(2, 5, None), 1.07, None),
            ],
            0.05,
        )
        .unwrap();
        assert!(changed(&t).len() >= 30, "{t}");
        assert!(
            t.contains("none against how far this machine's runs differ"),
            "{t}"
        );
        // The second run learned from earlier runs that this machine's runs differ by
        // 3% (sd of ln): 7% is within 2.64 · √2 · 3% = 11.2%, and nothing is called.
        let learned = shifted(fixture(2, 5, None), 1.07, Some(0.03));
        let t = compare_table(&[fixture(1, 5, None), learned], 0.05).unwrap();
        assert!(changed(&t).is_empty(), "{t}");
        assert!(
            t.contains(
                "40 of them also against how far this machine's earlier runs differed (a \
                 change must exceed ×1.12)"
            ),
            "{t}"
        );
        // A 20% slowdown of one id stands out from both.
        let Column::Run { name, about, run } = shifted(fixture(2, 5, None), 1.0, Some(0.03)) else {
            unreachable!()
        };
        let slowed = crate::model::agreement::inject_results(&run.results, "syscall.fixture7", 1.2);
        let b = Column::Run {
            name,
            about,
            run: Box::new(Run::of(slowed)),
        };
        let t = compare_table(&[fixture(1, 5, None), b], 0.05).unwrap();
        let calls = changed(&t);
        assert_eq!(calls.len(), 1, "{t}");
        assert!(calls[0].contains("syscall.fixture7 "), "{t}");
    }

    #[test]
    fn a_run_that_missed_the_fast_state_is_compared_state_for_state_and_says_so() {
        let column = |seed: u64, fast: usize, factor: f64| {
            let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
            let results = (0..5)
                .map(|i| {
                    let truth = 1e-7 * (1.0 + i as f64) * factor;
                    let fast = if i == 2 { fast } else { 12 };
                    id_in_states(&format!("syscall.fixture{i}"), truth, (fast, 12), &mut rng)
                })
                .collect();
            Column::Run {
                name: format!("run {seed}"),
                about: "fixture".into(),
                run: Box::new(Run::of(results)),
            }
        };
        // fixture2: the first run caught the fast state in four processes of twelve, the
        // second in none. Its headline is 35% slower; state for state it is the same.
        let t = compare_table(&[column(1, 4, 1.0), column(2, 0, 1.0)], 0.05).unwrap();
        let row = t.lines().find(|l| l.contains("syscall.fixture2 ")).unwrap();
        assert!(
            row.contains("×1.3") && row.contains("no significant change, state for state"),
            "{t}"
        );
        assert!(
            t.contains(
                "state for state: syscall.fixture2: all 12 processes of the second run were \
                 in the state 8 of the first run's slower processes were in"
            ),
            "{t}"
        );
        assert!(changed(&t).is_empty(), "{t}");
        // The same runs with the second 10% slower in every process: found, state for
        // state.
        let t = compare_table(&[column(1, 4, 1.0), column(2, 0, 1.1)], 0.05).unwrap();
        let calls = changed(&t);
        assert!(
            calls.iter().any(|l| l.contains("syscall.fixture2 ")
                && l.contains("slower (p")
                && l.contains("state for state")),
            "{t}"
        );
    }

    #[test]
    fn runs_of_one_process_fall_back_to_samples_and_say_so() {
        let t = compare_table(&[fixture(1, 1, None), fixture(2, 1, None)], 0.05).unwrap();
        assert!(t.contains("all on samples"), "{t}");
        let merged = id_result("x", 1.0, 3, &mut rand::rngs::SmallRng::seed_from_u64(3));
        assert_eq!(merged.invocations.as_ref().map(Invocations::count), Some(3));
        assert_eq!(merged.samples.len(), 63);
    }
}

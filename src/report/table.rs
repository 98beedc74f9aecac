//! Terminal tables: a run and the benchmark list — and [`new_table`],
//! which every table of the report layer is made with, so that all of them wrap to the
//! output's width (see [`super::style`]) and print without trailing spaces.

use std::fmt;
use std::ops::{Deref, DerefMut};

use comfy_table::{Cell, CellAlignment, ColumnConstraint, ContentArrangement, Table};

use super::style::{self, Tone};
use crate::harness::contract::{Benchmark, Derived};
use crate::model::resolution::{shown, Shown};
use crate::model::unit::{format_seconds, format_value};
use crate::model::Overhead;
use crate::model::{BenchResult, Run, RunStatus, Status, Summary};

/// Rules above and below the table and under the header only: rows stay dense enough
/// to scan a family at a glance.
const RULES: &str = "  ── ──      ──    ";

/// A text cell this short never wraps: broken, it would be harder to read than a table
/// a little wider than the output.
const SHORT_TEXT: u16 = 12;

/// The narrowest a wrapping text column is squeezed to when the columns that never wrap
/// leave too little room: below it a note breaks into a word or two per line, and its
/// cells move under the table as numbered notes instead (see the `Display` of
/// [`TextTable`]).
pub const MIN_TEXT_COLUMN: u16 = 20;

/// The narrowest the other text columns wrap to once the last one's cells are notes.
const LEAST_TEXT_COLUMN: u16 = 9;

/// A table as printed: fitted to the output's width (see `fit` below), each line without
/// trailing spaces, no newline after the last. Everything else is comfy-table's [`Table`].
pub struct TextTable {
    table: Table,
    /// The right-aligned columns ([`right`]), which a rebuilt table keeps.
    right: Vec<usize>,
    /// The leading columns every part of a table printed in parts repeats (at least the
    /// first: the row's name).
    repeat: usize,
}

impl Deref for TextTable {
    type Target = Table;
    fn deref(&self) -> &Table {
        &self.table
    }
}

impl DerefMut for TextTable {
    fn deref_mut(&mut self) -> &mut Table {
        &mut self.table
    }
}

impl fmt::Display for TextTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.table.width().map_or(usize::MAX, usize::from);
        let (parts, notes) = fit(self, width);
        // Padding fills the last column to its width; a reader of the text wants none.
        let tables: Vec<String> = parts.iter().map(Table::trim_fmt).collect();
        f.write_str(&tables.join("\n\n"))?;
        for (i, note) in notes.iter().enumerate() {
            let mut line = String::new();
            fold_words(&format!("({}) {note}", i + 1), width, 4, &mut line);
            write!(f, "\n{line}")?;
        }
        Ok(())
    }
}

/// Spaces between two columns and at both edges: a space of padding either side of each
/// column and one before the first.
fn frame(columns: usize) -> usize {
    2 * columns + columns.saturating_sub(1) + 1
}

/// The table made to fit `width` columns, in three steps, each only when the one before
/// does not fit:
/// 1. short text columns never wrap (as ids and figures do not), and long ones wrap to
///    the width left, if each gets at least [`MIN_TEXT_COLUMN`];
/// 2. otherwise a long text column's cells (the last column first: the notes) move
///    under the table as numbered notes, "(1)" in the cell, the same text one number;
/// 3. if the columns that never wrap are still too wide, the table is printed in parts,
///    each with the first column (the row's name) and as many of the others as fit.
///
/// A note broken into a word per line, or a table wider than the terminal, is harder to
/// read than either.
fn fit(t: &TextTable, width: usize) -> (Vec<Table>, Vec<String>) {
    let mut table = t.table.clone();
    keep_short_text_whole(&mut table);
    let mut notes: Vec<String> = Vec::new();
    loop {
        let widths = table.column_max_content_widths();
        let wrapping: Vec<usize> = (0..widths.len())
            .filter(|&c| table.column(c).is_some_and(wraps))
            .collect();
        let natural = widths.iter().map(|&w| w as usize).sum::<usize>() + frame(widths.len());
        let fixed = widths
            .iter()
            .enumerate()
            .filter(|(c, _)| !wrapping.contains(c))
            .map(|(_, &w)| w as usize)
            .sum::<usize>()
            + frame(widths.len());
        // Once the last column (the notes) is under the table, the other text columns
        // (a unit, a conversion) may wrap narrower before any of them moves too: a
        // table of many text columns would otherwise become a table of note numbers.
        let least = if notes.is_empty() {
            MIN_TEXT_COLUMN
        } else {
            LEAST_TEXT_COLUMN
        };
        let text_room = least as usize * wrapping.len();
        if natural <= width || (!wrapping.is_empty() && fixed + text_room <= width) {
            break;
        }
        // The first column is the row's name: it wraps, never moves under the table.
        let Some(&last) = wrapping.iter().rev().find(|&&c| c > 0) else {
            break;
        };
        table = to_notes(&table, &t.right, last, &mut notes);
    }
    (split_columns(&table, &t.right, t.repeat, width), notes)
}

/// True for a column that wraps its cells to the room it is given.
fn wraps(col: &comfy_table::Column) -> bool {
    !matches!(
        col.constraint(),
        Some(
            ColumnConstraint::ContentWidth
                | ColumnConstraint::Absolute(_)
                | ColumnConstraint::Hidden
        )
    )
}

/// Short text columns never wrap: broken, a 12-character cell is harder to read than a
/// table a little narrower elsewhere.
fn keep_short_text_whole(t: &mut Table) {
    let widths = t.column_max_content_widths();
    for (col, &w) in t.column_iter_mut().zip(&widths) {
        if col.constraint().is_none() && w <= SHORT_TEXT {
            col.set_constraint(ColumnConstraint::ContentWidth);
        }
    }
}

/// `t` with column `col`'s long cells replaced by "(n)" and their text added to `notes`
/// (a text already there keeps its number); the column no longer wraps.
fn to_notes(t: &Table, right: &[usize], col: usize, notes: &mut Vec<String>) -> Table {
    // The heading gets a word a line ("measured" over "through"), and the cells no wider
    // than its longest word stay.
    let heading = t
        .header()
        .and_then(|h| h.cell_iter().nth(col))
        .map(|c| {
            c.content()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    let keep = heading
        .lines()
        .map(|w| w.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let mut out = rebuilt(
        t,
        right,
        &(0..t.column_iter().count()).collect::<Vec<_>>(),
        |c| {
            if c.0 != col {
                return None;
            }
            let text = c.1.content();
            if text.lines().map(|l| l.chars().count()).max().unwrap_or(0) <= keep {
                return None;
            }
            let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let n = match notes.iter().position(|n| *n == one_line) {
                Some(i) => i + 1,
                None => {
                    notes.push(one_line);
                    notes.len()
                }
            };
            Some(format!("({n})"))
        },
    );
    if let Some(h) = out.header() {
        let mut cells: Vec<Cell> = h.cell_iter().cloned().collect();
        if let Some(c) = cells.get_mut(col) {
            *c = Cell::new(heading);
        }
        out.set_header(cells);
    }
    no_wrap(&mut out, &[col]);
    out
}

/// The columns `cols` of `t` as a table of their own, set up as [`new_table`] does, with
/// each body cell for which `replace((column, cell))` says so holding that text instead.
fn rebuilt(
    t: &Table,
    right: &[usize],
    cols: &[usize],
    mut replace: impl FnMut((usize, &Cell)) -> Option<String>,
) -> Table {
    let mut n = Table::new();
    n.load_preset(RULES)
        .set_content_arrangement(ContentArrangement::Dynamic);
    if let Some(w) = t.width() {
        n.set_width(w);
    }
    n.style_text_only();
    if t.should_style() {
        n.enforce_styling();
    } else {
        n.force_no_tty();
    }
    if let Some(h) = t.header() {
        let cells: Vec<Cell> = h.cell_iter().cloned().collect();
        n.set_header(
            cols.iter()
                .filter_map(|&c| cells.get(c).cloned())
                .collect::<Vec<_>>(),
        );
    }
    for row in t.row_iter() {
        let cells: Vec<Cell> = row.cell_iter().cloned().collect();
        let picked: Vec<Cell> = cols
            .iter()
            .map(|&c| match cells.get(c) {
                Some(cell) => match replace((c, cell)) {
                    Some(text) => Cell::new(text),
                    None => cell.clone(),
                },
                None => Cell::new(""),
            })
            .collect();
        n.add_row(picked);
    }
    for (i, &c) in cols.iter().enumerate() {
        let constraint = t.column(c).and_then(|col| col.constraint().cloned());
        if let Some(col) = n.column_mut(i) {
            if let Some(constraint) = constraint {
                col.set_constraint(constraint);
            }
            if right.contains(&c) {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
    }
    n
}

/// `t` as it is when it fits `width`; else in parts, each with the first `repeat` columns
/// and as many of the next ones as fit (at least one).
fn split_columns(t: &Table, right: &[usize], repeat: usize, width: usize) -> Vec<Table> {
    let widths: Vec<usize> = t
        .column_max_content_widths()
        .into_iter()
        .map(usize::from)
        .collect();
    let natural = widths.iter().sum::<usize>() + frame(widths.len());
    let repeat = repeat.clamp(1, widths.len());
    if natural <= width || t.column_iter().any(wraps) || widths.len() <= repeat + 1 {
        return vec![t.clone()];
    }
    let mut parts = Vec::new();
    let mut next = repeat;
    while next < widths.len() {
        let mut cols: Vec<usize> = (0..repeat).chain([next]).collect();
        let mut used: usize = cols.iter().map(|&c| widths[c]).sum();
        next += 1;
        while next < widths.len() && used + widths[next] + frame(cols.len() + 1) <= width {
            used += widths[next];
            cols.push(next);
            next += 1;
        }
        parts.push(rebuilt(t, right, &cols, |_| None));
    }
    parts
}

/// `text` folded at spaces into lines of at most `width` columns, each continuation
/// indented by `indent`; a word longer than a line stays whole.
pub fn fold_words(text: &str, width: usize, indent: usize, out: &mut String) {
    // The line's length in characters is kept as it grows, not counted again for each
    // word: with no width to fold to, a note of a megabyte is one line, and counting it
    // at every word made `show` quadratic (minutes for an imported 1 MB note).
    let mut line = String::new();
    let mut len = 0;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let word_len = word.chars().count();
        if len > indent && len + 1 + word_len > width {
            out.push_str(&line);
            out.push('\n');
            line = " ".repeat(indent);
            len = indent;
        } else if len > 0 && !line.trim_start().is_empty() {
            line.push(' ');
            len += 1;
        }
        line.push_str(word);
        len += word_len;
    }
    out.push_str(&line);
}

/// A table that wraps long cells to the output's width ([`style::current`]) and is
/// coloured only when the style says so. An empty header gives a headerless key/value
/// table. The first column (an id, a key) never wraps, nor do the numeric columns
/// ([`right`]): a figure or an id broken over two lines could not be read or searched for,
/// so the text columns give way, and a table with too many figures for the width is
/// wider than it.
pub fn new_table(header: &[&str]) -> TextTable {
    let style = style::current();
    let mut t = Table::new();
    t.load_preset(RULES)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(style.width);
    // Styling applies to the text only, not its padding, so trimming a line stays exact.
    t.style_text_only();
    if style.color {
        t.enforce_styling();
    } else {
        t.force_no_tty();
    }
    if !header.is_empty() {
        t.set_header(header.iter().map(Cell::new));
        no_wrap(&mut t, &[0]);
    }
    TextTable {
        table: t,
        right: Vec::new(),
        repeat: 1,
    }
}

/// Every part of `t`, when it is too wide and printed in parts, repeats its first `n`
/// columns (e.g. the id and the baseline's figure), not only the first.
pub fn repeat_columns(t: &mut TextTable, n: usize) {
    t.repeat = n.max(1);
}

/// Right-align the numeric columns `cols`, which never wrap.
pub fn right(t: &mut TextTable, cols: &[usize]) {
    t.right.extend_from_slice(cols);
    for &c in cols {
        if let Some(col) = t.column_mut(c) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    no_wrap(t, cols);
}

/// Columns `cols` are as wide as their widest cell: they never wrap.
pub fn no_wrap(t: &mut Table, cols: &[usize]) {
    for &c in cols {
        if let Some(col) = t.column_mut(c) {
            col.set_constraint(ColumnConstraint::ContentWidth);
        }
    }
}

/// The run: one row per benchmark with its median per operation, the 95% confidence
/// interval of the median, SD, samples (culled) and status. `wide` adds seed 001 Table
/// 2's elapsed, user and system time per operation and what the kernel counted (context
/// switches and this process's page faults per operation). On a terminal, failed rows
/// are red and skipped ones dim. The summary line is not part of it: see
/// [`summary_line`].
pub fn run_table(run: &Run, overhead: &Overhead, wide: bool) -> String {
    let mut header = vec!["benchmark", "median", "95% CI", "SD", "samples"];
    // The clock rate only where some sample recorded one (many VMs expose none).
    let with_freq = wide
        && run
            .results
            .iter()
            .any(|r| r.samples.iter().any(|s| s.freq_hz.is_some()));
    if wide {
        header.extend(["elapsed/op", "user/op", "sys/op", "ctxsw/op", "faults/op"]);
        header.push("steal");
        if with_freq {
            header.push("MHz");
        }
    }
    header.push("notes");
    let mut t = new_table(&header);
    let cycle = crate::model::resolution::cycle_s(run.environment.cpu.mhz);
    for r in &run.results {
        let mut row = result_row(r, cycle, overhead);
        if wide {
            let notes = row.pop().unwrap_or_default();
            row.extend(wide_cells(r));
            let d = crate::model::disturb::Disturbances::of(r);
            row.push(d.map(|d| d.steal_cell()).unwrap_or_default());
            if with_freq {
                row.push(d.map(|d| d.mhz_cell()).unwrap_or_default());
            }
            row.push(notes);
        }
        t.add_row(style::row(row, status_tone(&r.status)));
    }
    let numeric: Vec<usize> = (1..header.len() - 1).collect();
    right(&mut t, &numeric);
    let mut out = run_title(run);
    let level = match (run.options.invocations, run.options.precision) {
        (Some(k), Some(p)) => format!(
            "median of each row's processes' medians (a pilot of {k}, more where ±{:.1}% \
             needed them), 95% CI across processes",
            p * 100.0
        ),
        (Some(k), None) if k > 1 => format!(
            "median of the fast-state processes' medians of clean samples (of {k}; those \
             over {:.0}% slower than the best process counted apart), 95% CI across processes",
            crate::model::levels::SLOWER_STATE * 100.0
        ),
        _ => "medians of clean samples, 95% CI within one process".to_string(),
    };
    if overhead.clock_s.is_finite() {
        out.push_str(&format!(
            "clock read {} per sample and empty loop {} per op subtracted; {level}\n",
            format_seconds(overhead.clock_s),
            format_seconds(overhead.per_iter_s),
        ));
    } else {
        // A run of whole jobs timed by their own processes (the exerciser's): nothing was
        // calibrated, so nothing was subtracted.
        out.push_str("whole jobs, timed once each: no clock or loop overhead subtracted\n");
    }
    out.push_str(&format!("{t}\n"));
    let measured = run
        .results
        .iter()
        .filter(|r| r.status.is_ok() && !r.derived)
        .filter_map(|r| r.summary.as_ref());
    if let Some(legend) = interval_legend(measured) {
        out.push_str(&format!("{legend}\n"));
    }
    out
}

/// "timeshare 0.1.0 · quick mode · host · 2 × CPU · kernel 6.1": the line a run's tables
/// and its answer open with.
pub fn run_title(run: &Run) -> String {
    format!(
        "timeshare {} · {} mode · {} · {} × {} · kernel {}\n",
        style::escape(&run.tool.version),
        format!("{:?}", run.options.mode).to_lowercase(),
        style::escape(&run.environment.hostname),
        run.environment.cpu.logical,
        style::escape(&run.environment.cpu.model),
        style::escape(&run.environment.kernel.release),
    )
}

/// Failed rows stand out; skipped ones step back.
fn status_tone(status: &Status) -> Tone {
    match status {
        Status::Ok => Tone::Plain,
        Status::Skipped { .. } => Tone::Quiet,
        Status::Failed { .. } => Tone::Bad,
    }
}

/// Elapsed, user, system per op and counters per op; blank where not measured.
fn wide_cells(r: &BenchResult) -> Vec<String> {
    let (Some(times), Some(c)) = (&r.times, &r.counters) else {
        return vec![String::new(); 5];
    };
    let per_op = |v: u64| count_per_op(v as f64 / times.ops.max(1) as f64);
    vec![
        format_seconds(times.elapsed_s),
        format_seconds(times.user_s),
        format_seconds(times.system_s),
        per_op(c.context_switches),
        per_op(c.self_minor_faults + c.self_major_faults),
    ]
}

/// A count per operation as a plain decimal with two significant figures when small
/// ("0.00031", never "3.1e-4"), and "0" for none.
pub fn count_per_op(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x >= 10.0 {
        format!("{x:.0}")
    } else if x >= 0.01 {
        format!("{x:.2}")
    } else {
        let decimals = (1.0 - x.log10().floor()) as usize;
        format!("{x:.decimals$}")
    }
}

/// The spread of a measured row: the 95% CI of the median as ±percent, the SD, and the
/// samples (with how many were culled). A derived row has no samples of its own, so it
/// has none of these: blanks, never a made-up "±0.0%".
pub fn spread_cells(r: &BenchResult, s: &Summary) -> [String; 3] {
    if r.derived {
        return [String::new(), String::new(), String::new()];
    }
    let mut samples = if r.culled > 0 {
        format!("{} ({} culled)", r.samples.len(), r.culled)
    } else {
        r.samples.len().to_string()
    };
    if let Some(inv) = r.invocations.as_ref().filter(|i| i.count() > 1) {
        samples = format!("{} × {samples}", inv.count());
    }
    // One figure (a job timed once) has no spread to show, and says so.
    if !s.has_interval() {
        return [NO_INTERVAL.into(), String::new(), samples];
    }
    [ci_cell(s), format_value(s.sd, r.unit), samples]
}

/// The interval cell of a row of one sample: no interval of a median exists.
pub const NO_INTERVAL: &str = "none";

/// The interval as ±percent of the median, with its level when below the heading's 95%:
/// "±1.2% (75%)".
pub fn ci_cell(s: &Summary) -> String {
    let half = format!("±{:.1}%", s.relative_ci() * 100.0);
    match s.short_level() {
        Some(level) => format!("{half} ({level}%)"),
        None => half,
    }
}

/// The line under a table whose intervals are not all at 95%, or `None`.
pub fn interval_legend<'a>(summaries: impl IntoIterator<Item = &'a Summary>) -> Option<String> {
    let (mut short, mut none) = (false, false);
    for s in summaries {
        short |= s.short_level().is_some();
        none |= !s.has_interval();
    }
    let mut parts = Vec::new();
    if short {
        parts.push(
            "an interval marked (75%) or (50%) covers the median with that probability only: \
             from fewer than six samples no interval of a median reaches 95%",
        );
    }
    if none {
        parts.push("\"none\": one sample, no interval at all");
    }
    (!parts.is_empty()).then(|| format!("CI: {}.", parts.join("; ")))
}

fn result_row(r: &BenchResult, cycle: Option<f64>, overhead: &Overhead) -> Vec<String> {
    let no_figure = |note: String| {
        vec![
            r.id.clone(),
            "—".into(),
            String::new(),
            String::new(),
            String::new(),
            note,
        ]
    };
    match (&r.status, &r.summary) {
        (Status::Ok, Some(s)) => {
            let mut notes = Vec::new();
            if r.derived {
                notes.push("derived".to_string());
            }
            if r.below_resolution {
                notes.push("below resolution (raw figure)".to_string());
            }
            notes.extend(
                r.notes
                    .iter()
                    .filter(|n| !n.starts_with("below resolution") && !n.starts_with("derived"))
                    .cloned(),
            );
            if let Some(line) = invocation_note(r) {
                notes.insert(0, line);
            }
            let [ci, sd, samples] = spread_cells(r, s);
            let headline = match shown(r, cycle, overhead) {
                Some(
                    not_resolved @ (Shown::BelowCycle(_)
                    | Shown::BelowClock(_)
                    | Shown::NotPositive),
                ) => {
                    if matches!(not_resolved, Shown::BelowClock(_)) {
                        notes.retain(|n| !n.starts_with("below resolution"));
                    }
                    notes.insert(0, not_resolved.why().unwrap_or_default().into());
                    let bound = bound_text(not_resolved).unwrap_or_default();
                    return below(r, bound, samples, notes);
                }
                _ => format_value(s.median, r.unit),
            };
            vec![r.id.clone(), headline, ci, sd, samples, notes.join("; ")]
        }
        (Status::Skipped { reason }, _) => no_figure(format!("skipped: {reason}")),
        (Status::Failed { error }, _) => no_figure(format!("FAILED: {error}")),
        (Status::Ok, None) => no_figure("no figure".into()),
    }
}

/// A headline not resolved, as the bound every printer shows in its place: "< 0.357 ns",
/// "< 20 ns", "< resolution"; `None` for a figure.
pub fn bound_text(s: Shown) -> Option<String> {
    match s {
        Shown::Figure(_) => None,
        Shown::BelowCycle(b) | Shown::BelowClock(b) => Some(format!("< {}", format_seconds(b))),
        Shown::NotPositive => Some("< resolution".into()),
    }
}

/// For a row measured in several processes: the within-process interval (the median of
/// the invocations' own) and the share of the variance that lies between processes.
pub fn invocation_note(r: &BenchResult) -> Option<String> {
    let inv = r.invocations.as_ref().filter(|i| i.count() > 1)?;
    let mut within: Vec<f64> = inv.within.iter().map(|s| s.relative_ci()).collect();
    within.sort_by(f64::total_cmp);
    let mid = crate::model::stats::median_of_sorted(&within);
    let mut line = format!("within a process ±{:.1}%", mid * 100.0);
    if let Some(c) = inv.components() {
        line.push_str(&format!(
            ", {:.0}% of variance between processes",
            c.between_share() * 100.0
        ));
    }
    Some(line)
}

/// A row whose figure was not resolved: its bound, no spread (a spread of a figure that
/// is not one means nothing), its samples and why.
fn below(r: &BenchResult, bound: String, samples: String, notes: Vec<String>) -> Vec<String> {
    vec![
        r.id.clone(),
        bound,
        String::new(),
        String::new(),
        samples,
        notes.join("; "),
    ]
}

/// "N ok, M skipped, K failed in T s": the last line `run` and `show` print.
pub fn summary_line(run: &Run) -> String {
    let count = |f: fn(&Status) -> bool| run.results.iter().filter(|r| f(&r.status)).count();
    let ok = count(|s| matches!(s, Status::Ok));
    let skipped = count(|s| matches!(s, Status::Skipped { .. }));
    let failed = count(|s| matches!(s, Status::Failed { .. }));
    let secs = run
        .finished_at
        .map(|f| (f - run.started_at).num_milliseconds() as f64 / 1000.0)
        .unwrap_or(0.0);
    let state = match run.status {
        RunStatus::Interrupted => " — INTERRUPTED, partial results",
        _ => "",
    };
    format!("{ok} ok, {skipped} skipped, {failed} failed in {secs:.1} s{state}\n")
}

/// `timeshare list`: id, what it measures, where it comes from.
pub fn list_table(benches: &[&Benchmark], derived: &[&Derived]) -> String {
    let mut t = new_table(&["id", "measures", "source"]);
    for b in benches {
        t.add_row(vec![
            b.id().to_string(),
            b.about().to_string(),
            b.source().describe(),
        ]);
    }
    for d in derived {
        t.add_row(vec![
            d.id.to_string(),
            format!("{} (derived from {})", d.about, d.inputs.join(", ")),
            d.source.describe(),
        ]);
    }
    format!("{t}\n{} benchmarks\n", benches.len() + derived.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_fold_to_the_width_and_a_long_text_stays_whole_without_one() {
        let mut out = String::new();
        fold_words("(1) one two three four", 9, 4, &mut out);
        assert_eq!(out, "(1) one\n    two\n    three\n    four");
        let long = "w ".repeat(100_000);
        let mut out = String::new();
        fold_words(&long, usize::MAX, 4, &mut out);
        assert_eq!(out.len(), 199_999);
        assert!(!out.contains('\n'));
    }

    fn widest(text: &str) -> usize {
        text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    /// A table of `ids` with three figures and a long note each, `width` wide.
    fn noted(width: u16, note: &str) -> String {
        let mut t = new_table(&["benchmark", "median", "95% CI", "SD", "samples", "notes"]);
        t.set_width(width);
        for id in ["syscall.getpid", "call.subroutine.single", "pipe.back.4"] {
            t.add_row(vec![
                id,
                "1.23 µs",
                "±1.2% (75%)",
                "12.3 ns",
                "22 (1 culled)",
                note,
            ]);
        }
        right(&mut t, &[1, 2, 3, 4]);
        t.to_string()
    }

    #[test]
    fn long_notes_move_under_a_narrow_table_numbered_once() {
        let note = "below the clock's resolution: not resolved, and more words after it";
        let text = noted(90, note);
        assert!(widest(&text) <= 90, "{text}");
        // The same note three times is one numbered note, and every row points to it.
        assert_eq!(text.matches("(1)").count(), 4, "{text}");
        assert!(!text.contains("(2)"), "{text}");
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(&format!("(1) {note}")), "{text}");
        // Wide enough, the note stays in its row.
        let wide = noted(200, note);
        assert!(!wide.contains("(1)") && wide.contains(note), "{wide}");
    }

    #[test]
    fn a_table_of_figures_too_wide_is_printed_in_parts_that_repeat_the_first_column() {
        let header: Vec<String> = std::iter::once("statement".to_string())
            .chain((0..8).map(|i| format!("column {i}")))
            .collect();
        let mut t = new_table(&header.iter().map(String::as_str).collect::<Vec<_>>());
        t.set_width(80);
        for row in ["for10", "while10"] {
            let mut cells = vec![row.to_string()];
            cells.extend((0..8).map(|i| format!("{i}.77 ns (12.0 c)")));
            t.add_row(cells);
        }
        right(&mut t, &(1..9).collect::<Vec<_>>());
        let text = t.to_string();
        assert!(widest(&text) <= 80, "{text}");
        assert!(text.matches("while10").count() >= 2, "{text}");
        for i in 0..8 {
            assert_eq!(text.matches(&format!("column {i}")).count(), 1, "{text}");
        }
    }

    #[test]
    fn intervals_below_95_percent_say_their_level_and_one_sample_says_none() {
        let r = BenchResult::new(
            "load.script.5",
            "load",
            "fixture",
            crate::model::Unit::SecondsPerOp,
            crate::model::Better::Lower,
            None,
        );
        let three = Summary::from_values(&[0.75, 0.76, 0.77]).unwrap();
        let [ci, _, _] = spread_cells(&r, &three);
        assert!(ci.starts_with('±') && ci.ends_with("(75%)"), "{ci}");
        let many = Summary::from_values(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]).unwrap();
        assert!(!spread_cells(&r, &many)[0].contains('('));
        let one = Summary::from_values(&[0.75]).unwrap();
        assert_eq!(spread_cells(&r, &one)[0], NO_INTERVAL);
        let legend = interval_legend([&three, &one]).unwrap();
        assert!(
            legend.contains("(75%)") && legend.contains("one sample"),
            "{legend}"
        );
        assert!(interval_legend([&many]).is_none());
    }

    #[test]
    fn counts_per_operation_read_as_decimals() {
        assert_eq!(count_per_op(0.0), "0");
        assert_eq!(count_per_op(0.00031), "0.00031");
        assert_eq!(count_per_op(0.005), "0.0050");
        assert_eq!(count_per_op(0.25), "0.25");
        assert_eq!(count_per_op(42.4), "42");
    }

    #[test]
    fn printed_tables_have_no_trailing_spaces_and_fit_the_width() {
        let mut t = new_table(&["id", "notes"]);
        t.add_row(vec!["a".to_string(), "word ".repeat(60)]);
        t.add_row(vec!["b".to_string(), String::new()]);
        let text = t.to_string();
        assert!(text.lines().count() > 4, "the long cell wrapped:\n{text}");
        for line in text.lines() {
            assert_eq!(line, line.trim_end(), "trailing space in {line:?}");
            assert!(
                line.chars().count() <= style::DEFAULT_WIDTH as usize,
                "{line:?}"
            );
        }
    }
}

//! The comparison as the terminal's table: one row per id the first column shares with
//! another; per later column its figure, the ratio and a short verdict ("slower",
//! "no change", "no verdict", …); why a verdict is what it is as numbered notes under the
//! table, each reason once with its ids; the ids of one side only counted in a line.
//! Several later columns share the table when the width holds them all beside readable
//! ids; otherwise each has a table of its own under a heading ("run 3 against run 1"),
//! so that a comparison is never cut between parts of a table.
//!
//! Every line fits the output's width whatever the ids and figures: an id too long for the
//! room the figures leave is shortened in its cell (the whole id in a note), a figure too
//! long is written with an exponent ([`super::cell`]), and a line of prose with a word
//! wider than the output is broken inside the word.

use crate::model::change;
use crate::reference::Comparability;

use super::super::style;
use super::super::table::{fold_words, new_table, no_wrap, repeat_columns, right};
use super::cell::{note_conversion, show, Cell, Value};
use super::decide::{decide, Decisions, STATE_FOR_STATE};
use super::judge::judge;
use super::{common_ids, ids_of, Column, NoCommonIds};

/// The longest a column's name heads its figures; the lines above the table give it whole.
const NAME_CHARS: usize = 16;

/// The narrowest an id's column is made, however wide the figures beside it.
const MIN_ID_CHARS: usize = 12;

/// How many ids of one side only are named in its line before "…".
const ONLY_NAMED: usize = 3;

/// The numbered notes under the table: each reason once, with the ids it applies to.
#[derive(Default)]
struct Notes(Vec<(String, Vec<String>)>);

impl Notes {
    /// The number of `reason`'s note, with `id` added to its ids.
    fn number(&mut self, reason: &str, id: &str) -> usize {
        let at = match self.0.iter().position(|(r, _)| r == reason) {
            Some(at) => at,
            None => {
                self.0.push((reason.to_string(), Vec::new()));
                self.0.len() - 1
            }
        };
        let ids = &mut self.0[at].1;
        if !id.is_empty() && !ids.iter().any(|i| i == id) {
            ids.push(id.to_string());
        }
        at + 1
    }

    /// "(1) reason — id, id", one note a paragraph, folded to `width`; each id as its
    /// row shows it (`shown`: a long one shortened, given whole in its own note).
    fn write(&self, width: usize, shown: &[(String, String)], out: &mut String) {
        let as_shown = |id: &String| {
            shown
                .iter()
                .find(|(i, _)| i == id)
                .map_or(id.clone(), |(_, s)| s.clone())
        };
        for (i, (reason, ids)) in self.0.iter().enumerate() {
            let ids: Vec<String> = ids.iter().map(as_shown).collect();
            let text = if ids.is_empty() {
                format!("({}) {reason}", i + 1)
            } else {
                format!("({}) {reason} — {}", i + 1, ids.join(", "))
            };
            push_folded(&text, width, 4, out);
        }
    }
}

/// A verdict's short word for its cell, and the reason behind it for a note, from the
/// text [`judge`] gives (which JSON, CSV and Markdown keep whole).
fn short_verdict(verdict: &str) -> (String, Option<String>) {
    if let Some((cell, _)) = verdict.split_once(STATE_FOR_STATE) {
        let (word, _) = short_verdict(cell);
        return (
            word,
            Some(verdict.replacen(STATE_FOR_STATE, ", state for state: ", 1)),
        );
    }
    if verdict.starts_with("not comparable") {
        return ("not comparable".into(), Some(verdict.to_string()));
    }
    if verdict.starts_with(Comparability::MARK) {
        if let Some((cell, why)) = verdict.split_once(": ") {
            return (
                cell.to_string(),
                Some(format!("{} {why}", Comparability::MARK)),
            );
        }
    }
    let word = verdict.split(" (").next().unwrap_or_default();
    match word {
        "" => (String::new(), None),
        "faster" | "slower" => (word.to_string(), Some(verdict.to_string())),
        "no significant change" => ("no change".into(), None),
        _ if verdict.starts_with("today ") => (verdict.to_string(), None),
        _ => (
            "no verdict".into(),
            Some(verdict.trim_end_matches(": no verdict").to_string()),
        ),
    }
}

/// A column's name as it heads the table: whole when short, else its start and "…".
fn header_name(name: &str) -> String {
    shortened(name, NAME_CHARS)
}

/// `text` in at most `chars` characters: its start and "…" when longer.
fn shortened(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        return text.to_string();
    }
    let mut s: String = text.chars().take(chars.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// `text` folded at spaces to `width`, continuations indented by `indent`; a word wider than a line
/// (an id of 300 characters) is broken inside it, so that no line is wider than `width`.
fn push_folded(text: &str, width: usize, indent: usize, out: &mut String) {
    // A line's own indentation (a source under its heading) is kept on each of its lines.
    let lead = " ".repeat(text.len() - text.trim_start_matches(' ').len());
    let room = width.saturating_sub(lead.len());
    let mut folded = String::new();
    fold_words(text, room, indent, &mut folded);
    for line in folded.lines() {
        let chars: Vec<char> = line.chars().collect();
        let mut rest: &[char] = &chars;
        let mut pad = "";
        while !rest.is_empty() {
            let take = rest.len().min(room.saturating_sub(pad.len()).max(1));
            out.push_str(&lead);
            out.push_str(pad);
            out.extend(&rest[..take]);
            out.push('\n');
            rest = &rest[take..];
            pad = &"        "[..indent.min(8)];
        }
    }
}

/// The lines counting the ids of one side only: those of the first column no other has,
/// and those of each later column the first has not.
fn one_side_only(columns: &[Column]) -> Vec<String> {
    let first = columns[0].ids();
    let others: Vec<String> = columns[1..].iter().flat_map(Column::ids).collect();
    let mut lines = Vec::new();
    let alone: Vec<String> = first
        .iter()
        .filter(|id| !others.contains(id))
        .cloned()
        .collect();
    lines.extend(only_line(columns[0].name(), &alone));
    for c in &columns[1..] {
        let alone: Vec<String> = c
            .ids()
            .into_iter()
            .filter(|id| !first.contains(id))
            .collect();
        lines.extend(only_line(c.name(), &alone));
    }
    lines
}

/// "only in run 1: 190 ids (signal.self, pipe.self.4, pipe.back.4, …), not in the table".
fn only_line(name: &str, ids: &[String]) -> Option<String> {
    let mut unique: Vec<&str> = Vec::new();
    for id in ids {
        if !unique.contains(&id.as_str()) {
            unique.push(id);
        }
    }
    let mut named: Vec<String> = unique
        .iter()
        .take(ONLY_NAMED)
        .map(|id| shortened(id, 40))
        .collect();
    if unique.len() > ONLY_NAMED {
        named.push("…".into());
    }
    match unique.len() {
        0 => None,
        1 => Some(format!(
            "only in {name}: 1 id ({}), not in the table",
            named[0]
        )),
        n => Some(format!(
            "only in {name}: {n} ids ({}), not in the table",
            named.join(", ")
        )),
    }
}

/// One row of the table before its id is fitted: the id, then the cells, and for each
/// later column whether it has the id at all (a table of one comparison shows only those).
#[derive(Clone)]
struct Row {
    id: String,
    cells: Vec<String>,
    present: Vec<bool>,
}

/// What the rows leave beside them: the historical sources and today's jobs divided by
/// their operations.
#[derive(Default)]
struct Beside {
    sources: Vec<String>,
    converted: Vec<String>,
}

/// The row of `id`: the first column's figure, then each later column's figure, ratio and
/// short verdict (its reason numbered in `notes`).
fn row_of(
    id: &str,
    columns: &[Column],
    decisions: &[Option<Decisions>],
    notes: &mut Notes,
    beside: &mut Beside,
) -> Row {
    let with_machine = columns.iter().any(Column::is_machine);
    let first = columns[0].cell(id);
    let mut cells = vec![show(&first, with_machine)];
    let mut present = Vec::new();
    let mut source = String::new();
    for (k, c) in columns.iter().enumerate().skip(1) {
        let other = c.cell(id);
        present.push(!matches!(other, Cell::Missing));
        cells.push(show(&other, with_machine));
        let decided = decisions[k - 1]
            .as_ref()
            .and_then(|d| Decisions::of(id, &d.verdicts));
        let (ratio, verdict) = judge(&columns[0], &first, c, &other, decided);
        cells.push(ratio);
        let (word, reason) = short_verdict(&verdict);
        cells.push(match reason {
            Some(why) => format!("{word} ({})", notes.number(&why, id)),
            None => word,
        });
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
            note_conversion(id, &first, &mut beside.converted);
        }
        if with_machine {
            note_conversion(id, &other, &mut beside.converted);
        }
    }
    if let Cell::Value(Value {
        source: Some(s), ..
    }) = &first
    {
        source = s.clone();
    }
    if !source.is_empty() {
        beside.sources.push(format!("{id}: {source}"));
    }
    Row {
        id: id.to_string(),
        cells,
        present,
    }
}

/// How the comparisons are laid out: all in one table when every column fits the width
/// beside ids of a readable length, else one table for each later column (its figure,
/// ratio and verdict beside the first column's figure), which always fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// One table; the id column has `room` characters.
    Together { room: usize },
    /// One table per comparison; the id column has `room` characters in each.
    Apart { room: usize },
}

/// The fewest characters an id keeps when several comparisons share one table: below
/// that they go to tables of their own, where an id has more room.
const TOGETHER_ID_CHARS: usize = 24;

/// The widest cell of each of the table's columns, its header included.
fn column_widths(header: &[String], rows: &[Row]) -> Vec<usize> {
    (0..header.len())
        .map(|col| {
            rows.iter()
                .map(|r| match col {
                    0 => r.id.chars().count(),
                    _ => r.cells[col - 1].chars().count(),
                })
                .chain([header[col].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// The columns of comparison `k` (0 for the second name): the id, the first column's
/// figure, then the later column's figure, ratio and verdict.
fn comparison_columns(k: usize) -> [usize; 5] {
    [0, 1, 2 + 3 * k, 3 + 3 * k, 4 + 3 * k]
}

/// The layout at `width`: together when the id column keeps at least
/// [`TOGETHER_ID_CHARS`] (or its longest id, if shorter) beside every figure; else apart,
/// the id column as wide as the widest comparison leaves (never under [`MIN_ID_CHARS`]).
fn layout(header: &[String], rows: &[Row], width: usize) -> Layout {
    let widths = column_widths(header, rows);
    let figures: usize = widths[1..].iter().sum();
    let together = width.saturating_sub(figures + frame(widths.len()));
    let longest_id = widths[0];
    let comparisons = (widths.len() - 2) / 3;
    if comparisons == 1 || together >= longest_id.min(TOGETHER_ID_CHARS) {
        return Layout::Together {
            room: together.max(MIN_ID_CHARS),
        };
    }
    let widest: usize = (0..comparisons)
        .map(|k| comparison_columns(k)[1..].iter().map(|&c| widths[c]).sum())
        .max()
        .unwrap_or(0);
    Layout::Apart {
        room: width.saturating_sub(widest + frame(5)).max(MIN_ID_CHARS),
    }
}

/// The spaces a table of `columns` columns takes besides its cells: one either side of
/// each column and one between each two (the rules' characters are not drawn).
fn frame(columns: usize) -> usize {
    3 * columns
}

/// A text table of the `cols` of `header` and `rows` (ids already fitted): figures and
/// ratios right-aligned, verdicts toned and never wrapped.
fn table_of(header: &[String], rows: &[Row], cols: &[usize]) -> String {
    let header_refs: Vec<&str> = cols.iter().map(|&c| header[c].as_str()).collect();
    let mut t = new_table(&header_refs);
    // In `cols`' order: the id, the first figure, then (figure, ratio, verdict) each.
    let is_verdict = |i: usize| i >= 4 && (i - 4).is_multiple_of(3);
    for row in rows {
        let cells: Vec<String> = cols
            .iter()
            .map(|&c| match c {
                0 => row.id.clone(),
                _ => row.cells[c - 1].clone(),
            })
            .collect();
        t.add_row(style::toned(cells, |i, text| {
            if is_verdict(i) {
                style::verdict_tone(text)
            } else {
                style::Tone::Plain
            }
        }));
    }
    let right_cols: Vec<usize> = (1..cols.len()).filter(|&i| !is_verdict(i)).collect();
    let verdict_cols: Vec<usize> = (1..cols.len()).filter(|&i| is_verdict(i)).collect();
    right(&mut t, &right_cols);
    no_wrap(&mut t, &verdict_cols);
    // Laid out to fit, a table is never printed in parts; were it wider all the same (a
    // terminal narrower than the figures), each part keeps the id and the first figure.
    repeat_columns(&mut t, 2);
    format!("{t}\n")
}

/// "run 3 against run 1: 12 ids (5 ids the other tables compare are not in run 3)", the
/// heading of comparison `k`'s own table.
fn comparison_heading(columns: &[Column], k: usize, shown: usize, missing: usize) -> String {
    let (first, other) = (columns[0].name(), columns[k + 1].name());
    let ids = match shown {
        0 => return format!("{other} against {first}: no id in common"),
        1 => "1 id".to_string(),
        n => format!("{n} ids"),
    };
    match missing {
        0 => format!("{other} against {first}: {ids}"),
        m => format!(
            "{other} against {first}: {ids} ({m} {} the other tables compare {} not in {other})",
            if m == 1 { "id" } else { "ids" },
            if m == 1 { "is" } else { "are" },
        ),
    }
}

/// The comparison table; `min_effect` is the smallest relative change called a change.
/// Refused when the first column shares no id with any other.
pub fn compare_table(columns: &[Column], min_effect: f64) -> Result<String, NoCommonIds> {
    let ids = common_ids(columns);
    if ids.is_empty() {
        let sides: Vec<String> = columns.iter().map(ids_of).collect();
        return Err(NoCommonIds(format!(
            "no id in common: {}",
            sides.join("; ")
        )));
    }
    let width = style::current().width as usize;
    let decisions: Vec<Option<Decisions>> = columns[1..]
        .iter()
        .map(|c| {
            (!c.is_machine() && !columns[0].is_machine())
                .then(|| decide(&columns[0], c, &ids, min_effect))
        })
        .collect();
    let mut header = vec!["benchmark".to_string(), header_name(columns[0].name())];
    for c in &columns[1..] {
        header.extend([header_name(c.name()), "ratio".into(), "verdict".into()]);
    }
    let mut notes = Notes::default();
    let mut beside = Beside::default();
    let rows: Vec<Row> = ids
        .iter()
        .map(|id| row_of(id, columns, &decisions, &mut notes, &mut beside))
        .collect();
    let layout = layout(&header, &rows, width);
    let room = match layout {
        Layout::Together { room } | Layout::Apart { room } => room,
    };
    let mut shown_ids: Vec<(String, String)> = Vec::new();
    let rows: Vec<Row> = rows
        .into_iter()
        .map(|row| {
            let id = fitted_id(&row.id, room, &mut notes);
            if id != row.id {
                shown_ids.push((row.id.clone(), id.clone()));
            }
            Row { id, ..row }
        })
        .collect();
    let mut out = String::new();
    for c in columns {
        push_folded(&c.describe(), width, 2, &mut out);
    }
    match layout {
        Layout::Together { .. } => {
            let all: Vec<usize> = (0..header.len()).collect();
            out.push_str(&table_of(&header, &rows, &all));
        }
        Layout::Apart { .. } => {
            for k in 0..columns.len() - 1 {
                let present: Vec<Row> = rows.iter().filter(|r| r.present[k]).cloned().collect();
                let missing = rows.len() - present.len();
                let heading = comparison_heading(columns, k, present.len(), missing);
                out.push('\n');
                push_folded(&heading, width, 2, &mut out);
                if !present.is_empty() {
                    out.push_str(&table_of(&header, &present, &comparison_columns(k)));
                }
            }
            out.push('\n');
        }
    }
    notes.write(width, &shown_ids, &mut out);
    for line in one_side_only(columns) {
        push_folded(&line, width, 2, &mut out);
    }
    if !beside.sources.is_empty() {
        out.push_str("historical sources:\n");
        for line in &beside.sources {
            push_folded(&format!("  {line}"), width, 4, &mut out);
        }
    }
    for (c, d) in columns[1..].iter().zip(&decisions) {
        let Some(d) = d else { continue };
        let runs = d.runs_text();
        let line = format!(
            "{} against {}: {} ids tested{}, {} called changed{}{runs}.",
            c.name(),
            columns[0].name(),
            d.tested,
            d.level_text(),
            d.changed,
            if runs.is_empty() { "" } else { "; " },
        );
        push_folded(&line, width, 2, &mut out);
    }
    push_folded(&legend(columns[0].name(), min_effect), width, 2, &mut out);
    if columns.iter().any(Column::is_machine) {
        push_folded(&per_operation_line(&beside.converted), width, 2, &mut out);
    }
    Ok(out)
}

/// `id` as its cell shows it: whole when it fits `room`, else its start, "…" and the
/// number of the note that gives it whole.
fn fitted_id(id: &str, room: usize, notes: &mut Notes) -> String {
    if id.chars().count() <= room {
        return id.to_string();
    }
    let n = notes.number(&format!("the whole id: {id}"), "");
    let mark = format!(" ({n})");
    format!(
        "{}{mark}",
        shortened(id, room.saturating_sub(mark.chars().count()))
    )
}

/// What the columns of the table mean and how a verdict between runs is reached.
fn legend(first: &str, min_effect: f64) -> String {
    format!(
        "ratio = column / {first}, each figure taken per one operation of its basis, in time \
         per operation (a rate's ratio is inverted: above 1, the column took longer); two \
         figures of different operations are \"not comparable\". A verdict's number is the \
         note under the table that says why. Between runs: each id is tested — at the \
         process level (Welch's t on the logarithms of the medians of the processes in each \
         headline, the fast state, beside those of a slower state where both runs have two \
         in it, each state against its own; every process of both where a headline is one \
         process; state for state where one run's processes were all in the other's slower \
         state) when both runs measured it in at least {} processes, else on samples (a \
         Mann–Whitney U test on the clean samples) — the p-values are corrected for the \
         number of ids tested (Benjamini–Hochberg, false discovery rate {:.0}%), and a \
         change is called when the corrected test finds one, the figures differ by at least \
         {:.0}%, and, where a run learned how far this machine's runs differ from earlier \
         runs like it, by more than two such runs differ in {:.0} of {:.0} cases (t · √2 · \
         their spread); otherwise \"no change\" (no significant change). Against a \
         historical machine: today's speed-up where today's row does the paper's operation, \
         marked {} where it does the same kind of work with another program (the reason in \
         a note), and none where the work differs.",
        change::MIN_INVOCATIONS,
        change::FDR * 100.0,
        min_effect * 100.0,
        (1.0 - change::ALPHA) * 100.0,
        100.0,
        Comparability::MARK
    )
}

/// With a historical machine among the columns: figures are per operation, and which of
/// today's whole jobs were divided.
fn per_operation_line(converted: &[String]) -> String {
    let mut line = "Figures are per operation, as the seeds give theirs (`timeshare reference \
                    MACHINE` shows each historical conversion)"
        .to_string();
    if converted.is_empty() {
        line.push('.');
    } else {
        line.push_str(&format!(
            "; today's whole jobs divided by their operations: {}.",
            converted.join(", ")
        ));
    }
    line
}

//! The answer a run ends with when nobody asked for the full table: one screen (at most
//! [`MAX_LINES`] lines at 100 columns) that says, per family, its headline row today
//! beside a machine of the papers, how noisy its rows were and what did not run; then the
//! rows that need a reader's eye (failed, skipped, not resolved, perturbed), named; the
//! other notes counted; and where the full table is.
//!
//! The full table (`run --verbose`, `show`) is the reference; this is what a newcomer
//! reads first, as hyperfine's few lines per command are.

use std::collections::BTreeMap;

use super::summary;
use crate::model::resolution::shown_stored;
use crate::model::unit::format_value;
use crate::model::{BenchResult, Run, Status};
use crate::reference::{self, Figure, Quantity};

/// The most lines the answer may take: one screen.
pub const MAX_LINES: usize = 60;

/// Rows named per kind of note before the rest are counted ("and 12 more").
const NAMED: usize = 4;

/// A family's median interval beyond which its verdict is "noisy": wider than the
/// differences most comparisons are asked to see.
const NOISY_CI: f64 = 0.10;

/// The answer: a header, one line per family, the rows that matter, the noise, where the
/// full table is, and the closing summary line.
pub fn answer(run: &Run) -> String {
    let mut out = super::table::run_title(run);
    out.push_str(&family_table(run));
    out.push_str(&attention(run));
    if let Some(noise) = summary::noise_line(run) {
        out.push_str(&format!("noise: {noise}\n"));
    }
    out.push_str(&notes_counted(run));
    out.push_str(
        "full table: `timeshare show last` (or `run --verbose`); charts: `timeshare report \
         last`\n",
    );
    out.push_str(&super::table::summary_line(run));
    out
}

/// The families in the order the run measured them, each with its rows.
fn families(run: &Run) -> Vec<(&str, Vec<&BenchResult>)> {
    let mut order: Vec<&str> = Vec::new();
    let mut rows: BTreeMap<&str, Vec<&BenchResult>> = BTreeMap::new();
    for r in &run.results {
        let family = r.family.as_str();
        if !rows.contains_key(family) {
            order.push(family);
        }
        rows.entry(family).or_default().push(r);
    }
    order
        .into_iter()
        .map(|f| (f, rows.remove(f).unwrap_or_default()))
        .collect()
}

/// One line per family: rows, its headline row today, beside the papers, its noise.
fn family_table(run: &Run) -> String {
    let figures = reference::figures();
    let mhz = run.environment.cpu.mhz;
    let mut out = format!(
        " {:<8} {:>9}  {:<24} {:>9}  {:<24}  {}\n",
        "family", "rows", "headline row", "today", "then ÷ today", "CI, noise"
    );
    for (family, rows) in families(run) {
        let headline = headline_row(&rows, &figures, mhz);
        let (id, today, beside) = match headline {
            Some(r) => (
                r.id.as_str(),
                r.median()
                    .map(|m| format_value(m, r.unit))
                    .unwrap_or_default(),
                beside(r, &figures).unwrap_or_default(),
            ),
            None => ("—", String::new(), String::new()),
        };
        let line = format!(
            " {:<8} {:>9}  {:<24} {:>9}  {:<24}  {}",
            clip(family, 8),
            rows_cell(&rows),
            clip(id, 24),
            today,
            clip(&beside, 24),
            noise_cell(&rows),
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if run.results.iter().any(|r| is_failed(r) || is_skipped(r)) {
        out.push_str(" rows: ✗ failed, – skipped (named below)\n");
    }
    out
}

/// "39", or "39 1✗ 2–": the rows, with the failed (✗) and skipped (–) ones counted.
fn rows_cell(rows: &[&BenchResult]) -> String {
    let failed = rows.iter().filter(|r| is_failed(r)).count();
    let skipped = rows.iter().filter(|r| is_skipped(r)).count();
    let mut marks = Vec::new();
    if failed > 0 {
        marks.push(format!("{failed}✗"));
    }
    if skipped > 0 {
        marks.push(format!("{skipped}–"));
    }
    if marks.is_empty() {
        rows.len().to_string()
    } else {
        format!("{} {}", rows.len(), marks.join(" "))
    }
}

fn is_failed(r: &BenchResult) -> bool {
    matches!(r.status, Status::Failed { .. })
}

fn is_skipped(r: &BenchResult) -> bool {
    matches!(r.status, Status::Skipped { .. })
}

/// The row that speaks for a family: one the summary sets beside the papers, else the
/// first with a figure of the papers' machines, else the first with a figure at all.
fn headline_row<'a>(
    rows: &[&'a BenchResult],
    figures: &[Figure],
    mhz: Option<f64>,
) -> Option<&'a BenchResult> {
    let resolved: Vec<&BenchResult> = rows
        .iter()
        .copied()
        .filter(|r| r.status.is_ok() && r.median().is_some())
        .filter(|r| shown_stored(r, mhz).is_none_or(|s| s.is_figure()))
        .collect();
    let like = resolved
        .iter()
        .find(|r| super::views::beside::LIKE_FOR_LIKE.contains(&r.id.as_str()));
    let with_paper = || resolved.iter().find(|r| beside(r, figures).is_some());
    like.or_else(with_paper).or(resolved.first()).copied()
}

/// "vax750-4.1bsd ×2598": the first machine of the papers with a figure of the same
/// operation, and how many times faster today is — its time then over today's, both
/// brought to one operation (the figures themselves may be per job of different sizes:
/// the full table and `compare` show them). A rate (bytes a second) is today's over then.
fn beside(r: &BenchResult, figures: &[Figure]) -> Option<String> {
    let today = r.measure()?;
    figures
        .iter()
        .filter(|f| f.id == r.id && f.quantity == Quantity::Headline)
        .find_map(|f| {
            let then_over_today = f.measure().divided_by(&today).ok()?;
            let ratio = if r.better == crate::model::Better::Higher {
                1.0 / then_over_today
            } else {
                then_over_today
            };
            Some(format!(
                "{} ×{}",
                f.machine,
                super::compare::figures3(ratio)
            ))
        })
}

/// "±3.1% quiet" / "±14% noisy": the median row's interval, and a word for it.
fn noise_cell(rows: &[&BenchResult]) -> String {
    let mut cis: Vec<f64> = rows
        .iter()
        .filter(|r| r.status.is_ok() && !r.derived)
        .filter_map(|r| r.summary.as_ref().filter(|s| s.has_interval()))
        .map(|s| s.relative_ci())
        .collect();
    if cis.is_empty() {
        return String::new();
    }
    cis.sort_by(f64::total_cmp);
    let mid = crate::model::stats::median_of_sorted(&cis);
    let word = if mid > NOISY_CI { "noisy" } else { "quiet" };
    format!("±{:.1}% {word}", mid * 100.0)
}

/// The rows a reader should look at, named (a few of each kind, the rest counted): the
/// failed and skipped ones with why, those shown as a bound, those whose samples were
/// perturbed beyond culling.
fn attention(run: &Run) -> String {
    let mut out = String::new();
    let failed: Vec<String> = run
        .results
        .iter()
        .filter(|r| is_failed(r))
        .map(|r| match &r.status {
            Status::Failed { error } => format!("{}: {}", r.id, first_clause(error)),
            _ => r.id.clone(),
        })
        .collect();
    let skipped: Vec<String> = run
        .results
        .iter()
        .filter(|r| is_skipped(r))
        .map(|r| match &r.status {
            Status::Skipped { reason } => format!("{}: {}", r.id, first_clause(reason)),
            _ => r.id.clone(),
        })
        .collect();
    for (word, lines) in [("failed", failed), ("skipped", skipped)] {
        if lines.is_empty() {
            continue;
        }
        out.push_str(&format!("{word} ({}):\n", lines.len()));
        for line in lines.iter().take(NAMED) {
            out.push_str(&format!("  {line}\n"));
        }
        if lines.len() > NAMED {
            out.push_str(&format!("  and {} more\n", lines.len() - NAMED));
        }
    }
    let mhz = run.environment.cpu.mhz;
    let bounds = ids_where(run, |r| {
        r.status.is_ok() && shown_stored(r, mhz).is_some_and(|s| !s.is_figure())
    });
    if !bounds.is_empty() {
        out.push_str(&format!(
            "not resolved, shown as a bound ({}): {}\n",
            bounds.len(),
            few(&bounds)
        ));
    }
    let perturbed = ids_where(run, |r| r.notes.iter().any(|n| n.contains(PERTURBED)));
    if !perturbed.is_empty() {
        out.push_str(&format!(
            "perturbed, too few clean samples to cull ({}): {}\n",
            perturbed.len(),
            few(&perturbed)
        ));
    }
    out
}

/// The note the sampler leaves on a row whose samples were nearly all perturbed.
const PERTURBED: &str = "samples perturbed, too few clean to cull";

fn ids_where(run: &Run, keep: impl Fn(&BenchResult) -> bool) -> Vec<&str> {
    run.results
        .iter()
        .filter(|r| keep(r))
        .map(|r| r.id.as_str())
        .collect()
}

/// "a, b, c, d and 4 more".
fn few(ids: &[&str]) -> String {
    if ids.len() <= NAMED {
        ids.join(", ")
    } else {
        format!("{} and {} more", ids[..NAMED].join(", "), ids.len() - NAMED)
    }
}

/// The notes the answer does not show, counted: the rows with a slower-state process,
/// and every other note the full table numbers.
fn notes_counted(run: &Run) -> String {
    let slower = run
        .results
        .iter()
        .filter(|r| r.invocations.as_ref().is_some_and(|i| !i.slower.is_empty()))
        .count();
    let notes: usize = run.results.iter().map(|r| r.notes.len()).sum();
    let mut parts = Vec::new();
    if slower > 0 {
        parts.push(format!(
            "{slower} row{} had a process in a slower state (left out of its headline)",
            if slower == 1 { "" } else { "s" }
        ));
    }
    if notes > 0 {
        parts.push(format!(
            "{notes} note{} on how rows were measured",
            if notes == 1 { "" } else { "s" }
        ));
    }
    if parts.is_empty() {
        return String::new();
    }
    format!("not shown here: {}\n", parts.join("; "))
}

/// The first clause of a reason, up to "; " or ": ": the rest is in the table.
fn first_clause(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    let end = line
        .find("; ")
        .or_else(|| line.find(": "))
        .unwrap_or(line.len());
    clip(&line[..end], 70)
}

/// `text` cut to `width` characters, its end marked "…".
fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let kept: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{kept}…")
}

#[cfg(test)]
mod tests {
    use super::super::summary::tests::row;
    use super::*;
    use crate::model::Better;

    fn check_one_screen(text: &str) {
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() <= MAX_LINES, "{} lines:\n{text}", lines.len());
        for l in &lines {
            assert!(l.chars().count() <= 100, "{} wide: {l}", l.chars().count());
        }
    }

    #[test]
    fn a_stored_quick_run_is_answered_on_one_screen_family_by_family() {
        let run: Run =
            serde_json::from_str(include_str!("../../tests/fixtures/run-quick.json")).unwrap();
        let text = crate::report::style::fit(&answer(&run));
        check_one_screen(&text);
        // One line per family, each naming a row of that family.
        for (family, rows) in families(&run) {
            let line = text
                .lines()
                .find(|l| l.split_whitespace().next() == Some(family))
                .unwrap_or_else(|| panic!("no line for {family}:\n{text}"));
            assert!(rows.iter().any(|r| line.contains(r.id.as_str())), "{line}");
        }
        // The syscall family speaks through getpid, with its median and its noise.
        let getpid = text.lines().find(|l| l.contains("syscall.getpid")).unwrap();
        assert!(
            getpid.contains("127 ns") && getpid.contains('±'),
            "{getpid}"
        );
        assert!(text.contains("timeshare show last"), "{text}");
        assert!(text
            .trim_end()
            .ends_with(super::super::table::summary_line(&run).trim_end()));
    }

    #[test]
    fn a_rate_beside_a_paper_machine_is_today_times_faster_like_a_time() {
        let figures = crate::reference::figures();
        let paper = figures
            .iter()
            .find(|f| f.id == "io.copy" && f.quantity == Quantity::Headline)
            .expect("a paper figure of io.copy");
        // Today ten times the paper's rate, in the paper's own basis.
        let then = paper.measure();
        let mut today = row("io.copy", then.value() * 10.0, Status::Ok);
        today.unit = then.unit();
        today.better = Better::Higher;
        today.basis = Some(then.basis().clone());
        assert!(
            !then.unit().default_better().eq(&Better::Lower),
            "io.copy is a rate"
        );
        let cell = beside(&today, &figures).unwrap();
        assert!(cell.ends_with("×10.0"), "{cell}");
        // A time ten times shorter reads the same.
        let paper = figures
            .iter()
            .find(|f| f.id == "syscall.getpid" && f.quantity == Quantity::Headline)
            .expect("a paper figure of getpid")
            .measure();
        let mut per_op = row("syscall.getpid", paper.value() / 10.0, Status::Ok);
        per_op.unit = paper.unit();
        per_op.basis = Some(paper.basis().clone());
        let cell = beside(&per_op, &figures).unwrap();
        assert!(cell.ends_with("×10.0"), "{cell}");
    }

    #[test]
    fn failed_and_skipped_rows_are_named_with_why_and_many_are_counted() {
        let mut rows = vec![row("syscall.getpid", 120e-9, Status::Ok)];
        for i in 0..7 {
            rows.push(row(
                &format!("fs.create.{i}"),
                1e-6,
                Status::Skipped {
                    reason: format!("no space on the device {i}; details follow"),
                },
            ));
        }
        rows.push(row(
            "pipe.back.4",
            22e-6,
            Status::Failed {
                error: "the echo child died: signal 9".into(),
            },
        ));
        let mut noted = row("syscall.getuid", 100e-9, Status::Ok);
        noted.notes = vec![
            "4/5 samples perturbed, too few clean to cull: all kept".into(),
            "another note".into(),
        ];
        rows.push(noted);
        let run = Run::of(rows);
        let text = answer(&run);
        check_one_screen(&text);
        assert!(
            text.contains("failed (1):\n  pipe.back.4: the echo child died\n"),
            "{text}"
        );
        assert!(text.contains("skipped (7):"), "{text}");
        assert!(
            text.contains("fs.create.0: no space on the device 0\n"),
            "{text}"
        );
        assert!(text.contains("and 3 more"), "{text}");
        assert!(!text.contains("fs.create.5"), "{text}");
        assert!(text.contains("perturbed, too few clean samples to cull (1): syscall.getuid"));
        assert!(text.contains("2 notes on how rows were measured"), "{text}");
        // The family lines count what did not run.
        let fs = text.lines().find(|l| l.starts_with(" fs ")).unwrap();
        assert!(fs.contains("7 7–"), "{fs}");
        let pipe = text.lines().find(|l| l.starts_with(" pipe ")).unwrap();
        assert!(pipe.contains("1 1✗"), "{pipe}");
    }
}

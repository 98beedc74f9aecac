//! The few lines a run ends with, after its tables: how many rows it ran and how they
//! ended, what it could not resolve, how noisy the machine was, and today beside the
//! papers' machines on a few rows that measure the same operation — what a reader of a
//! thousand lines of tables wants to know first.

use super::views::beside::LIKE_FOR_LIKE;
use crate::model::resolution::shown_stored;
use crate::model::unit::format_value;
use crate::model::{BenchResult, Run, RunStatus, Status};
use crate::reference::{self, Quantity};

/// At most this many historical machines per row, the first the seeds give.
const MACHINES_PER_ROW: usize = 2;

/// The closing summary; the last line is [`super::table::summary_line`]'s.
pub fn summary(run: &Run) -> String {
    let mut out = String::from("\nSummary\n");
    out.push_str(&format!("  rows: {}\n", rows_line(run)));
    for line in unresolved_lines(run) {
        out.push_str(&format!("  {line}\n"));
    }
    if let Some(noise) = noise_line(run) {
        out.push_str(&format!("  noise: {noise}\n"));
    }
    let beside = beside_the_papers(run);
    if !beside.is_empty() {
        out.push_str("  today beside the papers' machines, per operation (then ÷ today):\n");
        for line in beside {
            out.push_str(&format!("    {line}\n"));
        }
    }
    out.push_str(&super::table::summary_line(run));
    out
}

fn rows_line(run: &Run) -> String {
    let count = |f: fn(&Status) -> bool| run.results.iter().filter(|r| f(&r.status)).count();
    let ok = count(|s| matches!(s, Status::Ok));
    let skipped = count(|s| matches!(s, Status::Skipped { .. }));
    let failed = count(|s| matches!(s, Status::Failed { .. }));
    let mut line = format!(
        "{} in all: {ok} ok, {skipped} skipped, {failed} failed",
        run.results.len()
    );
    if run.status == RunStatus::Interrupted {
        line.push_str(" (interrupted: the rows not reached are not counted)");
    }
    line
}

/// The failed and skipped rows by name (a few), and the rows shown as bounds.
fn unresolved_lines(run: &Run) -> Vec<String> {
    let named = |f: fn(&Status) -> bool| -> Vec<&str> {
        run.results
            .iter()
            .filter(|r| f(&r.status))
            .map(|r| r.id.as_str())
            .collect()
    };
    let mut lines = Vec::new();
    for (word, ids) in [
        ("failed", named(|s| matches!(s, Status::Failed { .. }))),
        ("skipped", named(|s| matches!(s, Status::Skipped { .. }))),
    ] {
        if !ids.is_empty() {
            lines.push(format!("{word}: {} (their notes say why)", few(&ids)));
        }
    }
    let bounds: Vec<&str> = run
        .results
        .iter()
        .filter(|r| r.status.is_ok())
        .filter(|r| shown_stored(r, run.environment.cpu.mhz).is_some_and(|s| !s.is_figure()))
        .map(|r| r.id.as_str())
        .collect();
    if !bounds.is_empty() {
        lines.push(format!(
            "not resolved (shown as a bound): {} row{} — {}",
            bounds.len(),
            if bounds.len() == 1 { "" } else { "s" },
            few(&bounds)
        ));
    }
    lines
}

/// "a, b, c and 4 more".
fn few(ids: &[&str]) -> String {
    const SHOWN: usize = 4;
    if ids.len() <= SHOWN {
        ids.join(", ")
    } else {
        format!("{} and {} more", ids[..SHOWN].join(", "), ids.len() - SHOWN)
    }
}

/// The machine's noise as the run saw it: the load when it started, the share of samples
/// culled as preempted or moved, the typical interval and the widest.
pub fn noise_line(run: &Run) -> Option<String> {
    let measured: Vec<&BenchResult> = run
        .results
        .iter()
        .filter(|r| r.status.is_ok() && !r.derived && !r.samples.is_empty())
        .collect();
    if measured.is_empty() {
        return None;
    }
    let samples: usize = measured.iter().map(|r| r.samples.len()).sum();
    let culled: usize = measured
        .iter()
        .map(|r| r.samples.iter().filter(|s| s.culled).count())
        .sum();
    let mut cis: Vec<(f64, &str)> = measured
        .iter()
        .filter_map(|r| {
            let s = r.summary.as_ref().filter(|s| s.has_interval())?;
            Some((s.relative_ci(), r.id.as_str()))
        })
        .collect();
    cis.sort_by(|a, b| a.0.total_cmp(&b.0));
    let [one, ..] = run.environment.load_average;
    let mut line = format!(
        "load average {one:.1} on {} CPUs at the start; {culled} of {samples} samples culled \
         ({:.0}%)",
        run.environment.cpu.usable.max(1),
        100.0 * culled as f64 / samples.max(1) as f64
    );
    if let (Some(mid), Some(widest)) = (cis.get(cis.len() / 2), cis.last()) {
        line.push_str(&format!(
            "; the median row's interval ±{:.1}%, the widest ±{:.1}% ({})",
            mid.0 * 100.0,
            widest.0 * 100.0,
            widest.1
        ));
    }
    Some(line)
}

/// "pipe.back.4  22.3 µs — vax750-4.3bsd 6.60 ms (×296), pdp11-70-ral …": today's median
/// beside the first machines whose figure is of the same operation.
fn beside_the_papers(run: &Run) -> Vec<String> {
    let figures = reference::figures();
    let mut lines = Vec::new();
    for id in LIKE_FOR_LIKE {
        let Some(r) = run.results.iter().find(|r| r.id == *id && r.status.is_ok()) else {
            continue;
        };
        if shown_stored(r, run.environment.cpu.mhz).is_some_and(|s| !s.is_figure()) {
            continue;
        }
        let (Some(median), Some(today)) = (r.median(), r.measure()) else {
            continue;
        };
        let beside: Vec<String> = figures
            .iter()
            .filter(|f| f.id == *id && f.quantity == Quantity::Headline)
            .filter_map(|f| {
                let ratio = f.measure().divided_by(&today).ok()?;
                Some(format!(
                    "{} {} (×{})",
                    f.machine,
                    format_value(f.value, f.unit),
                    super::compare::figures3(ratio)
                ))
            })
            .take(MACHINES_PER_ROW)
            .collect();
        if !beside.is_empty() {
            lines.push(format!(
                "{id:<17} {:>9} — {}",
                format_value(median, r.unit),
                beside.join(", ")
            ));
        }
    }
    lines
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{Basis, Better, Summary, Unit};

    /// A row of `id` with a median and a 2% spread, per operation: shared with the
    /// answer's tests.
    pub(crate) fn row(id: &str, median: f64, status: Status) -> BenchResult {
        BenchResult {
            status,
            summary: Some(Summary::around(median, median / 50.0)),
            ..BenchResult::new(
                id,
                crate::model::family_of(id),
                "fixture",
                Unit::SecondsPerOp,
                Better::Lower,
                Some(Basis::per("operation")),
            )
        }
    }

    #[test]
    fn the_summary_counts_names_and_sets_today_beside_the_papers() {
        // getpid per the same operation the seeds' figures are per, as the registry says.
        let mut getpid = row("syscall.getpid", 127e-9, Status::Ok);
        getpid.basis = reference::figures()
            .into_iter()
            .find(|f| f.id == "syscall.getpid" && f.quantity == Quantity::Headline)
            .map(|f| f.basis);
        let run = Run::of(vec![
            getpid,
            row(
                "mixed.build",
                1.0,
                Status::Skipped {
                    reason: "make is not installed".into(),
                },
            ),
            row(
                "pipe.back.4",
                22e-6,
                Status::Failed {
                    error: "the echo child died".into(),
                },
            ),
        ]);
        let text = summary(&run);
        assert!(
            text.contains("3 in all: 1 ok, 1 skipped, 1 failed"),
            "{text}"
        );
        assert!(text.contains("failed: pipe.back.4"), "{text}");
        assert!(text.contains("skipped: mixed.build"), "{text}");
        // getpid beside a machine of the seeds, with the ratio then ÷ today.
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with("syscall.getpid"))
            .unwrap_or_else(|| panic!("no getpid line:\n{text}"));
        assert!(line.contains("127 ns") && line.contains("(×"), "{line}");
        // A failed row is not set beside anything.
        assert!(
            !text
                .lines()
                .any(|l| l.trim_start().starts_with("pipe.back.4 ")),
            "{text}"
        );
        assert!(text.trim_end().ends_with("failed in 0.0 s"), "{text}");
    }

    #[test]
    fn many_names_are_cut_short() {
        assert_eq!(few(&["a", "b"]), "a, b");
        assert_eq!(
            few(&["a", "b", "c", "d", "e", "f"]),
            "a, b, c, d and 2 more"
        );
    }
}

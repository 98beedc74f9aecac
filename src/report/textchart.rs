//! Small text charts for the terminal (`show --chart`, `run --chart`): one bar per row of
//! the memory-hierarchy, paging, load, exerciser-sweep, network, memory-bandwidth and
//! context-switch views, drawn with `#` so they read without colour and in any font.
//! Rendering only.

use super::views;
use crate::model::details::load::CpuCopies;
use crate::model::exercise::{elapsed_by_size, trial_means, Report};
use crate::model::unit::{format_seconds, human};
use crate::model::Run;

/// The longest bar, in characters.
const BAR: usize = 40;

/// A bar per (label, value, shown, mark); log scale when `log`. A bar is at least one
/// character long for any value above zero, so a small value is never invisible.
fn bars(title: &str, rows: &[(String, f64, String, String)], log: bool) -> String {
    let max = rows.iter().map(|r| r.1).fold(0.0, f64::max);
    let min = rows
        .iter()
        .map(|r| r.1)
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let mut out = format!("{title}\n");
    for (label, v, shown, mark) in rows {
        let frac = if max <= 0.0 || *v <= 0.0 || v.is_nan() {
            0.0
        } else if log && max > min {
            // Log bars start at a tenth of the smallest value, so it keeps a visible bar.
            ((v / min).ln() + 10f64.ln()) / ((max / min).ln() + 10f64.ln())
        } else {
            v / max
        };
        let n = if *v > 0.0 {
            ((frac * BAR as f64).round() as usize).clamp(1, BAR)
        } else {
            0
        };
        let line = format!(
            "{label:>width$} |{}{} {shown}{}",
            "#".repeat(n),
            " ".repeat(BAR - n),
            if mark.is_empty() {
                String::new()
            } else {
                format!("  <- {mark}")
            }
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Every text chart the run has, separated by blank lines; empty when none applies.
pub fn charts(run: &Run) -> String {
    [
        cache(run),
        paging(run),
        load(run),
        total_elapsed(run),
        sweep(run),
        super::net::chart(run, bars),
        super::mem::chart(run, bars),
        super::thread::chart(run, bars),
    ]
    .into_iter()
    .filter(|s| !s.is_empty())
    .collect::<Vec<_>>()
    .join("\n")
}

fn cache(run: &Run) -> String {
    let Some(d) = views::cache::sweep(run) else {
        return String::new();
    };
    let rows: Vec<(String, f64, String, String)> = d
        .sizes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            // A cache is marked on the last size that still fits in it.
            let next = d.sizes.get(i + 1).map(|n| n.bytes).unwrap_or(u64::MAX);
            let fits: Vec<&str> = d
                .caches
                .iter()
                .filter(|c| s.bytes <= c.bytes && next > c.bytes)
                .map(|c| c.name.as_str())
                .collect();
            (
                human(s.bytes),
                s.median_ns,
                format!("{:.2} ns", s.median_ns),
                if fits.is_empty() {
                    String::new()
                } else {
                    format!("last size within {}", fits.join(", "))
                },
            )
        })
        .collect();
    bars(
        "cpu.cache: ns per dependent read against working set (log bars)",
        &rows,
        true,
    )
}

fn paging(run: &Run) -> String {
    let rows = views::vm::by_spread(run);
    if rows.is_empty() {
        return String::new();
    }
    let bars_rows: Vec<(String, f64, String, String)> = rows
        .iter()
        .map(|(s, d)| {
            let f = d.minor_faults + d.major_faults;
            (
                format!("S={s}"),
                f,
                format!("{f:.0} faults, {}", format_seconds(d.real_s)),
                String::new(),
            )
        })
        .collect();
    bars(
        "vm.gausspage: page faults of one job against S",
        &bars_rows,
        false,
    )
}

fn load(run: &Run) -> String {
    let rows: Vec<(usize, CpuCopies)> = views::load::copies(run)
        .into_iter()
        .filter(|p| p.result.status.is_ok())
        .filter_map(|p| Some((p.n, p.details?)))
        .filter(|r| r.1.summary.is_some())
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let knee = rows
        .iter()
        .rev()
        .find_map(|r| r.1.summary.as_ref()?.knee.clone());
    let bar_rows: Vec<(String, f64, String, String)> = rows
        .iter()
        .filter_map(|(n, d)| {
            let s = d.summary.as_ref()?;
            let inc = s.inc.map(|i| format!(", Inc {i:.2}")).unwrap_or_default();
            let mark = if knee.as_ref().and_then(|k| k.copies) == Some(*n) {
                "knee".to_string()
            } else {
                String::new()
            };
            Some((
                format!("N={n}"),
                s.avg_real_s,
                format!("{}{inc}", format_seconds(s.avg_real_s)),
                mark,
            ))
        })
        .collect();
    let mut out = bars(
        "load.cpu: average real time per copy against N",
        &bar_rows,
        false,
    );
    if let Some(k) = knee {
        out.push_str(&format!("{}\n", k.statement));
    }
    out
}

fn sweep(run: &Run) -> String {
    let Some(report) = Report::from_run(run) else {
        return String::new();
    };
    // With `--trials`, one bar per batch size and type: the mean of its trials.
    let points = trial_means(&report.batches);
    if points.len() < 2 {
        return String::new();
    }
    let rows: Vec<(String, f64, String, String)> = points
        .iter()
        .flat_map(|(n, per_type)| {
            per_type.iter().map(move |t| {
                (
                    format!("{n} {}", t.job),
                    t.mean_real_s,
                    format!(
                        "real {}, user {}, sys {}",
                        format_seconds(t.mean_real_s),
                        format_seconds(t.user_per_process_s),
                        format_seconds(t.sys_per_process_s)
                    ),
                    String::new(),
                )
            })
        })
        .collect();
    bars(
        "exercise: mean real time per process against processes (procs type)",
        &rows,
        false,
    )
}

/// Seed 004's first graph: the whole batch's elapsed time (what `time` gave for the run)
/// against the number of processes; with `--trials`, the mean and SD of the trials. A
/// size that failed has no bar, and is marked: where the machine stopped coping.
fn total_elapsed(run: &Run) -> String {
    let Some(report) = Report::from_run(run) else {
        return String::new();
    };
    let points = elapsed_by_size(&report.batches);
    if points.len() < 2 {
        return String::new();
    }
    let rows: Vec<(String, f64, String, String)> = points
        .iter()
        .map(|(n, s, failed)| {
            let shown = if report.trials > 1 {
                format!("{} ± {}", format_seconds(s.mean), format_seconds(s.sd))
            } else {
                format_seconds(s.mean)
            };
            let (value, mark) = if *failed {
                (0.0, "failed: where it stopped coping".to_string())
            } else {
                (s.mean, String::new())
            };
            (n.to_string(), value, shown, mark)
        })
        .collect();
    bars(
        "exercise: total elapsed time of the batch against processes (seed 004's first graph)",
        &rows,
        false,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_largest_and_keep_small_values_visible() {
        let rows = vec![
            ("a".to_string(), 1.0, "1".to_string(), String::new()),
            (
                "bb".to_string(),
                1000.0,
                "1000".to_string(),
                "big".to_string(),
            ),
        ];
        let text = bars("t", &rows, false);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], " a |#                                        1");
        assert!(lines[2].starts_with("bb |".to_string().as_str()));
        assert!(lines[2].contains(&"#".repeat(BAR)));
        assert!(lines[2].ends_with("1000  <- big"));
    }

    #[test]
    fn the_fixture_draws_the_cache_paging_and_load_charts() {
        let run: Run =
            serde_json::from_str(include_str!("../../tests/fixtures/run-quick.json")).unwrap();
        let text = charts(&run);
        for title in ["cpu.cache:", "vm.gausspage:", "load.cpu:"] {
            assert!(text.contains(title), "{title} missing:\n{text}");
        }
        assert!(!text.contains('\u{1b}'), "colour codes in {text}");
    }

    #[test]
    fn the_total_elapsed_chart_has_a_bar_per_size_and_marks_a_failure() {
        use crate::model::exercise::sweep_fixture;
        let run = sweep_fixture(
            &[(4, &[1.0, 3.0]), (8, &[4.0, 4.0]), (16, &[9.0, 9.0])],
            Some(16),
        );
        let text = total_elapsed(&run);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].contains("total elapsed time of the batch"),
            "{text}"
        );
        // 4: mean 2 s (half of 8's 4 s: half the bar), SD 1.41 s; 16 failed: no bar.
        assert_eq!(
            lines[1],
            format!(" 4 |{}{} 2.00 s ± 1.41 s", "#".repeat(20), " ".repeat(20))
        );
        assert!(
            lines[2].starts_with(&format!(" 8 |{} 4.00 s", "#".repeat(BAR))),
            "{text}"
        );
        assert!(lines[3].starts_with("16 |  "), "{text}");
        assert!(
            lines[3].ends_with("<- failed: where it stopped coping"),
            "{text}"
        );
        assert!(charts(&run).contains("total elapsed time of the batch"));
    }
}

//! `timeshare crosscheck`: each row beside the tool it cites, one line per pair of them.

use super::table::{new_table, right};
use crate::model::crosscheck::{CheckRow, Outcome, Settings, Verdict, FAMILY_ALPHA};
use crate::model::unit::format_seconds;

/// The tolerance most rows declare: said once above the table, and in a verdict only
/// where a row's differs.
const USUAL_TOLERANCE: f64 = 0.10;

/// What `crosscheck` prints as text: how the pairs were taken, the table, and a line
/// saying so when the user stopped it before the end.
pub fn crosscheck_text(rows: &[CheckRow], settings: &Settings) -> String {
    format!(
        "{}\n{}{}",
        settings_line(settings),
        crosscheck_table(rows),
        stopped_line(settings)
    )
}

/// "pinned to CPU 1; interleaved pairs per row: …; took 40 s; lmbench with ENOUGH=…": the
/// line above the table.
pub fn settings_line(s: &Settings) -> String {
    format!(
        "pinned to CPU {}; interleaved pairs per row: {} while undecided, up to {} s a row \
         and {} s in all (looks at {:?}, each interval at {:.1}%, {:.0}% for a verdict in \
         all); took {}{}",
        s.cpu,
        s.plan.max(),
        s.budget.as_secs(),
        s.total.as_secs(),
        s.plan.looks(),
        (1.0 - s.plan.alpha_per_look()) * 100.0,
        (1.0 - FAMILY_ALPHA) * 100.0,
        rough_duration(s.took.as_secs_f64()),
        lmbench_words(&s.lmbench_calibration)
    )
}

/// "; lmbench with ENOUGH=5000 TIMING_O=0 LOOP_O=0.00001", or nothing when no lmbench
/// program ran.
fn lmbench_words(calibration: &[(String, String)]) -> String {
    if calibration.is_empty() {
        return String::new();
    }
    let vars: Vec<String> = calibration
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!("; lmbench with {}", vars.join(" "))
}

/// Below the table of an interrupted cross-check: how far it got.
fn stopped_line(s: &Settings) -> String {
    if !s.interrupted {
        return String::new();
    }
    format!(
        "\ninterrupted: {} of {} pairs measured; the rows above hold those finished\n",
        s.pairs_done, s.pairs_total
    )
}

/// "40 s", "4 min", "1 h 20 min": an estimate's precision.
pub fn rough_duration(secs: f64) -> String {
    if secs < 90.0 {
        format!("{:.0} s", secs.max(1.0))
    } else if secs < 3600.0 {
        format!("{:.0} min", secs / 60.0)
    } else {
        format!(
            "{} h {:.0} min",
            (secs / 3600.0) as u64,
            (secs % 3600.0) / 60.0
        )
    }
}

/// The table: the row with its tool under it, both medians, the ratio's median and its
/// interval (the pairs' range where there is none: one pair), the tool's share of its CPU,
/// the pairs taken and the verdict; then the reasons, numbered, and the
/// command lines below it. It fits 100 columns: a row's id and its tool share the first
/// column (two lines), and the tolerance is said once.
pub fn crosscheck_table(rows: &[CheckRow]) -> String {
    let mut t = new_table(&[
        "row, tool",
        "timeshare",
        "tool",
        "ratio",
        "interval",
        "CPU",
        "n",
        "verdict",
    ]);
    let mut notes = Vec::new();
    for r in rows {
        let mut cells = vec![format!("{}\n  {}", r.id, r.tool)];
        let dashes = || -> Vec<String> { vec!["-".into(); 6] };
        let mut verdict = match &r.outcome {
            Outcome::Missing { package } => {
                cells.extend(dashes());
                notes.push(format!(
                    "{}: {} is not installed (Debian package {package}: \
                     apt-get install {package})",
                    r.id, r.tool
                ));
                format!("missing [{}]", notes.len())
            }
            Outcome::Failed { error } => {
                cells.extend(dashes());
                notes.push(format!("{}, {}: failed: {error}", r.id, r.tool));
                format!("failed [{}]", notes.len())
            }
            Outcome::Paired {
                pairing: p,
                verdict,
            } => {
                let word = *verdict;
                let mut verdict = word.word().to_string();
                if word == Verdict::Contended {
                    notes.push(format!(
                        "{}, {}: the tool had {:.0}% of its CPU (other processes ran there \
                         meanwhile); its figure scaled by that share gives {:.2}×",
                        r.id,
                        r.tool,
                        p.tool_cpu_share.unwrap_or(1.0) * 100.0,
                        p.busy_ratio().unwrap_or(p.ratio_median)
                    ));
                    verdict.push_str(&format!(" [{}]", notes.len()));
                } else if word == Verdict::Undecided {
                    notes.push(format!(
                        "{}, {}: after {} pairs the ratio's interval still crosses an edge \
                         of the tolerance: the pairs cannot tell here (more with \
                         --max-pairs and --budget)",
                        r.id, r.tool, p.pairs
                    ));
                    verdict.push_str(&format!(" [{}]", notes.len()));
                } else if let Some(why) = &r.why {
                    notes.push(format!("{}, {}: {why}", r.id, r.tool));
                    verdict.push_str(&format!(" [{}]", notes.len()));
                }
                cells.extend([
                    format_seconds(p.row_median),
                    format_seconds(p.anchor_median),
                    format!("{:.2}×", p.ratio_median),
                    match (p.ci_low, p.ci_high) {
                        (Some(lo), Some(hi)) => format!("{lo:.2}–{hi:.2}"),
                        _ => format!("{:.2}–{:.2} range", p.ratio_min, p.ratio_max),
                    },
                    p.tool_cpu_share
                        .map_or("-".into(), |s| format!("{:.0}%", s * 100.0)),
                    p.pairs.to_string(),
                ]);
                verdict
            }
        };
        if (r.tolerance - USUAL_TOLERANCE).abs() > 1e-9 {
            verdict.push_str(&format!(" ({})", tolerance(r.tolerance)));
        }
        cells.push(verdict);
        t.add_row(cells);
    }
    right(&mut t, &[1, 2, 3, 4, 5, 6]);
    let mut out = format!(
        "tolerance {} unless a verdict gives another; interval: the ratio's, at the level \
         above; CPU: the share of its CPU the tool had; n: pairs taken\n{t}\n",
        tolerance(USUAL_TOLERANCE)
    );
    for (i, n) in notes.iter().enumerate() {
        out.push_str(&format!("[{}] {n}\n", i + 1));
    }
    out.push_str("\ncommands:\n");
    for r in rows {
        out.push_str(&format!("  {}: {}  ({})\n", r.id, r.command, r.basis));
    }
    let paired = rows
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Paired { .. }))
        .count();
    let failing = rows.iter().filter(|r| r.fails()).count();
    let missing = rows
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Missing { .. }))
        .count();
    let undecided = rows
        .iter()
        .filter(|r| {
            matches!(
                r.outcome,
                Outcome::Paired {
                    verdict: Verdict::Undecided,
                    ..
                }
            )
        })
        .count();
    out.push_str(&format!(
        "\n{paired} paired, {failing} failing, {undecided} undecided, {missing} without \
         their tool\n"
    ));
    out
}

fn tolerance(t: f64) -> String {
    format!("±{:.0}%", t * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::crosscheck::Pairing;

    fn row(id: &str, outcome: Outcome, why: Option<&str>) -> CheckRow {
        CheckRow {
            id: id.into(),
            tool: "lmbench lat_proc fork".into(),
            command: "lat_proc fork".into(),
            basis: "per fork+exit+wait".into(),
            tolerance: 0.10,
            why: why.map(str::to_string),
            outcome,
        }
    }

    #[test]
    fn every_outcome_is_said_in_words() {
        let p = Pairing::of(&[(0.6e-3, 1e-3), (0.7e-3, 1e-3)]).unwrap();
        let rows = [
            row(
                "proc.fork.0",
                Outcome::Paired {
                    pairing: p,
                    verdict: Verdict::Explained,
                },
                Some("the child exits through libc"),
            ),
            row(
                "vm.pagefault",
                Outcome::Missing {
                    package: "lmbench".into(),
                },
                None,
            ),
            row(
                "pipe.back.4",
                Outcome::Failed {
                    error: "no figure in its output".into(),
                },
                None,
            ),
        ];
        let text = crosscheck_table(&rows);
        assert!(text.contains("explained [1]"), "{text}");
        assert!(
            text.contains("[1] proc.fork.0, lmbench lat_proc fork: the child"),
            "{text}"
        );
        assert!(text.contains("apt-get install lmbench"), "{text}");
        assert!(text.contains("failed: no figure"), "{text}");
        assert!(
            text.contains("missing [2]") && text.contains("failed [3]"),
            "{text}"
        );
        assert!(text.contains("0.65×"), "{text}");
        assert!(text.contains("  -  "), "{text}");
        // The id and its tool share the first column; the table fits 100 columns.
        assert!(text.contains("\n   lmbench lat_proc fork"), "{text}");
        let printed = crate::report::style::fit(&text);
        assert!(
            printed.lines().all(|l| l.chars().count() <= 100),
            "{printed}"
        );
        assert!(
            text.contains("1 paired, 1 failing, 0 undecided, 1 without their tool"),
            "{text}"
        );
    }

    #[test]
    fn an_undecided_pair_shows_its_interval_and_says_what_would_decide_it() {
        let p = Pairing::with_interval(&[(0.85, 1.0), (1.0, 1.0), (1.15, 1.0)], 0.01).unwrap();
        let verdict = p.verdict(0.10, false);
        assert_eq!(verdict, Verdict::Undecided);
        let (lo, hi) = (p.ci_low.unwrap(), p.ci_high.unwrap());
        let rows = [row(
            "pipe.back.4",
            Outcome::Paired {
                pairing: p,
                verdict,
            },
            None,
        )];
        let text = crosscheck_table(&rows);
        assert!(text.contains("undecided [1]"), "{text}");
        assert!(text.contains(&format!("{lo:.2}–{hi:.2}")), "{text}");
        assert!(text.contains("after 3 pairs"), "{text}");
        assert!(text.contains("0 failing, 1 undecided"), "{text}");
        let printed = crate::report::style::fit(&text);
        assert!(
            printed.lines().all(|l| l.chars().count() <= 100),
            "{printed}"
        );
    }

    #[test]
    fn a_contended_pair_says_how_much_cpu_the_tool_had() {
        let p = Pairing::of(&[(200e-9, 600e-9)])
            .unwrap()
            .with_tool_shares(&[0.34]);
        let verdict = p.verdict(0.10, false);
        let rows = [row(
            "syscall.getpid",
            Outcome::Paired {
                pairing: p,
                verdict,
            },
            None,
        )];
        let text = crosscheck_table(&rows);
        assert!(text.contains("contended [1]"), "{text}");
        assert!(text.contains("34%"), "{text}");
        assert!(text.contains("had 34% of its CPU"), "{text}");
        assert!(text.contains("gives 0.98×"), "{text}");
    }
}

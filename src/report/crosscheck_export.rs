//! `crosscheck --format json|csv|markdown`: every pair of a row and its tool, with both
//! figures and their intervals, the ratio with its interval and range, the verdict's word
//! and the test that reached it — for a CI job to read rather than a person.
//!
//! CSV and Markdown go through [`super::compare_export`]'s writers, as `compare`'s do.

use serde_json::{json, Value};

use super::compare_export::{csv_table, markdown_table};
use crate::model::crosscheck::{
    trimmed_at_each_end, CheckRow, Outcome, Pairing, Settings, Verdict, FAMILY_ALPHA,
};
use crate::model::ClockRate;

/// One line a pair; figures in seconds per row operation (SI), ratios timeshare / tool.
const HEADER: [&str; 20] = [
    "id",
    "tool",
    "basis",
    "timeshare",
    "timeshare_ci_low",
    "timeshare_ci_high",
    "tool_figure",
    "tool_ci_low",
    "tool_ci_high",
    "ratio",
    "ratio_ci_low",
    "ratio_ci_high",
    "confidence",
    "ratio_min",
    "ratio_max",
    "tool_cpu_share",
    "pairs",
    "tolerance",
    "verdict",
    "test",
];

/// The columns of free text, written so that a spreadsheet does not read them as
/// formulas.
const TEXT_COLUMNS: [usize; 4] = [0, 1, 2, 19];

/// The verdict's word: a [`Verdict`]'s, or "missing" (the tool is not installed) or
/// "failed" (no figure).
pub fn verdict_word(row: &CheckRow) -> &'static str {
    match &row.outcome {
        Outcome::Missing { .. } => "missing",
        Outcome::Failed { .. } => "failed",
        Outcome::Paired { verdict, .. } => match verdict {
            Verdict::Within => "within",
            Verdict::Outside => "outside",
            Verdict::Explained => "explained",
            Verdict::Contended => "contended",
            Verdict::Undecided => "undecided",
        },
    }
}

/// The test that gave the row its verdict, in words with its figures.
pub fn test_text(row: &CheckRow) -> String {
    let tolerance = format!("1 ± {:.0}%", row.tolerance * 100.0);
    let p = match &row.outcome {
        Outcome::Missing { package } => {
            return format!("{} is not installed (Debian package {package})", row.tool)
        }
        Outcome::Failed { error } => return format!("no figure: {error}"),
        Outcome::Paired { pairing, .. } => pairing,
    };
    let Outcome::Paired { verdict, .. } = &row.outcome else {
        unreachable!("matched just above")
    };
    let interval = match (p.ci_low, p.ci_high, p.confidence) {
        (Some(lo), Some(hi), Some(level)) => format!(
            "the ratio's {:.1}% interval {lo:.3}–{hi:.3} (Student's t on the logarithms of \
             {} pairs' ratios{})",
            level * 100.0,
            p.pairs,
            match trimmed_at_each_end(p.pairs) {
                0 => String::new(),
                g => format!(", their mean trimmed of {g} at each end"),
            }
        ),
        _ => format!("the one pair's ratio {:.3}", p.ratio_median),
    };
    match verdict {
        Verdict::Within => format!("{interval} lies inside {tolerance}"),
        Verdict::Outside => {
            format!("{interval} lies outside {tolerance}, and no reason is declared")
        }
        Verdict::Explained => format!(
            "{interval} lies outside {tolerance}, for the reason declared: {}",
            row.why.as_deref().unwrap_or("")
        ),
        Verdict::Contended => format!(
            "{interval} is not inside {tolerance}, but the tool had {:.0}% of its CPU, and \
             scaled by that share it lies inside",
            p.tool_cpu_share.unwrap_or(1.0) * 100.0
        ),
        Verdict::Undecided => format!(
            "{interval} still crosses an edge of {tolerance} after {} pairs",
            p.pairs
        ),
    }
}

/// The cells of one pair: numbers as `{:e}` (exact), empty where there is none.
fn cells(row: &CheckRow) -> Vec<String> {
    let num = |v: Option<f64>| v.map(|v| format!("{v:e}")).unwrap_or_default();
    let p: Option<&Pairing> = match &row.outcome {
        Outcome::Paired { pairing, .. } => Some(pairing),
        _ => None,
    };
    let get = |f: fn(&Pairing) -> Option<f64>| num(p.and_then(f));
    vec![
        row.id.clone(),
        row.tool.clone(),
        row.basis.clone(),
        get(|p| Some(p.row_median)),
        get(|p| p.row_ci.map(|c| c.0)),
        get(|p| p.row_ci.map(|c| c.1)),
        get(|p| Some(p.anchor_median)),
        get(|p| p.anchor_ci.map(|c| c.0)),
        get(|p| p.anchor_ci.map(|c| c.1)),
        get(|p| Some(p.ratio_median)),
        get(|p| p.ci_low),
        get(|p| p.ci_high),
        get(|p| p.confidence),
        get(|p| Some(p.ratio_min)),
        get(|p| Some(p.ratio_max)),
        get(|p| p.tool_cpu_share),
        p.map(|p| p.pairs.to_string()).unwrap_or_default(),
        num(Some(row.tolerance)),
        verdict_word(row).to_string(),
        test_text(row),
    ]
}

/// Every pair as CSV, a header line first.
pub fn to_csv(rows: &[CheckRow]) -> anyhow::Result<Vec<u8>> {
    let lines: Vec<Vec<String>> = rows.iter().map(cells).collect();
    csv_table(&HEADER, &lines, &TEXT_COLUMNS)
}

/// Every pair as one Markdown table.
pub fn to_markdown(rows: &[CheckRow]) -> String {
    let lines: Vec<Vec<String>> = rows.iter().map(cells).collect();
    markdown_table(&HEADER, &lines)
}

/// A figure with its interval, or null.
fn figure(value: Option<f64>, ci: Option<(f64, f64)>) -> Value {
    match value {
        None => Value::Null,
        Some(v) => json!({
            "value": v,
            "unit": "s/op",
            "ci_low": ci.map(|c| c.0),
            "ci_high": ci.map(|c| c.1),
        }),
    }
}

/// How the pairs were taken, for the JSON's `settings`: the CPU, the plan, the time
/// allowed and taken, lmbench's calibration and whether the user stopped it.
pub fn settings_json(s: &Settings) -> Value {
    json!({
        "cpu": s.cpu,
        "pairs_first": s.pairs_first,
        "pairs_max": s.plan.max(),
        "budget_s": s.budget.as_secs(),
        "total_s": s.total.as_secs(),
        "looks": s.plan.looks(),
        "interval_level": 1.0 - s.plan.alpha_per_look(),
        "family_level": 1.0 - FAMILY_ALPHA,
        "took_s": s.took.as_secs_f64(),
        "lmbench_calibration": s
            .lmbench_calibration
            .iter()
            .cloned()
            .collect::<std::collections::BTreeMap<_, _>>(),
        "interrupted": s.interrupted,
    })
}

/// Every pair as JSON: `settings` (how the pairs were taken), what the run-level checks
/// around the pairs found (the clock's rate, as a run's environment has it, and the
/// warnings: a drifted machine, a slewed clock), and one object a pair.
pub fn to_json(
    rows: &[CheckRow],
    settings: Value,
    clock_rate: Option<&ClockRate>,
    warnings: &[String],
) -> Value {
    let pairs: Vec<Value> = rows
        .iter()
        .map(|r| {
            let p = match &r.outcome {
                Outcome::Paired { pairing, .. } => Some(pairing),
                _ => None,
            };
            json!({
                "id": r.id,
                "tool": r.tool,
                "command": r.command,
                "basis": r.basis,
                "tolerance": r.tolerance,
                "timeshare": figure(p.map(|p| p.row_median), p.and_then(|p| p.row_ci)),
                "tool_figure": figure(p.map(|p| p.anchor_median), p.and_then(|p| p.anchor_ci)),
                "ratio": p.map(|p| json!({
                    "median": p.ratio_median,
                    "ci_low": p.ci_low,
                    "ci_high": p.ci_high,
                    "confidence": p.confidence,
                    "min": p.ratio_min,
                    "max": p.ratio_max,
                    "each_pair": p.ratios,
                })),
                "tool_cpu_share": p.and_then(|p| p.tool_cpu_share),
                "pairs": p.map(|p| p.pairs),
                "verdict": verdict_word(r),
                "test": test_text(r),
                "why": r.why,
            })
        })
        .collect();
    json!({
        "settings": settings,
        "clock_rate": clock_rate,
        "warnings": warnings,
        "pairs": pairs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<CheckRow> {
        let paired = |id: &str, pairs: &[(f64, f64)], verdict| CheckRow {
            id: id.into(),
            tool: "lmbench lat_syscall".into(),
            command: "lat_syscall null".into(),
            basis: "call".into(),
            tolerance: 0.1,
            why: None,
            outcome: Outcome::Paired {
                pairing: Pairing::with_interval(pairs, 0.01).unwrap(),
                verdict,
            },
        };
        vec![
            paired(
                "syscall.getpid",
                &[(1.0e-7, 1.02e-7), (1.1e-7, 1.05e-7), (0.98e-7, 1.0e-7)],
                Verdict::Within,
            ),
            paired("pipe.back.4", &[(2.0e-5, 1.0e-5)], Verdict::Outside),
            CheckRow {
                id: "net.tcp.lat".into(),
                tool: "netperf".into(),
                command: "netperf -t TCP_RR".into(),
                basis: "round trip".into(),
                tolerance: 0.25,
                why: None,
                outcome: Outcome::Missing {
                    package: "netperf".into(),
                },
            },
        ]
    }

    #[test]
    fn json_gives_every_pair_both_figures_their_intervals_the_ratio_and_the_test() {
        let rows = rows();
        let rate = ClockRate {
            ppm: 2.0,
            window_s: 3.0,
        };
        let warned = ["the machine drifted during the run: …".to_string()];
        let json = to_json(&rows, json!({"cpu": 1}), Some(&rate), &warned);
        let text = serde_json::to_string(&json).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        let pairs = v["pairs"].as_array().unwrap();
        assert_eq!(pairs.len(), 3);
        let getpid = &pairs[0];
        assert_eq!(getpid["timeshare"]["value"].as_f64(), Some(1.0e-7));
        assert_eq!(getpid["tool_figure"]["value"].as_f64(), Some(1.02e-7));
        for side in ["timeshare", "tool_figure"] {
            let (lo, hi) = (
                getpid[side]["ci_low"].as_f64().unwrap(),
                getpid[side]["ci_high"].as_f64().unwrap(),
            );
            let median = getpid[side]["value"].as_f64().unwrap();
            assert!(lo < median && median < hi, "{side}: {getpid}");
        }
        let ratio = &getpid["ratio"];
        assert!(ratio["ci_low"].as_f64().unwrap() < ratio["median"].as_f64().unwrap());
        let each: Vec<f64> = ratio["each_pair"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_f64().unwrap())
            .collect();
        assert_eq!(each.len(), 3);
        assert!((each[0] - 1.0e-7 / 1.02e-7).abs() < 1e-12, "{each:?}");
        assert_eq!(getpid["verdict"], "within");
        assert!(getpid["test"]
            .as_str()
            .unwrap()
            .contains("lies inside 1 ± 10%"));
        // One pair: no interval, the ratio decides as a point, and says so.
        let one = &pairs[1];
        assert_eq!(one["ratio"]["median"].as_f64(), Some(2.0));
        assert!(one["timeshare"]["ci_low"].is_null(), "{one}");
        assert_eq!(one["verdict"], "outside");
        assert!(one["test"]
            .as_str()
            .unwrap()
            .contains("one pair's ratio 2.000"));
        assert!(pairs[2]["timeshare"].is_null() && pairs[2]["ratio"].is_null());
        assert_eq!(pairs[2]["verdict"], "missing");
        assert_eq!(v["settings"]["cpu"], 1);
        assert_eq!(v["clock_rate"]["ppm"].as_f64(), Some(2.0));
        assert_eq!(v["warnings"][0], warned[0].as_str());
        // No rate (the mock's clock stands still): null, and no warnings an empty list.
        let bare = to_json(&rows, json!({}), None, &[]);
        assert!(
            bare["clock_rate"].is_null() && bare["warnings"] == json!([]),
            "{bare}"
        );
    }

    #[test]
    fn csv_and_markdown_give_a_line_a_pair_that_parses_back() {
        let rows = rows();
        let bytes = to_csv(&rows).unwrap();
        let mut r = csv::Reader::from_reader(bytes.as_slice());
        let header = r.headers().unwrap().clone();
        assert_eq!(header.len(), HEADER.len());
        let col = |name: &str| header.iter().position(|h| h == name).unwrap();
        let lines: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(&lines[0][col("id")], "syscall.getpid");
        assert_eq!(lines[0][col("timeshare")].parse::<f64>().unwrap(), 1.0e-7);
        assert_eq!(
            lines[0][col("tool_figure")].parse::<f64>().unwrap(),
            1.02e-7
        );
        let low = lines[0][col("timeshare_ci_low")].parse::<f64>().unwrap();
        assert!(low < 1.0e-7, "{low}");
        assert_eq!(lines[1][col("ratio")].parse::<f64>().unwrap(), 2.0);
        assert_eq!(&lines[1][col("ratio_ci_low")], "", "one pair, no interval");
        assert_eq!(&lines[1][col("verdict")], "outside");
        assert_eq!(&lines[2][col("verdict")], "missing");
        assert!(lines[2][col("test")].contains("Debian package netperf"));

        let md = to_markdown(&rows);
        let md_lines: Vec<&str> = md.lines().collect();
        assert_eq!(md_lines.len(), 2 + rows.len(), "{md}");
        for l in md_lines.iter().filter(|l| !l.starts_with("|---")) {
            assert_eq!(l.matches(" | ").count(), HEADER.len() - 1, "{l}");
        }
        assert!(md_lines[3].contains("| outside |"), "{md}");
    }
}

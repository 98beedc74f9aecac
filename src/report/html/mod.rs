//! The HTML report: one self-contained file (inline CSS and SVG, no script, nothing
//! fetched) for one run, several side by side, or one id's history. Rendering only: model
//! types in, a string out.
//!
//! Every chart is a `<figure class="chart">` holding its SVG and the table of the numbers
//! it draws, so nothing is only a picture. Every string from a run (host, label, notes,
//! errors, commands) goes through maud, which escapes it.

mod charts;
mod flame;
pub mod fleet;
pub mod observation;
pub mod svg;

use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::compare::{judgements, Column, Judgement};
use super::table::bound_text;
use crate::model::resolution::shown_stored;
use crate::model::unit::format_value;
use crate::model::{family_of, BenchResult, Run, Status};
use svg::{Axis, Band, Lane, Lanes, Plot};

/// The report of `columns` (runs and historical machines; the first is the baseline).
/// One run gives its own report; several add a comparison of each against the first.
pub fn report(columns: &[Column], min_effect: f64) -> String {
    let names: Vec<&str> = columns.iter().map(Column::name).collect();
    let title = format!("timeshare report: {}", names.join(" · "));
    let runs: Vec<(&str, &Run)> = columns
        .iter()
        .filter_map(|c| match c {
            Column::Run { name, run, .. } => Some((name.as_str(), run.as_ref())),
            Column::Machine { .. } => None,
        })
        .collect();
    // The page opens on what people look at (a summary, the contents, the seeds'
    // charts, today beside the papers) and folds what they look up (the environment,
    // the processes, the warnings) at its end.
    let comparison = (columns.len() > 1).then(|| comparisons(columns, min_effect));
    let body = html! {
        ul.columns {
            @for c in columns { li { (c.describe()) } }
        }
        @for (name, run) in &runs { (summary_section(name, run)) }
        (contents(&runs, comparison.is_some()))
        @for (name, run) in &runs { (charts_section(name, run, runs.len() > 1)) }
        @if let Some(c) = comparison { (c) }
        @for (name, run) in &runs { (families_section(name, run)) }
        @if !runs.is_empty() { (environment(&runs)) }
    };
    page(&title, body)
}

/// The table of contents: one link per part of the page, each run's families listed so
/// a reader can jump to one.
fn contents(runs: &[(&str, &Run)], comparison: bool) -> Markup {
    html! {
        nav.toc {
            h2 id="contents" { "Contents" }
            ol {
                @for (name, _) in runs {
                    li { a href=(format!("#charts-{}", anchor(name))) { "The seeds' charts: " (name) } }
                }
                @if comparison {
                    li { a href="#comparison" { "Beside the papers' machines and the other columns" } }
                }
                @for (name, run) in runs {
                    li {
                        a href=(format!("#families-{}", anchor(name))) { "Families: " (name) }
                        " — "
                        @for (k, f) in families_of(run).iter().enumerate() {
                            @if k > 0 { ", " }
                            a href=(format!("#family-{}-{f}", anchor(name))) { (f) }
                        }
                    }
                }
                @if !runs.is_empty() {
                    li { a href="#environment" { "Environment, processes and warnings (folded)" } }
                }
            }
        }
    }
}

fn anchor(name: &str) -> String {
    name.replace(' ', "-")
}

fn families_of(run: &Run) -> Vec<&str> {
    let mut families: Vec<&str> = Vec::new();
    for r in &run.results {
        if !families.contains(&family_of(&r.id)) {
            families.push(family_of(&r.id));
        }
    }
    families
}

/// One stored run's figure for an id, for `report --trend`.
pub struct TrendPoint {
    /// "run 12"
    pub name: String,
    pub label: Option<String>,
    pub started_at: chrono::DateTime<chrono::Utc>,
    pub result: BenchResult,
}

/// `id`'s median and confidence interval across stored runs, oldest first.
pub fn trend(id: &str, points: &[TrendPoint]) -> String {
    let with: Vec<(usize, &TrendPoint, &crate::model::Summary)> = points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some((i, p, p.result.summary.as_ref()?)))
        .filter(|(_, p, _)| p.result.status.is_ok())
        .collect();
    let unit = points.first().map(|p| p.result.unit);
    let fmt = |v: f64| unit.map(|u| format_value(v, u)).unwrap_or(format!("{v}"));
    let chart = (!with.is_empty()).then(|| {
        let xs: Vec<f64> = with.iter().map(|(i, _, _)| *i as f64 + 1.0).collect();
        let ys: Vec<f64> = with
            .iter()
            .map(|(_, _, s)| s.ci_high.max(s.median))
            .collect();
        let mut x = Axis::linear("stored runs with this id, oldest first", &xs, &|v| {
            format!("{v:.0}")
        });
        // Label each tick with the run it stands for, where there is one.
        for t in &mut x.ticks {
            let k = t.0 as usize;
            t.1 = if k >= 1 && k <= points.len() && t.0.fract() == 0.0 {
                points[k - 1].name.clone()
            } else {
                String::new()
            };
        }
        let mut plot = Plot::new(
            format!("{id}: median and 95% CI per run"),
            x,
            Axis::linear(&format!("{id} (median)"), &ys, &fmt),
        );
        plot.bands.push(Band {
            name: "95% CI of the median".into(),
            points: with
                .iter()
                .map(|(i, _, s)| (*i as f64 + 1.0, s.ci_low, s.ci_high))
                .collect(),
        });
        plot.line(
            "median",
            with.iter()
                .map(|(i, _, s)| (*i as f64 + 1.0, s.median))
                .collect(),
        )
        .svg()
    });
    let body = html! {
        @if points.is_empty() {
            p.warn { "No stored run has " (id) "." }
        }
        figure.chart {
            @if let Some(svg) = chart { (svg) }
            table.data {
                thead { tr { th { "run" } th { "started" } th { "label" } th { "status" }
                    th { "median" } th { "95% CI" } th { "samples" } th { "culled" } } }
                tbody {
                    @for p in points {
                        tr {
                            td { (p.name) }
                            td { (p.started_at.format("%Y-%m-%d %H:%M UTC").to_string()) }
                            td { (p.label.as_deref().unwrap_or("")) }
                            td { (status_word(&p.result.status)) }
                            @match (&p.result.summary, shown_stored(&p.result, None).and_then(bound_text)) {
                                (Some(_), Some(bound)) => {
                                    td.n { (bound) }
                                    td { "not resolved" }
                                }
                                (Some(s), None) => {
                                    td.n { (format_value(s.median, p.result.unit)) }
                                    td.n { (ci_text(&p.result)) }
                                }
                                (None, _) => { td { "—" } td {} }
                            }
                            td.n { (p.result.samples.len()) }
                            td.n { (p.result.culled) }
                        }
                    }
                }
            }
        }
    };
    page(&format!("timeshare trend: {id}"), body)
}

const CSS: &str = "
body{font:14px/1.45 system-ui,sans-serif;color:#1d1d1d;background:#fff;margin:24px auto;max-width:1100px;padding:0 16px}
h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;margin-top:36px}h3{font-size:15px;margin-top:24px}
table{border-collapse:collapse;margin:8px 0;font-size:12.5px}th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.vals{font-size:11px;color:#444;max-width:360px}
.warn{color:#8a4b00;background:#fff6e6;padding:4px 8px;border-left:3px solid #d98a00}
.failed{color:#a01818;font-weight:600}.skipped{color:#666}
figure.chart{margin:16px 0;overflow-x:auto}figure.chart figcaption{font-size:12.5px;color:#333}
details>summary{cursor:pointer;color:#1f5fa8}
svg text{font:11px system-ui,sans-serif;fill:#222}svg .t{font-size:13px;font-weight:600}
svg .yl{text-anchor:end}svg .xl{text-anchor:middle}svg .ml{fill:#555;font-size:10px}
svg .grid{stroke:#e4e4e4}svg .frame{fill:none;stroke:#999}svg .mark{stroke:#777;stroke-dasharray:3 3}
svg .s{fill:none;stroke-width:2}svg .band{opacity:.18}svg .ref{stroke:#444}
svg .alt{fill:#f6f6f6}svg.flame text.fn{font-size:11px}svg.flame rect{stroke:#fff;stroke-width:.5}svg .dot{fill:#1f5fa8;opacity:.7}svg .culled{stroke:#c0392b;stroke-width:1.6}
svg .centre{fill:#111}svg .whisker{stroke:#333;stroke-width:1.3}
svg .faster{fill:#1d7a32}svg .slower{fill:#b02a1e}svg .same{fill:#666}
.faster{color:#1d7a32}.slower{color:#b02a1e}
.outside{color:#b02a1e;font-weight:600}.legend{font-size:12.5px;color:#333}
";

fn page(title: &str, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(CSS)) }
            }
            body {
                h1 { (title) }
                (body)
                p.foot { "Written by timeshare " (env!("CARGO_PKG_VERSION")) ". Each chart is followed by the numbers it draws." }
            }
        }
    }
    .into_string()
    .chars()
    .map(visible)
    .collect()
}

/// A control character from a run (a terminal escape in a label) as its visible picture
/// (ESC as ␛), so it shows as text instead of vanishing; the page's own text has none.
fn visible(c: char) -> char {
    match c {
        '\n' | '\t' => c,
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('?'),
        '\u{7f}' => '\u{2421}',
        _ => c,
    }
}

/// The environment records side by side, then each run's warnings.
fn environment(runs: &[(&str, &Run)]) -> Markup {
    let rows: Vec<Vec<(&'static str, String)>> = runs
        .iter()
        .map(|(_, r)| super::environment::environment_rows(&r.environment))
        .collect();
    let extra = |r: &Run| -> Vec<(&'static str, String)> {
        vec![
            (
                "started",
                r.started_at.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
            ),
            ("mode", format!("{:?}", r.options.mode).to_lowercase()),
            ("label", r.options.label.clone().unwrap_or_default()),
            ("selection", r.options.selection.join(" ")),
            ("status", format!("{:?}", r.status).to_lowercase()),
            ("version", format!("{} {}", r.tool.name, r.tool.version)),
        ]
    };
    let all: Vec<Vec<(&'static str, String)>> = runs
        .iter()
        .zip(rows)
        .map(|((_, r), mut env)| {
            let mut v = extra(r);
            v.append(&mut env);
            v
        })
        .collect();
    // Folded: what a reader looks up, not what the page is read for; the process lists
    // alone were two screens.
    html! {
        h2 id="environment" { "Environment" }
        details.env {
        summary { "The machine, its load and busy processes, and each run's warnings" }
        table.env {
            thead { tr { th {} @for (name, _) in runs { th { (name) } } } }
            tbody {
                @for (k, (what, _)) in all[0].iter().enumerate() {
                    // A row empty in every column (no label, the default selection) says
                    // nothing.
                    @if all.iter().any(|col| col.get(k).is_some_and(|c| !c.1.is_empty())) {
                    tr {
                        th { (what) }
                        @for col in &all { td { (col.get(k).map(|c| c.1.as_str()).unwrap_or("")) } }
                    }
                    }
                }
            }
        }
        @for (name, run) in runs {
            @for w in &run.warnings { p.warn { (name) ": warning: " (w) } }
        }
        }
    }
}

fn status_word(s: &Status) -> String {
    match s {
        Status::Ok => "ok".into(),
        Status::Skipped { reason } => format!("skipped: {reason}"),
        Status::Failed { error } => format!("FAILED: {error}"),
    }
}

fn status_class(s: &Status) -> &'static str {
    match s {
        Status::Ok => "",
        Status::Skipped { .. } => "skipped",
        Status::Failed { .. } => "failed",
    }
}

/// The interval's bounds, with its level when below the heading's 95% ("1.43 s – 1.45 s
/// (75%)"), or "none" for a row of one sample.
fn ci_text(r: &BenchResult) -> String {
    match &r.summary {
        Some(s) if !r.derived && s.has_interval() => {
            let range = format!(
                "{} – {}",
                format_value(s.ci_low, r.unit),
                format_value(s.ci_high, r.unit)
            );
            match s.short_level() {
                Some(level) => format!("{range} ({level}%)"),
                None => range,
            }
        }
        Some(_) if !r.derived => crate::report::table::NO_INTERVAL.into(),
        _ => String::new(),
    }
}

/// A run's summary: its one line, then the rows with no figure (never hidden).
fn summary_section(name: &str, run: &Run) -> Markup {
    let not_ok: Vec<&BenchResult> = run.results.iter().filter(|r| !r.status.is_ok()).collect();
    html! {
        h2 id=(anchor(name)) { "Summary: " (name) }
        p { (crate::report::table::summary_line(run)) }
        @if !not_ok.is_empty() {
            h3 { "Skipped and failed rows" }
            table.notok {
                thead { tr { th { "benchmark" } th { "status" } th { "reason" } } }
                tbody {
                    @for r in &not_ok {
                        @let (word, why) = match &r.status {
                            Status::Skipped { reason } => ("skipped", reason.as_str()),
                            Status::Failed { error } => ("FAILED", error.as_str()),
                            Status::Ok => ("ok", ""),
                        };
                        tr class=(status_class(&r.status)) { td { (r.id) } td { (word) } td { (why) } }
                    }
                }
            }
        }
    }
}

/// A run's seed charts (memory hierarchy, paging, load, sweep…) under one heading.
fn charts_section(name: &str, run: &Run, named: bool) -> Markup {
    html! {
        h2 id=(format!("charts-{}", anchor(name))) {
            "The seeds' charts" @if named { ": " (name) }
        }
        (charts::all(run))
    }
}

/// A run's families, each with its strip chart and its table.
fn families_section(name: &str, run: &Run) -> Markup {
    html! {
        h2 id=(format!("families-{}", anchor(name))) { "Families: " (name) }
        @for f in families_of(run) { (family_section(name, run, f)) }
    }
}

/// A family's rows: the strip chart of every measured row's samples (each divided by its
/// median, culled ones as ×), and the table of every row, which is the chart's data.
fn family_section(name: &str, run: &Run, family: &str) -> Markup {
    let rows: Vec<&BenchResult> = run
        .results
        .iter()
        .filter(|r| family_of(&r.id) == family)
        .collect();
    let drawn: Vec<&BenchResult> = rows
        .iter()
        .copied()
        .filter(|r| !r.derived && r.samples.len() > 1)
        .filter(|r| r.median().is_some_and(|m| m > 0.0))
        .filter(|r| not_resolved(run, r).is_none())
        .collect();
    let strip = (!drawn.is_empty()).then(|| {
        let ratios: Vec<f64> = drawn
            .iter()
            .flat_map(|r| {
                let m = r.median().unwrap_or(1.0);
                r.samples.iter().map(move |s| s.value / m)
            })
            .chain([0.9, 1.1])
            .collect();
        let x = Axis::log10(
            "sample / the row's median (log scale); × = culled as perturbed",
            &ratios,
            &|v| format!("{v}"),
        );
        Lanes {
            title: format!("{family}: every sample of every measured row"),
            x,
            reference: Some(1.0),
            lanes: drawn
                .iter()
                .map(|r| {
                    let m = r.median().unwrap_or(1.0);
                    Lane {
                        label: r.id.clone(),
                        dots: r.samples.iter().map(|s| (s.value / m, s.culled)).collect(),
                        centre: Some(1.0),
                        whisker: r.summary.as_ref().map(|s| (s.ci_low / m, s.ci_high / m)),
                        note: r
                            .median()
                            .map(|v| format_value(v, r.unit))
                            .unwrap_or_default(),
                        tone: "",
                    }
                })
                .collect(),
        }
        .svg()
    });
    html! {
        h3 id=(format!("family-{}-{family}", anchor(name))) { (family) }
        // Folded: every row's samples and notes are what a reader looks up; the page is
        // read for the seeds' charts, and the rows alone made it 30,000 px tall.
        details.family {
        summary { (family_summary(&rows)) }
        figure.chart {
            @if let Some(svg) = strip { (svg) }
            table.data.family {
                thead { tr {
                    th { "benchmark" } th { "status" } th { "median" } th { "95% CI" } th { "SD" }
                    th { "samples" } th { "culled" } th { "notes" } th { "sample values (× culled)" }
                } }
                tbody {
                    @for r in &rows {
                        tr class=(status_class(&r.status)) {
                            td { (r.id) }
                            td { (status_word(&r.status)) }
                            @if let Some((bound, why)) = not_resolved(run, r) {
                                td.n { (bound) }
                                td.n {} td.n {}
                                td.n { (r.samples.len()) }
                                td.n { (r.culled) }
                                td { (why) "; " (notes(r)) }
                                td.vals { "not shown: not resolved" }
                            } @else {
                                td.n { (r.median().map(|m| format_value(m, r.unit)).unwrap_or("—".into())) }
                                td.n { (ci_text(r)) }
                                td.n { (r.summary.as_ref().filter(|s| !r.derived && s.has_interval())
                                    .map(|s| format_value(s.sd, r.unit)).unwrap_or_default()) }
                                td.n { (r.samples.len()) }
                                td.n { (r.culled) }
                                td { (notes(r)) }
                                td.vals {
                                    // Folded: the lists were most of a long page.
                                    @if !r.samples.is_empty() {
                                        details {
                                            summary { (r.samples.len()) " values" }
                                            (sample_values(r))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            @if let Some(legend) = crate::report::table::interval_legend(
                rows.iter().filter(|r| r.status.is_ok() && !r.derived).filter_map(|r| r.summary.as_ref())
            ) {
                p { (legend) }
            }
        }
        }
    }
}

/// A folded family's one line: its rows, and how many did not measure.
fn family_summary(rows: &[&BenchResult]) -> String {
    let ok = rows.iter().filter(|r| r.status.is_ok()).count();
    let mut line = format!(
        "{} rows: the strip chart of their samples and their table",
        rows.len()
    );
    if ok < rows.len() {
        line.push_str(&format!(" ({} skipped or failed)", rows.len() - ok));
    }
    line
}

/// The bound and why, for a row whose median is under one cycle, under the clock's
/// resolution or not positive: the figure that must not be shown as measured.
fn not_resolved(run: &Run, r: &BenchResult) -> Option<(String, &'static str)> {
    let s = shown_stored(r, run.environment.cpu.mhz)?;
    Some((bound_text(s)?, s.why()?))
}

fn notes(r: &BenchResult) -> String {
    let mut n = Vec::new();
    if r.derived {
        n.push("derived".to_string());
    }
    n.extend(r.notes.iter().cloned());
    n.join("; ")
}

fn sample_values(r: &BenchResult) -> String {
    r.samples
        .iter()
        .map(|s| {
            let v = format_value(s.value, r.unit);
            if s.culled {
                format!("{v}×")
            } else {
                v
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Per later column and family: each id's ratio to the first column, log scale, with the
/// ratio's range from the confidence intervals and the verdict.
fn comparisons(columns: &[Column], min_effect: f64) -> Markup {
    let first = columns[0].name();
    let judged = match judgements(columns, min_effect) {
        Ok(j) => j,
        Err(e) => return html! { h2 { "Comparison" } p.warn { (e.to_string()) } },
    };
    let mut groups: Vec<(&str, &str, Vec<&Judgement>)> = Vec::new();
    let mut empty: Vec<(&str, &str)> = Vec::new();
    for (name, rows) in &judged {
        let mut families: Vec<&str> = Vec::new();
        for j in rows {
            if !families.contains(&family_of(&j.id)) {
                families.push(family_of(&j.id));
            }
        }
        for f in families {
            // Only the ids the later column has a figure for: a machine of the papers
            // has figures for a few families, and rows of "—" filled most of the page.
            let in_family: Vec<&Judgement> = rows
                .iter()
                .filter(|j| family_of(&j.id) == f && j.other_figure.is_some())
                .collect();
            if in_family.is_empty() {
                empty.push((name, f));
            } else {
                groups.push((name, f, in_family));
            }
        }
    }
    html! {
        h2 id="comparison" { "Comparison with " (first) }
        p { "Ratio = the column's figure over " (first) "'s, each per one operation of its basis (for times, above 1 is slower). "
            "Whiskers: the range the two 95% confidence intervals allow. Between runs, a change is called only when a Mann–Whitney U test "
            "on the clean samples finds one and the medians differ by at least " (format!("{:.0}", min_effect * 100.0)) "%; "
            "against a historical machine, the verdict is today's speed-up." }
        @for (name, family, rows) in &groups {
            (comparison_chart(first, name, family, rows))
        }
        @if !empty.is_empty() {
            p.legend { "No figures to compare: "
                (empty.iter().map(|(n, f)| format!("{f} from {n}")).collect::<Vec<_>>().join("; ")) "." }
        }
    }
}

fn tone(verdict: &str) -> &'static str {
    if verdict.contains("slower") {
        "slower"
    } else if verdict.contains("faster") {
        "faster"
    } else {
        "same"
    }
}

fn comparison_chart(first: &str, other: &str, family: &str, rows: &[&Judgement]) -> Markup {
    let drawn: Vec<&&Judgement> = rows.iter().filter(|j| j.ratio.is_some()).collect();
    let svg = (!drawn.is_empty()).then(|| {
        let values: Vec<f64> = drawn
            .iter()
            .flat_map(|j| {
                let r = j.ratio.unwrap_or(1.0);
                let (lo, hi) = j.ratio_range.unwrap_or((r, r));
                [r, lo, hi]
            })
            .chain([1.0])
            .collect();
        Lanes {
            title: format!("{family}: {other} against {first}"),
            x: Axis::log10(&format!("ratio to {first} (log scale)"), &values, &|v| {
                super::compare::figures3(v)
            }),
            reference: Some(1.0),
            lanes: drawn
                .iter()
                .map(|j| Lane {
                    label: j.id.clone(),
                    dots: Vec::new(),
                    centre: j.ratio,
                    whisker: j.ratio_range,
                    note: short_verdict(&j.verdict),
                    tone: tone(&j.verdict),
                })
                .collect(),
        }
        .svg()
    });
    html! {
        h3 { (family) ": " (other) " against " (first) }
        figure.chart {
            @if let Some(svg) = svg { (svg) }
            details.numbers {
            summary { "the figures and verdicts drawn" }
            table.data {
                thead { tr { th { "benchmark" } th { (first) } th { (other) } th { "ratio" } th { "range" } th { "verdict" } } }
                tbody {
                    @for j in rows {
                        tr {
                            td { (j.id) } td.n { (j.first) } td.n { (j.other) }
                            td.n { (j.ratio.map(|r| format!("×{}", super::compare::figures3(r))).unwrap_or_default()) }
                            td.n { (j.ratio_range.map(|(a, b)| format!("{} – {}", super::compare::figures3(a), super::compare::figures3(b))).unwrap_or_default()) }
                            td class=(tone(&j.verdict)) { (j.verdict) }
                        }
                    }
                }
            }
            }
        }
    }
}

/// A verdict short enough for the chart's margin; the table has it whole.
fn short_verdict(v: &str) -> String {
    v.split(" (p =").next().unwrap_or(v).to_string()
}

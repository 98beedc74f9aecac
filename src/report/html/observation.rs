//! An observation as an HTML page: the text report's tables, the rates' time series as
//! charts, and the kernel profile's flame graph, drawn inline as SVG from the folded
//! stacks (no script: each frame's `<title>` names it on hover).

use maud::{html, Markup};

use super::page;
use super::svg::{Axis, Plot};
use crate::model::observation::predict::Prediction;
use crate::model::observation::rates::rate_key;
use crate::model::observation::{KernelProfile, Part, SystemObservation};

/// The page of observation `name`.
pub fn report(name: &str, o: &SystemObservation, prediction: Option<&Prediction>) -> String {
    let title = format!("timeshare observation {name}: {}", o.span_text());
    let body = html! {
        h2 { "Rates over time" }
        (series_charts(o))
        h2 { "Kernel profile: flame graph" }
        (flame_section(o))
        h2 { "Every figure" }
        pre.observation { (super::super::observation::text(name, o, prediction)) }
    };
    page(&title, body)
}

/// The charts: events per second, CPU time by state, memory.
const GROUPS: &[(&str, &[&str], &str)] = &[
    (
        "events per second",
        &["cs", "intr", "syscalls", "forks"],
        "per second",
    ),
    (
        "CPU time by state",
        &[
            "cpu_user",
            "cpu_nice",
            "cpu_system",
            "cpu_iowait",
            "cpu_softirq",
            "cpu_idle",
        ],
        "% of all CPUs",
    ),
    (
        "page faults and scanning",
        &["faults", "major_faults", "scan"],
        "per second",
    ),
    // Kilobytes on their own axis: on the faults' "per second" axis they read as a count.
    ("paging I/O", &["pgin_kb", "pgout_kb"], "KB per second"),
];

/// One line per recorded column of `keys`: (label, (t, value) points).
fn lines_of(o: &SystemObservation, keys: &[&str]) -> Vec<(String, Vec<(f64, f64)>)> {
    keys.iter()
        .filter_map(|k| {
            let col = o.rates.column(k)?;
            let pts: Vec<(f64, f64)> = o
                .rates
                .lines
                .iter()
                .zip(col)
                .map(|(l, v)| (l.t_s, v))
                .filter(|p| p.1.is_finite())
                .collect();
            let label = rate_key(k).map_or(k.to_string(), |r| r.label.to_string());
            (!pts.is_empty()).then_some((label, pts))
        })
        .collect()
}

fn series_charts(o: &SystemObservation) -> Markup {
    let charts: Vec<Markup> = GROUPS
        .iter()
        .filter_map(|(title, keys, unit)| {
            let lines = lines_of(o, keys);
            if lines.is_empty() {
                return None;
            }
            let xs: Vec<f64> = lines.iter().flat_map(|l| l.1.iter().map(|p| p.0)).collect();
            let ys: Vec<f64> = lines
                .iter()
                .flat_map(|l| l.1.iter().map(|p| p.1))
                .chain([0.0])
                .collect();
            let plot = Plot::new(
                *title,
                span_axis(&xs, o.duration_s),
                Axis::linear(unit, &ys, &|v| format!("{v:.0}")),
            );
            let plot = lines
                .into_iter()
                .fold(plot, |p, (label, pts)| p.line(label, pts));
            Some(plot.svg())
        })
        .collect();
    html! {
        @if charts.is_empty() {
            p.warn { "No interval was recorded (the span was shorter than one)." }
        }
        @for c in charts { figure.chart { (c) } }
    }
}

/// The time axis, from 0 to the end of the span (or of the last interval, a moment
/// later): a round number beyond it would leave the chart's end empty.
fn span_axis(xs: &[f64], span_s: f64) -> Axis {
    let mut axis = Axis::linear("seconds", xs, &|v| format!("{v:.0}"));
    let end = xs.iter().copied().fold(span_s, f64::max);
    if end > axis.min {
        axis.max = end;
        axis.ticks.retain(|t| t.0 <= end * (1.0 + 1e-9));
    }
    axis
}

fn flame_section(o: &SystemObservation) -> Markup {
    match &o.profile {
        Part::Measured(p) => match flame_of(p) {
            Some(svg) => html! {
                figure.flame { (svg) }
                p { "The kernel's stacks of every CPU's samples of system time (idle loops and user time left out), under the command that was running; a frame's width is its share of system time. A name too long for its frame is in its tooltip." }
            },
            None => html! { p.warn { "No flame graph: no sample outside the idle loop" } },
        },
        Part::Unavailable { reason } => html! {
            p.warn { "No kernel profile: " (reason) }
        },
    }
}

/// The flame graph of `p`'s folded stacks, inline.
fn flame_of(p: &KernelProfile) -> Option<Markup> {
    let folded: Vec<(&str, u64)> = p
        .folded
        .iter()
        .map(|f| (f.stack.as_str(), f.count))
        .collect();
    super::flame::svg("system time: the kernel's stacks, every CPU", &folded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::observation::subsystem::{build_profile, Frame, StackSample};

    #[test]
    fn the_time_axis_ends_at_the_span() {
        let xs: Vec<f64> = (1..=60).map(f64::from).chain([60.02]).collect();
        let a = span_axis(&xs, 60.0);
        assert!((a.max - 60.02).abs() < 1e-9, "{a:?}");
        assert!(a.ticks.iter().all(|t| t.0 <= 60.02), "{:?}", a.ticks);
        assert_eq!(a.ticks.last().unwrap().1, "60");
        assert_eq!(
            Axis::linear("s", &xs, &|v| format!("{v}")).max,
            80.0,
            "the round one"
        );
    }

    #[test]
    fn the_page_has_a_flame_graph_drawn_from_the_stacks() {
        let mut o = crate::model::observation::tests::sample();
        let s = StackSample {
            comm: "stat".into(),
            pid: 5,
            frames: vec![
                Frame {
                    name: "strncpy_from_user".into(),
                    kernel: true,
                },
                Frame {
                    name: "main".into(),
                    kernel: false,
                },
            ],
        };
        let (p, _) = build_profile(&[s.clone(), s], 999, "test");
        o.profile = Part::Measured(p);
        let html = report("o1", &o, None);
        assert!(!html.contains("<script"), "no script in the page");
        let doc = scraper::Html::parse_document(&html);
        let svg = scraper::Selector::parse("figure.flame svg").unwrap();
        let svg = doc.select(&svg).next().expect("the flame graph inline");
        let titles: Vec<String> = svg
            .select(&scraper::Selector::parse("g > title").unwrap())
            .map(|t| t.text().collect())
            .collect();
        assert!(
            titles.iter().any(|t| t.starts_with("strncpy_from_user")),
            "{titles:?}"
        );
        assert!(titles.len() >= 2, "a frame per function: {titles:?}");
    }

    #[test]
    fn kilobytes_paged_are_not_on_the_per_second_axis_of_counts() {
        for (_, keys, unit) in GROUPS {
            let kb = keys.iter().any(|k| k.ends_with("_kb"));
            assert_eq!(kb, unit.starts_with("KB"), "{keys:?} on {unit}");
        }
    }

    #[test]
    fn without_a_profile_the_page_says_why() {
        let o = crate::model::observation::tests::sample();
        let html = report("o1", &o, None);
        assert!(html.contains("No kernel profile: not asked for"), "{html}");
    }
}

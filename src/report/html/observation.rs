//! An observation as an HTML page: the text report's tables, the rates' time series as
//! charts, and the kernel profile's flame graph, drawn inline as SVG from the folded
//! stacks (no script: each frame's `<title>` names it on hover).

use maud::{html, Markup};

use super::page;
use super::svg::{Axis, Band, Plot};
use crate::model::observation::predict::Prediction;
use crate::model::observation::rates::rate_key;
use crate::model::observation::{KernelProfile, Part, SystemObservation};

/// The page of observation `name`.
pub fn report(name: &str, o: &SystemObservation, prediction: Option<&Prediction>) -> String {
    let title = format!("timeshare observation {name}: {}", o.span_text());
    let body = html! {
        h2 { "Rates over time" }
        (series_charts(o))
        (by_hour(o))
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

/// Points drawn per line at most: a day of one-second lines is drawn as minutes.
pub const MAX_POINTS: usize = 1_440;

/// One drawn column: its mean line and, for a long series, the band each stretch's least
/// and greatest value span (where a peak stays visible).
struct Drawn {
    label: String,
    points: Vec<(f64, f64)>,
    band: Option<Vec<(f64, f64, f64)>>,
}

/// One line per recorded column of `keys`, its time in `per` seconds (3600 draws hours).
/// A long series is cut into [`MAX_POINTS`] stretches, each drawn as its mean inside a
/// band from its least to its greatest value.
fn lines_of(o: &SystemObservation, keys: &[&str], per: f64) -> Vec<Drawn> {
    let mut out = Vec::new();
    for k in keys {
        let Some(col) = o.rates.column(k) else {
            continue;
        };
        let pts: Vec<(f64, f64)> = o
            .rates
            .lines
            .iter()
            .zip(col)
            .map(|(l, v)| (l.t_s / per, v))
            .filter(|p| p.1.is_finite())
            .collect();
        if pts.is_empty() {
            continue;
        }
        let label = rate_key(k).map_or(k.to_string(), |r| r.label.to_string());
        if pts.len() <= MAX_POINTS {
            out.push(Drawn {
                label,
                points: pts,
                band: None,
            });
            continue;
        }
        let (mean, low, high) = downsample(&pts, MAX_POINTS);
        let band = low
            .iter()
            .zip(&high)
            .map(|(l, h)| (l.0, l.1, h.1))
            .collect();
        out.push(Drawn {
            label: format!("{label} (mean; band: least to greatest)"),
            points: mean,
            band: Some(band),
        });
    }
    out
}

type Points = Vec<(f64, f64)>;

/// `pts` in `n` stretches of about equal count: each stretch's mean, least and greatest,
/// at the stretch's middle time.
pub fn downsample(pts: &[(f64, f64)], n: usize) -> (Points, Points, Points) {
    let per = pts.len().div_ceil(n.max(1));
    let (mut mean, mut low, mut high) = (Vec::new(), Vec::new(), Vec::new());
    for chunk in pts.chunks(per.max(1)) {
        let t = chunk[chunk.len() / 2].0;
        let sum: f64 = chunk.iter().map(|p| p.1).sum();
        let lo = chunk.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let hi = chunk.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
        mean.push((t, sum / chunk.len() as f64));
        low.push((t, lo));
        high.push((t, hi));
    }
    (mean, low, high)
}

/// The rates and CPU shares hour by hour, as seed 001 showed its working day: only for
/// an observation of more than two hours.
fn by_hour(o: &SystemObservation) -> Markup {
    const KEYS: &[&str] = &[
        "cs",
        "intr",
        "syscalls",
        "forks",
        "faults",
        "cpu_user",
        "cpu_system",
        "cpu_iowait",
        "cpu_idle",
    ];
    if o.duration_s < 2.0 * 3600.0 || o.rates.lines.is_empty() {
        return html! {};
    }
    let keys: Vec<(&str, Vec<f64>)> = KEYS
        .iter()
        .filter_map(|k| Some((*k, o.rates.column(k)?)))
        .collect();
    let hours = (o.duration_s / 3600.0).ceil() as usize;
    let start = o.started_at;
    html! {
        h2 { "Hour by hour" }
        table.observation {
            tr {
                th { "hour (UTC)" }
                @for (k, _) in &keys {
                    th { (rate_key(k).map_or(k.to_string(), |r| r.label.to_string())) }
                }
            }
            @for h in 0..hours {
                tr {
                    td { ((start + chrono::Duration::hours(h as i64)).format("%Y-%m-%d %H:%M").to_string()) }
                    @for (_, col) in &keys {
                        td { (hour_mean(o, col, h).map_or("–".to_string(), |v| format!("{v:.1}"))) }
                    }
                }
            }
        }
    }
}

/// The interval-weighted mean of `col` over the lines ending in hour `h` of the span.
fn hour_mean(o: &SystemObservation, col: &[f64], h: usize) -> Option<f64> {
    let (lo, hi) = (h as f64 * 3600.0, (h + 1) as f64 * 3600.0);
    let (mut sum, mut secs) = (0.0, 0.0);
    for (l, v) in o.rates.lines.iter().zip(col) {
        if l.t_s > lo && l.t_s <= hi && v.is_finite() {
            sum += v * l.interval_s;
            secs += l.interval_s;
        }
    }
    (secs > 0.0).then(|| sum / secs)
}

fn series_charts(o: &SystemObservation) -> Markup {
    // A span of hours is drawn in hours, as seed 001 showed its day, counted from the
    // start's clock time so that the axis reads against the hour-by-hour table.
    let (per, unit) = if o.duration_s > 2.0 * 3600.0 {
        let start = o.started_at.format("%H:%M");
        (3600.0, format!("hours from {start} UTC"))
    } else {
        (1.0, "seconds".to_string())
    };
    let charts: Vec<Markup> = GROUPS
        .iter()
        .filter_map(|(title, keys, y_unit)| {
            let lines = lines_of(o, keys, per);
            if lines.is_empty() {
                return None;
            }
            let xs: Vec<f64> = lines
                .iter()
                .flat_map(|l| l.points.iter().map(|p| p.0))
                .collect();
            let ys: Vec<f64> = lines
                .iter()
                .flat_map(|l| {
                    let band = l.band.iter().flatten().map(|b| b.2);
                    l.points.iter().map(|p| p.1).chain(band)
                })
                .chain([0.0])
                .collect();
            let mut plot = Plot::new(
                *title,
                span_axis(&xs, o.duration_s / per, &unit),
                Axis::linear(y_unit, &ys, &|v| format!("{v:.0}")),
            );
            for l in lines {
                if let Some(points) = l.band {
                    plot.bands.push(Band {
                        name: String::new(),
                        points,
                    });
                }
                plot = plot.line(l.label, l.points);
            }
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
fn span_axis(xs: &[f64], span_s: f64, unit: &str) -> Axis {
    let mut axis = Axis::linear(unit, xs, &|v| format!("{v:.0}"));
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
        let a = span_axis(&xs, 60.0, "seconds");
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

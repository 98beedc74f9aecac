//! A small SVG writer for the report's charts: an x–y plot (linear or logarithmic axes;
//! lines, confidence bands, vertical and horizontal markers) and a lane chart (one lane per
//! row: dots, a centre, a whisker, a note). Written with maud, so every label from a run is
//! escaped like any other text. Series differ by dash pattern as well as colour, so a chart
//! reads in grey.

use maud::{html, Markup};

/// Colours and dash patterns, by series index.
const COLOURS: [&str; 6] = [
    "#1f5fa8", "#c0392b", "#2e8b3e", "#7b4fa0", "#d9822b", "#555555",
];
const DASHES: [&str; 6] = ["", "6 3", "2 3", "9 3 2 3", "4 4", "1 2"];

fn colour(i: usize) -> &'static str {
    COLOURS[i % COLOURS.len()]
}

fn dash(i: usize) -> &'static str {
    DASHES[i % DASHES.len()]
}

/// One axis: its range, scale and ticks (position, label).
#[derive(Debug, Clone)]
pub struct Axis {
    pub label: String,
    pub log: bool,
    pub min: f64,
    pub max: f64,
    pub ticks: Vec<(f64, String)>,
}

impl Axis {
    /// A linear axis from 0 (or below, for negative values) to a round number above the
    /// largest value, with about five ticks.
    pub fn linear(label: &str, values: &[f64], fmt: &dyn Fn(f64) -> String) -> Axis {
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let lo = finite.iter().copied().fold(0.0, f64::min);
        let hi = finite.iter().copied().fold(0.0, f64::max);
        let hi = if hi <= lo { lo + 1.0 } else { hi };
        let step = nice_step((hi - lo) / 5.0);
        let min = (lo / step).floor() * step;
        let max = (hi / step).ceil() * step;
        let mut ticks = Vec::new();
        let mut t = min;
        while t <= max + step * 1e-9 {
            ticks.push((t, fmt(t)));
            t += step;
        }
        Axis {
            label: label.into(),
            log: false,
            min,
            max,
            ticks,
        }
    }

    /// A base-10 logarithmic axis between the 1–2–5 steps around the values, ticked at
    /// those steps (or at decades when there are many).
    pub fn log10(label: &str, values: &[f64], fmt: &dyn Fn(f64) -> String) -> Axis {
        let (lo, hi) = positive_range(values);
        let steps = |v: f64| -> [f64; 3] {
            let d = 10f64.powf(v.log10().floor());
            [d, 2.0 * d, 5.0 * d]
        };
        let min = steps(lo)
            .into_iter()
            .rev()
            .find(|s| *s <= lo * (1.0 + 1e-9))
            .unwrap_or(lo);
        let max = {
            let d = 10f64.powf(hi.log10().floor());
            [d, 2.0 * d, 5.0 * d, 10.0 * d]
                .into_iter()
                .find(|s| *s >= hi * (1.0 - 1e-9))
                .unwrap_or(hi)
        };
        let max = if max <= min { min * 10.0 } else { max };
        let decades = (max / min).log10();
        let mut ticks = Vec::new();
        let mut d = 10f64.powf(min.log10().floor());
        while d <= max * (1.0 + 1e-9) {
            let mults: &[f64] = if decades > 3.0 {
                &[1.0]
            } else {
                &[1.0, 2.0, 5.0]
            };
            for m in mults {
                let t = d * m;
                if t >= min * (1.0 - 1e-9) && t <= max * (1.0 + 1e-9) {
                    ticks.push((t, fmt(t)));
                }
            }
            d *= 10.0;
        }
        Axis {
            label: label.into(),
            log: true,
            min,
            max,
            ticks,
        }
    }

    /// A base-2 logarithmic axis (sizes in bytes), ticked at powers of two, at most nine.
    pub fn log2(label: &str, values: &[f64], fmt: &dyn Fn(f64) -> String) -> Axis {
        let (lo, hi) = positive_range(values);
        let (a, b) = (lo.log2().floor() as i32, hi.log2().ceil() as i32);
        let b = b.max(a + 1);
        let step = ((b - a) as f64 / 8.0).ceil().max(1.0) as i32;
        let ticks = (0..)
            .map(|k| a + k * step)
            .take_while(|e| *e <= b)
            .map(|e| {
                let t = 2f64.powi(e);
                (t, fmt(t))
            })
            .collect();
        Axis {
            label: label.into(),
            log: true,
            min: 2f64.powi(a),
            max: 2f64.powi(b),
            ticks,
        }
    }

    /// Where `v` falls, 0 at `min` and 1 at `max`; outside values are clamped.
    fn frac(&self, v: f64) -> f64 {
        let f = if self.log {
            (v.max(f64::MIN_POSITIVE).ln() - self.min.ln()) / (self.max.ln() - self.min.ln())
        } else {
            (v - self.min) / (self.max - self.min)
        };
        if f.is_finite() {
            f.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

fn positive_range(values: &[f64]) -> (f64, f64) {
    let pos: Vec<f64> = values
        .iter()
        .copied()
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let lo = pos.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = pos.iter().copied().fold(0.0, f64::max);
    if pos.is_empty() {
        (1.0, 10.0)
    } else {
        (lo, hi)
    }
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let raw = if raw > 0.0 && raw.is_finite() {
        raw
    } else {
        1.0
    };
    let d = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * d)
        .find(|s| *s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * d)
}

/// A named line through points.
#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A shaded band (a confidence interval) between `lo` and `hi` at each x.
#[derive(Debug, Clone)]
pub struct Band {
    pub name: String,
    pub points: Vec<(f64, f64, f64)>,
}

/// A labelled straight line across the plot at one x (vertical) or one y (horizontal).
#[derive(Debug, Clone)]
pub struct Marker {
    pub at: f64,
    pub label: String,
}

/// An x–y chart.
#[derive(Debug, Clone)]
pub struct Plot {
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    pub bands: Vec<Band>,
    pub x_marks: Vec<Marker>,
    pub y_marks: Vec<Marker>,
}

const WIDTH: f64 = 660.0;
/// A series of at most this many points has a dot at each (a sweep's sizes, a short
/// observation); past it the dots are only ink — one every few pixels of a 564-pixel plot —
/// and a day's series would carry tens of thousands of them (1.3 MB of a chart).
const MARKED_UP_TO: usize = 120;
const LEFT: f64 = 72.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 30.0;
const PLOT_H: f64 = 240.0;

impl Plot {
    pub fn new(title: impl Into<String>, x: Axis, y: Axis) -> Plot {
        Plot {
            title: title.into(),
            x,
            y,
            series: Vec::new(),
            bands: Vec::new(),
            x_marks: Vec::new(),
            y_marks: Vec::new(),
        }
    }

    pub fn line(mut self, name: impl Into<String>, points: Vec<(f64, f64)>) -> Plot {
        self.series.push(Series {
            name: name.into(),
            points,
        });
        self
    }

    pub fn svg(&self) -> Markup {
        let plot_w = WIDTH - LEFT - RIGHT;
        let px = |v: f64| LEFT + self.x.frac(v) * plot_w;
        let py = |v: f64| TOP + (1.0 - self.y.frac(v)) * PLOT_H;
        let legend: Vec<(String, usize, bool)> = self
            .bands
            .iter()
            .enumerate()
            // A band drawn around its line (named with it) has no entry of its own.
            .filter(|(_, b)| !b.name.is_empty())
            .map(|(i, b)| (b.name.clone(), i, true))
            .chain(
                self.series
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (s.name.clone(), i, false)),
            )
            .collect();
        let places = legend_places(legend.iter().map(|l| l.0.as_str()), LEFT, WIDTH - RIGHT);
        let legend_rows = places.iter().map(|p| p.1 + 1).max().unwrap_or(0);
        let height = TOP + PLOT_H + 48.0 + 18.0 * legend_rows as f64;
        html! {
            svg xmlns="http://www.w3.org/2000/svg" class="plot" role="img"
                viewBox=(format!("0 0 {WIDTH} {height}")) width=(WIDTH) height=(height) {
                title { (self.title) }
                text x=(LEFT) y="16" class="t" { (self.title) }
                @for (t, label) in &self.y.ticks {
                    line x1=(LEFT) x2=(WIDTH - RIGHT) y1=(r(py(*t))) y2=(r(py(*t))) class="grid" {}
                    text x=(LEFT - 6.0) y=(r(py(*t) + 4.0)) class="yl" { (label) }
                }
                @for (t, label) in &self.x.ticks {
                    line x1=(r(px(*t))) x2=(r(px(*t))) y1=(TOP) y2=(TOP + PLOT_H) class="grid" {}
                    text x=(r(px(*t))) y=(TOP + PLOT_H + 16.0) class="xl" { (label) }
                }
                rect x=(LEFT) y=(TOP) width=(plot_w) height=(PLOT_H) class="frame" {}
                text x=(LEFT + plot_w / 2.0) y=(TOP + PLOT_H + 34.0) class="xl" { (self.x.label) }
                // At x = 11 the turned label's glyphs end left of the widest tick label
                // ("1.00 GB/s", right-aligned at LEFT − 6), which they crossed at 14.
                text x="11" y=(TOP + PLOT_H / 2.0) class="xl"
                    transform=(format!("rotate(-90 11 {})", TOP + PLOT_H / 2.0)) { (self.y.label) }
                @for (i, b) in self.bands.iter().enumerate() {
                    polygon class="band" fill=(colour(i)) points=(band_points(b, &px, &py)) {}
                }
                @for m in &self.x_marks {
                    line x1=(r(px(m.at))) x2=(r(px(m.at))) y1=(TOP) y2=(TOP + PLOT_H) class="mark" {}
                    text x=(r(px(m.at) + 3.0)) y=(TOP + 10.0) class="ml" { (m.label) }
                }
                @for m in &self.y_marks {
                    line x1=(LEFT) x2=(WIDTH - RIGHT) y1=(r(py(m.at))) y2=(r(py(m.at))) class="mark" {}
                    text x=(LEFT + 4.0) y=(r(py(m.at) - 3.0)) class="ml" { (m.label) }
                }
                @for (i, s) in self.series.iter().enumerate() {
                    polyline class="s" stroke=(colour(i)) stroke-dasharray=(dash(i))
                        points=(line_points(&s.points, &px, &py)) {}
                    @if s.points.len() <= MARKED_UP_TO {
                        @for (x, y) in &s.points {
                            circle cx=(r(px(*x))) cy=(r(py(*y))) r="2.5" fill=(colour(i)) {}
                        }
                    }
                }
                @for ((name, i, band), (lx, row)) in legend.iter().zip(&places) {
                    @let lx = *lx;
                    @let ly = TOP + PLOT_H + 54.0 + *row as f64 * 18.0;
                    @if *band {
                        rect x=(lx) y=(ly - 8.0) width="22" height="8" class="band" fill=(colour(*i)) {}
                    } @else {
                        line x1=(lx) x2=(lx + 22.0) y1=(ly - 4.0) y2=(ly - 4.0) class="s"
                            stroke=(colour(*i)) stroke-dasharray=(dash(*i)) {}
                    }
                    text x=(lx + 28.0) y=(ly) class="lg" { (name) }
                }
            }
        }
    }
}

fn r(v: f64) -> String {
    format!("{v:.1}")
}

fn line_points(pts: &[(f64, f64)], px: &dyn Fn(f64) -> f64, py: &dyn Fn(f64) -> f64) -> String {
    pts.iter()
        .map(|(x, y)| format!("{},{}", r(px(*x)), r(py(*y))))
        .collect::<Vec<_>>()
        .join(" ")
}

fn band_points(b: &Band, px: &dyn Fn(f64) -> f64, py: &dyn Fn(f64) -> f64) -> String {
    let upper = b.points.iter().map(|(x, _, hi)| (*x, *hi));
    let lower = b.points.iter().rev().map(|(x, lo, _)| (*x, *lo));
    line_points(&upper.chain(lower).collect::<Vec<_>>(), px, py)
}

/// One lane of a lane chart: a row's samples (value, culled), its centre, a whisker, and
/// a note written at the right (a verdict).
#[derive(Debug, Clone, Default)]
pub struct Lane {
    pub label: String,
    pub dots: Vec<(f64, bool)>,
    pub centre: Option<f64>,
    pub whisker: Option<(f64, f64)>,
    pub note: String,
    /// A CSS class for the note ("faster", "slower", "same").
    pub tone: &'static str,
}

/// Rows as lanes on one shared x axis, with a reference line (1 for ratios).
#[derive(Debug, Clone)]
pub struct Lanes {
    pub title: String,
    pub x: Axis,
    pub lanes: Vec<Lane>,
    pub reference: Option<f64>,
}

const LANE_H: f64 = 16.0;
const LABEL_W: f64 = 210.0;
const NOTE_W: f64 = 170.0;

impl Lanes {
    pub fn svg(&self) -> Markup {
        let plot_w = WIDTH + 120.0 - LABEL_W - NOTE_W;
        let width = WIDTH + 120.0;
        let px = |v: f64| LABEL_W + self.x.frac(v) * plot_w;
        let top = TOP;
        let plot_h = LANE_H * self.lanes.len().max(1) as f64;
        let height = top + plot_h + 40.0;
        html! {
            svg xmlns="http://www.w3.org/2000/svg" class="lanes" role="img"
                viewBox=(format!("0 0 {width} {height}")) width=(width) height=(height) {
                title { (self.title) }
                text x="4" y="16" class="t" { (self.title) }
                @for (t, label) in &self.x.ticks {
                    line x1=(r(px(*t))) x2=(r(px(*t))) y1=(top) y2=(top + plot_h) class="grid" {}
                    text x=(r(px(*t))) y=(top + plot_h + 14.0) class="xl" { (label) }
                }
                text x=(LABEL_W + plot_w / 2.0) y=(top + plot_h + 30.0) class="xl" { (self.x.label) }
                @if let Some(at) = self.reference {
                    line x1=(r(px(at))) x2=(r(px(at))) y1=(top) y2=(top + plot_h) class="ref" {}
                }
                @for (k, lane) in self.lanes.iter().enumerate() {
                    @let y = top + LANE_H * (k as f64 + 0.5);
                    @if k % 2 == 1 {
                        rect x="0" y=(r(y - LANE_H / 2.0)) width=(width) height=(LANE_H) class="alt" {}
                    }
                    text x=(LABEL_W - 6.0) y=(r(y + 4.0)) class="yl" { (lane.label) }
                    @if let Some((lo, hi)) = lane.whisker {
                        line x1=(r(px(lo))) x2=(r(px(hi))) y1=(r(y)) y2=(r(y)) class="whisker" {}
                        line x1=(r(px(lo))) x2=(r(px(lo))) y1=(r(y - 4.0)) y2=(r(y + 4.0)) class="whisker" {}
                        line x1=(r(px(hi))) x2=(r(px(hi))) y1=(r(y - 4.0)) y2=(r(y + 4.0)) class="whisker" {}
                    }
                    @for (v, culled) in &lane.dots {
                        @if *culled {
                            path class="culled" d=(cross(px(*v), y)) {}
                        } @else {
                            circle class="dot" cx=(r(px(*v))) cy=(r(y)) r="2.2" {}
                        }
                    }
                    @if let Some(c) = lane.centre {
                        rect class="centre" x=(r(px(c) - 1.5)) y=(r(y - 6.0)) width="3" height="12" {}
                    }
                    text x=(LABEL_W + plot_w + 8.0) y=(r(y + 4.0)) class=(format!("note {}", lane.tone)) { (lane.note) }
                }
            }
        }
    }
}

/// An × at (x, y): a culled sample.
fn cross(x: f64, y: f64) -> String {
    let d = 3.0;
    format!(
        "M{} {}L{} {}M{} {}L{} {}",
        r(x - d),
        r(y - d),
        r(x + d),
        r(y + d),
        r(x - d),
        r(y + d),
        r(x + d),
        r(y - d)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axes_round_to_one_two_five_and_clamp() {
        let a = Axis::log10("x", &[0.98, 1.3], &|v| format!("{v}"));
        assert_eq!((a.min, a.max), (0.5, 2.0));
        let ticks: Vec<f64> = a.ticks.iter().map(|t| t.0).collect();
        assert_eq!(ticks, [0.5, 1.0, 2.0]);
        assert_eq!(a.frac(0.1), 0.0);
        assert_eq!(a.frac(1e9), 1.0);
        assert!((a.frac(1.0) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn linear_axes_start_at_zero_with_round_steps() {
        let a = Axis::linear("y", &[3.2, 17.0], &|v| format!("{v}"));
        assert_eq!((a.min, a.max), (0.0, 20.0));
        assert_eq!(a.ticks.len(), 5);
    }

    #[test]
    fn byte_axes_tick_at_powers_of_two() {
        let a = Axis::log2("bytes", &[4096.0, 64.0 * 1024.0 * 1024.0], &|v| {
            format!("{v}")
        });
        assert_eq!(a.min, 4096.0);
        assert!(a.ticks.len() <= 9 && a.ticks.len() >= 5, "{:?}", a.ticks);
        assert!(a.ticks.iter().all(|(t, _)| t.log2().fract() == 0.0));
    }

    #[test]
    fn labels_are_escaped_in_the_svg() {
        let x = Axis::linear("<x>", &[1.0], &|v| format!("{v}"));
        let p = Plot::new("<script>alert(1)</script>", x.clone(), x)
            .line("\"><img src=x>", vec![(0.0, 0.0), (1.0, 1.0)])
            .svg()
            .into_string();
        assert!(!p.contains("<script>"), "{p}");
        assert!(p.contains("&lt;script&gt;"));
        assert!(!p.contains("<img"));
    }
}

/// Where each legend entry goes: its left edge and its row. Entries flow left to right,
/// each as wide as its text (a sample line of 22 px, a gap, about 6.5 px a character),
/// and a new row starts where the next would pass `right`: a long entry ("ideal: one
/// copy's time × max(1, N / 2 CPUs)") is never cut off by the next one or the edge.
pub fn legend_places<'a>(
    names: impl Iterator<Item = &'a str>,
    left: f64,
    right: f64,
) -> Vec<(f64, usize)> {
    const SAMPLE: f64 = 28.0;
    const CHAR: f64 = 6.5;
    const GAP: f64 = 18.0;
    let mut out = Vec::new();
    let (mut x, mut row) = (left, 0);
    for name in names {
        let w = SAMPLE + CHAR * name.chars().count() as f64;
        if x > left && x + w > right {
            row += 1;
            x = left;
        }
        out.push((x, row));
        x += w + GAP;
    }
    out
}

#[cfg(test)]
mod legend_tests {
    use super::legend_places;

    #[test]
    fn long_legend_entries_get_rows_of_their_own_and_never_overlap() {
        let names = [
            "average real time per copy",
            "CPU time per copy",
            "ideal: one copy's time × max(1, N / 2 CPUs)",
        ];
        let places = legend_places(names.iter().copied(), 60.0, 700.0);
        for (k, ((x, row), name)) in places.iter().zip(names).enumerate() {
            let end = x + 28.0 + 6.5 * name.chars().count() as f64;
            assert!(end <= 700.0, "{name} ends at {end}");
            if let Some((next_x, next_row)) = places.get(k + 1) {
                assert!(next_row > row || *next_x > end, "{name} overlaps the next");
            }
        }
        assert_eq!(places[0], (60.0, 0));
    }
}

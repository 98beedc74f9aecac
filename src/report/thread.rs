//! The `thread` family's views: the time of one token pass round a ring of processes
//! against the working set each touches (lmbench's `lat_ctx -s`), one line per ring size,
//! with seed 001's `ctx.switch` beside it; and a thread's creation beside a process's
//! (`thread.create`, `proc.fork.0`). As a text chart and an HTML chart.

use maud::{html, Markup};

use super::html::svg::{Axis, Marker, Plot};
use super::net::Bars;
use super::views::thread::{creation, one_switch, rings, SWITCH};
use crate::model::unit::format_seconds;
use crate::model::Run;

const SWITCH_LABEL: &str = "ctx.switch ÷ 2 (seed 001: one of a signal round trip's two switches)";

/// The text charts: the ring passes (ctx.switch's one switch last, as a yardstick) and
/// thread creation beside process creation.
pub fn chart(run: &Run, bars: Bars) -> String {
    let mut out = Vec::new();
    let rings = rings(run);
    if !rings.is_empty() {
        let mut rows: Vec<(String, f64, String, String)> = rings
            .iter()
            .map(|p| {
                (
                    format!("{} processes, {}K", p.processes, p.set_kib),
                    p.per_pass_s,
                    format_seconds(p.per_pass_s),
                    String::new(),
                )
            })
            .collect();
        if let Some(s) = one_switch(run) {
            rows.push((SWITCH.into(), s, format_seconds(s), SWITCH_LABEL.into()));
        }
        out.push(bars(
            "ctx.ring: time per token pass (a switch, a pipe write and read, the working-set \
             sum) against processes and working set (lat_ctx -s)",
            &rows,
            false,
        ));
    }
    let creation: Vec<(String, f64, String, String)> = creation(run)
        .into_iter()
        .map(|c| {
            (
                c.id.to_string(),
                c.per_op_s,
                format_seconds(c.per_op_s),
                c.what.to_string(),
            )
        })
        .collect();
    if !creation.is_empty() {
        out.push(bars(
            "thread.create beside proc.fork.0: time to make and end one",
            &creation,
            true,
        ));
    }
    out.join("\n")
}

/// The HTML chart: µs per token pass against the working set, one line per ring size,
/// one switch of ctx.switch as a horizontal line; a table with thread and process
/// creation under it.
pub fn html_chart(run: &Run) -> Markup {
    let rings = rings(run);
    if rings.is_empty() {
        return html! {};
    }
    let sets: Vec<f64> = rings.iter().map(|p| p.set_kib as f64).collect();
    let switch = one_switch(run);
    let us: Vec<f64> = rings
        .iter()
        .map(|p| p.per_pass_s * 1e6)
        .chain(switch.map(|s| s * 1e6))
        .collect();
    let mut plot = Plot::new(
        "ctx.ring: time per token pass against working set",
        Axis::linear("working set per process (KiB)", &sets, &|v| format!("{v}")),
        Axis::linear("µs per token pass", &us, &|v| format!("{v}")),
    );
    let mut sizes: Vec<usize> = rings.iter().map(|p| p.processes).collect();
    sizes.dedup();
    for n in sizes {
        let line: Vec<(f64, f64)> = rings
            .iter()
            .filter(|p| p.processes == n)
            .map(|p| (p.set_kib as f64, p.per_pass_s * 1e6))
            .collect();
        plot = plot.line(format!("{n} processes"), line);
    }
    if let Some(s) = switch {
        plot.y_marks = vec![Marker {
            at: s * 1e6,
            label: "ctx.switch ÷ 2".into(),
        }];
    }
    let creation: Vec<(&str, f64)> = creation(run)
        .into_iter()
        .map(|c| (c.id, c.per_op_s))
        .collect();
    html! {
        h3 { "Context switches with a working set" }
        figure.chart {
            (plot.svg())
            figcaption {
                "A token passed round a ring of processes, each summing its own working set \
                 when it holds it, as lmbench's lat_ctx -s does; a pass includes the pipe write \
                 and read and the sum (lat_ctx subtracts them, the rows do not). The horizontal \
                 line: " (SWITCH_LABEL) "."
            }
            // Folded: the chart is what is read; the numbers are there to check it.
            details.numbers {
                summary { "the numbers drawn" }
                table.data {
                    thead { tr { th { "row" } th { "processes" } th { "working set" } th { "per pass" } } }
                    tbody {
                        @for p in &rings {
                            tr {
                                td { (p.id) }
                                td.n { (p.processes) }
                                td.n { (p.set_kib) " KiB" }
                                td.n { (format_seconds(p.per_pass_s)) }
                            }
                        }
                        @for (id, s) in &creation {
                            tr { td { (id) } td.n {} td.n {} td.n { (format_seconds(*s)) } }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Basis, BenchResult, Better, Status, Summary, Unit};

    fn row(id: &str, seconds: f64, basis: Basis) -> BenchResult {
        BenchResult {
            summary: Some(Summary::around(seconds, 0.0)),
            basis: Some(basis),
            ..BenchResult::new(id, "thread", "x", Unit::SecondsPerOp, Better::Lower, None)
        }
    }

    fn plain(title: &str, rows: &[(String, f64, String, String)], log: bool) -> String {
        let mut s = format!("{title} log={log}\n");
        for r in rows {
            s.push_str(&format!("{} [{}] {}\n", r.0, r.2, r.3));
        }
        s
    }

    fn sample_run() -> Run {
        Run::of(vec![
            row("ctx.ring.16.64k", 16.0 * 9e-6, Basis::job(16, "token pass")),
            row("ctx.ring.2.0k", 2.0 * 3e-6, Basis::job(2, "token pass")),
            row("ctx.ring.2.64k", 2.0 * 6e-6, Basis::job(2, "token pass")),
            row("ctx.switch", 5e-6, Basis::per("signal round trip")),
            row("thread.create", 20e-6, Basis::per("thread create + join")),
            row("proc.fork.0", 130e-6, Basis::per("fork")),
        ])
    }

    #[test]
    fn a_lap_is_divided_into_its_passes_and_ctx_switch_into_two_switches() {
        let run = sample_run();
        let r = rings(&run);
        let shapes: Vec<(usize, usize)> = r.iter().map(|p| (p.processes, p.set_kib)).collect();
        assert_eq!(shapes, [(2, 0), (2, 64), (16, 64)]);
        assert!((r[0].per_pass_s - 3e-6).abs() < 1e-15, "{:?}", r[0]);
        assert!((r[2].per_pass_s - 9e-6).abs() < 1e-15, "{:?}", r[2]);
        let c = chart(&run, plain);
        assert!(c.contains("2 processes, 0K [3.00 µs]"), "{c}");
        assert!(c.contains("16 processes, 64K [9.00 µs]"), "{c}");
        assert!(c.contains("ctx.switch [2.50 µs] ctx.switch ÷ 2"), "{c}");
        assert!(
            c.contains("thread.create [20.0 µs] pthread_create + join"),
            "{c}"
        );
        assert!(c.contains("proc.fork.0 [130 µs] fork + exit + wait"), "{c}");
    }

    #[test]
    fn the_html_chart_has_a_line_per_ring_size_and_the_switch_line() {
        let h = html_chart(&sample_run()).into_string();
        assert_eq!(h.matches("<polyline").count(), 2, "{h}");
        assert!(
            h.contains("2 processes") && h.contains("16 processes"),
            "{h}"
        );
        assert!(h.contains("ctx.switch ÷ 2"), "{h}");
        assert!(h.contains("130 µs"), "{h}");
    }

    #[test]
    fn rows_that_did_not_run_are_left_out_and_nothing_is_drawn_without_rings() {
        let mut run = sample_run();
        run.results[0].status = Status::Skipped { reason: "x".into() };
        assert_eq!(rings(&run).len(), 2);
        let none = Run::of(vec![row(
            "ctx.switch",
            5e-6,
            Basis::per("signal round trip"),
        )]);
        assert!(html_chart(&none).into_string().is_empty());
        assert!(!chart(&none, plain).contains("ctx.ring"));
    }
}

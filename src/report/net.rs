//! The `net` family's sweeps: throughput against message size per transport, with the
//! CPU per byte at each end and the softirq time seen, as a table, a text chart and an
//! HTML chart; seed 001 §3.2.7's remark on 1024-byte messages beside them.

use maud::{html, Markup};

use super::html::svg::{Axis, Marker, Plot};
use super::table::{new_table, right};
use super::views::net::sweeps;
use crate::model::details::net::{NetSweep, SizePoint};
use crate::model::unit::{format_rate, human};
use crate::model::Run;

/// Seed 001 §3.2.7's remark, set beside every view of the curve.
pub const PAPER_REMARK: &str = "seed 001 §3.2.7 (4.2BSD on a VAX, Ethernet): small mbufs made \
     1024 bytes the throughput-optimal message size, and user processes \"faced large \
     degradations for some arbitrary sizes\", above all over TCP";

/// A point's label: its size, and for TCP whether Nagle's algorithm was on.
fn label(p: &SizePoint) -> String {
    match p.nodelay {
        Some(false) => format!("{} (Nagle)", human(p.message_bytes as u64)),
        _ => human(p.message_bytes as u64),
    }
}

fn ns(v: f64) -> String {
    format!("{v:.2}")
}

/// Today's best size of a sweep (TCP_NODELAY on where it applies).
fn best(d: &NetSweep) -> Option<&SizePoint> {
    d.points
        .iter()
        .filter(|p| p.nodelay != Some(false))
        .max_by(|a, b| a.bytes_per_second.total_cmp(&b.bytes_per_second))
}

/// Its place among the tables printed after a run's main table (`report::extra`).
#[linkme::distributed_slice(crate::model::catalogue::TABLES)]
fn registered_table() -> crate::model::catalogue::Table {
    crate::model::catalogue::Table {
        order: 20,
        render: tables,
    }
}

/// One table per sweep, for `run` and `show`.
pub fn tables(run: &Run) -> String {
    let all = sweeps(run);
    if all.is_empty() {
        return String::new();
    }
    let mut out = format!("Network throughput by message size ({PAPER_REMARK}).\n");
    for (id, d) in &all {
        let mut t = new_table(&[
            "message",
            "delivered/s",
            "lost",
            "sender ns/B",
            "receiver ns/B",
            "softirq ns/B",
        ]);
        right(&mut t, &[0, 1, 2, 3, 4, 5]);
        for p in &d.points {
            t.add_row(vec![
                label(p),
                format_rate(p.bytes_per_second),
                match p.datagrams_lost {
                    Some(n) => format!("{n} ({:.1}%)", p.loss() * 100.0),
                    None => String::new(),
                },
                ns(p.sender_ns_per_byte),
                ns(p.receiver_ns_per_byte),
                p.softirq_ns_per_byte.map(ns).unwrap_or_else(|| "—".into()),
            ]);
        }
        let best = best(d)
            .map(|p| {
                format!(
                    "; best today {} at {}",
                    format_rate(p.bytes_per_second),
                    human(p.message_bytes as u64)
                )
            })
            .unwrap_or_default();
        let skipped: Vec<String> = d
            .skipped
            .iter()
            .map(|s| format!("{} ({})", human(s.message_bytes as u64), s.why))
            .collect();
        out.push_str(&format!(
            "\n{id} ({}): {}; fastest of {} per size{best}\n{t}\n",
            d.transport, d.sampled, d.repeats
        ));
        if !skipped.is_empty() {
            out.push_str(&format!("not measured: {}\n", skipped.join(", ")));
        }
        out.push_str(&format!("CPU attribution: {}\n", d.cpu_attribution));
    }
    out
}

/// A text-chart drawer: a title, bars of (label, value, shown value, mark), log scale.
pub type Bars = fn(&str, &[(String, f64, String, String)], bool) -> String;

/// The text chart: one bar per size, log scale, 1024 bytes marked with the paper's
/// remark and today's best marked as such.
pub fn chart(run: &Run, bars: Bars) -> String {
    sweeps(run)
        .iter()
        .map(|(id, d)| {
            let top = best(d).map(|p| (p.message_bytes, p.nodelay));
            let rows: Vec<(String, f64, String, String)> = d
                .points
                .iter()
                .map(|p| {
                    let mut mark = Vec::new();
                    if p.message_bytes == 1024 && p.nodelay != Some(false) {
                        mark.push("001 §3.2.7: the best size on the VAX");
                    }
                    if top == Some((p.message_bytes, p.nodelay)) {
                        mark.push("today's best");
                    }
                    let lost = match p.datagrams_lost {
                        Some(n) if n > 0 => format!(", {:.0}% lost", p.loss() * 100.0),
                        _ => String::new(),
                    };
                    (
                        label(p),
                        p.bytes_per_second,
                        format!("{}{lost}", format_rate(p.bytes_per_second)),
                        mark.join("; "),
                    )
                })
                .collect();
            bars(
                &format!(
                    "{id}: throughput against message size ({}, log scale)",
                    d.transport
                ),
                &rows,
                true,
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The HTML chart: bytes delivered per second against message size, log–log, one line
/// per transport (TCP with and without Nagle), 1024 bytes marked.
pub fn html_chart(run: &Run) -> Markup {
    let all = sweeps(run);
    if all.iter().all(|(_, d)| d.points.is_empty()) {
        return html! {};
    }
    let points: Vec<&SizePoint> = all.iter().flat_map(|(_, d)| &d.points).collect();
    let sizes: Vec<f64> = points.iter().map(|p| p.message_bytes as f64).collect();
    let rates: Vec<f64> = points
        .iter()
        .map(|p| p.bytes_per_second)
        .filter(|v| *v > 0.0)
        .collect();
    let mut plot = Plot::new(
        "net: throughput against message size",
        Axis::log2("message size (bytes, log scale)", &sizes, &|v| {
            human(v as u64)
        }),
        Axis::log10("bytes delivered per second (log scale)", &rates, &|v| {
            format_rate(v)
        }),
    );
    for (id, d) in &all {
        for nagle in [false, true] {
            let line: Vec<(f64, f64)> = d
                .points
                .iter()
                .filter(|p| (p.nodelay == Some(false)) == nagle && p.bytes_per_second > 0.0)
                .map(|p| (p.message_bytes as f64, p.bytes_per_second))
                .collect();
            if !line.is_empty() {
                let name = if nagle {
                    format!("{id} (Nagle on)")
                } else {
                    id.to_string()
                };
                plot = plot.line(name, line);
            }
        }
    }
    plot.x_marks = vec![Marker {
        at: 1024.0,
        label: "1024 B: 001's best".into(),
    }];
    html! {
        h3 { "Network throughput against message size" }
        figure.chart {
            (plot.svg())
            figcaption {
                "Powers of two and odd sizes between them; each point is the fastest of its \
                 repeats. Beside it, " (PAPER_REMARK) "."
            }
            // Folded: the chart is what is read; the numbers are there to check it.
            details.numbers {
                summary { "the numbers drawn" }
                table.data {
                    thead { tr { th { "row" } th { "message" } th { "delivered/s" } th { "lost" }
                        th { "sender ns/B" } th { "receiver ns/B" } th { "softirq ns/B" } } }
                    tbody {
                        @for (id, d) in &all {
                            @for p in &d.points {
                                tr {
                                    td { (id) }
                                    td.n { (label(p)) }
                                    td.n { (format_rate(p.bytes_per_second)) }
                                    td.n { (p.datagrams_lost.map(|n| n.to_string()).unwrap_or_default()) }
                                    td.n { (ns(p.sender_ns_per_byte)) }
                                    td.n { (ns(p.receiver_ns_per_byte)) }
                                    td.n { (p.softirq_ns_per_byte.map(ns).unwrap_or_default()) }
                                }
                            }
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
    use crate::model::details::micro::Partnership;
    use crate::model::details::Details;
    use crate::model::{BenchResult, Better, Placement, Unit};

    fn point(bytes: usize, rate: f64, nodelay: Option<bool>, lost: Option<u64>) -> SizePoint {
        let delivered = 1000 * bytes as u64 - lost.unwrap_or(0) * bytes as u64;
        SizePoint {
            message_bytes: bytes,
            nodelay,
            messages_sent: 1000,
            bytes_sent: 1000 * bytes as u64,
            bytes_delivered: delivered,
            datagrams_lost: lost,
            seconds: 0.01,
            bytes_per_second: rate,
            sender_ns_per_byte: 1.5,
            receiver_ns_per_byte: 0.5,
            softirq_ns_per_byte: None,
        }
    }

    fn run_with(id: &str, points: Vec<SizePoint>) -> Run {
        let d = NetSweep {
            partner: Partnership {
                placement: Placement::Free,
                parent_cpu: None,
                child_cpu: None,
                child_cpu_time: None,
            },
            transport: "udp over 127.0.0.1".into(),
            sampled: "quick mode: 3 sizes".into(),
            repeats: 1,
            points,
            skipped: Vec::new(),
            headline_bytes: 8192,
            cpu_attribution: "softirq: ticks".into(),
            addresses: Vec::new(),
        };
        let r = BenchResult {
            details: Some(Details::of(&d)),
            ..BenchResult::new(id, "net", "x", Unit::BytesPerSecond, Better::Higher, None)
        };
        Run::of(vec![r])
    }

    #[test]
    fn loss_is_shown_and_1024_carries_the_paper_s_remark() {
        let run = run_with(
            "net.udp.bw",
            vec![
                point(1023, 1e8, None, Some(0)),
                point(1024, 2e8, None, Some(250)),
                point(8192, 9e8, None, Some(0)),
            ],
        );
        let t = tables(&run);
        assert!(t.contains("250 (25.0%)"), "{t}");
        assert!(t.contains("best today 900 MB/s at 8K"), "{t}");
        assert!(t.contains("1024 bytes the throughput-optimal"), "{t}");
        let bars = |title: &str, rows: &[(String, f64, String, String)], _log: bool| {
            let mut s = format!("{title}\n");
            for r in rows {
                s.push_str(&format!("{} {} {}\n", r.0, r.2, r.3));
            }
            s
        };
        let c = chart(&run, bars);
        assert!(c.contains("1K 200 MB/s, 25% lost 001 §3.2.7"), "{c}");
        assert!(c.contains("8K 900 MB/s today's best"), "{c}");
        let h = html_chart(&run).into_string();
        assert!(h.contains("1024 B: 001"), "{}", &h[..200.min(h.len())]);
    }

    #[test]
    fn nagle_points_are_labelled_and_never_the_best() {
        let run = run_with(
            "net.tcp.bw",
            vec![
                point(64, 5e7, Some(true), None),
                point(64, 9e9, Some(false), None),
            ],
        );
        let t = tables(&run);
        assert!(t.contains("64 (Nagle)"), "{t}");
        assert!(t.contains("best today 50.0 MB/s at 64"), "{t}");
        assert!(tables(&Run::of(Vec::new())).is_empty());
    }
}

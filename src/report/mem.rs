//! The `mem` family's sweeps: bytes per second against buffer size for each kind of pass
//! (lmbench's bw_mem rd, wr, cp, bzero), one thread and one per CPU, with the sizes of
//! the caches the system reports marked: as a text chart and an HTML chart.

use maud::{html, Markup};

use super::html::svg::{Axis, Marker, Plot};
use super::net::Bars;
use super::views::mem::sweeps;
use crate::model::details::mem::MemSweep;
use crate::model::unit::{format_rate, human};
use crate::model::Run;

/// What a bar of size `bytes` is marked with: the caches whose end it is the last size
/// within (as the cache chart marks them), and the headline size.
fn mark(d: &MemSweep, i: usize) -> String {
    let bytes = d.sizes[i].bytes;
    let next = d.sizes.get(i + 1).map_or(u64::MAX, |n| n.bytes);
    let mut marks: Vec<String> = d
        .caches
        .iter()
        .filter(|c| bytes <= c.bytes && next > c.bytes)
        .map(|c| format!("last size within {}", c.name))
        .collect();
    if bytes == d.headline_bytes {
        marks.push(format!("headline ({})", d.level_of(bytes)));
    }
    marks.join("; ")
}

/// The text chart: per sweep, one bar per size (the best of its timings), linear.
pub fn chart(run: &Run, bars: Bars) -> String {
    sweeps(run)
        .iter()
        .map(|(id, d)| {
            let rows: Vec<(String, f64, String, String)> = d
                .sizes
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    (
                        human(p.bytes),
                        p.best_bps,
                        format_rate(p.best_bps),
                        mark(d, i),
                    )
                })
                .collect();
            let threads = if d.threads == 1 {
                "one thread".to_string()
            } else {
                format!("{} threads", d.threads)
            };
            bars(
                &format!(
                    "{id}: bytes per second against buffer size ({threads}; best of {} per size; {})",
                    d.repeats, d.sampled
                ),
                &rows,
                false,
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The HTML chart: bytes per second against buffer size, log–log, one line per row (one
/// plot for one thread, one for a thread per CPU), the caches' sizes marked.
pub fn html_chart(run: &Run) -> Markup {
    let all = sweeps(run);
    if all.is_empty() {
        return html! {};
    }
    let sizes: Vec<f64> = all
        .iter()
        .flat_map(|(_, d)| d.sizes.iter().map(|p| p.bytes as f64))
        .collect();
    let rates: Vec<f64> = all
        .iter()
        .flat_map(|(_, d)| d.sizes.iter().map(|p| p.best_bps))
        .filter(|v| *v > 0.0)
        .collect();
    // One plot for one thread and one for a thread per CPU: four lines each, so no two
    // share a colour and dash.
    let plots: Vec<Plot> = [(false, "one thread"), (true, "a thread per CPU")]
        .into_iter()
        .filter_map(|(many, who)| {
            let group: Vec<&(&str, MemSweep)> = all
                .iter()
                .filter(|(_, d)| (d.threads > 1) == many)
                .collect();
            let first = group.first()?;
            let mut plot = Plot::new(
                format!("mem: bandwidth against buffer size, {who}"),
                Axis::log2("buffer per thread (bytes, log scale)", &sizes, &|v| {
                    human(v as u64)
                }),
                Axis::log10("bytes per second (log scale)", &rates, &|v| format_rate(v)),
            );
            for (id, d) in &group {
                let line: Vec<(f64, f64)> = d
                    .sizes
                    .iter()
                    .filter(|p| p.best_bps > 0.0)
                    .map(|p| (p.bytes as f64, p.best_bps))
                    .collect();
                plot = plot.line(*id, line);
            }
            // Every sweep reads the same sysfs caches.
            plot.x_marks = first
                .1
                .caches
                .iter()
                .map(|c| Marker {
                    at: c.bytes as f64,
                    label: c.name.clone(),
                })
                .collect();
            Some(plot)
        })
        .collect();
    let sampled: Vec<&str> = {
        let mut s: Vec<&str> = all.iter().map(|(_, d)| d.sampled.as_str()).collect();
        s.dedup();
        s
    };
    html! {
        h3 { "Memory bandwidth against buffer size" }
        figure.chart {
            @for plot in &plots { (plot.svg()) }
            figcaption {
                "Read, write, copy and zero passes as lmbench's bw_mem makes them; each point \
                 is the best of its timings; dashed verticals: the caches sysfs reports. Sizes: "
                (sampled.join("; ")) "."
            }
            // Folded: the chart is what is read; the numbers are there to check it.
            details.numbers {
                summary { "the numbers drawn" }
                table.data {
                    thead { tr { th { "row" } th { "threads" } th { "buffer" } th { "best/s" }
                        th { "median/s" } th { "level" } } }
                    tbody {
                        @for (id, d) in &all {
                            @for p in &d.sizes {
                                tr {
                                    td { (id) }
                                    td.n { (d.threads) }
                                    td.n { (human(p.bytes)) }
                                    td.n { (format_rate(p.best_bps)) }
                                    td.n { (format_rate(p.median_bps)) }
                                    td { (d.level_of(p.bytes)) }
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
    use crate::model::details::cache::NamedCache;
    use crate::model::details::mem::BandPoint;
    use crate::model::details::Details;
    use crate::model::{BenchResult, Better, Unit};

    fn sweep(threads: usize, points: &[(u64, f64)]) -> MemSweep {
        MemSweep {
            op: "rd".into(),
            loop_desc: "one load per 16 bytes".into(),
            threads,
            sizes: points
                .iter()
                .map(|&(bytes, bps)| BandPoint {
                    bytes,
                    best_bps: bps,
                    median_bps: bps * 0.9,
                })
                .collect(),
            caches: vec![
                NamedCache {
                    name: "L1d 32K".into(),
                    bytes: 32 << 10,
                },
                NamedCache {
                    name: "L2 512K".into(),
                    bytes: 512 << 10,
                },
            ],
            headline_bytes: 128 << 20,
            sampled: "quick mode: half of each cache level's size and the headline size only"
                .into(),
            repeats: 5,
        }
    }

    fn run_of(rows: Vec<(&str, MemSweep)>) -> Run {
        Run::of(
            rows.into_iter()
                .map(|(id, d)| BenchResult {
                    details: Some(Details::of(&d)),
                    ..BenchResult::new(id, "mem", "x", Unit::BytesPerSecond, Better::Higher, None)
                })
                .collect(),
        )
    }

    fn plain(title: &str, rows: &[(String, f64, String, String)], log: bool) -> String {
        let mut s = format!("{title} log={log}\n");
        for r in rows {
            s.push_str(&format!("{}={} [{}] {}\n", r.0, r.1, r.2, r.3));
        }
        s
    }

    #[test]
    fn each_size_is_a_bar_and_the_cache_ends_and_headline_are_marked() {
        let run = run_of(vec![(
            "mem.rd",
            sweep(
                1,
                &[(16 << 10, 9e10), (256 << 10, 5e10), (128 << 20, 1.2e10)],
            ),
        )]);
        let c = chart(&run, plain);
        assert!(
            c.starts_with("mem.rd: bytes per second against buffer size (one thread; best of 5"),
            "{c}"
        );
        assert!(
            c.contains("16K=90000000000 [90.0 GB/s] last size within L1d 32K\n"),
            "{c}"
        );
        assert!(
            c.contains("256K=50000000000 [50.0 GB/s] last size within L2 512K\n"),
            "{c}"
        );
        assert!(
            c.contains("128M=12000000000 [12.0 GB/s] headline (memory)\n"),
            "{c}"
        );
        assert!(c.contains("log=false"), "{c}");
    }

    #[test]
    fn the_html_chart_has_a_line_per_row_the_caches_and_every_figure() {
        let run = run_of(vec![
            ("mem.rd", sweep(1, &[(16 << 10, 9e10), (128 << 20, 1.2e10)])),
            (
                "mem.rd.all_cpus",
                sweep(2, &[(16 << 10, 1.7e11), (128 << 20, 1.9e10)]),
            ),
        ]);
        let h = html_chart(&run).into_string();
        assert!(h.contains("Memory bandwidth against buffer size"), "{h}");
        assert!(h.contains("mem.rd.all_cpus"), "{h}");
        assert!(h.contains("L1d 32K") && h.contains("L2 512K"), "{h}");
        for v in ["90.0 GB/s", "170 GB/s", "19.0 GB/s", "81.0 GB/s"] {
            assert!(h.contains(v), "{v} missing");
        }
        assert_eq!(h.matches("<polyline").count(), 2, "{h}");
    }

    #[test]
    fn nothing_is_drawn_without_a_mem_row_or_with_an_empty_sweep() {
        assert!(chart(&Run::of(Vec::new()), plain).is_empty());
        assert!(html_chart(&Run::of(Vec::new())).into_string().is_empty());
        let empty = run_of(vec![("mem.wr", sweep(1, &[]))]);
        assert!(chart(&empty, plain).is_empty());
        assert!(html_chart(&empty).into_string().is_empty());
    }
}

//! The seeds' graphs, drawn from the families' typed records: the memory hierarchy
//! (seed 000 Table 4), paging against the Gaussian spread (seed 001 Tables 6–8), time
//! against concurrent copies with its knee (seed 000 Table 9) and the exerciser's sweep
//! (seed 004's graphs). Each returns nothing when its family is not in the run.

use maud::{html, Markup};

use super::svg::{Axis, Marker, Plot};
use crate::model::details::vm::Paging;
use crate::model::exercise::{elapsed_by_size, trial_means, Report, Times};
use crate::model::unit::{format_seconds, human};
use crate::model::{knee, Run};
use crate::report::views;

pub fn all(run: &Run) -> Markup {
    html! {
        (cache(run))
        (paging(run))
        (load_cpu(run))
        (load_script(run))
        (sweep(run))
        (crate::report::net::html_chart(run))
        (crate::report::mem::html_chart(run))
        (crate::report::thread::html_chart(run))
    }
}

fn secs(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else {
        format_seconds(v)
    }
}

fn count(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

/// A chart and the table of its numbers, under a heading.
fn figure(
    heading: &str,
    caption: &str,
    plots: Vec<Plot>,
    head: &[&str],
    rows: Vec<Vec<String>>,
) -> Markup {
    html! {
        h3 { (heading) }
        figure.chart {
            @for p in &plots { (p.svg()) }
            figcaption { (caption) }
            // Folded: the chart is what is read; the numbers are there to check it.
            details.numbers {
                summary { "the numbers drawn" }
                table.data {
                    thead { tr { @for h in head { th { (h) } } } }
                    tbody { @for row in &rows { tr { @for c in row { td.n { (c) } } } } }
                }
            }
        }
    }
}

/// Latency per dependent read against the working-set size, log–log, with the sizes of
/// the caches the system reports marked.
fn cache(run: &Run) -> Markup {
    let Some(d) = views::cache::sweep(run) else {
        return html! {};
    };
    if d.sizes.is_empty() {
        return html! {};
    }
    let bytes: Vec<f64> = d.sizes.iter().map(|s| s.bytes as f64).collect();
    let ns: Vec<f64> = d
        .sizes
        .iter()
        .flat_map(|s| [s.median_ns, s.min_ns])
        .collect();
    let mut plot = Plot::new(
        "cpu.cache: latency against working-set size",
        Axis::log2("working set (bytes, log scale)", &bytes, &|v| {
            human(v as u64)
        }),
        Axis::log10("ns per dependent read (log scale)", &ns, &|v| {
            format!("{v}")
        }),
    )
    .line(
        "median of the repeats",
        d.sizes
            .iter()
            .map(|s| (s.bytes as f64, s.median_ns))
            .collect(),
    )
    .line(
        "minimum of the repeats",
        d.sizes.iter().map(|s| (s.bytes as f64, s.min_ns)).collect(),
    );
    plot.x_marks = d
        .caches
        .iter()
        .map(|c| Marker {
            at: c.bytes as f64,
            label: c.name.clone(),
        })
        .collect();
    let rows = d
        .sizes
        .iter()
        .map(|s| {
            vec![
                human(s.bytes),
                format!("{:.2}", s.median_ns),
                format!("{:.2}", s.min_ns),
                d.plateaus
                    .iter()
                    .find(|p| (p.first_bytes..=p.last_bytes).contains(&s.bytes))
                    .map(|p| p.level.clone())
                    .unwrap_or_default(),
            ]
        })
        .collect();
    let caches: Vec<&str> = d.caches.iter().map(|c| c.name.as_str()).collect();
    figure(
        "Memory hierarchy (seed 000 Table 4)",
        &format!(
            "Random dependent reads of {}-byte lines; dashed verticals: the caches sysfs reports ({}).",
            d.line_bytes,
            caches.join(", ")
        ),
        vec![plot],
        &["working set", "ns/read (median)", "ns/read (min)", "plateau"],
        rows,
    )
}

/// Faults and time of one paging job against the spread S of `vm.gausspage.S`, with
/// random paging (`vm.randpage`, the limit of a spread without bound) as a line.
fn paging(run: &Run) -> Markup {
    let points: Vec<(f64, Paging)> = views::vm::by_spread(run)
        .into_iter()
        .map(|(s, d)| (s as f64, d))
        .collect();
    if points.is_empty() {
        return html! {};
    }
    let random = views::vm::random(run);
    let xs: Vec<f64> = points.iter().map(|p| p.0).collect();
    let faults = |d: &Paging| d.minor_faults + d.major_faults;
    let mut fy: Vec<f64> = points.iter().map(|p| faults(&p.1)).collect();
    fy.extend(random.iter().map(faults));
    let x = || {
        Axis::log10(
            "spread S of the Gaussian reference pattern (pages, log scale)",
            &xs,
            &|v| count(v),
        )
    };
    let mut fplot = Plot::new(
        "vm.gausspage: page faults of one job against S",
        x(),
        Axis::linear("page faults (minor + major)", &fy, &count),
    )
    .line(
        "minor + major faults",
        points.iter().map(|p| (p.0, faults(&p.1))).collect(),
    )
    .line(
        "major faults",
        points.iter().map(|p| (p.0, p.1.major_faults)).collect(),
    );
    let mut ty: Vec<f64> = points
        .iter()
        .flat_map(|p| [p.1.real_s, p.1.user_s, p.1.system_s])
        .collect();
    ty.extend(random.iter().map(|d| d.real_s));
    let mut tplot = Plot::new(
        "vm.gausspage: time of one job against S",
        x(),
        Axis::linear("seconds", &ty, &secs),
    )
    .line("real", points.iter().map(|p| (p.0, p.1.real_s)).collect())
    .line(
        "user (moves in clock ticks)",
        points.iter().map(|p| (p.0, p.1.user_s)).collect(),
    )
    .line(
        "system (moves in clock ticks)",
        points.iter().map(|p| (p.0, p.1.system_s)).collect(),
    );
    mark_tick(&mut tplot, &ty);
    if let Some(r) = &random {
        fplot.y_marks.push(Marker {
            at: faults(r),
            label: format!("{}: {}", views::vm::RANDOM, count(faults(r))),
        });
        tplot.y_marks.push(Marker {
            at: r.real_s,
            label: format!("{} real: {}", views::vm::RANDOM, secs(r.real_s)),
        });
    }
    let rows = points
        .iter()
        .map(|(s, d)| {
            vec![
                count(*s),
                count(d.minor_faults),
                count(d.major_faults),
                secs(d.real_s),
                secs(d.user_s),
                secs(d.system_s),
                d.fault_service_s.map(secs).unwrap_or_default(),
            ]
        })
        .collect();
    figure(
        "Paging against locality (seed 001 Tables 6–8)",
        &format!(
            "One job of {} pages each, medians over the jobs; the narrower the spread, the fewer pages are touched. {}",
            points[0].1.pages,
            if points[0].1.memory_limit.applied { "Under a memory limit." } else { "No memory limit: faults are first touches, not page-ins." }
        ),
        vec![fplot, tplot],
        &["S", "minor faults", "major faults", "real", "user", "system", "s/fault"],
        rows,
    )
}

/// Table 9: average real time and CPU time per copy against N copies, with the ideal
/// (one copy's time while there are CPUs for them all, then growing as N / CPUs), the
/// knee marked, and Inc against N with the knee's threshold.
fn load_cpu(run: &Run) -> Markup {
    let pts: Vec<(f64, crate::model::details::load::CopiesSummary)> = views::load::copies(run)
        .into_iter()
        .filter(|p| p.result.status.is_ok())
        .filter_map(|p| Some((p.n as f64, p.details?.summary?)))
        .collect();
    if pts.is_empty() {
        return html! {};
    }
    let cpus = run.environment.cpu.usable.max(1) as f64;
    let baseline = pts.iter().find_map(|p| p.1.baseline_real_s);
    let xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
    let ideal: Vec<(f64, f64)> = baseline
        .map(|b| {
            pts.iter()
                .map(|p| (p.0, b * (p.0 / cpus).max(1.0)))
                .collect()
        })
        .unwrap_or_default();
    let mut ys: Vec<f64> = pts
        .iter()
        .flat_map(|p| [p.1.avg_real_s, p.1.total_cpu_s / p.0])
        .collect();
    ys.extend(ideal.iter().map(|p| p.1));
    let knee = pts.iter().rev().find_map(|p| p.1.knee.clone());
    let x = || Axis::linear("simultaneous copies N", &xs, &|v| format!("{v:.0}"));
    let mut time = Plot::new(
        "load.cpu: time per copy against N",
        x(),
        Axis::linear("seconds per copy", &ys, &secs),
    )
    .line(
        "average real time per copy",
        pts.iter().map(|p| (p.0, p.1.avg_real_s)).collect(),
    )
    .line(
        "CPU time per copy",
        pts.iter().map(|p| (p.0, p.1.total_cpu_s / p.0)).collect(),
    );
    if !ideal.is_empty() {
        time = time.line(
            format!("ideal: one copy's time × max(1, N / {cpus:.0} CPUs)"),
            ideal,
        );
    }
    let incs: Vec<(f64, f64)> = pts.iter().filter_map(|p| Some((p.0, p.1.inc?))).collect();
    let mut plots = vec![time];
    if !incs.is_empty() {
        let mut iy: Vec<f64> = incs.iter().map(|p| p.1).collect();
        iy.push(knee::THRESHOLD);
        let mut inc = Plot::new(
            "load.cpu: Inc (real time over one copy's) against N",
            x(),
            Axis::linear("Inc", &iy, &|v| format!("{v:.1}")),
        )
        .line("Inc", incs);
        inc.y_marks.push(Marker {
            at: knee::THRESHOLD,
            label: format!("knee threshold {}", knee::THRESHOLD),
        });
        plots.push(inc);
    }
    if let Some(n) = knee.as_ref().and_then(|k| k.copies) {
        for p in &mut plots {
            p.x_marks.push(Marker {
                at: n as f64,
                label: format!("knee: {n}"),
            });
        }
    }
    let rows = pts
        .iter()
        .map(|(n, s)| {
            vec![
                format!("{n:.0}"),
                secs(s.avg_real_s),
                secs(s.total_cpu_s / n),
                baseline
                    .map(|b| secs(b * (n / cpus).max(1.0)))
                    .unwrap_or_default(),
                s.inc.map(|i| format!("{i:.2}")).unwrap_or_default(),
            ]
        })
        .collect();
    figure(
        "Response time against load (seed 000 Table 9)",
        &knee
            .map(|k| k.statement)
            .unwrap_or_else(|| "No knee stated.".into()),
        plots,
        &["N", "avg real per copy", "CPU per copy", "ideal", "Inc"],
        rows,
    )
}

/// Table 10: the command script's average real and CPU time per user against N users.
fn load_script(run: &Run) -> Markup {
    let pts: Vec<(f64, crate::model::details::load::ScriptsSummary)> = views::load::scripts(run)
        .into_iter()
        .filter(|p| p.result.status.is_ok())
        .filter_map(|p| Some((p.n as f64, p.details?.summary?)))
        .collect();
    if pts.is_empty() {
        return html! {};
    }
    let xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
    let ys: Vec<f64> = pts
        .iter()
        .flat_map(|p| [p.1.avg_real_s, p.1.avg_cpu_s])
        .collect();
    let plot = Plot::new(
        "load.script: a user's script against N users",
        Axis::linear("simultaneous users N", &xs, &|v| format!("{v:.0}")),
        Axis::linear("seconds per script", &ys, &secs),
    )
    .line(
        "average real time",
        pts.iter().map(|p| (p.0, p.1.avg_real_s)).collect(),
    )
    .line(
        "average CPU time",
        pts.iter().map(|p| (p.0, p.1.avg_cpu_s)).collect(),
    );
    let rows = pts
        .iter()
        .map(|(n, s)| {
            vec![
                format!("{n:.0}"),
                secs(s.avg_real_s),
                secs(s.avg_cpu_s),
                s.inc.map(|i| format!("{i:.2}")).unwrap_or_default(),
            ]
        })
        .collect();
    figure(
        "Command scripts against users (seed 000 Table 10)",
        "Medians over complete runs of the average per script.",
        vec![plot],
        &["N", "avg real", "avg CPU", "Inc"],
        rows,
    )
}

/// Seed 004's graphs: real, user and system time per process against the number of
/// processes, one line per job type; with `--trials`, each point the mean of the trials.
fn sweep(run: &Run) -> Markup {
    let Some(report) = Report::from_run(run) else {
        return html! {};
    };
    let points = trial_means(&report.batches);
    if points.len() < 2 {
        return html! {};
    }
    let mut types: Vec<String> = Vec::new();
    for (_, per_type) in &points {
        for t in per_type {
            if !types.contains(&t.job) {
                types.push(t.job.clone());
            }
        }
    }
    let xs: Vec<f64> = points.iter().map(|(n, _)| *n as f64).collect();
    let pick = |f: fn(&Times) -> f64, what: &str| {
        let series: Vec<(String, Vec<(f64, f64)>)> = types
            .iter()
            .map(|t| {
                let pts = points
                    .iter()
                    .filter_map(|(n, per_type)| {
                        let x = per_type.iter().find(|x| &x.job == t)?;
                        Some((*n as f64, f(x)))
                    })
                    .collect();
                (t.clone(), pts)
            })
            .collect();
        let ys: Vec<f64> = series
            .iter()
            .flat_map(|s| s.1.iter().map(|p| p.1))
            .collect();
        let mut p = Plot::new(
            format!("exercise: {what} per process against processes"),
            Axis::linear("processes started together", &xs, &|v| format!("{v:.0}")),
            Axis::linear(&format!("{what} (seconds)"), &ys, &secs),
        );
        for (name, pts) in series {
            p = p.line(name, pts);
        }
        if what != "real time" {
            mark_tick(&mut p, &ys);
        }
        p
    };
    // The seed's first graph: the whole batch's elapsed time, as `time` gave it for the
    // run; a size that failed has no point.
    let total: Vec<(f64, f64)> = elapsed_by_size(&report.batches)
        .into_iter()
        .filter(|(_, s, failed)| !failed && s.mean.is_finite())
        .map(|(n, s, _)| (n as f64, s.mean))
        .collect();
    let mut plots = Vec::new();
    if !total.is_empty() {
        let ys: Vec<f64> = total.iter().map(|p| p.1).collect();
        plots.push(
            Plot::new(
                "exercise: total elapsed time of the batch against processes",
                Axis::linear("processes started together", &xs, &|v| format!("{v:.0}")),
                Axis::linear("elapsed of the batch (seconds)", &ys, &secs),
            )
            .line("all types", total),
        );
    }
    plots.extend([
        pick(|t| t.mean_real_s, "real time"),
        pick(|t| t.user_per_process_s, "user time"),
        pick(|t| t.sys_per_process_s, "system time"),
    ]);
    let rows = points
        .iter()
        .flat_map(|(n, per_type)| {
            per_type.iter().map(move |t| {
                vec![
                    n.to_string(),
                    t.job.clone(),
                    t.processes.to_string(),
                    format!("{}/{}", t.passed, t.processes),
                    secs(t.mean_real_s),
                    secs(t.user_per_process_s),
                    secs(t.sys_per_process_s),
                ]
            })
        })
        .collect();
    let caption = if report.trials > 1 {
        format!(
            "The batch's total elapsed time (the seed's first graph), then the mean real time \
             of one process, start to end, and its user and system time, against the number \
             of processes started together; each point the mean of {} trials (of type and \
             passed: over all of them).",
            report.trials
        )
    } else {
        "The batch's total elapsed time (the seed's first graph), then the mean real time of \
         one process, start to end, and its user and system time, against the number of \
         processes started together."
            .to_string()
    };
    figure(
        "The exerciser's sweep (seed 004's graphs)",
        &caption,
        plots,
        &[
            "processes",
            "type",
            "of type",
            "passed",
            "real",
            "user",
            "system",
        ],
        rows,
    )
}

/// The kernel's accounting tick as user space sees it (`USER_HZ`, 100 on Linux): the
/// kernel splits a process's CPU time between user and system by which one each tick
/// found it in, so a short job's user and system times move in steps of about this much
/// and their lines zig-zag by a tick where nothing changed.
const CLOCK_TICK_S: f64 = 0.01;

/// A line at one clock tick on a chart of user or system times that come near it, so that
/// a step of that size reads as what it is.
fn mark_tick(plot: &mut Plot, values: &[f64]) {
    let top = values.iter().copied().fold(0.0, f64::max);
    if top > 0.0 && top < 50.0 * CLOCK_TICK_S {
        plot.y_marks.push(Marker {
            at: CLOCK_TICK_S,
            label: "one clock tick (10 ms): user and system time move in such steps".into(),
        });
    }
}

//! `table 000-B`: seed 000's Attachment B, the configuration sweep. The paper timed the
//! same command scripts and copies in configurations C1–C9 (root, /tmp and swap on other
//! devices or in memory, 15 or 40 I/O buffers); `run --configs` measures today's rows once
//! per configuration (a scratch directory on tmpfs or on disk, a memory cgroup). The
//! table sets each configuration's run in a column of its own, the paper's C2, C7 and C8
//! beside them, and compares a configuration with another on the same machine only: Inc
//! (real per script over one alone) and the real-time ratio of /tmp on disk over /tmp in
//! memory, the paper's C7 ÷ C8 beside today's `tmp=disk` ÷ `tmp=tmpfs`. No speed-up over
//! the 11/70: today's script and copies are other programs (see `table 000-10`).

use crate::model::details::load::{CpuCopies, Scripts};
use crate::model::unit::format_value;
use crate::model::{BenchResult, Measure, Status};
use crate::reference::{self, Figure, Quantity};

use super::seed_table::{today, Source};
use super::table::{new_table, right};

/// The statistics of each row, one line each in a cell: real and CPU per script (copy),
/// Inc, and the paper's Ratio Real (C2's real over C7's or C8's: two configurations, of
/// two machines, so today's line of it is "—").
const STATS: [(Quantity, &str); 4] = [
    (Quantity::Headline, "real"),
    (Quantity::Cpu, "cpu"),
    (Quantity::Inc, "inc"),
    (Quantity::RatioReal, "ratio real"),
];

/// The paper's configurations with figures for these rows: (machine, config, header).
const PAPER: [(&str, &str, &str); 3] = [
    ("pdp11-45", "C2", "11/45\nC2"),
    ("pdp11-70", "C7", "11/70\nC7"),
    ("pdp11-70", "C8", "11/70\nC8"),
];

/// Attachment B as printed: (config, CPU, root, /tmp, swap, /usr, I/O buffers).
#[rustfmt::skip]
pub const ATTACHMENT_B: [(&str, &str, &str, &str, &str, &str, &str); 9] = [
    ("C1", "11/45", "RK05", "RK05", "RK05", "RP03", "15"),
    ("C2", "11/45", "RK05", "RK05", "RF11", "RP03", "40"),
    ("C3", "11/45", "RK05", "RK05", "RF11", "RP03", "15"),
    ("C4", "11/70", "RK05", "RK05", "RK05", "RP03", "40"),
    ("C5", "11/70", "RK05", "RS04", "RK05", "RP03", "40"),
    ("C6", "11/70", "RS04", "RS04", "RS03", "RP03", "40"),
    ("C7", "11/70", "RS04", "RS04", "RS03", "RP04", "40"),
    ("C8", "11/70", "RS04", "Memory", "RS03", "RP04", "40"),
    ("C9", "11/70", "Memory", "Memory", "RS03", "RP04", "40"),
];

/// The configurations on disk and in memory whose ratio is set beside C7 ÷ C8.
const DISK: &str = "tmp=disk";
const TMPFS: &str = "tmp=tmpfs";

/// The paper's figures the table sets beside today's: Tables 9 and 10, C2, C7 and C8.
fn paper_figures() -> Vec<Figure> {
    reference::figures()
        .into_iter()
        .chain(reference::other_config_figures())
        .filter(|f| f.seed == "000")
        .filter(|f| f.place.starts_with("Table 9,") || f.place.starts_with("Table 10,"))
        .collect()
}

/// The newest run of each configuration among `sources` (newest first), in the order
/// of the configurations' names (`tmp=disk` before `tmp=tmpfs`, as C7 before C8).
pub fn by_configuration<'a>(sources: &'a [Source<'a>]) -> Vec<(&'a str, &'a Source<'a>)> {
    let mut out: Vec<(&str, &Source)> = Vec::new();
    for s in sources {
        if let Some(c) = s.run.options.load.configuration.as_deref() {
            if !out.iter().any(|(name, _)| *name == c) {
                out.push((c, s));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(b.0));
    out
}

/// The rows: the paper's ids of Tables 10 and 9, then any other `load.script.N` or
/// `load.cpu.N` a configuration's run measured, scripts first, by N.
fn row_ids(figures: &[Figure], runs: &[(&str, &Source)]) -> Vec<String> {
    let mut ids: Vec<String> = figures.iter().map(|f| f.id.clone()).collect();
    for (_, s) in runs {
        ids.extend(
            s.run
                .results
                .iter()
                .filter(|r| {
                    r.id.starts_with(crate::reference::layouts::seed000::SCRIPTS)
                        || r.id.starts_with(crate::reference::layouts::seed000::COPIES)
                })
                .map(|r| r.id.clone()),
        );
    }
    let key = |id: &str| {
        let script = id.starts_with(crate::reference::layouts::seed000::SCRIPTS);
        let n: u64 = id
            .rsplit('.')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        (!script, n)
    };
    ids.sort_by_key(|id| key(id));
    ids.dedup();
    ids
}

/// Today's cell of `quantity` in one configuration's run, checked against the paper's
/// figure of the row: a figure of another basis is "not comparable", never set beside.
fn today_cell(
    r: Option<&BenchResult>,
    q: Quantity,
    paper: Option<&Figure>,
    reasons: &mut Vec<String>,
) -> String {
    let Some(r) = r else {
        return "not run".into();
    };
    if r.status != Status::Ok {
        return match limit_hit(r) {
            Some(_) => "failed:\nlimit".into(),
            None => "failed".into(),
        };
    }
    let Some(m) = today(Some(r), q, None) else {
        return "—".into();
    };
    if let Some(f) = paper {
        if let Err(why) = f.measure().divided_by(&m) {
            let line = format!("not comparable: {}: {why}", r.id);
            if !reasons.contains(&line) {
                reasons.push(line);
            }
            return "not\ncomparable".into();
        }
    }
    text(&m)
}

fn text(m: &Measure) -> String {
    match m.per_op() {
        Ok(one) => format_value(one.value(), one.unit()),
        Err(_) => format_value(m.value(), m.unit()),
    }
}

/// Why a row's copies or users stopped coping (a limit, a cgroup's OOM), if they did.
fn limit_hit(r: &BenchResult) -> Option<String> {
    match r.details_as::<CpuCopies>() {
        Some(c) => c.limit_hit,
        None => r.details_as::<Scripts>()?.limit_hit,
    }
}

/// Why the compute-bound copies have no disk ÷ tmpfs ratio.
const NOISE_ONLY: &str = "no disk ÷ tmpfs ratio for load.cpu.N: the compute-bound copies never \
     touch the scratch directory, so where /tmp is cannot change their time and the ratio \
     could only show noise";

/// Whether a row's work reads or writes the scratch directory, so that where the
/// directory is (disk or memory) can change its time: the scripts do, the compute-bound
/// copies do not.
fn uses_scratch(id: &str) -> bool {
    !id.starts_with(crate::reference::layouts::seed000::COPIES)
}

/// The real-time ratio of two configurations of one row, where both measured it on the
/// same basis.
fn ratio(a: Option<&BenchResult>, b: Option<&BenchResult>) -> Option<f64> {
    let a = today(a, Quantity::Headline, None)?;
    let b = today(b, Quantity::Headline, None)?;
    a.divided_by(&b).ok()
}

/// The table's header and rows, each cell as printed, and the lines under it (failure
/// points, not comparable): the layout, tested apart from the drawing.
struct Layout {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    failures: Vec<String>,
    reasons: Vec<String>,
}

/// The table from `sources` (newest first): the newest run of each configuration.
pub fn render_from<'a>(sources: &'a [Source<'a>]) -> String {
    let runs = by_configuration(sources);
    let l = layout(&runs);
    let header_refs: Vec<&str> = l.header.iter().map(String::as_str).collect();
    let mut t = new_table(&header_refs);
    for row in &l.rows {
        t.add_row(row.clone());
    }
    let cols: Vec<usize> = (3..l.header.len()).collect();
    right(&mut t, &cols);
    super::table::no_wrap(&mut t, &[1, 2]);
    let today_is = if runs.is_empty() {
        "no run of a configuration sweep (`timeshare run --configs tmp=disk,tmp=tmpfs`)".to_string()
    } else {
        runs.iter()
            .map(|(name, s)| format!("{name}: {}", super::seed_table::describe(s)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let mut out = format!(
        "seed 000 Attachment B: the configuration sweep (real, CPU and Inc per script or copy \
         in each configuration) — today = {today_is}\n{t}\n"
    );
    for (name, s) in &runs {
        if let Some(note) = &s.run.options.load.configuration_note {
            out.push_str(&format!(
                "configuration {}: {}\n",
                super::style::escape(name),
                super::style::escape(note)
            ));
        }
    }
    for f in &l.failures {
        out.push_str(&format!("{f}\n"));
    }
    out.push_str(&format!("paper: Attachment B: {}\n", attachment_b_line()));
    for w in crate::reference::layouts::seed000::CONFIGURATIONS_WHY {
        out.push_str(&format!("why: {w}\n"));
    }
    for r in &l.reasons {
        out.push_str(&format!("{r}\n"));
    }
    out
}

/// The cells of every row: each configuration's run, the paper's C2, C7 and C8, and the
/// ratios of two configurations of one machine.
fn layout(runs: &[(&str, &Source)]) -> Layout {
    let figures = paper_figures();
    let mut header = vec!["row".to_string(), "id".to_string(), "stat".to_string()];
    for (name, s) in runs {
        // "tmp=disk+\nmem=256M": a configuration's column no wider than its figures.
        header.push(format!("{}\n{}", name.replace('+', "+\n"), s.name));
    }
    for (_, _, h) in PAPER {
        header.push(h.to_string());
    }
    let pair = runs.iter().any(|(n, _)| *n == DISK) && runs.iter().any(|(n, _)| *n == TMPFS);
    if pair {
        header.push("disk ÷\ntmpfs".into());
    }
    header.push("C7 ÷\nC8".into());
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut reasons: Vec<String> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    for id in row_ids(&figures, runs) {
        let paper_of = |machine: &str, config: &str, q: Quantity| {
            figures.iter().find(|f| {
                f.id == id && f.machine == machine && f.config() == Some(config) && f.quantity == q
            })
        };
        let label = figures
            .iter()
            .find(|f| f.id == id)
            .map(|f| {
                f.place
                    .split(", ")
                    .nth(1)
                    .unwrap_or("")
                    .trim_start_matches("row ")
            })
            .unwrap_or("(today)")
            .to_string();
        let mut row = vec![label, id.clone(), STATS.map(|(_, n)| n).join("\n")];
        let result_of = |s: &Source| s.run.results.iter().find(|r| r.id == id).cloned();
        for (name, s) in runs {
            let r = result_of(s);
            let cells: Vec<String> = STATS
                .iter()
                .map(|&(q, _)| {
                    // The paper's figure of the row's basis: any configuration's will do.
                    let paper = PAPER.iter().find_map(|&(m, c, _)| paper_of(m, c, q));
                    today_cell(r.as_ref(), q, paper, &mut reasons)
                })
                .collect();
            row.push(cells.join("\n"));
            if let Some(why) = r.as_ref().and_then(limit_hit) {
                failures.push(format!("failure point: {name}: {id} stopped coping: {why}"));
            } else if let Some(Status::Failed { error }) = r.as_ref().map(|r| &r.status) {
                failures.push(format!("failure point: {name}: {id} failed: {error}"));
            }
        }
        for (m, c, _) in PAPER {
            // Where the paper printed words instead of a figure ("Ran Out Of Swap Space"),
            // the real line says it failed and a failure point under the table quotes them:
            // the words in a narrow column would spill onto the other lines.
            let words = reference::printed_words("Table 9", m, &id);
            let cells: Vec<String> = STATS
                .iter()
                .enumerate()
                .map(|(k, &(q, _))| match (paper_of(m, c, q), &words) {
                    (Some(f), _) => format_value(f.value, f.unit),
                    (None, Some(_)) if k == 0 => "failed".into(),
                    _ => "—".into(),
                })
                .collect();
            if let (Some(w), None) = (&words, paper_of(m, c, Quantity::Headline)) {
                failures.push(format!("failure point: {m} {c} (the paper): {id}: \"{w}\""));
            }
            row.push(if cells.iter().all(|c| c == "—") {
                String::new()
            } else {
                cells.join("\n")
            });
        }
        if pair {
            let of = |n: &str| {
                runs.iter()
                    .find(|(c, _)| *c == n)
                    .and_then(|(_, s)| result_of(s))
            };
            if uses_scratch(&id) {
                let x = ratio(of(DISK).as_ref(), of(TMPFS).as_ref());
                row.push(x.map_or(String::new(), |x| format!("{x:.3}")));
            } else {
                row.push("—".into());
                if !reasons.iter().any(|r| r == NOISE_ONLY) {
                    reasons.push(NOISE_ONLY.to_string());
                }
            }
        }
        let c7c8 = paper_of("pdp11-70", "C7", Quantity::Headline)
            .zip(paper_of("pdp11-70", "C8", Quantity::Headline))
            .and_then(|(a, b)| a.measure().divided_by(&b.measure()).ok());
        row.push(c7c8.map_or(String::new(), |x| format!("{x:.3}")));
        rows.push(row);
    }
    Layout {
        header,
        rows,
        failures,
        reasons,
    }
}

/// The paper's configurations in one line: CPU, root, /tmp, swap, /usr, I/O buffers.
pub fn attachment_b_line() -> String {
    ATTACHMENT_B
        .iter()
        .map(|(c, cpu, root, tmp, swap, usr, bufs)| {
            format!("{c} {cpu} root {root}, /tmp {tmp}, swap {swap}, /usr {usr}, {bufs} buffers")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::details::load::{PER_COPY, PER_SCRIPT};
    use crate::model::{Basis, Better, OpTimes, Run, Unit};

    /// A run of configuration `name` whose `load.script.N` rows took `real_s` per script.
    fn config_run(name: &str, rows: &[(usize, f64)], basis: &'static str) -> Run {
        let results = rows
            .iter()
            .map(|&(n, real_s)| BenchResult {
                status: Status::Ok,
                summary: Some(crate::model::Summary::around(real_s, real_s / 100.0)),
                times: Some(OpTimes {
                    ops: 1,
                    elapsed_s: real_s,
                    user_s: real_s / 8.0,
                    system_s: real_s / 8.0,
                }),
                ..BenchResult::new(
                    format!("load.script.{n}"),
                    "load",
                    "fixture",
                    Unit::Seconds,
                    Better::Lower,
                    Some(Basis::per(basis)),
                )
            })
            .collect();
        let mut run = Run::of(results);
        run.options.load.configuration = Some(name.to_string());
        run
    }

    /// The first (real) line of each cell of the row `id`.
    fn real_line(l: &Layout, id: &str) -> Vec<String> {
        let row = l.rows.iter().find(|r| r[1] == id).unwrap();
        row.iter()
            .map(|c| c.lines().next().unwrap_or("").to_string())
            .collect()
    }

    fn header_index(l: &Layout, word: &str) -> usize {
        l.header.iter().position(|h| h.starts_with(word)).unwrap()
    }

    #[test]
    fn each_configuration_keeps_its_own_column_and_the_disk_over_tmpfs_ratio() {
        let disk = config_run(DISK, &[(1, 3.0), (5, 9.0)], PER_SCRIPT);
        let tmpfs = config_run(TMPFS, &[(1, 2.0), (5, 4.0)], PER_SCRIPT);
        // Newest first: tmpfs was stored last, but the columns follow the names.
        let sources = [
            Source {
                name: "run 2".into(),
                run: &tmpfs,
            },
            Source {
                name: "run 1".into(),
                run: &disk,
            },
        ];
        let runs = by_configuration(&sources);
        let l = layout(&runs);
        let cells = real_line(&l, "load.script.5");
        let (d, m) = (header_index(&l, DISK), header_index(&l, TMPFS));
        assert!(d < m, "{:?}", l.header);
        assert!(l.header[d].contains("run 1") && l.header[m].contains("run 2"));
        assert_eq!(cells[d], "9.00 s", "{cells:?}");
        assert_eq!(cells[m], "4.00 s", "{cells:?}");
        // disk ÷ tmpfs, then the paper's C7 ÷ C8 (16:35.9 / 16:25.4).
        assert_eq!(cells[cells.len() - 2], "2.250", "{cells:?}");
        assert_eq!(cells[cells.len() - 1], "1.011", "{cells:?}");
        // The paper's C7 and C8 each in its own column: 16:35.9 and 16:25.4.
        let c7 = header_index(&l, "11/70\nC7");
        let c8 = header_index(&l, "11/70\nC8");
        assert_ne!(cells[c7], cells[c8]);
        let text = render_from(&sources);
        assert!(text.contains("C9 11/70 root Memory, /tmp Memory"), "{text}");
    }

    #[test]
    fn the_compute_bound_copies_get_no_disk_over_tmpfs_ratio() {
        let copies = |name: &str, real_s: f64| {
            let mut run = config_run(name, &[(1, real_s)], PER_COPY);
            run.results[0].id = "load.cpu.1".into();
            run
        };
        let (disk, tmpfs) = (copies(DISK, 3.0), copies(TMPFS, 2.0));
        let sources = [
            Source {
                name: "run 2".into(),
                run: &tmpfs,
            },
            Source {
                name: "run 1".into(),
                run: &disk,
            },
        ];
        let runs = by_configuration(&sources);
        let l = layout(&runs);
        let ratio_at = header_index(&l, "disk ÷");
        let cells = real_line(&l, "load.cpu.1");
        assert_eq!(cells[ratio_at], "—", "{cells:?}");
        assert!(l.reasons.iter().any(|r| r == NOISE_ONLY), "{:?}", l.reasons);
        // The scripts keep theirs.
        let disk = config_run(DISK, &[(1, 3.0)], PER_SCRIPT);
        let tmpfs = config_run(TMPFS, &[(1, 2.0)], PER_SCRIPT);
        let sources = [
            Source {
                name: "run 2".into(),
                run: &tmpfs,
            },
            Source {
                name: "run 1".into(),
                run: &disk,
            },
        ];
        let l = layout(&by_configuration(&sources));
        assert_eq!(real_line(&l, "load.script.1")[ratio_at], "1.500");
    }

    #[test]
    fn a_figure_of_another_basis_is_never_set_beside_the_paper_s() {
        let odd = config_run(DISK, &[(1, 3.0)], PER_COPY);
        let sources = [Source {
            name: "run 1".into(),
            run: &odd,
        }];
        let l = layout(&by_configuration(&sources));
        assert_eq!(
            real_line(&l, "load.script.1")[header_index(&l, DISK)],
            "not"
        );
        assert!(l
            .reasons
            .iter()
            .any(|r| r.contains("not comparable: load.script.1")));
    }

    #[test]
    fn a_configuration_that_stopped_coping_is_a_failure_point_not_a_blank() {
        let mut run = config_run(TMPFS, &[(1, 2.0), (5, 4.0)], PER_SCRIPT);
        run.results[1].status = Status::Failed {
            error: "the cgroup's memory.max (128 MiB) was reached".into(),
        };
        let sources = [Source {
            name: "run 1".into(),
            run: &run,
        }];
        let l = layout(&by_configuration(&sources));
        assert!(
            l.failures.iter().any(|f| f.contains(
                "failure point: tmp=tmpfs: load.script.5 failed: the cgroup's memory.max"
            )),
            "{:?}",
            l.failures
        );
        assert_eq!(
            real_line(&l, "load.script.5")[header_index(&l, TMPFS)],
            "failed"
        );
    }

    #[test]
    fn runs_of_no_sweep_are_left_out() {
        let plain = Run::of(Vec::new());
        let text = render_from(&[Source {
            name: "run 1".into(),
            run: &plain,
        }]);
        assert!(text.contains("no run of a configuration sweep"), "{text}");
    }
}

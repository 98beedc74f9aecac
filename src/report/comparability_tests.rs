//! Every historical figure has a comparability, and every printer of a ratio against the
//! seeds honours it: `compare` (and the HTML report's comparison, which reads the same
//! judgements) and `table` print a plain speed-up for the same operation only, a marked
//! one ("≈", the reason under the table) for the same kind of work done by another
//! program, and no ratio where the work differs.

use crate::model::{BenchResult, Better, Run, Status, Summary, Unit};
use crate::reference::{self, Comparability, Figure, Quantity};

use super::compare::{self, Column};
use super::seed_table::{self, TABLES};

/// A run with a measured row for every id of the catalogue, each 100× faster than the
/// first figure of its headline: every ratio can be formed, so only the comparability
/// decides what is printed.
fn everything_run() -> Run {
    let mut results: Vec<BenchResult> = Vec::new();
    for f in reference::figures()
        .into_iter()
        .filter(|f| f.quantity == Quantity::Headline)
    {
        if results.iter().any(|r| r.id == f.id) {
            continue;
        }
        let better = f.unit.default_better();
        let today = match better {
            Better::Lower => f.value / 100.0,
            Better::Higher => f.value * 100.0,
        };
        results.push(BenchResult {
            status: Status::Ok,
            summary: Some(Summary::around(today, today / 50.0)),
            ..BenchResult::new(
                f.id.clone(),
                crate::model::family_of(&f.id),
                "fixture",
                f.unit,
                better,
                Some(f.basis.clone()),
            )
        });
    }
    Run::of(results)
}

/// The fixture's run, for io.copy's figure.
fn run_of_copy() -> Run {
    everything_run()
}

/// `id`'s median in `run`.
fn run_figure(run: &Run, id: &str) -> f64 {
    run.results
        .iter()
        .find(|r| r.id == id)
        .and_then(BenchResult::median)
        .expect("measured")
}

fn headline(machine: &str, id: &str) -> Figure {
    reference::headline(machine, id).expect("a headline of the catalogue")
}

#[test]
fn every_reason_is_said_and_the_papers_other_programs_are_never_a_plain_speed_up() {
    for f in reference::figures()
        .into_iter()
        .chain(reference::other_config_figures())
        .chain(reference::command_figures())
    {
        if let Some(why) = f.comparability.reason() {
            assert!(why.len() > 20, "{f:?}");
        }
    }
    let of = |m: &str, id: &str| headline(m, id).comparability;
    // The programs differ: cpu.chess, cpu.intfloat, the scripts, the exerciser's jobs.
    for (m, id) in [
        ("pdp11-70", "cpu.chess"),
        ("pdp11-45", "cpu.intfloat.2"),
        ("pdp11-70", "load.script.5"),
        ("vax780-4.1bsd", "exercise.cc"),
        ("pe3242", "exercise.nroff"),
        ("pdp11-70", "syscall.indirect.2"),
    ] {
        assert!(matches!(of(m, id), Comparability::Like(_)), "{m} {id}");
    }
    // Today's copy is as long as calibration makes it: no ratio at all.
    assert!(matches!(
        of("pdp11-70", "load.cpu.10"),
        Comparability::Not(_)
    ));
    for (m, id) in [
        ("vax750-4.3bsd", "syscall.getpid"),
        ("vax750-4.2bsd", "vm.randpage"),
        ("pdp11-70", "syscall.args.0"),
        ("perq-pnx", "cpu.sieve"),
    ] {
        assert_eq!(of(m, id), Comparability::Same, "{m} {id}");
    }
}

#[test]
fn compare_and_the_report_judge_every_figure_by_its_comparability() {
    let run = everything_run();
    for machine in reference::machines() {
        let figures = reference::figures_of(machine.name);
        if figures.is_empty() {
            continue;
        }
        let columns = || {
            vec![
                Column::Run {
                    name: "run 1".into(),
                    about: "fixture".into(),
                    run: Box::new(run.clone()),
                },
                Column::Machine {
                    machine,
                    figures: figures
                        .iter()
                        .filter(|f| f.quantity == Quantity::Headline)
                        .cloned()
                        .collect(),
                },
            ]
        };
        let judged = compare::judgements(&columns(), 0.05).unwrap();
        let text = compare::compare_table(&columns(), 0.05).unwrap();
        for j in &judged[0].1 {
            let f = headline(machine.name, &j.id);
            let at = format!("{} {}", machine.name, j.id);
            match f.comparability {
                // Today is faster than every machine, by how much depends on the machine.
                Comparability::Same => {
                    assert!(j.ratio.is_some(), "{at}: {j:?}");
                    assert!(j.verdict.starts_with("today "), "{at}: {j:?}");
                    assert!(j.verdict.ends_with("× faster"), "{at}: {j:?}");
                }
                Comparability::Like(why) => {
                    assert!(j.ratio.is_some(), "{at}: {j:?}");
                    assert!(j.verdict.starts_with("≈ today "), "{at}: {j:?}");
                    assert!(note_given(&text, "≈", &j.id, why), "{at}\n{text}");
                }
                Comparability::Not(why) => {
                    assert_eq!(j.ratio, None, "{at}: {j:?}");
                    assert!(!j.verdict.contains('×'), "{at}: {j:?}");
                    assert!(
                        note_given(&text, "not comparable:", &j.id, why),
                        "{at}\n{text}"
                    );
                }
            }
        }
    }
}

/// Whether a line under the table gives `why` for `id` among others, after `kind`.
fn reason_given(text: &str, kind: &str, id: &str, why: &str) -> bool {
    text.lines().any(|l| {
        l.strip_prefix(kind)
            .and_then(|l| l.strip_suffix(why))
            .and_then(|l| l.strip_suffix(": "))
            .is_some_and(|ids| ids.trim().split(", ").any(|i| i == id))
    })
}

/// Whether `id`'s row in a comparison ends on the number of a note under the table that
/// gives `why` after `kind`, for `id` among others.
fn note_given(text: &str, kind: &str, id: &str, why: &str) -> bool {
    let Some(row) = row_of(text, id) else {
        return false;
    };
    let Some(number) = row.trim_end().rsplit_once(" (").map(|(_, n)| n) else {
        return false;
    };
    // Each note on one line again: its continuations are indented.
    let mut notes: Vec<String> = Vec::new();
    for line in text.lines() {
        match (line.strip_prefix("  "), notes.last_mut()) {
            (Some(more), Some(note)) => {
                note.push(' ');
                note.push_str(more.trim_start());
            }
            _ => notes.push(line.to_string()),
        }
    }
    let head = format!("({number} {kind} {why} — ");
    notes.iter().any(|n| {
        n.strip_prefix(&head)
            .is_some_and(|ids| ids.split(", ").any(|i| i == id))
    })
}

/// The first line of `text` that holds `id` as a cell of its own.
fn row_of<'a>(text: &'a str, id: &str) -> Option<&'a str> {
    text.lines().find(|l| l.contains(&format!(" {id} ")))
}

#[test]
fn every_seed_table_prints_its_speed_ups_by_their_comparability() {
    let run = everything_run();
    let mut checked = 0;
    for table in TABLES {
        let text = seed_table::render(table, &run, "run 1", false);
        let ratio = table.quantities[0];
        let figures = table.figures();
        let last = figures.last().map(|f| f.machine);
        for f in figures
            .iter()
            .filter(|f| Some(f.machine) == last && f.quantity == ratio)
        {
            let Some(line) = row_of(&text, &f.id) else {
                continue;
            };
            let at = format!("{} {}: {line}", table.key, f.id);
            // A row whose statistic needs details the fixture has not (fault service, Inc)
            // has no figure today, and so no ratio to check.
            let ratio_printed = line.contains('×');
            match f.comparability {
                Comparability::Same => assert!(!line.contains('≈'), "{at}"),
                Comparability::Like(why) if ratio_printed => {
                    assert!(line.contains('≈'), "{at}");
                    assert!(reason_given(&text, "≈", &f.id, why), "{at}\n{text}");
                }
                Comparability::Like(_) => {}
                Comparability::Not(_) => assert!(!ratio_printed, "{at}"),
            }
            checked += usize::from(ratio_printed);
        }
    }
    // The tables with a ratio column and a headline today: most of the catalogue.
    assert!(checked > 100, "only {checked} rows checked");
}

#[test]
fn a_rate_s_ratio_reads_as_time_like_a_time_s() {
    // io.copy against the 11/70: today copies N× the bytes per second, so takes 1/N of
    // the time; the ratio column says ×1/N beside "N× faster", never ×N (a rate over a
    // rate) beside it.
    let run = run_of_copy();
    let machine = reference::machine("pdp11-70").unwrap();
    let columns = vec![
        Column::Machine {
            machine,
            figures: vec![headline("pdp11-70", "io.copy")],
        },
        Column::Run {
            name: "run 1".into(),
            about: "fixture".into(),
            run: Box::new(run),
        },
    ];
    let text = compare::compare_table(&columns, 0.05).unwrap();
    let line = row_of(&text, "io.copy").unwrap();
    let then = headline("pdp11-70", "io.copy").value;
    let today = run_figure(&run_of_copy(), "io.copy");
    let faster = today / then;
    assert!(faster > 10.0, "{faster}");
    let ratio = format!("≈×{} ", super::compare::figures3(1.0 / faster));
    assert!(line.contains(&ratio), "{ratio}\n{text}");
    let verdict = format!("≈ today {}× faster", super::compare::figures3(faster));
    assert!(line.contains(&verdict), "{verdict}\n{text}");
    assert_eq!(Unit::BytesPerSecond.default_better(), Better::Higher);
}

/// `vm.seqpage` of `everything_run` with its paging details: `major` faults from the disk.
fn run_that_paged(major: f64) -> Run {
    let mut run = everything_run();
    let paging: crate::model::details::vm::Paging = serde_json::from_value(serde_json::json!({
        "pages": 1000, "page_size": 4096, "pattern": "seq", "advice": "normal",
        "distinct_pages": 1000, "real_s": 1.0, "user_s": 0.1, "system_s": 0.5,
        "minor_faults": 1000.0, "major_faults": major,
        "memory_limit": { "applied": false }, "jobs": []
    }))
    .expect("a paging record");
    let r = run
        .results
        .iter_mut()
        .find(|r| r.id == "vm.seqpage")
        .unwrap();
    r.details = Some(crate::model::Details::of(&paging));
    run
}

#[test]
fn a_paging_row_that_did_not_page_gets_no_ratio_against_a_machine_that_did() {
    let machine = reference::machine("vax750-4.2bsd").unwrap();
    let judged = |major: f64| {
        let columns = vec![
            Column::Run {
                name: "run 1".into(),
                about: "fixture".into(),
                run: Box::new(run_that_paged(major)),
            },
            Column::Machine {
                machine,
                figures: vec![headline(machine.name, "vm.seqpage")],
            },
        ];
        let j = compare::judgements(&columns, 0.05).unwrap()[0]
            .1
            .iter()
            .find(|j| j.id == "vm.seqpage")
            .cloned()
            .unwrap();
        (j, compare::compare_table(&columns, 0.05).unwrap())
    };
    // Every page served from memory: no ratio, no speed-up, the reason under the table.
    let (j, text) = judged(0.0);
    assert_eq!(j.ratio, None, "{j:?}");
    assert!(j.verdict.contains("did not page"), "{j:?}");
    assert!(
        !row_of(&text, "vm.seqpage").unwrap().contains("faster"),
        "{text}"
    );
    assert!(text.contains("did not page (no major fault"), "{text}");
    // The same row having paged from the disk is compared as before.
    let (j, text) = judged(12.0);
    assert!(j.ratio.is_some(), "{j:?}");
    assert!(
        row_of(&text, "vm.seqpage").unwrap().contains("faster"),
        "{text}"
    );
}

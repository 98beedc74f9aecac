//! No printer shows a figure it did not resolve: a median under one CPU cycle, under the
//! clock's resolution for its sample, or not positive after the correction is printed as
//! its bound with the reason, never as the raw number, in every printer of headlines.

use crate::model::unit::format_value;
use crate::model::{Basis, BenchResult, Better, Calibration, Overhead, Run, Status, Summary, Unit};
use crate::reference::{self, Quantity};

use super::compare::{self, Column};

/// 2800 MHz: one cycle is 0.357 ns, shown as 0.36 ns.
const MHZ: f64 = 2800.0;

/// A measured row of `median` seconds per operation, `batch` operations per sample.
fn row(id: &str, median: f64, batch: Option<u64>) -> BenchResult {
    BenchResult {
        status: Status::Ok,
        summary: Some(Summary::around(median, median.abs() / 50.0)),
        calibration: batch.map(|batch| Calibration {
            batch,
            calibrated: batch > 1,
            target_s: 0.002,
            clock_overhead_s: 20e-9,
            loop_overhead_s: 0.3e-9,
        }),
        ..BenchResult::new(
            id,
            crate::model::family_of(id),
            "fixture",
            Unit::SecondsPerOp,
            Better::Lower,
            Some(Basis::per("operation")),
        )
    }
}

/// The four cases, each with its raw median as a printer would format it.
fn cases() -> Vec<(BenchResult, String)> {
    let sub_cycle = row("cpu.stmt.i32.assign", 0.0813e-9, Some(1_000_000));
    let below_clock = row("call.subroutine", 3.17e-9, Some(1));
    let negative = row("proc.exec.env_byte", -192.7e-9, None);
    let normal = row("syscall.getpid", 131.4e-9, Some(1000));
    [sub_cycle, below_clock, negative, normal]
        .into_iter()
        .map(|r| {
            let raw = format_value(r.median().unwrap(), r.unit);
            (r, raw)
        })
        .collect()
}

fn run() -> Run {
    let mut run = Run::of(cases().into_iter().map(|(r, _)| r).collect());
    run.environment.cpu.mhz = Some(MHZ);
    run
}

/// The overhead the run measured (`run`'s table) and the one read back from the rows'
/// calibration (`show` of an imported file), which does not know the clock's resolution.
fn overheads() -> [Overhead; 2] {
    [
        Overhead {
            clock_s: 20e-9,
            per_iter_s: 0.3e-9,
            resolution_s: 1e-9,
        },
        // What `show` reads back from an imported run's calibration records
        // (`store::overhead_from_calibration`): no claimed resolution.
        Overhead {
            clock_s: 20e-9,
            per_iter_s: 0.3e-9,
            resolution_s: f64::NAN,
        },
    ]
}

/// `text` with every run of white space as one space: a table wraps a long note over
/// several lines.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// HTML and Markdown text as it reads: `&lt;` is the `<` of a bound.
fn unescaped(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#39;", "'")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// `text` says each unresolved row is a bound, and shows no raw median but the normal
/// row's.
fn assert_bounds_only(printer: &str, text: &str) {
    let text = &flat(text);
    let cases = cases();
    for (r, raw) in &cases[..3] {
        assert!(
            !text.contains(raw.as_str()),
            "{printer} prints {}'s raw median {raw}:\n{text}",
            r.id
        );
    }
    assert!(
        text.contains("< 0.36 ns") && text.contains("< 20.0 ns") && text.contains("< resolution"),
        "{printer} lacks a bound:\n{text}"
    );
    assert!(
        text.contains(cases[3].1.as_str()),
        "{printer} lost the resolved figure {}:\n{text}",
        cases[3].1
    );
}

#[test]
fn the_fixture_is_what_its_names_say() {
    // The raw figures are the ones the assertions look for: distinct, and not bounds.
    let raws: Vec<String> = cases().into_iter().map(|(_, raw)| raw).collect();
    assert_eq!(raws, ["0.08 ns", "3.17 ns", "-193 ns", "131 ns"]);
}

#[test]
fn the_run_table_and_show_print_bounds_with_their_reasons() {
    for overhead in overheads() {
        let text = super::extra::full_report(&run(), &overhead, true);
        assert_bounds_only("run/show", &text);
        let text = flat(&text);
        for why in [
            "below one CPU cycle",
            "below the clock's resolution",
            "no positive cost resolved",
        ] {
            assert!(text.contains(why), "no {why:?}:\n{text}");
        }
    }
}

#[test]
fn compare_between_runs_prints_bounds_and_gives_them_no_verdict() {
    let column = |name: &str| Column::Run {
        name: name.into(),
        about: "fixture".into(),
        run: Box::new(run()),
    };
    let text = compare::compare_table(&[column("run 1"), column("run 2")], 0.05).unwrap();
    assert_bounds_only("compare", &text);
    let text = flat(&text);
    for verdict in [
        "no verdict (1)",
        "(1) below one CPU cycle: not resolved — cpu.stmt.i32.assign",
        "(2) below the clock's resolution: not resolved — call.subroutine",
        "(3) no positive cost resolved (the correction exceeds it) — proc.exec.env_byte",
    ] {
        assert!(text.contains(verdict), "no {verdict:?}:\n{text}");
    }
}

#[test]
fn compare_against_a_historical_machine_prints_bounds() {
    // A machine of the seeds with today's sub-cycle statement and getpid.
    let machine = reference::figures()
        .into_iter()
        .find(|f| f.id == "cpu.stmt.i32.assign" && f.quantity == Quantity::Headline)
        .map(|f| f.machine)
        .expect("seed 003 gives the assignment");
    let machine = reference::machine(machine).expect("a known machine");
    let figures = reference::figures_of(machine.name);
    let text = compare::compare_table(
        &[
            Column::Run {
                name: "run 1".into(),
                about: "fixture".into(),
                run: Box::new(run()),
            },
            Column::Machine { machine, figures },
        ],
        0.05,
    )
    .unwrap();
    assert!(!text.contains("0.08 ns"), "{text}");
    assert!(text.contains("< 0.36 ns"), "{text}");
    assert!(
        text.contains("no verdict (1)")
            && text.contains("(1) below one CPU cycle: not resolved — cpu.stmt.i32.assign"),
        "{text}"
    );
}

#[test]
fn seed_tables_print_bounds_not_raw_figures() {
    for (key, id, bound) in [
        ("003-c32", "cpu.stmt.i32.assign", "< 0.36 ns"),
        ("002-6", "call.subroutine", "< 20.0 ns"),
    ] {
        let table = super::seed_table::find(key).expect("a seed table");
        let text = flat(&super::seed_table::render(table, &run(), "run 1", false));
        let raw = cases()
            .into_iter()
            .find(|(r, _)| r.id == id)
            .map(|(_, raw)| raw)
            .unwrap();
        assert!(!text.contains(raw.as_str()), "{key} prints {raw}:\n{text}");
        assert!(text.contains(bound), "{key} lacks {bound}:\n{text}");
    }
}

#[test]
fn the_markdown_export_prints_bounds() {
    let text = unescaped(&super::markdown::to_markdown(&run()));
    assert_bounds_only("markdown", &text);
    assert!(
        flat(&text).contains("below one CPU cycle: not resolved"),
        "{text}"
    );
}

#[test]
fn csv_says_which_rows_are_not_resolved() {
    let text = String::from_utf8(super::csv::to_csv(&run()).unwrap()).unwrap();
    let kinds: Vec<(String, String)> = csv::Reader::from_reader(text.as_bytes())
        .deserialize::<std::collections::HashMap<String, String>>()
        .map(|r| {
            let r = r.unwrap();
            (r["id"].clone(), r["resolved"].clone())
        })
        .collect();
    let kind = |id: &str| kinds.iter().find(|k| k.0 == id).unwrap().1.clone();
    assert_eq!(kind("cpu.stmt.i32.assign"), "below_cycle");
    assert_eq!(kind("call.subroutine"), "below_clock");
    assert_eq!(kind("proc.exec.env_byte"), "not_positive");
    assert_eq!(kind("syscall.getpid"), "measured");
}

#[test]
fn the_html_report_prints_bounds() {
    let text = super::html::report(
        &[Column::Run {
            name: "run 1".into(),
            about: "fixture".into(),
            run: Box::new(run()),
        }],
        0.05,
    );
    let text = unescaped(&text);
    assert_bounds_only("html", &text);
    let text = flat(&text);
    assert!(text.contains("below one CPU cycle: not resolved"), "{text}");
}

/// Each result of the JSON export, by id: its classification's `reading`, and its whole
/// object.
fn json_readings(run: &Run) -> Vec<(String, serde_json::Value)> {
    let text = super::json::to_json(run).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&text).unwrap();
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].as_str().unwrap().to_string(), r.clone()))
        .collect()
}

#[test]
fn the_json_export_classifies_every_result() {
    let mut run = run();
    let mut derived = cases()[3].0.clone();
    derived.id = "ctx.switch".into();
    derived.derived = true;
    let mut failed = cases()[3].0.clone();
    failed.id = "syscall.read".into();
    failed.status = Status::Failed {
        error: "boom".into(),
    };
    failed.summary = None;
    run.results.extend([derived, failed]);
    let results = json_readings(&run);
    let class = |id: &str| {
        let r = &results.iter().find(|r| r.0 == id).unwrap().1;
        r["classification"].clone()
    };
    for (id, reading, bound) in [
        ("cpu.stmt.i32.assign", "below_cycle", Some(1e-6 / MHZ)),
        ("call.subroutine", "below_clock", Some(20e-9)),
        ("proc.exec.env_byte", "not_positive", None),
        ("syscall.getpid", "measured", None),
        ("ctx.switch", "derived", None),
        ("syscall.read", "no_figure", None),
    ] {
        let c = class(id);
        assert_eq!(c["reading"], reading, "{id}: {c}");
        assert_eq!(c["bound_s"].as_f64(), bound, "{id}: {c}");
        let says_why = c["why"].is_string();
        assert_eq!(
            says_why,
            !matches!(reading, "measured" | "derived"),
            "{id}: {c}"
        );
    }
    assert!(class("cpu.stmt.i32.assign")["why"]
        .as_str()
        .unwrap()
        .contains("below one CPU cycle"));
}

#[test]
fn the_json_classification_is_only_added_and_recomputed_when_read_back() {
    let run = run();
    // Without it, the export is the run's own serde form, field for field and in order.
    let plain = serde_json::to_string_pretty(&run).unwrap();
    let text = String::from_utf8(super::json::to_json(&run).unwrap()).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for r in v["results"].as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("classification").unwrap();
    }
    assert_eq!(
        v,
        serde_json::from_str::<serde_json::Value>(&plain).unwrap()
    );
    let first_keys = |t: &str| t.lines().take(3).collect::<Vec<_>>().join("\n");
    assert_eq!(first_keys(&text), first_keys(&plain), "the order changed");
    // A file claiming a sub-cycle row is measured is classified again on the way out
    // (without the negative row, which an import refuses outright).
    let mut readable = run.clone();
    readable.results.retain(|r| r.id != "proc.exec.env_byte");
    let text = String::from_utf8(super::json::to_json(&readable).unwrap()).unwrap();
    let lying = text.replacen("\"below_cycle\"", "\"measured\"", 1);
    assert_ne!(lying, text);
    let back = super::json::from_json(lying.as_bytes()).unwrap();
    let again = json_readings(&back);
    assert_eq!(
        again[0].1["classification"]["reading"], "below_cycle",
        "{}",
        again[0].1
    );
}

/// Two hosts that both ran the fixture.
fn fleet_view() -> crate::model::fleet::FleetView {
    use crate::model::fleet::{FleetHost, FleetView};
    let (a, b) = (run(), run());
    let host = |name: &str, run_id| FleetHost {
        name: name.into(),
        group: None,
        run_id,
    };
    FleetView::new(
        "fixture",
        vec![host("alpha", 1), host("beta", 2)],
        &[&a, &b],
        |_| true,
    )
}

#[test]
fn the_fleet_view_prints_bounds_and_takes_no_median_of_them() {
    let view = fleet_view();
    let text = super::fleet::text(&view);
    assert_bounds_only("fleet", &text);
    let flat = flat(&text);
    assert!(flat.contains("below one CPU cycle: not resolved"), "{text}");
    assert!(flat.contains("not resolved"), "{text}");
    for row in &view.rows {
        let resolved = row.id == "syscall.getpid";
        assert_eq!(
            row.median.is_some(),
            resolved,
            "{}: {:?}",
            row.id,
            row.median
        );
        assert!(row.outside().is_empty(), "{row:?}");
    }
}

#[test]
fn the_fleet_csv_and_json_say_how_each_figure_is_read() {
    let view = fleet_view();
    let text = String::from_utf8(super::fleet::csv(&view).unwrap()).unwrap();
    let lines: Vec<std::collections::HashMap<String, String>> =
        csv::Reader::from_reader(text.as_bytes())
            .deserialize()
            .map(Result::unwrap)
            .collect();
    let kind = |id: &str| {
        let l = lines.iter().find(|l| l["id"] == id).unwrap();
        (l["resolved"].clone(), l["fleet_median"].clone())
    };
    assert_eq!(
        kind("cpu.stmt.i32.assign"),
        ("below_cycle".into(), String::new())
    );
    assert_eq!(
        kind("call.subroutine"),
        ("below_clock".into(), String::new())
    );
    assert_eq!(
        kind("proc.exec.env_byte"),
        ("not_positive".into(), String::new())
    );
    assert_eq!(kind("syscall.getpid").0, "measured");
    assert!(!kind("syscall.getpid").1.is_empty());
    let json: serde_json::Value =
        serde_json::from_slice(&super::fleet::json(&view).unwrap()).unwrap();
    let rows = json["rows"].as_array().unwrap();
    let row = |id: &str| rows.iter().find(|r| r["id"] == id).unwrap().clone();
    let sub = row("cpu.stmt.i32.assign");
    assert_eq!(sub["hosts"][0]["classification"]["reading"], "below_cycle");
    assert!(sub["median"].is_null(), "{sub}");
    assert_eq!(
        row("syscall.getpid")["hosts"][1]["classification"]["reading"],
        "measured"
    );
}

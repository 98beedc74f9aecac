//! What timeshare prints, pinned: `list`, and the tables, exports and comparisons made from
//! one fixed run (`tests/fixtures/run-quick.json`, a real `run --quick --json` of every
//! id, kept in schema version 1 so that reading an old file stays tested) and one fixed
//! exercise (`tests/fixtures/exercise-quick.json`, a real `exercise --quick`, exported). A
//! change to any of them shows here as a reviewable diff (`cargo insta review`), never as
//! a silent drift of a column. Everything is rendered [`WIDTH`] columns wide, whatever the
//! terminal the tests run from.

use std::path::Path;

use crate::common::{stdout_of, store_with, timeshare, FIXTURE};

/// The width the pinned output is rendered at: the width of piped output by default.
const WIDTH: &str = "100";

const EXERCISE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/exercise-quick.json"
);

/// A database in its own temporary directory holding the fixture as run 1.
fn store_with_fixture() -> tempfile::TempDir {
    store_with(Path::new(FIXTURE))
}

/// Standard output of `timeshare ARGS --db DB`, which must succeed.
fn output(db_dir: &Path, args: &[&str]) -> String {
    stdout_of(
        timeshare()
            .env("COLUMNS", WIDTH)
            .args(args)
            .arg("--db")
            .arg(db_dir.join("runs.db")),
        &args,
    )
}

/// Standard output of `timeshare ARGS` (a command that needs no database).
fn plain(args: &[&str]) -> String {
    let out = timeshare()
        .env("COLUMNS", WIDTH)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn list_is_pinned() {
    insta::assert_snapshot!("list", plain(&["list"]));
}

#[test]
fn show_of_a_fixed_run_is_pinned() {
    let db = store_with_fixture();
    insta::assert_snapshot!("show", output(db.path(), &["show", "1"]));
    insta::assert_snapshot!("show_wide", output(db.path(), &["show", "1", "--wide"]));
}

#[test]
fn every_seed_table_of_a_fixed_run_is_pinned() {
    let db = store_with_fixture();
    let keys = output(db.path(), &["table"]);
    insta::assert_snapshot!("table_list", keys.clone());
    let keys: Vec<&str> = keys
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        // A key is a seed's three digits, a dash and a name ("001-8", "000-C"); a wrapped
        // title's continuation ("8192-word blocks") is not.
        .filter(|k| {
            let b = k.as_bytes();
            b.len() > 4 && b[..3].iter().all(u8::is_ascii_digit) && b[3] == b'-'
        })
        .collect();
    assert!(keys.len() >= 10, "{keys:?}");
    for key in keys {
        let name = format!("table_{key}");
        insta::assert_snapshot!(name, output(db.path(), &["table", key, "--run", "1"]));
    }
}

#[test]
fn exports_of_a_fixed_run_are_pinned() {
    let db = store_with_fixture();
    for format in ["csv", "markdown"] {
        let name = format!("export_{format}");
        insta::assert_snapshot!(
            name,
            output(db.path(), &["export", "1", "--format", format])
        );
    }
    // The JSON export is the fixture itself, field for field, brought up to schema 2:
    // each result gained the basis its id's row declares, and nothing else changed.
    let exported: serde_json::Value =
        serde_json::from_str(&output(db.path(), &["export", "1", "--format", "json"])).unwrap();
    let mut fixture: serde_json::Value =
        serde_json::from_slice(&std::fs::read(FIXTURE).unwrap()).unwrap();
    assert_eq!(fixture["schema_version"], 1);
    assert_eq!(exported["schema_version"], 2);
    fixture["schema_version"] = 2.into();
    let mut exported = exported;
    strip_classifications(&mut exported);
    for r in exported["results"].as_array_mut().unwrap() {
        let basis = r.as_object_mut().unwrap().remove("basis").unwrap();
        assert!(
            basis["ops"].as_u64().unwrap() >= 1 && basis["op"].is_string(),
            "{basis}"
        );
    }
    assert_eq!(exported, fixture);
}

/// Take each result's `classification` (added by every JSON export, never stored) out
/// of an exported run, checking that it says one of the readings.
fn strip_classifications(run: &mut serde_json::Value) {
    for r in run["results"].as_array_mut().unwrap() {
        let class = r.as_object_mut().unwrap().remove("classification");
        let class = class.expect("every exported result is classified");
        let reading = class["reading"].as_str().unwrap_or_default().to_string();
        assert!(
            [
                "measured",
                "derived",
                "below_cycle",
                "below_clock",
                "not_positive",
                "no_figure"
            ]
            .contains(&reading.as_str()),
            "{class}"
        );
    }
}

#[test]
fn a_stored_exercise_is_pinned_with_seed_004s_machines() {
    let db = store_with(Path::new(EXERCISE));
    insta::assert_snapshot!("exercise_show", output(db.path(), &["show", "1"]));
    insta::assert_snapshot!(
        "exercise_table_004-jobs",
        output(db.path(), &["table", "004-jobs", "--run", "1"])
    );
    let sweep = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/exercise-sweep.json"
    );
    let swept = store_with(Path::new(sweep));
    insta::assert_snapshot!(
        "exercise_table_004-graphs",
        output(swept.path(), &["table", "004-graphs", "--run", "1"])
    );
    for machine in ["vax780-4.1bsd", "pe3242"] {
        let name = format!("exercise_compare_{machine}");
        insta::assert_snapshot!(name, output(db.path(), &["compare", "1", machine]));
    }
    // Exported, it is the recorded file again, each result with its classification.
    let mut exported: serde_json::Value =
        serde_json::from_str(&output(db.path(), &["export", "1"])).unwrap();
    strip_classifications(&mut exported);
    let fixture: serde_json::Value =
        serde_json::from_slice(&std::fs::read(EXERCISE).unwrap()).unwrap();
    assert_eq!(exported, fixture);
}

#[test]
fn comparisons_of_a_fixed_run_are_pinned() {
    let db = store_with_fixture();
    insta::assert_snapshot!("compare_self", output(db.path(), &["compare", "1", "1"]));
    insta::assert_snapshot!("reference", plain(&["reference"]));
    for machine in ["pdp11-70", "pdp11-70-ral", "vax750-4.2bsd", "vax750-4.3bsd"] {
        let name = format!("compare_{machine}");
        insta::assert_snapshot!(name, output(db.path(), &["compare", "1", machine]));
        let name = format!("reference_{machine}");
        insta::assert_snapshot!(name, plain(&["reference", machine]));
    }
}

/// The rows the pinned runs measure: a latency, a rate, a job, and the two signal rows
/// `ctx.switch` is derived from.
const MOCK_ROWS: &[&str] = &[
    "syscall.getpid",
    "signal.self",
    "signal.pingpong",
    "pipe.back.4",
    "pipe.bw.one",
    "proc.fork.0",
];

/// What `timeshare run ARGS MOCK_ROWS` prints in the run path's hidden test mode (every
/// figure computed from its id, a fixed machine and clock: `harness::mock`), standard
/// output then standard error, with the database's path (a temporary directory) named
/// `DB`. The run must end with `code`.
fn mock_run(args: &[&str], code: i32) -> String {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    let out = timeshare()
        .env("COLUMNS", WIDTH)
        .env("TIMESHARE_MOCK_RUN", "1")
        .arg("run")
        .args(args)
        .args(MOCK_ROWS)
        .arg("--db")
        .arg(&db)
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = stderr.replace(&db.display().to_string(), "DB");
    format!("── standard output ──\n{stdout}── standard error ──\n{stderr}")
}

#[test]
fn what_run_prints_is_pinned() {
    // One process: the start's warnings, where it was stored, the answer.
    // The one-screen answer, as a run ends by default.
    insta::assert_snapshot!("run_mock", mock_run(&["--quick", "--invocations", "1"], 0));
    // The full table and every family's tables, then the summary, as `--verbose` asks.
    insta::assert_snapshot!(
        "run_mock_verbose",
        mock_run(&["--quick", "--invocations", "1", "--verbose"], 0)
    );
    // Across processes: the merged rows, the run level's note, and the quiet-machine
    // reference measured again at the end (the mock's moves by 20%): the drift warning,
    // after the tables.
    insta::assert_snapshot!(
        "run_mock_invocations",
        mock_run(&["--quick", "--invocations", "3", "--no-save"], 0)
    );
}

#[test]
fn a_mock_run_is_stored_as_it_printed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    let json = dir.path().join("run.json");
    timeshare()
        .env("TIMESHARE_MOCK_RUN", "1")
        .args(["run", "--quick", "--invocations", "2", "--json"])
        .arg(&json)
        .args(MOCK_ROWS)
        .arg("--db")
        .arg(&db)
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .success();
    // The stored run, exported, is the run `--json` wrote: its end (status, end time,
    // the warnings and environment its last checks completed) was stored whole.
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let exported: serde_json::Value =
        serde_json::from_str(&output(dir.path(), &["export", "1"])).unwrap();
    assert_eq!(exported, written);
    let warnings = written["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("the machine drifted")),
        "{warnings:?}"
    );
}

/// `run` with getpid's every figure (samples, summaries, times) made twice as large: the
/// same run, slower on one row.
fn fixture_with_getpid_doubled(dir: &Path) -> std::path::PathBuf {
    let mut run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(FIXTURE).unwrap()).unwrap();
    let row = run["results"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["id"] == "syscall.getpid")
        .unwrap();
    let double = |v: &mut serde_json::Value| *v = (v.as_f64().unwrap() * 2.0).into();
    for summary in ["summary", "raw_summary"] {
        for key in ["median", "mean", "sd", "min", "max", "ci_low", "ci_high"] {
            double(&mut row[summary][key]);
        }
    }
    for s in row["samples"].as_array_mut().unwrap() {
        double(&mut s["value"]);
    }
    for key in ["elapsed_s", "user_s", "system_s"] {
        double(&mut row["times"][key]);
    }
    // An hour later: another run, not the fixture imported again.
    run["started_at"] = "2026-11-23T09:42:01.894782558Z".into();
    run["finished_at"] = "2026-11-23T09:42:53.011987570Z".into();
    let path = dir.join("slower.json");
    std::fs::write(&path, serde_json::to_vec(&run).unwrap()).unwrap();
    path
}

/// Import the run at `file` into the store in `dir`.
fn import_into(dir: &Path, file: &Path) {
    timeshare()
        .arg("import")
        .arg(file)
        .arg("--db")
        .arg(dir.join("runs.db"))
        .assert()
        .success();
}

#[test]
fn compare_as_json_gives_every_common_id_both_figures_and_the_verdict() {
    let db = store_with_fixture();
    let slower = fixture_with_getpid_doubled(db.path());
    import_into(db.path(), &slower);
    let text = output(db.path(), &["compare", "1", "last", "--format", "json"]);
    let got: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let fixture: serde_json::Value =
        serde_json::from_slice(&std::fs::read(FIXTURE).unwrap()).unwrap();
    let rows = got["columns"][0]["rows"].as_array().unwrap();
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    for r in fixture["results"].as_array().unwrap() {
        let id = r["id"].as_str().unwrap();
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    for row in rows {
        let id = row["id"].as_str().unwrap();
        let stored = fixture["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap();
        let verdict = row["verdict"].as_str().unwrap();
        if stored["status"]["state"] != "ok" || row["baseline"]["value"].is_null() {
            continue;
        }
        let median = stored["summary"]["median"].as_f64().unwrap();
        assert_eq!(row["baseline"]["value"].as_f64(), Some(median), "{id}");
        let other = row["other"]["value"].as_f64().unwrap();
        if id == "syscall.getpid" {
            assert!((other / median - 2.0).abs() < 1e-9, "{row}");
            assert_eq!(verdict, "slower", "{row}");
            assert!(row["verdict_text"].as_str().unwrap().contains("p"), "{row}");
        } else {
            assert_eq!(other, median, "{id}");
            assert_ne!(verdict, "slower", "{row}");
            assert_ne!(verdict, "faster", "{row}");
        }
    }
    // For CI: a slower row fails the comparison; the same run against itself does not.
    let gate = |a: &str, b: &str| {
        timeshare()
            .args(["compare", a, b, "--fail-on", "slower", "--db"])
            .arg(db.path().join("runs.db"))
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(gate("1", "last"), Some(1));
    assert_eq!(gate("1", "1"), Some(0));
}

#[test]
fn compare_takes_last_as_the_newest_ordinary_run_and_names_what_it_passed_over() {
    let db = store_with_fixture();
    let slower = fixture_with_getpid_doubled(db.path());
    // The slower copy as a run measured beside --observe-system.
    let mut run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&slower).unwrap()).unwrap();
    run["options"]["observed_system"] = true.into();
    std::fs::write(&slower, serde_json::to_vec(&run).unwrap()).unwrap();
    import_into(db.path(), &slower);
    let out = timeshare()
        .args(["compare", "1", "last", "--format", "json", "--db"])
        .arg(db.path().join("runs.db"))
        .assert()
        .success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains(
            "last: run 1, the newest ordinary run; passed over the newer run 2 \
                      (measured beside --observe-system)"
        ),
        "{err}"
    );
    let got: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let getpid = got["columns"][0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "syscall.getpid")
        .unwrap()
        .clone();
    assert_eq!(getpid["ratio"].as_f64(), Some(1.0), "{getpid}");
    // Named by its id, the observed run is compared, and its column says what it was.
    let text = output(db.path(), &["compare", "1", "2"]);
    assert!(text.contains("measured beside --observe-system"), "{text}");
}

#[test]
fn compare_of_a_quick_and_a_full_run_is_one_table_and_parses_as_json_csv_and_markdown() {
    let db = store_with_fixture();
    // The second run: the fixture with getpid twice as slow, stored as a full run.
    let full_path = fixture_with_getpid_doubled(db.path());
    let mut full_run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&full_path).unwrap()).unwrap();
    full_run["options"]["mode"] = "full".into();
    std::fs::write(&full_path, serde_json::to_vec(&full_run).unwrap()).unwrap();
    import_into(db.path(), &full_path);
    let full_file = full_path.to_str().unwrap().to_string();
    let full_name = full_file.as_str();
    let ids_of = |file: &str| -> Vec<String> {
        let run: serde_json::Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        run["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    let full = ids_of(full_name);
    let common: Vec<String> = ids_of(FIXTURE)
        .into_iter()
        .filter(|id| full.contains(id))
        .collect();
    assert!(common.len() > 10, "{common:?}");

    let json: serde_json::Value = serde_json::from_str(&output(
        db.path(),
        &["compare", "1", "2", "--format", "json"],
    ))
    .expect("JSON");
    let rows = json["columns"][0]["rows"].as_array().unwrap();
    for id in &common {
        let row = rows.iter().find(|r| r["id"] == id.as_str());
        let row = row.unwrap_or_else(|| panic!("{id} missing"));
        assert!(row["verdict"].is_string(), "{row}");
        for side in ["baseline", "other"] {
            assert!(row[side]["shown"].is_string(), "{id}: {row}");
        }
    }
    let both = rows
        .iter()
        .filter(|r| r["baseline"]["value"].is_f64() && r["other"]["value"].is_f64())
        .count();
    assert!(
        both > 10,
        "figures on both sides for most common ids: {both}"
    );

    let csv_text = output(db.path(), &["compare", "1", "2", "--format", "csv"]);
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), rows.len(), "one line per id, as the JSON");
    for (r, j) in records.iter().zip(rows) {
        assert_eq!(&r[col("id")], j["id"].as_str().unwrap());
        assert_eq!(&r[col("verdict")], j["verdict"].as_str().unwrap());
        if let Some(v) = j["other"]["value"].as_f64() {
            assert_eq!(r[col("other")].parse::<f64>().unwrap(), v, "{r:?}");
        }
    }

    let md = output(db.path(), &["compare", "1", "2", "--format", "markdown"]);
    let lines: Vec<&str> = md.lines().collect();
    assert_eq!(
        lines.len(),
        rows.len() + 2,
        "header, rule and a line per id"
    );
    assert!(lines
        .iter()
        .all(|l| l.starts_with("| ") || l.starts_with("|---")));

    let text = output(db.path(), &["compare", "1", "2"]);
    for l in text.lines() {
        assert!(l.chars().count() <= 100, "wider than 100: {l}");
    }
    assert_eq!(
        text.lines().filter(|l| l.contains(" benchmark ")).count(),
        1,
        "one table: {text}"
    );
}

/// A full run of the syscall family as the tool recorded it: three processes a row, kept
/// with their summaries (no samples).
const FULL_RUN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/aa-1.json");

#[test]
fn compare_of_a_recorded_quick_run_and_a_recorded_full_run_gives_every_common_id_as_json() {
    let read = |file: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap()
    };
    let (quick, full) = (read(FIXTURE), read(FULL_RUN));
    assert_eq!(quick["options"]["mode"], "quick");
    assert_eq!(full["options"]["mode"], "full");
    let db = store_with_fixture();
    import_into(db.path(), Path::new(FULL_RUN));
    let json: serde_json::Value = serde_json::from_str(&output(
        db.path(),
        &["compare", "1", "2", "--format", "json"],
    ))
    .expect("JSON");
    let rows = json["columns"][0]["rows"].as_array().unwrap();
    let result = |run: &serde_json::Value, id: &str| {
        run["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .cloned()
    };
    let mut common = 0;
    for stored in full["results"].as_array().unwrap() {
        let id = stored["id"].as_str().unwrap();
        let Some(in_quick) = result(&quick, id) else {
            continue;
        };
        common += 1;
        let row = rows.iter().find(|r| r["id"] == id);
        let row = row.unwrap_or_else(|| panic!("{id} missing"));
        let verdict = row["verdict"].as_str().unwrap();
        let text = row["verdict_text"].as_str().unwrap();
        for (side, run) in [("baseline", &in_quick), ("other", stored)] {
            match row[side]["value"].as_f64() {
                // Each figure is the run's stored headline, as it was recorded.
                Some(v) => assert_eq!(Some(v), run["summary"]["median"].as_f64(), "{id}"),
                // Only a figure below what the clock resolves is withheld: a bound.
                None => assert!(
                    row[side]["shown"].as_str().unwrap().starts_with('<'),
                    "{id}: {row}"
                ),
            }
        }
        match (
            row["baseline"]["value"].as_f64(),
            row["other"]["value"].as_f64(),
        ) {
            (Some(a), Some(b)) if verdict != "not comparable" => {
                let ratio = row["ratio"].as_f64().unwrap();
                assert!((ratio - b / a).abs() < 1e-9 * ratio, "{id}: {row}");
                // One process with samples against three without: nothing to test, and
                // the verdict says why rather than "no change".
                assert_eq!(verdict, "no verdict", "{id}: {row}");
                assert!(
                    text.starts_with("not tested: run 2 holds no samples"),
                    "{row}"
                );
            }
            (Some(_), Some(_)) => {
                assert!(row["ratio"].is_null(), "{row}");
                assert!(text.contains(" per "), "names both operations: {row}");
            }
            _ => assert_eq!(verdict, "no verdict", "{id}: {row}"),
        }
    }
    assert_eq!(common, 32, "every row of the full run is in the quick one");
    // The same comparison as a table: one, and no line over 100 columns.
    let text = output(db.path(), &["compare", "1", "2"]);
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with(" benchmark "))
            .count(),
        1,
        "{text}"
    );
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
    assert!(text.contains("only in run 1: 190 ids"), "{text}");
}

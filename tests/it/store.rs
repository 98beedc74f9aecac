//! The results store and what reads it: history, show, export, import, compare, reference,
//! table. Every test uses its own database in a temporary directory.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use predicates::prelude::*;
use serde_json::Value;

use crate::common::{json, timeshare};

struct Db {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

fn db() -> Db {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.db");
    Db { _dir: dir, path }
}

impl Db {
    /// `timeshare ARGS --db PATH`, asserting success; standard output.
    fn ok(&self, args: &[&str]) -> String {
        let out = timeshare()
            .args(args)
            .arg("--db")
            .arg(&self.path)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    }

    /// `timeshare ARGS --db PATH`, asserting exit 2 and a one-line error containing `says`.
    fn bad(&self, args: &[&str], says: &str) {
        timeshare()
            .args(args)
            .arg("--db")
            .arg(&self.path)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says))
            .stderr(predicate::function(|s: &str| s.lines().count() == 1));
    }

    fn run(&self, label: &str) {
        timeshare()
            .args([
                "run",
                "syscall.getpid*",
                "syscall.getuid",
                "--quick",
                "--label",
                label,
            ])
            .arg("--db")
            .arg(&self.path)
            .assert()
            .success()
            .stderr(predicate::str::contains("stored as run"));
    }

    fn import(&self, file: &Path) {
        self.ok(&["import", file.to_str().unwrap()]);
    }
}

/// History lines that are runs (they start with the run id).
fn history_rows(history: &str) -> Vec<String> {
    history
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_run_is_stored_and_read_back_in_every_form() {
    let db = db();
    db.run("first");
    db.run("second");

    let history = db.ok(&["history"]);
    let rows = history_rows(&history);
    assert_eq!(rows.len(), 2, "{history}");
    assert!(
        rows[0].trim_start().starts_with('2'),
        "newest first: {history}"
    );
    assert!(rows[0].contains("second") && rows[0].contains("complete"));

    let shown = db.ok(&["show", "first"]);
    assert!(
        shown.contains("run 1") && shown.contains("syscall.getpid"),
        "{shown}"
    );
    assert!(
        shown.contains("clock read"),
        "the header is rebuilt: {shown}"
    );

    let exported = db.ok(&["export", "last", "--format", "json"]);
    let run = json(exported.as_bytes());
    assert_eq!(run["options"]["label"], "second");
    let getpid = crate::common::result(&run, "syscall.getpid");
    assert!(
        !getpid["samples"].as_array().unwrap().is_empty(),
        "samples kept"
    );

    let csv = db.ok(&["export", "1", "--format", "csv"]);
    assert!(csv.starts_with("id,family,status,unit"), "{csv}");
    assert!(csv
        .lines()
        .any(|l| l.starts_with("syscall.getpid,syscall,ok,s/op")));

    let md = db.ok(&["export", "1", "--format", "markdown"]);
    assert!(md.contains("| benchmark | median |") && md.contains("| `syscall.getuid` |"));

    // The JSON goes into a fresh database and comes back the same.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.json");
    std::fs::write(&file, &exported).unwrap();
    let fresh = self::db();
    fresh.import(&file);
    assert!(fresh.ok(&["history"]).contains("imported from"));
    let again = json(fresh.ok(&["export", "last"]).as_bytes());
    assert_eq!(again["results"], run["results"]);

    let compared = db.ok(&["compare", "first", "second"]);
    assert!(compared.contains("syscall.getpid") && compared.contains("run 2"));
    assert!(
        compared.contains("no significant change")
            || compared.contains("faster")
            || compared.contains("slower")
            || compared.contains("too few"),
        "{compared}"
    );
}

/// The table row of `id`.
fn row<'a>(table: &'a str, id: &str) -> &'a str {
    table
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{id} ")))
        .unwrap_or_else(|| panic!("no row {id} in\n{table}"))
}

/// A copy of `run` whose `id` result has the given clean samples (and a matching median),
/// measured in one process: the processes a run across several kept are dropped, so that
/// the samples are what a comparison tests.
fn with_samples(run: &Value, id: &str, samples: &[f64]) -> Value {
    let mut run = run.clone();
    let results = run["results"].as_array_mut().unwrap();
    let r = results.iter_mut().find(|r| r["id"] == id).unwrap();
    r.as_object_mut().unwrap().remove("invocations");
    r["samples"] = samples
        .iter()
        .map(|v| serde_json::json!({"value": v, "preemptions": 0, "cpu_start": 0, "cpu_end": 0, "culled": false}))
        .collect();
    r["culled"] = 0.into();
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = (sorted[sorted.len() / 2] + sorted[(sorted.len() - 1) / 2]) / 2.0;
    r["summary"]["median"] = median.into();
    r["summary"]["n"] = samples.len().into();
    run
}

/// Twenty samples around 100 ns with ±8% of deterministic noise.
fn noisy_samples() -> Vec<f64> {
    (0..20)
        .map(|i| 100e-9 * (0.92 + 0.16 * ((i * 7919) % 20) as f64 / 20.0))
        .collect()
}

#[test]
fn compare_calls_noise_no_change_and_a_thirty_percent_shift_slower() {
    let source = db();
    source.run("base");
    let run = json(source.ok(&["export", "last"]).as_bytes());

    let base = noisy_samples();
    let same = base.clone();
    let slower: Vec<f64> = base.iter().map(|v| v * 1.3).collect();
    let dir = tempfile::tempdir().unwrap();
    let fixtures = db();
    for (k, (name, samples)) in [("a", &base), ("b", &same), ("c", &slower)]
        .into_iter()
        .enumerate()
    {
        let file = dir.path().join(format!("{name}.json"));
        let mut fixture = with_samples(&run, "syscall.getpid", samples);
        // Three runs, not one imported three times: each starts at its own instant.
        fixture["started_at"] = format!("2026-01-0{}T00:00:00Z", k + 1).into();
        std::fs::write(&file, serde_json::to_vec(&fixture).unwrap()).unwrap();
        fixtures.import(&file);
    }
    let out = fixtures.ok(&["compare", "1", "2", "3"]);
    let line = row(&out, "syscall.getpid");
    assert!(line.contains("no change"), "{out}");
    assert!(line.contains("slower ("), "{out}");
    assert!(line.contains("×1.30"), "{out}");
    // The p-value in the note the verdict's number points to.
    assert!(out.contains("slower (p ="), "{out}");
    // At 80 columns the two comparisons do not fit side by side: a table each, under its
    // heading, each row with its own verdict, no line wider than the output.
    let narrow = timeshare()
        .env("COLUMNS", "80")
        .args(["compare", "1", "2", "3", "--db"])
        .arg(&fixtures.path)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let narrow = String::from_utf8(narrow).unwrap();
    assert!(narrow.lines().all(|l| l.chars().count() <= 80), "{narrow}");
    let headers: Vec<&str> = narrow
        .lines()
        .filter(|l| l.starts_with(" benchmark "))
        .collect();
    assert_eq!(headers.len(), 2, "{narrow}");
    assert!(
        headers.iter().all(|h| h.matches("verdict").count() == 1),
        "{narrow}"
    );
    let tables: Vec<&str> = narrow.split(" against run 1: 3 ids\n").skip(1).collect();
    assert_eq!(tables.len(), 2, "{narrow}");
    assert!(
        row(tables[0], "syscall.getpid").contains("no change"),
        "{narrow}"
    );
    assert!(
        row(tables[1], "syscall.getpid").contains("slower ("),
        "{narrow}"
    );
}

#[test]
fn compare_sets_a_run_beside_the_historical_machines() {
    let db = db();
    db.run("today");
    let vax = db.ok(&["compare", "last", "vax750-4.3bsd"]);
    let line = row(&vax, "syscall.getpid");
    assert!(line.contains("230 µs") && line.contains("today"), "{vax}");
    // The source is named under the table, one line per id.
    let sources = vax
        .split("historical sources:\n")
        .nth(1)
        .expect("sources listed");
    assert!(
        sources.contains("  syscall.getpid: 001 Table 2, row syscall"),
        "{vax}"
    );
    let pdp = db.ok(&["compare", "last", "pdp11-70"]);
    let line = row(&pdp, "syscall.getpid");
    assert!(line.contains("230 µs"), "{pdp}");
    assert!(pdp.contains("  syscall.getpid: 002 Figure 4"), "{pdp}");
    let table = db.ok(&["table", "001-2"]);
    assert!(table.contains("4.3bsd") && table.contains("syscall.getpid"));
    let listed = timeshare().arg("reference").assert().success();
    let listed = String::from_utf8(listed.get_output().stdout.clone()).unwrap();
    for m in [
        "pdp11-40",
        "vax750-4.1bsd",
        "perq-pnx",
        "vax780-4.1bsd",
        "pe3242",
        "pdp11-44",
    ] {
        assert!(listed.contains(m), "{m} missing: {listed}");
    }
}

#[test]
fn a_run_is_imported_once_a_label_names_one_run_and_a_comparison_needs_a_common_id() {
    let db = db();
    db.run("base");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.json");
    std::fs::write(&file, db.ok(&["export", "last"])).unwrap();
    // The run is already here (it was stored as it ran): importing it is a no-op that
    // says so, twice over.
    for _ in 0..2 {
        let said = db.ok(&["import", file.to_str().unwrap()]);
        assert!(
            said.contains("not imported") && said.contains("run 1 already"),
            "{said}"
        );
    }
    assert_eq!(history_rows(&db.ok(&["history"])).len(), 1);

    db.run("base");
    timeshare()
        .args(["show", "base", "--db"])
        .arg(&db.path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the label \"base\" names 2 runs (1, 2): name one by its id",
        ));
    assert!(db.ok(&["show", "2"]).contains("run 2"));

    // No id in common: an error that says what each side has, not an empty table.
    db.bad(
        &["compare", "last", "vax780-4.1bsd"],
        "no id in common: run 2 has 3 ids (syscall.getpid, syscall.getpid.libc, syscall.getuid); \
         vax780-4.1bsd has 4 ids (exercise.ed, exercise.cc, exercise.float, exercise.nroff)",
    );
    db.bad(&["compare", "last", "pdp11-44"], "pdp11-44 has no figure");
}

#[test]
fn an_old_result_file_is_read_with_the_bases_its_rows_declare() {
    // The fixture is a schema-1 file: no result says what it is per.
    let db = db();
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/run-quick.json");
    db.import(Path::new(fixture));
    let run = json(db.ok(&["export", "last"]).as_bytes());
    assert_eq!(run["schema_version"], 2);
    let proc_call = crate::common::result(&run, "cpu.proc_call");
    assert_eq!(
        proc_call["basis"],
        serde_json::json!({"ops": 1000000, "op": "call of dummy(a, b, c)"})
    );
    let out = db.ok(&["compare", "last", "pdp11-70-ral"]);
    let line = row(&out, "cpu.proc_call");
    // 1.71 ms for a million calls is 1.71 ns a call: 36.1 µs / 1.71 ns.
    assert!(
        line.contains("1.71 ns") && line.contains("today 21058× faster"),
        "{out}"
    );
}

#[test]
fn bad_input_is_refused_with_one_line_and_exit_2() {
    let db = db();
    db.run("only");
    let dir = tempfile::tempdir().unwrap();
    let corrupt = dir.path().join("corrupt.json");
    std::fs::write(&corrupt, b"\x00\x01 not json").unwrap();
    db.bad(
        &["import", corrupt.to_str().unwrap()],
        "is not a timeshare result",
    );
    let truncated = dir.path().join("truncated.json");
    let whole = db.ok(&["export", "last"]);
    std::fs::write(&truncated, &whole[..whole.len() / 2]).unwrap();
    db.bad(
        &["import", truncated.to_str().unwrap()],
        "is not a timeshare result",
    );
    assert_eq!(
        history_rows(&db.ok(&["history"])).len(),
        1,
        "nothing imported"
    );

    db.bad(&["show", "42"], "no run 42");
    db.bad(&["export", "nolabel"], "no run labelled");
    db.bad(
        &["compare", "last", "vax-11/999"],
        "no run or reference machine",
    );
    db.bad(&["table", "009-9"], "no seed table");
    timeshare()
        .args(["reference", "cray-1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no reference machine named"));

    let newer = self::db();
    newer.run("x");
    let conn = rusqlite::Connection::open(&newer.path).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    newer.bad(&["history"], "newer than this timeshare");
    timeshare()
        .args(["run", "syscall.getpid", "--db"])
        .arg(&newer.path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("schema version 99"));
}

#[test]
fn the_default_database_is_in_the_data_directory_and_no_save_skips_it() {
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("data");
    timeshare()
        .env_remove("TIMESHARE_DB")
        .env("XDG_DATA_HOME", &data)
        .args(["run", "syscall.getpid", "--quick"])
        .assert()
        .success();
    assert!(data.join("timeshare/runs.db").is_file());

    let elsewhere = home.path().join("env.db");
    timeshare()
        .env("TIMESHARE_DB", &elsewhere)
        .args(["run", "syscall.getpid", "--quick", "--no-save"])
        .assert()
        .success()
        .stderr(predicate::str::contains("stored as").not());
    assert!(!elsewhere.exists());
}

#[test]
fn concurrent_runs_share_one_database() {
    let db = db();
    let spawn = || {
        crate::common::command()
            .args(["run", "syscall.getpid", "syscall.getuid", "--quick", "--db"])
            .arg(&db.path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let children: Vec<_> = (0..3).map(|_| spawn()).collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let history = db.ok(&["history"]);
    let rows = history_rows(&history);
    assert_eq!(rows.len(), 3, "{history}");
    assert!(rows.iter().all(|r| r.contains("complete")), "{history}");
}

#[test]
fn a_run_killed_with_sigkill_shows_as_interrupted() {
    let db = db();
    // Its scratch directory goes in the test's own: nothing can remove it after SIGKILL.
    // One process: a run of several stores its results when the last round ends.
    let mut child = crate::common::command()
        .args(["run", "syscall", "--full", "--invocations", "1", "--db"])
        .arg(&db.path)
        .arg("--dir")
        .arg(db.path.parent().unwrap())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until a result or two is stored, then kill it outright.
    let start = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let stored = db
            .path
            .exists()
            .then(|| {
                let conn = rusqlite::Connection::open(&db.path).ok()?;
                conn.query_row("SELECT count(*) FROM results", [], |r| r.get::<_, i64>(0))
                    .ok()
            })
            .flatten()
            .unwrap_or(0);
        if stored >= 2 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no result stored"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended too soon"
        );
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let history = db.ok(&["history"]);
    let rows = history_rows(&history);
    assert_eq!(rows.len(), 1, "{history}");
    assert!(rows[0].contains("interrupted"), "{history}");
    // `last` is the last complete run: an interrupted one is named by its id or `last-any`.
    db.bad(&["show", "last"], "no complete run to call `last`");
    let shown = db.ok(&["show", "last-any"]);
    assert!(
        shown.contains("interrupted") && shown.contains("syscall."),
        "{shown}"
    );
}

/// `table KEY` takes each row from the newest complete run that measured it and says which
/// run that was; `--run` takes every row from one run.
#[test]
fn a_seed_table_takes_each_row_from_the_newest_run_that_has_it() {
    let db = db();
    db.import(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/run-quick.json"
    )));
    db.run("newer");
    let table = db.ok(&["table", "002-4"]);
    let line = |row: &str| {
        table
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(row))
            .unwrap_or_else(|| panic!("no {row} row: {table}"))
            .to_string()
    };
    assert!(line("syscall.getpid").contains("run 2"), "{table}");
    assert!(line("syscall.getuid").contains("run 2"), "{table}");
    assert!(line("syscall.alarm").contains("run 1"), "{table}");
    assert!(
        table.contains("the newest run that has each row")
            && table.contains("run 1 (")
            && table.contains("run 2 ("),
        "{table}"
    );
    let one = db.ok(&["table", "002-4", "--run", "1"]);
    assert!(
        one.contains("today = run 1 (") && !one.contains("run 2"),
        "{one}"
    );
}

/// A run across processes learns how far runs differ from the earlier runs like it in
/// its store: the first two say their intervals are of their processes only; the third
/// widens each interval by what the first two showed and keeps the processes' own
/// interval beside it. A run unlike them (one process) learns nothing from them.
#[test]
fn the_third_run_across_processes_holds_the_next_runs_figure() {
    let db = db();
    let run = |label: &str, processes: &str| -> Value {
        let out = timeshare()
            .args(["run", "syscall.getpid", "syscall.getuid", "--quick"])
            .args(["--invocations", processes, "--label", label, "--json", "-"])
            .arg("--db")
            .arg(&db.path)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        json(&out)
    };
    let says_processes_only = |r: &Value| {
        r["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("of this run's processes only"))
    };
    let first = run("first", "2");
    let second = run("second", "2");
    assert!(says_processes_only(&first) && says_processes_only(&second));
    let getpid = crate::common::result(&second, "syscall.getpid");
    assert!(getpid["invocations"].get("runs").is_none(), "{getpid}");

    let third = run("third", "2");
    assert!(!says_processes_only(&third), "{}", third["warnings"]);
    for id in ["syscall.getpid", "syscall.getuid"] {
        let r = crate::common::result(&third, id);
        let level = &r["invocations"]["runs"];
        assert_eq!(level["earlier_runs"], 2, "{id}: {level}");
        assert_eq!(level["df"], 2, "two ids, two runs each: {level}");
        let f = |v: &Value| v.as_f64().unwrap();
        let (lo, hi) = (f(&r["summary"]["ci_low"]), f(&r["summary"]["ci_high"]));
        assert!(lo <= f(&level["process_low"]) && hi >= f(&level["process_high"]));
        assert!(
            lo <= f(&level["low"]) && hi >= f(&level["high"]),
            "the union: {r}"
        );
        let median = f(&r["summary"]["median"]);
        assert!(f(&level["low"]) < median && median < f(&level["high"]));
    }
    // The stored run carries the same, and says nothing of "processes only".
    let stored = json(db.ok(&["export", "third"]).as_bytes());
    assert!(!says_processes_only(&stored));
    let r = crate::common::result(&stored, "syscall.getpid");
    assert_eq!(r["invocations"]["runs"]["earlier_runs"], 2);

    let single = run("single", "1");
    assert!(crate::common::result(&single, "syscall.getpid")
        .get("invocations")
        .is_none());
    // ... and is not learned from: the next run across two processes counts three.
    let fourth = run("fourth", "2");
    let r = crate::common::result(&fourth, "syscall.getpid");
    assert_eq!(r["invocations"]["runs"]["earlier_runs"], 3, "{r}");
}

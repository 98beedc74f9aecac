//! Watching the machine: `monitor`, and a run's `--observe`, `--counters` and `--trace`,
//! as a user calls them. Counts and shapes only: what the kernel counted, never how fast.

use crate::common::{is_root, json, result, timeshare};

#[test]
fn monitor_prints_the_lines_asked_for_with_the_vmstat_columns() {
    let out = timeshare()
        .args(["monitor", "--interval", "0.1", "--count", "3"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.contains("cs/s") && l.contains("flt/s"))
        .unwrap_or_else(|| panic!("no header in\n{text}"));
    let rows: Vec<&str> = lines[header + 1..]
        .iter()
        .copied()
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(rows.len(), 3, "{text}");
    let columns = lines[header].split_whitespace().count();
    for r in rows {
        assert!(
            r.split_whitespace().all(|f| f.parse::<f64>().is_ok()),
            "a line of figures: {r}"
        );
        assert!(r.split_whitespace().count() >= columns - 4, "{r}");
    }
}

#[test]
fn monitor_json_is_one_object_per_line_with_rates() {
    let out = timeshare()
        .args(["monitor", "--interval", "0.1", "--count", "2", "--json"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let objects: Vec<serde_json::Value> = text.lines().map(|l| json(l.as_bytes())).collect();
    assert_eq!(objects.len(), 2, "{text}");
    for o in &objects {
        assert!(o["context_switches_per_s"].as_f64().unwrap() >= 0.0, "{o}");
    }
}

#[test]
fn absurd_intervals_and_counts_are_refused_before_anything_runs() {
    for args in [
        &["monitor", "--count", "0"][..],
        &["monitor", "--interval=-1", "--count", "1"],
        &["run", "syscall.getpid", "--observe", "100", "--no-save"],
        &["run", "syscall.getpid", "--observe", "0", "--no-save"],
    ] {
        let out = timeshare().args(args).assert().code(2);
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("timeshare: error:"), "{args:?}: {err}");
    }
}

/// `--observe` keeps the machine's lines during the row; `--counters` the software
/// counters over one counted batch, and each hardware counter either read or unavailable
/// with its reason; `--trace` (root) counts one getpid per operation.
#[test]
fn a_run_records_what_it_was_asked_to_watch() {
    let out = timeshare()
        .args([
            "run",
            "syscall.getpid",
            "--observe",
            "0.05",
            "--counters",
            "--trace",
            "--no-save",
            "--json",
            "-",
        ])
        .assert()
        .success();
    let run = json(&out.get_output().stdout);
    let r = result(&run, "syscall.getpid");
    assert_eq!(r["status"]["state"], "ok", "{r}");
    let o = &r["observe"];
    let lines = o["series"]["lines"].as_array().expect("series lines");
    assert!(!lines.is_empty(), "{o}");
    assert!(o["counters"]["ops"].as_u64().unwrap() > 0, "{o}");
    let counters = o["counters"]["counters"].as_array().unwrap();
    let task_clock = counters
        .iter()
        .find(|c| c["name"] == "task-clock")
        .expect("task-clock counted");
    assert!(task_clock["hardware"] == false, "{task_clock}");
    for c in counters.iter().filter(|c| c["hardware"] == true) {
        let state = c["reading"]["state"].as_str().unwrap();
        if state == "unavailable" {
            assert!(!c["reading"]["reason"].as_str().unwrap().is_empty(), "{c}");
        }
    }
    if is_root() {
        let trace = &o["trace"];
        let getpid = trace["calls"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "getpid")
            .expect("getpid counted");
        let per_op = getpid["per_op"].as_f64().unwrap();
        assert!((0.99..=1.01).contains(&per_op), "{trace}");
        assert_eq!(trace["expected"][0]["met"], true, "{trace}");
    } else {
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(o.get("trace").is_none() && err.contains("--trace"), "{err}");
    }
}

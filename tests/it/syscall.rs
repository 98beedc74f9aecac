//! The syscall family end to end: every id reported, JSON complete, root-only rows
//! skipped with a reason for an ordinary user.

use crate::common::{json, result, timeshare};

#[test]
fn syscall_quick_reports_every_id_in_valid_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    timeshare()
        .args(["run", "syscall", "--quick", "--json"])
        .arg(&path)
        .assert()
        .success();
    let run = json(&std::fs::read(&path).unwrap());
    assert_eq!(run["schema_version"], 2);
    assert!(run["environment"]["cpu"]["model"].is_string());
    let listed = timeshare().args(["list", "syscall"]).assert().success();
    let listing = String::from_utf8_lossy(&listed.get_output().stdout).to_string();
    let ids: Vec<&str> = listing
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.contains('.') && !w.ends_with('.'))
        .collect();
    assert!(ids.len() >= 30, "{ids:?}");
    for id in ids {
        let r = result(&run, id);
        match r["status"]["state"].as_str().unwrap() {
            "ok" => {
                let s = &r["summary"];
                for field in ["median", "ci_low", "ci_high", "sd", "n"] {
                    assert!(s[field].is_number(), "{id}: no {field}");
                }
                assert!(r["culled"].is_number(), "{id}: no culled count");
                assert!(r["basis"]["op"].is_string(), "{id}: no basis");
                // A derived row (the per-argument slope) may honestly be zero or below.
                if r["derived"].as_bool() != Some(true) {
                    assert!(s["median"].as_f64().unwrap() > 0.0, "{id}");
                }
            }
            "skipped" => assert!(r["status"]["reason"].as_str().unwrap().len() > 10),
            other => panic!("{id}: {other}: {}", r["status"]),
        }
    }
}

/// Run as `nobody` (needs root to switch user): the root-only rows say why they skipped,
/// and every other row still works.
#[test]
fn an_ordinary_user_gets_root_rows_skipped_with_the_reason() {
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("not root: cannot switch to nobody; this test checks nothing here");
        return;
    }
    // A copy nobody can reach, wherever the checkout lies (/root is not searchable).
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("timeshare");
    std::fs::copy(assert_cmd::cargo::cargo_bin("timeshare"), &bin).unwrap();
    let open = std::os::unix::fs::PermissionsExt::from_mode(0o755);
    std::fs::set_permissions(dir.path(), open).unwrap();
    let out = crate::common::isolate(&mut std::process::Command::new("setpriv"))
        .args([
            "--reuid",
            "nobody",
            "--regid",
            "nogroup",
            "--clear-groups",
            "--",
        ])
        .arg(&bin)
        .args(["run", "syscall", "--quick", "--json", "-", "--no-save"])
        .env("TMPDIR", "/tmp")
        .output()
        .expect("setpriv runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = json(&out.stdout);
    assert_eq!(run["environment"]["privileged"], false);
    for id in ["syscall.setuid", "syscall.setgid"] {
        let r = result(&run, id);
        assert_eq!(r["status"]["state"], "skipped", "{id}");
        assert!(r["status"]["reason"].as_str().unwrap().contains("root"));
    }
    assert_eq!(result(&run, "syscall.getpid")["status"]["state"], "ok");
    assert_eq!(result(&run, "syscall.gtty")["status"]["state"], "ok");
}

/// Seed 002's rows are also timed one call at a time: the record holds the calls' count
/// and statistics, and `table 002-4` sets their mean and SD beside the paper's.
#[test]
fn seed_002_rows_carry_single_call_statistics_into_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    let path = dir.path().join("r.json");
    timeshare()
        .args([
            "run",
            "syscall.getpid",
            "syscall.getpid.libc",
            "--quick",
            "--json",
        ])
        .arg(&path)
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    let run = json(&std::fs::read(&path).unwrap());
    let single = &result(&run, "syscall.getpid")["single_calls"];
    assert_eq!(single["n"], 2001, "{single}");
    for field in ["median_s", "mean_s", "sd_s", "subtracted_s"] {
        assert!(single[field].is_number(), "no {field}: {single}");
    }
    assert!(single["subtracted_s"].as_f64().unwrap() > 0.0, "{single}");
    // The run compared its clock's rate with the raw clock's over its whole length.
    let rate = &run["environment"]["clock_rate"];
    assert!(rate["window_s"].as_f64().is_some_and(|w| w > 0.0), "{rate}");
    assert!(rate["ppm"].as_f64().is_some_and(f64::is_finite), "{rate}");
    // A row outside seed 002's Figures 4–6 is not timed one by one.
    assert!(result(&run, "syscall.getpid.libc")["single_calls"].is_null());

    let out = timeshare()
        .env("COLUMNS", "100")
        .args(["table", "002-4", "--db"])
        .arg(&db)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("syscall.getpid"))
        .unwrap_or_else(|| panic!("no getpid row: {text}"));
    let mean = lines[at + 1];
    assert!(mean.contains("mean (1 call)"), "{text}");
    // Today's cell is a figure (a unit follows it), not "—".
    let today = mean
        .split("mean (1 call)")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .nth(1);
    assert!(
        matches!(today, Some("ns" | "µs" | "ms")),
        "today's single-call mean missing: {mean}"
    );
}

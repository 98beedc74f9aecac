//! `timeshare selftest`: its listing, its refusals, and one cheap check measured and
//! reported. Whether a timing claim holds is the selftest's own verdict, never asserted
//! here: on a busy machine it may honestly say FAILED, and that is not the test's failure.

use predicates::prelude::*;

use crate::common::timeshare;

/// One check runs and reports: a header, its verdict line with its figures and bounds,
/// and the summary as the last line; the exit status is the verdict's (0 held, 1 missed),
/// never a usage error.
#[test]
fn one_cheap_check_is_measured_and_reported() {
    let out = timeshare()
        .args(["selftest", "harness.spin", "--attempts", "1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("timeshare selftest: 1 checks, pinned to CPU "),
        "{text}"
    );
    assert!(
        lines[0].contains("strict bounds, at most 1 attempts each"),
        "{text}"
    );
    let verdict = lines
        .iter()
        .find(|l| l.split_whitespace().nth(1) == Some("harness.spin"))
        .unwrap_or_else(|| panic!("no verdict line:\n{text}"));
    let held = verdict.starts_with("ok ");
    assert!(held || verdict.starts_with("FAILED "), "{verdict}");
    assert!(text.contains("a 50 µs operation: "), "{text}");
    assert!(text.contains("µs (want 49–60)"), "{text}");
    assert!(text.contains("100 µs / 50 µs: "), "{text}");
    let last = lines.last().unwrap();
    let expected = if held {
        "1 ok, 0 failed, 0 skipped in "
    } else {
        "0 ok, 1 failed, 0 skipped in "
    };
    assert!(last.starts_with(expected), "{last}");
    assert_eq!(out.status.code(), Some(if held { 0 } else { 1 }), "{text}");
}

#[test]
fn list_names_every_check_and_measures_nothing() {
    let out = timeshare().args(["selftest", "--list"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let ids: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for id in [
        "harness.spin",
        "proc.doubling",
        "fs.namei",
        "cpu.doubling",
        "load.cpu.shape",
    ] {
        assert!(ids.contains(&id), "{id} not listed: {text}");
    }
    assert!(!text.contains("selftest:"), "nothing measured: {text}");
}

#[test]
fn an_unknown_check_or_cpu_is_refused_before_anything_runs() {
    timeshare()
        .args(["selftest", "proc.nosuch"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown check 'proc.nosuch'"))
        .stderr(predicate::str::contains("selftest --list"))
        .stdout(predicate::str::is_empty());
    timeshare()
        .args(["selftest", "proc", "--cpu", "4096"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--cpu 4096"));
    timeshare()
        .args(["selftest", "--attempts", "0"])
        .assert()
        .code(2);
}

#[test]
fn list_names_each_check_with_its_claim_and_measures_nothing() {
    timeshare()
        .args(["selftest", "proc", "--list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("proc.fork.heap"))
        .stdout(predicate::str::contains("vfork shares them"))
        .stdout(predicate::str::contains("cpu.doubling").not());
}

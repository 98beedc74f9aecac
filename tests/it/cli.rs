//! Bad input gets a one-line error and a non-zero exit; nothing is written half-way.

use predicates::prelude::*;

use crate::common::timeshare;

#[test]
fn an_unknown_id_is_a_usage_error() {
    timeshare()
        .args(["run", "syscall.nosuch"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "unknown benchmark or family 'syscall.nosuch'",
        ))
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
}

#[test]
fn an_unknown_family_is_refused_by_list_too() {
    timeshare().args(["list", "nosuch"]).assert().code(2);
}

#[test]
fn a_cpu_beyond_the_machine_is_refused_before_running() {
    timeshare()
        .args(["run", "syscall.getpid", "--cpu", "4096"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--cpu 4096"));
}

#[test]
fn an_unwritable_json_path_is_refused_and_nothing_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("no/such/dir/r.json");
    timeshare()
        .args(["run", "syscall.getpid", "--json"])
        .arg(&target)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot write --json"));
    assert!(!target.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_json_path_that_is_a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    timeshare()
        .args(["run", "syscall.getpid", "--json"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("it is a directory"));
}

#[test]
fn quick_and_full_conflict() {
    timeshare()
        .args(["run", "--quick", "--full"])
        .assert()
        .code(2);
}

#[test]
fn list_shows_ids_with_their_sources() {
    timeshare()
        .args(["list", "syscall"])
        .assert()
        .success()
        .stdout(predicate::str::contains("syscall.getpid"))
        .stdout(predicate::str::contains("seed 002, Figure 4: gpid"))
        .stdout(predicate::str::contains("timer.clock"));
}

#[test]
fn sysinfo_json_is_the_environment_record() {
    let out = timeshare().args(["sysinfo", "--json"]).assert().success();
    let env = crate::common::json(&out.get_output().stdout);
    assert!(env["cpu"]["logical"].as_u64().unwrap() >= 1);
    assert!(env["kernel"]["release"].is_string());
    assert!(env["workdir"]["fs_type"].is_string());
}

/// Ctrl-C mid-run: the run stops, says so, keeps what it measured, exits 130, and the
/// JSON is complete and marked interrupted.
#[test]
fn an_interrupted_run_keeps_what_it_measured() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("timeshare"))
        .args(["run", "syscall", "--full", "--json"])
        .arg(&path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Long enough for a few rows even on a loaded machine; the whole run takes ~20 s.
    std::thread::sleep(std::time::Duration::from_millis(4000));
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("INTERRUPTED"), "{stdout}");
    let run = crate::common::json(&std::fs::read(&path).unwrap());
    assert_eq!(run["status"], "interrupted");
    let n = run["results"].as_array().unwrap().len();
    assert!(n >= 1, "something was measured before the interrupt");
    let listed = 32;
    assert!(n < listed, "the run stopped early ({n} results)");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "only r.json remains");
}

//! Memory limits: a row that cannot have its buffers under `ulimit -v` fails naming the
//! address-space limit; the run goes on and is stored.

#[test]
fn a_mem_row_under_an_address_space_limit_fails_naming_it_and_the_run_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    let json = dir.path().join("run.json");
    // 600,000 KiB, as in the report: enough for timeshare, not for every mem row's
    // buffers (128 MiB each, two per thread for a copy, on every CPU for `all_cpus`).
    let mut sh = std::process::Command::new("sh");
    crate::common::isolate(&mut sh);
    let out = sh
        .arg("-c")
        .arg("ulimit -v 600000 && exec \"$0\" \"$@\"")
        .arg(assert_cmd::cargo::cargo_bin("timeshare"))
        .args(["run", "mem", "--quick", "--db"])
        .arg(&db)
        .arg("--json")
        .arg(&json)
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("memory allocation of"),
        "aborted: {stderr}"
    );
    assert!(!stderr.contains("stack backtrace"), "aborted: {stderr}");
    let text = std::fs::read_to_string(&json)
        .unwrap_or_else(|e| panic!("the run was lost ({e}): {stderr}"));
    assert!(
        text.contains("address-space limit"),
        "no row names the limit: {text}"
    );
    assert!(db.exists(), "the run was not stored");
}

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

/// The OOM kills counted in a memory cgroup's directory (v2 `memory.events`, v1
/// `memory.oom_control`).
fn oom_kills(group: &std::path::Path) -> u64 {
    ["memory.events", "memory.oom_control"]
        .iter()
        .filter_map(|f| std::fs::read_to_string(group.join(f)).ok())
        .flat_map(|t| {
            t.lines()
                .filter_map(|l| l.strip_prefix("oom_kill ")?.trim().parse::<u64>().ok())
                .collect::<Vec<_>>()
        })
        .sum()
}

#[test]
fn a_mem_run_in_a_memory_cgroup_fails_rows_naming_its_limit_and_is_kept() {
    use timeshare::harness::memlimit::MemoryCgroup;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: making a memory cgroup needs root");
        return;
    }
    // Removed when dropped, also when an assertion below fails.
    let group = match MemoryCgroup::create(400 << 20) {
        Ok(g) => g,
        Err(why) => {
            eprintln!("skipped: no memory cgroup can be made here: {why}");
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    let json = dir.path().join("run.json");
    // The shell moves itself into the group, then becomes timeshare: the run and every
    // process it starts are charged to the group from their first page. Two CPUs' rows
    // of a copy want four 128 MiB buffers, more than 400 MiB.
    let mut sh = std::process::Command::new("sh");
    crate::common::isolate(&mut sh);
    let out = sh
        .arg("-c")
        .arg("echo $$ > \"$1\" && shift && exec \"$@\"")
        .arg("sh")
        .arg(group.procs_file())
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
    assert_eq!(
        oom_kills(group.dir()),
        0,
        "the kernel's OOM killer ran: {stderr}"
    );
    let text = std::fs::read_to_string(&json)
        .unwrap_or_else(|e| panic!("the run was lost ({e}): {stderr}"));
    let run: serde_json::Value = serde_json::from_str(&text).unwrap();
    let errors: Vec<&str> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["status"]["error"].as_str())
        .collect();
    let named = "the cgroup's memory limit (memory.max = 400 MiB";
    assert!(
        errors.iter().any(|e| e.contains(named)),
        "no row names the limit: {errors:?}"
    );
    let show = crate::common::command()
        .args(["show", "last", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(show.status.success(), "the run was not stored: {show:?}");
}

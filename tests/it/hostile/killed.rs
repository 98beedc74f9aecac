//! `kill -9` at several moments of `run` (one process and three), `observe`, a `--profile`d
//! run and `crosscheck`, and at each phase the test hook names (`TIMESHARE_TEST_PAUSE_AT`),
//! then `clean`: nothing left in the scratch directory, no process of ours working
//! there, no tool server left.

use std::path::Path;
use std::time::Duration;

use crate::common::command;

/// Processes whose working directory or command line is inside `dir`.
fn processes_in(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<i32>().is_ok())
        .filter_map(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let cwd = std::fs::read_link(e.path().join("cwd")).ok();
            let inside = cmdline.contains(&needle) || cwd.is_some_and(|c| c.starts_with(dir));
            inside.then(|| format!("{}: {cmdline}", e.file_name().to_string_lossy()))
        })
        .collect()
}

/// When to kill: a moment after the start, or once a process has stopped itself at a
/// phase named to the test hook (`TIMESHARE_TEST_PAUSE_AT`, see `model::testpause`).
#[derive(Debug, Clone, Copy)]
enum When {
    After(Duration),
    AtPhase(&'static str),
}

/// Whether a process working in `dir` (its command line or working directory) is
/// stopped (state `T` in /proc/PID/stat).
fn one_stopped_in(dir: &Path) -> bool {
    processes_in(dir).iter().any(|p| {
        let pid = p.split(':').next().unwrap_or_default();
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| Some(s.rsplit_once(") ")?.1.starts_with('T')))
            .unwrap_or(false)
    })
}

/// Start `args` with its scratch, temporary and working directory in a fresh directory,
/// kill it with SIGKILL at `when`, then `clean` that directory: what is left.
fn kill_then_clean(args: &[&str], when: When) -> (Vec<String>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = command();
    cmd.args(args);
    if !matches!(args[0], "crosscheck" | "observe") {
        cmd.arg("--dir").arg(dir.path());
    }
    if let When::AtPhase(phase) = when {
        cmd.env("TIMESHARE_TEST_PAUSE_AT", phase);
    }
    let mut child = cmd
        .current_dir(dir.path())
        .env("TMPDIR", dir.path())
        .env("ENOUGH", "20000")
        .env("TIMING_O", "0")
        .env("LOOP_O", "0")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    match when {
        When::After(after) => std::thread::sleep(after),
        When::AtPhase(phase) => {
            let start = std::time::Instant::now();
            while !one_stopped_in(dir.path()) {
                if let Some(status) = child.try_wait().unwrap() {
                    panic!("{args:?} ended ({status}) before the phase {phase}");
                }
                assert!(
                    start.elapsed() < Duration::from_secs(120),
                    "{args:?} did not reach the phase {phase} in 120 s"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let out = command()
        .args(["clean", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // What the kernel still has to reap after a SIGKILL, given a moment.
    let mut procs = processes_in(dir.path());
    for _ in 0..100 {
        if procs.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        procs = processes_in(dir.path());
    }
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    (left, procs)
}

#[test]
fn kill_9_in_any_phase_of_run_then_clean_leaves_nothing() {
    let moments = [100, 600, 1500, 3000].map(Duration::from_millis);
    for invocations in ["1", "3"] {
        for after in moments {
            let (left, procs) = kill_then_clean(
                &[
                    "run",
                    "proc.fork.0",
                    "fs.create",
                    "--quick",
                    "--no-save",
                    "--invocations",
                    invocations,
                ],
                When::After(after),
            );
            let case = format!("--invocations {invocations}, killed after {after:?}");
            assert!(left.is_empty(), "{case}: left {left:?}");
            assert!(procs.is_empty(), "{case}: still running {procs:?}");
        }
    }
}

#[test]
fn kill_9_in_any_phase_of_crosscheck_then_clean_leaves_nothing_and_no_server() {
    if !std::path::Path::new("/usr/lib/lmbench/bin").exists() {
        eprintln!("skipped: needs lmbench");
        return;
    }
    let before = super::servers::lat_tcp_servers();
    for after in [200, 1000, 2500, 5000].map(Duration::from_millis) {
        let (left, procs) = kill_then_clean(
            &[
                "crosscheck",
                "net.tcp.rtt",
                "--pairs",
                "2",
                "--max-pairs",
                "2",
            ],
            When::After(after),
        );
        let case = format!("killed after {after:?}");
        assert!(left.is_empty(), "{case}: left {left:?}");
        assert!(procs.is_empty(), "{case}: still running {procs:?}");
        // The server dies with its namespace's holder, which dies with crosscheck.
        let mut servers = super::servers::lat_tcp_servers();
        for _ in 0..100 {
            if servers <= before {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
            servers = super::servers::lat_tcp_servers();
        }
        assert!(servers <= before, "{case}: lat_tcp's server left running");
    }
}

#[test]
fn kill_9_at_each_hooked_phase_of_run_then_clean_leaves_nothing_and_the_store_opens() {
    let store = tempfile::tempdir().unwrap();
    let db = store.path().join("runs.db");
    let db = db.to_str().unwrap();
    for invocations in ["1", "3"] {
        for phase in ["scratch", "row", "store"] {
            let (left, procs) = kill_then_clean(
                &[
                    "run",
                    "proc.fork.0",
                    "fs.create",
                    "--quick",
                    "--db",
                    db,
                    "--invocations",
                    invocations,
                ],
                When::AtPhase(phase),
            );
            let case = format!("--invocations {invocations}, killed at {phase}");
            assert!(left.is_empty(), "{case}: left {left:?}");
            assert!(procs.is_empty(), "{case}: still running {procs:?}");
            // A run killed as it writes a row into the store leaves a store that opens.
            let history = command().args(["history", "--db", db]).output().unwrap();
            assert!(history.status.success(), "{case}: {history:?}");
        }
    }
}

#[test]
fn kill_9_during_observe_and_a_profiled_run_then_clean_leaves_nothing() {
    let cases: [(&[&str], u64); 2] = [
        (&["observe", "--for", "30s", "--", "sleep", "60"], 2000),
        (
            &["run", "proc.fork.0", "--quick", "--no-save", "--profile"],
            1500,
        ),
    ];
    kill_at_moments_then_clean(&cases);
}

/// Open: killed while its profile is read, a `--profile`d run leaves `perf script`
/// running on the recording in the scratch directory, after `clean`.
#[test]
fn kill_9_while_a_profile_is_read_then_clean_leaves_no_perf() {
    kill_at_moments_then_clean(&[(
        &["run", "proc.fork.0", "--quick", "--no-save", "--profile"],
        3000,
    )]);
}

/// Each `(args, ms)` killed `ms` after its start, then `clean`: nothing left.
fn kill_at_moments_then_clean(cases: &[(&[&str], u64)]) {
    for &(args, ms) in cases {
        let (left, procs) = kill_then_clean(args, When::After(Duration::from_millis(ms)));
        let case = format!("{args:?} killed after {ms} ms");
        assert!(left.is_empty(), "{case}: left {left:?}");
        assert!(procs.is_empty(), "{case}: still running {procs:?}");
    }
}

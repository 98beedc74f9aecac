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
    kill_then_clean_seeing(args, when, || {})
}

/// As [`kill_then_clean`], calling `before_the_kill` just before the SIGKILL.
fn kill_then_clean_seeing(
    args: &[&str],
    when: When,
    before_the_kill: impl FnOnce(),
) -> (Vec<String>, Vec<String>) {
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
    before_the_kill();
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
    let _alone = super::servers::servers_counted_alone();
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
        (&["observe", "--", "sleep", "60"], 2000),
        (
            &["run", "proc.fork.0", "--quick", "--no-save", "--profile"],
            1500,
        ),
    ];
    kill_at_moments_then_clean(&cases);
}

/// `observe` killed at each hooked phase (every part started; the span over, before the
/// parts are read; the observation about to be written) and a `--profile`d run killed
/// with perf recording and with `perf script` reading, then `clean`: nothing left in the
/// directory, no process of ours (perf included), and the store opens.
#[test]
fn kill_9_at_each_hooked_phase_of_observe_and_a_profiled_run_then_clean_leaves_nothing() {
    let store = tempfile::tempdir().unwrap();
    let db = store.path().join("runs.db");
    let db = db.to_str().unwrap();
    let profiled: &[&str] = &["run", "proc.fork.0", "--quick", "--no-save", "--profile"];
    let cases: [(&[&str], &'static str); 5] = [
        (&["observe", "--db", db, "--", "sleep", "60"], "observing"),
        (&["observe", "--for", "2s", "--db", db], "ending"),
        (&["observe", "--for", "2s", "--db", db], "store"),
        (profiled, "profile"),
        (profiled, "script"),
    ];
    for (args, phase) in cases {
        if phase == "profile" || phase == "script" {
            let host_perf = std::process::Command::new("perf")
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success());
            if !host_perf || !super::is_root() {
                eprintln!("skipped {phase}: perf and root are needed to record the machine");
                continue;
            }
        }
        let (left, procs) = kill_then_clean(args, When::AtPhase(phase));
        let case = format!("{args:?} killed at {phase}");
        assert!(left.is_empty(), "{case}: left {left:?}");
        assert!(procs.is_empty(), "{case}: still running {procs:?}");
        let history = command().args(["history", "--db", db]).output().unwrap();
        assert!(history.status.success(), "{case}: {history:?}");
    }
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

/// crosscheck killed at its `server` phase (lmbench's `lat_tcp -s` started and up, no
/// client yet), then `clean`: nothing left in the directory, no process of ours, no
/// `lat_tcp -s` (a zombie, which holds no socket and has no command line, is not counted:
/// the machine's init reaps it), and no socket listening on the host on lmbench's ports.
#[test]
fn kill_9_at_crosschecks_server_phase_then_clean_leaves_no_server_and_no_socket() {
    if !std::path::Path::new("/usr/lib/lmbench/bin").exists() {
        eprintln!("skipped: needs lmbench");
        return;
    }
    let _alone = super::servers::servers_counted_alone();
    let before = super::servers::lat_tcp_servers();
    let ports_before = super::servers::listening_lmbench_ports();
    let mut up_at_the_kill = 0;
    let (left, procs) = kill_then_clean_seeing(
        &[
            "crosscheck",
            "net.tcp.rtt",
            "--pairs",
            "2",
            "--max-pairs",
            "2",
        ],
        When::AtPhase("server"),
        || up_at_the_kill = super::servers::lat_tcp_servers(),
    );
    assert!(
        up_at_the_kill > before,
        "no lat_tcp -s was running at the server phase"
    );
    assert!(left.is_empty(), "left {left:?}");
    assert!(procs.is_empty(), "still running {procs:?}");
    let gone = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        super::servers::lat_tcp_servers() <= before
    });
    assert!(gone, "lat_tcp's server left running");
    let listening: Vec<u16> = super::servers::listening_lmbench_ports()
        .difference(&ports_before)
        .copied()
        .collect();
    assert!(listening.is_empty(), "listening on the host: {listening:?}");
}

/// The stopped processes working in `dir`: pid and, for an `internal-invocation`, the
/// ids after `--` on its command line (none for any other).
fn stopped_invocations_in(dir: &Path) -> Vec<(i32, Vec<String>)> {
    processes_in(dir)
        .iter()
        .filter_map(|p| {
            let (pid, cmdline) = p.split_once(": ")?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let stopped = stat.rsplit_once(") ")?.1.starts_with('T');
            let ids = cmdline.split_once(" -- ").map_or("", |(_, ids)| ids);
            if !stopped {
                return None;
            }
            // The run's own process stops at the hook too (before its processes start);
            // it is let go as a later invocation is.
            let ids = if cmdline.contains("internal-invocation") {
                ids.split_whitespace().map(str::to_owned).collect()
            } else {
                Vec::new()
            };
            Some((pid.parse().ok()?, ids))
        })
        .collect()
}

/// One process of a three-process run killed with SIGKILL in its first row (the OOM
/// killer's signal; the hook `row` stops each process at each row, the test kills the
/// first and lets every later one go on): the run goes on and is stored, the row the
/// process died in failed with "killed by signal 9", the other row measured in all three
/// processes, exit 1 as for any failed row, nothing left.
#[test]
fn an_invocation_killed_in_a_row_fails_that_row_and_the_run_is_kept() {
    let store = tempfile::tempdir().unwrap();
    let db = store.path().join("runs.db");
    let dir = tempfile::tempdir().unwrap();
    let mut child = command()
        .args([
            "run",
            "proc.fork.0",
            "fs.create",
            "--quick",
            "--invocations",
            "3",
        ])
        .args(["--json", "-", "--db"])
        .arg(&db)
        .arg("--dir")
        .arg(dir.path())
        .env("TIMESHARE_TEST_PAUSE_AT", "row")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let mut victim: Option<String> = None;
    while child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < Duration::from_secs(300), "still running");
        for (pid, ids) in stopped_invocations_in(dir.path()) {
            // SAFETY: kill(2) on a pid just read from /proc.
            if victim.is_none() && !ids.is_empty() {
                victim = ids.first().cloned();
                unsafe { libc::kill(pid, libc::SIGKILL) };
            } else {
                unsafe { libc::kill(pid, libc::SIGCONT) };
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let victim = victim.expect("no process was seen stopped at a row");
    assert_eq!(out.status.code(), Some(1), "{err}");
    let run = crate::common::json(&out.stdout);
    let killed = crate::common::result(&run, &victim);
    let error = killed["status"]["error"].as_str().expect("a failed row");
    assert!(
        error.contains("its process was killed by signal 9 (SIGKILL) while it measured this row"),
        "{error}"
    );
    let other = if victim == "fs.create" {
        "proc.fork.0"
    } else {
        "fs.create"
    };
    let kept = crate::common::result(&run, other);
    assert_eq!(kept["status"]["state"], "ok", "{kept}");
    let within = kept["invocations"]["within"].as_array().map_or(0, Vec::len);
    assert_eq!(within, 3, "{}", kept["invocations"]);
    // Stored, with both rows.
    let stored = command()
        .args(["export", "last", "--format", "json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(stored.status.success(), "{stored:?}");
    let stored = crate::common::json(&stored.stdout);
    assert_eq!(stored["results"].as_array().unwrap().len(), 2, "{stored}");
    assert!(processes_in(dir.path()).is_empty());
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
    assert!(left.is_empty(), "left {left:?}");
}

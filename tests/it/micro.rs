//! The micro-operation families (`signal`, `pipe`, `udg`, `proc`) end to end: every id
//! reported within the time bound, sanity relations between rows, derived rows, failing
//! children, placement, and nothing left behind after a run or an interrupt.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{json, result, timeshare};

fn median(run: &serde_json::Value, id: &str) -> f64 {
    let r = result(run, id);
    assert_eq!(r["status"]["state"], "ok", "{id}: {}", r["status"]);
    r["summary"]["median"].as_f64().unwrap()
}

fn listed_ids(families: &[&str]) -> Vec<String> {
    let out = timeshare().arg("list").args(families).assert().success();
    String::from_utf8_lossy(&out.get_output().stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.contains('.') && !w.ends_with('.'))
        .map(String::from)
        .collect()
}

/// The bound and the seeds' sanity relations, from one quick run of all four.
#[test]
fn micro_quick_reports_every_id_with_sane_relations() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    let started = Instant::now();
    timeshare()
        .args(["run", "signal", "pipe", "udg", "proc", "--quick", "--json"])
        .arg(&path)
        .env("TMPDIR", dir.path())
        .assert()
        .success();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(60), "took {took:?}");
    let run = json(&std::fs::read(&path).unwrap());

    let ids = listed_ids(&["signal", "pipe", "udg", "proc"]);
    assert!(ids.len() >= 45, "{ids:?}");
    for id in &ids {
        let r = result(&run, id);
        if r["derived"] == true {
            continue; // checked below
        }
        match r["status"]["state"].as_str().unwrap() {
            "ok" => {
                assert!(r["summary"]["median"].as_f64().unwrap() > 0.0, "{id}");
                let t = &r["times"];
                for f in ["elapsed_s", "user_s", "system_s"] {
                    assert!(t[f].is_number(), "{id}: no {f}");
                }
                assert!(r["counters"]["context_switches"].is_number(), "{id}");
            }
            "skipped" => assert!(r["status"]["reason"].as_str().unwrap().len() > 10),
            other => panic!("{id}: {other}: {}", r["status"]),
        }
    }

    // That a round trip through a child costs more than a message to yourself is a timing
    // claim: `timeshare selftest message.round_trip`.
    // Throughput rows are in bytes per second.
    assert!(median(&run, "pipe.bw.self") > 10e6);

    // Derived rows: present, marked, and exactly the formula over the measured medians.
    let ctx = result(&run, "ctx.switch");
    assert_eq!(ctx["derived"], true);
    let expected = median(&run, "signal.pingpong") - 2.0 * median(&run, "signal.self");
    let got = ctx["summary"]["median"].as_f64().unwrap();
    assert!(
        (got - expected).abs() <= 1e-12 + 1e-9 * expected.abs(),
        "{got} vs {expected}"
    );
    let env = result(&run, "proc.exec.env_byte");
    assert_eq!(env["derived"], true);
    let expected = ((median(&run, "proc.exec.null.0.env1k") - median(&run, "proc.exec.null.0"))
        + (median(&run, "proc.exec.null.1k.env1k") - median(&run, "proc.exec.null.1k")))
        / 2.0
        / 1080.0;
    let got = env["summary"]["median"].as_f64().unwrap();
    assert!(
        (got - expected).abs() <= 1e-15 + 1e-9 * expected.abs(),
        "{got} vs {expected}"
    );

    // The free placement is recorded in the details of two-process rows.
    assert_eq!(result(&run, "pipe.back.4")["details"]["placement"], "free");
    // The partner's CPU time is reported apart.
    assert!(
        result(&run, "pipe.back.4")["details"]["child_cpu_time"]["ops"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert_nothing_left(dir.path(), "");
}

/// `same` and `spread` pin differently, and say so in the row's notes.
#[test]
fn placement_same_and_spread_differ_and_say_so() {
    let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    let run_with = |placement: &str| {
        let out = timeshare()
            .args([
                "run",
                "pipe.back.4",
                "signal.pingpong",
                "--quick",
                "--json",
                "-",
            ])
            .args(["--placement", placement, "--verbose"])
            .output()
            .unwrap();
        let table = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code(), (json(&out.stdout), table))
    };
    let (code, same) = run_with("same");
    assert_eq!(code, Some(0));
    assert!(
        same.1.contains("001 Table 2 per op"),
        "no Table 2:\n{}",
        same.1
    );
    let same = same.0;
    let r = result(&same, "pipe.back.4");
    assert_eq!(r["details"]["placement"], "same");
    assert_eq!(r["details"]["parent_cpu"], r["details"]["child_cpu"]);
    assert!(
        r["notes"].to_string().contains("placement same"),
        "{}",
        r["notes"]
    );
    if cpus < 2 {
        return;
    }
    let (code, (spread, _)) = run_with("spread");
    assert_eq!(code, Some(0));
    let r = result(&spread, "pipe.back.4");
    assert_eq!(r["details"]["placement"], "spread");
    assert_ne!(r["details"]["parent_cpu"], r["details"]["child_cpu"]);
    assert!(
        r["notes"].to_string().contains("placement spread"),
        "{}",
        r["notes"]
    );
}

/// A job that exits with an error turns its rows into `failed` with the status; a job
/// that is missing makes them `skipped` with the reason.
#[test]
fn a_failing_or_missing_job_is_reported_not_timed() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("timeshare-null");
    std::fs::write(&job, "#!/bin/sh\nexit 3\n").unwrap();
    std::fs::set_permissions(&job, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = timeshare()
        .args(["run", "proc.exec.null.0", "proc.spawn", "proc.exec.big.0"])
        .args(["--quick", "--json", "-"])
        .env("TIMESHARE_JOB_DIR", dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "a failed row exits 1");
    let run = json(&out.stdout);
    for id in ["proc.exec.null.0", "proc.spawn"] {
        let r = result(&run, id);
        assert_eq!(r["status"]["state"], "failed", "{id}");
        let error = r["status"]["error"].as_str().unwrap();
        assert!(error.contains("exited with status 3"), "{id}: {error}");
        assert!(r["summary"].is_null(), "{id}: a failed row has no figure");
    }
    let big = result(&run, "proc.exec.big.0");
    assert_eq!(big["status"]["state"], "skipped");
    assert!(big["status"]["reason"]
        .as_str()
        .unwrap()
        .contains("timeshare-big"));
}

/// Processes whose command line carries `label` (forked children keep the parent's).
fn processes_labelled(label: &str) -> Vec<String> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let pid = e.file_name().to_string_lossy().into_owned();
            if !pid.chars().all(|c| c.is_ascii_digit()) || pid == me {
                return None;
            }
            let cmd = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            cmd.contains(label).then(|| format!("{pid}: {cmd}"))
        })
        .collect()
}

fn assert_nothing_left(tmp: &Path, label: &str) {
    if !label.is_empty() {
        // Killed children take a moment to disappear from /proc once reaped.
        let deadline = Instant::now() + Duration::from_secs(2);
        while !processes_labelled(label).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(
            processes_labelled(label),
            Vec::<String>::new(),
            "processes left"
        );
    }
    let left: Vec<_> = std::fs::read_dir(tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n != "r.json")
        .collect();
    assert!(left.is_empty(), "files left in {}: {left:?}", tmp.display());
}

/// Run the four families with a unique label in one process (which stores each row as it
/// is measured; a run across processes stores them at its end), interrupt once
/// `after_results` rows are stored (to the process only, or to its whole group as a
/// terminal's Ctrl-C does), and check that it stops with 130 and leaves no process and no
/// file.
fn interrupted_run_leaves_nothing(after_results: i64, whole_group: bool) {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    // The database lives apart from the temporary directory that must be left empty.
    let db_dir = tempfile::tempdir().unwrap();
    let db = db_dir.path().join("runs.db");
    let label = format!("itest-{}-{}", std::process::id(), whole_group);
    let mut child = crate::common::command()
        .args([
            "run", "proc", "pipe", "udg", "signal", "--quick", "--label", &label, "--db",
        ])
        .arg(&db)
        .args(["--invocations", "1"])
        .env("TMPDIR", dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    // Mid-run, however loaded the machine: after some rows are stored, not after a time.
    let start = std::time::Instant::now();
    while crate::common::stored_results(&db) < after_results {
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            start.elapsed() < Duration::from_secs(180),
            "no {after_results} results stored in three minutes"
        );
    }
    let pid = child.id() as i32;
    let target = if whole_group { -pid } else { pid };
    // SAFETY: signalling the child (or its own process group) we started.
    unsafe { libc::kill(target, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?}");
    assert_nothing_left(dir.path(), &label);
}

#[test]
fn sigint_to_the_process_mid_run_leaves_no_child_and_no_file() {
    interrupted_run_leaves_nothing(1, false);
}

#[test]
fn ctrl_c_to_the_process_group_mid_run_leaves_no_child_and_no_file() {
    interrupted_run_leaves_nothing(4, true);
}

/// A scratch directory on a file system mounted noexec cannot run the null and big jobs:
/// the exec rows are skipped saying why and what to do, the others run, nothing is left.
/// Needs root to mount; says so and checks nothing otherwise.
#[test]
fn a_noexec_scratch_directory_skips_the_exec_rows_with_the_reason() {
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("not root: cannot mount a noexec tmpfs; this test checks nothing here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "noexec,size=16m", "none"])
        .arg(dir.path())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("mount -t tmpfs refused here; this test checks nothing here");
        return;
    }
    let out = timeshare()
        .args(["run", "proc.exec.big.0", "proc.shell", "proc.fork.0"])
        .args(["--quick", "--no-save", "--json", "-", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
    let _ = Command::new("umount").arg(dir.path()).status();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "a skipped row is no failure: {stderr}"
    );
    let run = json(&out.stdout);
    for id in ["proc.exec.big.0", "proc.shell"] {
        let r = result(&run, id);
        assert_eq!(r["status"]["state"], "skipped", "{id}");
        let reason = r["status"]["reason"].as_str().unwrap();
        assert!(
            reason.contains("mounted noexec") && reason.contains("--dir"),
            "{id}: {reason}"
        );
    }
    assert_eq!(result(&run, "proc.fork.0")["status"]["state"], "ok");
    assert!(left.is_empty(), "left in the scratch directory: {left:?}");
}

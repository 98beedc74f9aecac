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

/// The fastest sample of a row, in its unit.
fn fastest(run: &serde_json::Value, id: &str) -> f64 {
    result(run, id)["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["value"].as_f64().unwrap())
        .fold(f64::INFINITY, f64::min)
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

    // A round trip through a child costs more than a message to yourself (~4× here):
    // fastest samples, since on a loaded machine a median can be inflated by a burst of
    // other work while interference only ever adds time.
    assert!(fastest(&run, "pipe.back.4") > fastest(&run, "pipe.self.4"));
    assert!(fastest(&run, "udg.back.4") > fastest(&run, "udg.self.4"));
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
            .args(["--placement", placement])
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

/// Run the four families with a unique label, interrupt after `after` (to the process
/// only, or to its whole group as a terminal's Ctrl-C does), and check that it stops with
/// 130 and leaves no process and no file.
fn interrupted_run_leaves_nothing(after: Duration, whole_group: bool) {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let label = format!("itest-{}-{}", std::process::id(), whole_group);
    let bin = assert_cmd::cargo::cargo_bin("timeshare");
    let mut child = Command::new(bin)
        .args([
            "run", "proc", "pipe", "udg", "signal", "--quick", "--label", &label,
        ])
        .env("TMPDIR", dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    std::thread::sleep(after);
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
    interrupted_run_leaves_nothing(Duration::from_millis(700), false);
}

#[test]
fn ctrl_c_to_the_process_group_mid_run_leaves_no_child_and_no_file() {
    interrupted_run_leaves_nothing(Duration::from_millis(2500), true);
}

/// Bigger jobs and bigger parents cost no less (001 Table 2's rows). On Linux the
/// differences are small — the data is mapped, not copied, and 100 KB is little beside our
/// own resident memory — and this VM's fork cost drifts by ±15% over seconds, so one run
/// cannot tell them apart (three back-to-back runs here gave fork.0/fork.100k medians of
/// 135/164, 167/136 and 157/151 µs). Three rounds of the four rows side by side, the
/// median of the rounds' medians, and only an inversion of over 15% fails: the relation
/// at 100 KB is at the edge of this machine's resolution. `fork_cost_grows_with_the_heap`
/// checks the mechanism itself with a heap large enough to show.
#[test]
fn bigger_jobs_and_parents_cost_no_less() {
    let ids = [
        "proc.fork.0",
        "proc.fork.100k",
        "proc.exec.null.0",
        "proc.exec.big.0",
    ];
    let rounds: Vec<serde_json::Value> = (0..3)
        .map(|_| {
            let out = timeshare()
                // Pinned: free, the child starts on this CPU or wakes the other one, two
                // modes a factor of two apart on this VM.
                .args(["run", "--quick", "--no-save", "--cpu", "0", "--json", "-"])
                .args(ids)
                .assert()
                .success();
            json(&out.get_output().stdout)
        })
        .collect();
    let typical = |id: &str| {
        let mut m: Vec<f64> = rounds.iter().map(|r| median(r, id)).collect();
        m.sort_by(f64::total_cmp);
        m[1]
    };
    let (f0, f100k) = (typical("proc.fork.0"), typical("proc.fork.100k"));
    assert!(f100k >= 0.85 * f0, "fork.100k {f100k} s vs fork.0 {f0} s");
    let (null, big) = (typical("proc.exec.null.0"), typical("proc.exec.big.0"));
    assert!(big >= 0.85 * null, "exec big {big} s vs null {null} s");
}

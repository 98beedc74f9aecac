//! The load family end to end: Table 9's copies and knee, failing and missing commands in
//! a script, refusals, and nothing left behind after a run or an interrupt.
//!
//! The machine may be shared: only properties that background load cannot change are
//! checked here (the CPU work grows with the copies, every field is there). The shape of
//! the response times (copies up to the CPUs side by side, twice as many twice as long)
//! needs an idle machine: `timeshare selftest load.cpu.shape`. The tests of this module
//! run one at a time so as not to load the machine for each other.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{json, result, timeshare};

/// One load test at a time.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn loadavg() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::INFINITY)
}

fn num(v: &serde_json::Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("no {key} in {v}"))
}

#[test]
fn cpu_copies_give_table9_and_the_knee() {
    let _serial = serial();
    let before = loadavg();
    let out = timeshare()
        .args([
            "run",
            "load.cpu",
            "--copies",
            "1,2,4",
            "--footprint-mib",
            "1",
        ])
        .args(["--json", "-", "--verbose"])
        .assert()
        .success();
    let run = json(&out.get_output().stdout);
    let table = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(table.contains("Table 9"), "{table}");
    let after = loadavg();
    let d = |n: usize| result(&run, &format!("load.cpu.{n}"))["details"].clone();
    let (d1, d2, d4) = (d(1), d(2), d(4));
    let incs = [num(&d2, "inc"), num(&d4, "inc")];
    eprintln!(
        "load.cpu: avg real {:.3} {:.3} {:.3} s, Inc(2) {:.2}, Inc(4) {:.2}, load {before}/{after}; {}",
        num(&d1, "avg_real_s"),
        num(&d2, "avg_real_s"),
        num(&d4, "avg_real_s"),
        incs[0],
        incs[1],
        d4["knee"]["statement"]
    );
    // The work is fixed per copy, so 4 copies use about 4 times the CPU of one, however
    // busy the machine is.
    let cpu_ratio = num(&d4, "total_cpu_s") / num(&d1, "total_cpu_s");
    assert!(
        (2.4..6.0).contains(&cpu_ratio),
        "CPU(4)/CPU(1) = {cpu_ratio}"
    );
    assert_eq!(
        d4["per_copy_real_user_sys_s"][0].as_array().unwrap().len(),
        4
    );
    assert!(d4["knee"]["statement"].as_str().unwrap().contains("knee"));
    assert!(incs.iter().all(|i| i.is_finite() && *i > 0.0), "{incs:?}");
}

/// A `sort` on PATH that exits 1 (UnixBench's shell test scores *higher* then): the
/// bundled developer script's row fails and the per-command table names sort.
#[test]
fn a_broken_sort_fails_the_script_row() {
    let _serial = serial();
    let bin = tempfile::tempdir().unwrap();
    let sort = bin.path().join("sort");
    std::fs::write(&sort, "#!/bin/sh\nexit 1\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&sort, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap()
    );
    let out = timeshare()
        .env("PATH", path)
        .args(["run", "load.script.1", "--users", "1", "--script", "dev"])
        .args(["--json", "-", "--verbose"])
        .assert()
        .code(1);
    let run = json(&out.get_output().stdout);
    let table = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    let r = result(&run, "load.script.1");
    let error = r["status"]["error"].as_str().expect("failed status");
    assert!(error.contains("sort"), "{error}");
    assert!(
        r["summary"].is_null(),
        "no headline figure for a broken script"
    );
    let cmds = r["details"]["commands"].as_array().unwrap();
    let failed = |label: &str| {
        cmds.iter()
            .find(|c| c["command"] == label)
            .unwrap_or_else(|| panic!("no {label}"))["failed"]
            .as_u64()
            .unwrap()
    };
    let runs = r["details"]["runs"].as_u64().unwrap();
    assert_eq!(failed("sort"), runs, "sort -k2 … > sorted.txt");
    assert_eq!(
        failed("sort | uniq"),
        runs,
        "pipefail catches the first stage"
    );
    assert_eq!(failed("git"), 0);
    assert!(table.contains("FAILED"), "{table}");
    assert!(table.contains("Attachment C"), "{table}");
}

/// A program the script names that is not on PATH skips the row before anything runs,
/// naming it; one found missing only when the shell runs it (inside a list, which is not
/// looked into beforehand) is counted per command, fails the row, and the rest runs.
#[test]
fn a_missing_command_is_reported_and_the_rest_runs() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.sh");
    std::fs::write(
        &script,
        "@file a\nx\n@end\ncat a\ntimeshare-no-such-command a\n",
    )
    .unwrap();
    let out = timeshare()
        .args(["run", "load.script.1", "--users", "1", "--script"])
        .arg(&script)
        .args(["--json", "-"])
        .assert()
        .code(0);
    let run = json(&out.get_output().stdout);
    let r = result(&run, "load.script.1");
    let reason = r["status"]["reason"].as_str().expect("skipped status");
    assert!(
        reason.contains("`timeshare-no-such-command`") && reason.contains("not on PATH"),
        "{reason}"
    );

    std::fs::write(
        &script,
        "@file a\nx\n@end\ncat a\ntrue; timeshare-no-such-command a\nls\n?timeshare-optional-absent\n",
    )
    .unwrap();
    let out = timeshare()
        .args(["run", "load.script", "--users", "1,2", "--stagger", "0.01"])
        .arg("--script")
        .arg(&script)
        .args(["--json", "-"])
        .assert()
        .code(1);
    let run = json(&out.get_output().stdout);
    for id in ["load.script.1", "load.script.2"] {
        let r = result(&run, id);
        let error = r["status"]["error"].as_str().expect("failed status");
        assert!(error.contains("timeshare-no-such-command"), "{error}");
        assert!(error.contains("missing"), "{error}");
        let cmds = r["details"]["commands"].as_array().unwrap();
        let line = |label: &str| cmds.iter().find(|c| c["command"] == label).unwrap().clone();
        let runs = r["details"]["runs"].as_u64().unwrap();
        let users = r["details"]["users"].as_u64().unwrap();
        assert_eq!(
            line("true; timeshare-no-such-command a")["missing"].as_u64(),
            Some(runs * users)
        );
        assert_eq!(
            line("ls")["count"].as_u64(),
            Some(runs * users),
            "the rest ran"
        );
        assert_eq!(line("ls")["failed"], 0);
        assert_eq!(
            line("timeshare-optional-absent")["absent"].as_u64(),
            Some(runs * users)
        );
    }
}

#[test]
fn bad_scripts_and_impossible_loads_are_refused_clearly() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad.sh");
    std::fs::write(&script, "@file x\nno end\n").unwrap();
    let out = timeshare()
        .args(["run", "load.script.1", "--script"])
        .arg(&script)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("@end"), "{err}");
    // 3 copies of 400 GiB each: refused before anything starts.
    let out = timeshare()
        .args([
            "run",
            "load.cpu.3",
            "--copies",
            "3",
            "--footprint-mib",
            "409600",
        ])
        .args(["--json", "-"])
        .assert()
        .code(1);
    let run = json(&out.get_output().stdout);
    let error = result(&run, "load.cpu.3")["status"]["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        error.contains("refused") && error.contains("MemAvailable"),
        "{error}"
    );
}

/// Processes whose command line mentions `marker` (the forked copies carry the parent's
/// command line, with its --dir; the script's commands carry their own arguments).
fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if name.parse::<u32>().is_err() || name == std::process::id().to_string() {
            continue;
        }
        let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        let zombie = std::fs::read_to_string(entry.path().join("stat"))
            .map(|s| s.contains(") Z "))
            .unwrap_or(false);
        if cmd.contains(marker) && !zombie {
            found.push(format!("{name}: {cmd}"));
        }
    }
    found
}

fn empty(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().next().is_none()
}

/// Poll `f` for up to `secs` seconds.
fn eventually(secs: u64, f: impl Fn() -> bool) -> bool {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(secs) {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    f()
}

#[test]
fn nothing_remains_after_a_run_or_an_interrupt() {
    let _serial = serial();
    let work = tempfile::tempdir().unwrap();
    let scratch = work.path().join("scratch");
    std::fs::create_dir(&scratch).unwrap();
    let script = work.path().join("slow.sh");
    // A unique sleep length marks the script's commands in /proc: unique to this test
    // process too, so that a second test suite running on the machine is not mistaken for
    // something this one left behind.
    let sleep = format!("31.{}", std::process::id());
    std::fs::write(&script, format!("echo start\nsleep {sleep}\necho never\n")).unwrap();

    // 1. A finished run: every process reaped, every scratch directory removed.
    timeshare()
        .args(["run", "load.cpu.2", "--copies", "2", "--footprint-mib", "1"])
        .arg("--dir")
        .arg(&scratch)
        .assert()
        .success();
    assert!(empty(&scratch), "scratch left behind after a run");
    assert!(processes_with(scratch.to_str().unwrap()).is_empty());

    // 2. Interrupted while two users' commands run, and while copies compute.
    let cases: [&[&str]; 2] = [
        &[
            "run",
            "load.script.2",
            "--users",
            "2",
            "--stagger",
            "0.05",
            "--script",
        ],
        // Two rows: however late the signal lands, the run is interrupted.
        &[
            "run",
            "load.cpu.4",
            "load.cpu.6",
            "--copies",
            "4,6",
            "--footprint-mib",
            "1",
        ],
    ];
    for args in cases {
        let mut cmd = crate::common::command();
        cmd.args(args);
        if args.contains(&"--script") {
            cmd.arg(&script);
        }
        let mut child = cmd
            .arg("--dir")
            .arg(&scratch)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Wait until the work is under way: the sleeps, or the forked copies.
        let marker = if args.contains(&"--script") {
            // With the space that ends the argument: 31.123 is not 31.1234.
            format!("sleep {sleep} ")
        } else {
            scratch.to_str().unwrap().to_string()
        };
        let want = if args.contains(&"--script") { 2 } else { 5 };
        assert!(
            eventually(60, || processes_with(&marker).len() >= want),
            "the work never started: {:?}",
            processes_with(&marker)
        );
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130), "{args:?}");
        assert!(
            eventually(5, || processes_with(&marker).is_empty()),
            "left running after SIGINT: {:?}",
            processes_with(&marker)
        );
        assert!(
            empty(&scratch),
            "scratch left behind after SIGINT ({args:?})"
        );
    }
}

/// A driver killed outright (SIGKILL: no handler, no `Drop`) leaves no user's command
/// running: each user's shell is told by the kernel that its parent died and kills its
/// command's group before it ends.
#[test]
fn a_killed_driver_leaves_no_command_running() {
    let _serial = serial();
    let work = tempfile::tempdir().unwrap();
    let script = work.path().join("slow.sh");
    // Its own unique sleep length, apart from the other test's; a pipeline too, whose
    // stages are the shell's grandchildren.
    let sleep = format!("27.{}", std::process::id());
    std::fs::write(&script, format!("sleep {sleep} | cat\necho never\n")).unwrap();
    let mut child = crate::common::command()
        .args(["run", "load.script.2", "--users", "2", "--stagger", "0.05"])
        .arg("--script")
        .arg(&script)
        .arg("--dir")
        .arg(work.path())
        .arg("--no-save")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let marker = format!("sleep {sleep} ");
    let marker = marker.as_str();
    assert!(
        eventually(60, || processes_with(marker).len() >= 2),
        "the work never started: {:?}",
        processes_with(marker)
    );
    // SAFETY: kill has no memory effects; the pid is our own child, not yet reaped.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap();
    assert!(
        eventually(5, || processes_with(marker).is_empty()),
        "left running after the driver was killed: {:?}",
        processes_with(marker)
    );
}

/// The seed's "Ran Out Of Swap Space" row, provoked: as `nobody` with 34 more of nobody's
/// processes sleeping and RLIMIT_NPROC set to what nobody then runs plus 4 (at least 40:
/// other programs, a database server, may run as nobody too), the pre-check (8 copies + a
/// margin of 32 ≤ 40) passes but the kernel refuses a copy mid-run. The row must fail naming the limit,
/// with every started copy reaped. Needs root to switch user.
#[test]
fn a_copy_refused_mid_run_stops_the_row_cleanly() {
    let _serial = serial();
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("not root: cannot switch to nobody; this test checks nothing here");
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(scratch.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let (_bin_dir, bin) = crate::common::binary_others_can_run();
    let script = format!(
        "for i in $(seq 34); do sleep 29.2718 >/dev/null 2>&1 & done; \
         n=$(ps -u nobody --no-headers | wc -l); lim=$((n + 4)); [ $lim -lt 40 ] && lim=40; \
         prlimit --nproc=$lim {} run load.cpu.8 --invocations 1 \
         --copies 8 --footprint-mib 1 --dir {} --json - --no-save; echo \"rc=$?\" >&2",
        bin.display(),
        scratch.path().display()
    );
    use std::os::unix::process::CommandExt;
    let out = crate::common::isolate(&mut std::process::Command::new("setpriv"))
        .args([
            "--reuid",
            "nobody",
            "--regid",
            "nogroup",
            "--clear-groups",
            "--",
        ])
        .args(["sh", "-c", &script])
        .process_group(0)
        .output()
        .expect("setpriv runs");
    // The sleeps are in this test's own process group: end them.
    let leftovers = processes_with("29.2718");
    for p in &leftovers {
        let pid: i32 = p.split(':').next().unwrap().parse().unwrap();
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(stderr.contains("rc=1"), "{stderr}");
    let run = json(&out.stdout);
    let r = result(&run, "load.cpu.8");
    let error = r["status"]["error"]
        .as_str()
        .expect("failed status")
        .to_string();
    assert!(
        error.contains("ran out") && error.contains("EAGAIN"),
        "{error}"
    );
    assert!(r["details"]["limit_hit"].is_string(), "{r:#}");
    assert!(empty(scratch.path()), "scratch left behind");
    assert!(processes_with(scratch.path().to_str().unwrap()).is_empty());
}

#[test]
fn the_users_shells_start_when_the_program_s_file_is_replaced_during_the_run() {
    // A rebuild or reinstall during a run removes the file the run was started from: the
    // shells must start from the running program's own file, not from its old path,
    // which the kernel then names "…/timeshare (deleted)".
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("timeshare");
    std::fs::copy(assert_cmd::cargo::cargo_bin("timeshare"), &copy).unwrap();
    let script = dir.path().join("s.sh");
    std::fs::write(&script, "ls\necho done\n").unwrap();
    let mut cmd = std::process::Command::new(&copy);
    crate::common::isolate(&mut cmd)
        .args([
            "run",
            "load.script.1",
            "--users",
            "1",
            "--no-save",
            "--script",
        ])
        .arg(&script)
        .args(["--json", "-"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().unwrap();
    // spawn returns once the program is running: its file can go, as a rebuild's does.
    std::fs::remove_file(&copy).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("(deleted)"), "{stderr}");
    let run = json(&out.stdout);
    let r = result(&run, "load.script.1");
    assert!(r["status"]["error"].is_null(), "{r}");
    let cmds = r["details"]["commands"].as_array().unwrap();
    let ls = cmds.iter().find(|c| c["command"] == "ls").unwrap();
    assert!(ls["count"].as_u64().unwrap() > 0, "{ls}");
}

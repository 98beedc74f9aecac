//! The exerciser end to end (seed 004): every available type passes; a corruption held
//! back for one instance is caught with its instance, file and offset; a crash is reported
//! with its signal; skipped types and "nothing checked" have their exit codes; an
//! interrupted run leaves no process and no directory behind.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{is_root, json, timeshare, UNWRAPPED};

fn which(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

fn have(programs: &[&str]) -> bool {
    let missing: Vec<_> = programs.iter().filter(|p| which(p).is_none()).collect();
    if !missing.is_empty() {
        eprintln!("skipping: {missing:?} not installed (.ci/run installs them)");
    }
    missing.is_empty()
}

/// An executable shell script `name` in `dir`.
fn script(dir: &Path, name: &str, body: &str) {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn path_with(dir: &Path) -> String {
    format!("{}:{}", dir.display(), std::env::var("PATH").unwrap())
}

fn is_empty_dir(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().next().is_none()
}

#[test]
fn quick_runs_every_available_type_and_passes() {
    if !have(&["cc", "ed", "nroff"]) {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("r.json");
    let assert = timeshare()
        .args(["exercise", "--quick", "--json"])
        .arg(&out)
        .arg("--dir")
        .arg(scratch.path())
        .assert()
        .success();
    let text = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    assert!(text.contains("summary: PASS — "), "{text}");
    let r = json(&std::fs::read(&out).unwrap());
    // Two instances of every type that is set up (chess too, once this build has it).
    let ready = r["types"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["state"] == "ready")
        .count();
    assert!(ready >= 4, "{}", r["types"]);
    assert_eq!(r["passed"], 2 * ready as u64);
    assert_eq!(r["failed"], 0);
    let batch = &r["batches"][0];
    for i in batch["instances"].as_array().unwrap() {
        assert_eq!(i["outcome"]["result"], "pass", "{i}");
        assert_eq!(i["exit_code"], 0);
        assert!(i["real_s"].as_f64().unwrap() > 0.0);
    }
    // The compile is real work: its CPU time is measured through wait4.
    let cc = batch["per_type"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["job"] == "cc")
        .unwrap();
    assert!(cc["user_per_process_s"].as_f64().unwrap() > 0.005, "{cc}");
    // Only the JSON file remains: every scratch directory is gone.
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 1);
}

#[test]
fn a_corruption_held_back_for_one_instance_is_caught_exactly() {
    if !have(&["ed", "nroff", "dd"]) {
        return;
    }
    let real_ed = which("ed").unwrap();
    let wrappers = tempfile::tempdir().unwrap();
    // ed as usual, then, in instance 2 only, byte 100 of the edited file replaced by \x01.
    script(
        wrappers.path(),
        "ed",
        &format!(
            "{} \"$@\"; rc=$?\ncase \"$PWD\" in */ed/2) printf '\\001' | dd of=text.txt bs=1 \
             seek=100 conv=notrunc 2>/dev/null;; esac\nexit $rc\n",
            real_ed.display()
        ),
    );
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("r.json");
    let assert = timeshare()
        .env("PATH", path_with(wrappers.path()))
        .args(["exercise", "--jobs", "ed=3,nroff=1", "--json"])
        .arg(&out)
        .arg("--dir")
        .arg(scratch.path())
        .assert()
        .code(1);
    let text = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    assert!(
        text.contains("FAIL ed#2: ed/2/text.txt differs from the trusted copy at byte 100"),
        "{text}"
    );
    assert!(text.contains("\\x01"), "the actual bytes are shown: {text}");
    assert!(
        text.contains("summary: FAIL — 3 passed, 1 failed"),
        "{text}"
    );
    let r = json(&std::fs::read(&out).unwrap());
    let failed: Vec<_> = r["batches"][0]["instances"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["outcome"]["result"] != "pass")
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["job"], "ed");
    assert_eq!(failed[0]["index"], 2);
    assert_eq!(failed[0]["outcome"]["result"], "mismatch");
    assert_eq!(failed[0]["outcome"]["file"], "ed/2/text.txt");
    assert_eq!(failed[0]["outcome"]["offset"], 100);
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 1);
}

#[test]
fn a_killed_instance_is_reported_with_its_signal() {
    if !have(&["ed"]) {
        return;
    }
    let real_ed = which("ed").unwrap();
    let wrappers = tempfile::tempdir().unwrap();
    // In instance 1, the wrapper kills the instance's shell (its parent) with SIGSEGV.
    script(
        wrappers.path(),
        "ed",
        &format!(
            "case \"$PWD\" in */ed/1) kill -SEGV $PPID; sleep 1;; esac\nexec {} \"$@\"\n",
            real_ed.display()
        ),
    );
    let scratch = tempfile::tempdir().unwrap();
    let assert = timeshare()
        .env("PATH", path_with(wrappers.path()))
        .args(["exercise", "--jobs", "ed=2", "--dir"])
        .arg(scratch.path())
        .assert()
        .code(1);
    let text = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    assert!(
        text.contains("FAIL ed#1: killed by SIGSEGV (signal 11)"),
        "{text}"
    );
    assert!(is_empty_dir(scratch.path()));
}

#[test]
fn missing_programs_skip_their_types_and_nothing_checked_is_exit_3() {
    if !have(&["ed"]) {
        return;
    }
    // A PATH with only sh and ed: cc, nroff and float are skipped, ed runs.
    let bin = tempfile::tempdir().unwrap();
    for p in ["sh", "ed"] {
        std::os::unix::fs::symlink(which(p).unwrap(), bin.path().join(p)).unwrap();
    }
    let scratch = tempfile::tempdir().unwrap();
    let assert = timeshare()
        .env("PATH", bin.path())
        .args(["exercise", "--jobs", "cc=1,nroff=1,ed=2,float=1", "--dir"])
        .arg(scratch.path())
        .assert()
        .success();
    let text = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    assert!(
        text.contains("nroff  skipped: no `nroff` on PATH"),
        "{text}"
    );
    assert!(text.contains("cc     skipped: no `cc` on PATH"), "{text}");
    assert!(
        text.contains("summary: PASS — 2 passed, 0 failed; 3 job types skipped (cc, nroff, float)"),
        "{text}"
    );
    // Nothing at all on PATH: every type skipped, nothing checked.
    let empty = tempfile::tempdir().unwrap();
    let assert = timeshare()
        .env("PATH", empty.path())
        .args(["exercise", "--jobs", "cc=1,nroff=1,ed=2,float=1", "--dir"])
        .arg(scratch.path())
        .assert()
        .code(3);
    let text = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    assert!(
        text.contains("summary: NOTHING CHECKED — 0 passed, 0 failed; 4 job types skipped"),
        "{text}"
    );
    assert!(is_empty_dir(scratch.path()));
}

#[test]
fn bad_input_is_exit_2_with_one_line() {
    for args in [
        vec!["exercise", "--jobs", "vi=2"],
        vec!["exercise", "--jobs", "cc=0"],
        vec!["exercise", "--sweep", "1,x"],
        vec!["exercise", "--trials", "0"],
        vec!["exercise", "--trials", "1000"],
        vec!["exercise", "--devez", "tape"],
        vec!["exercise", "--devez", "--devez-size", "0"],
        vec!["exercise", "--devez", "--devez-size", "100G"],
        vec!["exercise", "--devez", "--devez-size", "1000K"],
        vec!["exercise", "--devez-size", "1M"],
    ] {
        let assert = timeshare().args(&args).assert().code(2);
        let err = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
        assert!(err.starts_with("timeshare: error: "), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// Processes whose working directory is under `dir`.
fn processes_in(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cwd) = std::fs::read_link(entry.path().join("cwd")) {
            if cwd.starts_with(dir) {
                found.push(format!(
                    "{} {}",
                    entry.file_name().to_string_lossy(),
                    cwd.display()
                ));
            }
        }
    }
    found
}

#[test]
fn an_interrupted_run_leaves_no_process_and_no_directory() {
    if !have(&["cc"]) {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().canonicalize().unwrap();
    // With the device exerciser beside the batch: on a loop device as root, whose
    // detaching on an interrupt is checked below too.
    let target = if is_root() { "loop" } else { "file" };
    let mut child = crate::common::command()
        .args(["exercise", "--jobs", "cc=6,float=6", "--dir"])
        .arg(&dir)
        .args(["--devez", target, "--devez-size", "8M"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the run phase has started instances (their directories exist).
    let start = Instant::now();
    let started = loop {
        let running = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .any(|root| root.path().join("cc/6").exists());
        if running && !processes_in(&dir).is_empty() {
            break true;
        }
        if start.elapsed() > Duration::from_secs(60) || child.try_wait().unwrap().is_some() {
            break false;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(started, "the run phase never started");
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    // The killed groups may take a moment to leave the process table.
    let start = Instant::now();
    while !processes_in(&dir).is_empty() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(processes_in(&dir).is_empty(), "{:?}", processes_in(&dir));
    assert!(!loop_over(&dir), "a loop device is still attached");
    assert!(
        is_empty_dir(&dir),
        "left behind: {:?}",
        std::fs::read_dir(&dir).unwrap().collect::<Vec<_>>()
    );
}

/// Processes of user `uid` now.
fn processes_of(uid: u32) -> u64 {
    let mut n = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(status) = std::fs::read_to_string(entry.path().join("status")) {
            let owner = status
                .lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|l| l.split_whitespace().next()?.parse::<u32>().ok());
            n += u64::from(owner == Some(uid));
        }
    }
    n
}

#[test]
fn an_instance_that_cannot_start_names_the_limit_it_hit() {
    if !have(&["ed"]) {
        return;
    }
    use std::os::unix::process::CommandExt;
    // RLIMIT_NPROC does not bind root: as root, run as a uid of its own (no other test
    // uses it, so no other process counts against the limit). The limit leaves room for
    // timeshare and the setup run (sh + ed) but not for four instances at once.
    const UID: u32 = 61_234;
    let root = unsafe { libc::geteuid() } == 0;
    let uid = if root { UID } else { unsafe { libc::getuid() } };
    let limit = processes_of(uid) + 3;
    let scratch = tempfile::tempdir().unwrap();
    std::fs::set_permissions(scratch.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let (_bin_dir, bin) = crate::common::binary_others_can_run();
    let mut cmd = std::process::Command::new(if root {
        bin
    } else {
        assert_cmd::cargo::cargo_bin("timeshare")
    });
    crate::common::isolate(&mut cmd);
    // Not stored: the tests' database belongs to root, and this run is another user's.
    // Started in the scratch directory: the checkout may be in a home the other user may
    // not enter.
    cmd.args(["exercise", "--jobs", "ed=4", "--no-save", "--dir"])
        .arg(scratch.path())
        .current_dir(scratch.path())
        .env("COLUMNS", UNWRAPPED);
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if root
                && (libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setgid(UID) != 0
                    || libc::setuid(UID) != 0)
            {
                return Err(std::io::Error::last_os_error());
            }
            if libc::setrlimit(libc::RLIMIT_NPROC, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    // The limit is read before anything starts: refused at once, the limit named.
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("RLIMIT_NPROC is {limit} (ulimit -u)")),
        "{err}"
    );
    assert!(is_empty_dir(scratch.path()));
}

#[test]
fn a_sweep_shows_user_time_flat_and_elapsed_growing() {
    if !have(&["cc"]) {
        return;
    }
    // Enough copies to share every CPU several ways.
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    let n = (4 * cpus).clamp(8, 48);
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("sweep.json");
    let assert = timeshare()
        .args([
            "exercise",
            "--sweep",
            &format!("1,{n}"),
            "--types",
            "float",
            "--json",
        ])
        .arg(&out)
        .arg("--dir")
        .arg(scratch.path())
        .assert()
        .success();
    let text = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    assert!(text.contains("elapsed/proc"), "{text}");
    let r = json(&std::fs::read(&out).unwrap());
    assert_eq!(r["sweep"], true);
    let batches = r["batches"].as_array().unwrap();
    assert_eq!(batches.len(), 2);
    let figure = |b: usize, field: &str| batches[b]["total"][field].as_f64().unwrap();
    assert_eq!(batches[1]["processes"], n);
    assert_eq!(batches[1]["total"]["passed"], n);
    // Many copies of a fixed amount of work on a few CPUs: each copy's CPU time stays
    // about the same while each one's elapsed time grows (it shares the CPUs).
    let user_ratio = figure(1, "user_per_process_s") / figure(0, "user_per_process_s");
    let real_ratio = figure(1, "mean_real_s") / figure(0, "mean_real_s");
    assert!(
        (0.5..2.0).contains(&user_ratio),
        "user ratio {user_ratio}: {text}"
    );
    if n >= 3 * cpus {
        assert!(real_ratio > 1.5, "elapsed ratio {real_ratio}: {text}");
    }
}

#[test]
fn a_type_whose_trusted_run_fails_fails_its_instances_and_the_others_run() {
    if !have(&["ed"]) {
        return;
    }
    let wrappers = tempfile::tempdir().unwrap();
    script(
        wrappers.path(),
        "nroff",
        "echo 'nroff: no macros' >&2; exit 1\n",
    );
    let scratch = tempfile::tempdir().unwrap();
    let assert = timeshare()
        .env("PATH", path_with(wrappers.path()))
        .args(["exercise", "--jobs", "nroff=2,ed=1", "--dir"])
        .arg(scratch.path())
        .assert()
        .code(1);
    let text = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    assert!(
        text.contains("nroff  SETUP FAILED: trusted run `nroff -man exerciser.1 > nroff.out`: exit status 1: nroff: no macros"),
        "{text}"
    );
    assert!(
        text.contains("summary: FAIL — 1 passed, 2 failed"),
        "{text}"
    );
    assert!(is_empty_dir(scratch.path()));
}

#[test]
fn an_exercise_is_stored_and_read_like_any_run() {
    if !have(&["cc", "ed", "nroff"]) {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("runs.db");
    let with_db = |args: &[&str]| {
        let out = timeshare()
            .args(args)
            .arg("--db")
            .arg(&db)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    };
    timeshare()
        .args([
            "exercise",
            "--jobs",
            "cc=1,ed=2,nroff=1",
            "--label",
            "ex",
            "--dir",
        ])
        .arg(scratch.path())
        .arg("--db")
        .arg(&db)
        .assert()
        .success()
        .stderr(predicates::str::contains("stored as run 1"));
    let history = with_db(&["history"]);
    assert!(history.contains("exercise --jobs cc=1,ed=2,nroff=1") && history.contains("ex"));

    // Each type alone and the batch of four, with their figures.
    let run = json(with_db(&["export", "ex"]).as_bytes());
    for id in [
        "exercise.cc",
        "exercise.ed",
        "exercise.nroff",
        "exercise.batch.4",
    ] {
        let r = crate::common::result(&run, id);
        assert_eq!(r["status"]["state"], "ok", "{r}");
        assert!(r["summary"]["median"].as_f64().unwrap() > 0.0, "{r}");
    }
    assert_eq!(
        crate::common::result(&run, "exercise.batch.4")["basis"],
        serde_json::json!({"ops": 4, "op": "exerciser process (cc×1, ed×2, nroff×1)"})
    );

    // Seed 004's table and machines now have today's figures beside them.
    let table = with_db(&["table", "004-jobs"]);
    for id in ["exercise.cc", "exercise.ed", "exercise.nroff"] {
        let line = table.lines().find(|l| l.contains(id)).unwrap();
        assert!(
            !line.contains("not run") && line.trim_end().ends_with('×'),
            "{table}"
        );
    }
    let compared = with_db(&["compare", "ex", "vax780-4.1bsd"]);
    let cc = compared
        .lines()
        .find(|l| l.trim_start().starts_with("exercise.cc "))
        .unwrap_or_else(|| panic!("{compared}"));
    assert!(cc.contains("30.5 s") && cc.contains("today"), "{compared}");

    // `show` rebuilds the exerciser's own tables; the run imports elsewhere.
    let shown = with_db(&["show", "last"]);
    assert!(
        shown.contains("cc#1") && shown.contains("exercise.batch.4"),
        "{shown}"
    );
    let file = scratch.path().join("ex.json");
    std::fs::write(&file, with_db(&["export", "last"])).unwrap();
    let other = scratch.path().join("other.db");
    timeshare()
        .args(["import"])
        .arg(&file)
        .arg("--db")
        .arg(&other)
        .assert()
        .success()
        .stdout(predicates::str::contains("imported 4 results"));

    // --no-save stores nothing.
    timeshare()
        .args(["exercise", "--jobs", "ed=1", "--no-save", "--dir"])
        .arg(scratch.path())
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    assert_eq!(
        with_db(&["history"])
            .lines()
            .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
            .count(),
        1
    );
}

/// A job's detached child (`setsid`, out of the instance's process group) that truncates
/// the output after the job's shell has exited: the instance is over only when that
/// child is gone too, so the truncated output is what is checked, and it fails.
#[test]
fn a_detached_child_that_changes_the_output_late_is_caught() {
    if !have(&["ed", "setsid"]) {
        return;
    }
    let real_ed = which("ed").unwrap();
    let wrappers = tempfile::tempdir().unwrap();
    script(
        wrappers.path(),
        "ed",
        &format!(
            "case \"$PWD\" in */ed/1) setsid sh -c 'sleep 1; : > text.txt' \
             </dev/null >/dev/null 2>&1 & ;; esac\nexec {} \"$@\"\n",
            real_ed.display()
        ),
    );
    let scratch = tempfile::tempdir().unwrap();
    let assert = timeshare()
        .env("PATH", path_with(wrappers.path()))
        .args(["exercise", "--no-save", "--jobs", "ed=2", "--dir"])
        .arg(scratch.path())
        .assert()
        .code(1);
    let text = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    assert!(text.contains("FAIL ed#1"), "{text}");
    assert!(text.contains("1 passed, 1 failed"), "{text}");
    assert!(is_empty_dir(scratch.path()));
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The sample standard deviation (n − 1), as the stored spread claims to be.
fn sample_sd(values: &[f64]) -> f64 {
    let m = mean(values);
    (values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (values.len() - 1) as f64).sqrt()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-9)
}

/// `--trials 2`: each batch row of the stored run holds both trials, one sample per
/// trial, and a mean and SD that are those of the trials' own figures.
#[test]
fn trials_store_every_trial_and_their_mean_and_sd() {
    if !have(&["ed"]) {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("runs.db");
    let out = timeshare()
        .args(["exercise", "--quick", "--sweep", "1,2", "--types", "ed"])
        .args(["--trials", "2", "--label", "tr", "--dir"])
        .arg(scratch.path())
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("mean ± SD of 2 trials per batch"), "{text}");
    let exported = timeshare()
        .args(["export", "tr", "--db"])
        .arg(&db)
        .assert()
        .success();
    let run = json(&exported.get_output().stdout);
    assert!(
        run["options"]["selection"]
            .as_array()
            .unwrap()
            .contains(&"--trials".into()),
        "{}",
        run["options"]
    );
    for n in [1, 2] {
        let r = crate::common::result(&run, &format!("exercise.batch.{n}"));
        assert_eq!(r["status"]["state"], "ok", "{r}");
        let d = &r["details"];
        let trials = d["trials"].as_array().unwrap();
        assert_eq!(trials.len(), 2, "{d}");
        assert_eq!(
            trials
                .iter()
                .map(|t| t["trial"].as_u64())
                .collect::<Vec<_>>(),
            [Some(1), Some(2)]
        );
        // Every trial ran its n instances and checked them.
        for t in trials {
            assert_eq!(t["processes"], n);
            assert_eq!(t["total"]["passed"], n, "{t}");
        }
        // The samples are the trials' elapsed times; the summary is theirs.
        let samples: Vec<f64> = r["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["value"].as_f64().unwrap())
            .collect();
        let elapsed: Vec<f64> = trials
            .iter()
            .map(|t| t["elapsed_s"].as_f64().unwrap())
            .collect();
        assert_eq!(samples, elapsed);
        let summary = &r["summary"];
        assert_eq!(summary["n"], 2);
        assert!(
            close(summary["mean"].as_f64().unwrap(), mean(&elapsed)),
            "{r}"
        );
        assert!(
            close(summary["sd"].as_f64().unwrap(), sample_sd(&elapsed)),
            "{r}"
        );
        // The per-process spreads are those of the stored trials' figures.
        let per_trial =
            |f: &dyn Fn(&serde_json::Value) -> f64| -> Vec<f64> { trials.iter().map(f).collect() };
        let figures = [
            (
                "real_per_process",
                per_trial(&|t| t["elapsed_s"].as_f64().unwrap() / n as f64),
            ),
            (
                "user_per_process",
                per_trial(&|t| t["total"]["user_per_process_s"].as_f64().unwrap()),
            ),
            (
                "sys_per_process",
                per_trial(&|t| t["total"]["sys_per_process_s"].as_f64().unwrap()),
            ),
        ];
        for (name, values) in figures {
            let spread = &d[name];
            assert!(
                close(spread["mean"].as_f64().unwrap(), mean(&values)),
                "{name}: {d}"
            );
            assert!(
                close(spread["sd"].as_f64().unwrap(), sample_sd(&values)),
                "{name}: {d}"
            );
        }
    }
    // Every trial's scratch directories are gone: only the database (and its journal).
    assert!(only_the_database_in(scratch.path()));
}

fn only_the_database_in(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .all(|e| e.file_name().to_string_lossy().starts_with("runs.db"))
}

/// A corruption in the second trial only: that trial's instance fails, and so does the
/// batch's row, though the first trial passed.
#[test]
fn a_corruption_in_one_trial_fails_the_row() {
    if !have(&["ed", "dd"]) {
        return;
    }
    let real_ed = which("ed").unwrap();
    let wrappers = tempfile::tempdir().unwrap();
    let count = wrappers.path().join("count");
    // ed as usual; the instance's second run (its trial 2) gets byte 100 replaced.
    script(
        wrappers.path(),
        "ed",
        &format!(
            "{ed} \"$@\"; rc=$?\ncase \"$PWD\" in */ed/1) echo >> {count}; \
             [ \"$(wc -l < {count})\" -eq 2 ] && printf '\\001' | dd of=text.txt bs=1 \
             seek=100 conv=notrunc 2>/dev/null;; esac\nexit $rc\n",
            ed = real_ed.display(),
            count = count.display()
        ),
    );
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("runs.db");
    let out = scratch.path().join("r.json");
    let assert = timeshare()
        .env("PATH", path_with(wrappers.path()))
        .args(["exercise", "--jobs", "ed=1", "--trials", "2", "--json"])
        .arg(&out)
        .arg("--dir")
        .arg(scratch.path())
        .arg("--db")
        .arg(&db)
        .assert()
        .code(1);
    let text = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    assert!(
        text.contains("FAIL ed#1 (trial 2, batch of 1 processes): ed/1/text.txt differs"),
        "{text}"
    );
    assert!(
        text.contains("summary: FAIL — 1 passed, 1 failed"),
        "{text}"
    );
    let r = json(&std::fs::read(&out).unwrap());
    assert_eq!(r["trials"], 2);
    let results: Vec<_> = r["batches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["trial"].clone(),
                b["instances"][0]["outcome"]["result"].clone(),
            )
        })
        .collect();
    assert_eq!(
        results,
        [(1.into(), "pass".into()), (2.into(), "mismatch".into())]
    );
    let exported = timeshare()
        .args(["export", "last", "--db"])
        .arg(&db)
        .assert()
        .success();
    let run = json(&exported.get_output().stdout);
    let row = crate::common::result(&run, "exercise.batch.1");
    assert_eq!(row["status"]["state"], "failed", "{row}");
    let error = row["status"]["error"].as_str().unwrap();
    assert!(
        error.starts_with("1 of 2 instances failed over 2 trials (ed#1 (trial 2): "),
        "{error}"
    );
    assert!(
        row["summary"].is_null(),
        "no figure for a failed row: {row}"
    );
}

/// Whether a loop device is attached over a file below `dir`.
fn loop_over(dir: &Path) -> bool {
    let out = std::process::Command::new("losetup")
        .arg("-a")
        .output()
        .map(|o| o.stdout)
        .unwrap_or_default();
    String::from_utf8_lossy(&out).contains(&*dir.to_string_lossy())
}

/// `--devez`: the device exerciser runs beside the batch, writes and reads back whole
/// passes of its scratch file, says how it read back, and leaves nothing; `--devez loop`
/// does the same on a loop device as root and detaches it, and is skipped with the
/// reason for anyone else (here: nobody, through setpriv, when the tests run as root).
#[test]
fn devez_runs_beside_the_batch_and_leaves_nothing() {
    if !have(&["ed"]) {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().canonicalize().unwrap();
    let run = |target: &str| {
        let out = timeshare()
            .args(["exercise", "--jobs", "ed=2", "--no-save", "--json", "-"])
            .args(["--devez", target, "--devez-size", "1M", "--dir"])
            .arg(&dir)
            .assert()
            .success()
            .get_output()
            .clone();
        let text = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(
            is_empty_dir(&dir),
            "{target}: left behind in {}",
            dir.display()
        );
        assert!(
            !loop_over(&dir),
            "{target}: a loop device is still attached"
        );
        (json(&out.stdout), text)
    };
    let (r, text) = run("file");
    let d = &r["batches"][0]["devez"];
    assert_eq!(d["state"], "ran", "{d}");
    assert_eq!(d["target"], "file");
    let passes = d["passes"].as_u64().unwrap();
    assert!(passes >= 1, "{d}");
    assert_eq!(d["bytes_written"].as_u64(), Some(passes << 20), "{d}");
    assert_eq!(d["bytes_read"].as_u64(), Some(passes << 20), "{d}");
    assert_eq!(d["verify_errors"], 0, "{d}");
    // Either it read past the page cache, or it says why it could not.
    assert!(d["direct"] == true || d["cache_note"].is_string(), "{d}");
    assert!(
        text.contains("devez beside each batch: devez.scratch"),
        "{text}"
    );
    assert!(text.contains("; devez: "), "{text}");

    let (r, text) = run("loop");
    let d = &r["batches"][0]["devez"];
    if is_root() && which("losetup").is_some() && d["state"] == "ran" {
        assert!(
            d["device"].as_str().unwrap().starts_with("/dev/loop"),
            "{d}"
        );
        assert_eq!(d["verify_errors"], 0, "{d}");
    } else {
        assert_eq!(d["state"], "skipped", "{d}");
        assert!(text.contains("devez (loop) skipped: "), "{text}");
    }

    // As an ordinary user the loop target is skipped, and nothing is exercised instead.
    if !is_root() || which("setpriv").is_none() {
        return;
    }
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = crate::common::isolate(&mut std::process::Command::new("setpriv"))
        .args([
            "--reuid",
            "65534",
            "--regid",
            "65534",
            "--clear-groups",
            "--",
        ])
        .arg(assert_cmd::cargo::cargo_bin("timeshare"))
        .args(["exercise", "--jobs", "ed=1", "--no-save", "--json", "-"])
        .args(["--devez", "loop", "--devez-size", "1M", "--dir"])
        .arg(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    if !out.status.success() {
        // The test binary out of nobody's reach (a private target directory): nothing to
        // learn here.
        eprintln!("skipping the unprivileged case: {err}");
        return;
    }
    let r = json(&out.stdout);
    let d = &r["batches"][0]["devez"];
    assert_eq!(d["state"], "skipped", "{d}");
    assert!(
        d["reason"]
            .as_str()
            .unwrap()
            .contains("needs root (this is uid 65534)"),
        "{d}"
    );
    assert!(
        err.contains("devez (loop) skipped: a loop device needs root"),
        "{err}"
    );
    assert!(is_empty_dir(&dir));
}

/// A loop device left by an exercise killed outright (its backing file in the scratch
/// directory of a process that is gone: pid 4194305 is above the kernel's limit) is
/// detached by `timeshare clean`, as root; a device over any other file is left alone.
#[test]
fn clean_detaches_a_loop_device_left_by_a_dead_exercise() {
    if !is_root() || which("losetup").is_none() {
        eprintln!("skipping: needs root and losetup");
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().canonicalize().unwrap();
    let dead = dir.join("timeshare-exercise-4194305-abc123");
    let other = dir.join("mine");
    let attach = |d: &Path| {
        std::fs::create_dir_all(d).unwrap();
        let file = d.join("devez.backing");
        std::fs::File::create(&file)
            .unwrap()
            .set_len(1 << 20)
            .unwrap();
        let out = std::process::Command::new("losetup")
            .args(["--find", "--show"])
            .arg(&file)
            .output()
            .unwrap();
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let (Some(left), Some(kept)) = (attach(&dead), attach(&other)) else {
        eprintln!("skipping: no loop device can be attached here");
        return;
    };
    let out = timeshare()
        .args(["clean", "--dir"])
        .arg(&dir)
        .output()
        .unwrap();
    let attached_over = |d: &Path| loop_over(d);
    let still_dead = attached_over(&dead);
    let still_other = attached_over(&other);
    // Whatever the outcome, nothing of this test stays attached.
    for dev in [&left, &kept] {
        let _ = std::process::Command::new("losetup")
            .arg("-d")
            .arg(dev)
            .status();
    }
    assert!(out.status.success(), "{out:?}");
    assert!(!still_dead, "the dead exercise's {left} is detached");
    assert!(
        still_other,
        "{kept}, over a file of no exercise, is left alone"
    );
}

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
    // A database of its own, to see when a first result is stored: however loaded the
    // machine, the interrupt comes after something was measured.
    let db_dir = tempfile::tempdir().unwrap();
    let db = db_dir.path().join("runs.db");
    let child = crate::common::command()
        .args(["run", "syscall", "--full", "--invocations", "1", "--json"])
        .arg(&path)
        .arg("--db")
        .arg(&db)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while crate::common::stored_results(&db) < 1 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(
            start.elapsed() < std::time::Duration::from_secs(120),
            "no result stored in two minutes"
        );
    }
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

/// A run across processes measures a row that declares it (a load row, a network sweep)
/// in its first process only, and says so on the row; the others in every process.
#[test]
fn rows_measured_once_are_measured_in_one_process_and_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    timeshare()
        .args([
            "run",
            "syscall.getpid",
            "load.cpu.1",
            "net.unix.bw",
            "--copies",
            "1",
        ])
        .args(["--quick", "--invocations", "2", "--no-save", "--json"])
        .arg(&path)
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .success();
    let run = crate::common::json(&std::fs::read(&path).unwrap());
    for r in run["results"].as_array().unwrap() {
        let processes = r["invocations"]["within"].as_array().unwrap().len();
        let said = r["notes"].as_array().unwrap().iter().any(|n| {
            n.as_str()
                .unwrap()
                .contains("first of the run's processes only")
        });
        match r["id"].as_str().unwrap() {
            "syscall.getpid" => assert_eq!((processes, said), (2, false)),
            id => assert_eq!((processes, said), (1, true), "{id}"),
        }
    }
}

#[test]
fn both_sides_of_ab_import_as_runs_of_their_own_and_compare() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, db) = (
        dir.path().join("a.json"),
        dir.path().join("b.json"),
        dir.path().join("runs.db"),
    );
    // call.subroutine.single's corrected single calls fall below zero now and then: the
    // files must import all the same.
    timeshare()
        .args([
            "ab",
            "self",
            "self",
            "syscall.getpid",
            "call.subroutine.single",
        ])
        .args(["--rounds", "3", "--json-a"])
        .arg(&a)
        .arg("--json-b")
        .arg(&b)
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .success();
    // The run-level checks a `run` has: the clock's rate over the whole experiment, the
    // same on both sides (one sitting), in each side's environment.
    let rates: Vec<serde_json::Value> = [&a, &b]
        .iter()
        .map(|f| {
            let run: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
            run["environment"]["clock_rate"].clone()
        })
        .collect();
    assert!(rates[0].is_object(), "no clock rate in side A: {rates:?}");
    assert_eq!(rates[0], rates[1]);
    for file in [&a, &b] {
        timeshare()
            .arg("import")
            .arg(file)
            .arg("--db")
            .arg(&db)
            .assert()
            .success()
            .stdout(predicate::str::contains("not imported").not());
    }
    assert_eq!(crate::common::stored_results(&db), 4);
    timeshare()
        .args(["compare", "1", "2", "--db"])
        .arg(&db)
        .env("COLUMNS", crate::common::UNWRAPPED)
        .assert()
        .success()
        .stdout(predicate::str::contains("syscall.getpid"));
}

/// crosscheck's pairs are a sitting with the checks a run has: its JSON carries the
/// clock's rate over the pairs and the checks' warnings (a drifted machine, a slewed
/// clock), which standard error says too, after the table.
#[test]
fn crosscheck_carries_the_clock_rate_and_the_checks_warnings_in_its_json() {
    // lmbench's calibration given, so that none is measured (a minute) nor kept.
    let out = timeshare()
        .args(["crosscheck", "syscall.getppid.libc", "--pairs", "2"])
        .args(["--max-pairs", "2", "--format", "json"])
        .env("ENOUGH", "20000")
        .env("TIMING_O", "0")
        .env("LOOP_O", "0")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // 1 when a noisy machine puts the row outside its tolerance: the checks are there all
    // the same.
    assert!(matches!(out.status.code(), Some(0 | 1)), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rate = &json["clock_rate"];
    assert!(
        rate["ppm"].is_f64() && rate["window_s"].as_f64() > Some(0.0),
        "{rate}"
    );
    let warnings = json["warnings"].as_array().expect("a list of warnings");
    for w in warnings {
        let w = w.as_str().unwrap();
        assert!(
            stderr.contains(&format!("warning: {w}")),
            "{w} not said: {stderr}"
        );
    }
    assert!(
        json["settings"].is_object() && json["pairs"].is_array(),
        "{json}"
    );
}

/// The `mem` rows of one process pass their touched buffers on to the next `mem` row
/// (kept out of forks): every row still checks its own passes, and the rows beside them
/// that fork this process (`proc.fork.0`, the copies of `load.cpu.1`) still run.
#[test]
fn mem_rows_sharing_buffers_in_one_process_still_check_and_forks_still_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    timeshare()
        .args([
            "run",
            "mem.cp",
            "proc.fork.0",
            "load.cpu.1",
            "mem.wr",
            "mem.cp.all_cpus",
        ])
        .args([
            "--copies",
            "1",
            "--quick",
            "--invocations",
            "1",
            "--no-save",
            "--json",
        ])
        .arg(&path)
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .success();
    let run = crate::common::json(&std::fs::read(&path).unwrap());
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 5);
    for r in results {
        assert_eq!(r["status"]["state"], "ok", "{}: {}", r["id"], r["status"]);
    }
}

/// A `timeshare` that may use one CPU only, as under `taskset -c N`.
fn on_one_cpu(args: &[&str]) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("timeshare"));
    crate::common::isolate(&mut c).args(args);
    // SAFETY: between fork and exec only sched_getaffinity and sched_setaffinity run,
    // both async-signal-safe system calls, on a cpu_set_t on the stack.
    unsafe {
        c.pre_exec(|| {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            let size = std::mem::size_of::<libc::cpu_set_t>();
            if libc::sched_getaffinity(0, size, &mut set) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            let first = (0..libc::CPU_SETSIZE as usize)
                .find(|&c| libc::CPU_ISSET(c, &set))
                .unwrap_or(0);
            let mut one: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(first, &mut one);
            if libc::sched_setaffinity(0, size, &one) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    c.output().unwrap()
}

#[test]
fn spread_placement_on_one_usable_cpu_is_refused_before_anything_runs() {
    let out = on_one_cpu(&["run", "pipe.back.4", "--placement", "spread", "--no-save"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--placement spread needs two usable CPUs"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing ran");
    // Pinned with --cpu, the process has one CPU too.
    timeshare()
        .args([
            "run",
            "pipe.back.4",
            "--cpu",
            "0",
            "--placement",
            "spread",
            "--no-save",
        ])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty());
}

#[test]
fn a_history_of_a_database_that_is_not_there_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    timeshare()
        .args(["history", "--db"])
        .arg(dir.path().join("missing/dir/x.db"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no results database at"));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn output_paths_that_cannot_be_written_are_usage_errors_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing/x");
    timeshare()
        .args(["export", "1", "-o"])
        .arg(&missing)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot write --output"));
    timeshare()
        .args(["exercise", "--quick", "--jobs", "ed=1", "--json"])
        .arg(&missing)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot write --json"));
    // Where even a hidden temporary file cannot be made, the message names the user's
    // path only.
    for args in [
        &[
            "run",
            "syscall.getpid",
            "--no-save",
            "--json",
            "/proc/r.json",
        ][..],
        &["export", "1", "-o", "/proc/r.json"],
    ] {
        timeshare()
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("/proc/r.json"))
            .stderr(predicate::str::contains(".timeshare").not())
            .stderr(predicate::str::contains(".tmp").not());
    }
}

/// The process's file-creation mask, as the kernel reports it.
fn umask() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let mask = status
        .lines()
        .find_map(|l| l.strip_prefix("Umask:"))
        .unwrap();
    u32::from_str_radix(mask.trim(), 8).unwrap()
}

#[test]
fn json_files_get_the_permissions_of_any_file_the_user_makes() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    timeshare()
        .args(["run", "syscall.getpid", "--no-save", "--json"])
        .arg(&path)
        .assert()
        .success();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o666 & !umask(), "mode {mode:o}");
    let exported = dir.path().join("e.json");
    timeshare()
        .args(["import"])
        .arg(&path)
        .arg("--db")
        .arg(dir.path().join("runs.db"))
        .assert()
        .success();
    timeshare()
        .args(["export", "1", "-o"])
        .arg(&exported)
        .arg("--db")
        .arg(dir.path().join("runs.db"))
        .assert()
        .success();
    let mode = std::fs::metadata(&exported).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o666 & !umask(), "mode {mode:o}");
}

#[test]
fn dir_means_one_thing_and_is_checked_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nonexistent");
    for cmd in [
        &["sysinfo"][..],
        &["run", "syscall.getpid", "--no-save"],
        &["exercise", "--quick"],
    ] {
        timeshare()
            .args(cmd)
            .arg("--dir")
            .arg(&missing)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--dir"))
            .stderr(predicate::str::contains("no such directory"));
    }
    let out = timeshare()
        .args(["sysinfo", "--json", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let env = crate::common::json(&out.get_output().stdout);
    let described = std::fs::canonicalize(dir.path()).unwrap();
    assert_eq!(env["workdir"]["path"], described.to_str().unwrap());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn options_for_rows_that_are_not_selected_are_refused() {
    for (option, value, reader) in [
        ("--pages", "100", "vm.seqpage"),
        ("--memory-limit", "12M", "vm.seqpage"),
        ("--copies", "1,2", "load.cpu"),
        ("--users", "1", "load.script"),
        ("--readers", "0", "load.iointerference"),
    ] {
        timeshare()
            .args([
                "run",
                "syscall.getpid",
                "vm.pagefault",
                "--no-save",
                option,
                value,
            ])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "{option} applies only to"
            )))
            .stderr(predicate::str::contains(reader));
    }
}

#[test]
fn a_near_miss_gets_a_suggestion() {
    for (args, says) in [
        (&["run", "syscal"][..], "did you mean `syscall`?"),
        (
            &["list", "syscall.getpdi"],
            "did you mean `syscall.getpid`?",
        ),
        (
            &["reference", "pdp11-70-rl"],
            "did you mean `pdp11-70-ral`?",
        ),
        (&["table", "001-07"], "did you mean `001-7`?"),
        (&["man", "rnu"], "did you mean `run`?"),
        (
            &["compare", "last"],
            "e.g. `compare last 1` or `compare last vax750-4.3bsd`",
        ),
    ] {
        timeshare()
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says))
            .stderr(predicate::function(|s: &str| s.lines().count() == 1));
    }
    timeshare()
        .args(["run", "network"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean").not());
}

#[test]
fn help_lists_the_exit_statuses() {
    timeshare()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("Exit status:"))
        .stdout(predicate::str::contains("130  interrupted"));
}

/// Every `timeshare` the tests start has `HOME` and `XDG_DATA_HOME` in a directory of the
/// tests' own and a database of the tests' own; after commands that store (a finished
/// run, an interrupted one) that home is still empty: no test writes to a user's data.
#[test]
fn the_users_data_directory_is_never_written() {
    use crate::common::{command, pristine_home};
    let c = command();
    let env = |name: &str| {
        c.get_envs()
            .find(|(k, _)| *k == name)
            .and_then(|(_, v)| v.map(std::path::PathBuf::from))
    };
    let home = pristine_home();
    assert_eq!(env("HOME"), Some(home.join("home")));
    assert_eq!(env("XDG_DATA_HOME"), Some(home.join("data")));
    assert!(env("TIMESHARE_DB").is_some());

    timeshare()
        .args(["run", "syscall.getpid", "--quick"])
        .assert()
        .success()
        .stderr(predicate::str::contains("stored as run"));
    let child = command()
        .args(["run", "syscall", "--quick"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    for sub in ["home", "data"] {
        let left: Vec<_> = std::fs::read_dir(home.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert!(left.is_empty(), "written to the test's {sub}: {left:?}");
    }
}

/// `--json` and `--html` naming one file, however spelled, would leave only the HTML: the
/// run is refused before it measures anything, and nothing is stored or written.
#[test]
fn json_and_html_into_one_file_is_refused_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    let out = dir.path().join("run.out");
    let spelled_otherwise = dir.path().join(".").join("run.out");
    timeshare()
        .args(["run", "syscall.getpid", "--quick", "--db"])
        .arg(&db)
        .arg("--json")
        .arg(&out)
        .arg("--html")
        .arg(&spelled_otherwise)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--json and --html both name"))
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
    assert!(!out.exists(), "nothing written");
    assert_eq!(crate::common::stored_results(&db), 0, "nothing stored");
}

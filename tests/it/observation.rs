//! `timeshare observe`: an observation is made, stored, listed, shown, exported,
//! imported, reported and compared; bad input is one line and exit 2.

use crate::common::{stdout_of, timeshare};

fn db(dir: &tempfile::TempDir, name: &str) -> String {
    dir.path().join(name).display().to_string()
}

#[test]
fn an_observation_goes_round_the_store_and_the_reports() {
    let dir = tempfile::tempdir().unwrap();
    let a = db(&dir, "a.db");
    for label in ["first", "second"] {
        let out = timeshare()
            .args([
                "observe",
                "--for",
                "1s",
                "--interval",
                "0.2",
                "--no-profile",
            ])
            .args(["--label", label, "--db", &a])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("context switches"), "{text}");
        assert!(
            text.contains("kernel profile: unavailable: not asked for"),
            "{text}"
        );
    }
    let history = timeshare().args(["history", "--db", &a]).output().unwrap();
    let h = String::from_utf8_lossy(&history.stdout);
    assert!(
        h.contains("o1") && h.contains("o2") && h.contains("second"),
        "{h}"
    );
    let show = timeshare()
        .args(["show", "o1", "--db", &a])
        .output()
        .unwrap();
    assert!(show.status.success());
    assert!(String::from_utf8_lossy(&show.stdout).contains("observation o1"));
    let file = dir.path().join("o1.json");
    timeshare()
        .args(["export", "o1", "--db", &a, "-o"])
        .arg(&file)
        .assert()
        .success();
    let b = db(&dir, "b.db");
    let import = timeshare()
        .arg("import")
        .arg(&file)
        .args(["--db", &b])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&import.stdout);
    assert!(said.contains("as observation o1"), "{said}");
    let again = timeshare()
        .arg("import")
        .arg(&file)
        .args(["--db", &b])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&again.stdout).contains("not imported"));
    let cmp = timeshare()
        .args(["compare", "o1", "o2", "--db", &a])
        .output()
        .unwrap();
    let c = String::from_utf8_lossy(&cmp.stdout);
    assert!(cmp.status.success() && c.contains("beyond noise"), "{c}");
    let html = dir.path().join("o2.html");
    timeshare()
        .args(["report", "o2", "--db", &a, "-o"])
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("Rates over time") && page.contains("<svg"),
        "a chart"
    );
    let t = timeshare()
        .args(["table", "001-rates", "--db", &a])
        .output()
        .unwrap();
    let t = String::from_utf8_lossy(&t.stdout);
    assert!(
        t.contains("today (o2)") && t.contains("90 (220 in §3.2.6)"),
        "{t}"
    );
}

#[test]
fn a_commands_span_reports_its_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    let out = timeshare()
        .args([
            "observe",
            "--no-profile",
            "--no-calls",
            "--db",
            &db(&dir, "c.db"),
        ])
        .args(["--", "sh", "-c", "sleep 0.3; exit 3"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("sh -c sleep 0.3; exit 3 (exit 3)"), "{text}");
    assert!(
        text.contains("call mix: unavailable: not asked for (--no-calls)"),
        "{text}"
    );
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = db(&dir, "d.db");
    for args in [
        vec!["observe", "--db", &d],
        vec!["observe", "--for", "10x", "--db", &d],
        vec!["observe", "--for", "1s", "--db", &d, "--", "true"],
        vec!["observe", "--for", "1s", "--interval", "0", "--db", &d],
        vec!["observe", "--no-save", "--", "/nonexistent"],
        vec!["observe", "--no-save", "--", "no-such-program-anywhere"],
        vec!["observe", "--cost", "0"],
        vec!["observe", "--cost", "2", "--for", "1s"],
        vec!["show", "o99", "--db", &d],
    ] {
        let out = timeshare().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

/// What the observed command starts and leaves running is stopped with it: nothing
/// outlives the span.
#[test]
fn what_the_command_leaves_running_is_killed_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let script = format!("sleep 60 & echo $! > {}; exit 0", pidfile.display());
    let out = timeshare()
        .args([
            "observe",
            "--no-profile",
            "--no-calls",
            "--no-caches",
            "--no-save",
        ])
        .args(["--", "sh", "-c", &script])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The left-behind sleep is killed; once its parent shell is gone it is reaped by
    // init, so give that a moment before asking whether it is still there.
    let gone = (0..100).any(|_| {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok();
        let dead = state.is_none_or(|s| s.contains(") Z "));
        if !dead {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        dead
    });
    if !gone {
        // SAFETY: a pid this test's own command started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    assert!(
        gone,
        "the background sleep {pid} outlived the observed command"
    );
}

/// What an ordinary user gets: the rates, and the call mix and profile skipped with the
/// privilege they need, never an empty table.
#[test]
fn an_ordinary_user_gets_the_rates_and_the_reasons() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 || which("setpriv").is_none() {
        eprintln!("skipped: needs root and setpriv to become an ordinary user");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut cmd = crate::common::command();
    let bin = assert_cmd::cargo::cargo_bin("timeshare");
    let out = std::process::Command::new("setpriv")
        .args(["--reuid", "65534", "--regid", "65534", "--clear-groups"])
        .arg(bin)
        .args(["observe", "--for", "1s", "--no-save"])
        .envs(cmd.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .output()
        .unwrap();
    let _ = &mut cmd;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("context switches"), "{text}");
    assert!(text.contains("call mix: unavailable:"), "{text}");
    assert!(text.contains("kernel profile: unavailable:"), "{text}");
    assert!(text.contains("terminal characters: unavailable:"), "{text}");
    assert!(
        text.contains("page-cache hit ratio of reads: unavailable:"),
        "{text}"
    );
}

/// As root: every call is timed (the top calls by time), and the page cache's figures are
/// counted, not explained away; `--no-call-times` and `--no-caches` say they were not asked.
#[test]
fn calls_are_timed_and_the_page_cache_counted() {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: the tracepoints need root here");
        return;
    }
    let observe = |extra: &[&str]| {
        let out = timeshare()
            .args(["observe", "--no-profile", "--no-save"])
            .args(extra)
            .args([
                "--",
                "sh",
                "-c",
                "cat /etc/passwd /etc/passwd >/dev/null; sleep 0.2",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let text = observe(&[]);
    assert!(text.contains("top calls by time in the kernel"), "{text}");
    assert!(
        text.contains("in kernel") && text.contains("mean"),
        "{text}"
    );
    assert!(text.contains("page-cache hit ratio of reads: "), "{text}");
    assert!(text.contains("pages asked for"), "{text}");
    assert!(!text.contains("hit ratio of reads: unavailable"), "{text}");
    let text = observe(&["--no-call-times", "--no-caches"]);
    assert!(
        text.contains("by time: not measured: not asked for (--no-call-times)"),
        "{text}"
    );
    assert!(
        text.contains("page-cache hit ratio of reads: unavailable: not asked for (--no-caches)"),
        "{text}"
    );
}

/// `observe --cost 1`: every setting measured once beside observing nothing, or said why
/// not; nothing stored.
#[test]
fn what_observing_costs_is_measured() {
    let out = timeshare()
        .args(["observe", "--cost", "1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("what observing costs: medians of 1 rounds"),
        "{text}"
    );
    for setting in [
        "nothing observed",
        "rates + call mix (entries)",
        "everything",
    ] {
        assert!(text.contains(setting), "{setting}: {text}");
    }
    assert!(text.contains("share of one CPU"), "{text}");
}

fn which(program: &str) -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| p.exists())
}

/// `run --observe-system`: the machine is observed for the run's life and stored as an
/// observation naming the run; the run's own calls (getppid, the row's operation) are
/// counted apart from the machine's, and the observer's threads' are not among them.
#[test]
fn a_run_observed_beside_is_stored_naming_it_with_its_calls_apart() {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: the call mix needs root here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = db(&dir, "r.db");
    let out = timeshare()
        .args([
            "run",
            "syscall.getppid",
            "--quick",
            "--observe-system",
            "--db",
            &d,
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("stored as run 1"), "{err}");
    assert!(
        err.contains("stored as observation o1") && err.contains("of them the workload's"),
        "{err}"
    );
    let file = dir.path().join("o1.json");
    timeshare()
        .args(["export", "o1", "--db", &d, "-o"])
        .arg(&file)
        .assert()
        .success();
    let o: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let span = &o["span"];
    assert_eq!(span["kind"], "workload", "{span}");
    assert_eq!(span["run"], "run 1", "{span}");
    let what = span["what"].as_str().unwrap();
    assert!(
        what.starts_with("timeshare run syscall.getppid --quick --observe-system"),
        "{what}"
    );
    let tree = &o["calls"]["command_tree"];
    let getppid = tree["calls"]
        .as_array()
        .unwrap_or_else(|| panic!("{o}"))
        .iter()
        .find(|c| c["name"] == "getppid")
        .and_then(|c| c["count"].as_u64())
        .unwrap_or_else(|| panic!("{tree}"));
    // A quick row times 21 samples of a 2 ms batch: hundreds of thousands of calls.
    assert!(getppid > 10_000, "{tree}");
}

/// `kill -9` in the middle of an observation stored as it goes: what was stored before
/// stays, marked partial (history, show, export), and `clean` then removes the profile's
/// perf files the dead observer left in the temporary directory.
#[test]
fn a_killed_observation_keeps_what_was_stored_marked_partial_and_clean_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let db = db(&dir, "runs.db");
    let bin = assert_cmd::cargo::cargo_bin("timeshare");
    let mut child = std::process::Command::new(&bin)
        .args([
            "observe",
            "--for",
            "300s",
            "-i",
            "0.2",
            "--keep-every",
            "0.5",
        ])
        .args(["--no-calls", "--no-caches", "--db", &db])
        .env("TMPDIR", tmp.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Long enough for lines and a few aggregates to be stored, however busy the machine.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let lines = || {
        let out = timeshare()
            .args(["export", "o-last", "--db", &db])
            .output()
            .unwrap();
        serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .ok()
            .and_then(|v| v["rates"]["lines"].as_array().map(Vec::len))
            .unwrap_or(0)
    };
    while lines() < 10 {
        assert!(
            std::time::Instant::now() < deadline,
            "nothing stored in 60 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let kept = lines();
    assert!(kept >= 10, "{kept} lines kept");
    let history = timeshare().args(["history", "--db", &db]).output().unwrap();
    let history = String::from_utf8_lossy(&history.stdout);
    assert!(history.contains("partial"), "{history}");
    let show = timeshare()
        .args(["show", "o-last", "--db", &db])
        .output()
        .unwrap();
    assert!(show.status.success());
    assert!(String::from_utf8_lossy(&show.stdout).contains("PARTIAL"));
    let out = timeshare()
        .args(["export", "o-last", "--db", &db])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["partial"], true);
    assert_eq!(v["complete"], false);
    // perf died with its parent (PR_SET_PDEATHSIG); its directory is left for clean.
    std::thread::sleep(std::time::Duration::from_millis(300));
    timeshare()
        .args(["clean", "--dir"])
        .arg(dir.path())
        .env("TMPDIR", tmp.path())
        .assert()
        .success();
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Counted in the kernel, the call mix is kept as the observation goes too: after a
/// `kill -9` the stored, partial observation holds the calls counted up to its last
/// keeping (a loop of `true` commands makes them), not "read at the end". Root only (the
/// kernel path); where BPF cannot be loaded the mix is the record path's, read at the end,
/// and the test says so and stops.
#[test]
fn a_killed_observation_keeps_its_call_mix_counted_in_the_kernel() {
    const LOOP: &str = "while :; do /bin/true; sleep 0.05; done # killed-observation test";
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: counting in the kernel needs root");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = db(&dir, "runs.db");
    let bin = assert_cmd::cargo::cargo_bin("timeshare");
    let mut child = std::process::Command::new(&bin)
        .args(["observe", "--no-profile", "--no-caches", "-i", "0.2"])
        .args(["--keep-every", "0.5", "--db", &db, "--"])
        .args(["sh", "-c", LOOP])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let calls = || {
        let out = timeshare()
            .args(["export", "o-last", "--db", &db])
            .output()
            .unwrap();
        serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .ok()
            .map(|v| v["calls"].clone())
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let kept = loop {
        if let Some(c) = calls().filter(|c| c["total"].as_u64().unwrap_or(0) > 0) {
            break c;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no call mix stored in 60 s: {:?}",
            calls()
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
    };
    // SAFETY: kills the observer we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap();
    // The loop runs in a process group of its own, which outlives a killed observer.
    let _ = std::process::Command::new("pkill")
        .args(["-f", LOOP])
        .status();
    let method = kept["method"].as_str().unwrap_or_default();
    if !method.contains("counted in the kernel") {
        eprintln!("skipped: the calls were counted from perf's records ({method})");
        return;
    }
    let stored = calls().expect("the partial observation is stored");
    assert!(stored["total"].as_u64().unwrap() > 0, "{stored}");
    let tree = &stored["command_tree"];
    assert!(
        tree["calls"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c["name"] == "execve")),
        "the observed loop's tree, counted apart mid-way: {tree}"
    );
}

/// The clock's readings "N s of 3 s, M s left" in what a terminal was sent, in order,
/// each once.
fn clock_readings(text: &str) -> Vec<(u64, u64)> {
    let mut seen: Vec<(u64, u64)> = Vec::new();
    for part in text.split("observing: ").skip(1) {
        let words: Vec<&str> = part.split_whitespace().take(6).collect();
        if let [n, "s", "of", "3", "s,", m] = words.as_slice() {
            if let (Ok(n), Ok(m)) = (n.parse(), m.parse()) {
                if seen.last() != Some(&(n, m)) {
                    seen.push((n, m));
                }
            }
        }
    }
    seen
}

#[test]
fn observe_shows_a_clock_that_moves_on_a_terminal_and_none_on_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let args = format!(
        "observe --for 3s --interval 0.5 --no-profile --no-calls --db {}",
        db(&dir, "clock.db")
    );
    let exe = crate::common::command().get_program().to_owned();
    let line = format!("{} {args}", exe.to_string_lossy());
    let mut script = std::process::Command::new("script");
    crate::common::isolate(&mut script);
    let out = script
        .env("TERM", "xterm")
        .args(["-qec", &line, "/dev/null"])
        .output()
        .unwrap_or_else(|e| panic!("script: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    // On a pseudo-terminal: the time observed rises from 0 to at least 2 of 3 s, and the
    // time left is what remains of the span, not a rate's estimate.
    let clock = clock_readings(&text);
    assert!(
        clock.first().is_some_and(|&(n, _)| n == 0),
        "{clock:?}\n{text}"
    );
    assert!(clock.iter().any(|&(n, _)| n >= 2), "{clock:?}\n{text}");
    assert!(clock.windows(2).all(|w| w[0].0 < w[1].0), "{clock:?}");
    assert!(clock.iter().all(|&(n, m)| n + m == 3), "{clock:?}");
    // Piped: the same observation says nothing of a clock, on either stream.
    let piped = timeshare()
        .args(args.split(' '))
        .arg("--label")
        .arg("piped")
        .output()
        .unwrap();
    assert!(
        piped.status.success(),
        "{}",
        String::from_utf8_lossy(&piped.stderr)
    );
    for stream in [&piped.stdout, &piped.stderr] {
        let s = String::from_utf8_lossy(stream);
        assert!(!s.contains(" s left") && !s.contains('\r'), "{s}");
    }
}

/// Where root could have counted in the kernel but did not (here `TIMESHARE_NO_BPF`), the
/// observation's notes say which path ran instead and why, without any debug setting.
#[test]
fn a_fallback_from_the_kernel_path_is_noted_with_its_reason() {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 || which("perf").is_none() {
        eprintln!("skipped: needs root and perf");
        return;
    }
    let text = stdout_of(
        timeshare()
            .env("TIMESHARE_NO_BPF", "1")
            .env_remove("TIMESHARE_DEBUG")
            .args(["observe", "--no-caches", "--no-save", "--", "sleep", "0.3"]),
        &"observe on the fallback paths",
    );
    for note in [
        "calls counted from perf's records, not in the kernel: TIMESHARE_NO_BPF is set",
        "kernel profile from perf record, not sampled in the kernel: TIMESHARE_NO_BPF is set",
    ] {
        assert!(text.contains(note), "{note}: {text}");
    }
    // perf record left to itself copies every binary its samples hit into $HOME/.debug.
    let cache = crate::common::pristine_home().join("home/.debug");
    assert!(!cache.exists(), "perf wrote {}", cache.display());
}

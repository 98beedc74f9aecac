//! Hostile input: files, paths, databases and signals that must not break the store,
//! write where they must not, reach a terminal raw or leave debris. Fixtures are in
//! `tests/fixtures/hostile/`: `hostile.json` is a valid run whose every string is an
//! attack (terminal escapes, newlines, spreadsheet formulas, Markdown and HTML);
//! `bad-*.json` are runs `import` must refuse, each for one named field.

use std::path::{Path, PathBuf};

use crate::common::{is_root, stdout_of, timeshare};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/hostile");

fn fixture(name: &str) -> PathBuf {
    Path::new(DIR).join(name)
}

fn sha256(path: &Path) -> String {
    let out = std::process::Command::new("sha256sum")
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()[..64].to_string()
}

/// Each bad file, and the field its error must name.
const BAD: &[(&str, &str)] = &[
    ("bad-year.json", "started_at: year 99999 out of range"),
    (
        "bad-schema-string.json",
        "schema_version: expected a whole number, found the string",
    ),
    ("bad-schema-zero.json", "schema_version: 0 is out of range"),
    ("bad-schema-missing.json", "schema_version: missing"),
    ("bad-negative-median.json", "results[0].summary.median"),
    ("bad-n-mismatch.json", "results[0].summary.n"),
    ("bad-duplicate-id.json", "results[1].id"),
    ("bad-no-results.json", "results: a run with no results"),
    ("bad-missing-summary.json", "results[0].summary: missing"),
    ("bad-bad-id.json", "results[0].id"),
    (
        "bad-duplicate-key.json",
        "schema_version: the key is given twice",
    ),
    ("bad-nul.json", "environment.hostname: a NUL character"),
    ("bad-nan.json", "expected value"),
];

#[test]
fn every_bad_file_is_refused_by_name_and_nothing_is_stored() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("runs.db");
    timeshare()
        .arg("import")
        .arg(fixture("hostile.json"))
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    let before = sha256(&db);
    for (file, field) in BAD {
        let out = timeshare()
            .arg("import")
            .arg(fixture(file))
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {err}");
        assert!(err.contains(field), "{file}: {err}");
        assert!(!err.contains('\x1b'), "{file}: raw escape in {err:?}");
    }
    assert_eq!(sha256(&db), before, "a refused import changed the database");
}

/// A run whose wall clock stepped back (NTP on a fresh VM) ends before it starts: it is
/// imported, never refused, its end taken as its start, and the import says so.
#[test]
fn a_run_whose_clock_stepped_back_is_imported_with_its_end_at_its_start() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("runs.db");
    let out = timeshare()
        .arg("import")
        .arg(fixture("bad-finish-before-start.json"))
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let json = timeshare()
        .args(["export", "last", "--format", "json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let run: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(run["finished_at"], run["started_at"], "{run}");
    let warned = run["warnings"].as_array().is_some_and(|w| {
        w.iter()
            .any(|w| w.as_str().is_some_and(|w| w.contains("clock")))
    });
    assert!(warned, "no warning about the clock: {}", run["warnings"]);
}

#[test]
fn an_oversized_or_endless_input_is_refused_without_reading_it_all() {
    let out = timeshare()
        .args(["import", "/dev/zero", "--db"])
        .arg(tempfile::tempdir().unwrap().path().join("r.db"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("larger than 64 MiB"));
}

/// The hostile run through every command that shows a run: no raw control character
/// reaches the output, no cell starts a formula, no Markdown cell breaks out.
#[test]
fn a_hostile_run_is_shown_safely_by_every_command() {
    let dir = crate::common::store_with(&fixture("hostile.json"));
    let db = dir.path().join("runs.db");
    let run =
        |args: &[&str]| -> String { stdout_of(timeshare().args(args).arg("--db").arg(&db), &args) };
    for args in [
        &["history"][..],
        &["show", "1"],
        &["show", "last", "--wide"],
        &["compare", "1", "1"],
        &["table", "002-2", "--run", "1"],
    ] {
        let text = run(args);
        for c in text.chars() {
            assert!(
                c == '\n' || !c.is_control(),
                "{args:?}: raw {c:?} in\n{text}"
            );
        }
        assert!(
            text.contains("\\x1b"),
            "{args:?} shows the escape as text:\n{text}"
        );
        // A newline in the label or an error does not start a line of its own.
        assert!(
            !text.lines().any(|l| l.starts_with("label")),
            "{args:?}:\n{text}"
        );
        assert!(
            !text.lines().any(|l| l.starts_with("| fake")),
            "{args:?}:\n{text}"
        );
    }
    let csv = run(&["export", "1", "--format", "csv"]);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    for record in reader.records() {
        for cell in record.unwrap().iter() {
            let numeric = cell.parse::<f64>().is_ok();
            assert!(
                numeric || !cell.starts_with(['=', '+', '-', '@']),
                "formula cell {cell:?}"
            );
        }
    }
    let md = run(&["export", "1", "--format", "markdown"]);
    for line in md.lines().filter(|l| l.starts_with('|')) {
        let cells = line.replace("\\|", "").matches('|').count();
        assert_eq!(cells, 7, "a row with other than six cells: {line}");
        assert!(
            !line.contains('<') && !line.contains('`') || line.contains("| `"),
            "{line}"
        );
    }
    assert!(md.contains("&lt;script&gt;") && !md.contains("<script>"));
    // JSON keeps the bytes as they are (escaped by JSON itself) and reads back the same.
    let json = run(&["export", "1", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(v["options"]["label"].as_str().unwrap().contains('\x1b'));
}

#[test]
fn a_stored_row_with_an_impossible_year_does_not_break_the_listings() {
    let dir = crate::common::store_with(crate::common::FIXTURE.as_ref());
    let db = dir.path().join("runs.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE runs SET started_at = '+99999-01-01T00:00:00+00:00'",
        [],
    )
    .unwrap();
    drop(conn);
    for args in [&["history"][..], &["show", "last"], &["table", "002-2"]] {
        timeshare()
            .args(args)
            .arg("--db")
            .arg(&db)
            .assert()
            .success();
    }
}

#[test]
fn json_to_dev_null_leaves_it_a_character_device() {
    use std::os::unix::fs::FileTypeExt;
    timeshare()
        .args([
            "run",
            "syscall.getpid",
            "--quick",
            "--no-save",
            "--json",
            "/dev/null",
        ])
        .assert()
        .success();
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
}

#[test]
fn outputs_go_through_a_symlink_and_into_a_fifo_and_refuse_a_socket() {
    use std::os::unix::fs::FileTypeExt;
    let dir = crate::common::store_with(crate::common::FIXTURE.as_ref());
    let db = dir.path().join("runs.db");
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink("target.json", &link).unwrap();
    // A link to nothing is never followed to create a file.
    timeshare()
        .args(["export", "last", "-o"])
        .arg(&link)
        .arg("--db")
        .arg(&db)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("a link to nothing"));
    assert!(!dir.path().join("target.json").exists());
    std::fs::write(dir.path().join("target.json"), b"old").unwrap();
    timeshare()
        .args(["export", "last", "--force", "-o"])
        .arg(&link)
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read(dir.path().join("target.json"))
        .unwrap()
        .starts_with(b"{"));

    let fifo = dir.path().join("fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    timeshare()
        .args(["export", "last", "-o"])
        .arg(&fifo)
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    assert!(reader.join().unwrap().starts_with(b"{"));
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());

    let sock = dir.path().join("sock");
    let _l = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    timeshare()
        .args(["export", "last", "-o"])
        .arg(&sock)
        .arg("--db")
        .arg(&db)
        .assert()
        .code(2);
    assert!(std::fs::metadata(&sock).unwrap().file_type().is_socket());
}

#[test]
fn reading_a_foreign_database_leaves_it_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("foreign.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("CREATE TABLE notes (x); INSERT INTO notes VALUES (1);")
        .unwrap();
    drop(conn);
    let before = sha256(&db);
    for args in [
        &["history"][..],
        &["show", "last"],
        &["export", "last"],
        &["run", "syscall.getpid", "--quick"],
        &["import", crate::common::FIXTURE],
    ] {
        let out = timeshare()
            .args(args)
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("not a timeshare database"));
        assert_eq!(sha256(&db), before, "{args:?} changed it");
    }
    let names: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn a_read_only_database_file_can_still_be_read() {
    use std::os::unix::fs::PermissionsExt;
    let dir = crate::common::store_with(crate::common::FIXTURE.as_ref());
    let db = dir.path().join("runs.db");
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = sha256(&db);
    timeshare()
        .arg("history")
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    timeshare()
        .args(["show", "last"])
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    assert_eq!(sha256(&db), before);
}

/// Processes whose command line names `dir` (a run's or a job's).
fn processes_in(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| {
            let cwd = std::fs::read_link(e.path().join("cwd")).ok()?;
            let cmd = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            (cwd.starts_with(&needle) || cmd.contains(&needle)).then_some(cmd)
        })
        .collect()
}

/// One trial: start `args` with `--dir dir`, send `signal` after `after`, wait for it.
fn interrupt_once(args: &[&str], dir: &Path, signal: i32, after: std::time::Duration) {
    let exe = assert_cmd::cargo::cargo_bin("timeshare");
    let mut child = std::process::Command::new(exe)
        .args(args)
        .arg("--dir")
        .arg(dir)
        .arg("--no-save")
        .env("COLUMNS", "100")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    // SAFETY: kill has no memory effects; the pid is our own child, not yet reaped.
    unsafe { libc::kill(child.id() as i32, signal) };
    child.wait().unwrap();
}

/// What is in `dir`, as names.
fn left_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// HUP, TERM and INT leave nothing; after KILL, the next run removes what was left.
/// (The long campaign — at least 20 trials of each signal at random moments across
/// `run io`, `run vm --memory-limit`, `run load` and `exercise` — is the ignored test
/// below; its figures are in docs/hardening.md.)
#[test]
fn a_signal_at_any_moment_leaves_no_debris_after_one_more_run() {
    campaign(1, &[50, 400]);
}

#[test]
#[ignore = "the long campaign: about ten minutes; run with --ignored"]
fn signal_campaign() {
    campaign(5, &[30, 120, 300, 700, 1500]);
}

fn campaign(rounds: usize, delays_ms: &[u64]) {
    let workloads: &[&[&str]] = &[
        &["run", "io", "--quick"],
        &["run", "vm.seqpage", "--quick", "--memory-limit", "12M"],
        &["run", "load", "--quick"],
        &["exercise", "--quick"],
    ];
    let signals = [libc::SIGHUP, libc::SIGTERM, libc::SIGINT, libc::SIGKILL];
    let tmp = tempfile::tempdir().unwrap();
    let mut trials = 0;
    for _ in 0..rounds {
        for w in workloads {
            for (k, s) in signals.iter().enumerate() {
                let delay = delays_ms[(trials + k) % delays_ms.len()];
                interrupt_once(w, tmp.path(), *s, std::time::Duration::from_millis(delay));
                trials += 1;
                if *s != libc::SIGKILL {
                    let left = left_in(tmp.path());
                    assert!(
                        left.is_empty(),
                        "{w:?} after signal {s} at {delay} ms left {left:?}"
                    );
                }
            }
        }
    }
    // One following run sweeps what the KILLs left.
    timeshare()
        .args(["clean", "--dir"])
        .arg(tmp.path())
        .assert()
        .success();
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(left_in(tmp.path()).is_empty(), "{:?}", left_in(tmp.path()));
    assert!(
        processes_in(tmp.path()).is_empty(),
        "{:?}",
        processes_in(tmp.path())
    );
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let _ = cgroups;
    eprintln!("signal campaign: {trials} trials, none left debris");
}

// ---------------------------------------------------------------------------------------
// Command scripts: time limits and whole lines.

/// A command that never ends is killed after `--command-timeout` and counted as timed out
/// (not a hang, not a generic failure); the rest of the script runs; a failing list is
/// named by its whole line, not by its first program.
#[test]
fn a_hung_command_times_out_and_a_failing_list_is_named_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let script = tmp.path().join("hang.sh");
    std::fs::write(&script, "echo start\nsleep 1000\ntrue && false\necho end\n").unwrap();
    let started = std::time::Instant::now();
    let out = timeshare()
        .args([
            "run",
            "load.script.1",
            "--no-save",
            "--command-timeout",
            "1",
        ])
        .arg("--script")
        .arg(&script)
        .arg("--dir")
        .arg(tmp.path())
        .args(["--json", "-", "--verbose"])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(1);
    assert!(started.elapsed() < std::time::Duration::from_secs(100));
    let run = crate::common::json(&out.get_output().stdout);
    let r = crate::common::result(&run, "load.script.1");
    let error = r["status"]["error"].as_str().expect("a failed row");
    assert!(error.contains("`sleep` ×"), "{error}");
    assert!(
        error.contains("timed out: still running after 1 s"),
        "{error}"
    );
    assert!(error.contains("`true && false` ×"), "{error}");
    let cmds = r["details"]["commands"].as_array().unwrap();
    let line = |label: &str| cmds.iter().find(|c| c["command"] == label).unwrap().clone();
    let runs = r["details"]["runs"].as_u64().unwrap();
    assert_eq!(line("sleep")["timed_out"].as_u64(), Some(runs));
    assert_eq!(line("sleep")["failed"], 0);
    assert_eq!(line("true && false")["failed"].as_u64(), Some(runs));
    assert_eq!(
        line("echo")["count"].as_u64(),
        Some(2 * runs),
        "the rest ran"
    );
    let table = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(table.contains("TIMED OUT"), "{table}");
    assert_eq!(left_in(tmp.path()), ["hang.sh"]);
}

/// A whole staggered run past `--run-timeout` is stopped: what runs is killed, nothing
/// more starts, the row fails saying so.
#[test]
fn a_run_past_its_timeout_is_stopped() {
    let tmp = tempfile::tempdir().unwrap();
    let script = tmp.path().join("slow.sh");
    std::fs::write(&script, "sleep 1000\necho never\n").unwrap();
    let out = timeshare()
        .args([
            "run",
            "load.script.2",
            "--users",
            "2",
            "--no-save",
            "--run-timeout",
            "1",
        ])
        .args(["--stagger", "0.1", "--script"])
        .arg(&script)
        .arg("--dir")
        .arg(tmp.path())
        .args(["--json", "-"])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(1);
    let run = crate::common::json(&out.get_output().stdout);
    let error = crate::common::result(&run, "load.script.2")["status"]["error"]
        .as_str()
        .expect("a failed row")
        .to_string();
    assert!(error.contains("(--run-timeout)"), "{error}");
    assert!(error.contains("running command(s) killed"), "{error}");
    assert!(processes_in(tmp.path()).is_empty());
}

/// Timeouts out of range are usage errors.
#[test]
fn a_timeout_out_of_range_is_a_usage_error() {
    for bad in ["0", "-1", "nan", "1e9"] {
        timeshare()
            .args(["run", "load.script.1", "--no-save"])
            .arg(format!("--command-timeout={bad}"))
            .assert()
            .code(2)
            .stderr(predicates::str::contains("--command-timeout"));
    }
}

// ---------------------------------------------------------------------------------------
// Resources that run out: named by their cause, checked before starting where they can be.

/// `timeshare ARGS` with the soft and hard `resource` limit set to `value` (as `ulimit`
/// would), exit status and standard error.
fn under_rlimit(resource: libc::__rlimit_resource_t, value: u64, args: &[&str]) -> (i32, String) {
    use std::os::unix::process::CommandExt;
    let mut c = crate::common::command();
    c.args(args);
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        c.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: value,
                rlim_max: value,
            };
            if libc::setrlimit(resource, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = c.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn ulimits_are_checked_before_an_exercise_starts_and_named() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().to_str().unwrap();
    let args = ["exercise", "--quick", "--no-save", "--dir", dir];
    let (code, err) = under_rlimit(libc::RLIMIT_NOFILE, 20, &args);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("RLIMIT_NOFILE is 20 (ulimit -n)"), "{err}");
    let (code, err) = under_rlimit(libc::RLIMIT_AS, 48 << 20, &args);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("RLIMIT_AS is 48.0 MiB (ulimit -v)"), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    if !is_root() {
        // Root is not held to RLIMIT_NPROC.
        let (code, err) = under_rlimit(libc::RLIMIT_NPROC, 8, &args);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("RLIMIT_NPROC is 8 (ulimit -u)"), "{err}");
    }
    assert!(left_in(scratch.path()).is_empty());
}

/// A small file system of our own (tmpfs), unmounted on drop.
struct SmallFs(tempfile::TempDir);

impl SmallFs {
    fn mount(size: &str) -> Option<SmallFs> {
        if !is_root() {
            eprintln!("skipped: mounting a small tmpfs needs root");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "none"])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("skipped: cannot mount a tmpfs here");
            return None;
        }
        Some(SmallFs(dir))
    }

    fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.0.path())
            .output();
    }
}

/// A `--dir` without room is refused before anything starts; one that fills during the
/// run shows as "no space left", not as an output differing at byte 0.
#[test]
fn a_full_dir_is_named_as_no_space_left() {
    let Some(small) = SmallFs::mount("2m") else {
        return;
    };
    let out = timeshare()
        .args(["exercise", "--quick", "--no-save", "--dir"])
        .arg(small.path())
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("cannot exercise here: no space left"), "{err}");
    drop(small);

    let Some(ed) = which("ed") else {
        eprintln!("skipped: no ed");
        return;
    };
    let Some(small) = SmallFs::mount("8m") else {
        return;
    };
    // In instance 1, the job fills the file system before ed writes its output.
    let wrappers = tempfile::tempdir().unwrap();
    let wrapper = wrappers.path().join("ed");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\ncase \"$PWD\" in */ed/1) head -c 20000000 /dev/zero > pad 2>/dev/null;; \
             esac\nexec {} \"$@\"\n",
            ed.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        wrappers.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = timeshare()
        .env("PATH", path)
        .args([
            "exercise",
            "--jobs",
            "ed=2",
            "--no-save",
            "--json",
            "-",
            "--dir",
        ])
        .arg(small.path())
        .assert()
        .code(1);
    let report = crate::common::json(&out.get_output().stdout);
    let first = &report["batches"][0]["instances"][0];
    assert_eq!(first["outcome"]["result"], "out_of_resources", "{first}");
    assert_eq!(
        first["outcome"]["resource"], "disk space (ENOSPC)",
        "{first}"
    );
    assert!(left_in(small.path()).is_empty());
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(program))
            .find(|f| f.is_file())
    })
}

/// Inside a pids cgroup of 15, the cgroup is named, not RLIMIT_NPROC.
#[test]
fn a_pids_cgroup_is_named_as_the_limit() {
    use std::os::unix::process::CommandExt;
    if !is_root() {
        eprintln!("skipped: making a cgroup needs root");
        return;
    }
    let v1 = Path::new("/sys/fs/cgroup/pids");
    let v2 = Path::new("/sys/fs/cgroup/cgroup.subtree_control");
    let parent = if v1.join("cgroup.procs").exists() {
        v1.to_path_buf()
    } else if std::fs::read_to_string(v2).is_ok_and(|s| s.contains("pids")) {
        v2.parent().unwrap().to_path_buf()
    } else {
        eprintln!("skipped: no pids controller here");
        return;
    };
    let cg = parent.join(format!("timeshare-it-{}", std::process::id()));
    if std::fs::create_dir(&cg).is_err() {
        eprintln!("skipped: cannot make a pids cgroup");
        return;
    }
    std::fs::write(cg.join("pids.max"), "15").unwrap();
    let procs = std::ffi::CString::new(cg.join("cgroup.procs").to_str().unwrap()).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let mut c = crate::common::command();
    c.args(["exercise", "--jobs", "cc=4,ed=4", "--no-save", "--dir"])
        .arg(scratch.path());
    // SAFETY: open, write and close are async-signal-safe; the path was made before fork.
    unsafe {
        c.pre_exec(move || {
            let fd = libc::open(procs.as_ptr(), libc::O_WRONLY);
            if fd < 0 || libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                return Err(std::io::Error::last_os_error());
            }
            libc::close(fd);
            Ok(())
        });
    }
    let out = c.output().unwrap();
    let _ = std::fs::remove_dir(&cg);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the cgroup's pids.max is 15"), "{err}");
    assert!(!err.contains("RLIMIT_NPROC"), "{err}");
}

/// The database's disk fills during `run`: what was measured is shown and written to
/// `--json`, the store failure is said, the exit status is not 0, and what was stored
/// reads back as an incomplete run.
#[test]
fn a_full_disk_under_the_database_loses_nothing_measured() {
    let Some(small) = SmallFs::mount("120k") else {
        return;
    };
    let db = small.path().join("runs.db");
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("run.json");
    let out = timeshare()
        .args(["run", "syscall", "--quick", "--db"])
        .arg(&db)
        .arg("--json")
        .arg(&json)
        .assert()
        .code(1);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let run = crate::common::json(&std::fs::read(&json).unwrap());
    let measured = run["results"].as_array().unwrap().len();
    assert!(measured > 10, "{measured}");
    assert!(
        stdout.contains(&format!("{measured} ok")),
        "the tables and summary are shown: {stdout}"
    );
    assert!(stderr.contains("the store failed after"), "{stderr}");
    assert!(stderr.contains("database or disk is full"), "{stderr}");
    assert!(!stderr.contains("stored as run"), "{stderr}");
    // What was stored reads back, as an incomplete run.
    let out = timeshare()
        .args(["history", "--db"])
        .arg(&db)
        .assert()
        .success();
    let history = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(history.contains("interrupted"), "{history}");
    // A disk already full is said before anything is measured, and history still reads.
    // Captured: cat's "No space left on device" is the point, not news for the log.
    let _ = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("cat /dev/zero > {}/fill", small.path().display()))
        .output();
    let out = timeshare()
        .args(["run", "syscall.getpid", "--quick", "--db"])
        .arg(&db)
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("no space left on the file system holding the results database"),
        "{stderr}"
    );
    assert!(!stderr.contains("not a timeshare database"), "{stderr}");
    timeshare()
        .args(["history", "--db"])
        .arg(&db)
        .assert()
        .success();
}

// ---------------------------------------------------------------------------------------
// `--dir`: every bad kind is exit 2 with one line.

#[test]
fn every_bad_dir_is_exit_2_with_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let mut cases: Vec<(PathBuf, &str)> = vec![
        ("/proc".into(), "a proc pseudo file system"),
        ("/sys".into(), "a sysfs pseudo file system"),
        (file, "not a directory"),
        (tmp.path().join("missing"), "no such directory"),
    ];
    let ro = if is_root() {
        SmallFs::mount("1m")
    } else {
        None
    };
    if let Some(ro) = &ro {
        let remount = std::process::Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(ro.path())
            .status();
        if remount.is_ok_and(|s| s.success()) {
            cases.push((ro.path().to_path_buf(), "read-only filesystem"));
        }
    }
    for (dir, says) in &cases {
        for cmd in [
            &["exercise", "--quick", "--no-save"][..],
            &["run", "syscall.getpid", "--no-save"],
        ] {
            let out = timeshare().args(cmd).arg("--dir").arg(dir).assert().code(2);
            let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
            assert!(err.contains(says), "{cmd:?} --dir {}: {err}", dir.display());
            assert_eq!(err.lines().count(), 1, "{err}");
        }
    }
    // Unwritable: as an ordinary user (root writes anywhere).
    let locked = tmp.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    if !is_root() {
        let out = timeshare()
            .args(["exercise", "--quick", "--no-save", "--dir"])
            .arg(&locked)
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(err.contains("Permission denied"), "{err}");
    }
}

// ---------------------------------------------------------------------------------------
// Other users on the same machine.
mod clock;
mod imports;
mod killed;
mod limits;
pub mod others;
mod planted;
mod servers;
mod stdout;
mod store;
mod terminal;
mod userns;
mod waiting;

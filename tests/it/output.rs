//! What timeshare prints, as a person and a script meet it: a reader that closes the pipe
//! early is no error; tables fit the width of the terminal or `COLUMNS`, without trailing
//! spaces, and the summary is the last line; colour only on a terminal without
//! `NO_COLOR`; completions and a manual page from the command definitions.

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{store_with, timeshare, FIXTURE};

/// The command line of `timeshare`, with the fixture's database when `db` is given, for
/// a caller that wires standard output itself.
fn raw(args: &[&str], db: Option<&Path>) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("timeshare"));
    // Never the user's own database or home; the width and colour of this test's own.
    crate::common::isolate(&mut c)
        .args(args)
        .env_remove("COLUMNS")
        .env_remove("NO_COLOR");
    if let Some(db) = db {
        c.arg("--db").arg(db);
    }
    c
}

/// Lines longer than `width` characters.
fn too_wide(text: &str, width: usize) -> Vec<&str> {
    text.lines().filter(|l| l.chars().count() > width).collect()
}

fn with_trailing_space(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.ends_with(' ')).collect()
}

#[test]
fn a_reader_that_closed_the_pipe_ends_the_output_quietly() {
    let store = store_with(Path::new(FIXTURE));
    let db = store.path().join("runs.db");
    let commands: [&[&str]; 9] = [
        &["list"],
        &["history"],
        &["show", "1"],
        &["export", "1"],
        &["export", "1", "--format", "csv"],
        &["table", "001-7"],
        &["compare", "1", "pdp11-70"],
        &["reference", "pdp11-70"],
        &["completions", "bash"],
    ];
    for args in commands {
        // The reading end is closed before timeshare writes a byte: its first write fails
        // with EPIPE, as behind `| head -1` once head has exited.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let db_arg = (args[0] != "completions" && args[0] != "list" && args[0] != "reference")
            .then_some(db.as_path());
        let out = raw(args, db_arg)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?} said: {stderr}");
    }
}

#[test]
fn a_run_whose_reader_went_away_still_ends_well() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = raw(&["run", "syscall.getpid", "--no-save"], None)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("error"),
        "{stderr}"
    );
}

#[test]
fn piped_tables_wrap_to_columns_or_to_100() {
    for width in [80, 100, 132] {
        let out = timeshare()
            .env("COLUMNS", width.to_string())
            .arg("list")
            .assert()
            .success();
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert!(too_wide(&text, width).is_empty(), "COLUMNS={width}: {text}");
        assert!(with_trailing_space(&text).is_empty(), "{text}");
    }
    let out = timeshare()
        .env_remove("COLUMNS")
        .arg("list")
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(
        (90..=100).contains(&widest),
        "{widest} columns without COLUMNS"
    );
}

#[test]
fn show_ends_with_the_stored_warnings_and_the_summary() {
    let store = store_with(Path::new(FIXTURE));
    let out = timeshare()
        .env("COLUMNS", "100")
        .args(["show", "1", "--db"])
        .arg(store.path().join("runs.db"))
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.ends_with('\n'));
    assert!(with_trailing_space(&text).is_empty());
    let lines: Vec<&str> = text.lines().collect();
    let last = lines[lines.len() - 1];
    assert!(
        last.starts_with("222 ok, 0 skipped, 0 failed in "),
        "{last}"
    );
    let warning = lines[lines.len() - 3..lines.len() - 1].join(" ");
    assert!(
        warning.starts_with("warning: running in a virtual machine"),
        "{warning}"
    );
    // Sentences fold to the width, and tables fit it.
    assert!(
        too_wide(&text, 100).is_empty(),
        "{:?}",
        too_wide(&text, 100)
    );
}

#[test]
fn the_summary_is_the_last_line_of_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = timeshare()
        .args(["run", "syscall.getpid*", "--db"])
        .arg(dir.path().join("runs.db"))
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let last = text.lines().last().unwrap();
    assert!(text.ends_with('\n'));
    assert!(last.starts_with("2 ok, 0 skipped, 0 failed in "), "{text}");
}

/// A copy of the fixture with one row failed and one skipped, stored as run 1.
fn store_with_failures() -> (tempfile::TempDir, tempfile::TempDir) {
    let mut run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(FIXTURE).unwrap()).unwrap();
    let results = run["results"].as_array_mut().unwrap();
    results[1]["status"] = serde_json::json!({"state": "failed", "error": "boom"});
    results[1]["summary"] = serde_json::Value::Null;
    results[2]["status"] = serde_json::json!({"state": "skipped", "reason": "not here"});
    results[2]["summary"] = serde_json::Value::Null;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("failed.json");
    std::fs::write(&file, serde_json::to_vec(&run).unwrap()).unwrap();
    (store_with(&file), dir)
}

/// What `args` prints to a terminal of `cols` columns, with `env` set.
fn on_a_terminal(args: &[&str], db: Option<&Path>, cols: u16, env: &[(&str, &str)]) -> String {
    terminal_output(args, db, cols, env, false)
}

/// What `args` prints to a terminal of `cols` columns, with `env` set: standard output,
/// and standard error too when `with_stderr` (where a progress bar is drawn).
fn terminal_output(
    args: &[&str],
    db: Option<&Path>,
    cols: u16,
    env: &[(&str, &str)],
    with_stderr: bool,
) -> String {
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize {
        ws_row: 50,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two descriptors, which we then own; the winsize outlives it.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty");
    // SAFETY: both descriptors are fresh and owned by nothing else.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut cmd = raw(args, db);
    cmd.env("TERM", "xterm").envs(env.iter().copied());
    let stderr = match with_stderr {
        true => Stdio::from(slave.try_clone().unwrap()),
        false => Stdio::null(),
    };
    let mut child = cmd
        .stdout(slave)
        .stderr(stderr)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    // The child holds the only other copy of the terminal's end: reading stops (EIO) when
    // it exits.
    drop(cmd);
    let mut text = Vec::new();
    let mut master = std::fs::File::from(master);
    let _ = master.read_to_end(&mut text);
    assert!(child.wait().unwrap().success());
    String::from_utf8_lossy(&text).into_owned()
}

#[test]
fn colour_marks_failures_on_a_terminal_only_and_never_with_no_color() {
    let (store, _json) = store_with_failures();
    let db = store.path().join("runs.db");
    let coloured = on_a_terminal(&["show", "1"], Some(&db), 120, &[]);
    assert!(coloured.contains("boom"), "{coloured}");
    assert!(coloured.contains("\x1b["), "no colour on a terminal");
    let plain = on_a_terminal(&["show", "1"], Some(&db), 120, &[("NO_COLOR", "1")]);
    assert!(plain.contains("boom"));
    assert!(!plain.contains("\x1b["), "colour despite NO_COLOR");
    let piped = timeshare()
        .args(["show", "1", "--db"])
        .arg(&db)
        .assert()
        .code(0);
    let piped = String::from_utf8(piped.get_output().stdout.clone()).unwrap();
    assert!(piped.contains("FAILED: boom"));
    assert!(!piped.contains('\x1b'), "colour into a pipe");
}

/// The counts the main job's bar showed ("12/24 rows × processes, ~3s left"), in order,
/// and the total it counted to.
fn bar_counts(text: &str) -> (Vec<usize>, Option<usize>) {
    let mut counts = Vec::new();
    let mut total = None;
    for part in text.split(['\r', '\n']) {
        let Some(at) = part.find(" rows × processes, ~") else {
            continue;
        };
        assert!(part[at..].contains(" left"), "no time left: {part}");
        let Some(count) = part[..at].rsplit(' ').next() else {
            continue;
        };
        if let Some((done, of)) = count.split_once('/') {
            counts.push(done.parse().unwrap());
            total = Some(of.parse().unwrap());
        }
    }
    (counts, total)
}

/// The main job on a terminal draws a bar over rows × processes that moves as each
/// process finishes each row, with the time left; piped, neither stream carries it.
#[test]
fn the_main_job_s_bar_counts_rows_times_processes_on_a_terminal_only() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    let args = [
        "run",
        "syscall.getpid*",
        "syscall.getuid",
        "--quick",
        "--dir",
        dir.path().to_str().unwrap(),
    ];
    let text = terminal_output(&args, Some(&db), 100, &[("NO_COLOR", "1")], true);
    let (counts, total) = bar_counts(&text);
    let rows: usize = text
        .lines()
        .find_map(|l| l.split(" ok, ").next()?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no summary line: {text}"));
    // Three processes (the quick run's default), each reporting each row it finishes.
    assert_eq!(total, Some(3 * rows), "{text}");
    assert!(
        counts.windows(2).all(|w| w[0] <= w[1]),
        "the count went back: {counts:?}"
    );
    let seen: std::collections::BTreeSet<usize> = counts.iter().copied().collect();
    assert!(
        seen.len() >= 2 && counts.iter().all(|&c| c <= 3 * rows),
        "the bar did not move: {counts:?}\n{text}"
    );
    // Piped, nothing of a bar on either stream.
    let piped = raw(&args, Some(&db)).output().unwrap();
    assert!(piped.status.success());
    for stream in [&piped.stdout, &piped.stderr] {
        let s = String::from_utf8_lossy(stream);
        assert!(!s.contains("rows × processes") && !s.contains('\r'), "{s}");
    }
}

#[test]
fn a_terminal_s_own_width_comes_before_columns() {
    let text = on_a_terminal(
        &["list"],
        None,
        90,
        &[("COLUMNS", "200"), ("NO_COLOR", "1")],
    );
    // The terminal turns "\n" into "\r\n".
    let text = text.replace('\r', "");
    assert!(text.contains("syscall.getpid"), "{text}");
    assert!(too_wide(&text, 90).is_empty(), "{text}");
}

/// Every reading subcommand, on the stored fixture run (imported twice: run 1 and run 2)
/// and on reference machines, piped: no line is wider than 100 columns, whether it is a
/// table, a note under one or a sentence.
#[test]
fn no_command_prints_a_line_wider_than_100_columns_when_piped() {
    let store = store_with(Path::new(FIXTURE));
    let db = store.path().join("runs.db");
    // A second run, a day later: `compare 1 last` compares two runs.
    let mut later = crate::common::json(&std::fs::read(FIXTURE).unwrap());
    later["started_at"] = "2026-11-24T08:42:01Z".into();
    later["finished_at"] = "2026-11-24T08:44:01Z".into();
    let later_file = store.path().join("later.json");
    std::fs::write(&later_file, later.to_string()).unwrap();
    timeshare()
        .arg("import")
        .arg(&later_file)
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    let table_keys = {
        let out = timeshare()
            .arg("table")
            .arg("--db")
            .arg(&db)
            .assert()
            .success();
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        text.lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|w| {
                w.len() > 4 && w.as_bytes()[3] == b'-' && w[..3].bytes().all(|b| b.is_ascii_digit())
            })
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert!(table_keys.len() > 20, "{table_keys:?}");
    let mut commands: Vec<Vec<String>> = [
        "list",
        "--help",
        "run --help",
        "history",
        "show last",
        "show last --wide",
        "compare last vax750-4.3bsd",
        "compare last pdp11-70-ral vax750-4.3bsd",
        "compare 1 last",
        "reference",
        "reference vax750-4.3bsd",
        "reference pdp11-70-ral",
        "table",
        "sysinfo",
        "show lats",
        "compare last vax750",
        "reference no-such-machine",
        "monitor --count 2 --interval 0.05",
    ]
    .iter()
    .map(|c| c.split(' ').map(str::to_string).collect())
    .collect();
    for key in &table_keys {
        commands.push(vec!["table".into(), key.clone()]);
        commands.push(vec!["table".into(), key.clone(), "--wide".into()]);
    }
    let mut wide = Vec::new();
    for args in &commands {
        let out = timeshare()
            .env_remove("COLUMNS")
            .env("TIMESHARE_DB", &db)
            .args(args)
            .output()
            .unwrap();
        for stream in [&out.stdout, &out.stderr] {
            let text = String::from_utf8_lossy(stream);
            for line in too_wide(&text, 100) {
                wide.push(format!(
                    "{}: {} columns: {line}",
                    args.join(" "),
                    line.chars().count()
                ));
            }
        }
    }
    assert!(
        wide.is_empty(),
        "{} lines too wide:\n{}",
        wide.len(),
        wide.join("\n")
    );
}

#[test]
fn completions_and_manual_pages_come_from_the_command_definitions() {
    for shell in ["bash", "zsh", "fish"] {
        let out = timeshare().args(["completions", shell]).assert().success();
        let script = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert!(script.contains("exercise"), "{shell}: {script}");
        assert!(script.contains("placement"), "{shell}");
    }
    timeshare().args(["completions", "tcsh"]).assert().code(2);
    let page = timeshare().arg("man").assert().success();
    let page = String::from_utf8(page.get_output().stdout.clone()).unwrap();
    assert!(
        page.starts_with(".ie") || page.contains(".TH timeshare"),
        "{page}"
    );
    assert!(page.contains("exercise"));
    assert!(page.contains("130"), "the exit statuses are in the page");
    let run = timeshare().args(["man", "run"]).assert().success();
    let run = String::from_utf8(run.get_output().stdout.clone()).unwrap();
    assert!(run.contains("timeshare\\-run"), "{run}");
    assert!(run.contains("placement"));
}

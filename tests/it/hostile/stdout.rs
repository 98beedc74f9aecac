//! A standard output no one reads: started closed (`>&-`), or a pipe whose reader goes
//! away (`| head`). As docs/hardening.md says: a closed output is said once on standard
//! error and the command does its work with its own exit status (a run still stores);
//! a reader that leaves is its choice, quietly; `monitor`, which only prints, stops.

use std::os::unix::process::CommandExt;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{command, store_with, FIXTURE};

const SAID: &str = "standard output is closed";

/// `timeshare args…` with its standard output closed, as `>&-` starts it.
fn with_stdout_closed(args: &[&std::ffi::OsStr]) -> Child {
    let mut c = command();
    c.args(args).stdin(Stdio::null()).stderr(Stdio::piped());
    // SAFETY: close is async-signal-safe and touches no memory of the parent's.
    unsafe {
        c.pre_exec(|| {
            libc::close(1);
            Ok(())
        });
    }
    c.spawn().unwrap()
}

/// The status and standard error of `child`, which must end within `limit`.
fn ended_within(mut child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn said_once(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.matches(SAID).count(), 1, "{err}");
    err
}

#[test]
fn history_and_run_with_stdout_closed_say_so_once_and_run_still_stores() {
    let dir = store_with(FIXTURE.as_ref());
    let db = dir.path().join("runs.db");
    let out = ended_within(
        with_stdout_closed(&["history".as_ref(), "--db".as_ref(), db.as_os_str()]),
        Duration::from_secs(30),
    );
    let err = said_once(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");

    let out = ended_within(
        with_stdout_closed(&[
            "run".as_ref(),
            "syscall.getpid".as_ref(),
            "--quick".as_ref(),
            "--db".as_ref(),
            db.as_os_str(),
        ]),
        Duration::from_secs(120),
    );
    let err = said_once(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let history = crate::common::stdout_of(
        crate::common::timeshare()
            .args(["history", "--db"])
            .arg(&db),
        &"history",
    );
    assert!(history.contains("syscall.getpid"), "{history}");
}

#[test]
fn monitor_stops_when_its_output_is_closed_or_its_reader_leaves() {
    let out = ended_within(
        with_stdout_closed(&["monitor".as_ref(), "--interval".as_ref(), "0.05".as_ref()]),
        Duration::from_secs(20),
    );
    let err = said_once(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");

    // `monitor | head -2`: the reader takes two lines and leaves.
    let mut child = command()
        .args(["monitor", "--interval", "0.05"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    for _ in 0..2 {
        let mut line = String::new();
        std::io::BufRead::read_line(&mut stdout, &mut line).unwrap();
        assert!(!line.is_empty());
    }
    drop(stdout);
    let out = ended_within(child, Duration::from_secs(20));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "a reader that left is not an error: {err}");
}

//! A store that makes us wait: an SQLite file another process holds locked, a PostgreSQL
//! statement blocked on another session's lock, a PostgreSQL backend that stops
//! answering in the middle of a session. Each ends in one line and an exit status, in
//! about the time `$TIMESHARE_DB_TIMEOUT` gives, never in a hang.

use std::process::Output;
use std::time::{Duration, Instant};

use crate::common::{command, stderr_of, store_with, timeshare, FIXTURE};
use crate::pg::PgServer;

use super::fixture;

#[test]
fn a_locked_database_is_said_to_be_locked_after_the_timeout_given() {
    let dir = store_with(FIXTURE.as_ref());
    let db = dir.path().join("runs.db");
    // Another process's exclusive lock: no one else may read or write until it ends.
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder
        .execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT;")
        .unwrap();
    let hostile = fixture("hostile.json");
    let cases: [&[&str]; 3] = [
        &["history"],
        &["show", "1"],
        &["import", hostile.to_str().unwrap()],
    ];
    for args in cases {
        let start = Instant::now();
        let out = timeshare()
            .args(args)
            .arg("--db")
            .arg(&db)
            .env("TIMESHARE_DB_TIMEOUT", "0.5")
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("another process holds it locked") && !err.contains("not a timeshare"),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{args:?} waited {:?}",
            start.elapsed()
        );
    }
    drop(holder);
    timeshare()
        .args(["history", "--db"])
        .arg(&db)
        .assert()
        .success();
}

#[test]
fn a_timeout_that_is_not_seconds_is_refused() {
    let dir = store_with(FIXTURE.as_ref());
    for bad in ["soon", "0", "-1", "1e9"] {
        let out = timeshare()
            .args(["history", "--db"])
            .arg(dir.path().join("runs.db"))
            .env("TIMESHARE_DB_TIMEOUT", bad)
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("TIMESHARE_DB_TIMEOUT"), "{bad}: {err}");
    }
}

/// A session of the test's own holding the `runs` table locked, so that every query of
/// the store waits on it.
fn lock_runs(url: &str) -> postgres::Client {
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    c.batch_execute("BEGIN; LOCK TABLE runs IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    c
}

/// A backend stopped with SIGSTOP, set going again when the guard ends (also when the
/// test fails: a stopped backend would hold up the server's shutdown).
struct Stopped(i32);

impl Drop for Stopped {
    fn drop(&mut self) {
        // SAFETY: kill has no memory effects.
        unsafe { libc::kill(self.0, libc::SIGCONT) };
    }
}

/// The process id of the first backend waiting on a lock, polled for up to `within`
/// from a session outside any transaction (inside one, the activity view is read once).
fn backend_waiting_on_a_lock(url: &str, within: Duration) -> Option<i32> {
    let mut watcher = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let start = Instant::now();
    while start.elapsed() < within {
        let row = watcher
            .query_opt(
                "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' LIMIT 1",
                &[],
            )
            .unwrap();
        if let Some(row) = row {
            return Some(row.get(0));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[test]
fn a_postgresql_server_that_stops_answering_is_an_error_not_a_hang() {
    let server = PgServer::start();
    let url = server.fresh("waiting");
    timeshare()
        .arg("import")
        .arg(fixture("hostile.json"))
        .env("TIMESHARE_DB", &url)
        .assert()
        .success();

    // A statement blocked on another session's lock: the server cancels it.
    let _holder = lock_runs(&url);
    let start = Instant::now();
    let out = timeshare()
        .arg("history")
        .env("TIMESHARE_DB", &url)
        .env("TIMESHARE_DB_TIMEOUT", "1")
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("statement timeout"), "{err}");
    assert!(!err.contains(crate::pg::PASSWORD), "{err}");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );

    // The backend answers the start-up, then stops (SIGSTOP) while its query waits: no
    // timer of the server's runs any more, and the client's own deadline ends it.
    let mut child = command()
        .arg("history")
        .env("TIMESHARE_DB", &url)
        .env("TIMESHARE_DB_TIMEOUT", "8")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let pid = backend_waiting_on_a_lock(&url, Duration::from_secs(6))
        .expect("timeshare's query waiting on the lock");
    // SAFETY: kill has no memory effects.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGSTOP) }, 0);
    let _stopped = Stopped(pid);
    let out = wait_at_most(&mut child, Duration::from_secs(60));
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("stopped answering"), "{err}");
    assert!(!err.contains(crate::pg::PASSWORD), "{err}");
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
}

/// The output of `child`, killed if it has not ended within `limit` (and the test failed).
fn wait_at_most(child: &mut std::process::Child, limit: Duration) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("still waiting after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut stderr = Vec::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    Output {
        status: child.wait().unwrap(),
        stdout: Vec::new(),
        stderr,
    }
}

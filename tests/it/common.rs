//! Shared helpers for the integration tests.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assert_cmd::Command;

/// Output width for tests that read what a row or a sentence says, not how it is laid
/// out: wide enough that nothing wraps, so each row is one line. The tests of layout
/// (`output.rs`, `snapshots.rs`) set their own width.
pub const UNWRAPPED: &str = "1000";

/// The built `timeshare` binary, in the environment of [`command`].
pub fn timeshare() -> Command {
    Command::from_std(command())
}

/// What `cmd` printed on its standard output; `what` names it when it fails instead.
pub fn stdout_of(cmd: &mut Command, what: &impl std::fmt::Debug) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{what:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The built `timeshare` binary as a plain process (for tests that signal or wait on it),
/// in the environment of [`isolate`].
pub fn command() -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("timeshare"));
    isolate(&mut c);
    c
}

/// A copy of the built binary that another user may run, in a directory of its own
/// (removed with the returned guard): the checkout, and the binary under it, may be in a
/// home only its owner may enter (`/root` is 0700 on Debian), and `prlimit` or `exec` as
/// another user then fails with EACCES before timeshare starts.
pub fn binary_others_can_run() -> (tempfile::TempDir, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let copy = dir.path().join("timeshare");
    std::fs::copy(assert_cmd::cargo::cargo_bin("timeshare"), &copy).unwrap();
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
    (dir, copy)
}

/// The environment every `timeshare` the tests start gets, also through a command that
/// runs it in turn (setpriv, taskset): a fixed output width ([`UNWRAPPED`]), a results
/// database under the target directory, and `HOME` and `XDG_DATA_HOME` in empty
/// directories of the tests' own ([`pristine_home`]): no test ever writes to the user's
/// own data (`cli::the_users_data_directory_is_never_written`).
pub fn isolate(c: &mut std::process::Command) -> &mut std::process::Command {
    c.env("COLUMNS", UNWRAPPED)
        .env(
            "TIMESHARE_DB",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/it-runs.db"),
        )
        .env("HOME", pristine_home().join("home"))
        .env("XDG_DATA_HOME", pristine_home().join("data"))
}

/// Empty `home` and `data` directories, made anew when the tests start, that every
/// `timeshare` the tests run gets as its `HOME` and `XDG_DATA_HOME`. They must stay empty.
pub fn pristine_home() -> &'static Path {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
    HOME.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("it-pristine-home");
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["home", "data"] {
            std::fs::create_dir_all(dir.join(sub)).expect("a pristine home for the tests");
        }
        dir
    })
}

/// A real `run --quick --json` of every id, kept as a fixture.
pub const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/run-quick.json");

/// A database `runs.db` in its own temporary directory holding the JSON file `run` as
/// run 1.
pub fn store_with(run: &std::path::Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    timeshare()
        .arg("import")
        .arg(run)
        .arg("--db")
        .arg(dir.path().join("runs.db"))
        .assert()
        .success();
    dir
}

/// Whether the tests run as root (some rows and checks are root's only).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Standard error of a finished command, as text (the hostile tests read refusals in it).
pub fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Parse a run's JSON output.
pub fn json(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes).expect("valid JSON")
}

/// The result object for `id` in a run's JSON.
pub fn result<'a>(run: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    run["results"]
        .as_array()
        .expect("results array")
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no result for {id}"))
}

/// Results stored so far in the database at `db` (0 before it exists): a test that must
/// interrupt a run mid-way waits for these rather than for a time, which a loaded machine
/// stretches.
pub fn stored_results(db: &std::path::Path) -> i64 {
    db.exists()
        .then(|| {
            let conn = rusqlite::Connection::open(db).ok()?;
            conn.query_row("SELECT count(*) FROM results", [], |r| r.get(0))
                .ok()
        })
        .flatten()
        .unwrap_or(0)
}

/// What every user of the machine sees of every process's arguments (`ps -eo args`),
/// read again and again on a thread of its own until [`ArgvWatch::finish`]: the lines
/// that held `secret`, and how many times the process list was read.
pub struct ArgvWatch {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<(Vec<String>, usize)>,
}

impl ArgvWatch {
    pub fn start(secret: &str) -> ArgvWatch {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (secret, flag) = (secret.to_string(), stop.clone());
        let thread = std::thread::spawn(move || {
            let (mut seen, mut rounds) = (Vec::new(), 0);
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
                    let Ok(argv) = std::fs::read(entry.path().join("cmdline")) else {
                        continue;
                    };
                    let line = String::from_utf8_lossy(&argv).replace('\0', " ");
                    if line.contains(&secret) {
                        seen.push(line);
                    }
                }
                rounds += 1;
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            (seen, rounds)
        });
        ArgvWatch { stop, thread }
    }

    /// The argument lists that held the secret, and how many times the list was read.
    pub fn finish(self) -> (Vec<String>, usize) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}

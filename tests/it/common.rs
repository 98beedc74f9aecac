//! Shared helpers for the integration tests.

use assert_cmd::Command;

/// Output width for tests that read what a row or a sentence says, not how it is laid
/// out: wide enough that nothing wraps, so each row is one line. The tests of layout
/// (`output.rs`, `snapshots.rs`) set their own width.
pub const UNWRAPPED: &str = "1000";

/// The built `timeshare` binary, with a fixed output width ([`UNWRAPPED`]), and a results
/// database under the target directory: no test ever writes to the user's own.
pub fn timeshare() -> Command {
    let mut c = Command::cargo_bin("timeshare").expect("binary built");
    c.env("COLUMNS", UNWRAPPED);
    c.env(
        "TIMESHARE_DB",
        concat!(env!("CARGO_TARGET_TMPDIR"), "/it-runs.db"),
    );
    c
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

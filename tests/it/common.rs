//! Shared helpers for the integration tests.

use assert_cmd::Command;

/// The built `timeshare` binary, with a clean environment for output width, and a results
/// database under the target directory: no test ever writes to the user's own.
pub fn timeshare() -> Command {
    let mut c = Command::cargo_bin("timeshare").expect("binary built");
    c.env_remove("COLUMNS");
    c.env(
        "TIMESHARE_DB",
        concat!(env!("CARGO_TARGET_TMPDIR"), "/it-runs.db"),
    );
    c
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

//! The mixed family end to end (seed 000 Tables 6–8): both rows reported with real and CPU
//! time, and each checks its own work.

use crate::common::{json, result, timeshare};

#[test]
fn mixed_quick_reports_both_rows_with_their_checks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    timeshare()
        .args(["run", "mixed", "--quick", "--json"])
        .arg(&path)
        .assert()
        .success();
    let run = json(&std::fs::read(&path).unwrap());
    let crypt = result(&run, "mixed.crypt");
    assert_eq!(crypt["status"]["state"], "ok", "{}", crypt["status"]);
    assert_eq!(crypt["details"]["matches_words"], 6);
    assert_eq!(crypt["details"]["matches_reversed"], 4);
    // The hashing is CPU work: CPU time is most of the real time.
    assert!(
        crypt["times"]["user_s"].as_f64().unwrap() > 0.1,
        "{}",
        crypt["times"]
    );
    let build = result(&run, "mixed.build");
    match build["status"]["state"].as_str().unwrap() {
        "ok" => {
            // Each of a quick run's three processes builds once, and checks it.
            assert!(build["details"]["builds_checked"].as_u64().unwrap() >= 1);
            // Only the first made an untimed build before it; the row says so.
            let notes = build["notes"].to_string();
            assert!(
                notes.contains("a later process of the run: no untimed first build"),
                "{notes}"
            );
            assert!(
                build["times"]["user_s"].as_f64().unwrap() > 0.1,
                "{}",
                build["times"]
            );
        }
        "skipped" => assert!(build["status"]["reason"]
            .as_str()
            .unwrap()
            .contains("on PATH")),
        other => panic!("mixed.build {other}: {}", build["status"]),
    }
}

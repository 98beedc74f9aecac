//! Imported files within bounds: every string capped (notes, errors, command lines, an
//! observation's label), every figure finite and of a size timeshare could have measured.
//! Each is refused with a one-line error naming the field, exit 2, nothing stored.

use std::path::Path;

use crate::common::timeshare;

fn read(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// `import` of `value` into `db`: its exit code and standard error.
fn import(dir: &Path, db: &Path, value: &serde_json::Value) -> (Option<i32>, String) {
    let file = dir.join("in.json");
    std::fs::write(&file, serde_json::to_vec(value).unwrap()).unwrap();
    let out = timeshare()
        .arg("import")
        .arg(&file)
        .arg("--db")
        .arg(db)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn long_strings_and_absurd_figures_are_refused_by_field() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    let run = read(&super::fixture("hostile.json"));
    let obs = read(&super::fixture("observation.json"));
    let megabyte = "word ".repeat(200_000);
    let mut cases: Vec<(serde_json::Value, &str)> = Vec::new();
    let mut with =
        |base: &serde_json::Value, pointer: &str, v: serde_json::Value, named: &'static str| {
            let mut changed = base.clone();
            *changed
                .pointer_mut(pointer)
                .unwrap_or_else(|| panic!("{pointer}")) = v;
            cases.push((changed, named));
        };
    with(
        &run,
        "/results/0/notes/0",
        megabyte.clone().into(),
        "results[0].notes[0]",
    );
    with(
        &run,
        "/results/1/status/error",
        megabyte.clone().into(),
        "results[1].status.error",
    );
    with(&run, "/warnings/0", megabyte.clone().into(), "warnings[0]");
    with(
        &run,
        "/results/0/summary/median",
        1e308.into(),
        "results[0].summary.median",
    );
    with(
        &run,
        "/results/0/summary/max",
        1e300.into(),
        "results[0].summary.max",
    );
    with(
        &run,
        "/results/0/samples/0/value",
        (-1e200).into(),
        "results[0].samples[0].value",
    );
    with(
        &run,
        "/results/0/duration_s",
        (-1.5).into(),
        "results[0].duration_s",
    );
    with(&obs, "/label", "l".repeat(300).into(), "label");
    with(&obs, "/span/argv/0", megabyte.into(), "span.argv[0]");
    with(
        &obs,
        "/rates/lines/0/values/0",
        1e308.into(),
        "rates.lines[0].values[0]",
    );
    let first = import(dir.path(), &db, &run);
    assert_eq!(first.0, Some(0), "{}", first.1);
    let before = std::fs::read(&db).unwrap();
    for (value, named) in &cases {
        let (code, err) = import(dir.path(), &db, value);
        assert_eq!(code, Some(2), "{named}: {err}");
        assert!(err.contains(named), "{named}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{named}: {err}");
        assert!(err.len() < 600, "{named}: {} bytes of error", err.len());
    }
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "a refused import changed the store"
    );
}

/// A note at the cap is shown whole by `show`, in about the time of a short one (the
/// timing itself is the self-test's business: here only that it is shown, once).
#[test]
fn a_note_at_the_cap_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    let mut run = read(&super::fixture("hostile.json"));
    let cap = timeshare::report::json::MAX_IMPORTED_STRING;
    let note = format!("{} end-of-note", "w ".repeat((cap - 12) / 2));
    assert!(note.len() <= cap);
    run["results"][0]["notes"] = serde_json::json!([note]);
    let (code, err) = import(dir.path(), &db, &run);
    assert_eq!(code, Some(0), "{err}");
    let out = timeshare()
        .args(["show", "1", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("end-of-note"));
}

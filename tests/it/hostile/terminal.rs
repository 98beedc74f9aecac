//! What reaches a terminal: every command that shows imported strings, run on a
//! pseudo-terminal (`script`), colour on, over runs whose label, host name and warnings
//! carry escape sequences (conceal, a plain red, a window title, clear-screen, a
//! right-to-left override). Only timeshare's own colours may come out raw.

use std::path::{Path, PathBuf};

use crate::common::{command, timeshare};

/// The colour sequences timeshare emits itself (`report::style::OWN_SGR`).
const OWN: [&str; 5] = [
    "\x1b[0m",
    "\x1b[1m",
    "\x1b[2m",
    "\x1b[38;5;9m",
    "\x1b[38;5;11m",
];

/// A copy of `hostile.json` whose label and host name carry colour sequences an attacker
/// would use (`ESC[8m` hides what follows, `ESC[31m` looks like ours).
fn coloured_copy(dir: &Path) -> std::path::PathBuf {
    let mut run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(super::fixture("hostile.json")).unwrap()).unwrap();
    run["options"]["label"] = "conceal\x1b[8mhidden\x1b[38;5;9m".into();
    run["environment"]["hostname"] = "host\x1b[31mred\x1b]0;title\x07\u{202e}".into();
    run["warnings"] = serde_json::json!(["\x1b[2J\x1b[Hwarning\x1b[5m"]);
    run["started_at"] = "2026-11-23T09:42:01Z".into();
    run["finished_at"] = "2026-11-23T09:42:53Z".into();
    let path = dir.join("coloured.json");
    std::fs::write(&path, serde_json::to_vec(&run).unwrap()).unwrap();
    path
}

/// The escape sequences and control characters in `text` that are not timeshare's own
/// colours (the terminal's own CR before each newline aside).
fn foreign(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '\x1b' {
            match OWN.iter().find(|o| rest.starts_with(**o)) {
                Some(o) => rest = &rest[o.len()..],
                None => {
                    found.push(rest.chars().take(6).collect());
                    rest = &rest[1..];
                }
            }
            continue;
        }
        let bidi = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if (c.is_control() && c != '\n' && !(c == '\r' && rest[1..].starts_with('\n'))) || bidi {
            found.push(format!("{c:?}"));
        }
        rest = &rest[c.len_utf8()..];
    }
    found
}

#[test]
fn no_imported_escape_reaches_a_terminal() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        panic!("`script` (util-linux) is needed to test what reaches a terminal");
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    for file in [super::fixture("hostile.json"), coloured_copy(dir.path())] {
        timeshare()
            .arg("import")
            .arg(&file)
            .arg("--db")
            .arg(&db)
            .assert()
            .success();
    }
    let mut checked = 0;
    for args in [
        "history",
        "show 2",
        "show 2 --wide",
        "compare 1 2",
        "table 000-1 --run 2",
        "export 2",
        "export 2 --format csv",
        "export 2 --format markdown",
        "fleet",
        "report 2 -o -",
    ] {
        let text = on_a_pty("", args, &db);
        let bad = foreign(&text);
        assert!(
            bad.is_empty(),
            "{args}: {bad:?} reached the terminal:\n{text}"
        );
        checked += 1;
    }
    assert_eq!(checked, 10);
}

/// What each stored string holds in [`every_stored_string_is_escaped`]: one of
/// timeshare's own colours (which the last guard would let through), a conceal, a window
/// title, a carriage return, a right-to-left override and a newline followed by a forged
/// line.
/// The place the string was found at is written into it, so that a failure names it.
fn poison(place: &str) -> String {
    format!("P\x1b[38;5;9mQ<{place}>\x1b[8m\x1b]0;T\x07\rR\u{202e}\nINJ-S FAKE 99 complete")
}

/// Every string leaf of `value`, grouped by its place with array indices left out
/// (`results[].notes[]`), as JSON pointers.
fn string_places(value: &serde_json::Value) -> std::collections::BTreeMap<String, Vec<String>> {
    fn walk(
        v: &serde_json::Value,
        pointer: String,
        shape: String,
        out: &mut std::collections::BTreeMap<String, Vec<String>>,
    ) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    walk(x, format!("{pointer}/{k}"), format!("{shape}.{k}"), out);
                }
            }
            serde_json::Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(x, format!("{pointer}/{i}"), format!("{shape}[]"), out);
                }
            }
            serde_json::Value::String(_) => out.entry(shape).or_default().push(pointer),
            _ => {}
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(value, String::new(), String::new(), &mut out);
    out
}

/// `value` with [`poison`] in every string that the reader (`accepts`) still takes: a place
/// whose strings are an enumeration, an id or a date is refused and left as it was. The
/// places poisoned are returned, so that the test can say it reached the free text.
fn poison_all(
    value: &mut serde_json::Value,
    accepts: impl Fn(&serde_json::Value) -> bool,
) -> Vec<String> {
    let mut poisoned = Vec::new();
    for (shape, pointers) in string_places(value) {
        let before: Vec<_> = pointers
            .iter()
            .map(|p| value.pointer(p).unwrap().clone())
            .collect();
        for p in &pointers {
            *value.pointer_mut(p).unwrap() = poison(&shape).into();
        }
        if accepts(value) {
            poisoned.push(shape);
        } else {
            for (p, b) in pointers.iter().zip(before) {
                *value.pointer_mut(p).unwrap() = b;
            }
        }
    }
    poisoned
}

/// A full quick run (every family's details) and an observation of a command, each with
/// every free-text string poisoned, and the optional names a run may carry added first.
fn poisoned_store(dir: &Path) -> PathBuf {
    use timeshare::model::observation::{check_file, SystemObservation};
    let read = |p: PathBuf| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
    };
    let mut run = read(Path::new(super::DIR).join("../run-quick.json"));
    run["options"]["label"] = "x".into();
    run["options"]["fleet"] = serde_json::json!({"campaign": "c", "host": "h", "group": "g"});
    run["environment"]["governor"] = "g".into();
    run["environment"]["cpu_quota"] = "q".into();
    run["environment"]["busy_processes"] = serde_json::json!(["b"]);
    run["warnings"] = serde_json::json!(["w"]);
    run["results"][0]["notes"] = serde_json::json!(["n"]);
    let places = poison_all(&mut run, |v| {
        timeshare::report::json::from_json(&serde_json::to_vec(v).unwrap()).is_ok()
    });
    for needed in [
        ".options.label",
        ".environment.hostname",
        ".environment.cpu.model",
        ".warnings[]",
        ".results[].notes[]",
        ".results[].details.caches[].name",
    ] {
        assert!(
            places.iter().any(|p| p == needed),
            "{needed} not poisoned: {places:?}"
        );
    }
    let mut obs = read(super::fixture("observation.json"));
    let places = poison_all(&mut obs, |v| {
        serde_json::from_value::<SystemObservation>(v.clone()).is_ok_and(|o| check_file(&o).is_ok())
    });
    for needed in [".label", ".span.argv[]", ".calls.by_command[].command"] {
        assert!(
            places.iter().any(|p| p == needed),
            "{needed} not poisoned: {places:?}"
        );
    }
    let db = dir.join("poisoned.db");
    let mut second_run = run.clone();
    second_run["started_at"] = "2026-11-23T09:42:01Z".into();
    second_run["finished_at"] = "2026-11-23T09:52:01Z".into();
    let mut second_obs = obs.clone();
    second_obs["started_at"] = "2026-11-23T09:42:01Z".into();
    second_obs["finished_at"] = "2026-11-23T09:42:05Z".into();
    for (name, v) in [
        ("run1.json", &run),
        ("run2.json", &second_run),
        ("obs1.json", &obs),
        ("obs2.json", &second_obs),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, serde_json::to_vec(v).unwrap()).unwrap();
        timeshare()
            .arg("import")
            .arg(&file)
            .arg("--db")
            .arg(&db)
            .assert()
            .success();
    }
    db
}

/// What a command line printed on a pseudo-terminal (standard output and error both),
/// colour on, wide enough that no table wraps.
fn on_a_terminal(args: &str, db: &Path) -> String {
    on_a_pty("stty cols 4000 2>/dev/null; ", args, db)
}

/// What `timeshare ARGS --db DB` printed on a pseudo-terminal, colour on, after the shell
/// commands `before` set the terminal up.
fn on_a_pty(before: &str, args: &str, db: &Path) -> String {
    let exe = command().get_program().to_owned();
    let line = format!(
        "{before}{} {args} --db {}",
        exe.to_string_lossy(),
        db.to_string_lossy()
    );
    let mut script = std::process::Command::new("script");
    crate::common::isolate(&mut script);
    let out = script
        .env("TERM", "xterm")
        .env_remove("NO_COLOR")
        .args(["-qec"])
        .arg(&line)
        .arg("/dev/null")
        .output()
        .unwrap_or_else(|e| panic!("script: {e}"));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The ids `table` lists.
fn table_ids(db: &Path) -> Vec<String> {
    let listing = on_a_terminal("table", db);
    let ids: Vec<String> = listing
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| {
            w.len() > 4 && w.as_bytes()[3] == b'-' && w[..3].bytes().all(|b| b.is_ascii_digit())
        })
        .map(str::to_string)
        .collect();
    assert!(
        ids.len() > 20 && ids.iter().any(|i| i == "001-rates"),
        "{listing}"
    );
    ids
}

/// Why `text` shows that a poisoned string reached the terminal raw, if it does: a
/// foreign sequence or control, timeshare's own colour straight after the poison's `P`,
/// or the forged line at the start of a line of its own.
fn raw_poison(text: &str, for_programs: bool) -> Option<String> {
    let bad = foreign(text);
    if !bad.is_empty() {
        return Some(format!("{bad:?}"));
    }
    if let Some(at) = text.find("P\x1b[38;5;9mQ") {
        let place: String = text[at..]
            .chars()
            .skip(12)
            .take_while(|c| *c != '>')
            .collect();
        return Some(format!("timeshare's own red from {place}"));
    }
    // A format for programs keeps a newline inside a quoted CSV cell or an HTML element
    // as the format has it; only its escape sequences are the terminal's concern.
    if for_programs {
        return None;
    }
    text.lines()
        .find(|l| {
            l.trim_start_matches(|c: char| c.is_whitespace() || "│|┆".contains(c))
                .starts_with("INJ-S")
        })
        .map(|l| format!("a forged line: {l:?}"))
}

#[test]
fn every_stored_string_is_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let db = poisoned_store(dir.path());
    let mut commands: Vec<String> = [
        "history",
        "show 1",
        "show 1 --wide",
        "show 1 --chart",
        "show o1",
        "compare 1 2",
        "compare o1 o2",
        "report 1 -o -",
        "export 1 --format csv",
        "export 1 --format markdown",
        "export o1",
        "fleet",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    commands.extend(
        table_ids(&db)
            .iter()
            .map(|id| format!("table {id} --run 1")),
    );
    let mut failures = Vec::new();
    for args in &commands {
        let text = on_a_terminal(args, &db);
        assert!(
            !text.contains("error: unexpected argument"),
            "{args}: {text}"
        );
        let for_programs = args.starts_with("export") || args.starts_with("report");
        if let Some(why) = raw_poison(&text, for_programs) {
            failures.push(format!("{args}: {why}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

//! What reaches a terminal: every command that shows imported strings, run on a
//! pseudo-terminal (`script`), colour on, over runs whose label, host name and warnings
//! carry escape sequences (conceal, a plain red, a window title, clear-screen, a
//! right-to-left override). Only timeshare's own colours may come out raw.

use std::path::Path;

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
    let exe = command().get_program().to_owned();
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
        let line = format!(
            "{} {args} --db {}",
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
        let text = String::from_utf8_lossy(&out.stdout);
        let bad = foreign(&text);
        assert!(
            bad.is_empty(),
            "{args}: {bad:?} reached the terminal:\n{text}"
        );
        checked += 1;
    }
    assert_eq!(checked, 10);
}

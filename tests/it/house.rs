//! The house rules, checked on the source itself: the layers import one way, and no
//! global state or leaked string comes back. See docs/architecture.md.
//!
//! ```text
//! cli → report, store, bench, exercise → harness → model
//!        report → reference → model
//! ```

use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The code of a file without its test module and comments: what the program is made of.
fn program_text(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let code = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => &text[..],
    };
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules of the crate that `text` refers to as `crate::NAME`.
fn crate_modules_used(text: &str) -> Vec<String> {
    let mut used: Vec<String> = text
        .match_indices("crate::")
        .map(|(i, m)| {
            text[i + m.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|m| !m.is_empty())
        .collect();
    used.sort();
    used.dedup();
    used
}

/// What each layer may import besides itself.
fn allowed(layer: &str) -> &'static [&'static str] {
    match layer {
        "model" => &[],
        "reference" => &["model"],
        "harness" => &["model"],
        "bench" | "exercise" => &["harness", "model", "assets"],
        "store" => &["harness", "model"],
        "report" => &["harness", "model", "reference"],
        _ => &[],
    }
}

#[test]
fn the_layers_import_one_way() {
    let mut wrong = Vec::new();
    for layer in [
        "model",
        "reference",
        "harness",
        "bench",
        "exercise",
        "store",
        "report",
    ] {
        for file in rust_files(&Path::new(SRC).join(layer)) {
            for used in crate_modules_used(&program_text(&file)) {
                if used != layer && !allowed(layer).contains(&used.as_str()) {
                    wrong.push(format!(
                        "{} uses crate::{used}",
                        file.strip_prefix(SRC).unwrap().display()
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

/// Process-wide state that is there for a reason that is not a run's configuration; a new
/// one must be added here with its reason, or, better, passed through the run's context.
const ALLOWED_STATICS: &[(&str, &str)] = &[
    ("harness/interrupt.rs", "the flag the signal handlers set"),
    (
        "harness/memlimit.rs",
        "a counter that makes cgroup names unique",
    ),
    ("bench/signal.rs", "what the signal handlers count"),
    (
        "bench/load/script.rs",
        "which shell offers pipefail: a fact about the machine, looked up once",
    ),
    (
        "bench/cpu/stmt.rs",
        "the global variable 003's `x = m` reads",
    ),
    (
        "cli/output.rs",
        "whether standard output's reader went away: a fact of the process's stdout",
    ),
    (
        "report/style.rs",
        "the width and colour of the terminal this process writes to, decided once",
    ),
];

#[test]
fn no_global_run_state_and_no_leaked_strings() {
    let mut found = Vec::new();
    for file in rust_files(Path::new(SRC)) {
        let name = file.strip_prefix(SRC).unwrap().display().to_string();
        let text = program_text(&file);
        if text.contains("Box::leak") {
            found.push(format!("{name}: Box::leak"));
        }
        let has_static = text.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("static ")
                || l.starts_with("pub static ")
                || l.starts_with("pub(crate) static ")
                || l.contains("thread_local!")
        });
        let allowed = ALLOWED_STATICS.iter().any(|(f, _)| name == *f);
        if has_static && !allowed && !name.starts_with("bin/") {
            found.push(format!("{name}: a static item"));
        }
    }
    assert!(
        found.is_empty(),
        "global state (pass it through the run's context instead):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checks_above_can_fail() {
    // The scanner sees what it must see.
    assert_eq!(
        crate_modules_used("use crate::bench::Registry; crate::model::x"),
        ["bench", "model"]
    );
    assert!(!allowed("harness").contains(&"bench"));
    assert!(allowed("report").contains(&"reference"));
}

//! The wall clock is read in one place, `model::wallclock::now`, which gives a date for a
//! clock before 1970 where chrono's `Utc::now()` panics: no other code may call it.

use std::path::{Path, PathBuf};

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
    out
}

/// Whether `line` names chrono's `Utc::now` or `Local::now`, called or passed as a
/// function (`unwrap_or_else(Utc::now)`).
fn names_chronos_now(line: &str) -> bool {
    ["Utc::now", "Local::now"].iter().any(|f| {
        line.match_indices(f).any(|(at, _)| {
            let after = line[at + f.len()..].chars().next();
            !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    })
}

/// The lines of `text` that read the wall clock through chrono directly.
fn direct_reads(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .filter(|l| names_chronos_now(l))
        .collect()
}

#[test]
fn only_model_wallclock_reads_the_wall_clock() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let wallclock = src.join("model/wallclock.rs");
    let found: Vec<String> = rust_files(&src)
        .into_iter()
        .filter(|p| *p != wallclock)
        .flat_map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            direct_reads(&text)
                .into_iter()
                .map(|l| format!("{}: {}", p.display(), l.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(found.is_empty(), "read the clock directly: {found:#?}");
    // The check can fail.
    assert_eq!(
        direct_reads(
            "let t = chrono::Utc::now();\n// Utc::now() in a comment\n\
             let end = end.unwrap_or_else(Utc::now);\nlet x = Local::now;\n\
             let n = Utc::now_or_never();\n"
        )
        .len(),
        3
    );
}

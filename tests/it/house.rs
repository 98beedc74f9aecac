//! The house rules, checked on the source itself: the layers import one way, and no
//! global state or leaked string comes back. See docs/architecture.md.
//!
//! ```text
//! cli → usecase → report, store, bench, exercise, selftest → harness → model
//!        selftest → bench → harness
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

/// The code of a file without its test modules and comments: what the program is made of.
fn program_text(path: &Path) -> String {
    program_code(&std::fs::read_to_string(path).unwrap())
}

/// `text` without its comment lines and its test modules: every `mod` item under
/// `#[cfg(test)]`, to its closing brace (rustfmt puts it alone on a line, at the `mod`
/// line's indentation) or to its `;`. Any other item under `#[cfg(test)]` (a helper
/// `impl`, a constant) stays: it is not a module, and code after it is the program's.
fn program_code(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut kept = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() == "#[cfg(test)]" {
            if let Some(end) = test_module_end(&lines, i) {
                i = end + 1;
                continue;
            }
        }
        if !lines[i].trim_start().starts_with("//") {
            kept.push(lines[i]);
        }
        i += 1;
    }
    kept.join("\n")
}

/// The last line of the test module whose `#[cfg(test)]` is line `at`, when the item it
/// marks (past further attributes) is a module.
fn test_module_end(lines: &[&str], at: usize) -> Option<usize> {
    let item = (at + 1..lines.len()).find(|&j| !lines[j].trim_start().starts_with("#["))?;
    let line = lines[item];
    let head = line.trim_start();
    let head = head
        .strip_prefix("pub(crate) ")
        .or_else(|| head.strip_prefix("pub "))
        .unwrap_or(head);
    if !head.starts_with("mod ") {
        return None;
    }
    if head.ends_with(';') {
        return Some(item);
    }
    let indent = &line[..line.len() - line.trim_start().len()];
    let close = format!("{indent}}}");
    (item + 1..lines.len()).find(|&j| lines[j] == close)
}

/// The top-level modules of the crate that `text` refers to as `crate::NAME`.
fn crate_modules_used(text: &str) -> Vec<String> {
    modules_after(text, "crate::")
}

/// The first path segment after each `prefix` in `text`: `bench` in `crate::bench::X`,
/// and each item's first segment in a group, `cli` and `model` in
/// `crate::{cli::Exit, model::{Run, Unit}}`.
fn modules_after(text: &str, prefix: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut used = Vec::new();
    for (i, m) in text.match_indices(prefix) {
        let rest = &text[i + m.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            used.extend(group_heads(group).iter().map(|item| ident(item)));
        } else {
            used.push(ident(rest));
        }
    }
    used.retain(|m| !m.is_empty() && m != "self" && m != "super");
    used.sort();
    used.dedup();
    used
}

/// The top-level items of a `{…}` group that starts `group` (its opening brace already
/// taken), each trimmed: `cli::Exit`, `model::{Run, Unit}`.
fn group_heads(group: &str) -> Vec<&str> {
    let mut heads = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                heads.push(group[start..i].trim());
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                heads.push(group[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    heads
}

/// The crate modules a file at `rel` (its path under src/) reaches by `crate::` paths
/// and by `super::` chains that climb to the crate's root: from `usecase/run.rs`,
/// `super::super::cli` is `crate::cli`. (A chain inside an inline module is taken from
/// the file's own module, one level higher than it is: it can only be caught more.)
fn modules_reached(rel: &Path, text: &str) -> Vec<String> {
    let mut depth = rel.components().count();
    if rel.file_name().is_some_and(|f| f == "mod.rs") {
        depth -= 1;
    }
    // The file's module is `depth` deep (usecase/run.rs: 2): a chain of `depth` steps of
    // `super::` lands at the crate's root, a shorter one inside its own layer.
    let mut used = crate_modules_used(text);
    if depth > 0 {
        let to_root = "super::".repeat(depth);
        used.extend(modules_after(text, &to_root));
    }
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
        "selftest" => &["bench", "harness", "model", "assets"],
        "store" => &["harness", "model"],
        "report" => &["harness", "model", "reference"],
        "usecase" => &[
            "report",
            "store",
            "bench",
            "exercise",
            "selftest",
            "harness",
            "model",
            "reference",
            "assets",
        ],
        _ => &[],
    }
}

/// The crate modules a file of `layer` made of `code` imports against the layers.
fn imports_against_the_layer(layer: &str, code: &str) -> Vec<String> {
    imports_of(layer, Path::new(layer).join("x.rs").as_path(), code)
}

/// The crate modules the file at `rel` (under src/, in `layer`) imports against the layers.
fn imports_of(layer: &str, rel: &Path, code: &str) -> Vec<String> {
    modules_reached(rel, code)
        .into_iter()
        .filter(|used| used != layer && !allowed(layer).contains(&used.as_str()))
        .collect()
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
        "selftest",
        "store",
        "report",
        "usecase",
    ] {
        for file in rust_files(&Path::new(SRC).join(layer)) {
            let rel = file.strip_prefix(SRC).unwrap();
            for used in imports_of(layer, rel, &program_text(&file)) {
                wrong.push(format!(
                    "{} uses crate::{used}",
                    file.strip_prefix(SRC).unwrap().display()
                ));
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
        "bench/load/script/format.rs",
        "which shell offers pipefail: a fact about the machine, looked up once",
    ),
    (
        "bench/cpu/stmt.rs",
        "the global variable 003's `x = m` reads",
    ),
    (
        "report/output.rs",
        "whether standard output's reader went away: a fact of the process's stdout",
    ),
    (
        "harness/process.rs",
        "whether descriptor 1 was closed at start: seen only before Rust's runtime fills it",
    ),
    (
        "report/style.rs",
        "the width and colour of the terminal this process writes to, decided once",
    ),
    (
        "harness/observe/mod.rs",
        "which of this process's threads are the observer's own: a fact of the process \
         the call counter's reader asks about every call it counts",
    ),
    (
        "bench/mod.rs",
        "the families' registrations, gathered when the program is linked: each family's \
         module adds a function describing it; nothing a run writes",
    ),
    (
        "model/catalogue.rs",
        "the extra tables' and the docs sections' registrations, gathered when the program \
         is linked: functions describing them, nothing a run writes",
    ),
    (
        "bench/machine_code_tests.rs",
        "tests only: the test binary's own disassembly, read once for every machine-code test",
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
    // Grouped imports and `super::` chains to the root are seen too.
    assert_eq!(
        crate_modules_used("use crate::{cli::Exit, model::{Run, Unit}};"),
        ["cli", "model"]
    );
    let rel = Path::new("report/seed_table/render.rs");
    assert_eq!(
        modules_reached(rel, "use super::super::super::cli::Exit; use super::cells;"),
        ["cli"]
    );
    assert_eq!(
        imports_of(
            "usecase",
            Path::new("usecase/mod.rs"),
            "use super::{cli, model::Run};"
        ),
        ["cli"]
    );
    assert!(!allowed("harness").contains(&"bench"));
    assert!(allowed("report").contains(&"reference"));
    assert!(!allowed("bench").contains(&"selftest"));
}

#[test]
fn a_use_case_importing_the_command_line_is_caught() {
    // The floor between the command line and the rest: a use case answers cli/ with an
    // outcome, it never reaches back up for its exit codes or its clap structs.
    let planted = "use crate::harness::Session;\nuse crate::cli::Exit;\nfn f() {}\n";
    assert_eq!(imports_against_the_layer("usecase", planted), ["cli"]);
    // And what lies below it is not caught.
    let below = "use crate::report::output;\nuse crate::store::Store;\nuse crate::bench::Registry;";
    assert!(imports_against_the_layer("usecase", below).is_empty());
    // Nothing under the floor may import the floor.
    assert_eq!(
        imports_against_the_layer("report", "use crate::usecase::run::Request;"),
        ["usecase"]
    );
}

#[test]
fn only_the_test_modules_are_cut_not_what_follows_a_test_helper() {
    // An import planted after a test-only helper, and after an inline test module, is
    // seen; the test modules' own imports (inline, or a file module) are not.
    let planted = "\
use crate::model::Run;
#[cfg(test)]
impl Run {
    fn fixture() {}
}
pub fn planted() { crate::cli::main(); }
#[cfg(test)]
#[path = \"elsewhere.rs\"]
mod test_helpers;
#[cfg(test)]
mod tests {
    use crate::bench::Registry;
    mod inner {
        fn f() {}
    }
}
pub fn after() { crate::store::x(); }
// crate::report in a comment
";
    let code = program_code(planted);
    assert_eq!(crate_modules_used(&code), ["cli", "model", "store"]);
    assert!(
        !code.contains("test_helpers") && !code.contains("inner"),
        "{code}"
    );
    // Cutting the file at its first `#[cfg(test)]`, as the check once did, missed both.
    let first = &planted[..planted.find("#[cfg(test)]").unwrap()];
    assert_eq!(crate_modules_used(first), ["model"]);
}

/// The string literals on a line of code, roughly: what lies between its quotes (an
/// escaped quote and a quote character are taken out first).
fn literals(line: &str) -> Vec<&str> {
    if line.contains("\\\"") || line.contains("'\"'") {
        return Vec::new();
    }
    line.split('"').skip(1).step_by(2).collect()
}

/// Whether `literal` is a benchmark id or an id prefix of one of `families` (the first
/// components of the registered ids): `vm.randpage`, `load.cpu.`, `ctx.ring.`.
fn is_benchmark_id(literal: &str, families: &[String]) -> bool {
    let Some((first, rest)) = literal.split_once('.') else {
        return false;
    };
    families.iter().any(|f| f == first)
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '*'))
}

/// The benchmark-id literals in the program code of `files` (file:line: literal).
fn id_literals(files: &[PathBuf], families: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for file in files {
        let code = program_text(file);
        for (n, line) in code.lines().enumerate() {
            for lit in literals(line) {
                if is_benchmark_id(lit, families) {
                    let name = file.strip_prefix(SRC).unwrap().display();
                    found.push(format!("{name}: \"{lit}\" (code line {})", n + 1));
                }
            }
        }
    }
    found
}

/// The first components of every registered id, measured or derived.
fn id_families() -> Vec<String> {
    let reg = timeshare::bench::Registry::with_defaults();
    let mut families: Vec<String> = reg
        .benches()
        .iter()
        .map(|b| b.id().to_string())
        .chain(reg.derived().iter().map(|d| d.id.to_string()))
        .filter_map(|id| Some(id.split_once('.')?.0.to_string()))
        .collect();
    families.sort();
    families.dedup();
    families
}

/// A family's rows are picked out of a run by its view (`report/views/`) and named by
/// the seed tables' definitions (`report/seed_table/`); no other printer and no part of
/// the command line names a benchmark: a new row or family changes its view, not five
/// printers, and options name their rows where the rows are (`bench::OPTIONS`).
#[test]
fn benchmark_ids_are_named_in_report_only_by_views_and_never_in_cli() {
    let families = id_families();
    let root = Path::new(SRC);
    let files: Vec<PathBuf> = ["report", "cli"]
        .iter()
        .flat_map(|d| rust_files(&root.join(d)))
        .filter(|f| {
            // A `*_tests.rs` file is a test module its parent declares under
            // `#[cfg(test)]`: its fixtures name rows, as every test may.
            let name = f.strip_prefix(SRC).unwrap();
            let test_module = name.to_string_lossy().ends_with("_tests.rs");
            // The seed tables' test module, a file of its own: its fixtures name rows.
            let seed_table_tests = name == Path::new("report/seed_table/tests.rs");
            !test_module && !seed_table_tests && !name.starts_with("report/views")
        })
        .collect();
    let found = id_literals(&files, &families);
    assert!(
        found.is_empty(),
        "benchmark ids outside a family's view or a seed table:\n{}",
        found.join("\n")
    );
    // The seed tables' layouts do name them, beside the seeds' figures in reference/: the
    // check sees what it must see. (The views, which now mostly pick rows by their
    // record, name fewer than 20.)
    let layouts = rust_files(&root.join("reference/layouts"));
    assert!(id_literals(&layouts, &families).len() > 20);
}

#[test]
fn the_id_literal_check_can_fail() {
    let families = vec!["vm".to_string(), "load".to_string()];
    let line = r#"let r = find(run, "vm.randpage").or(prefix(run, "load.cpu.")); "vm: 3 s""#;
    let found: Vec<&str> = literals(line)
        .into_iter()
        .filter(|l| is_benchmark_id(l, &families))
        .collect();
    assert_eq!(found, ["vm.randpage", "load.cpu."]);
    assert!(!is_benchmark_id("ctx.switch ÷ 2", &families));
    assert!(!is_benchmark_id("report.html", &families));
}

/// The lines of `code` that reach the system themselves: an `unsafe` block or function,
/// or any path into the `libc` crate (`libc::`, `use libc`, `extern crate libc`).
fn system_calls(code: &str) -> Vec<&str> {
    code.lines()
        .filter(|l| {
            let words: Vec<&str> = l
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .collect();
            words.contains(&"unsafe") || words.contains(&"libc")
        })
        .collect()
}

/// The command line parses, validates and maps outcomes to exit codes; what it needs of
/// the system (mounts, rlimits, signals, how a file is opened) is asked of the harness,
/// where the unsafe code is written once and reviewed there. Test modules count too: a
/// test of the command line has no business with the C library either.
#[test]
fn the_command_line_has_no_unsafe_and_no_libc() {
    let mut found = Vec::new();
    for file in rust_files(&Path::new(SRC).join("cli")) {
        let name = file.strip_prefix(SRC).unwrap().display().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for line in system_calls(&code) {
            found.push(format!("{name}: {}", line.trim()));
        }
    }
    assert!(
        found.is_empty(),
        "unsafe or libc in cli/ (ask the harness instead):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_unsafe_and_libc_check_can_fail() {
    let planted = "\
let fd = unsafe { libc::open(p, 0) };
use libc::c_int;
unsafe fn raw() {}
let unsafely = 1; // a word that only contains it
let s = \"libcs\";
";
    assert_eq!(
        system_calls(planted),
        [
            "let fd = unsafe { libc::open(p, 0) };",
            "use libc::c_int;",
            "unsafe fn raw() {}",
        ]
    );
    // The harness does use both: the scan sees what it must see.
    let process = std::fs::read_to_string(Path::new(SRC).join("harness/process.rs")).unwrap();
    assert!(system_calls(&process).len() >= 2);
}

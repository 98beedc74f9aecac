//! Documentation generated from the code must match it: `docs/benchmarks.md` is the
//! registry's list. `UPDATE_DOCS=1 cargo test --release --test it docs` rewrites it.

use timeshare::bench::Registry;
use timeshare::report::docs::benchmarks_markdown;

const BENCHMARKS_MD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/benchmarks.md");

#[test]
fn the_benchmark_list_in_the_docs_is_the_registry() {
    let reg = Registry::with_defaults();
    let benches: Vec<_> = reg.benches().iter().collect();
    let derived: Vec<_> = reg.derived().iter().collect();
    let generated = benchmarks_markdown(&benches, &derived);
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(BENCHMARKS_MD, &generated).unwrap();
    }
    let in_repo = std::fs::read_to_string(BENCHMARKS_MD).unwrap_or_default();
    assert!(
        in_repo == generated,
        "docs/benchmarks.md is stale: run `UPDATE_DOCS=1 cargo test --release --test it docs`"
    );
    // Every registered id is in it, each once.
    for b in &benches {
        let row = format!("| `{}` |", b.id());
        assert_eq!(generated.matches(&row).count(), 1, "{}", b.id());
    }
}

const COVERAGE_MD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/coverage.md");

#[test]
fn the_coverage_page_is_the_tables_and_the_registry() {
    let reg = Registry::with_defaults();
    let registered = |id: &str| reg.find(id).is_some() || reg.derived().iter().any(|d| d.id == id);
    let generated = timeshare::report::docs::coverage_markdown(&registered);
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(COVERAGE_MD, &generated).unwrap();
    }
    let in_repo = std::fs::read_to_string(COVERAGE_MD).unwrap_or_default();
    assert!(
        in_repo == generated,
        "docs/coverage.md is stale: run `UPDATE_DOCS=1 cargo test --release --test it docs`"
    );
    // Every key is on it, each once.
    for t in timeshare::report::seed_table::TABLES {
        let row = format!("| `{}` |", t.key);
        assert_eq!(generated.matches(&row).count(), 1, "{}", t.key);
    }
}

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

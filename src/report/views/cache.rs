//! `cpu.cache`'s view and its table: its sweep of dependent reads by array size, with the
//! plateaus, steps and caches found in it (the table below, the text chart, the HTML chart
//! and seed 000 Table 4's hit-rate line draw it).

use crate::model::details::cache::CacheSweep;
use crate::model::unit::human;
use crate::model::{BenchResult, Run};
use crate::report::table::{new_table, right};

/// The row.
const ID: &str = "cpu.cache";

/// The row's result, when the run has it.
pub fn result(run: &Run) -> Option<&BenchResult> {
    super::row(run, ID)
}

/// The row among `results` (a seed table's rows).
pub fn among<'a>(results: &[&'a BenchResult]) -> Option<&'a BenchResult> {
    results.iter().copied().find(|r| r.id == ID)
}

/// The sweep, when the row ran far enough to record one.
pub fn sweep(run: &Run) -> Option<CacheSweep> {
    result(run)?.details_as()
}

/// Its place among the tables printed after a run's main table (`report::extra`).
#[linkme::distributed_slice(crate::model::catalogue::TABLES)]
fn registered_table() -> crate::model::catalogue::Table {
    crate::model::catalogue::Table {
        order: 40,
        render: table,
    }
}

/// `cpu.cache` (seed 000 Table 4's idea): ns per dependent random read per array size, the
/// plateaus found in them and the cache level sysfs says each size should live in, and the
/// steps between plateaus named by the caches whose size they mark. Beside the view that
/// reads it, and registered above with the place it prints in.
pub fn table(run: &Run) -> String {
    let Some(d) = sweep(run) else {
        return String::new();
    };
    let mut t = new_table(&[
        "array",
        "ns/read (median)",
        "ns/read (min)",
        "plateau",
        "step",
    ]);
    right(&mut t, &[0, 1, 2]);
    for s in &d.sizes {
        let plateau = d
            .plateaus
            .iter()
            .find(|p| (p.first_bytes..=p.last_bytes).contains(&s.bytes))
            .map(|p| format!("{} ({:.1} ns)", p.level, p.ns))
            .unwrap_or_default();
        let step = d
            .steps
            .iter()
            .find(|st| st.to_bytes == s.bytes)
            .map(|st| {
                let what = if st.caches.is_empty() {
                    "no cache ends here (TLB reach?)".to_string()
                } else {
                    format!("past {}", st.caches.join(", "))
                };
                format!(
                    "↑ ×{:.1} from {}: {what}",
                    st.to_ns / st.from_ns,
                    human(st.from_bytes)
                )
            })
            .unwrap_or_default();
        t.add_row(vec![
            human(s.bytes),
            format!("{:.2}", s.median_ns),
            format!("{:.2}", s.min_ns),
            plateau,
            step,
        ]);
    }
    let caches: Vec<&str> = d.caches.iter().map(|c| c.name.as_str()).collect();
    format!(
        "Memory hierarchy (cpu.cache, seed 000 Table 4): random dependent reads of 64-byte \
         lines; caches per sysfs: {}\n{t}\n",
        caches.join(", ")
    )
}

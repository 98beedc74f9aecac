//! `cpu.cache`'s view: its sweep of dependent reads by array size, with the plateaus,
//! steps and caches found in it (the table, the text chart, the HTML chart and seed 000
//! Table 4's hit-rate line draw it).

use crate::model::details::cache::CacheSweep;
use crate::model::{BenchResult, Run};

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

//! The `mem` family's view: its bandwidth sweeps by buffer size (lmbench's bw_mem rd,
//! wr, cp and bzero), one thread and one per CPU, picked out by their record, in the run's order.

use crate::model::details::mem::MemSweep;
use crate::model::Run;

/// The sweeps of `run` that have at least one size, by id: every row that recorded a
/// bandwidth sweep, in the run's order (the family's: one thread, then one per CPU).
pub fn sweeps(run: &Run) -> Vec<(&str, MemSweep)> {
    run.results
        .iter()
        .filter_map(|r| {
            let d = r.details_as::<MemSweep>()?;
            (!d.sizes.is_empty()).then_some((r.id.as_str(), d))
        })
        .collect()
}

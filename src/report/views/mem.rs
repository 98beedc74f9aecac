//! The `mem` family's view: its bandwidth sweeps by buffer size (lmbench's bw_mem rd,
//! wr, cp and bzero), one thread and one per CPU, in the order they are shown.

use crate::model::details::mem::MemSweep;
use crate::model::Run;

/// The sweep rows, in the order they are shown.
const SWEEP_IDS: &[&str] = &[
    "mem.rd",
    "mem.wr",
    "mem.cp",
    "mem.bzero",
    "mem.rd.all_cpus",
    "mem.wr.all_cpus",
    "mem.cp.all_cpus",
    "mem.bzero.all_cpus",
];

/// The sweeps of `run` that have at least one size, by id.
pub fn sweeps(run: &Run) -> Vec<(&'static str, MemSweep)> {
    SWEEP_IDS
        .iter()
        .filter_map(|id| {
            let d = super::row(run, id)?.details_as::<MemSweep>()?;
            (!d.sizes.is_empty()).then_some((*id, d))
        })
        .collect()
}

//! The `vm` family's view: every paging job with its typed record, the Gaussian jobs by
//! their spread S (`vm.gausspage.S`), random paging (the limit of a spread without
//! bound), and the seed's 4.2BSD figures by the row that reproduces them.

use crate::model::details::vm::Paging;
use crate::model::{BenchResult, Run};
use crate::reference::Paging42;

/// Every row of `run` that recorded a paging job, in the run's order.
pub fn jobs(run: &Run) -> Vec<(&BenchResult, Paging)> {
    run.results
        .iter()
        .filter_map(|r| Some((r, r.details_as::<Paging>()?)))
        .collect()
}

/// The Gaussian jobs by their spread S, narrowest first.
pub fn by_spread(run: &Run) -> Vec<(u64, Paging)> {
    let mut rows: Vec<(u64, Paging)> = run
        .results
        .iter()
        .filter_map(|r| {
            Some((
                r.id.strip_prefix("vm.gausspage.")?.parse().ok()?,
                r.details_as::<Paging>()?,
            ))
        })
        .collect();
    rows.sort_by_key(|r| r.0);
    rows
}

/// The random paging job, the line a spread without bound tends to.
pub fn random(run: &Run) -> Option<Paging> {
    super::row(run, RANDOM)?.details_as()
}

/// The random job's row, as the charts name it.
pub const RANDOM: &str = "vm.randpage";

/// The seed's 4.2BSD figures for the row `id`, when it reproduces one of its programs
/// (seed 001 Tables 7 and 8, as reference/ holds them).
pub fn seed_42bsd(id: &str) -> Option<Paging42> {
    crate::reference::paging_42bsd(id)
}

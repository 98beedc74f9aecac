//! The `vm` family's view: every paging job with its typed record, the Gaussian jobs by
//! their spread S (`vm.gausspage.S`), random paging (the limit of a spread without
//! bound), and the seed's 4.2BSD figures by the row that reproduces them.

use crate::model::details::vm::Paging;
use crate::model::{BenchResult, Run};

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

/// One row of seed 001 Table 7 (4.2BSD column): id, real s, user s, system s, page
/// faults; and Table 8's PFST in µs where the seed gave one.
pub type SeedRow = (&'static str, f64, f64, f64, u64, Option<f64>);

/// Seed 001 Tables 7 and 8's 4.2BSD figures, by the row that reproduces each program.
const SEED_42BSD: &[SeedRow] = &[
    ("vm.seqpage", 1126.0, 12.8, 213.0, 17113, None),
    ("vm.seqpage.advise", 812.0, 5.3, 237.7, 8351, None),
    ("vm.randpage", 569.0, 7.6, 77.2, 9776, Some(789.0)),
    ("vm.randpage.advise", 562.0, 7.3, 77.5, 9852, Some(786.0)),
    ("vm.gausspage.1", 24.0, 23.8, 0.8, 8, None),
    ("vm.gausspage.10", 26.0, 23.0, 3.6, 2, None),
    ("vm.gausspage.30", 33.0, 24.8, 8.9, 2, None),
    ("vm.gausspage.40", 81.0, 25.0, 13.6, 260, None),
    ("vm.gausspage.50", 175.0, 26.2, 26.3, 1851, None),
    ("vm.gausspage.60", 234.0, 26.7, 36.0, 3177, None),
    ("vm.gausspage.80", 329.0, 27.9, 52.0, 5105, None),
    ("vm.gausspage.10000", 621.0, 85.6, 81.5, 9650, Some(844.0)),
];

/// The seed's 4.2BSD figures for the row `id`, when it reproduces one of its programs.
pub fn seed_42bsd(id: &str) -> Option<&'static SeedRow> {
    SEED_42BSD.iter().find(|s| s.0 == id)
}

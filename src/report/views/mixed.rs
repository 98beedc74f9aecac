//! The `mixed` family's view: the whole jobs that ran, and the seed's 11/70 (configuration
//! C7) figures by the row that stands for each of its jobs (seed 000 Tables 6 and 8).

use crate::model::{BenchResult, Run};

/// The family's rows that ran, in the run's order.
pub fn jobs(run: &Run) -> Vec<&BenchResult> {
    run.results
        .iter()
        .filter(|r| r.family == "mixed" && r.status.is_ok())
        .collect()
}

/// The seed's job beside a row: its name, its C7 real and CPU time as printed, in
/// seconds.
pub type SeedJob = (&'static str, f64, f64);

/// (id, the seed's job beside it).
const SEED_C7: &[(&str, SeedJob)] = &[
    // Table 6, C7: 5:19 real, 3:31.4 CPU (recompiling the system).
    ("mixed.build", ("Table 6 UNIX rebuild", 319.0, 211.4)),
    // Table 8, C7: 5:12 real, 5:10.0 CPU (password search, words and reversed words).
    ("mixed.crypt", ("Table 8 password search", 312.0, 310.0)),
];

/// The seed's job the row `id` stands for, when there is one.
pub fn seed_c7(id: &str) -> Option<SeedJob> {
    SEED_C7.iter().find(|s| s.0 == id).map(|s| s.1)
}

//! Seed 004's tables' layouts.

use super::*;
use crate::reference;

#[rustfmt::skip]
pub const TABLES: &[SeedTable] = &[
    SeedTable { key: "004-jobs", seed: "004", prefix: "§3", title: "each job type alone (real, user, sys)", quantities: HUS, ..T },
    SeedTable { key: "004-graphs", seed: "004", prefix: "Graphs", title: "real, user, sys per process against the number of processes",
        curve: Some("exercise.batch."), paper: reference::paper_lines,
        why: &["the paper's curves are drawn, not tabulated, so there is no historical column: \
                today's curve only, the exercise.batch.N rows of the newest stored run that has \
                them"], ..T },
];

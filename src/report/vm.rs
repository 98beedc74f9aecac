//! Seed 001 Tables 7 and 8 for the `vm` family: per paging program, real, user and system
//! time and faults of one job (medians over the jobs), and the page-fault service time
//! (system time / faults), with the seed's 4.2BSD VAX-11/780 figures beside them.

use super::table::{new_table, right};
use crate::model::details::vm::{MemoryLimit, Paging};
use crate::model::unit::format_seconds;
use crate::model::{BenchResult, Run};

/// One row of seed 001 Table 7 (4.2BSD column): id, real s, user s, system s, page
/// faults; and Table 8's PFST in µs where the seed gave one.
type SeedRow = (&'static str, f64, f64, f64, u64, Option<f64>);

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

pub fn tables(run: &Run) -> String {
    let rows: Vec<(&BenchResult, Paging)> = run
        .results
        .iter()
        .filter_map(|r| Some((r, r.details_as::<Paging>()?)))
        .collect();
    let Some(pages) = rows.first().map(|(_, d)| d.pages) else {
        return String::new();
    };
    let mut t = new_table(&[
        "paging job",
        "real",
        "user",
        "system",
        "minor",
        "major",
        "PFST",
        "4.2BSD real/sys/faults/PFST",
    ]);
    right(&mut t, &[1, 2, 3, 4, 5, 6]);
    let mut limits = Vec::new();
    for (r, d) in &rows {
        let pfst = d.fault_service_s.map(seconds).unwrap_or("—".into());
        t.add_row(vec![
            r.id.clone(),
            seconds(d.real_s),
            seconds(d.user_s),
            seconds(d.system_s),
            format!("{:.0}", d.minor_faults),
            format!("{:.0}", d.major_faults),
            pfst,
            seed_row(&r.id),
        ]);
        let limit = describe_limit(&d.memory_limit);
        if !limits.contains(&limit) {
            limits.push(limit);
        }
    }
    format!(
        "Paging (seed 001 Tables 7 and 8): one job each, medians; {pages} pages; \
         PFST = system time / faults (user/system are split by the kernel's tick \
         sampling, so short jobs may show 0)\n{t}\n{}\n",
        limits.join("\n")
    )
}

/// Seconds, with a plain 0 where the kernel's tick-sampled user/system split saw none.
fn seconds(s: f64) -> String {
    if s == 0.0 {
        "0".into()
    } else {
        format_seconds(s)
    }
}

fn seed_row(id: &str) -> String {
    SEED_42BSD
        .iter()
        .find(|s| s.0 == id)
        .map(|&(_, real, _, sys, faults, pfst)| {
            let pfst = pfst.map(|p| format!("{p:.0} µs")).unwrap_or("—".into());
            format!("{real:.0} s / {sys} s / {faults} / {pfst}")
        })
        .unwrap_or_default()
}

fn describe_limit(limit: &MemoryLimit) -> String {
    if limit.applied {
        format!(
            "memory limit: {}; {}",
            limit.how.as_deref().unwrap_or("?"),
            limit.memory.as_deref().unwrap_or("")
        )
    } else {
        format!(
            "memory limit: none — {}",
            limit.why.as_deref().unwrap_or("not recorded")
        )
    }
}

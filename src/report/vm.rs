//! Seed 001 Tables 7 and 8 for the `vm` family: per paging program, real, user and system
//! time and faults of one job (medians over the jobs), and the page-fault service time
//! (system time / faults), with the seed's 4.2BSD VAX-11/780 figures beside them.

use super::table::{new_table, right};
use super::views::vm;
use crate::model::details::vm::MemoryLimit;
use crate::model::unit::format_seconds;
use crate::model::Run;

/// Its place among the tables printed after a run's main table (`report::extra`).
#[linkme::distributed_slice(crate::model::catalogue::TABLES)]
fn registered_table() -> crate::model::catalogue::Table {
    crate::model::catalogue::Table {
        order: 30,
        render: tables,
    }
}

pub fn tables(run: &Run) -> String {
    let rows = vm::jobs(run);
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
    vm::seed_42bsd(id)
        .map(|(_, real, _, sys, faults, pfst)| {
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

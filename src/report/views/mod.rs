//! One view per family: the family's typed series (a curve, its rows by size or by N),
//! taken once out of a run's results and their typed details. The text tables, the text
//! charts, the HTML charts and the seed tables draw what a view gives them and never pick
//! rows by id themselves, so a family's ids are written in `report/` only here (and in
//! the seed tables' definitions, `seed_table/`).

use crate::model::details::Record;
use crate::model::{BenchResult, Run};

pub mod beside;
pub mod cache;
pub mod cpu;
pub mod fs;
pub mod load;
pub mod mem;
pub mod mixed;
pub mod net;
pub mod thread;
pub mod vm;

/// One row of a family whose rows are numbered (`load.cpu.N`): N, the row, and its
/// typed record when it has one.
pub struct PerN<'a, D> {
    pub n: usize,
    pub result: &'a BenchResult,
    pub details: Option<D>,
}

/// The rows `PREFIX.N` of `run` whose N is a number, by N, with their records of type
/// `D`.
fn numbered<'a, D: Record>(run: &'a Run, prefix: &str) -> Vec<PerN<'a, D>> {
    let mut rows: Vec<PerN<'a, D>> = run
        .results
        .iter()
        .filter_map(|r| {
            Some(PerN {
                n: r.id.strip_prefix(prefix)?.parse().ok()?,
                result: r,
                details: r.details_as::<D>(),
            })
        })
        .collect();
    rows.sort_by_key(|p| p.n);
    rows
}

/// The result of the row `id`, when the run has it.
fn row<'a>(run: &'a Run, id: &str) -> Option<&'a BenchResult> {
    run.results.iter().find(|r| r.id == id)
}

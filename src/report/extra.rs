//! Tables beyond the main one, shaped like the seeds' own (Table 9's Inc column,
//! Attachment C's per-command accounting, Table 7's faults…). Each family that has one
//! adds a renderer here; each renderer reads the results' `details` and returns the empty
//! string when its family is not in the run.

use crate::model::Run;

/// Every family's extra tables for `run`, in registry order, separated by blank lines.
pub fn extra_tables(run: &Run) -> String {
    let renderers: &[fn(&Run) -> String] = &[
        super::micro::table,
        super::vm::tables,
        super::cache::table,
        super::cpu::render,
        super::io::io_table,
        super::load::tables,
        super::mixed::mixed_table,
    ];
    renderers
        .iter()
        .map(|r| r(run))
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

//! Tables beyond the main one, shaped like the seeds' own (Table 9's Inc column,
//! Attachment C's per-command accounting, Table 7's faults…). Each family that has one
//! registers its renderer beside it (`crate::model::catalogue::TABLES`, with the order it
//! prints in); each renderer reads the results' `details` and returns the empty string
//! when its family is not in the run.

use crate::model::catalogue::tables;
use crate::model::Overhead;
use crate::model::Run;

/// Everything `run` and `show` print for a run before its summary line: the main table,
/// then the families' own, ending with a newline.
pub fn full_report(run: &Run, overhead: &Overhead, wide: bool) -> String {
    let mut out = super::table::run_table(run, overhead, wide);
    let extra = extra_tables(run);
    if !extra.is_empty() {
        out.push('\n');
        out.push_str(&extra);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// Every family's extra tables for `run`, in their registered order, separated by blank
/// lines.
pub fn extra_tables(run: &Run) -> String {
    tables()
        .iter()
        .map(|t| (t.render)(run))
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

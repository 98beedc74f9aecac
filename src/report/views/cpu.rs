//! The `cpu` family's view: seed 003's C statements by type and statement
//! (`cpu.stmt.TYPE.STATEMENT`), and the chess game's record (seed 000 Table 1).

use crate::model::details::cpu::Chess;
use crate::model::{BenchResult, Run};

/// Whether the run has any statement row.
pub fn has_statements(run: &Run) -> bool {
    run.results.iter().any(|r| r.id.starts_with("cpu.stmt."))
}

/// The statement `statement` on integers of type `ty`, when it ran.
pub fn statement<'a>(run: &'a Run, ty: &str, statement: &str) -> Option<&'a BenchResult> {
    ran(run, &format!("cpu.stmt.{ty}.{statement}"))
}

/// The chess game's record, when its row ran: the one row that records a game.
pub fn chess(run: &Run) -> Option<Chess> {
    run.results
        .iter()
        .filter(|r| r.status.is_ok())
        .find_map(|r| r.details_as())
}

fn ran<'a>(run: &'a Run, id: &str) -> Option<&'a BenchResult> {
    super::row(run, id).filter(|r| r.status.is_ok())
}

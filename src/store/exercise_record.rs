//! An exerciser's record file (`exercise --json`) read as the run `exercise` would have
//! stored: what `report FILE` shows for it. A conversion of a record already made, no
//! measurement; the live exerciser's run is made by the harness (`Session::run_own`).

use crate::model::exercise::Report;
use crate::model::{Environment, Run, RunOptions, RunStatus, Tool, SCHEMA_VERSION};

/// `report` as a complete run of its results (see [`Report::results`]), begun and ended
/// when the exercise began (the record keeps no end), its selection saying whether it
/// was a sweep (what [`Report::from_run`] reads back), and no environment: the record
/// carries none.
pub fn as_run(report: &Report) -> Run {
    let mut selection = vec!["exercise".to_string()];
    if report.sweep {
        selection.push("--sweep".into());
    }
    Run {
        schema_version: SCHEMA_VERSION,
        tool: Tool::this(),
        options: RunOptions {
            selection,
            ..RunOptions::default()
        },
        environment: Environment::default(),
        started_at: report.started_at,
        finished_at: Some(report.started_at),
        status: RunStatus::Complete,
        warnings: Vec::new(),
        results: report.results(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::exercise::sweep_fixture;

    /// A sweep's record comes back through the run it is shown as: the same batches, and
    /// still a sweep.
    #[test]
    fn a_record_read_as_a_run_gives_its_report_back() {
        let stored = sweep_fixture(&[(2, &[1.0, 3.0]), (4, &[2.0])], None);
        let mut report = Report::from_run(&stored).unwrap();
        report.sweep = true;
        let run = as_run(&report);
        assert_eq!(run.started_at, report.started_at);
        let back = Report::from_run(&run).unwrap();
        assert!(back.sweep);
        assert_eq!(back.batches.len(), report.batches.len());
        report.sweep = false;
        assert!(!Report::from_run(&as_run(&report)).unwrap().sweep);
    }
}

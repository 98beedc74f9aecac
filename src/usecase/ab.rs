//! `ab`: two sides (two builds, two settings) measured alternately in one sitting through
//! [`Session::run_two_sided`], with the checks a run has (the clock's rate, the quiet
//! reference's drift). The outcome is the two sides as columns for the comparison the
//! command line prints, and the warnings the checks at the end gave.

use anyhow::Result;

use crate::bench::Registry;
use crate::harness::contract::Benchmark;
use crate::harness::invocations::{self, Side};
use crate::harness::{quiet, Session, Strategy};
use crate::model::RunOptions;
use crate::report::compare::Column;

/// Two sides to measure, as the command line checked them.
pub struct Request<'a> {
    /// The options both sides share (each side may change its own copy).
    pub options: RunOptions,
    pub dir: std::path::PathBuf,
    pub sides: [Side; 2],
    pub registry: &'a Registry,
    pub chosen: Vec<&'a Benchmark>,
    /// Fresh processes per side.
    pub rounds: usize,
}

/// The sitting's outcome: A and B as columns (each side merged across its processes),
/// the late warnings, and whether it was interrupted.
pub struct Outcome {
    pub columns: Vec<Column>,
    pub late_warnings: Vec<String>,
    pub interrupted: bool,
}

/// Measure both sides, alternately, `rounds` rounds; a line per round on standard error.
pub fn run(request: Request) -> Result<Outcome> {
    let Request {
        options,
        dir,
        sides,
        registry,
        chosen,
        rounds,
    } = request;
    let session = Session::new(options, &dir, Strategy::OneProcess)?;
    let ended = session.run_two_sided(
        &sides,
        &chosen,
        rounds,
        registry.find(quiet::REFERENCE),
        &mut |step| {
            if let invocations::Step::Round(r) = step {
                eprintln!("round {}/{}", r + 1, rounds)
            }
        },
    )?;
    let columns = sides
        .iter()
        .zip(ended.runs)
        .zip(ended.processes)
        .zip(["A", "B"])
        .map(|(((s, run), processes), name)| Column::Run {
            name: name.to_string(),
            about: format!("{} ({processes} processes)", s.name),
            run: Box::new(run),
        })
        .collect();
    Ok(Outcome {
        columns,
        late_warnings: ended.late_warnings,
        interrupted: ended.interrupted,
    })
}

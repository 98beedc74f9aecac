//! The use cases: the floor between the command line and the rest. Each file is one thing
//! a user asks timeshare to do (a run, a sweep of configurations, the exerciser, an
//! observation, two sides compared, a crosscheck against the cited tools), taking a typed
//! request and returning an [`Ended`] (or an outcome of its own) that `cli/` maps to an
//! exit code. What a use case needs of the system it asks of the harness; what it prints
//! goes through `report/`. It knows nothing of clap: `cli/` parses and validates, then
//! hands over a request.

pub mod ab;
pub mod crosscheck;
pub mod exercise;
pub mod observe;
pub mod run;
pub mod sweep;

/// How a use case ended, for `cli/` to map to an exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Everything asked for ran, or was skipped with a reason.
    Success,
    /// A benchmark, a job or a check failed, or the machine refused what was asked.
    Failed,
    /// The input was refused before anything ran (a child run said so).
    Refused,
    /// The exerciser checked nothing: every job type was skipped.
    NothingChecked,
    /// Interrupted: what was measured is kept, marked partial.
    Interrupted,
}

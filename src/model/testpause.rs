//! A hook for the kill -9 tests, and nothing else: with `TIMESHARE_TEST_PAUSE_AT` set to
//! a phase's name, the process stops itself (SIGSTOP) when it reaches that phase, so a
//! test can kill it there for certain rather than at a moment that may fall elsewhere.
//! Without the variable every call is one read of the environment and does nothing.
//!
//! Phases: `scratch` (a row's scratch directory made, before its set-up), `row` (a row
//! set up, before its samples), `store` (a row about to be written into the store, or a
//! whole run in the store's transaction before it commits), `server` (crosscheck with a
//! tool's server started and up, before its first client); `observe`'s `observing` (every
//! part started, before the span), `ending` (the span over, before the parts are stopped
//! and read) and `store` (the whole observation about to be written); `profile` (`perf
//! record` started and recording) and `script` (`perf script` reading a `--profile`d
//! run's recording).

/// The variable the tests set.
pub const VAR: &str = "TIMESHARE_TEST_PAUSE_AT";

/// Stop this process here if the tests asked for `phase`.
pub fn at(phase: &str) {
    if std::env::var_os(VAR).is_some_and(|v| v == phase) {
        // SAFETY: raise(2) with a standard signal has no preconditions.
        unsafe { libc::raise(libc::SIGSTOP) };
    }
}

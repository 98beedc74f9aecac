//! The exit status of every subcommand, typed in one place (fd's `exit_codes.rs`): each
//! subcommand returns an [`Exit`], an error becomes [`Exit::Usage`] or [`Exit::Failed`]
//! once in [`super::main`], and `--help` lists them from [`Exit::ALL`].

use std::process::ExitCode;

use crate::usecase::Ended;

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Everything asked for ran, or was skipped with a reason. A reader that closed the
    /// output early (`| head`) is no failure either.
    Success,
    /// A benchmark, an exerciser instance or a check failed, or the machine refused what
    /// was asked (a file it could not write).
    Failed,
    /// Bad input: an unknown id, a bad option, a path that cannot be used. Refused before
    /// anything ran.
    Usage,
    /// `exercise` checked nothing: every job type it was asked for was skipped (a check
    /// that checked nothing must not look like a pass).
    NothingChecked,
    /// Interrupted (Ctrl-C or SIGTERM): what was measured is kept, marked partial.
    Interrupted,
}

impl Exit {
    /// Every status, in the order `--help` lists them.
    pub const ALL: [Exit; 5] = [
        Exit::Success,
        Exit::Failed,
        Exit::Usage,
        Exit::NothingChecked,
        Exit::Interrupted,
    ];

    pub const fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failed => 1,
            Exit::Usage => 2,
            Exit::NothingChecked => 3,
            Exit::Interrupted => 130,
        }
    }

    /// One line for `--help`.
    pub const fn meaning(self) -> &'static str {
        match self {
            Exit::Success => "everything ran, or was skipped with a reason",
            Exit::Failed => "a benchmark or a check failed",
            Exit::Usage => "bad input (unknown id, bad option, unusable path); nothing ran",
            Exit::NothingChecked => "exercise only: every job type was skipped, nothing checked",
            Exit::Interrupted => "interrupted; what was measured is kept, marked partial",
        }
    }

    /// The "Exit status" section of `--help` and the manual page.
    pub fn help() -> String {
        let mut text = String::from("Exit status:");
        for e in Exit::ALL {
            text.push_str(&format!("\n  {:>3}  {}", e.code(), e.meaning()));
        }
        text
    }
}

/// A use case's ending, as the exit status the command line documents.
impl From<Ended> for Exit {
    fn from(e: Ended) -> Exit {
        match e {
            Ended::Success => Exit::Success,
            Ended::Failed => Exit::Failed,
            Ended::Refused => Exit::Usage,
            Ended::NothingChecked => Exit::NothingChecked,
            Ended::Interrupted => Exit::Interrupted,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(e.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_and_the_documented_ones() {
        let codes: Vec<u8> = Exit::ALL.iter().map(|e| e.code()).collect();
        assert_eq!(codes, [0, 1, 2, 3, 130]);
        let help = Exit::help();
        for e in Exit::ALL {
            assert!(help.contains(e.meaning()), "{e:?} missing from {help}");
        }
    }
}

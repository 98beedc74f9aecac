//! The job types of the exerciser (seed 004 §2: "a compile of a 729 line C program,
//! formatting a section of the UNIX online manual using nroff, performing global
//! substitution in a text file using the text editor ed, and execution of a moderate
//! floating point process"), plus the cpu family's chess game when this build has it.
//!
//! Each job is one shell command run in its instance's directory — "one shell for each
//! user level job, plus whatever children processes are required", as in the seed — and
//! one output file that is compared byte for byte with the trusted copy. Adding a job type
//! is adding one entry to [`JOBS`].

use crate::assets;

/// What a job type needs on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// A program on PATH.
    Program(&'static str),
    /// A (possibly hidden) subcommand of this timeshare executable.
    Subcommand(&'static str),
}

/// One job type.
#[derive(Debug)]
pub struct JobType {
    pub name: &'static str,
    pub about: &'static str,
    pub needs: &'static [Need],
    /// The files each instance starts with: (name, contents).
    pub inputs: fn() -> Vec<(&'static str, Vec<u8>)>,
    /// Run once during setup in the type's `bin` directory (which holds the inputs), to
    /// build what every instance shares; untimed. `$EXERCISE_BIN` names that directory.
    pub build: Option<&'static str>,
    /// The job itself, run by `sh -c` in the instance's directory. `$EXERCISE_BIN` and
    /// `$TIMESHARE_EXE` (this executable) are set.
    pub script: &'static str,
    /// The file the job produces, compared with the trusted copy.
    pub output: &'static str,
}

/// Every job type, in the order they are reported and a sweep distributes processes.
pub const JOBS: &[JobType] = &[
    JobType {
        name: "cc",
        about: "compile the bundled C program (one file, no optimiser, as in the seed) and run it",
        needs: &[Need::Program("cc")],
        inputs: || vec![("prog.c", assets::cprog_single_file().into_bytes())],
        build: None,
        script: "cc -o prog prog.c && ./prog > cc.out",
        output: "cc.out",
    },
    JobType {
        name: "nroff",
        about: "format the bundled manual page with nroff -man",
        needs: &[Need::Program("nroff")],
        inputs: || vec![("exerciser.1", assets::MANPAGE.as_bytes().to_vec())],
        build: None,
        script: "nroff -man exerciser.1 > nroff.out",
        output: "nroff.out",
    },
    JobType {
        name: "ed",
        about: "global substitutions on the bundled text with ed",
        needs: &[Need::Program("ed")],
        inputs: || {
            vec![
                ("text.txt", assets::ED_TEXT.as_bytes().to_vec()),
                ("script.ed", assets::ED_SCRIPT.as_bytes().to_vec()),
            ]
        },
        build: None,
        script: "ed -s text.txt < script.ed",
        output: "text.txt",
    },
    // The seed's floating-point job is the *execution* of a program, not its compilation
    // (that is the cc job): the program is compiled once during setup and every instance
    // runs the same binary. So the job needs a C compiler, like cc; without one both are
    // skipped with the reason.
    JobType {
        name: "float",
        about: "run the bundled floating-point program (compiled once during setup)",
        needs: &[Need::Program("cc")],
        inputs: || vec![("float.c", assets::FLOAT_C.as_bytes().to_vec())],
        build: Some("cc -O -o float float.c -lm"),
        script: "\"$EXERCISE_BIN/float\" > float.out",
        output: "float.out",
    },
    JobType {
        name: "chess",
        about: "play the cpu family's deterministic 130-ply chess game",
        needs: &[Need::Subcommand("chess-game")],
        inputs: Vec::new,
        build: None,
        script: "\"$TIMESHARE_EXE\" chess-game > chess.out",
        output: "chess.out",
    },
];

/// The job type called `name`.
pub fn find(name: &str) -> Option<&'static JobType> {
    JOBS.iter().find(|j| j.name == name)
}

/// The names of every job type, for messages.
pub fn names() -> Vec<&'static str> {
    JOBS.iter().map(|j| j.name).collect()
}

/// Why `job` cannot run here, if it cannot.
pub fn unavailable(
    job: &JobType,
    find_program: &dyn Fn(&str) -> bool,
    subcommands: &[String],
) -> Option<String> {
    job.needs.iter().find_map(|need| match need {
        Need::Program(p) if !find_program(p) => Some(format!("no `{p}` on PATH")),
        Need::Subcommand(s) if !subcommands.iter().any(|c| c == s) => Some(format!(
            "this timeshare has no `{s}` subcommand (the family that provides it is not built in)"
        )),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_outputs_named() {
        let mut names = names();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), JOBS.len());
        assert!(JOBS
            .iter()
            .all(|j| !j.output.is_empty() && !j.script.is_empty()));
    }

    #[test]
    fn a_missing_program_or_subcommand_is_the_reason() {
        let none = |_: &str| false;
        let all = |_: &str| true;
        assert_eq!(
            unavailable(find("ed").unwrap(), &none, &[]).unwrap(),
            "no `ed` on PATH"
        );
        assert!(unavailable(find("ed").unwrap(), &all, &[]).is_none());
        assert!(unavailable(find("chess").unwrap(), &all, &[])
            .unwrap()
            .contains("chess-game"));
        assert!(unavailable(find("chess").unwrap(), &none, &["chess-game".into()]).is_none());
    }
}

//! `timeshare __words COMMAND`: the words a shell completes after `timeshare COMMAND`, one
//! a line — benchmark ids and families for the commands that select rows, the stored runs'
//! names (`last`, `last-any`, labels) and the reference machines for those that read runs,
//! the seed tables' keys for `table`. The completion scripts (`timeshare completions`)
//! call it, so they know what this binary and this database know. Hidden: not for people.

use anyhow::Result;
use clap::Args;

use super::db::DbArgs;
use super::{output, Exit};
use crate::bench::Registry;
use crate::reference;
use crate::report::seed_table::TABLES;

/// The hidden subcommand's name, which the completion scripts call.
pub const COMMAND: &str = "__words";

#[derive(Debug, Args)]
pub struct WordsArgs {
    /// The subcommand whose arguments are being completed
    pub command: String,
    #[command(flatten)]
    pub db: DbArgs,
}

/// What completes an argument of each subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Benchmarks,
    Runs,
    RunsAndMachines,
    Machines,
    Tables,
    Nothing,
}

fn kind_of(command: &str) -> Kind {
    match command {
        "run" | "list" | "crosscheck" | "selftest" | "ab" => Kind::Benchmarks,
        "show" | "export" | "profile" | "report" | "forget" => Kind::Runs,
        "compare" | "fleet" => Kind::RunsAndMachines,
        "reference" => Kind::Machines,
        "table" => Kind::Tables,
        _ => Kind::Nothing,
    }
}

/// The words for `command`; the runs' names only when the database opens (a shell asking
/// must never see an error).
pub fn words(command: &str, runs: impl FnOnce() -> Vec<String>) -> Vec<String> {
    let machines = || {
        reference::machines()
            .into_iter()
            .map(|m| m.name.to_string())
            .collect::<Vec<_>>()
    };
    match kind_of(command) {
        Kind::Benchmarks => {
            let reg = Registry::with_defaults();
            let mut out: Vec<String> = Vec::new();
            for b in reg.benches() {
                for w in [b.family(), b.id()] {
                    if !out.iter().any(|o| o == w) {
                        out.push(w.to_string());
                    }
                }
            }
            out
        }
        Kind::Runs => runs(),
        Kind::RunsAndMachines => {
            let mut out = runs();
            out.extend(machines());
            out
        }
        Kind::Machines => machines(),
        Kind::Tables => TABLES.iter().map(|t| t.key.to_string()).collect(),
        Kind::Nothing => Vec::new(),
    }
}

pub fn execute(args: WordsArgs) -> Result<Exit> {
    let runs = || match args.db.open_existing() {
        Ok(store) => super::db::run_names(&store),
        Err(_) => vec!["last".to_string(), "last-any".to_string()],
    };
    let mut text = words(&args.command, runs).join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    output::print(text.into_bytes())?;
    Ok(Exit::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_command_completes_its_own_kind_of_word() {
        let runs = || vec!["last".to_string(), "before-upgrade".to_string()];
        let run = words("run", runs);
        assert!(run.iter().any(|w| w == "syscall"));
        assert!(run.iter().any(|w| w == "syscall.getpid"));
        assert!(!run.iter().any(|w| w == "last"));
        let show = words("show", runs);
        assert_eq!(show, ["last", "before-upgrade"]);
        assert_eq!(words("forget", runs), show, "forget names a run too");
        let compare = words("compare", runs);
        assert!(compare.iter().any(|w| w == "vax750-4.3bsd"));
        assert!(compare.iter().any(|w| w == "before-upgrade"));
        assert!(words("table", runs).iter().any(|w| w == "001-2"));
        assert!(words("clean", runs).is_empty());
    }
}

//! The command line: clap derive structs, validated into a configuration, one small file
//! per subcommand. Errors are printed once, here, as one line.
//!
//! Exit codes: 0 everything selected ran (or was skipped with a reason); 1 a benchmark
//! failed; 2 bad input (unknown id, bad option, unwritable path); 130 interrupted.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod chess_game;
mod compare;
mod db;
mod exercise;
mod export;
mod history;
mod import;
mod list;
mod reference;
mod run;
mod show;
mod sysinfo;
mod table;

pub const EXIT_FAILED: u8 = 1;
pub const EXIT_USAGE: u8 = 2;
pub const EXIT_INTERRUPTED: u8 = 130;

#[derive(Debug, Parser)]
#[command(
    name = "timeshare",
    version,
    about = "Benchmark and exercise a UNIX machine the way Bell Labs and Berkeley did",
    long_about = "Benchmark and exercise a UNIX machine the way Bell Labs and Berkeley did: \
system calls, signals, pipes, fork and exec, paging, compute, disks and many users at once, \
each figure with its spread and set beside the historical machines.\n\n\
Exit status: 0 all ran (or were skipped with a reason), 1 a benchmark failed, \
2 bad input, 130 interrupted."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run benchmarks and print their table
    Run(run::RunArgs),
    /// List the registered benchmarks with their sources
    List(list::ListArgs),
    /// Show the environment record that every run stores
    Sysinfo(sysinfo::SysinfoArgs),
    /// List the stored runs, newest first
    History(history::HistoryArgs),
    /// Print a stored run as its table
    Show(show::ShowArgs),
    /// Write a stored run as JSON, CSV or Markdown
    Export(export::ExportArgs),
    /// Store a run from a JSON file (from another machine, or `run --json`)
    Import(import::ImportArgs),
    /// Set runs and historical machines side by side, with a verdict per id
    Compare(compare::CompareArgs),
    /// List the historical machines of the seeds, or one machine's figures
    Reference(reference::ReferenceArgs),
    /// Print a run in the layout of a seed's table, with the historical columns beside it
    Table(table::TableArgs),
    /// Run many copies of real jobs at once and check every output byte for byte (seed 004)
    Exercise(exercise::ExerciseArgs),
    /// Print the move list of the cpu.chess game, one move per line (an exerciser job)
    #[command(hide = true)]
    ChessGame(chess_game::ChessGameArgs),
}

/// An error that is the user's input, not the machine's: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Run(args) => run::execute(args),
        Command::List(args) => list::execute(args),
        Command::Sysinfo(args) => sysinfo::execute(args),
        Command::History(args) => history::execute(args),
        Command::Show(args) => show::execute(args),
        Command::Export(args) => export::execute(args),
        Command::Import(args) => import::execute(args),
        Command::Compare(args) => compare::execute(args),
        Command::Reference(args) => reference::execute(args),
        Command::Table(args) => table::execute(args),
        Command::Exercise(args) => exercise::execute(args),
        Command::ChessGame(args) => chess_game::execute(args),
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("timeshare: error: {}", one_line(&e));
            let usage = e.downcast_ref::<UsageError>().is_some()
                || e.downcast_ref::<crate::bench::select::SelectError>()
                    .is_some()
                || e.downcast_ref::<crate::store::StoreError>()
                    .is_some_and(|s| s.is_usage());
            ExitCode::from(if usage { EXIT_USAGE } else { EXIT_FAILED })
        }
    }
}

/// The error and its causes on one line: "cannot write r.json: Permission denied".
fn one_line(e: &anyhow::Error) -> String {
    format!("{e:#}").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}

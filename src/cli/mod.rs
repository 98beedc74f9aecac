//! The command line: clap derive structs, validated into a configuration, one small file
//! per subcommand. Errors are printed once, here, as one line.
//!
//! Exit codes: 0 everything selected ran (or was skipped with a reason); 1 a benchmark
//! failed; 2 bad input (unknown id, bad option, unwritable path); 130 interrupted.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod chess_game;
mod list;
mod run;
mod sysinfo;

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
        Command::ChessGame(args) => chess_game::execute(args),
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("timeshare: error: {}", one_line(&e));
            let usage = e.downcast_ref::<UsageError>().is_some()
                || e.downcast_ref::<crate::bench::select::SelectError>()
                    .is_some();
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

//! The command line: clap derive structs, validated into a configuration, one small file
//! per subcommand. Every option is checked here, before anything is measured; errors are
//! printed once, here, as one line; the exit status is an [`Exit`] (see `exit.rs`), and
//! standard output goes through `output.rs`, where a closed pipe is success.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::harness::process;

mod ab;
mod chess_game;
mod clean;
mod compare;
mod completions;
mod configs;
mod crosscheck;
mod db;
mod declared;
mod dir;
mod errors;
mod exercise;
mod exit;
mod export;
mod fleet;
mod forget;
mod history;
mod import;
mod invocation;
mod list;
mod load_user;
mod man;
mod monitor;
mod observe;
use crate::report::outfile;
use crate::report::output;
mod profile;
mod reference;
mod report;
mod run;
mod selftest;
mod show;
mod suggest;
mod sysinfo;
mod table;
mod words;

pub use exit::Exit;

#[derive(Debug, Parser)]
#[command(
    name = "timeshare",
    version,
    about = "Benchmark and exercise a UNIX machine the way Bell Labs and Berkeley did",
    long_about = "Benchmark and exercise a UNIX machine the way Bell Labs and Berkeley did: \
system calls, signals, pipes, fork and exec, paging, compute, disks and many users at once, \
each figure with its spread and set beside the historical machines.",
    after_help = Exit::help()
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
    /// Delete a stored run and its results (with --yes)
    Forget(forget::ForgetArgs),
    /// Set runs and historical machines side by side, with a verdict per id
    Compare(compare::CompareArgs),
    /// Measure two builds or settings alternately in one sitting and compare them
    Ab(ab::AbArgs),
    /// A campaign's hosts side by side: each host's median, the fleet's median and
    /// spread, and the hosts outside it marked
    Fleet(fleet::FleetArgs),
    /// List the historical machines of the seeds, or one machine's figures
    Reference(reference::ReferenceArgs),
    /// Write a self-contained HTML report with charts: one run, several side by side, or
    /// one id's history
    Report(report::ReportArgs),
    /// Print a run in the layout of a seed's table, with the historical columns beside it
    Table(table::TableArgs),
    /// Run each row beside the tool it cites (perf bench, lmbench, fio), pinned and interleaved
    Crosscheck(crosscheck::CrosscheckArgs),
    /// Run many copies of real jobs at once and check every output byte for byte (seed 004)
    Exercise(exercise::ExerciseArgs),
    /// Watch the machine: vmstat/iostat lines (processes, memory, faults, disks, CPU)
    Monitor(monitor::MonitorArgs),
    /// Observe the whole machine at work for a while or over a command's life: rates,
    /// system-call mix, kernel profile, caches, the network's share; stored as an
    /// observation (`show oN`)
    Observe(observe::ObserveArgs),
    /// Print the flat profile `run --profile` stored for one row of a run
    Profile(profile::ProfileArgs),
    /// Remove what runs killed outright left behind (scratch directories, temporary files, cgroups)
    Clean(clean::CleanArgs),
    /// Write the completion script for a shell (bash, zsh, fish, …) to standard output
    Completions(completions::CompletionsArgs),
    /// Write the manual page (roff) of timeshare or of one command to standard output
    Man(man::ManArgs),
    /// Check that the benchmarks' timing holds up: twice the work, twice the time
    Selftest(selftest::SelftestArgs),
    /// Print the move list of the cpu.chess game, one move per line (an exerciser job)
    #[command(hide = true)]
    ChessGame(chess_game::ChessGameArgs),
    /// The words a shell completes after a subcommand (used by the completion scripts)
    #[command(hide = true, name = words::COMMAND)]
    Words(words::WordsArgs),
    /// Measure one invocation of a run with several (used by `run --invocations`)
    #[command(hide = true, name = crate::harness::invocations::COMMAND)]
    Invocation(invocation::InvocationArgs),
    /// Run one user's command script as its shell (used by `load.script.N`)
    #[command(hide = true, name = crate::bench::load::script::USER_SHELL)]
    LoadUser(load_user::LoadUserArgs),
}

pub fn main() -> ExitCode {
    process::ignore_file_size_signal();
    if let Some(why) = process::stack_too_small() {
        eprintln!("timeshare: error: {why}");
        return Exit::Usage.into();
    }
    let cli = Cli::parse();
    crate::report::style::set(output::detect_style());
    let outcome = match cli.command {
        Command::Run(args) => match args.configs.clone() {
            Some(list) => configs::sweep(&args, &list),
            None => run::execute(args),
        },
        Command::List(args) => list::execute(args),
        Command::Sysinfo(args) => sysinfo::execute(args),
        Command::History(args) => history::execute(args),
        Command::Forget(args) => forget::execute(args),
        Command::Show(args) => show::execute(args),
        Command::Export(args) => export::execute(args),
        Command::Import(args) => import::execute(args),
        Command::Compare(args) => compare::execute(args),
        Command::Ab(args) => ab::execute(args),
        Command::Fleet(args) => fleet::execute(args),
        Command::Reference(args) => reference::execute(args),
        Command::Report(args) => report::execute(args),
        Command::Table(args) => table::execute(args),
        Command::Crosscheck(args) => crosscheck::execute(args),
        Command::Exercise(args) => exercise::execute(args),
        Command::Monitor(args) => monitor::execute(args),
        Command::Observe(args) => observe::execute(args),
        Command::Profile(args) => profile::execute(args),
        Command::Clean(args) => clean::execute(args),
        Command::Completions(args) => completions::execute(args),
        Command::Words(args) => words::execute(args),
        Command::Man(args) => man::execute(args),
        Command::Selftest(args) => selftest::execute(args),
        Command::ChessGame(args) => chess_game::execute(args),
        Command::Invocation(args) => invocation::execute(args),
        Command::LoadUser(args) => load_user::execute(args),
    };
    match outcome {
        Ok(exit) => exit.into(),
        Err(e) => {
            // One message, folded at spaces to the output's width like every other line.
            let message = format!("timeshare: error: {}", one_line(&e));
            eprintln!("{}", crate::report::style::fit(&message));
            exit_for(&e).into()
        }
    }
}

/// The status of a command that ended in `e`: the user's mistake, or the machine's.
fn exit_for(e: &anyhow::Error) -> Exit {
    // A Ctrl-C before the first row (while the overhead is measured, say) is still an
    // interruption, not a failure.
    let interrupted = e
        .downcast_ref::<crate::harness::interrupt::Interrupted>()
        .is_some()
        || e.downcast_ref::<crate::exercise::Interrupted>().is_some();
    if interrupted {
        return Exit::Interrupted;
    }
    let usage = e.downcast_ref::<errors::UsageError>().is_some()
        || e.downcast_ref::<crate::bench::select::SelectError>()
            .is_some()
        || e.downcast_ref::<crate::store::StoreError>()
            .is_some_and(|s| s.is_usage());
    if usage {
        Exit::Usage
    } else {
        Exit::Failed
    }
}

/// The error and its causes on one line: "cannot write r.json: Permission denied".
fn one_line(e: &anyhow::Error) -> String {
    crate::report::style::escape(&format!("{e:#}").replace('\n', " ")).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn help_documents_every_exit_status() {
        let help = Cli::command().render_long_help().to_string();
        for e in Exit::ALL {
            assert!(help.contains(e.meaning()), "{e:?} not in --help");
        }
    }
}

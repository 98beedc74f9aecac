//! `timeshare completions SHELL`: the shell's completion script, generated from the same
//! clap definitions as `--help`, so it cannot drift from the real options.
//!
//! For example: `timeshare completions bash > ~/.local/share/bash-completion/completions/timeshare`.

use anyhow::Result;
use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::{output, Cli, Exit};

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to write the completion script for
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn execute(args: CompletionsArgs) -> Result<Exit> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "timeshare", &mut script);
    output::print(script)?;
    Ok(Exit::Success)
}

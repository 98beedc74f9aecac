//! `timeshare man [COMMAND]`: the manual page (roff) of timeshare or of one of its
//! commands, generated from the same clap definitions as `--help`.
//!
//! For example: `timeshare man | man -l -`, or `timeshare man run > timeshare-run.1`.

use anyhow::Result;
use clap::{Args, CommandFactory};
use clap_mangen::roff::{bold, roman, Roff};

use super::errors::UsageError;
use super::suggest;
use super::{output, Cli, Exit};

#[derive(Debug, Args)]
pub struct ManArgs {
    /// A command whose own page to write (default: the page of timeshare itself)
    pub command: Option<String>,
}

pub fn execute(args: ManArgs) -> Result<Exit> {
    output::print(page(command(args.command.as_deref())?)?)?;
    Ok(Exit::Success)
}

/// The page of `cmd`, with an EXIT STATUS section (from [`Exit::ALL`]) before VERSION,
/// where `--help` has its plain-text list.
fn page(cmd: clap::Command) -> Result<String> {
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut page)?;
    let mut page = String::from_utf8(page)?;
    let at = page.find("\n.SH VERSION").map_or(page.len(), |i| i + 1);
    page.insert_str(at, &exit_status_section());
    Ok(page)
}

fn exit_status_section() -> String {
    let mut roff = Roff::new();
    roff.control("SH", ["EXIT STATUS"]);
    for e in Exit::ALL {
        roff.control("TP", [] as [&str; 0]);
        roff.text([bold(e.code().to_string())]);
        roff.text([roman(e.meaning())]);
    }
    roff.to_roff()
}

/// The clap command the page describes; a subcommand is named `timeshare-NAME`, as
/// `git-commit(1)` is.
fn command(name: Option<&str>) -> Result<clap::Command> {
    let mut top = Cli::command();
    top.build();
    let Some(name) = name else {
        // Its `--help` ends with the exit statuses as plain text; the page has them as
        // a section of its own instead.
        return Ok(top.after_help(None::<&str>));
    };
    let visible = || {
        top.get_subcommands()
            .filter(|c| !c.is_hide_set())
            .map(|c| c.get_name())
    };
    let sub = top
        .find_subcommand(name)
        .filter(|c| !c.is_hide_set())
        .ok_or_else(|| {
            UsageError(format!(
                "no command `{name}` (known: {}){}",
                visible().collect::<Vec<_>>().join(", "),
                suggest::hint(name, visible())
            ))
        })?;
    Ok(sub.clone().name(format!("timeshare-{name}")))
}

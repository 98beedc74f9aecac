//! `timeshare clean`: remove what runs killed outright (`kill -9`, a power cut) left
//! behind — scratch directories in `--dir`, hidden output files in `--dir` and the
//! current directory, memory cgroups — recognised by name, owner and a dead process id
//! (see [`crate::harness::debris`]). `run` and `exercise` do the same for their `--dir`
//! before they start, so this is only needed for a directory no run uses again.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::dir::DirArgs;
use super::{output, Exit};
use crate::harness::{debris, memlimit};

#[derive(Debug, Args)]
pub struct CleanArgs {
    #[command(flatten)]
    pub dir: DirArgs,
}

/// Remove the debris of dead runs from `dir` and the cgroups; returns what was removed.
pub fn sweep(dir: &std::path::Path) -> Vec<PathBuf> {
    // Loop devices first: a killed exercise's device holds its backing file open.
    let mut removed = crate::exercise::loopdev::sweep_dead();
    removed.extend(debris::sweep_scratch(dir));
    removed.extend(debris::sweep_temp_files(dir));
    removed.extend(memlimit::sweep_dead());
    removed
}

pub fn execute(args: CleanArgs) -> Result<Exit> {
    let dir = args.dir.checked()?;
    let mut removed = sweep(&dir);
    // The profile's perf files and crosscheck's scratch are in the temporary directory.
    let tmp = std::env::temp_dir();
    if tmp != dir {
        removed.extend(debris::sweep_scratch(&tmp));
    }
    if let Ok(cwd) = std::env::current_dir() {
        if cwd != dir {
            removed.extend(debris::sweep_temp_files(&cwd));
        }
    }
    let mut text = String::new();
    for p in &removed {
        text.push_str(&format!("removed {}\n", p.display()));
    }
    text.push_str(&format!(
        "{} left by dead runs removed\n",
        match removed.len() {
            0 => "nothing".to_string(),
            1 => "1 item".to_string(),
            n => format!("{n} items"),
        }
    ));
    output::print_text(&text)?;
    Ok(Exit::Success)
}

//! `timeshare list [FAMILY|ID…]`

use anyhow::Result;
use clap::Args;

use super::{output, suggest, Exit};
use crate::bench::Registry;
use crate::report;

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Families, ids or id prefixes to show (default: all)
    pub select: Vec<String>,
}

pub fn execute(args: ListArgs) -> Result<Exit> {
    let reg = Registry::with_defaults();
    let chosen = suggest::select(&reg, &args.select)?;
    let derived: Vec<_> = reg
        .derived()
        .iter()
        .filter(|d| {
            args.select.is_empty()
                || args.select.iter().any(|w| {
                    d.id == w
                        || crate::model::family_of(d.id) == w
                        || d.id.starts_with(&format!("{w}."))
                })
        })
        .collect();
    output::print_text(&report::table::list_table(&chosen, &derived))?;
    Ok(Exit::Success)
}

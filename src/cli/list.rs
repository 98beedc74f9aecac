//! `timeshare list [FAMILY|ID…]`

use anyhow::Result;
use clap::Args;

use crate::bench::{derived_rows, registry, select};
use crate::report;

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Families, ids or id prefixes to show (default: all)
    pub select: Vec<String>,
}

pub fn execute(args: ListArgs) -> Result<u8> {
    let reg = registry();
    let chosen = select::select(&reg, &args.select)?;
    let derived: Vec<_> = derived_rows()
        .into_iter()
        .filter(|d| {
            args.select.is_empty()
                || args.select.iter().any(|w| {
                    d.id == w
                        || crate::model::family_of(d.id) == w
                        || d.id.starts_with(&format!("{w}."))
                })
        })
        .collect();
    print!("{}", report::table::list_table(&chosen, &derived));
    Ok(0)
}

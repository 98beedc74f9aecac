//! `timeshare export RUN --format json|csv|markdown [-o FILE]`

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, ValueEnum};

use super::db::DbArgs;
use super::outfile::OutputFile;
use super::Exit;
use crate::harness::outpolicy::Rules;
use crate::report;

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// A run id, a label, or `last`; or an observation (`o3`, `o-last`: JSON only)
    pub run: String,
    /// The output format
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
    /// Write to FILE instead of standard output ('-' for standard output)
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace FILE if it exists
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Format {
    /// The result format of `run --json` (importable)
    Json,
    /// One line per result: id, status, unit, median, CI, spread, times per op
    Csv,
    /// A Markdown table, for a report or an issue
    Markdown,
}

pub fn execute(args: ExportArgs) -> Result<Exit> {
    // Checked before the database is read: a path that cannot be written is bad input.
    let rules = Rules {
        force: args.force,
        replace_needs_force: true,
        ..args.db.output_rules()
    };
    let out = OutputFile::open(
        args.output.as_deref().unwrap_or("-".as_ref()),
        "--output",
        &rules,
    )?;
    let store = args.db.open_existing()?;
    if crate::store::is_observation_name(&args.run) {
        // An observation has one format: its own JSON, which `import` reads back.
        let (_, o) = crate::usecase::observe::load(&store, &args.run)?;
        out.write(&serde_json::to_vec_pretty(&o)?)?;
        return Ok(Exit::Success);
    }
    let stored = super::show::load(&store, &args.run)?;
    let bytes = match args.format {
        Format::Json => report::json::to_json(&stored.run)?,
        Format::Csv => report::csv::to_csv(&stored.run)?,
        Format::Markdown => report::markdown::to_markdown(&stored.run).into_bytes(),
    };
    out.write(&bytes)?;
    Ok(Exit::Success)
}

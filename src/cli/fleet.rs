//! `timeshare fleet [--campaign NAME] [IDS…]`: one campaign's hosts side by side — each
//! host's median per id, the fleet's median and spread, and the hosts outside it marked.

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, ValueEnum};

use super::db::DbArgs;
use super::errors::UsageError;
use super::outfile::OutputFile;
use super::{output, Exit};
use crate::model::fleet::{FleetHost, FleetView};
use crate::model::RunStatus;
use crate::report;
use crate::store::{Store, StoredRun};

#[derive(Debug, Args)]
pub struct FleetArgs {
    /// The campaign to show (`run --campaign`) [default: the newest run's campaign]
    #[arg(long, value_name = "NAME")]
    pub campaign: Option<String>,
    /// Ids or families to show (`cpu`, `syscall.getpid`) [default: every id]
    pub ids: Vec<String>,
    /// The output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write to FILE instead of standard output ('-' for standard output)
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Format {
    /// A table: hosts × ids, the outliers marked
    Text,
    /// One line per host and id
    Csv,
    /// The view with every figure, band and mark
    Json,
    /// A page: the table with the outliers marked, as the text shows it
    Html,
}

pub fn execute(args: FleetArgs) -> Result<Exit> {
    let out = match &args.output {
        Some(p) => Some(OutputFile::open(p, "--output", &args.db.output_rules())?),
        None => None,
    };
    let store = args.db.open_existing()?;
    let (campaign, hosts) = campaign_runs(&store, args.campaign.as_deref())?;
    let runs: Vec<&crate::model::Run> = hosts.iter().map(|(_, s)| &s.run).collect();
    let keep = |id: &str| {
        args.ids.is_empty()
            || args
                .ids
                .iter()
                .any(|p| id == p || id.starts_with(&format!("{p}.")))
    };
    let view = FleetView::new(
        &campaign,
        hosts.iter().map(|(h, _)| h.clone()).collect(),
        &runs,
        keep,
    );
    if view.rows.is_empty() {
        return Err(UsageError(format!(
            "campaign {campaign:?}: no id{} has a figure on two hosts or more",
            if args.ids.is_empty() {
                String::new()
            } else {
                format!(" of {}", args.ids.join(", "))
            }
        ))
        .into());
    }
    let bytes = match args.format {
        Format::Text => report::fleet::text(&view).into_bytes(),
        Format::Csv => report::fleet::csv(&view)?,
        Format::Json => report::fleet::json(&view)?,
        Format::Html => report::html::fleet::page(&view).into_bytes(),
    };
    match (out, args.format) {
        (Some(f), _) => f.write(&bytes)?,
        // Only the table is folded to the width; formats for programs go out whole.
        (None, Format::Text) => output::print_text(&String::from_utf8_lossy(&bytes))?,
        (None, _) => output::print(&bytes)?,
    }
    Ok(Exit::Success)
}

/// The campaign's name and, for each of its hosts (by name), the newest complete run that
/// host filed under it. Without a name, the newest run's campaign.
pub(super) fn campaign_runs(
    store: &Store,
    campaign: Option<&str>,
) -> Result<(String, Vec<(FleetHost, StoredRun)>)> {
    let headers = store.headers()?;
    let campaign = match campaign {
        Some(c) => c.to_string(),
        None => headers
            .iter()
            .rev()
            .find_map(|(_, run)| run.options.fleet.campaign.clone())
            .ok_or_else(|| {
                UsageError(
                    "no stored run belongs to a campaign (file runs under one with \
                     `timeshare run --campaign NAME`)"
                        .into(),
                )
            })?,
    };
    let mut newest: Vec<(FleetHost, i64)> = Vec::new();
    for (row, run) in &headers {
        if run.options.fleet.campaign.as_deref() != Some(campaign.as_str())
            || row.status != RunStatus::Complete
        {
            continue;
        }
        let host = FleetHost {
            name: host_name(run),
            group: run.options.fleet.group.clone(),
            run_id: row.id,
        };
        // Oldest first: a later run of the same host replaces its earlier one.
        match newest.iter_mut().find(|(h, _)| h.name == host.name) {
            Some(slot) => *slot = (host, row.id),
            None => newest.push((host, row.id)),
        }
    }
    if newest.is_empty() {
        let known: Vec<String> = campaigns(&headers);
        return Err(UsageError(format!(
            "no complete run in campaign {campaign:?} (campaigns stored: {})",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ))
        .into());
    }
    newest.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    let hosts = newest
        .into_iter()
        .map(|(h, id)| Ok((h, super::db::load_id(store, id)?)))
        .collect::<Result<Vec<_>>>()?;
    Ok((campaign, hosts))
}

/// The name a run's host has in the fleet: `--host-name`, else its hostname.
pub(super) fn host_name(run: &crate::model::Run) -> String {
    run.options
        .fleet
        .host
        .clone()
        .unwrap_or_else(|| run.environment.hostname.clone())
}

fn campaigns(headers: &[(crate::store::RunRow, crate::model::Run)]) -> Vec<String> {
    let mut names: Vec<String> = headers
        .iter()
        .filter_map(|(_, r)| r.options.fleet.campaign.clone())
        .collect();
    names.sort();
    names.dedup();
    names
}

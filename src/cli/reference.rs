//! `timeshare reference [MACHINE]`: the seeds' historical machines; with a name, every
//! figure of that machine with its source and conversion.

use anyhow::Result;
use clap::Args;

use super::errors::UsageError;
use super::{output, suggest, Exit};
use crate::model::unit::format_value;
use crate::model::Unit;
use crate::reference::{self, Figure, Quantity};
use crate::report::table::{fold_words, new_table, right};

#[derive(Debug, Args)]
pub struct ReferenceArgs {
    /// A machine to show in full (default: list them all)
    pub machine: Option<String>,
}

pub fn execute(args: ReferenceArgs) -> Result<Exit> {
    let text = match args.machine {
        None => list(),
        Some(name) => one(&name)?,
    };
    output::print_text(&text)?;
    Ok(Exit::Success)
}

fn list() -> String {
    let figures = reference::figures();
    let mut t = new_table(&["machine", "hardware", "system", "figures"]);
    let mut sources = String::from("where each machine's figures come from:\n");
    for m in reference::machines() {
        let n = figures
            .iter()
            .filter(|f| f.machine == m.name && f.quantity == Quantity::Headline)
            .count();
        // A machine the seeds describe without printing a figure for it says so.
        let count = if n == 0 {
            "none printed".to_string()
        } else {
            n.to_string()
        };
        t.add_row(vec![
            m.name.to_string(),
            m.hardware.to_string(),
            m.system.to_string(),
            count,
        ]);
        // The sources are long prose: under the table, one per machine, they read as
        // sentences instead of a column wrapped a word or two a line.
        fold_words(
            &format!("  {}: {}", m.name, m.about),
            width(),
            4,
            &mut sources,
        );
        sources.push('\n');
    }
    right(&mut t, &[3]);
    format!(
        "{t}\n{sources}`timeshare reference MACHINE` shows its figures; `timeshare compare last \
         MACHINE` sets a run beside it.\n"
    )
}

/// The width the output's lines fold to.
fn width() -> usize {
    usize::from(crate::report::style::current().width)
}

/// A figure as the table shows it: a count per operation (0.228 page faults per page
/// touch) keeps its fraction, which a count's whole-number format would print as 0.
fn figure_text(value: f64, unit: Unit) -> String {
    match unit {
        Unit::Count => crate::report::compare::figures3(value),
        _ => format_value(value, unit),
    }
}

/// What the seed printed and how it became the figure, in one cell: the conversion alone
/// when it quotes the printed figure.
fn printed_and_converted(printed: &str, conversion: &str) -> String {
    if conversion.contains(printed.trim()) {
        conversion.to_string()
    } else {
        format!("printed {printed}; {conversion}")
    }
}

/// The table or figure a place names: `Table 2` of `Table 2, row getpid, Elapsed Time`.
fn table_of(place: &str) -> &str {
    place.split(", row ").next().unwrap_or(place)
}

/// The seed's tables that hold this machine in more than one configuration (seed 000's
/// Table 10: the 11/70 in C7 and C8).
fn tables_in_several_configs(figures: &[Figure]) -> Vec<String> {
    let mut configs: Vec<(String, &str)> = figures
        .iter()
        .filter_map(|f| {
            Some((
                format!("seed {}, {}", f.seed, table_of(&f.place)),
                f.config()?,
            ))
        })
        .collect();
    configs.sort();
    configs.dedup();
    let mut out: Vec<String> = configs
        .windows(2)
        .filter(|w| w[0].0 == w[1].0)
        .map(|w| w[0].0.clone())
        .collect();
    out.dedup();
    out
}

/// A figure's source: the seed's table, and its configuration where that table holds
/// the machine in several, so that C8's figures are never read as C7's.
fn source_of(f: &Figure, several: &[String]) -> String {
    let table = format!("seed {}, {}", f.seed, table_of(&f.place));
    match f.config() {
        Some(config) if several.contains(&table) => format!("{table}, Config {config}"),
        _ => table,
    }
}

fn one(name: &str) -> Result<String> {
    let m = reference::machine(name).ok_or_else(|| {
        let names: Vec<_> = reference::machines().iter().map(|m| m.name).collect();
        UsageError(format!(
            "no reference machine named {name:?} (known: {}){}",
            names.join(", "),
            suggest::hint(name, names.iter().copied())
        ))
    })?;
    // Its figures in another configuration too (seed 000's 11/70 in C8), each with its
    // place: the conversions `table` refers to, though `compare` uses the main one's only.
    let figures: Vec<_> = reference::figures_of(name)
        .into_iter()
        .chain(
            reference::other_config_figures()
                .into_iter()
                .filter(|f| f.machine == name),
        )
        .collect();
    if figures.is_empty() {
        return Ok(format!(
            "{}: {}, {} — {}\nno figure of this machine is printed in the seeds: there is \
             nothing to compare with.\n",
            m.name, m.hardware, m.system, m.about
        ));
    }
    // Four text columns would wrap each to a word per line within 100 columns: the
    // figure as printed goes into its conversion (which most often starts with it), and
    // the source is the seed's table or figure, shared by many rows (a numbered note
    // under the table when the width is short), its row and column being the id and
    // the figure beside it.
    let mut t = new_table(&["id", "figure", "value", "per", "from", "source"]);
    let several = tables_in_several_configs(&figures);
    for f in &figures {
        t.add_row(vec![
            f.id.clone(),
            f.quantity.name().to_string(),
            figure_text(f.value, f.unit),
            f.basis.op.to_string(),
            printed_and_converted(&f.printed, &f.conversion),
            source_of(f, &several),
        ]);
    }
    right(&mut t, &[2]);
    Ok(format!(
        "{}: {}, {} — {}\n{t}\n",
        m.name, m.hardware, m.system, m.about
    ))
}

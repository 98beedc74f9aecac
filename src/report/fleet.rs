//! The fleet view as text, CSV and JSON: hosts × ids, each host's median, the fleet's
//! median and spread, and the hosts outside the band marked (see [`crate::model::fleet`]).

use crate::model::fleet::{FleetView, HostFigure};
use crate::model::unit::format_value;
use crate::model::Unit;

use super::style::{self, Tone};
use super::table::{bound_text, new_table, right};

/// The mark beside a host's figure that lies outside the fleet's band.
pub const OUTSIDE: &str = "◆";

/// The view as a table, with a header line and a line naming the hosts outside.
pub fn text(view: &FleetView) -> String {
    let mut header: Vec<String> = vec!["benchmark".into()];
    header.extend(
        view.hosts
            .iter()
            .map(|h| style::escape(&h.name).into_owned()),
    );
    header.extend(["fleet median".into(), "spread".into(), "outside".into()]);
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = new_table(&header_refs);
    for (row, unit) in view.rows.iter().zip(&view.units) {
        let mut cells = vec![row.id.clone()];
        for h in &row.hosts {
            cells.push(match h {
                Some(f) => host_cell(f, *unit),
                None => "—".into(),
            });
        }
        match (row.median, row.spread) {
            (Some(median), Some(spread)) => {
                cells.push(format_value(median, *unit));
                cells.push(spread_text(spread, median));
            }
            _ => cells.extend([NO_FLEET_FIGURE.into(), "—".into()]),
        }
        let outside: Vec<String> = row
            .outside()
            .iter()
            .map(|&i| style::escape(&view.hosts[i].name).into_owned())
            .collect();
        let tone = if outside.is_empty() {
            Tone::Plain
        } else {
            Tone::Bad
        };
        cells.push(outside.join(", "));
        t.add_row(style::row(cells, tone));
    }
    let numeric: Vec<usize> = (1..header.len() - 1).collect();
    right(&mut t, &numeric);
    let mut out = format!(
        "campaign {} · {} hosts ({})\n",
        style::escape(&view.campaign),
        view.hosts.len(),
        view.hosts
            .iter()
            .map(|h| format!("{} = run {}", style::escape(&h.name), h.run_id))
            .collect::<Vec<_>>()
            .join(", ")
    );
    out.push_str(&format!("{t}\n"));
    for line in legend(view) {
        out.push_str(&format!("{line}\n"));
    }
    out
}

/// The lines under the table, in every format that shows it: what a bound means, if the
/// view shows one, and what the mark means.
pub(crate) fn legend(view: &FleetView) -> Vec<String> {
    let mut lines = Vec::new();
    let reasons = bounds_shown(view);
    if !reasons.is_empty() {
        lines.push(format!(
            "< a bound, not a figure: {}; left out of the fleet's median and spread \
             ({NO_FLEET_FIGURE}: fewer than two hosts resolved it)",
            reasons.join("; ")
        ));
    }
    let marked: usize = view.rows.iter().map(|r| r.outside().len()).sum();
    lines.push(format!(
        "{OUTSIDE} outside the fleet: beyond its median ± max(3 × spread, 5%) by more than \
         the host's own 95% CI; spread = 1.4826 × MAD of the hosts' medians; {marked} \
         figure{} marked",
        if marked == 1 { "" } else { "s" }
    ));
    lines
}

/// The spread as a share of the fleet's median: `±2.1%`.
pub(crate) fn spread_text(spread: f64, median: f64) -> String {
    format!("±{:.1}%", percent(spread, median))
}

/// What the fleet's median cell says when fewer than two hosts resolved the figure.
pub(crate) const NO_FLEET_FIGURE: &str = "not resolved";

/// A host's figure as every printer shows it: the median when it was resolved (marked
/// when outside), its bound when it was not.
pub(crate) fn host_cell(f: &HostFigure, unit: Unit) -> String {
    match bound_text(f.shown) {
        Some(bound) => bound,
        None if f.outside => format!("{OUTSIDE} {}", format_value(f.median, unit)),
        None => format_value(f.median, unit),
    }
}

/// The reasons the view shows bounds for, each once, in the printers' words.
fn bounds_shown(view: &FleetView) -> Vec<&'static str> {
    let mut reasons: Vec<&'static str> = Vec::new();
    let hosts = view.rows.iter().flat_map(|r| r.hosts.iter().flatten());
    for why in hosts.filter_map(|f| f.shown.why()) {
        if !reasons.contains(&why) {
            reasons.push(why);
        }
    }
    reasons
}

/// One line per host and id: campaign, host, group, run, id, unit, median (raw), how the
/// median is to be read (`resolved`: `measured`, `below_cycle`… as in a run's CSV) and its
/// bound, the host's noise, the fleet's median, spread and band (empty when fewer than two
/// hosts resolved the figure), and whether the host is outside.
pub fn csv(view: &FleetView) -> anyhow::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "campaign",
        "host",
        "group",
        "run",
        "id",
        "unit",
        "median",
        "resolved",
        "bound",
        "noise",
        "fleet_median",
        "fleet_spread",
        "band",
        "outside",
    ])?;
    for (row, unit) in view.rows.iter().zip(&view.units) {
        for (h, f) in view.hosts.iter().zip(&row.hosts) {
            let Some(f) = f else { continue };
            w.write_record([
                super::csv::text(&view.campaign),
                super::csv::text(&h.name),
                super::csv::text(h.group.as_deref().unwrap_or_default()),
                h.run_id.to_string(),
                super::csv::text(&row.id),
                unit.symbol().to_string(),
                f.median.to_string(),
                f.shown.kind().to_string(),
                opt(f.shown.bound_s()),
                f.noise.to_string(),
                opt(row.median),
                opt(row.spread),
                opt(row.band),
                f.outside.to_string(),
            ])?;
        }
    }
    Ok(w.into_inner()?)
}

/// The view as JSON (the model's serde form).
pub fn json(view: &FleetView) -> serde_json::Result<Vec<u8>> {
    let mut v = serde_json::to_vec_pretty(view)?;
    v.push(b'\n');
    Ok(v)
}

/// A number, or an empty cell.
fn opt(x: Option<f64>) -> String {
    x.map(|x| x.to_string()).unwrap_or_default()
}

fn percent(part: f64, whole: f64) -> f64 {
    if whole == 0.0 {
        0.0
    } else {
        100.0 * part / whole.abs()
    }
}

//! A run as CSV: one line per result, raw SI values (seconds per operation, bytes per
//! second), so a spreadsheet or a script can take it as it is. The raw median of a row
//! that was not resolved (under one cycle, under the clock's resolution, not positive)
//! stays, as the raw figures do, and `resolved` says it is not a measured figure.

use crate::model::resolution::shown_stored;
use crate::model::{Run, Status};

const HEADER: [&str; 22] = [
    "id",
    "family",
    "status",
    "unit",
    "better",
    "median",
    "ci_low",
    "ci_high",
    "mean",
    "sd",
    "min",
    "max",
    "samples",
    "culled",
    "user_s_per_op",
    "system_s_per_op",
    "note",
    "samples_with_steal",
    "steal_s",
    "cpu_hz_median",
    "resolved",
    "bound_s_per_op",
];

/// A text cell a spreadsheet will not run: one that begins with `=`, `+`, `-`, `@` (or a
/// tab or carriage return, which some programs skip before looking) gets a leading `'`,
/// the usual mark for "this is text". Numeric cells are written by `{:e}` and left alone.
pub fn text(cell: &str) -> String {
    if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{cell}")
    } else {
        cell.to_string()
    }
}

pub fn to_csv(run: &Run) -> anyhow::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(HEADER)?;
    let num = |v: Option<f64>| v.map(|v| format!("{v:e}")).unwrap_or_default();
    for r in &run.results {
        let s = r.summary.as_ref();
        let d = crate::model::disturb::Disturbances::of(r);
        let shown = shown_stored(r, run.environment.cpu.mhz);
        let (status, note) = match &r.status {
            Status::Ok => ("ok", r.notes.join("; ")),
            Status::Skipped { reason } => ("skipped", reason.clone()),
            Status::Failed { error } => ("failed", error.clone()),
        };
        w.write_record([
            text(&r.id),
            text(&r.family),
            status.to_string(),
            r.unit.symbol().to_string(),
            format!("{:?}", r.better).to_lowercase(),
            num(s.map(|s| s.median)),
            num(s.map(|s| s.ci_low)),
            num(s.map(|s| s.ci_high)),
            num(s.map(|s| s.mean)),
            num(s.map(|s| s.sd)),
            num(s.map(|s| s.min)),
            num(s.map(|s| s.max)),
            r.samples.len().to_string(),
            r.culled.to_string(),
            num(r.times.as_ref().map(|t| t.user_s)),
            num(r.times.as_ref().map(|t| t.system_s)),
            text(&note),
            d.map(|d| d.stolen_from.to_string()).unwrap_or_default(),
            num(d.filter(|d| d.with_steal_counted > 0).map(|d| d.steal_s)),
            num(d.and_then(|d| d.freq_hz)),
            shown.map(|s| s.kind()).unwrap_or_default().to_string(),
            num(shown.and_then(|s| s.bound_s())),
        ])?;
    }
    Ok(w.into_inner()?)
}

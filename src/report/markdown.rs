//! A run as a Markdown table (GitHub flavour), with the machine in a line above it. The
//! spread columns are the terminal table's ([`spread_cells`]): none for a derived row.

use super::table::{bound_text, spread_cells};
use crate::model::resolution::shown_stored;
use crate::model::unit::format_value;
use crate::model::{BenchResult, Run, Status};

/// The bound and why, when `r`'s median is not a figure it resolved.
fn not_resolved(run: &Run, r: &BenchResult) -> Option<(String, &'static str)> {
    let s = shown_stored(r, run.environment.cpu.mhz)?;
    Some((bound_text(s)?, s.why()?))
}

pub fn to_markdown(run: &Run) -> String {
    let env = &run.environment;
    let mut out = format!(
        "**timeshare {}** · {} mode · {} · {} × {} · kernel {} · {}\n\n",
        escape(&run.tool.version),
        format!("{:?}", run.options.mode).to_lowercase(),
        escape(&env.hostname),
        env.cpu.logical,
        escape(&env.cpu.model),
        escape(&env.kernel.release),
        run.started_at.format("%Y-%m-%d %H:%M UTC"),
    );
    out.push_str("| benchmark | median | 95% CI | SD | samples | notes |\n");
    out.push_str("|---|--:|--:|--:|--:|---|\n");
    for r in &run.results {
        let cells = match (&r.status, &r.summary) {
            (Status::Ok, Some(s)) if not_resolved(run, r).is_some() => {
                // As the terminal table: the bound and why, no spread of an unresolved figure.
                let (bound, why) = not_resolved(run, r).expect("checked by the guard");
                let [_, _, samples] = spread_cells(r, s);
                let notes = std::iter::once(why.to_string()).chain(r.notes.iter().cloned());
                [
                    bound,
                    String::new(),
                    String::new(),
                    samples,
                    notes.collect::<Vec<_>>().join("; "),
                ]
            }
            (Status::Ok, Some(s)) => {
                let [ci, sd, samples] = spread_cells(r, s);
                [
                    format_value(s.median, r.unit),
                    ci,
                    sd,
                    samples,
                    r.notes.join("; "),
                ]
            }
            (Status::Skipped { reason }, _) => empty(format!("skipped: {reason}")),
            (Status::Failed { error }, _) => empty(format!("FAILED: {error}")),
            (Status::Ok, None) => empty("no figure".into()),
        };
        let cells: Vec<String> = cells.iter().map(|c| escape(c)).collect();
        let id = if r.id.contains('`') {
            escape(&r.id)
        } else {
            format!("`{}`", r.id)
        };
        out.push_str(&format!("| {id} | {} |\n", cells.join(" | ")));
    }
    let measured = run
        .results
        .iter()
        .filter(|r| r.status.is_ok() && !r.derived)
        .filter_map(|r| r.summary.as_ref());
    if let Some(legend) = super::table::interval_legend(measured) {
        out.push_str(&format!("\n{legend}\n"));
    }

    out
}

fn empty(note: String) -> [String; 5] {
    [
        "—".into(),
        String::new(),
        String::new(),
        String::new(),
        note,
    ]
}

/// Text from the run (a note, an error, a host name: maybe from an imported file) as
/// Markdown that shows it and does nothing else: it cannot end the row early (`|`), break
/// the line, open a code span (`` ` ``) or become HTML (`<`, `>`, `&`); other control
/// characters are shown escaped.
pub(crate) fn escape(cell: &str) -> String {
    let mut out = String::with_capacity(cell.len());
    for c in cell.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '`' => out.push_str("\\`"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => out.push_str(&super::style::escape(&c.to_string())),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_hostile_cell_stays_one_cell_of_text() {
        assert_eq!(
            super::escape("a|b`c<img src=x>&\nd\x1b"),
            "a\\|b\\`c&lt;img src=x&gt;&amp; d\\x1b"
        );
    }
}

//! A run as a Markdown table (GitHub flavour), with the machine in a line above it. The
//! spread columns are the terminal table's ([`spread_cells`]): none for a derived row.

use super::table::spread_cells;
use crate::model::unit::format_value;
use crate::model::{Run, Status};

pub fn to_markdown(run: &Run) -> String {
    let env = &run.environment;
    let mut out = format!(
        "**timeshare {}** · {} mode · {} · {} × {} · kernel {} · {}\n\n",
        run.tool.version,
        format!("{:?}", run.options.mode).to_lowercase(),
        env.hostname,
        env.cpu.logical,
        env.cpu.model,
        env.kernel.release,
        run.started_at.format("%Y-%m-%d %H:%M UTC"),
    );
    out.push_str("| benchmark | median | 95% CI | SD | samples | notes |\n");
    out.push_str("|---|--:|--:|--:|--:|---|\n");
    for r in &run.results {
        let cells = match (&r.status, &r.summary) {
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
        out.push_str(&format!("| `{}` | {} |\n", r.id, cells.join(" | ")));
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

/// A cell must not end the row early or break the line.
fn escape(cell: &str) -> String {
    cell.replace('|', "\\|").replace('\n', " ")
}

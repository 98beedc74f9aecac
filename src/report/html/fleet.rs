//! The fleet view as a page: hosts × ids, each host's median, the fleet's median and
//! spread, and the hosts outside the fleet's band marked ◆ as in the terminal's table
//! (`timeshare fleet --format html`).

use maud::html;

use crate::model::fleet::FleetView;
use crate::model::unit::format_value;
use crate::report::fleet::{host_cell, legend, spread_text, NO_FLEET_FIGURE, OUTSIDE};

/// The page of one campaign's view.
pub fn page(view: &FleetView) -> String {
    let marked: usize = view.rows.iter().map(|r| r.outside().len()).sum();
    let body = html! {
        ul.columns {
            @for h in &view.hosts {
                li { (h.name) " = run " (h.run_id)
                    @if let Some(g) = &h.group { " (group " (g) ")" } }
            }
        }
        p { (marked) " figure" @if marked != 1 { "s" } " marked " span.outside { (OUTSIDE) }
            " outside the fleet." }
        table.data {
            thead { tr {
                th { "benchmark" }
                @for h in &view.hosts { th { (h.name) } }
                th { "fleet median" } th { "spread" } th { "outside" }
            } }
            tbody {
                @for (row, unit) in view.rows.iter().zip(&view.units) {
                    tr {
                        td { (row.id) }
                        @for h in &row.hosts {
                            @match h {
                                Some(f) if f.outside => td.n.outside { (host_cell(f, *unit)) },
                                Some(f) => td.n { (host_cell(f, *unit)) },
                                None => td.n { "—" },
                            }
                        }
                        @match (row.median, row.spread) {
                            (Some(m), Some(s)) => {
                                td.n { (format_value(m, *unit)) }
                                td.n { (spread_text(s, m)) }
                            }
                            _ => { td { (NO_FLEET_FIGURE) } td.n { "—" } }
                        }
                        td.outside {
                            (row.outside().iter().map(|&i| view.hosts[i].name.as_str())
                                .collect::<Vec<_>>().join(", "))
                        }
                    }
                }
            }
        }
        @for line in legend(view) { p.legend { (line) } }
    };
    super::page(
        &format!("timeshare fleet: campaign {}", view.campaign),
        body,
    )
}

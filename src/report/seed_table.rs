//! A run printed in the layout of one of the seeds' tables: the seed's rows in the seed's
//! order, today's figure beside the historical machines' columns, and today's speed-up
//! over the last of them. All figures per operation (the conversion of each historical
//! figure is in `timeshare reference MACHINE`): today's whole jobs are divided by the
//! operations their basis declares, and a row whose figures are of different operations
//! says "not comparable", with the reason under the table.

use crate::model::unit::format_value;
use crate::model::{BenchResult, Better, Measure, NotComparable, Run, Status, Unit};
use crate::reference::{self, Figure, Quantity};

use super::compare::figures3;
use super::table::{new_table, right};

/// A seed table timeshare can reproduce: its key on the command line, and which reference
/// figures are its rows and columns.
pub struct SeedTable {
    pub key: &'static str,
    pub seed: &'static str,
    /// The start of the figures' `place`: "Table 2," selects seed 001's Table 2.
    pub prefix: &'static str,
    pub title: &'static str,
    pub quantities: &'static [Quantity],
}

const H: &[Quantity] = &[Quantity::Headline];
const HUS: &[Quantity] = &[Quantity::Headline, Quantity::User, Quantity::System];

#[rustfmt::skip]
pub const TABLES: &[SeedTable] = &[
    SeedTable { key: "000-1", seed: "000", prefix: "Table 1,", title: "chess, 130 moves (real)", quantities: H },
    SeedTable { key: "000-3", seed: "000", prefix: "Table 3,", title: "compute-bound programs 1–4 in C (real)", quantities: H },
    SeedTable { key: "000-9", seed: "000", prefix: "Table 9,", title: "N copies of a compute-bound program (average real)", quantities: H },
    SeedTable { key: "000-10", seed: "000", prefix: "Table 10,", title: "N command scripts (real per script)", quantities: H },
    SeedTable { key: "001-2", seed: "001", prefix: "Table 2,", title: "Kernel Benchmark results (elapsed, user, system)", quantities: HUS },
    SeedTable { key: "001-7", seed: "001", prefix: "Table 7,", title: "Paging benchmark results (real, user, system)", quantities: HUS },
    SeedTable { key: "002-2", seed: "002", prefix: "Figure 2,", title: "Event (clock) call timing", quantities: H },
    SeedTable { key: "002-3", seed: "002", prefix: "Figure 3,", title: "Direct vs. indirect system call timing", quantities: H },
    SeedTable { key: "002-4", seed: "002", prefix: "Figure 4 ", title: "System call timing, no floating point (median)", quantities: H },
    SeedTable { key: "002-5", seed: "002", prefix: "Figure 5 ", title: "System call timing, floating point (median)", quantities: H },
    SeedTable { key: "002-6", seed: "002", prefix: "Figure 6,", title: "Subroutine call", quantities: H },
    SeedTable { key: "003-c16", seed: "003", prefix: "C statements (16 bits)", title: "C statements, 16-bit integers", quantities: H },
    SeedTable { key: "003-c32", seed: "003", prefix: "C statements (32 bits)", title: "C statements, 32-bit integers", quantities: H },
    SeedTable { key: "003-kashtan", seed: "003", prefix: "Kashtan", title: "Kashtan programs kt5–kt11 (real)", quantities: H },
    SeedTable { key: "003-zilog", seed: "003", prefix: "Zilog", title: "Zilog programs", quantities: H },
    SeedTable { key: "004-jobs", seed: "004", prefix: "§3", title: "each job type alone (real, user, sys)", quantities: HUS },
];

pub fn find(key: &str) -> Option<&'static SeedTable> {
    TABLES.iter().find(|t| t.key == key)
}

impl SeedTable {
    fn figures(&self) -> Vec<Figure> {
        reference::figures()
            .into_iter()
            .filter(|f| f.seed == self.seed && f.place.starts_with(self.prefix))
            .collect()
    }

    /// (label as printed, id) in the seed's order.
    fn rows(&self, figures: &[Figure]) -> Vec<(String, String)> {
        let mut rows: Vec<(String, String)> = Vec::new();
        for f in figures {
            if !rows.iter().any(|(_, id)| *id == f.id) {
                rows.push((row_label(f), f.id.clone()));
            }
        }
        rows
    }

    fn machines(&self, figures: &[Figure]) -> Vec<&'static str> {
        let mut ms: Vec<&'static str> = Vec::new();
        for f in figures {
            if !ms.contains(&f.machine) {
                ms.push(f.machine);
            }
        }
        ms
    }
}

/// A machine's name as a column header, as short as the seeds' own ("4.3bsd", "11/70").
fn short(machine: &str) -> String {
    if let Some(rest) = machine.strip_prefix("pdp") {
        return rest.replacen('-', "/", 1).replace('-', " ");
    }
    if let Some(rest) = machine.strip_prefix("vax750-") {
        return rest.to_string();
    }
    machine.to_string()
}

/// "Table 2, row syscall, Elapsed Time 4.3" → "syscall"; otherwise the place's second part.
fn row_label(f: &Figure) -> String {
    let mut parts = f.place.split(", ");
    let _table = parts.next();
    let second = parts.next().unwrap_or(&f.id);
    second.strip_prefix("row ").unwrap_or(second).to_string()
}

/// Today's figure of `quantity` for a result, in the result's basis (user and system
/// time are per operation of the same basis as the headline).
fn today(r: Option<&BenchResult>, quantity: Quantity) -> Option<Measure> {
    let r = r.filter(|r| r.status == Status::Ok)?;
    match quantity {
        Quantity::Headline => r.measure(),
        Quantity::User => r
            .times
            .as_ref()
            .and_then(|t| r.measure_of(t.user_s, Unit::SecondsPerOp)),
        Quantity::System => r
            .times
            .as_ref()
            .and_then(|t| r.measure_of(t.system_s, Unit::SecondsPerOp)),
        Quantity::FaultService => None,
    }
}

/// Today's figure per operation, or why there is none.
fn today_text(r: Option<&BenchResult>, quantity: Quantity) -> String {
    match (r, today(r, quantity)) {
        (_, Some(m)) => match m.per_op() {
            Ok(one) => format_value(one.value(), one.unit()),
            Err(_) => format_value(m.value(), m.unit()),
        },
        (None, _) => "not run".into(),
        (Some(r), None) => match &r.status {
            Status::Skipped { .. } => "skipped".into(),
            Status::Failed { .. } => "failed".into(),
            Status::Ok if r.basis.is_none() => "basis unknown".into(),
            Status::Ok => "—".into(),
        },
    }
}

/// The table for `run` (named `run_name` in the title).
pub fn render(table: &SeedTable, run: &Run, run_name: &str) -> String {
    let figures = table.figures();
    let machines = table.machines(&figures);
    let mut header = vec!["row".to_string(), "id".to_string()];
    for q in table.quantities {
        header.push(format!("today {}", q.name()));
        for m in &machines {
            header.push(short(m));
        }
    }
    let last = machines.last().copied().unwrap_or("");
    header.push(format!("today vs {}", short(last)));
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = new_table(&header_refs);
    let mut reasons: Vec<String> = Vec::new();
    for (label, id) in table.rows(&figures) {
        let result = run.results.iter().find(|r| r.id == id);
        let mut row = vec![label, id.clone()];
        for &q in table.quantities {
            row.push(today_text(result, q));
            for m in &machines {
                let f = figures
                    .iter()
                    .find(|f| f.machine == *m && f.id == id && f.quantity == q);
                row.push(f.map(|f| format_value(f.value, f.unit)).unwrap_or_default());
            }
        }
        let then = figures
            .iter()
            .find(|f| f.machine == last && f.id == id && f.quantity == Quantity::Headline);
        row.push(match (today(result, Quantity::Headline), then) {
            (Some(now), Some(f)) => match f.measure().divided_by(&now) {
                Ok(then_over_now) => {
                    let better = result.map(|r| r.better).unwrap_or(Better::Lower);
                    let factor = match better {
                        Better::Lower => then_over_now,
                        Better::Higher => 1.0 / then_over_now,
                    };
                    format!("{}×", figures3(factor))
                }
                Err(why) => {
                    let why = match why {
                        NotComparable::Ops { first, second } => {
                            format!("today per {second}, {} per {first}", short(last))
                        }
                        other => other.to_string(),
                    };
                    reasons.push(format!("{id}: {why}"));
                    "not comparable".into()
                }
            },
            _ => String::new(),
        });
        t.add_row(row);
    }
    let cols: Vec<usize> = (2..header.len()).collect();
    right(&mut t, &cols);
    let mut out = format!(
        "seed {} {}: {}, per operation — today = {run_name} ({}, {}); columns: {}\n{t}\n\
         historical figures are the seed's, converted to one operation \
         (`timeshare reference MACHINE` shows each conversion), and today's whole jobs are \
         divided by the operations they hold; the last column is how many times faster \
         today is than {last}.\n",
        table.seed,
        table.prefix.trim_end_matches([',', ' ']),
        table.title,
        super::style::escape(&run.environment.hostname),
        run.started_at.format("%Y-%m-%d %H:%M UTC"),
        machines.join(", "),
    );
    for r in reasons {
        out.push_str(&format!("not comparable: {r}\n"));
    }
    out
}

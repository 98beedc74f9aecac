//! Seed 000's Attachment C as `timeshare table 000-C` prints it: for 1, 5 and 9 scripts,
//! each command of the script with the paper's share of the commands, average real and
//! CPU time per command and real/CPU on the 11/45 and the 11/70 (with 5 scripts, in two
//! configurations: C7 and C8, each a column with its ratio), beside today's
//! `load.script.N` accounting of the same statistic, per command too. Commands are
//! matched by name; a ratio is given only for a command both have, of the same statistic and
//! basis (checked by [`Measure::divided_by`]), and never for the lines whose meaning
//! differs (sh and the Total, and the shares and real/CPU, which are not speeds: their
//! figures' [`Comparability`] withholds the ratio).

use std::collections::BTreeSet;

use crate::model::details::load::{CommandAccount, Scripts};
use crate::model::unit::format_value;
use crate::model::{BenchResult, Measure, NotComparable, Status, Unit};
use crate::reference::{
    self, scripts_name, CommandLine, CommandTable, Comparability, Figure, Quantity,
    ACCOUNTED_REAL_RESOLUTION_S,
};

use super::compare::figures3;
use super::seed_table::{column_kind, describe, note_reason, pick, SeedTable, Source};
use super::table::{new_table, right};

/// The statistics of a command's line, one text line each; the Total has no share.
const LINE_STATS: &[Quantity] = &[
    Quantity::CommandCount,
    Quantity::CommandShare,
    Quantity::CommandReal,
    Quantity::CommandRealShare,
    Quantity::CommandCpu,
    Quantity::CommandCpuShare,
    Quantity::CommandRealPerCpu,
];
const TOTAL_STATS: &[Quantity] = &[
    Quantity::CommandCount,
    Quantity::CommandReal,
    Quantity::CommandCpu,
    Quantity::CommandRealPerCpu,
];

/// The label of the Total line, in the paper and here.
const TOTAL: &str = "Total";

/// Today's accounting of one `load.script.N` row, or why there is none.
enum Today<'a> {
    Measured {
        result: &'a BenchResult,
        scripts: Box<Scripts>,
        source: usize,
    },
    Missing(&'static str),
}

impl<'a> Today<'a> {
    fn of(sources: &'a [Source<'a>], id: &str) -> Today<'a> {
        let Some((source, result)) = pick(sources, id) else {
            return Today::Missing("not run");
        };
        match (&result.status, result.details_as::<Scripts>()) {
            (Status::Ok, Some(scripts)) => Today::Measured {
                result,
                scripts: Box::new(scripts),
                source,
            },
            (Status::Ok, None) => Today::Missing("no accounting"),
            (Status::Skipped { .. }, _) => Today::Missing("skipped"),
            (Status::Failed { .. }, _) => Today::Missing("failed"),
        }
    }

    fn account(&self, command: &str) -> Option<&CommandAccount> {
        match self {
            Today::Measured { scripts, .. } => scripts
                .commands
                .iter()
                .find(|a| a.command == command && a.count > 0),
            Today::Missing(_) => None,
        }
    }
}

/// Today's figure of `quantity` for one command's line (or the Total, `command` None),
/// with the unit and basis the layout declares for the column ([`column_kind`]).
fn today_measure(today: &Today, command: Option<&str>, quantity: Quantity) -> Option<Measure> {
    let Today::Measured {
        result, scripts, ..
    } = today
    else {
        return None;
    };
    let value = match command {
        Some(command) => {
            let a = today.account(command)?;
            match quantity {
                Quantity::CommandCount => a.count as f64,
                Quantity::CommandShare => a.count_pct / 100.0,
                Quantity::CommandReal => a.avg_real_s,
                Quantity::CommandRealShare => a.real_pct / 100.0,
                Quantity::CommandCpuShare => a.cpu_pct / 100.0,
                Quantity::CommandCpu => a.avg_cpu_s,
                Quantity::CommandRealPerCpu => a.real_per_cpu?,
                _ => return None,
            }
        }
        None => total_of(&scripts.commands, quantity)?,
    };
    // A CPU time the kernel did not resolve (no tick or µs charged) is no figure.
    if value <= 0.0 {
        return None;
    }
    let basis = result.basis.as_ref()?;
    let (unit, basis) = column_kind(quantity, result.unit, basis);
    Some(Measure::new(value, unit, basis))
}

/// The Total line's figure, as the paper's: averages over every command, sh included.
fn total_of(commands: &[CommandAccount], quantity: Quantity) -> Option<f64> {
    let n: usize = commands.iter().map(|a| a.count).sum();
    if n == 0 {
        return None;
    }
    let sum = |avg: fn(&CommandAccount) -> f64| {
        commands
            .iter()
            .map(|a| a.count as f64 * avg(a))
            .sum::<f64>()
            / n as f64
    };
    let (real, cpu) = (sum(|a| a.avg_real_s), sum(|a| a.avg_cpu_s));
    match quantity {
        Quantity::CommandCount => Some(n as f64),
        Quantity::CommandReal => Some(real),
        Quantity::CommandCpu => Some(cpu),
        Quantity::CommandRealPerCpu => (cpu > 0.0).then(|| real / cpu),
        _ => None,
    }
}

/// A figure of the column `quantity` as a cell.
fn cell(quantity: Quantity, value: f64) -> String {
    match quantity {
        Quantity::CommandShare | Quantity::CommandRealShare | Quantity::CommandCpuShare => {
            format!("{:.2}%", value * 100.0)
        }
        Quantity::CommandRealPerCpu => figures3(value),
        Quantity::CommandCount => format!("{value:.0}"),
        _ => format_value(value, Unit::SecondsPerOp),
    }
}

/// The paper's cell as it prints it (two decimals, real/CPU one); a real time of 0.00 s
/// is under the accounting's second: its bound, and no real/CPU; a real/CPU of 0.0 is
/// under its decimal: its bound.
fn paper_cell(line: &CommandLine, quantity: Quantity) -> String {
    let unresolved = line.avg_real_s <= 0.0;
    match quantity {
        Quantity::CommandCount => line.count.to_string(),
        Quantity::CommandShare => line
            .count_pct
            .map_or_else(String::new, |p| format!("{p:.2}%")),
        Quantity::CommandReal if unresolved => {
            format!("< {ACCOUNTED_REAL_RESOLUTION_S} s")
        }
        Quantity::CommandReal => format!("{:.2} s", line.avg_real_s),
        Quantity::CommandRealShare => line
            .real_pct
            .map_or_else(String::new, |p| format!("{p:.2}%")),
        Quantity::CommandCpuShare => line
            .cpu_pct
            .map_or_else(String::new, |p| format!("{p:.2}%")),
        Quantity::CommandCpu => format!("{:.2} s", line.avg_cpu_s),
        // Printed 0.0: under the column's one decimal (colv's, with a real time of 0.00 s
        // or not).
        Quantity::CommandRealPerCpu if line.real_per_cpu <= 0.0 => "< 0.05".into(),
        Quantity::CommandRealPerCpu if unresolved => "—".into(),
        Quantity::CommandRealPerCpu => format!("{:.1}", line.real_per_cpu),
        _ => String::new(),
    }
}

/// The paper's figure of `command`'s line (or the Total) in the table `t` (its machine
/// and configuration: the 11/70's C7 and C8 have one number of scripts in common).
fn paper_figure<'f>(
    figures: &'f [Figure],
    t: &CommandTable,
    id: &str,
    command: &str,
    quantity: Quantity,
) -> Option<&'f Figure> {
    let row = format!("row {command},");
    figures.iter().find(|f| {
        f.machine == t.machine
            && f.config() == Some(t.config)
            && f.id == id
            && f.quantity == quantity
            && f.place.contains(&row)
    })
}

/// The commands of one number of scripts: the paper's lines in the first table's order
/// (then any another table adds), then today's lines that none of them has.
fn commands_of(tables: &[&CommandTable], today: &Today) -> (Vec<String>, Vec<String>) {
    let mut paper: Vec<String> = Vec::new();
    for t in tables {
        for l in &t.lines {
            if !paper.iter().any(|c| c == l.command) {
                paper.push(l.command.to_string());
            }
        }
    }
    let today_only: Vec<String> = match today {
        Today::Measured { scripts, .. } => scripts
            .commands
            .iter()
            .filter(|a| a.count > 0 && !paper.contains(&a.command))
            .map(|a| a.command.clone())
            .collect(),
        Today::Missing(_) => Vec::new(),
    };
    (paper, today_only)
}

/// "104 a script (312 in 3 runs)": commands accounted per script, and all of them.
fn per_script(count: usize, runs: usize, scripts: usize) -> String {
    let each = count as f64 / (runs * scripts).max(1) as f64;
    format!(
        "{} a script ({count} in {runs} run{})",
        figures3(each),
        if runs == 1 { "" } else { "s" }
    )
}

/// The line over one number of scripts' table: what each column summed.
fn block_heading(n: usize, id: &str, today: &Today, tables: &[&CommandTable]) -> String {
    let mut parts = vec![match today {
        Today::Measured { scripts, .. } => {
            let count: usize = scripts.commands.iter().map(|a| a.count).sum();
            format!("today {}", per_script(count, scripts.runs, scripts.users))
        }
        Today::Missing(why) => format!("today {why}"),
    }];
    for t in tables {
        let mut part = format!(
            "{} {} {}",
            short(t.machine),
            t.config,
            per_script(t.total.count as usize, t.runs, t.scripts)
        );
        if t.unlisted > 0 {
            part.push_str(&format!(", {} of them on no printed line", t.unlisted));
        }
        parts.push(part);
    }
    format!(
        "{} ({id}): commands accounted: {}\n",
        scripts_name(n),
        parts.join("; ")
    )
}

/// One number of scripts: its heading and table. Adds to `reasons` any division refused,
/// to `paper_only` and `today_only` the commands with no line on the other side.
#[allow(clippy::too_many_arguments)]
fn block(
    n: usize,
    tables: &[&CommandTable],
    figures: &[Figure],
    sources: &[Source],
    several: bool,
    reasons: &mut Vec<String>,
    paper_only: &mut BTreeSet<String>,
    today_only: &mut BTreeSet<String>,
) -> String {
    let id = crate::reference::layouts::seed000::scripts_row(n);
    let today = Today::of(sources, &id);
    let against = against(tables);
    let mut header = vec!["command".to_string(), "stat".to_string()];
    header.push(match (&today, several) {
        (Today::Measured { source, .. }, true) => format!("today\n{}", sources[*source].name),
        _ => "today".to_string(),
    });
    header.extend(
        tables
            .iter()
            .map(|t| format!("{}\n{}", short(t.machine), t.config)),
    );
    header.extend(against.iter().map(|t| match against.len() {
        1 => format!("today vs\n{}", short(t.machine)),
        _ => format!("today vs\n{} {}", short(t.machine), t.config),
    }));
    let refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = new_table(&refs);
    let (paper, extra) = commands_of(tables, &today);
    let measured = matches!(today, Today::Measured { .. });
    for command in paper.iter().chain(&extra) {
        let in_paper = paper.contains(command);
        if measured && in_paper && today.account(command).is_none() {
            paper_only.insert(command.clone());
        }
        if !in_paper {
            today_only.insert(command.clone());
        }
        t.add_row(row(
            command, LINE_STATS, &today, tables, figures, &id, &against, reasons,
        ));
    }
    t.add_row(row(
        TOTAL,
        TOTAL_STATS,
        &today,
        tables,
        figures,
        &id,
        &against,
        reasons,
    ));
    let cols: Vec<usize> = (2..header.len()).collect();
    right(&mut t, &cols);
    format!("{}{t}\n", block_heading(n, &id, &today, tables))
}

/// One command's (or the Total's) cells: one text line per statistic.
#[allow(clippy::too_many_arguments)]
fn row(
    command: &str,
    stats: &[Quantity],
    today: &Today,
    tables: &[&CommandTable],
    figures: &[Figure],
    id: &str,
    against: &[&CommandTable],
    reasons: &mut Vec<String>,
) -> Vec<String> {
    let is_total = command == TOTAL;
    let key = (!is_total).then_some(command);
    let names: Vec<&str> = stats.iter().map(|q| q.name()).collect();
    let today_cells: Vec<String> = stats
        .iter()
        .map(|&q| match (today, today_measure(today, key, q)) {
            (_, Some(m)) => cell(q, m.value()),
            (Today::Missing(why), None) => why.to_string(),
            (Today::Measured { .. }, None) if !is_total && today.account(command).is_none() => {
                "no line".to_string()
            }
            (Today::Measured { .. }, None) => "—".to_string(),
        })
        .collect();
    let mut cells = vec![
        command.to_string(),
        names.join("\n"),
        today_cells.join("\n"),
    ];
    for t in tables {
        let line = if is_total {
            Some(&t.total)
        } else {
            t.lines.iter().find(|l| l.command == command)
        };
        cells.push(match line {
            Some(line) => stats
                .iter()
                .map(|&q| paper_cell(line, q))
                .collect::<Vec<_>>()
                .join("\n"),
            None => "no line".to_string(),
        });
    }
    for t in against {
        let ratios: Vec<String> = stats
            .iter()
            .map(|&q| ratio_cell(command, q, today, figures, id, t, reasons))
            .collect();
        cells.push(ratios.join("\n"));
    }
    cells
}

/// The tables today is set against: the last machine's, one for each configuration
/// (the 11/70's C7, and C8 with 5 scripts).
fn against<'t>(tables: &[&'t CommandTable]) -> Vec<&'t CommandTable> {
    let last = tables.last().map(|t| t.machine);
    tables
        .iter()
        .copied()
        .filter(|t| Some(t.machine) == last)
        .collect()
}

/// How many times faster today is than the table `last`, for the same command and
/// statistic: the times only, never for sh or the Total, as the paper's figure's
/// comparability lets it ([`Comparability`]).
fn ratio_cell(
    command: &str,
    quantity: Quantity,
    today: &Today,
    figures: &[Figure],
    id: &str,
    last: &CommandTable,
    reasons: &mut Vec<String>,
) -> String {
    let (Some(then), Some(now)) = (
        paper_figure(figures, last, id, command, quantity),
        today_measure(today, Some(command), quantity),
    ) else {
        return String::new();
    };
    // sh, the Total, a share or a real/CPU: the table's why lines say why no ratio.
    if let Comparability::Not(_) = then.comparability {
        return String::new();
    }
    match then.measure().divided_by(&now) {
        Ok(factor) => {
            if let Some(why) = then.comparability.reason() {
                note_reason(reasons, Comparability::MARK, id, why);
            }
            let text = format!("{}×", figures3(factor));
            then.comparability.shown(&text).unwrap_or_default()
        }
        Err(why) => {
            let why = match why {
                NotComparable::Ops { first, second } => {
                    format!(
                        "today per {second}, {} {} per {first}",
                        short(last.machine),
                        last.config
                    )
                }
                other => other.to_string(),
            };
            reasons.push(format!(
                "not comparable: {id} {command} ({}): {why}",
                quantity.name()
            ));
            "not comparable".into()
        }
    }
}

/// "pdp11-70" → "11/70", as the paper's tables name the machines.
fn short(machine: &str) -> String {
    machine
        .strip_prefix("pdp")
        .map_or_else(|| machine.to_string(), |m| m.replacen('-', "/", 1))
}

/// `timeshare table 000-C`: one table per number of scripts the paper ran (1, 5, 9), each
/// row's today from the newest of `sources` that has its `load.script.N` (newest first).
pub fn render_from(table: &SeedTable, sources: &[Source]) -> String {
    let paper = reference::attachment_c();
    let figures = table.figures();
    let mut counts: Vec<usize> = paper.iter().map(|t| t.scripts).collect();
    counts.sort_unstable();
    counts.dedup();
    let machines: Vec<String> = paper.iter().fold(Vec::new(), |mut ms, t| {
        let name = format!("{} ({})", t.machine, t.config);
        if !ms.contains(&name) {
            ms.push(name);
        }
        ms
    });
    let several = sources.len() > 1;
    let today_is = match (several, sources.first()) {
        (false, Some(s)) => describe(s),
        (true, _) => {
            let mut used: Vec<usize> = Vec::new();
            for n in &counts {
                if let Some((k, _)) =
                    pick(sources, &crate::reference::layouts::seed000::scripts_row(n))
                {
                    if !used.contains(&k) {
                        used.push(k);
                    }
                }
            }
            let runs: Vec<String> = used.iter().map(|&k| describe(&sources[k])).collect();
            format!(
                "the newest run that has each number of scripts (named over its column): {}",
                runs.join("; ")
            )
        }
        (false, None) => "no run".to_string(),
    };
    let mut out = format!(
        "seed {} {}: {}, per command — today = {today_is}; columns: {}\n",
        table.seed,
        table.name(),
        table.title,
        machines.join(", ")
    );
    let mut reasons = Vec::new();
    let (mut paper_only, mut today_only) = (BTreeSet::new(), BTreeSet::new());
    for n in counts {
        let tables: Vec<&CommandTable> = paper.iter().filter(|t| t.scripts == n).collect();
        out.push_str(&block(
            n,
            &tables,
            &figures,
            sources,
            several,
            &mut reasons,
            &mut paper_only,
            &mut today_only,
        ));
    }
    let last = paper.last().map_or("", |t| t.machine);
    let mut configs: Vec<&str> = Vec::new();
    for t in paper.iter().filter(|t| t.machine == last) {
        if !configs.contains(&t.config) {
            configs.push(t.config);
        }
    }
    let each = match configs.as_slice() {
        [_] => String::new(),
        several => format!(
            "; where a table has {last} in {} configurations ({}), one such column for each",
            several.len(),
            several.join(", ")
        ),
    };
    out.push_str(&format!(
        "each figure is per command, averaged over every time it ran in every run and script, \
         the paper's summed over its runs as today's over the row's samples; No. Cmds is how \
         many times the command ran in all of them (the paper's 2 or 3 runs, today's samples: \
         the counts above each table), so it has no ratio; count % is of all the commands \
         accounted, real % and CPU % of all their real and CPU time. The last \
         column is how many times faster today is than {last} (avg real, avg CPU), for a \
         command both have{each}, marked ≈: each command did its own day's work.\n"
    ));
    if !paper_only.is_empty() {
        out.push_str(&format!(
            "no line today: {}\n",
            paper_only.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    if !today_only.is_empty() {
        out.push_str(&format!(
            "no line in the paper: {}\n",
            today_only.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    for w in table.why {
        out.push_str(&format!("why: {w}\n"));
    }
    for r in reasons {
        out.push_str(&format!("{r}\n"));
    }
    out
}

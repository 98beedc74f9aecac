//! The table itself: the rows, the historical columns, today's speed-up over each, and
//! the lines under the table (reasons, failure points, the paper's own lines).

use super::*;

/// A run today's figures may come from, and the name the table gives it ("run 12").
pub struct Source<'a> {
    pub name: String,
    pub run: &'a Run,
}

/// The result of `id` in the first of `sources` (newest first) that measured it, else the
/// first that has it at all (skipped, failed), with the index of its source.
pub(in crate::report) fn pick<'a>(
    sources: &'a [Source<'a>],
    id: &str,
) -> Option<(usize, &'a BenchResult)> {
    let find = |ok: bool| {
        sources.iter().enumerate().find_map(|(k, s)| {
            s.run
                .results
                .iter()
                .find(|r| r.id == id && (!ok || r.status == Status::Ok))
                .map(|r| (k, r))
        })
    };
    find(true).or_else(|| find(false))
}

/// The table for one run (named `run_name` in the title). `wide` shows every column of
/// the paper ([`SeedTable::shown`]).
pub fn render(table: &SeedTable, run: &Run, run_name: &str, wide: bool) -> String {
    render_from(
        table,
        &[Source {
            name: run_name.to_string(),
            run,
        }],
        wide,
    )
}

/// A column's header: its short name, broken at its first space onto a second line
/// ("11/45" over "fpp", "11/70" over "C8"), so that the header is no wider than the
/// figures under it.
pub(super) fn header_of(column: &MachineColumn) -> String {
    let name = column.short();
    if name.contains(' ') {
        name.replacen(' ', "\n", 1)
    } else {
        name.replacen('-', "\n", 1)
    }
}

/// The narrowest the row label column is squeezed to: "FOR loop" still reads.
pub(super) const LEAST_LABEL: usize = 8;

/// The width every table prints within by default (`--wide` may exceed it).
pub const DEFAULT_WIDTH: usize = 100;

/// The table with today's figure of each row from the newest of `sources` that has it
/// (newest first); a column says which run each row came from when there is more than one.
///
/// One column per machine: where a table has several statistics (seed 002's median, mean
/// and SD; seed 000's real and CPU; seed 001's elapsed, user and system with `wide`), a
/// row's cell holds one line per statistic, named in the `stat` column, so the table's
/// width does not grow with the number of statistics.
pub fn render_from(table: &SeedTable, sources: &[Source], wide: bool) -> String {
    if table.key == "000-B" {
        return crate::report::seed_configs::render_from(sources);
    }
    if table.quantities == crate::reference::layouts::COMMANDS {
        return crate::report::seed_commands::render_from(table, sources);
    }
    if let Some(prefix) = table.curve {
        return crate::report::seed_curve::render(table, prefix, sources.first());
    }
    let figures = table.figures();
    let columns = table.columns(&figures);
    let several = sources.len() > 1;
    let shown = table.shown(wide);
    let stacked = shown.len() > 1;
    let names: Vec<&str> = shown.iter().map(|&q| column_name(table, q)).collect();
    let mut header = vec!["row".to_string(), "id".to_string()];
    if several {
        header.push("run".to_string());
    }
    if stacked && times_of_two_statistics(table, &shown) {
        header.push("stat".to_string());
        // Width-neutral: the statistics in the header, a word a line.
        header.push("today\nelapsed:\nmedian;\ncpu:\nmean".to_string());
    } else if stacked {
        header.push("stat".to_string());
        header.push("today".to_string());
    } else {
        // "median (batches)" is "median" in the header, no wider than the figures under
        // it: the sentence under the table names it whole.
        let short = names[0].split(" (").next().unwrap_or(names[0]);
        header.push(format!("today\n{short}"));
    }
    for c in &columns {
        header.push(header_of(c));
    }
    let ratio = table.quantities[0];
    // Today against the last machine, in each of its configurations the table has.
    let last = columns.last().map(|c| c.machine);
    let against: Vec<&MachineColumn> = columns.iter().filter(|c| Some(c.machine) == last).collect();
    for c in &against {
        header.push(format!("today vs\n{}", c.short()));
    }
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = new_table(&header_refs);
    let mut reasons: Vec<String> = Vec::new();
    let mut used: Vec<usize> = Vec::new();
    let mut results: Vec<&BenchResult> = Vec::new();
    let mut label_width = "row".len();
    for (label, id) in table.rows(&figures) {
        let picked = pick(sources, &id);
        let result = picked.map(|(_, r)| r);
        let mhz = picked.and_then(|(i, _)| sources[i].run.environment.cpu.mhz);
        if let Some((_, why)) = result.and_then(|r| not_resolved(r, mhz)) {
            reasons.push(format!("not comparable: {id}: {why}"));
        }
        results.extend(result);
        label_width = label_width.max(label.chars().count());
        let mut row = vec![label, id.clone()];
        if several {
            row.push(match picked {
                Some((k, _)) => {
                    if !used.contains(&k) {
                        used.push(k);
                    }
                    sources[k].name.clone()
                }
                None => String::new(),
            });
        } else if picked.is_some() && used.is_empty() {
            used.push(0);
        }
        if stacked {
            row.push(names.join("\n"));
        }
        let then_of = |c: &MachineColumn, q: Quantity| {
            figures
                .iter()
                .find(|f| c.holds(f) && f.id == id && f.quantity == q)
        };
        let then_text =
            |c: &MachineColumn, q: Quantity| then_of(c, q).map(|f| figure_text(q, f.value, f.unit));
        let today_cells: Vec<String> = shown.iter().map(|&q| today_text(result, q, mhz)).collect();
        row.push(today_cells.join("\n"));
        for c in &columns {
            let cells: Vec<Option<String>> = shown.iter().map(|&q| then_text(c, q)).collect();
            row.push(if cells.iter().all(Option::is_none) {
                reference::printed_words(table.name(), c.machine, &id)
                    .map(two_lines)
                    .unwrap_or_default()
            } else {
                cells
                    .into_iter()
                    .map(|c| c.unwrap_or_else(|| "—".into()))
                    .collect::<Vec<_>>()
                    .join("\n")
            });
        }
        if columns.is_empty() {
            t.add_row(row);
            continue;
        }
        for c in &against {
            row.push(match (today(result, ratio, mhz), then_of(c, ratio)) {
                (Some(now), Some(f)) => match f.measure().divided_by(&now) {
                    Ok(then_over_now) => {
                        let better = result.map(|r| r.better).unwrap_or(Better::Lower);
                        let factor = match better {
                            Better::Lower => then_over_now,
                            Better::Higher => 1.0 / then_over_now,
                        };
                        speed_up_cell(&id, f, factor, &mut reasons)
                    }
                    Err(why) => {
                        let why = match why {
                            NotComparable::Ops { first, second } => {
                                format!("today per {second}, {} per {first}", c.short())
                            }
                            other => other.to_string(),
                        };
                        reasons.push(format!("not comparable: {id}: {why}"));
                        "not\ncomparable".into()
                    }
                },
                _ => String::new(),
            });
        }
        t.add_row(row);
    }
    let first_col = if several { 3 } else { 2 } + usize::from(stacked);
    let cols: Vec<usize> = (first_col..header.len()).collect();
    right(&mut t, &cols);
    // The id is what a reader searches for: it never wraps; the seed's row label may.
    crate::report::table::no_wrap(&mut t, &[1]);
    if stacked {
        crate::report::table::no_wrap(&mut t, &[first_col - 1]);
    }
    // The seed's row label wraps into what the figures leave of the width, down to a
    // word or two a line rather than past the width.
    if let Some(label) = t.column_mut(0) {
        label.remove_constraint();
    }
    let widest = t.to_string().lines().map(|l| l.chars().count()).max();
    let limit = usize::from(t.width().unwrap_or(u16::MAX));
    if let Some(excess) = widest.and_then(|w| w.checked_sub(limit)).filter(|&e| e > 0) {
        let label_now = label_width.min(usize::from(MIN_TEXT_COLUMN));
        let least = label_now.saturating_sub(excess).max(LEAST_LABEL);
        if label_now.saturating_sub(excess) < LEAST_LABEL {
            // Too wide even with the label squeezed (002 Figure 3's five machines by three
            // statistics, with --wide): the label stays whole and the table is printed in
            // parts, each with the row, its id and the statistic's name.
            if let Some(label) = t.column_mut(0) {
                label.set_constraint(ColumnConstraint::ContentWidth);
            }
            crate::report::table::repeat_columns(&mut t, first_col);
        } else if least < label_now {
            if let Some(label) = t.column_mut(0) {
                // The constraint's width includes the cell's padding, a space each side.
                let least = Width::Fixed(least as u16 + 2);
                label.set_constraint(ColumnConstraint::UpperBoundary(least));
            }
        }
    }
    let today_is = match (several, sources.first()) {
        (false, Some(s)) => describe(s),
        (true, _) => format!(
            "the newest run that has each row (column run): {}",
            used.iter()
                .map(|&k| describe(&sources[k]))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        (false, None) => "no run".to_string(),
    };
    let mut out = format!(
        "seed {} {}: {}, per operation — today = {today_is}",
        table.seed,
        table.name(),
        table.title,
    );
    if columns.is_empty() {
        out.push_str(&format!("; {}\n{t}\n", without_columns(table)));
    } else {
        let names: Vec<String> = columns.iter().map(MachineColumn::name).collect();
        out.push_str(&format!(
            "; columns: {}\n{t}\nhistorical figures are the seed's, converted to one operation \
             (`timeshare reference MACHINE` shows each conversion), and today's whole jobs are \
             divided by the operations they hold; {}.\n",
            names.join(", "),
            ratio_columns_are(
                &against,
                column_name(table, ratio),
                figures
                    .iter()
                    .any(|f| f.quantity == ratio && f.comparability != Comparability::Same)
            ),
        ));
    }
    let hidden: Vec<&str> = table
        .quantities
        .iter()
        .filter(|q| !shown.contains(q))
        .map(|&q| column_name(table, q))
        .collect();
    if !hidden.is_empty() {
        out.push_str(&format!(
            "the paper's {} columns: `timeshare table {} --wide`\n",
            hidden.join(" and "),
            table.key
        ));
    }
    if times_of_two_statistics(table, &shown) {
        out.push_str(TWO_STATISTICS);
    }
    if shown
        .iter()
        .any(|q| matches!(q, Quantity::Faults | Quantity::FaultService))
    {
        out.extend(paging_line(&results));
    }
    out.extend(cache_hit_line(&results));
    out.extend(failure_points(&results));
    for line in (table.paper)(table.key) {
        out.push_str(&format!("paper: {line}\n"));
    }
    for n in table.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    for w in table.why {
        out.push_str(&format!("why: {w}\n"));
    }
    for r in reasons {
        out.push_str(&format!("{r}\n"));
    }
    out
}

/// What a heading says of a table with no historical column: the paper's figures are
/// in its `paper:` lines where it has them, else it has none.
pub(in crate::report) fn without_columns(table: &SeedTable) -> &'static str {
    if (table.paper)(table.key).is_empty() {
        "no historical figures"
    } else {
        "the paper's figures in the lines under the table, not in a column"
    }
}

/// Today's speed-up over the figure `f` as its [`Comparability`] lets it be printed: as
/// it is, marked "≈" or withheld, with the reason under the table (once per row).
pub(super) fn speed_up_cell(
    id: &str,
    f: &Figure,
    factor: f64,
    reasons: &mut Vec<String>,
) -> String {
    let c = f.comparability;
    if let Some(why) = c.reason() {
        let kind = match c {
            Comparability::Not(_) => "not comparable:",
            _ => Comparability::MARK,
        };
        note_reason(reasons, kind, id, why);
    }
    c.shown(&format!("{}×", figures3(factor)))
        .unwrap_or_else(|| "—".to_string())
}

/// Adds `id` to the line under a table that gives `why` ("≈ load.script.1,
/// load.script.5: why"), or a new line: a reason shared by many rows is said once.
pub(in crate::report) fn note_reason(reasons: &mut Vec<String>, kind: &str, id: &str, why: &str) {
    let tail = format!(": {why}");
    let start = format!("{kind} ");
    match reasons
        .iter_mut()
        .find(|l| l.starts_with(&start) && l.ends_with(&tail))
    {
        Some(line) => {
            let ids = &line[start.len()..line.len() - tail.len()];
            if !ids.split(", ").any(|i| i == id) {
                *line = format!("{start}{ids}, {id}{tail}");
            }
        }
        None => reasons.push(format!("{start}{id}{tail}")),
    }
}

/// Words a table prints in place of a figure, on two lines of about equal length, so
/// that they widen their column little ("Ran Out Of" over "Swap Space").
pub(super) fn two_lines(words: &str) -> String {
    let half = words.len() / 2;
    let at = words
        .match_indices(' ')
        .map(|(i, _)| i)
        .min_by_key(|&i| i.abs_diff(half));
    match at {
        Some(i) => format!("{}\n{}", &words[..i], &words[i + 1..]),
        None => words.to_string(),
    }
}

/// What the ratio columns are: "the last column is how many times faster today is than
/// pdp11-70 (elapsed)", or the same of each configuration's column.
/// `marked`: some figure of the table is not of today's operation, and the sentence says
/// how its ratio is printed.
pub(super) fn ratio_columns_are(
    against: &[&MachineColumn],
    statistic: &str,
    marked: bool,
) -> String {
    let name = ratio_columns_name(against, statistic);
    if !marked {
        return name;
    }
    format!(
        "{name}, marked {} where today's row does the same kind of work with another program, \
         and \"—\" where the work differs (the reasons below)",
        Comparability::MARK
    )
}

pub(super) fn ratio_columns_name(against: &[&MachineColumn], statistic: &str) -> String {
    match against {
        [one] => format!(
            "the last column is how many times faster today is than {} ({statistic})",
            one.name()
        ),
        several => {
            let names: Vec<String> = several.iter().map(|c| c.name()).collect();
            format!(
                "the last columns are how many times faster today is than {}, one column each \
                 ({statistic})",
                names.join(" and ")
            )
        }
    }
}

/// Which of today's paging rows really paged, and how they ran (001 Tables 7 and 8: the
/// paper paged 7,500 1 KB pages on a 4.5 MB machine): under a memory limit or not, and
/// whether any fault was served from the disk (a major fault) rather than from memory.
/// Seed 000 Table 4's cache hit rate today, from `cpu.cache`'s counted pass (`--counters`):
/// 1 − cache-misses / cache-references, or why there is none.
pub(super) fn cache_hit_line(results: &[&BenchResult]) -> Option<String> {
    let r = crate::report::views::cache::among(results)?;
    let Some(counters) = r.observe.as_ref().and_then(|o| o.counters.as_ref()) else {
        return Some(
            "cache hit rate today: not counted in this run (`timeshare run cpu.cache \
             --counters` counts it where the CPU's performance counters can be read)\n"
                .to_string(),
        );
    };
    let line = match (
        counters.total("cache-references"),
        counters.total("cache-misses"),
    ) {
        (Some(refs), Some(misses)) if refs > 0 && misses <= refs => format!(
            "cache hit rate today: {:.1}% (1 − cache-misses / cache-references over cpu.cache's \
             counted pass of every array size: the CPU's own events, on most x86 CPUs its \
             last-level cache, where the 11/70 had one cache and counted hits of all reads \
             and writes; no ratio is formed)",
            100.0 * (1.0 - misses as f64 / refs as f64)
        ),
        (Some(refs), Some(misses)) => format!(
            "cache hit rate today: not a rate ({misses} cache-misses of {refs} \
             cache-references counted)"
        ),
        _ => format!(
            "cache hit rate today: unavailable ({})",
            counters
                .unavailable("cache-references")
                .or_else(|| counters.unavailable("cache-misses"))
                .unwrap_or("the cache events were not counted")
        ),
    };
    Some(line + "\n")
}

pub(super) fn paging_line(results: &[&BenchResult]) -> Option<String> {
    let mut limited: Vec<&str> = Vec::new();
    let mut free: Vec<&str> = Vec::new();
    let mut major: Vec<&str> = Vec::new();
    let mut why: Option<String> = None;
    for r in results {
        let Some(p) = r.details_as::<Paging>() else {
            continue;
        };
        if p.memory_limit.applied {
            limited.push(&r.id);
        } else {
            free.push(&r.id);
            why = why.or(p.memory_limit.why.clone());
        }
        if p.major_faults > 0.0 {
            major.push(&r.id);
        }
    }
    if limited.is_empty() && free.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    if !limited.is_empty() {
        parts.push(format!("under a memory limit: {}", limited.join(", ")));
    }
    if !free.is_empty() {
        let all = if limited.is_empty() {
            "every row"
        } else {
            "the others"
        };
        parts.push(match why {
            Some(why) => format!("{all} without a memory limit ({why})"),
            None => format!("{all} without a memory limit"),
        });
    }
    parts.push(if major.is_empty() {
        "no row paged from the disk: every fault was a minor one, served from memory".to_string()
    } else {
        format!("paged from the disk (major faults): {}", major.join(", "))
    });
    Some(format!(
        "paging today: {}; faults are per page touch.\n",
        parts.join("; ")
    ))
}

/// A column's statistic as the paper names it: seed 002's headline is the median.
pub(super) fn column_name(table: &SeedTable, q: Quantity) -> &'static str {
    let single_calls = table.quantities.contains(&Quantity::Mean);
    match q {
        Quantity::Headline if single_calls => "median (batches)",
        Quantity::Mean if single_calls => "mean (1 call)",
        Quantity::Sd if single_calls => "SD (1 call)",
        q => q.name(),
    }
}

/// Whether a stacked row of `table` sets the harness's user and system times beside its
/// elapsed headline: seed 001's tables with `--wide`. The headline is the median of the
/// samples, the CPU times one mean over the whole sampling window (getrusage before and
/// after): today's column header names both, and a line under the table says so.
fn times_of_two_statistics(table: &SeedTable, shown: &[Quantity]) -> bool {
    table.seed == "001" && shown.contains(&Quantity::User)
}

const TWO_STATISTICS: &str = "today's elapsed is the median of the samples' time per \
operation; today's user and system are a mean, the CPU time of the whole sampling window over its \
operations, children reaped in it included: two statistics, so a row's system time can \
exceed its elapsed median\n";

pub(in crate::report) fn describe(s: &Source) -> String {
    format!(
        "{} ({}, {})",
        s.name,
        crate::report::style::escape(&s.run.environment.hostname),
        s.run.started_at.format("%Y-%m-%d %H:%M UTC")
    )
}

/// `timeshare table` without a key: every seed table and observation table, with its
/// status.
pub fn tables_list() -> String {
    let mut t = crate::report::table::new_table(&["table", "seed", "what", "status"]);
    for s in TABLES {
        t.add_row(vec![
            s.key.to_string(),
            format!("{} {}", s.seed, s.name()),
            s.title.to_string(),
            s.status().name().to_string(),
        ]);
    }
    for s in crate::report::observation_tables::OBSERVATION_TABLES {
        t.add_row(vec![
            s.key.to_string(),
            s.seed.to_string(),
            s.title.to_string(),
            "from an observation".to_string(),
        ]);
    }
    format!("{t}\n")
}

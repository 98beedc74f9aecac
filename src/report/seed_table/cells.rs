//! Today's figure of a row for each of the paper's columns: the unit and basis the
//! column is kept in, and the cell's text.

use super::*;

/// What today's column of `quantity` is, for a row of `unit` and `basis`: the unit and
/// basis of the figure the layout sets beside the paper's. User, system and CPU time are
/// kept per operation of the headline's basis; the fault service time is per page fault.
pub fn column_kind(quantity: Quantity, unit: Unit, basis: &Basis) -> (Unit, Basis) {
    match quantity {
        Quantity::Headline
        | Quantity::Mean
        | Quantity::Sd
        | Quantity::BatchMean
        | Quantity::BatchSd => (unit, basis.clone()),
        // A rate's operation is its bytes, but its CPU time was counted per sampled
        // transfer: the time is given as a share of the real time, which needs no count.
        Quantity::User | Quantity::System | Quantity::Cpu if unit == Unit::BytesPerSecond => {
            (Unit::Ratio, basis.clone())
        }
        Quantity::User | Quantity::System | Quantity::Cpu => (Unit::SecondsPerOp, basis.clone()),
        Quantity::FaultService => (Unit::SecondsPerOp, Basis::per(PAGE_FAULT)),
        Quantity::Faults => (Unit::Count, basis.clone()),
        Quantity::CommandCount => (Unit::Count, Basis::per(PER_COMMAND)),
        Quantity::ProgramUser => (Unit::SecondsPerOp, basis.clone()),
        Quantity::RatioAlone | Quantity::Inc | Quantity::RatioReal => (Unit::Ratio, basis.clone()),
        Quantity::ReadRate => (Unit::BytesPerSecond, Basis::per(BYTE_READ_BESIDE)),
        // A `load.script.N` row's per-command accounting, whatever the row's own basis.
        Quantity::CommandShare
        | Quantity::CommandRealShare
        | Quantity::CommandCpuShare
        | Quantity::CommandRealPerCpu => (Unit::Ratio, Basis::per(PER_COMMAND)),
        Quantity::CommandReal | Quantity::CommandCpu => {
            (Unit::SecondsPerOp, Basis::per(PER_COMMAND))
        }
    }
}

/// Today's figure of `quantity` for a result, with the unit and basis of
/// [`column_kind`]; no headline, mean or SD when the headline is under one cycle (at
/// `mhz`), under the clock's resolution or not positive (see `not_resolved`).
pub fn today(r: Option<&BenchResult>, quantity: Quantity, mhz: Option<f64>) -> Option<Measure> {
    let r = r.filter(|r| r.status == Status::Ok)?;
    let basis = r.basis.as_ref()?;
    let times = r.times.as_ref();
    let value = match quantity {
        // The mean and SD of samples the clock did not resolve are not resolved either,
        // whether of single calls or of batches.
        Quantity::Headline
        | Quantity::Mean
        | Quantity::Sd
        | Quantity::BatchMean
        | Quantity::BatchSd
            if not_resolved(r, mhz).is_some() =>
        {
            return None
        }
        Quantity::Headline => r.median()?,
        Quantity::Mean => r.single_calls.as_ref()?.mean_s,
        Quantity::Sd => r.single_calls.as_ref()?.sd_s,
        Quantity::BatchMean => r.summary.as_ref()?.mean,
        Quantity::BatchSd => r.summary.as_ref()?.sd,
        Quantity::User => cpu_figure(r.unit, times?, times?.user_s)?,
        Quantity::System => cpu_figure(r.unit, times?, times?.system_s)?,
        Quantity::Cpu => cpu_figure(r.unit, times?, times?.user_s + times?.system_s)?,
        Quantity::FaultService => r.details_as::<Paging>()?.fault_service_s?,
        Quantity::Faults => {
            let p = r.details_as::<Paging>()?;
            let touches = p.touches.filter(|&t| t > 0)? as f64;
            (p.minor_faults + p.major_faults) / touches
        }
        Quantity::ProgramUser => r.details_as::<IoInterference>()?.user_s,
        Quantity::RatioAlone => r.details_as::<IoInterference>()?.ratio_alone?,
        Quantity::Inc => load_inc(r)?,
        // Two historical machines' ratio: nothing of today's.
        Quantity::RatioReal => return None,
        // The details count bytes per µs; the column is bytes per second.
        Quantity::ReadRate => r.details_as::<IoInterference>()?.bytes_per_us * 1e6,
        // Per command, not per row: `crate::report::seed_commands` reads them.
        Quantity::CommandCount
        | Quantity::CommandShare
        | Quantity::CommandReal
        | Quantity::CommandRealShare
        | Quantity::CommandCpu
        | Quantity::CommandCpuShare
        | Quantity::CommandRealPerCpu => return None,
    };
    let (unit, basis) = column_kind(quantity, r.unit, basis);
    Some(Measure::new(value, unit, basis))
}

/// Where today's load stopped coping, as a result beside the paper's "Ran Out Of Swap
/// Space": each `load.cpu.N` or `load.script.N` row whose copies or users hit a limit of
/// the system (processes, memory, a timeout), with the limit, rather than a blank.
pub(super) fn failure_points(results: &[&BenchResult]) -> Vec<String> {
    use crate::model::details::load::{CpuCopies, Scripts};
    results
        .iter()
        .filter_map(|r| {
            let why = match r.details_as::<CpuCopies>() {
                Some(c) => c.limit_hit,
                None => r.details_as::<Scripts>()?.limit_hit,
            }?;
            Some(format!("failure point: {} stopped coping: {why}\n", r.id))
        })
        .collect()
}

/// Today's Inc of a `load.cpu.N` or `load.script.N` row: its average real time per copy
/// (script) over one's alone, as the paper's.
pub(super) fn load_inc(r: &BenchResult) -> Option<f64> {
    use crate::model::details::load::{CpuCopies, Scripts};
    match r.details_as::<CpuCopies>() {
        Some(c) => c.summary?.inc,
        None => r.details_as::<Scripts>()?.summary?.inc,
    }
}

/// CPU seconds per operation, or for a rate row their share of the real time (see
/// [`column_kind`]); none when no real time was measured.
pub(super) fn cpu_figure(unit: Unit, times: &crate::model::OpTimes, cpu_s: f64) -> Option<f64> {
    match unit {
        Unit::BytesPerSecond => (times.elapsed_s > 0.0).then(|| cpu_s / times.elapsed_s),
        _ => Some(cpu_s),
    }
}

/// A figure as a cell: counts per operation (faults per page touch) are fractions, which
/// a count's whole-number format would round away.
pub(super) fn cell(value: f64, unit: Unit) -> String {
    match unit {
        Unit::Count => figures3(value),
        _ => format_value(value, unit),
    }
}

/// A figure of `quantity` as a cell, the paper's or today's: a CPU time that is a share
/// of the real time reads as one.
pub(super) fn figure_text(quantity: Quantity, value: f64, unit: Unit) -> String {
    let cpu = matches!(quantity, Quantity::User | Quantity::System | Quantity::Cpu);
    match unit {
        Unit::Ratio if cpu && value == 0.0 => "0".into(),
        Unit::Ratio if cpu => format!("{}%", figures3(value * 100.0)),
        _ => cell(value, unit),
    }
}

/// The bound and why, when `r`'s headline is not a measured figure.
pub(super) fn not_resolved(r: &BenchResult, mhz: Option<f64>) -> Option<(String, &'static str)> {
    let s = shown_stored(r, mhz)?;
    Some((bound_text(s)?, s.why()?))
}

/// Today's figure per operation, or why there is none.
pub(super) fn today_text(r: Option<&BenchResult>, quantity: Quantity, mhz: Option<f64>) -> String {
    if let (Some(r), Quantity::Headline) = (r.filter(|r| r.status == Status::Ok), quantity) {
        if let Some((bound, _)) = not_resolved(r, mhz) {
            return bound;
        }
    }
    let cpu = matches!(quantity, Quantity::User | Quantity::System | Quantity::Cpu);
    match (r, today(r, quantity, mhz)) {
        (_, Some(m)) if m.unit() == Unit::Count || (cpu && m.unit() == Unit::Ratio) => {
            figure_text(quantity, m.value(), m.unit())
        }
        // The kernel splits CPU time into user and system by its tick: a share that no
        // tick saw is an exact zero, not a measured one.
        (_, Some(m)) if cpu && m.value() == 0.0 => "0".into(),
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

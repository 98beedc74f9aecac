//! `observe`: the whole machine at work for a while or over a command's life (seed 001
//! §2), stored as an observation as it goes; what observing costs; the observation made
//! beside a run or an exercise (`--observe-system`); a stored observation shown,
//! compared, imported.

use std::time::Duration;

use anyhow::Result;

use super::Ended;
use crate::harness::observe::span::{observe, Beside, Keeper, Parts, Plan, PlanSpan};
use crate::model::observation::predict::{predict, Prediction};
use crate::model::observation::rates::SeriesLine;
use crate::model::observation::{Span, SystemObservation};
use crate::model::usage::UsageError;
use crate::report;
use crate::report::outfile::OutputFile;
use crate::report::output;
use crate::store::{Imported, Store};

/// An observation to make, as the command line checked it.
pub struct Request {
    pub plan: Plan,
    /// The store it goes into as it is made; `None` for `--no-save`.
    pub store: Option<Store>,
    /// `--json`, opened.
    pub json: Option<OutputFile>,
}

/// Observe as `request` plans, store it as it goes, print it and where it went.
pub fn run(request: Request) -> Result<Ended> {
    let Request {
        plan,
        mut store,
        json,
    } = request;
    let (o, name) = match store.as_mut() {
        Some(s) => {
            let mut keeper = StoreKeeper { store: s, id: None };
            let o = with_clock(&plan, |say| {
                observe(&plan, say, Some(&mut keeper as &mut dyn Keeper))
            })?;
            let name = match keeper.id {
                Some(id) => format!("o{id}"),
                None => observation_name(s.save_observation(&o, None)?),
            };
            (o, name)
        }
        None => (
            with_clock(&plan, |say| observe(&plan, say, None))?,
            "(not saved)".to_string(),
        ),
    };
    let prediction = store.as_ref().and_then(|s| prediction_for(s, &o));
    output::print_text(&report::observation::text(&name, &o, prediction.as_ref()))?;
    if let Some(out) = json {
        out.write(&serde_json::to_vec_pretty(&o)?)?;
    }
    if store.is_some() {
        output::say(&format!("stored as observation {name}"));
    }
    Ok(if o.complete {
        Ended::Success
    } else {
        Ended::Interrupted
    })
}

/// `observe --cost ROUNDS`: what observing costs, measured on the last CPU this process
/// may use and printed; nothing stored.
pub fn cost(rounds: usize) -> Result<Ended> {
    let cpu = *crate::harness::cpu::usable_cpus()
        .last()
        .ok_or_else(|| anyhow::anyhow!("no CPU this process may use"))?;
    let m = crate::harness::observe::cost::measure(rounds, cpu, &mut |line| output::say(line))?;
    output::print_text(&report::observation::cost_text(&m))?;
    Ok(Ended::Success)
}

/// `observe`'s store, written as the observation goes: its row made at the first line,
/// each line as it comes, the rest every minute and at the end.
struct StoreKeeper<'a> {
    store: &'a mut Store,
    id: Option<i64>,
}

impl StoreKeeper<'_> {
    fn row(&mut self, o: &SystemObservation) -> Result<i64> {
        Ok(match self.id {
            Some(id) => id,
            None => *self.id.insert(self.store.begin_observation(o)?),
        })
    }
}

impl Keeper for StoreKeeper<'_> {
    fn lines(&mut self, first: usize, lines: &[SeriesLine]) -> Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        let id = self
            .id
            .ok_or_else(|| anyhow::anyhow!("lines before the observation's row"))?;
        Ok(self.store.add_observation_lines(id, first, lines)?)
    }

    fn so_far(&mut self, o: &SystemObservation) -> Result<()> {
        let id = self.row(o)?;
        Ok(self.store.update_observation(id, o)?)
    }
}

/// Runs `f` with a line on the terminal (stderr, only when it is one) that says how long
/// the observation has run and, for `--for`, how long is left; the lines `f` says are
/// printed above it. Piped, the lines alone.
fn with_clock<T>(plan: &Plan, f: impl FnOnce(&mut dyn FnMut(&str)) -> T) -> T {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return f(&mut |line| output::say(line));
    }
    let span = match &plan.span {
        PlanSpan::For(d) => Some(d.as_secs().max(1)),
        _ => None,
    };
    let (bar, template) = match span {
        Some(len) => (
            ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr()),
            "observing: {msg}  [{wide_bar}]",
        ),
        None => (
            ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
            "observing the command: {msg} {spinner}",
        ),
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    let stop = std::sync::atomic::AtomicBool::new(false);
    let start = std::time::Instant::now();
    std::thread::scope(|scope| {
        // The time left is the span less the time observed, not a rate's estimate (which
        // read "21s left" at the first second of twenty).
        scope.spawn(|| {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let seconds = start.elapsed().as_secs();
                bar.set_message(clock_text(seconds, span));
                bar.set_position(span.map_or(seconds, |len| seconds.min(len)));
                bar.tick();
                std::thread::sleep(Duration::from_millis(200));
            }
        });
        let out = f(&mut |line| bar.suspend(|| output::say(line)));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        bar.finish_and_clear();
        out
    })
}

/// The clock's words after `seconds` observed: "12 s of 20 s, 8 s left" for a span of
/// `len` seconds ("finishing" once it is over: the profile and the store take a moment),
/// "12 s so far" for a command's.
fn clock_text(seconds: u64, span: Option<u64>) -> String {
    match span {
        Some(len) if seconds >= len => format!("{len} s of {len} s, finishing"),
        Some(len) => format!("{seconds} s of {len} s, {} s left", len - seconds),
        None => format!("{seconds} s so far"),
    }
}

/// The name a stored observation goes by (`o12`), newly stored or found already there.
fn observation_name(stored: Imported) -> String {
    match stored {
        Imported::New(id) | Imported::AlreadyStored(id) => format!("o{id}"),
    }
}

/// `--observe-system` of `run` and `exercise`: the whole machine observed, as `observe`
/// does, from just before the workload's first step to its end; this process's own calls
/// (the rows measured in it, the processes it starts) are the workload's, counted apart.
pub struct SystemWatch(Beside);

impl SystemWatch {
    /// Start observing if asked; rates every second.
    pub fn start(asked: bool) -> Result<Option<SystemWatch>> {
        if !asked {
            return Ok(None);
        }
        let what = std::iter::once("timeshare".to_string())
            .chain(std::env::args().skip(1))
            .collect::<Vec<_>>()
            .join(" ");
        Ok(Some(SystemWatch(Beside::start(
            Duration::from_secs(1),
            what,
            Parts::ALL,
            true,
        )?)))
    }

    /// End the span: the workload is over.
    pub fn stop(self) -> Result<SystemObservation> {
        self.0.finish()
    }
}

/// Store the observation made beside a workload, naming the run it was stored as, and say
/// in a line what it saw and where it is. An observation that failed is a warning: the
/// run it watched stands on its own.
pub fn keep_beside(observed: Result<SystemObservation>, store: Option<(&mut Store, Option<i64>)>) {
    let mut o = match observed {
        Ok(o) => o,
        Err(e) => {
            output::warn(&format!("--observe-system: {e:#}"));
            return;
        }
    };
    let run_id = store.as_ref().and_then(|(_, id)| *id);
    if let Span::Workload { run, .. } = &mut o.span {
        *run = run_id.map(|id| format!("run {id}"));
    }
    let name = match store.map(|(s, _)| s.save_observation(&o, None)) {
        Some(Ok(stored)) => observation_name(stored),
        Some(Err(e)) => {
            output::warn(&format!(
                "--observe-system: cannot store the observation: {e}"
            ));
            return;
        }
        None => String::new(),
    };
    output::say(&report::observation::beside_line(&name, &o));
}

/// The prediction of `o`'s system time from the newest stored run on this host that has
/// per-call rows.
pub fn prediction_for(store: &Store, o: &SystemObservation) -> Option<Prediction> {
    let mix = o.calls.measured()?;
    for row in store.runs().ok()? {
        if row.host != o.environment.hostname {
            continue;
        }
        let Ok(stored) = store.load(row.id) else {
            continue;
        };
        let costs = crate::bench::call_costs::costs_from(&stored.run, row.id);
        if costs.is_empty() {
            continue;
        }
        let system_share = o.rates.mean("cpu_system")? / 100.0;
        let cpus = o.environment.cpu.logical.max(1) as f64;
        return Some(predict(mix, &costs, system_share * cpus));
    }
    None
}

/// `show oN`: a stored observation as text.
pub fn show(store: &Store, name: &str) -> Result<Ended> {
    let (id, o) = load(store, name)?;
    let o = crate::report::style::escaped(&o);
    let prediction = prediction_for(store, &o);
    output::print_text(&report::observation::text(
        &format!("o{id}"),
        &o,
        prediction.as_ref(),
    ))?;
    Ok(Ended::Success)
}

/// The observation `name` names, or a one-line error (exit 2).
pub fn load(store: &Store, name: &str) -> Result<(i64, SystemObservation)> {
    store.load_observation(name).map_err(|_| {
        UsageError(format!(
            "no observation {name} in the database (see `timeshare history`)"
        ))
        .into()
    })
}

/// `compare oA oB`.
pub fn compare(store: &Store, a: &str, b: &str) -> Result<Ended> {
    let (ia, oa) = load(store, a)?;
    let (ib, ob) = load(store, b)?;
    let (oa, ob) = (
        crate::report::style::escaped(&oa),
        crate::report::style::escaped(&ob),
    );
    output::print_text(&report::observation::compare_text(
        (&format!("o{ia}"), &oa),
        (&format!("o{ib}"), &ob),
    ))?;
    Ok(Ended::Success)
}

/// `import FILE` of an observation file.
pub fn import(store: &mut Store, bytes: &[u8], shown: &str) -> Result<Ended> {
    // The same strict reading as a run's: no duplicate keys, no NUL, strings and figures
    // capped, so that every printer of an imported observation has bounded work.
    let o: SystemObservation = crate::report::json::parse_strict(bytes)
        .and_then(|v| {
            serde_path_to_error::deserialize(v).map_err(|e| {
                let path = e.path().to_string();
                anyhow::anyhow!("{path}: {}", e.into_inner())
            })
        })
        .map_err(|e| UsageError(format!("{shown} is not a timeshare observation: {e:#}")))?;
    if let Some(label) = &o.label {
        crate::model::names::check("label", label)
            .map_err(|e| UsageError(format!("{shown}: {e}")))?;
    }
    crate::model::observation::check_file(&o).map_err(|e| UsageError(format!("{shown}: {e}")))?;
    let message = match store.save_observation(&o, Some(shown))? {
        Imported::New(id) => format!(
            "imported {shown} as observation o{id} in {}\n",
            store.path()
        ),
        Imported::AlreadyStored(id) => format!(
            "not imported: {shown} is observation o{id} already; nothing written to {}\n",
            store.path()
        ),
    };
    output::print_text(&message)?;
    Ok(Ended::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A day at scale without waiting a day: 86,400 one-second lines stored as `observe`
    /// stores them (an hour per transaction here, to be quick), read back as `show` does
    /// and drawn as `report` does. The bounds: at most 50 MB stored, at most 3 MB of HTML,
    /// every hour in the hour-by-hour table. Sizes and times are printed (the times are
    /// the self-check's to judge: this machine may be busy).
    #[test]
    fn a_day_of_one_second_lines_stays_within_its_bounds() {
        use crate::model::observation::tests::sample;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.db");
        let mut store = Store::open(&path).unwrap();
        let mut o = sample();
        o.span = Span::For { seconds: 86_400.0 };
        o.duration_s = 86_400.0;
        o.rates.interval_s = 1.0;
        o.rates.columns = crate::harness::observe::system::columns(true);
        o.partial = true;
        o.complete = false;
        let id = store.begin_observation(&o).unwrap();
        let ncol = o.rates.columns.len();
        let columns = o.rates.columns.clone();
        let value = |t: usize, c: usize| {
            // A working day: busy from 9 to 17, a burst every 10 minutes; the CPU's
            // states in percent of all CPUs, adding up to 100, the rest events a second.
            let hour = t / 3600;
            let busy = if (9..17).contains(&hour) { 5.0 } else { 1.0 };
            let burst = if t % 600 < 5 { 3.0 } else { 1.0 };
            let wobble = (t % 97) as f64 / 97.0;
            let cpu = |share: f64| (busy * burst * share * (1.0 + wobble)).min(30.0);
            match columns[c].as_str() {
                "cpu_user" => cpu(2.0),
                "cpu_system" => cpu(1.5),
                "cpu_iowait" => cpu(0.5),
                "cpu_softirq" => cpu(0.1),
                "cpu_nice" | "cpu_irq" | "cpu_steal" => 0.0,
                "cpu_idle" => 100.0 - cpu(2.0) - cpu(1.5) - cpu(0.5) - cpu(0.1),
                "runnable" | "blocked" => busy * burst * (1.0 + wobble),
                _ => busy * burst * (100.0 + c as f64 * 37.0 + (t % 97) as f64),
            }
        };
        let started = std::time::Instant::now();
        for hour in 0..24 {
            let lines: Vec<SeriesLine> = (hour * 3600..(hour + 1) * 3600)
                .map(|t| SeriesLine {
                    t_s: (t + 1) as f64,
                    interval_s: 1.0,
                    values: (0..ncol).map(|c| value(t, c)).collect(),
                })
                .collect();
            store
                .add_observation_lines(id, hour * 3600, &lines)
                .unwrap();
        }
        o.partial = false;
        o.complete = true;
        store.update_observation(id, &o).unwrap();
        let stored_s = started.elapsed().as_secs_f64();
        drop(store);
        let bytes: u64 = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.metadata().unwrap().len())
            .sum();
        let store = Store::open(&path).unwrap();
        let started = std::time::Instant::now();
        let (_, back) = store.load_observation(&format!("o{id}")).unwrap();
        let text = report::observation::text("o1", &back, None);
        let show_s = started.elapsed().as_secs_f64();
        assert_eq!(back.rates.lines.len(), 86_400);
        assert!(!text.is_empty());
        let started = std::time::Instant::now();
        let html = report::html::observation::report("o1", &back, None);
        let report_s = started.elapsed().as_secs_f64();
        eprintln!(
            "a day: {ncol} columns, {:.1} MB stored ({stored_s:.1} s to store), show {show_s:.2} s, \
             report {report_s:.2} s, HTML {:.2} MB",
            bytes as f64 / 1e6,
            html.len() as f64 / 1e6
        );
        if let Some(out) = std::env::var_os("TIMESHARE_DAY_HTML") {
            std::fs::write(out, &html).unwrap();
        }
        assert!(bytes <= 50_000_000, "{bytes} bytes stored for a day");
        assert!(html.len() <= 3_000_000, "{} bytes of HTML", html.len());
        assert!(html.contains("Hour by hour"));
        // The charts' hours read against the table's clock hours.
        assert!(html.contains("hours from 03:04 UTC"));
        assert_eq!(
            html.matches("<tr>").count() - text_rows(&html),
            25,
            "24 hours and a head"
        );
    }

    /// The rows of the page's tables other than the hour-by-hour one.
    fn text_rows(html: &str) -> usize {
        let at = html.find("Hour by hour").unwrap();
        let end = html[at..].find("</table>").unwrap() + at;
        html[..at].matches("<tr>").count() + html[end..].matches("<tr>").count()
    }
}

//! `load.cpu.N`: N simultaneous copies of a compute-bound program (seed 000, Table 9).
//!
//! # Timing model
//! One operation starts N forked copies at once (serially, ~0.1 ms apart) and waits until
//! the last has ended. Each copy runs the same calibrated work ([`Work`]: about
//! [`work_s`] alone — 0.2 s in quick mode, 0.5 s in full: Inc is a ratio of two real times
//! of the same work, and 0.2 s is still hundreds of the scheduler's time slices, so the
//! shorter copies give the quick look its shape in two fifths of the time; full mode
//! also takes more repetitions) over its own footprint
//! (`--footprint-mib`, 16 MiB by default) and checks its checksum (a wrong one fails the
//! row). Per copy, the kernel's wait4 accounting gives real, user and system time.
//!
//! The headline is the seed's: the average real time of a copy (Table 9's Real is "the
//! average of all the programs run simultaneously"), one value per batch, with user and
//! system time per copy (its CPU column, nearly constant). The batch's wall time (its
//! slowest copy), total CPU of all copies and Inc = average real / real of one copy alone
//! are in the details, each the median over the samples. The knee of the Inc column is
//! stated in the details of the largest N.
//!
//! Before starting, RLIMIT_NPROC and MemAvailable are checked against N copies × the
//! footprint, and the row refuses with the reason rather than exhaust the machine. If the
//! system still refuses a copy mid-run (EAGAIN, ENOMEM), the started copies are killed
//! and reaped, sampling stops, and the row fails naming the limit: the seed's "Ran Out Of
//! Swap Space" row.

use anyhow::{bail, Result};

use super::kernel::Work;
use super::{driver_cpu, lock, remembered, remembered_work, LoadState, Ticker};
use crate::harness::contract::{Benchmark, Ctx, OwnFigures, Workload};
use crate::harness::copies::{self, Children, Reaped, SpawnError};
use crate::harness::rusage::DriverMeter;
use crate::harness::state::Shared;
use crate::model::details::load::{CopiesSummary, CpuCopies, DriverCpu, PER_COPY};
use crate::model::knee;
use crate::model::median;
use crate::model::Details;
use crate::model::{Metric, Mode, OpTimes, Source};

struct CpuLoad {
    id: String,
    copies: usize,
}

/// How long one copy's work lasts alone: the work is what the historical ratio divides,
/// so one run's rows all share it; quick mode's is shorter (see the module's comment).
pub fn work_s(mode: Mode) -> f64 {
    match mode {
        Mode::Quick => 0.2,
        Mode::Full => 0.5,
    }
}

pub fn row(n: usize) -> Benchmark {
    let it = CpuLoad {
        id: format!("load.cpu.{n}"),
        copies: n,
    };
    Benchmark::new(
        it.id.clone(),
        "N copies of a compute-bound program at once: real, CPU, Inc per copy",
        Source::seed("000", "Table 9"),
        move |ctx| it.prepare(ctx),
    )
    .with_metric(Metric::job())
    .with_plan(super::plan)
    .measured_in_one_process(super::ONE_PROCESS)
    // Table 9's Real: the average over the copies of one batch (see `own_figures`).
    .per(PER_COPY)
}

impl CpuLoad {
    fn prepare(&self, ctx: &Ctx) -> Result<Box<dyn Workload>> {
        let meter = DriverMeter::start();
        let shared = ctx.state.get::<LoadState>();
        let footprint = ctx.options.load.footprint_bytes();
        copies::check_room(
            self.copies,
            footprint,
            copies::process_limit(),
            copies::available_memory(),
            ctx.host.is_root,
        )
        .map_err(|why| anyhow::anyhow!("refused: {why}"))?;
        let target = work_s(ctx.mode);
        let key = format!("cpu.{footprint}.{target}");
        let work = remembered_work(&shared, &key, || Work::calibrate(footprint, target))?;
        let base_key = format!("{key}.base");
        if self.copies != 1 {
            // Inc needs one copy's real time with the same work: measure it now if the
            // load.cpu.1 row has not.
            remembered(&shared, &base_key, || {
                let reals: Result<Vec<f64>> = (0..3)
                    .map(|_| match batch(&self.id, 1, &work)? {
                        (done, None) => Ok(done[0].real_s),
                        (_, Some(limit)) => bail!(limit),
                    })
                    .collect();
                Ok(median(&reals?))
            })?;
        }
        Ok(Box::new(CpuWorkload {
            budget: super::budget_note(ctx.mode, &format!("copies of {target} s of work each")),
            shared,
            id: self.id.clone(),
            copies: self.copies,
            largest: ctx.options.load.copies().last() == Some(&self.copies),
            work,
            base_key,
            samples: Vec::new(),
            walls: Vec::new(),
            limit_hit: None,
            meter,
            driver: None,
        }))
    }
}

struct CpuWorkload {
    /// The note saying what time the row was given.
    budget: String,
    /// The run's load state: baselines and the knee's points.
    shared: Shared<LoadState>,
    id: String,
    copies: usize,
    /// The largest N asked for: its row states the knee of everything measured so far.
    largest: bool,
    work: Work,
    base_key: String,
    /// Per sample, every copy as the kernel accounted it.
    samples: Vec<Vec<Reaped>>,
    /// Per sample, the batch's wall time: start of the first copy to end of the last.
    walls: Vec<f64>,
    limit_hit: Option<String>,
    /// Started with the row's set-up; read once every copy is reaped.
    meter: DriverMeter,
    driver: Option<DriverCpu>,
}

impl CpuWorkload {
    fn avg_real(sample: &[Reaped]) -> f64 {
        sample.iter().map(|r| r.real_s).sum::<f64>() / sample.len() as f64
    }

    /// Table 9's columns over the samples taken; `None` before the first. Records this
    /// row's Inc in the run's state, and the largest N states the knee.
    fn summary(&self) -> Option<CopiesSummary> {
        if self.samples.is_empty() {
            return None;
        }
        let over_samples = |f: &dyn Fn(&[Reaped]) -> f64| {
            median(&self.samples.iter().map(|s| f(s)).collect::<Vec<_>>())
        };
        let avg_real = over_samples(&|s| Self::avg_real(s));
        let reals = self.samples.iter().flatten().map(|r| r.real_s);
        if self.copies == 1 {
            lock(&self.shared).set(&self.base_key, avg_real);
        }
        let base = lock(&self.shared).get(&self.base_key);
        let inc = base.map(|b| avg_real / b);
        let mut knee = None;
        if let Some(inc) = inc {
            let mut s = lock(&self.shared);
            s.cpu_incs.retain(|p| p.0 != self.copies);
            s.cpu_incs.push((self.copies, inc));
            if self.largest {
                knee = knee::knee(&s.cpu_incs);
            }
        }
        let copies = self.copies.max(1) as f64;
        Some(CopiesSummary {
            avg_real_s: avg_real,
            cpu_per_copy_s: Some(over_samples(&|s| s.iter().map(Reaped::cpu_s).sum()) / copies),
            batch_real_s: (!self.walls.is_empty()).then(|| median(&self.walls)),
            min_real_s: reals.clone().fold(f64::INFINITY, f64::min),
            max_real_s: reals.fold(0.0, f64::max),
            total_cpu_s: over_samples(&|s| s.iter().map(Reaped::cpu_s).sum()),
            total_user_s: over_samples(&|s| s.iter().map(|r| r.user_s).sum()),
            total_system_s: over_samples(&|s| s.iter().map(|r| r.system_s).sum()),
            baseline_real_s: base,
            inc,
            knee,
        })
    }
}

/// Start `n` copies of `work` and wait for all; `Err(limit)` in the second slot when the
/// system refused one (the others are killed and reaped by then).
fn batch(label: &str, n: usize, work: &Work) -> Result<(Vec<Reaped>, Option<String>)> {
    let mut kids = Children::new();
    for i in 0..n {
        let w = *work;
        match kids.fork_with(i, move || w.run_in_child()) {
            Ok(_) => {}
            Err(e @ SpawnError::Limit { .. }) => {
                return Ok((
                    Vec::new(),
                    Some(format!("ran out after {i} of {n} copies: {e}")),
                ))
            }
            Err(e) => return Err(e.into()),
        }
    }
    let mut ticker = Ticker::new(label);
    let mut done = Vec::with_capacity(n);
    while done.len() < n {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
        if let Some(r) = kids.wait_next(deadline)? {
            if !r.exit.success() {
                bail!(
                    "copy {} of {n} ended with {} (3: wrong checksum, 4: no memory)",
                    r.tag + 1,
                    r.exit
                );
            }
            done.push(r);
        }
        ticker.tick(done.len(), n, "copies");
    }
    done.sort_by_key(|r| r.tag);
    Ok((done, None))
}

impl Workload for CpuWorkload {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            if self.limit_hit.is_some() {
                return Ok(());
            }
            let started = std::time::Instant::now();
            let (sample, limit) = batch(&self.id, self.copies, &self.work)?;
            if limit.is_some() {
                self.limit_hit = limit;
                return Ok(());
            }
            self.walls.push(started.elapsed().as_secs_f64());
            self.samples.push(sample);
        }
        Ok(())
    }

    fn details(&mut self) -> Option<Details> {
        Some(Details::of(&CpuCopies {
            copies: self.copies,
            footprint_bytes: self.work.footprint,
            rounds: self.work.rounds,
            per_copy_real_user_sys_s: self
                .samples
                .iter()
                .map(|s| s.iter().map(|r| [r.real_s, r.user_s, r.system_s]).collect())
                .collect(),
            limit_hit: self.limit_hit.clone(),
            driver: self.driver,
            summary: self.summary(),
        }))
    }

    fn notes(&self) -> Vec<String> {
        std::iter::once(self.budget.clone())
            .chain(self.driver.iter().map(DriverCpu::note))
            .collect()
    }

    /// Table 9's figure: each batch's average real time of a copy; user and system time
    /// per copy.
    fn own_figures(&mut self) -> Option<OwnFigures> {
        let all: Vec<&Reaped> = self.samples.iter().flatten().collect();
        if all.is_empty() {
            return None;
        }
        let n = all.len() as f64;
        let mean = |f: fn(&Reaped) -> f64| all.iter().map(|r| f(r)).sum::<f64>() / n;
        Some(OwnFigures {
            values: self.samples.iter().map(|s| Self::avg_real(s)).collect(),
            times: OpTimes {
                ops: all.len() as u64,
                elapsed_s: mean(|r| r.real_s),
                user_s: mean(|r| r.user_s),
                system_s: mean(|r| r.system_s),
            },
            note: format!(
                "per copy, as seed 000 Table 9: the average real time of the {} copies \
                 started together; the batch's wall time is in the details",
                self.copies
            ),
        })
    }

    /// A copy the kernel refused to start (the seed's "Ran Out Of Swap Space" row) fails
    /// the row, naming the limit; the copies that did run stay in the details.
    fn finish(&mut self) -> anyhow::Result<()> {
        self.driver = Some(driver_cpu(&self.meter));
        match &self.limit_hit {
            Some(why) => Err(anyhow::anyhow!(why.clone())),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_accounts_for_every_copy() {
        let work = Work::calibrate(1 << 20, 0.02).unwrap();
        let (done, limit) = batch("test", 3, &work).unwrap();
        assert!(limit.is_none());
        assert_eq!(
            done.iter().map(|r| r.tag).collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
        // The kernel splits a short child's CPU time between user and system by tick
        // sampling, so only their sum is sure to be positive.
        assert!(done
            .iter()
            .all(|r| r.user_s + r.system_s > 0.0 && r.real_s > 0.0));
    }

    #[test]
    fn a_wrong_checksum_fails_the_batch() {
        let mut work = Work::calibrate(1 << 16, 0.01).unwrap();
        work.checksum ^= 1;
        let err = batch("test", 2, &work).unwrap_err().to_string();
        assert!(err.contains("wrong checksum"), "{err}");
    }
}

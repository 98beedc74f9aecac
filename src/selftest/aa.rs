//! The A/A check: the same selection measured twice, A and B, each in fresh processes,
//! alternating in every round as `timeshare ab` does (two separate runs back to back on
//! a shared machine differ by whatever the neighbours did in between; alternating cancels
//! that drift), then compared the way `compare` compares. Every id called changed is a
//! false change; the claim is that at most 5% are. Then a 10% slowdown is injected into the
//! reference row's figures of the second run (`model::agreement::inject`) and the same
//! comparison must find it. Both runs stay in memory: nothing is stored.

use anyhow::Result;

use super::{Bounds, Env, Figure, Measured};
use crate::bench::Registry;
use crate::harness::interrupt::Interrupted;
use crate::harness::invocations::Side;
use crate::harness::quiet::REFERENCE;
use crate::harness::{Session, Strategy};
use crate::model::agreement::{self, changed, decide, inject_results};
use crate::model::change::{Verdict, DEFAULT_MIN_EFFECT};
use crate::model::{BenchResult, RunOptions};

/// The family both runs measure.
pub const SELECTION: &str = "syscall";
/// At most 5% of the ids called changed (strict); 10% on a machine busy with other work.
pub const FALSE_CHANGES: (Bounds, Bounds) = (Bounds::below(5.01), Bounds::below(10.01));
/// The injected change is found: 1 = called slower, 0 = not.
pub const FOUND: (Bounds, Bounds) = (Bounds::between(0.5, 1.5), Bounds::between(0.5, 1.5));
/// Processes per side: with three, the invocation-level test could not tell 10% from this
/// VM's process-to-process noise (measured: ×1.096 at p = 0.17). With eight it could while
/// the headline was anchored on the lower quartile; anchored on the best process, the
/// headline is of the processes in the fast state, which on 27 November caught two or
/// three of twelve. Resampled from 48 processes of each id measured at rest that day (two
/// `ab self self syscall --rounds 12`), tested with the slower state beside the fast one
/// (`model::change`): twelve a side found the injected 10% in 14 of 40 pairs, twenty in
/// 34 of 40.
pub const INVOCATIONS: usize = 20;
/// The injected slowdown.
pub const INJECTED: f64 = 1.10;

/// The two sides' results: the same selection measured `INVOCATIONS` times each, A and
/// B alternating in every round (A B, then B A, …), through the session as `timeshare ab`
/// measures, with a run's checks around them; and the warnings those checks gave (a
/// machine that drifted under the check explains false changes).
fn measure_interleaved(env: &Env) -> Result<(Vec<BenchResult>, Vec<BenchResult>, Vec<String>)> {
    let options = RunOptions {
        mode: env.mode,
        invocations: Some(INVOCATIONS),
        selection: vec![SELECTION.to_string()],
        ..RunOptions::default()
    };
    let reg = Registry::new(&options);
    let benches = reg
        .select(&[SELECTION.to_string()])
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let scratch = tempfile::Builder::new().prefix("timeshare-").tempdir()?;
    let side = |name: &str| -> Result<Side> {
        Ok(Side {
            name: name.into(),
            exe: crate::harness::children::own_program()?,
            options: options.clone(),
            dir: scratch.path().to_path_buf(),
        })
    };
    let sides = [side("A")?, side("B")?];
    let session = Session::new(options.clone(), scratch.path(), Strategy::OneProcess)?;
    let reference = reg.find(REFERENCE);
    let got = session.run_two_sided(&sides, &benches, INVOCATIONS, reference, &mut |_| {})?;
    if got.interrupted {
        return Err(Interrupted.into());
    }
    let [a, b] = got.runs;
    Ok((a.results, b.results, got.late_warnings))
}

pub fn aa(env: &Env) -> Result<Measured> {
    let (first, second, warnings) = measure_interleaved(env)?;
    // One machine, one moment: no frequency is needed to judge resolution between them.
    let side = |results| agreement::Side { results, mhz: None };
    let decided = decide(side(&first), side(&second), DEFAULT_MIN_EFFECT);
    let n = changed(&decided);
    let share = if decided.is_empty() {
        100.0
    } else {
        n as f64 / decided.len() as f64 * 100.0
    };
    let named: Vec<String> = decided
        .iter()
        .filter(|d| matches!(d.verdict, Verdict::Faster | Verdict::Slower))
        .map(|d| format!("{} ×{:.3}", d.id, d.ratio))
        .collect();
    let mut figures = vec![Figure {
        name: format!("A/A: ids of {SELECTION} called changed"),
        value: share,
        unit: "%",
        strict: FALSE_CHANGES.0,
        loose: FALSE_CHANGES.1,
        basis: format!(
            "{n} of {} tested{}{}",
            decided.len(),
            if named.is_empty() {
                String::new()
            } else {
                format!(": {}", named.join(", "))
            },
            warnings
                .iter()
                .map(|w| format!("; {w}"))
                .collect::<String>()
        ),
    }];
    let slowed = inject_results(&second, REFERENCE, INJECTED);
    let decided = decide(side(&first), side(&slowed), DEFAULT_MIN_EFFECT);
    let found = decided.iter().find(|d| d.id == REFERENCE);
    figures.push(Figure {
        name: format!("{REFERENCE} slowed by 10%: found (1) or not (0)"),
        value: if found.is_some_and(|d| d.verdict == Verdict::Slower) {
            1.0
        } else {
            0.0
        },
        unit: "",
        strict: FOUND.0,
        loose: FOUND.1,
        basis: match found {
            Some(d) => format!(
                "×{:.3}, p = {:.1e}: {}",
                d.ratio,
                d.p_value,
                d.verdict.describe()
            ),
            None => format!("{REFERENCE} was not tested"),
        },
    });
    Ok(Measured::Figures(figures))
}

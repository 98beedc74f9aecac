//! Every historical figure against the row of its id: the same kind of quantity (a time
//! with a time, a rate with a rate) of the same operation, so that `compare` and `table`
//! can divide them — or, for the few the seeds measured differently, refused with the
//! reason below, and refused for certain (a figure that became comparable must leave the
//! list). A figure given a wrong basis on purpose is caught.

use timeshare::bench::Registry;
use timeshare::model::basis::ANY_OPERATION;
use timeshare::model::exercise::{self, ALONE};
use timeshare::model::{Basis, Measure, Unit};
use timeshare::reference::{self, Figure, Quantity};
use timeshare::report::seed_table::{self, TABLES};

/// Figures the seeds measured per a different operation than today's row, and why.
const NOT_COMPARABLE: &[(&str, &str)] = &[(
    "syscall.dup",
    "seed 002 timed each dup and closed the twelve descriptors outside the timing; \
         the row times a dup and its close",
)];

fn known_incomparable(id: &str) -> bool {
    NOT_COMPARABLE
        .iter()
        .any(|(prefix, _)| id == *prefix || (prefix.ends_with('.') && id.starts_with(prefix)))
}

/// The unit and basis today's row of `id` declares, for the figure's quantity.
fn registered(reg: &Registry, id: &str, quantity: Quantity) -> Option<(Unit, Basis)> {
    let (unit, basis) = if let Some(b) = reg.find(id) {
        (b.metric().unit, b.metric().basis.clone())
    } else if let Some(d) = reg.derived().iter().find(|d| d.id == id) {
        (d.unit, d.basis.clone())
    } else if id.starts_with(&exercise::alone_id("")) {
        (Unit::Seconds, Basis::per(ALONE))
    } else {
        return None;
    };
    // Each column's kind, as the tables make it.
    Some(seed_table::column_kind(quantity, unit, &basis))
}

/// Every figure that cannot be divided by its row's figure, with the reason.
fn mismatches(figures: &[Figure], reg: &Registry) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for f in figures {
        let Some((unit, basis)) = registered(reg, &f.id, f.quantity) else {
            out.push((f.id.clone(), "no registered row".to_string()));
            continue;
        };
        let today = Measure::new(1.0, unit, basis);
        if let Err(why) = f.measure().divided_by(&today) {
            out.push((f.id.clone(), format!("{}: {why}", f.machine)));
        }
    }
    out
}

#[test]
fn every_reference_figure_has_the_unit_and_basis_of_its_row() {
    let reg = Registry::with_defaults();
    let figures = reference::figures();
    assert!(figures.len() > 300, "{} figures", figures.len());
    for f in &figures {
        assert_eq!(f.basis.ops, 1, "{f:?}: a figure is per one operation");
        assert!(
            !f.basis.is_generic() && f.basis.op != ANY_OPERATION,
            "{f:?}: a historical figure names its operation"
        );
    }
    let found = mismatches(&figures, &reg);
    let unexpected: Vec<_> = found
        .iter()
        .filter(|(id, _)| !known_incomparable(id))
        .collect();
    assert!(
        unexpected.is_empty(),
        "figures that cannot be divided by their row's: {unexpected:#?}"
    );
    // The list stays true: each entry is still refused, for some figure of its id.
    for (prefix, why) in NOT_COMPARABLE {
        assert!(
            found
                .iter()
                .any(|(id, _)| id == prefix || id.starts_with(prefix)),
            "{prefix} is listed as not comparable ({why}) but every figure of it now is"
        );
    }
}

#[test]
fn every_row_a_figure_is_set_beside_names_its_operation() {
    let reg = Registry::with_defaults();
    for f in reference::figures() {
        if let Some((_, basis)) = registered(&reg, &f.id, Quantity::Headline) {
            assert!(
                !basis.is_generic(),
                "{}: the row has a historical figure ({}) but only a generic basis {basis}",
                f.id,
                f.place
            );
        }
    }
}

#[test]
fn a_figure_given_a_wrong_basis_on_purpose_is_caught() {
    let reg = Registry::with_defaults();
    let mut figures: Vec<Figure> = reference::figures()
        .into_iter()
        .filter(|f| f.id == "cpu.proc_call" && f.machine == "pdp11-70-ral")
        .collect();
    assert_eq!(mismatches(&figures, &reg), vec![]);
    // The error the issue found: the figure of a whole job of a million calls taken for
    // the figure of one.
    figures[0].basis = Basis::per("job of 1,000,000 calls");
    let found = mismatches(&figures, &reg);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].1.contains("per job of 1,000,000 calls"),
        "{found:?}"
    );
    // A rate set beside a time is caught too.
    let mut rate = reference::figures()
        .into_iter()
        .find(|f| f.id == "pipe.bw.self" && f.quantity == Quantity::Headline)
        .unwrap();
    rate.id = "syscall.getpid".into();
    rate.basis = Basis::per("system call");
    let found = mismatches(&[rate], &reg);
    assert!(found[0].1.contains("B/s vs s/op"), "{found:?}");
}

#[test]
fn the_issue_s_three_rows_are_per_operation_speed_ups_in_the_thousands() {
    // Today's figures as the issue saw them: whole jobs. Per operation, the 11/70 and
    // the VAX are thousands of times slower, not faster.
    let reg = Registry::with_defaults();
    let today = |id: &str, value: f64| {
        let (unit, basis) = registered(&reg, id, Quantity::Headline).unwrap();
        Measure::new(value, unit, basis)
    };
    let then = |machine: &str, id: &str| reference::headline(machine, id).unwrap().measure();
    let proc_call = then("pdp11-70-ral", "cpu.proc_call")
        .divided_by(&today("cpu.proc_call", 1.97e-3))
        .unwrap();
    assert!((18_000.0..19_000.0).contains(&proc_call), "{proc_call}");
    let piper = then("pdp11-70-ral", "pipe.piper")
        .divided_by(&today("pipe.piper", 1.33e-3))
        .unwrap();
    assert!((12_000.0..12_500.0).contains(&piper), "{piper}");
    let seqpage = then("vax750-4.2bsd", "vm.seqpage")
        .divided_by(&today("vm.seqpage", 22.9e-3))
        .unwrap();
    assert!(seqpage > 40_000.0, "{seqpage}");
}

/// "What it must show": for every `table` key, each of the paper's columns is a column of
/// the layout, and its figures are of the same statistic and basis (per call, per job, per
/// copy, per script, per page fault) as today's column beside them — so every division the
/// table makes is allowed. A key without historical figures says why.
#[test]
fn every_table_key_sets_each_paper_column_beside_today_s_of_the_same_basis() {
    let reg = Registry::with_defaults();
    let mut checked = 0;
    let mut problems = Vec::new();
    for table in TABLES {
        let figures = table.figures();
        if figures.is_empty() {
            assert!(
                !table.why.is_empty(),
                "{}: no historical figures and no line saying why",
                table.key
            );
        }
        for f in &figures {
            if !table.quantities.contains(&f.quantity) {
                problems.push(format!(
                    "{}: the paper's {} column of {} ({}) has no column in the layout",
                    table.key,
                    f.quantity.name(),
                    f.id,
                    f.place
                ));
                continue;
            }
            let Some((unit, basis)) = registered(&reg, &f.id, f.quantity) else {
                problems.push(format!("{}: {} is no registered row", table.key, f.id));
                continue;
            };
            let today = Measure::new(1.0, unit, basis);
            checked += 1;
            if let Err(why) = f.measure().divided_by(&today) {
                if !known_incomparable(&f.id) {
                    problems.push(format!(
                        "{}: {} on {} ({}): {why}",
                        table.key,
                        f.id,
                        f.machine,
                        f.quantity.name()
                    ));
                }
            }
        }
        // A table that prints some of the paper's figures as lines (another operation,
        // or figures no machine can be given) sets no figure beside the rows they are
        // about: today's extra rows.
        if !(table.paper)(table.key).is_empty() {
            for f in figures
                .iter()
                .filter(|f| table.ids.contains(&f.id.as_str()))
            {
                problems.push(format!(
                    "{}: the paper's figures of {} are printed as lines, yet {} on {} is set \
                     beside it",
                    table.key, f.id, f.place, f.machine
                ));
            }
        }
        // Columns only today has (003's Kashtan user and system times): a rate row's CPU
        // time was counted per sampled transfer, never per byte, so its column is a share
        // of the real time; a time row's is seconds per operation of the row's basis.
        let today_only = table
            .quantities
            .iter()
            .filter(|q| !figures.iter().any(|f| f.quantity == **q));
        for &q in today_only.filter(|q| matches!(q, Quantity::User | Quantity::System)) {
            for (_, id) in table.rows(&figures) {
                let Some(b) = reg.find(&id) else { continue };
                let (unit, _) = seed_table::column_kind(q, b.metric().unit, &b.metric().basis);
                let want = match b.metric().unit {
                    Unit::BytesPerSecond => Unit::Ratio,
                    _ => Unit::SecondsPerOp,
                };
                if unit != want {
                    problems.push(format!(
                        "{}: today's {} column of {id} is {unit:?}, {want:?} expected",
                        table.key,
                        q.name()
                    ));
                }
            }
        }
        for id in table.ids {
            if reg.find(id).is_none() && !id.starts_with("exercise.") {
                problems.push(format!("{}: today's row {id} is not registered", table.key));
            }
        }
    }
    assert!(checked > 400, "only {checked} figures checked");
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_walk_catches_a_per_batch_column_beside_a_per_copy_one() {
    // Today's Table 9 row as it was before the fix: the batch's wall time.
    let then = reference::headline("pdp11-70", "load.cpu.5").unwrap();
    let batch = Measure::new(
        1.0,
        Unit::Seconds,
        Basis::per("batch of copies started together (wall time of the slowest)"),
    );
    assert!(then.measure().divided_by(&batch).is_err());
    let reg = Registry::with_defaults();
    let (unit, basis) = registered(&reg, "load.cpu.5", Quantity::Headline).unwrap();
    assert!(then
        .measure()
        .divided_by(&Measure::new(1.0, unit, basis))
        .is_ok());
    // And Table 9's CPU column against today's CPU per copy.
    let cpu = reference::figures()
        .into_iter()
        .find(|f| f.id == "load.cpu.5" && f.quantity == Quantity::Cpu && f.machine == "pdp11-70")
        .unwrap();
    let (unit, basis) = registered(&reg, "load.cpu.5", Quantity::Cpu).unwrap();
    assert!(cpu
        .measure()
        .divided_by(&Measure::new(1.0, unit, basis))
        .is_ok());
}

#[test]
fn attachment_c_s_columns_are_per_command_and_a_per_script_figure_beside_them_is_caught() {
    let reg = Registry::with_defaults();
    let table = seed_table::find("000-C").unwrap();
    let figures = table.figures();
    // Every column of the paper: share, real, CPU and real/CPU, for 1, 5 and 9 scripts on
    // both machines — each walked by the test above.
    for q in [
        Quantity::CommandShare,
        Quantity::CommandReal,
        Quantity::CommandCpu,
        Quantity::CommandRealPerCpu,
    ] {
        assert!(table.quantities.contains(&q), "{q:?}");
        for id in ["load.script.1", "load.script.5", "load.script.9"] {
            for machine in ["pdp11-45", "pdp11-70"] {
                assert!(
                    figures
                        .iter()
                        .any(|f| f.quantity == q && f.id == id && f.machine == machine),
                    "no {q:?} of {id} on {machine}"
                );
            }
        }
    }
    assert_eq!(mismatches(&figures, &reg), vec![]);
    // Table 10's figure, per script, set in the per-command column is refused: the row's
    // headline is per script, its accounting per command.
    let mut per_script = reference::headline("pdp11-70", "load.script.1").unwrap();
    per_script.quantity = Quantity::CommandReal;
    let found = mismatches(&[per_script], &reg);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].1.contains("per user's command script"),
        "{found:?}"
    );
    // And a per-command figure beside the row's headline column is refused likewise.
    let mut real = figures
        .iter()
        .find(|f| f.quantity == Quantity::CommandReal)
        .unwrap()
        .clone();
    real.quantity = Quantity::Headline;
    assert_eq!(mismatches(&[real], &reg).len(), 1);
}

#[test]
fn config_c8_s_figures_are_in_their_tables_with_the_basis_of_c7_s_and_today_s() {
    let reg = Registry::with_defaults();
    // Table 10: real and CPU per script, 1 and 5 scripts, as C7's; never `compare`'s.
    let c8: Vec<Figure> = seed_table::find("000-10")
        .unwrap()
        .figures()
        .into_iter()
        .filter(|f| f.config() == Some("C8"))
        .collect();
    assert_eq!(
        c8.len(),
        7,
        "real and CPU of 1 and 5 scripts, Inc of 5, Ratio Real of 1 and 5: {c8:#?}"
    );
    for f in &c8 {
        let c7 = reference::figures()
            .into_iter()
            .find(|g| g.machine == f.machine && g.id == f.id && g.quantity == f.quantity)
            .unwrap();
        assert_eq!(c7.config(), Some("C7"), "{c7:?}");
        assert_eq!((f.unit, &f.basis), (c7.unit, &c7.basis), "{f:?}");
    }
    assert_eq!(mismatches(&c8, &reg), vec![]);
    // Attachment C, 5 scripts: every column, per command.
    let c8: Vec<Figure> = seed_table::find("000-C")
        .unwrap()
        .figures()
        .into_iter()
        .filter(|f| f.config() == Some("C8"))
        .collect();
    for q in [
        Quantity::CommandShare,
        Quantity::CommandReal,
        Quantity::CommandCpu,
        Quantity::CommandRealPerCpu,
    ] {
        assert!(
            c8.iter()
                .any(|f| f.quantity == q && f.id == "load.script.5"),
            "no C8 {q:?}"
        );
    }
    assert!(c8.iter().all(|f| f.id == "load.script.5"));
    assert_eq!(mismatches(&c8, &reg), vec![]);
}

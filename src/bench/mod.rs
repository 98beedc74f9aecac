//! What to measure. One folder per benchmark family, each registering its [`Family`]:
//! the [`Benchmark`] descriptors of its rows, built on the contract in
//! [`crate::harness::contract`], its derived rows and the options its rows read.
//! [`Registry`] puts them together from a run's options; it is what `list`, `run`, the
//! docs and the smoke test are all driven by.

use linkme::distributed_slice;

use crate::harness::contract::{Benchmark, Derived};
use crate::harness::options::FamilyOptions;
use crate::model::{Basis, Run, RunOptions, SCHEMA_VERSION};

pub mod cache;
pub mod call_costs;
pub mod cpu;
pub mod fs;
pub mod io;
pub mod load;
pub mod mem;
pub mod message;
pub mod micro;
pub mod mixed;
pub mod net;
pub mod pagebuf;
pub mod pipe;
pub mod proc;
pub mod select;
pub mod signal;
pub mod syscall;
pub mod thread;
pub mod udg;
pub mod vm;
pub mod wait;
pub mod wordsum;

pub use select::SelectError;

#[cfg(test)]
mod machine_code_tests;

/// What a family brings to the catalogue: its rows, the rows derived from them and the
/// options they read. Each family registers one in its own module (a function in
/// [`FAMILIES`]), so that a new family is its folder and its `pub mod` line here, with no
/// list to extend.
pub struct Family {
    /// The family's module, for messages.
    pub name: &'static str,
    /// Its place in the catalogue: `list` and `run` go by ascending order, and two
    /// families never share one (a test checks).
    pub order: u32,
    /// Its rows, built from the run's options (the `load` rows' ids come from `--copies`).
    pub rows: fn(&RunOptions) -> Vec<Benchmark>,
    /// Rows computed from its measured rows, never measured themselves.
    pub derived: fn() -> Vec<Derived>,
    /// The run options only its rows read, declared beside them
    /// ([`crate::harness::options`]).
    pub options: Option<&'static FamilyOptions>,
}

impl Family {
    /// A family of rows alone: no derived rows, no options of its own.
    pub fn rows(name: &'static str, order: u32, rows: fn(&RunOptions) -> Vec<Benchmark>) -> Self {
        Family {
            name,
            order,
            rows,
            derived: Vec::new,
            options: None,
        }
    }
}

/// Every family's registration, gathered when the program is linked: each family's module
/// adds a function that describes it (`#[distributed_slice(FAMILIES)]`). A function
/// rather than a `static` value, so that no family's file holds a static (the house keeps
/// those to a reasoned list: this file is on it). Read through [`families`], which puts
/// them in catalogue order.
#[distributed_slice]
pub static FAMILIES: [fn() -> Family];

/// The registered families, in catalogue order.
pub fn families() -> Vec<Family> {
    crate::model::catalogue::in_order(&FAMILIES, |f| f.order)
}

/// The run options that only some rows read, family by family in catalogue order: each
/// declared beside its rows (see [`crate::harness::options`]); `run`'s flags, their help
/// and their checks are made from this list.
pub fn options() -> Vec<&'static FamilyOptions> {
    families().iter().filter_map(|f| f.options).collect()
}

/// Every benchmark of a run, in the order `run` executes them and `list` shows them, and
/// the rows derived from them. A plain value: built from the run's options (the `load`
/// rows' ids come from `--copies`, `--users`, `--readers`), owned by whoever asked.
pub struct Registry {
    benches: Vec<Benchmark>,
    derived: Vec<Derived>,
}

impl Registry {
    pub fn new(options: &RunOptions) -> Registry {
        let families = families();
        let benches = families.iter().flat_map(|f| (f.rows)(options)).collect();
        let derived = families.iter().flat_map(|f| (f.derived)()).collect();
        Registry { benches, derived }
    }

    /// The registry of a run with every option at its default.
    pub fn with_defaults() -> Registry {
        Registry::new(&RunOptions::default())
    }

    pub fn benches(&self) -> &[Benchmark] {
        &self.benches
    }

    /// Rows computed from measured rows of the same run, never measured themselves.
    pub fn derived(&self) -> &[Derived] {
        &self.derived
    }

    /// The benchmark with this exact id.
    pub fn find(&self, id: &str) -> Option<&Benchmark> {
        self.benches.iter().find(|b| b.id() == id)
    }

    /// What the figure of `id` is per, as its row declares it (measured or derived).
    pub fn basis_of(&self, id: &str) -> Option<Basis> {
        self.find(id).map(|b| b.metric().basis.clone()).or_else(|| {
            self.derived
                .iter()
                .find(|d| d.id == id)
                .map(|d| d.basis.clone())
        })
    }

    /// The benchmarks `words` select (see [`select::select`]).
    pub fn select(&self, words: &[String]) -> Result<Vec<&Benchmark>, SelectError> {
        select::select(&self.benches, words)
    }
}

/// Bring a record read from a file or the store up to this schema: a result written
/// before results carried their basis (schema version 1) gets the basis its id's row
/// declares in the registry the run's own options build (so `--pages` is honoured). An
/// id no longer registered keeps none: its figure is shown, never divided.
pub fn fill_bases(run: &mut Run) {
    if run.results.iter().any(|r| r.basis.is_none()) {
        let reg = Registry::new(&run.options);
        for r in run.results.iter_mut().filter(|r| r.basis.is_none()) {
            r.basis = former_basis(&r.id).or_else(|| reg.basis_of(&r.id));
        }
    }
    run.schema_version = run.schema_version.max(SCHEMA_VERSION);
}

/// Rows whose figure changed meaning after schema version 1 (the registry declares the new
/// one): a version-1 figure keeps the basis it was measured on. `load.cpu.N` and
/// `load.script.N` reported the whole batch's wall time before they reported seed 000's
/// average per copy and per script.
fn former_basis(id: &str) -> Option<Basis> {
    if id.starts_with("load.cpu.") {
        Some(Basis::per(
            "batch of copies started together (wall time of the slowest)",
        ))
    } else if id.starts_with("load.script.") {
        Some(Basis::per(
            "run of every user's script, staggered (wall time of all)",
        ))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::contract::{Host, Skip, StandaloneCtx};
    use crate::model::family_of;
    use std::collections::{BTreeSet, HashSet};

    /// Each family's module registered itself, once, at a place of its own: strictly
    /// ascending orders, and the families and rows the registry gathers are those of the
    /// generated list in docs/benchmarks.md (which the `docs` integration test keeps
    /// equal to the registry as the binary links it). A module whose registration the
    /// linker dropped would leave its rows on the page and missing here.
    #[test]
    fn every_family_registered_once_in_catalogue_order() {
        let families = families();
        let orders: Vec<u32> = families.iter().map(|f| f.order).collect();
        assert!(
            orders.windows(2).all(|w| w[0] < w[1]),
            "two families share an order: {orders:?}"
        );
        let names: HashSet<&str> = families.iter().map(|f| f.name).collect();
        assert_eq!(names.len(), families.len(), "a family registered twice");

        let reg = Registry::with_defaults();
        let registered: HashSet<&str> = reg
            .benches()
            .iter()
            .map(|b| b.id())
            .chain(reg.derived().iter().map(|d| d.id))
            .collect();
        let listed: HashSet<&str> = include_str!("../../docs/benchmarks.md")
            .lines()
            .filter_map(|l| l.strip_prefix("| `")?.split('`').next())
            .collect();
        let families_of = |ids: &HashSet<&str>| -> BTreeSet<String> {
            ids.iter().map(|id| family_of(id).to_string()).collect()
        };
        assert_eq!(families_of(&registered), families_of(&listed));
        let unregistered: Vec<&&str> = listed.difference(&registered).collect();
        assert!(
            unregistered.is_empty(),
            "registered by no family: {unregistered:?}"
        );
        let unlisted: Vec<&&str> = registered.difference(&listed).collect();
        assert!(unlisted.is_empty(), "not on the page: {unlisted:?}");
    }

    #[test]
    fn ids_are_unique_and_well_formed() {
        let reg = Registry::with_defaults();
        let mut seen = HashSet::new();
        for b in reg.benches() {
            let id = b.id();
            assert!(seen.insert(id.to_string()), "duplicate id {id}");
            assert!(
                id.split('.').all(|part| !part.is_empty()
                    && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')),
                "malformed id {id}"
            );
            assert!(!b.about().is_empty(), "{id} has no description");
        }
        for d in reg.derived() {
            assert!(seen.insert(d.id.to_string()), "derived id {} clashes", d.id);
        }
    }

    /// stress-ng's verify-test-all: every registered benchmark is prepared and does one
    /// operation, or says why it cannot run here.
    #[test]
    fn every_registered_benchmark_runs_once() {
        let host = Host::detect();
        let options = RunOptions::default();
        for b in Registry::new(&options).benches() {
            // A command script's users are run by shells that are this program started
            // again (`internal-load-user`), which a test binary is not: those rows run
            // through the real binary in tests/it (load.rs, hostile.rs), their shells'
            // work in process in the script module's own tests.
            if b.id().starts_with("load.script.") {
                continue;
            }
            if let Err(Skip(reason)) = b.supported(&host) {
                assert!(reason.len() > 10, "{}: skip without a reason", b.id());
                continue;
            }
            let standalone = StandaloneCtx::new(options.clone()).unwrap();
            // A row may find at prepare that it cannot run here, and say why (the cold
            // name lookups on a tmpfs scratch directory, /tmp on many systems): the
            // runner shows it as skipped, as here.
            let mut w = match b.prepare(&standalone.ctx()) {
                Ok(w) => w,
                Err(e) if e.downcast_ref::<Skip>().is_some_and(|s| s.0.len() > 10) => continue,
                Err(e) => panic!("{}: prepare failed: {e:#}", b.id()),
            };
            w.run(1)
                .unwrap_or_else(|e| panic!("{}: one operation failed: {e:#}", b.id()));
        }
    }

    #[test]
    fn an_old_record_gets_the_basis_its_rows_declare() {
        let json = include_str!("../../tests/fixtures/run-quick.json");
        let mut run: Run = serde_json::from_str(json).unwrap();
        assert_eq!(run.schema_version, 1);
        assert!(run.results.iter().all(|r| r.basis.is_none()));
        fill_bases(&mut run);
        assert_eq!(run.schema_version, SCHEMA_VERSION);
        let basis = |id: &str| {
            run.results
                .iter()
                .find(|r| r.id == id)
                .and_then(|r| r.basis.clone())
                .unwrap_or_else(|| panic!("{id} has no basis"))
        };
        assert_eq!(
            basis("cpu.proc_call"),
            Basis::job(1_000_000, "call of dummy(a, b, c)")
        );
        assert_eq!(basis("vm.seqpage"), Basis::job(75_000, "page touch"));
        assert_eq!(
            basis("pipe.piper"),
            Basis::job(2_000, "512-byte pipe write")
        );
        assert_eq!(basis("syscall.getpid"), Basis::per("system call"));
        assert_eq!(basis("ctx.switch"), Basis::per("signal round trip"));
        // A version-1 load figure was the whole batch's wall time: never taken for the
        // per-copy figure the row now reports.
        assert_ne!(
            basis("load.cpu.2"),
            Registry::with_defaults().basis_of("load.cpu.2").unwrap()
        );
        assert!(basis("load.script.5").op.contains("wall time of all"));
        // A record's own options decide: 1,000 pages make seqpage a job of 10,000 touches.
        let mut small: Run = serde_json::from_str(json).unwrap();
        small.options.pages = Some(1_000);
        fill_bases(&mut small);
        let seq = small.results.iter().find(|r| r.id == "vm.seqpage").unwrap();
        assert_eq!(seq.basis, Some(Basis::job(10_000, "page touch")));
    }

    #[test]
    fn a_result_that_says_its_basis_keeps_it_and_an_unknown_id_gets_none() {
        let json = include_str!("../../tests/fixtures/run-quick.json");
        let mut run: Run = serde_json::from_str(json).unwrap();
        run.results[0].basis = Some(Basis::per("something else"));
        run.results[1].id = "gone.row".into();
        fill_bases(&mut run);
        assert_eq!(run.results[0].basis, Some(Basis::per("something else")));
        assert_eq!(run.results[1].basis, None);
    }

    #[test]
    fn derived_inputs_are_registered() {
        let reg = Registry::with_defaults();
        for d in reg.derived() {
            for input in d.inputs {
                assert!(reg.find(input).is_some(), "{} needs unknown {input}", d.id);
            }
        }
    }

    #[test]
    fn two_registries_from_different_options_do_not_share_ids() {
        let mut options = RunOptions::default();
        options.load.copies = vec![3];
        let custom = Registry::new(&options);
        assert!(custom.find("load.cpu.3").is_some());
        assert!(custom.find("load.cpu.5").is_none());
        let default = Registry::with_defaults();
        assert!(
            default.find("load.cpu.3").is_none(),
            "no global configuration"
        );
        assert!(default.find("load.cpu.5").is_some());
    }
}

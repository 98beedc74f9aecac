//! The results store: every run, its environment and each result, in an embedded SQLite
//! database (one file, no server).
//!
//! Writes are small transactions made as the run goes on (the run row at its start, each
//! result as soon as it is measured, the final status at the end), so a run stopped at any
//! point — even by kill -9 — leaves a consistent database holding what was measured. The
//! database is in WAL mode with a busy timeout, so several `timeshare run`s can write to
//! one file at once: SQLite serialises the writers, and readers never block them.
//!
//! A run still marked `running` whose writing process is gone (same boot, pid dead or
//! reused) is reported as `interrupted`; see [`Liveness`].

mod backend;
mod error;
pub mod exercise_record;
mod files;
mod liveness;
mod location;
mod observations;
mod open;
mod pgauth;
mod pgconn;
mod recorder;
mod rows;
mod schema;
/// The throw-away PostgreSQL server of the tests (shared with the integration tests).
#[cfg(test)]
#[path = "../../tests/it/pg.rs"]
mod test_pg;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use rusqlite::Connection;

use backend::{vals, Db, Value};
use error::chain;
pub use error::StoreError;
use files::*;
pub use liveness::Liveness;
pub use location::{mask, Location};
pub use observations::{is_observation_name, ObservationRow};
pub use recorder::Recorder;
use rows::*;
pub use rows::{overhead_from_calibration, status_name};

use crate::model::Overhead;
use crate::model::{BenchResult, Environment, Mode, Run, RunStatus, Status};

/// The environment variable that names the database when `--db` is not given.
pub const DB_ENV: &str = "TIMESHARE_DB";

/// The environment variable that says how long to wait on the database, in seconds: for
/// a lock another process holds on an SQLite file, for one statement on PostgreSQL.
pub const TIMEOUT_ENV: &str = "TIMESHARE_DB_TIMEOUT";
/// How long an SQLite store waits for another process's lock, unless [`TIMEOUT_ENV`] says.
const SQLITE_PATIENCE: Duration = Duration::from_secs(30);
/// How long a PostgreSQL statement may run, unless [`TIMEOUT_ENV`] says.
const POSTGRES_PATIENCE: Duration = Duration::from_secs(120);

/// How long to wait on the database: [`TIMEOUT_ENV`] when set (`30`, `30s`, `5m`, as the
/// one duration parser reads them), else `default`. A value that is not a time from 0.1 s
/// to a day is refused, naming it.
fn patience(default: Duration) -> Result<Duration, String> {
    let Some(text) = std::env::var_os(TIMEOUT_ENV).filter(|v| !v.is_empty()) else {
        return Ok(default);
    };
    let text = text.to_string_lossy();
    crate::model::unit::parse_seconds(&text)
        .filter(|s| (0.1..=86_400.0).contains(s))
        .map(Duration::from_secs_f64)
        .ok_or_else(|| {
            format!(
                "${TIMEOUT_ENV}={}: give seconds from 0.1 to 86400",
                text.escape_debug()
            )
        })
}

/// The database to use: `--db PATH`, else `$TIMESHARE_DB`, else `runs.db` in the user's
/// data directory (`$XDG_DATA_HOME/timeshare`, by default `~/.local/share/timeshare`).
pub fn resolve_path(arg: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = arg {
        return Some(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os(DB_ENV).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    dirs::data_dir().map(|d| d.join("timeshare").join("runs.db"))
}

/// The store to use, as [`resolve_path`] finds it: a `postgresql://` URL names a shared
/// PostgreSQL store, anything else an SQLite file; `Err` says why the value given cannot
/// be used (see [`Location::parse`]).
pub fn resolve(arg: Option<&Path>) -> Option<Result<Location, String>> {
    let source = if arg.is_some() {
        location::Source::CommandLine
    } else {
        location::Source::Environment
    };
    resolve_path(arg).map(|p| Location::parse(p.as_os_str(), source))
}

/// One line of `timeshare history`.
#[derive(Debug, Clone)]
pub struct RunRow {
    pub id: i64,
    pub started_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    /// The status as it stands: `running` only while the writing process is alive.
    pub status: RunStatus,
    pub mode: String,
    pub selection: String,
    pub label: Option<String>,
    pub host: String,
    pub imported_from: Option<String>,
    pub results: usize,
}

/// What `import` did with a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Imported {
    /// Stored as this new run.
    New(i64),
    /// The same run (same start instant, same host) is already stored as this one;
    /// nothing was written.
    AlreadyStored(i64),
}

/// The names `resolve` takes besides ids and labels: the newest complete run, and the
/// newest run whatever its status.
pub const LAST: &str = "last";
pub const LAST_ANY: &str = "last-any";

/// A run read back, with the overhead its table header names.
#[derive(Debug, Clone)]
pub struct StoredRun {
    pub row: RunRow,
    pub run: Run,
    pub overhead: Overhead,
}

pub struct Store {
    db: Db,
    path: String,
}

impl Store {
    /// Open (creating if needed) the store at `location` and bring its schema up to date.
    pub fn open_at(location: &Location) -> Result<Store, StoreError> {
        match location {
            Location::File(p) => Store::open(p),
            Location::Postgres(url) => Store::open_postgres(url, false),
        }
    }

    /// Open an existing store for reading only (see [`Store::open_read_only`]).
    pub fn open_existing_at(location: &Location) -> Result<Store, StoreError> {
        match location {
            Location::File(p) => Store::open_read_only(p),
            Location::Postgres(url) => Store::open_postgres(url, true),
        }
    }

    /// Where the store is, as shown to the user (a URL's password masked).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// True for a shared PostgreSQL store.
    pub fn is_shared(&self) -> bool {
        self.db.is_postgres()
    }

    /// Record a run that is starting (status `running`, no results yet); returns its id.
    pub fn begin_run(&mut self, run: &Run, overhead: &Overhead) -> Result<i64, StoreError> {
        let me = Liveness::this_process();
        let tx = self.db.transaction(false)?;
        let id = insert_run(&tx, run, Some(overhead), None, Some(&me))?;
        tx.commit()?;
        Ok(id)
    }

    /// Save one result of run `run_id` as soon as it exists.
    pub fn save_result(
        &mut self,
        run_id: i64,
        seq: usize,
        result: &BenchResult,
    ) -> Result<(), StoreError> {
        crate::model::testpause::at("store");
        insert_result(&self.db, run_id, seq, result)
    }

    /// Mark a run finished (complete or interrupted).
    pub fn finish_run(
        &mut self,
        run_id: i64,
        status: RunStatus,
        finished_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.db.exec(
            "UPDATE runs SET status = ?1, finished_at = ?2 WHERE id = ?3",
            vals![status_name(status), finished_at.to_rfc3339(), run_id],
        )?;
        Ok(())
    }

    /// Record how run `run_id` ended, in one statement: its status and end time, and its
    /// header as it ended (the warnings and the environment that the checks at the run's
    /// end completed, the options a precision plan settled).
    pub fn end_run(&mut self, run_id: i64, run: &Run) -> Result<(), StoreError> {
        let header = Run {
            results: Vec::new(),
            ..run.clone()
        };
        let finished_at = run.finished_at.unwrap_or_else(crate::model::wallclock::now);
        self.db.exec(
            "UPDATE runs SET status = ?1, finished_at = ?2, run_json = ?3 WHERE id = ?4",
            vals![
                status_name(run.status),
                finished_at.to_rfc3339(),
                serde_json::to_string(&header)?,
                run_id
            ],
        )?;
        Ok(())
    }

    /// Store a whole run read from elsewhere (`timeshare import`), in one transaction —
    /// unless the same run is already here: a run is the same when it started at the same
    /// instant on the same host (its `started_at` has nanoseconds, and one host starts
    /// one run per instant), whatever else an export or a later schema changed in its file.
    /// The transaction is exclusive, so two imports of one run at once store it once.
    pub fn import_run(&mut self, run: &Run, from: &str) -> Result<Imported, StoreError> {
        let tx = self.db.transaction(true)?;
        let same = tx
            .query_one(
                "SELECT min(id) FROM runs WHERE started_at = ?1 AND host = ?2",
                vals![
                    run.started_at.to_rfc3339(),
                    run.environment.hostname.as_str()
                ],
            )?
            .int();
        if let Some(id) = same {
            return Ok(Imported::AlreadyStored(id));
        }
        let overhead = overhead_from_calibration(run);
        let id = insert_run(&tx, run, overhead.as_ref(), Some(from), None)?;
        for (seq, r) in run.results.iter().enumerate() {
            insert_result(&tx, id, seq, r)?;
        }
        tx.commit()?;
        Ok(Imported::New(id))
    }

    /// Store a whole run made here that was not recorded as it went (the exerciser's),
    /// in one transaction.
    pub fn save_run(&mut self, run: &Run) -> Result<i64, StoreError> {
        let tx = self.db.transaction(false)?;
        let overhead = overhead_from_calibration(run);
        let id = insert_run(&tx, run, overhead.as_ref(), None, None)?;
        for (seq, r) in run.results.iter().enumerate() {
            insert_result(&tx, id, seq, r)?;
        }
        crate::model::testpause::at("store");
        tx.commit()?;
        Ok(id)
    }

    /// Every run, newest first.
    pub fn runs(&self) -> Result<Vec<RunRow>, StoreError> {
        let rows = self
            .db
            .query(&format!("{RUN_ROW_SQL} ORDER BY r.id DESC"), &[])?;
        Ok(rows
            .into_iter()
            .map(|r| read_run_row(r).into_row())
            .collect())
    }

    /// Every run's header (the `Run` record without its results), oldest first: what
    /// the fleet view sorts into campaigns and hosts.
    pub fn headers(&self) -> Result<Vec<(RunRow, Run)>, StoreError> {
        let mut out = Vec::new();
        for row in self.runs()?.into_iter().rev() {
            let json = self
                .db
                .query_one("SELECT run_json FROM runs WHERE id = ?1", vals![row.id])?
                .text()
                .unwrap_or_default();
            let mut run: Run = serde_json::from_str(&json)?;
            run.status = row.status;
            out.push((row, run));
        }
        Ok(out)
    }

    /// The newest `limit` complete runs made like one with `options` on the machine `env`
    /// describes: same host name, kernel release and CPU model, same mode, the same number
    /// of processes and the same pinning, no precision target, not imported; newest first,
    /// each with its id.
    fn alike_runs(
        &self,
        env: &Environment,
        options: &crate::model::RunOptions,
        limit: usize,
    ) -> Result<Vec<(i64, Run)>, StoreError> {
        let candidates = self.db.query(
            "SELECT r.id, r.run_json FROM runs r JOIN environments e ON e.id = r.environment_id \
             WHERE r.status = 'complete' AND r.imported_from IS NULL AND r.mode = ?1 \
             AND e.hostname = ?2 AND e.kernel = ?3 AND e.cpu_model = ?4 ORDER BY r.id DESC",
            vals![
                mode_name(options.mode),
                env.hostname.as_str(),
                env.kernel.release.as_str(),
                env.cpu.model.as_str()
            ],
        )?;
        let mut out = Vec::new();
        for row in candidates {
            if out.len() >= limit {
                break;
            }
            let (Some(id), Some(json)) = (row[0].int(), row[1].text()) else {
                continue;
            };
            let Ok(earlier) = serde_json::from_str::<Run>(&json) else {
                continue;
            };
            let o = &earlier.options;
            let alike = o.invocations == options.invocations
                && o.cpu == options.cpu
                && o.placement == options.placement
                && o.precision.is_none();
            if alike {
                out.push((id, earlier));
            }
        }
        Ok(out)
    }

    /// Seconds one process took for each row in the newest run made like one with
    /// `options` on this machine (see `alike_runs`): what a progress bar's plan weighs
    /// each row by (`model::eta`). Empty without such a run.
    pub fn row_seconds(
        &self,
        env: &Environment,
        options: &crate::model::RunOptions,
    ) -> Result<std::collections::BTreeMap<String, f64>, StoreError> {
        let newest = self.alike_runs(env, options, 1)?;
        let Some(&(id, _)) = newest.first() else {
            return Ok(Default::default());
        };
        Ok(self
            .load(id)?
            .run
            .results
            .iter()
            .filter(|r| !r.derived && r.duration_s > 0.0)
            .map(|r| {
                let processes = r.invocations.as_ref().map_or(1, |i| i.count().max(1));
                (r.id.clone(), r.duration_s / processes as f64)
            })
            .collect())
    }

    /// The headlines of the newest `limit` runs made like one with `options` on the
    /// machine `env` describes (see `alike_runs`). One map of id → headline per run,
    /// newest first: what the run-to-run spread is learned from (`model::runlevel`).
    pub fn earlier_headlines(
        &self,
        env: &Environment,
        options: &crate::model::RunOptions,
        limit: usize,
    ) -> Result<Vec<std::collections::BTreeMap<String, f64>>, StoreError> {
        let mut out = Vec::new();
        for (id, _) in self.alike_runs(env, options, limit)? {
            let headlines = self
                .db
                .query(
                    "SELECT id, median FROM results WHERE run_id = ?1 AND status = 'ok' \
                     AND median IS NOT NULL",
                    vals![id],
                )?
                .into_iter()
                .filter_map(|r| Some((r[0].text()?, r[1].real()?)))
                .collect();
            out.push(headlines);
        }
        Ok(out)
    }

    /// Delete run `id` and its results, in one transaction (`timeshare forget`). Its
    /// environment row stays: other runs may share it. Returns whether there was one.
    pub fn forget(&self, id: i64) -> Result<bool, StoreError> {
        let tx = self.db.transaction(true)?;
        tx.exec("DELETE FROM results WHERE run_id = ?1", vals![id])?;
        let gone = tx.exec("DELETE FROM runs WHERE id = ?1", vals![id])?;
        tx.commit()?;
        Ok(gone > 0)
    }

    /// A run by the name the user gave: `last` (the newest complete run: one still
    /// going or interrupted is not what a comparison wants), `last-any` (the newest,
    /// whatever its status), a numeric id, or a label (which must name one run: a label
    /// given to several is ambiguous, and the error lists them).
    pub fn resolve(&self, name: &str) -> Result<i64, StoreError> {
        if name == LAST_ANY {
            return self.newest()?.ok_or(StoreError::NoRuns);
        }
        if name == LAST {
            let complete = self
                .db
                .query_one("SELECT max(id) FROM runs WHERE status = 'complete'", &[])?
                .int();
            if let Some(id) = complete {
                return Ok(id);
            }
            let latest = self.runs()?.into_iter().next().ok_or(StoreError::NoRuns)?;
            return Err(StoreError::NoCompleteRun {
                latest: latest.id,
                status: status_name(latest.status).to_string(),
            });
        }
        if let Ok(id) = name.parse::<i64>() {
            let found = self
                .db
                .query_one("SELECT id FROM runs WHERE id = ?1", vals![id])?
                .int();
            return found.ok_or_else(|| StoreError::UnknownRun(name.to_string()));
        }
        let ids: Vec<i64> = self
            .db
            .query(
                "SELECT id FROM runs WHERE label = ?1 ORDER BY id",
                vals![name],
            )?
            .into_iter()
            .filter_map(|r| r[0].int())
            .collect();
        match ids.as_slice() {
            [] => Err(StoreError::UnknownLabel(name.to_string())),
            [id] => Ok(*id),
            _ => Err(StoreError::AmbiguousLabel {
                label: name.to_string(),
                ids,
            }),
        }
    }

    /// The newest run's id, whatever its status.
    fn newest(&self) -> Result<Option<i64>, StoreError> {
        Ok(self.db.query_one("SELECT max(id) FROM runs", &[])?.int())
    }

    /// True when `name` names a run here (without saying which error it would be).
    pub fn has_run(&self, name: &str) -> bool {
        self.resolve(name).is_ok()
    }

    /// The run `id` in full, results in the order they were measured.
    pub fn load(&self, id: i64) -> Result<StoredRun, StoreError> {
        let raw = self
            .db
            .query_row(&format!("{RUN_ROW_SQL} WHERE r.id = ?1"), vals![id])?
            .map(read_run_row)
            .ok_or_else(|| StoreError::UnknownRun(id.to_string()))?;
        let head = self
            .db
            .query_row(
                "SELECT run_json, clock_overhead_s, loop_overhead_s FROM runs WHERE id = ?1",
                vals![id],
            )?
            .ok_or_else(|| StoreError::UnknownRun(id.to_string()))?;
        let row = raw.into_row();
        let mut run: Run = serde_json::from_str(&head[0].text().unwrap_or_default())?;
        run.status = row.status;
        run.finished_at = row.finished_at;
        let results = self.db.query(
            "SELECT json FROM results WHERE run_id = ?1 ORDER BY seq",
            vals![id],
        )?;
        for json in results {
            run.results
                .push(serde_json::from_str(&json[0].text().unwrap_or_default())?);
        }
        let overhead = Overhead {
            clock_s: head[1].real().unwrap_or(f64::NAN),
            per_iter_s: head[2].real().unwrap_or(f64::NAN),
            resolution_s: f64::NAN,
        };
        Ok(StoredRun { row, run, overhead })
    }
}

#[cfg(test)]
mod tests {
    use super::test_pg as pg;
    use super::*;
    use crate::model::{Better, Calibration, Environment, RunOptions, Summary, Tool, Unit};

    /// Each scenario gets a fresh, empty store: an SQLite file of its own (one test each),
    /// and a database of its own on one throw-away PostgreSQL server (one test for all,
    /// so that the server starts once).
    macro_rules! on_both_backends {
        ($($name:ident),* $(,)?) => {
            mod sqlite {
                $(
                    #[test]
                    fn $name() {
                        let dir = tempfile::tempdir().unwrap();
                        super::$name(super::Store::open(&dir.path().join("db/runs.db")).unwrap());
                    }
                )*
            }

            #[test]
            fn every_store_scenario_passes_on_postgresql() {
                let server = pg::PgServer::start();
                $(
                    let url = server.fresh(stringify!($name));
                    $name(Store::open_at(&Location::Postgres(url)).unwrap());
                )*
            }
        };
    }

    on_both_backends!(
        a_run_goes_in_piece_by_piece_and_comes_back_whole,
        runs_are_named_by_id_label_last_or_last_any,
        a_label_given_to_two_runs_is_ambiguous_and_lists_them,
        last_is_never_an_unfinished_run,
        a_run_whose_writer_died_reads_back_interrupted,
        an_import_is_stored_whole_and_keeps_its_overhead,
        the_same_run_is_imported_once_whatever_its_file_says_besides,
        an_observation_is_stored_listed_named_and_imported_once,
        an_observation_stored_as_it_goes_reads_back_partial_then_whole,
        a_rows_seconds_are_per_process_from_the_newest_run_alike,
    );
    use super::observations::scenarios::{
        an_observation_is_stored_listed_named_and_imported_once,
        an_observation_stored_as_it_goes_reads_back_partial_then_whole,
    };

    fn run(label: Option<&str>) -> Run {
        Run {
            schema_version: crate::model::SCHEMA_VERSION,
            tool: Tool::this(),
            options: RunOptions {
                label: label.map(str::to_string),
                ..RunOptions::default()
            },
            environment: Environment {
                hostname: "testhost".into(),
                ..Environment::default()
            },
            started_at: crate::model::wallclock::now(),
            finished_at: None,
            status: RunStatus::Running,
            warnings: vec![],
            results: vec![],
        }
    }

    fn result(id: &str, median: f64) -> BenchResult {
        BenchResult {
            calibration: Some(Calibration {
                batch: 10,
                calibrated: true,
                target_s: 1e-3,
                clock_overhead_s: 2e-8,
                loop_overhead_s: 1e-9,
            }),
            summary: Some(Summary::from_values(&[median, median * 1.01, median * 0.99]).unwrap()),
            duration_s: 0.1,
            ..BenchResult::new(
                id,
                "syscall",
                "test",
                Unit::SecondsPerOp,
                Better::Lower,
                Some(crate::model::Basis::per("system call")),
            )
        }
    }

    fn overhead() -> Overhead {
        Overhead {
            clock_s: 2e-8,
            per_iter_s: 1e-9,
            resolution_s: 1e-9,
        }
    }

    fn a_run_goes_in_piece_by_piece_and_comes_back_whole(mut store: Store) {
        let r = run(Some("base"));
        let id = store.begin_run(&r, &overhead()).unwrap();
        assert_eq!(store.runs().unwrap()[0].status, RunStatus::Running);
        store
            .save_result(id, 0, &result("syscall.getpid", 1e-7))
            .unwrap();
        store
            .save_result(id, 1, &result("syscall.getuid", 2e-7))
            .unwrap();
        store
            .finish_run(id, RunStatus::Complete, crate::model::wallclock::now())
            .unwrap();

        let back = store.load(id).unwrap();
        assert_eq!(back.run.status, RunStatus::Complete);
        assert_eq!(back.run.results.len(), 2);
        assert_eq!(back.run.results[1].id, "syscall.getuid");
        assert_eq!(back.run.results[0].median(), Some(1e-7));
        assert_eq!(back.overhead.clock_s, 2e-8);
        assert_eq!(back.row.host, "testhost");
        assert_eq!(back.row.results, 2);
    }

    /// What a progress bar weighs each row by: the newest complete run made alike, each
    /// row's time divided among its processes; derived rows and other modes left out.
    fn a_rows_seconds_are_per_process_from_the_newest_run_alike(mut store: Store) {
        let env = run(None).environment;
        let options = RunOptions::default();
        assert!(store.row_seconds(&env, &options).unwrap().is_empty());
        for seconds in [10.0, 30.0] {
            let id = store.begin_run(&run(None), &overhead()).unwrap();
            let mut getpid = result("syscall.getpid", 1e-7);
            getpid.duration_s = seconds;
            let one = Summary::from_values(&[1e-7, 1.1e-7, 0.9e-7]).unwrap();
            getpid.invocations = Some(crate::model::invocations::Invocations {
                within: vec![one; 3],
                runs: None,
                slower: vec![],
            });
            let mut derived = result("syscall.ratio", 1.0);
            derived.derived = true;
            store.save_result(id, 0, &getpid).unwrap();
            store.save_result(id, 1, &derived).unwrap();
            store
                .finish_run(id, RunStatus::Complete, crate::model::wallclock::now())
                .unwrap();
        }
        let seconds = store.row_seconds(&env, &options).unwrap();
        assert_eq!(seconds.len(), 1, "{seconds:?}");
        assert_eq!(
            seconds["syscall.getpid"], 10.0,
            "30 s over 3 processes, the newest"
        );
        let other_mode = RunOptions {
            mode: Mode::Full,
            ..RunOptions::default()
        };
        assert!(store.row_seconds(&env, &other_mode).unwrap().is_empty());
    }

    /// A run that started and ended (complete), labelled `label`.
    fn complete(store: &mut Store, label: Option<&str>) -> i64 {
        let id = store.begin_run(&run(label), &overhead()).unwrap();
        store
            .finish_run(id, RunStatus::Complete, crate::model::wallclock::now())
            .unwrap();
        id
    }

    fn runs_are_named_by_id_label_last_or_last_any(mut store: Store) {
        assert!(matches!(store.resolve("last"), Err(StoreError::NoRuns)));
        assert!(matches!(store.resolve("last-any"), Err(StoreError::NoRuns)));
        let a = complete(&mut store, Some("base"));
        let b = complete(&mut store, None);
        // Still going (this process is its writer): the newest run, not a complete one.
        let c = store.begin_run(&run(Some("going")), &overhead()).unwrap();
        assert_eq!(store.resolve("last").unwrap(), b, "the newest complete run");
        assert_eq!(
            store.resolve("last-any").unwrap(),
            c,
            "the newest of any status"
        );
        assert_eq!(store.resolve(&a.to_string()).unwrap(), a);
        assert_eq!(store.resolve(&c.to_string()).unwrap(), c);
        assert_eq!(store.resolve("base").unwrap(), a);
        assert_eq!(store.resolve("going").unwrap(), c);
        assert!(matches!(
            store.resolve("99"),
            Err(StoreError::UnknownRun(_))
        ));
        assert!(matches!(
            store.resolve("nope"),
            Err(StoreError::UnknownLabel(_))
        ));
        let ids: Vec<i64> = store.runs().unwrap().iter().map(|r| r.id).collect();
        assert_eq!(ids, vec![c, b, a], "newest first");
    }

    fn a_label_given_to_two_runs_is_ambiguous_and_lists_them(mut store: Store) {
        let a = complete(&mut store, Some("base"));
        complete(&mut store, Some("other"));
        let c = complete(&mut store, Some("base"));
        let err = store.resolve("base").unwrap_err();
        match &err {
            StoreError::AmbiguousLabel { label, ids } => {
                assert_eq!(label, "base");
                assert_eq!(ids, &vec![a, c]);
            }
            other => panic!("{other}"),
        }
        assert!(err.is_usage());
        assert!(err.to_string().contains("names 2 runs (1, 3)"), "{err}");
    }

    fn last_is_never_an_unfinished_run(mut store: Store) {
        let id = store.begin_run(&run(None), &overhead()).unwrap();
        store
            .finish_run(id, RunStatus::Interrupted, crate::model::wallclock::now())
            .unwrap();
        let err = store.resolve("last").unwrap_err();
        assert!(
            matches!(&err, StoreError::NoCompleteRun { latest, status } if *latest == id && status == "interrupted"),
            "{err}"
        );
        assert!(err.to_string().contains("last-any"), "{err}");
        assert_eq!(store.resolve("last-any").unwrap(), id);
    }

    fn a_run_whose_writer_died_reads_back_interrupted(mut store: Store) {
        let id = store.begin_run(&run(None), &overhead()).unwrap();
        // Pretend the writer was a process that has exited.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        store
            .db
            .exec(
                "UPDATE runs SET pid = ?1 WHERE id = ?2",
                vals![i64::from(pid), id],
            )
            .unwrap();
        assert_eq!(store.runs().unwrap()[0].status, RunStatus::Interrupted);
        assert_eq!(store.load(id).unwrap().run.status, RunStatus::Interrupted);
    }

    fn an_import_is_stored_whole_and_keeps_its_overhead(mut store: Store) {
        let mut r = run(None);
        r.status = RunStatus::Complete;
        r.results = vec![result("syscall.getpid", 1e-7)];
        let Imported::New(id) = store.import_run(&r, "elsewhere.json").unwrap() else {
            panic!("a new run was not stored");
        };
        let back = store.load(id).unwrap();
        assert_eq!(back.row.imported_from.as_deref(), Some("elsewhere.json"));
        assert_eq!(back.overhead.per_iter_s, 1e-9);
        assert_eq!(back.run.results.len(), 1);
    }

    fn the_same_run_is_imported_once_whatever_its_file_says_besides(mut store: Store) {
        let mut r = run(None);
        r.status = RunStatus::Complete;
        r.results = vec![result("syscall.getpid", 1e-7)];
        let first = store.import_run(&r, "a.json").unwrap();
        let Imported::New(id) = first else {
            panic!("{first:?}")
        };
        // Re-exported with a label and more results: still the same run.
        let mut again = r.clone();
        again.options.label = Some("renamed".into());
        again.results.push(result("syscall.getuid", 2e-7));
        assert_eq!(
            store.import_run(&again, "b.json").unwrap(),
            Imported::AlreadyStored(id)
        );
        assert_eq!(store.runs().unwrap().len(), 1, "nothing written");
        // Another host, or another start: another run.
        let mut elsewhere = r.clone();
        elsewhere.environment.hostname = "otherhost".into();
        assert!(matches!(
            store.import_run(&elsewhere, "c.json").unwrap(),
            Imported::New(_)
        ));
        let mut later = r.clone();
        later.started_at += chrono::Duration::nanoseconds(1);
        assert!(matches!(
            store.import_run(&later, "d.json").unwrap(),
            Imported::New(_)
        ));
        // A run recorded here as it went, then imported from its `--json` file: the same.
        let live = store.begin_run(&run(None), &overhead()).unwrap();
        let mut file = run(None);
        file.started_at = store.load(live).unwrap().run.started_at;
        assert_eq!(
            store.import_run(&file, "live.json").unwrap(),
            Imported::AlreadyStored(live)
        );
    }

    #[test]
    fn reopening_migrates_nothing_and_a_newer_schema_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.db");
        let mut store = Store::open(&path).unwrap();
        store.begin_run(&run(None), &overhead()).unwrap();
        drop(store);
        let store = Store::open(&path).unwrap();
        assert_eq!(store.runs().unwrap().len(), 1);
        let Db::Sqlite(conn) = &store.db else {
            unreachable!()
        };
        conn.pragma_update(None, "user_version", schema::current_version() + 1)
            .unwrap();
        drop(store);
        let err = Store::open(&path).err().expect("refused");
        assert!(matches!(err, StoreError::NewerSchema { .. }), "{err}");
        assert!(err.is_usage());
    }

    #[test]
    fn a_file_that_is_not_a_database_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.db");
        std::fs::write(&path, vec![b'x'; 4096]).unwrap();
        let err = Store::open(&path).err().expect("refused");
        assert!(matches!(err, StoreError::NotADatabase { .. }), "{err}");
    }
}

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
mod liveness;
mod location;
mod observations;
mod pgauth;
mod pgconn;
mod recorder;
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
pub use liveness::Liveness;
pub use location::{mask, Location};
pub use observations::{is_observation_name, ObservationRow};
pub use recorder::Recorder;

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

/// How long to wait on the database: [`TIMEOUT_ENV`] when set, else `default`. A value
/// that is not seconds from 0.1 to a day is refused, naming it.
fn patience(default: Duration) -> Result<Duration, String> {
    let Some(text) = std::env::var_os(TIMEOUT_ENV).filter(|v| !v.is_empty()) else {
        return Ok(default);
    };
    let text = text.to_string_lossy();
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| (0.1..=86_400.0).contains(s))
        .map(Duration::from_secs_f64)
        .ok_or_else(|| {
            format!(
                "${TIMEOUT_ENV}={}: give seconds from 0.1 to 86400",
                text.escape_debug()
            )
        })
}

/// A database that cannot be opened on a full file system (SQLite says only "disk I/O
/// error" when it cannot make its `-shm` or `-wal` file) is said to be out of space, not
/// "not a timeshare database".
fn no_space(path: &Path, shown: &str) -> Option<StoreError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let free = crate::harness::limits::available_bytes(dir)?;
    (free < 64 << 10).then(|| StoreError::NoSpace {
        path: shown.to_string(),
        free,
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

    /// Connect to a PostgreSQL store. For writing, its schema is made or brought up to
    /// date; for reading, the session is read-only and nothing is created or migrated.
    /// Errors name the server by its URL with the password masked.
    fn open_postgres(url: &str, read_only: bool) -> Result<Store, StoreError> {
        let shown = location::mask(url);
        let mut config: postgres::Config = url.parse().map_err(|e| StoreError::CannotOpen {
            path: shown.clone(),
            why: format!("not a PostgreSQL URL: {}", scrub(&e, url)),
        })?;
        pgauth::fill_password(&mut config);
        let password = config
            .get_password()
            .map(|p| String::from_utf8_lossy(p).into_owned());
        let patience = patience(POSTGRES_PATIENCE).map_err(|why| StoreError::CannotOpen {
            path: shown.clone(),
            why,
        })?;
        let conn = pgconn::PgConn::connect(config, patience, &shown).map_err(|why| {
            StoreError::CannotOpen {
                path: shown.clone(),
                why: scrub_text(&why, url, password.as_deref()),
            }
        })?;
        let db = Db::Postgres(conn);
        // A cancelled statement (a lock held too long) or a lost connection says nothing
        // about what the database holds.
        let not_db = |e: StoreError| match e {
            StoreError::Postgres(e)
                if !e.is_closed()
                    && e.code() != Some(&postgres::error::SqlState::QUERY_CANCELED) =>
            {
                StoreError::NotADatabase {
                    path: shown.clone(),
                    why: scrub(&e, url),
                }
            }
            other => other,
        };
        if read_only {
            db.batch("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")?;
            let (identity, version) = schema::pg_identify(&db).map_err(not_db)?;
            match identity {
                schema::Identity::Ours => {}
                schema::Identity::Empty => {
                    return Err(StoreError::NotADatabase {
                        path: shown,
                        why: "it holds no timeshare store yet (run `timeshare run` first)".into(),
                    })
                }
                schema::Identity::Foreign(why) => {
                    return Err(StoreError::NotADatabase { path: shown, why })
                }
            }
            if version > schema::current_version() {
                return Err(StoreError::NewerSchema {
                    path: shown,
                    found: version,
                    known: schema::current_version(),
                });
            }
        } else {
            schema::pg_migrate(&db, &shown).map_err(not_db)?;
        }
        Ok(Store { db, path: shown })
    }

    /// Open (creating if needed) the database at `path` and bring its schema up to date.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let shown = path.display().to_string();
        check_file(path, &shown, true)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::CannotOpen {
                path: shown.clone(),
                why: format!("cannot create {}: {e}", dir.display()),
            })?;
        }
        let not_db = |e: rusqlite::Error| {
            no_space(path, &shown)
                .or_else(|| {
                    read_only_fs(path).map(|why| StoreError::CannotOpen {
                        path: shown.clone(),
                        why,
                    })
                })
                .or_else(|| side_file_link(path, &shown))
                .or_else(|| too_large(&e, &shown))
                .or_else(|| locked(&e, &shown))
                .unwrap_or(StoreError::NotADatabase {
                    path: shown.clone(),
                    why: e.to_string(),
                })
        };
        let patience = patience(SQLITE_PATIENCE).map_err(|why| StoreError::CannotOpen {
            path: shown.clone(),
            why,
        })?;
        // The path has no link left in it (see the command line's store rule): SQLite
        // refuses one appearing since, and opens its journal and WAL files without
        // following links in any case.
        let flags = rusqlite::OpenFlags::default() | rusqlite::OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let mut conn =
            Connection::open_with_flags(path, flags).map_err(|e| StoreError::CannotOpen {
                path: shown.clone(),
                why: read_only_fs(path).unwrap_or_else(|| e.to_string()),
            })?;
        conn.busy_timeout(patience)?;
        // Before anything is written (WAL, tables): another application's database, or a
        // file that is no database at all, is refused untouched. An empty one is made ours.
        match retry_busy(patience, || schema::identify(&conn)).map_err(not_db)? {
            schema::Identity::Ours | schema::Identity::Empty => {}
            schema::Identity::Foreign(why) => {
                return Err(StoreError::NotADatabase { path: shown, why })
            }
        }
        retry_busy(patience, || conn.pragma_update(None, "journal_mode", "WAL")).map_err(not_db)?;
        conn.pragma_update(None, "foreign_keys", true)?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        schema::migrate(&mut conn, &shown).map_err(|e| match e {
            StoreError::Sqlite(e) => not_db(e),
            other => other,
        })?;
        schema::mark_ours(&conn)?;
        Ok(Store {
            db: Db::Sqlite(conn),
            path: shown,
        })
    }

    /// Open an existing database for reading only (`history`, `show`, `export`, …): the
    /// file is opened with `SQLITE_OPEN_READ_ONLY`, so nothing is created, migrated or
    /// switched to WAL, and a file without write permission reads as well as any. A
    /// database that is not timeshare's, or is from a newer schema, is refused untouched.
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        use rusqlite::OpenFlags;
        let shown = path.display().to_string();
        check_file(path, &shown, false)?;
        let not_db = |e: rusqlite::Error| {
            no_space(path, &shown)
                .or_else(|| side_file_link(path, &shown))
                .or_else(|| too_large(&e, &shown))
                .or_else(|| locked(&e, &shown))
                .unwrap_or(StoreError::NotADatabase {
                    path: shown.clone(),
                    why: e.to_string(),
                })
        };
        let patience = patience(SQLITE_PATIENCE).map_err(|why| StoreError::CannotOpen {
            path: shown.clone(),
            why,
        })?;
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let open = |uri: String| -> Result<Connection, StoreError> {
            let conn =
                Connection::open_with_flags(uri, flags).map_err(|e| StoreError::CannotOpen {
                    path: shown.clone(),
                    why: e.to_string(),
                })?;
            conn.busy_timeout(patience)?;
            Ok(conn)
        };
        let uri = file_uri(path);
        let mut conn = open(uri.clone())?;
        let identity = match schema::identify(&conn) {
            Ok(i) => i,
            // A WAL database in a directory this user cannot write (SQLite says "cannot
            // open" or "attempt to write a readonly database"), or on a full file system
            // (no `-shm` can be made): read it as it stands on disk.
            Err(rusqlite::Error::SqliteFailure(f, _))
                if f.code == rusqlite::ErrorCode::CannotOpen
                    || f.code == rusqlite::ErrorCode::ReadOnly
                    || (f.code == rusqlite::ErrorCode::SystemIoFailure
                        && no_space(path, &shown).is_some()) =>
            {
                conn = open(format!("{uri}?immutable=1"))?;
                schema::identify(&conn).map_err(not_db)?
            }
            Err(e) => return Err(not_db(e)),
        };
        match identity {
            schema::Identity::Ours => {}
            schema::Identity::Empty => {
                return Err(StoreError::NotADatabase {
                    path: shown,
                    why: "it is empty".into(),
                })
            }
            schema::Identity::Foreign(why) => {
                return Err(StoreError::NotADatabase { path: shown, why })
            }
        }
        let version: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version > schema::current_version() {
            return Err(StoreError::NewerSchema {
                path: shown,
                found: version,
                known: schema::current_version(),
            });
        }
        Ok(Store {
            db: Db::Sqlite(conn),
            path: shown,
        })
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
        let finished_at = run.finished_at.unwrap_or_else(Utc::now);
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

    /// The headlines of the newest `limit` complete runs made like one with `options` on
    /// the machine `env` describes: same host name, kernel release and CPU model, same
    /// mode, the same number of processes and the same pinning, no precision target, not
    /// imported. One map of id → headline per run, newest first: what the run-to-run
    /// spread is learned from (`model::runlevel`).
    pub fn earlier_headlines(
        &self,
        env: &Environment,
        options: &crate::model::RunOptions,
        limit: usize,
    ) -> Result<Vec<std::collections::BTreeMap<String, f64>>, StoreError> {
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
            if !alike {
                continue;
            }
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

/// A driver's error text with the URL's password masked, should it quote the URL.
fn scrub(e: &dyn std::error::Error, url: &str) -> String {
    scrub_text(&chain(e), url, None)
}

/// `text` with the URL's password, and `password` (from the environment or a passfile),
/// masked.
fn scrub_text(text: &str, url: &str, password: Option<&str>) -> String {
    let text = match password {
        Some(pw) if !pw.is_empty() => text.replace(pw, "***"),
        _ => text.to_string(),
    };
    let masked = location::mask(url);
    let text = text.replace(url, &masked);
    match password_of(url) {
        Some(pw) if !pw.is_empty() => text.replace(&pw, "***"),
        _ => text,
    }
}

/// The password a URL carries, if any (`user:password@`).
fn password_of(url: &str) -> Option<String> {
    let rest = &url[url.find("://")? + 3..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let userinfo = &authority[..authority.rfind('@')?];
    Some(userinfo.split_once(':')?.1.to_string())
}

/// A database file must be a regular file (a FIFO would hang SQLite's first read, a
/// device is no database), and one to write must be writable by this user: said now,
/// in one line, rather than as SQLite's "attempt to write a readonly database" later.
fn check_file(path: &Path, shown: &str, write: bool) -> Result<(), StoreError> {
    let cannot = |why: String| StoreError::CannotOpen {
        path: shown.to_string(),
        why,
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(_) if write => return check_can_create(path, shown),
        Err(_) => return Ok(()),
    };
    if !meta.is_file() {
        return Err(cannot("it is not a regular file".into()));
    }
    if write && !access_ok(path, libc::W_OK) {
        use std::os::unix::fs::MetadataExt;
        return Err(cannot(format!(
            "this user (uid {}) may not write it (it belongs to uid {}, mode {:o}); read \
             it with history/show/export, or give another --db",
            // SAFETY: getuid cannot fail.
            unsafe { libc::getuid() },
            meta.uid(),
            meta.mode() & 0o7777
        )));
    }
    Ok(())
}

/// A database to be made in a directory this user may not write is said so in one line,
/// before SQLite's "unable to open database file".
fn check_can_create(path: &Path, shown: &str) -> Result<(), StoreError> {
    use std::os::unix::fs::MetadataExt;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Ok(meta) = std::fs::metadata(dir) else {
        // Not there yet: making it will say what is wrong.
        return Ok(());
    };
    if !meta.is_dir() || access_ok(dir, libc::W_OK | libc::X_OK) {
        return Ok(());
    }
    Err(StoreError::CannotOpen {
        path: shown.to_string(),
        why: format!(
            "this user (uid {}) may not make a file in {} (it belongs to uid {}, mode {:o}); \
             give another --db",
            // SAFETY: getuid cannot fail.
            unsafe { libc::getuid() },
            dir.display(),
            meta.uid(),
            meta.mode() & 0o7777
        ),
    })
}

/// access(2): whether this process's real user may use `path` as `mode` says.
fn access_ok(path: &Path, mode: libc::c_int) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated string that outlives the call.
    unsafe { libc::access(c.as_ptr(), mode) == 0 }
}

/// A database another process holds locked is that, not a foreign file.
/// "read-only file system" when the store's directory is on one (SQLite says "unable to
/// open database file" or "attempt to write a readonly database", EROFS unnamed).
fn read_only_fs(path: &Path) -> Option<String> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    crate::harness::limits::read_only_fs(dir).then(|| {
        "read-only file system (os error 30): the store must be where it can be written".into()
    })
}

/// A `-wal` or `-shm` beside the database that is a symbolic link: SQLite will not open
/// it through the link (`SQLITE_OPEN_NOFOLLOW`) and says only "disk I/O error", which
/// read as "not a timeshare database"; the link is what to look at.
fn side_file_link(path: &Path, shown: &str) -> Option<StoreError> {
    let mut side = path.as_os_str().to_owned();
    for suffix in ["-wal", "-shm"] {
        side.push(suffix);
        let is_link = std::fs::symlink_metadata(&side).is_ok_and(|m| m.file_type().is_symlink());
        if is_link {
            return Some(StoreError::CannotOpen {
                path: shown.to_string(),
                why: format!(
                    "its {suffix} file is a symbolic link, which timeshare does not open \
                     through (remove the link if the database is yours)"
                ),
            });
        }
        side = path.as_os_str().to_owned();
    }
    None
}

/// An I/O error under a file size limit (`ulimit -f`): SQLite says "disk I/O error" when
/// it cannot grow its `-shm` or `-wal` file past the limit (EFBIG); the limit is named.
fn too_large(e: &rusqlite::Error, shown: &str) -> Option<StoreError> {
    let rusqlite::Error::SqliteFailure(f, _) = e else {
        return None;
    };
    let limit = crate::harness::limits::rlimit(libc::RLIMIT_FSIZE)?;
    matches!(
        f.code,
        rusqlite::ErrorCode::SystemIoFailure | rusqlite::ErrorCode::DiskFull
    )
    .then(|| StoreError::CannotOpen {
        path: shown.to_string(),
        why: format!(
            "File too large: the file size limit (ulimit -f) is {limit} bytes, too small for \
             the database's journal"
        ),
    })
}

fn locked(e: &rusqlite::Error, shown: &str) -> Option<StoreError> {
    let rusqlite::Error::SqliteFailure(f, _) = e else {
        return None;
    };
    matches!(
        f.code,
        rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
    )
    .then(|| StoreError::CannotOpen {
        path: shown.to_string(),
        why: "another process holds it locked (database is locked); try again when it is \
              done"
            .into(),
    })
}

/// `path` as an SQLite `file:` URI, with the characters URIs reserve escaped.
fn file_uri(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut uri = String::from("file:");
    for &b in path.as_os_str().as_bytes() {
        match b {
            b'?' | b'#' | b'%' => uri.push_str(&format!("%{b:02X}")),
            _ if b.is_ascii() && !b.is_ascii_control() => uri.push(b as char),
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    uri
}

const RUN_ROW_SQL: &str = "SELECT r.id, r.started_at, r.finished_at, r.status, r.mode, \
    r.selection, r.label, r.host, r.imported_from, r.pid, r.pid_start, r.boot_id, \
    (SELECT count(*) FROM results s WHERE s.run_id = r.id) FROM runs r";

/// A row as stored, before the liveness of a `running` run's writer is looked at.
struct RawRow {
    row: RunRow,
    stored_status: String,
    writer: Option<Liveness>,
}

impl RawRow {
    fn into_row(self) -> RunRow {
        let mut row = self.row;
        row.status = match self.stored_status.as_str() {
            "complete" => RunStatus::Complete,
            "interrupted" => RunStatus::Interrupted,
            _ => match &self.writer {
                Some(w) if w.is_gone() => RunStatus::Interrupted,
                _ => RunStatus::Running,
            },
        };
        row
    }
}

fn read_run_row(r: Vec<Value>) -> RawRow {
    // A time no calendar of ours holds (an import from before validation, a hand-edited
    // row) must not make every listing fail: it reads as the earliest time there is, and
    // the rest of the row is shown as stored.
    let time = |s: String| -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(&s)
            .map(|t| t.with_timezone(&Utc))
            .or_else(|_| s.parse::<DateTime<Utc>>())
            .unwrap_or(DateTime::<Utc>::UNIX_EPOCH)
    };
    let writer = match (r[9].int(), r[11].text()) {
        (Some(pid), Some(boot_id)) => Some(Liveness {
            pid: pid as i32,
            start_ticks: r[10].int().map(|s| s as u64),
            boot_id,
        }),
        _ => None,
    };
    RawRow {
        row: RunRow {
            id: r[0].int().unwrap_or_default(),
            started_at: time(r[1].text().unwrap_or_default()),
            finished_at: r[2].text().map(time),
            status: RunStatus::Running,
            mode: r[4].text().unwrap_or_default(),
            selection: r[5].text().unwrap_or_default(),
            label: r[6].text(),
            host: r[7].text().unwrap_or_default(),
            imported_from: r[8].text(),
            results: r[12].int().unwrap_or_default() as usize,
        },
        stored_status: r[3].text().unwrap_or_default(),
        writer,
    }
}

fn insert_run(
    db: &Db,
    run: &Run,
    overhead: Option<&Overhead>,
    imported_from: Option<&str>,
    writer: Option<&Liveness>,
) -> Result<i64, StoreError> {
    let env_id = insert_environment(db, &run.environment)?;
    let header = Run {
        results: Vec::new(),
        ..run.clone()
    };
    let selection = if run.options.selection.is_empty() {
        "all".to_string()
    } else {
        run.options.selection.join(" ")
    };
    let status = match (imported_from, run.status) {
        // An imported run that was still going when exported cannot go on here.
        (Some(_), RunStatus::Running) => RunStatus::Interrupted,
        (_, s) => s,
    };
    db.query_one(
        "INSERT INTO runs (started_at, finished_at, status, mode, selection, label, host, \
         environment_id, imported_from, pid, pid_start, boot_id, clock_overhead_s, \
         loop_overhead_s, run_json) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) \
         RETURNING id",
        vals![
            run.started_at.to_rfc3339(),
            run.finished_at.map(|t| t.to_rfc3339()),
            status_name(status),
            mode_name(run.options.mode),
            selection,
            run.options.label.clone(),
            run.environment.hostname.as_str(),
            env_id,
            imported_from,
            writer.map(|w| w.pid as i64),
            writer.and_then(|w| w.start_ticks).map(|t| t as i64),
            writer.map(|w| w.boot_id.clone()),
            overhead.map(|o| o.clock_s),
            overhead.map(|o| o.per_iter_s),
            serde_json::to_string(&header)?,
        ],
    )?
    .int()
    .ok_or_else(|| StoreError::Damaged("no id for a new run".into()))
}

/// Run one step of opening a database, again while SQLite says "database is locked":
/// while another process creates the same database and switches it to WAL, SQLite answers
/// some steps of opening it (the switch to WAL above all) at once, without waiting on the
/// busy timeout. Three runs started together on a new database failed so about once in six.
fn retry_busy<T>(
    patience: Duration,
    mut step: impl FnMut() -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    let start = Instant::now();
    loop {
        match step() {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && start.elapsed() < patience.min(Duration::from_secs(10)) =>
            {
                std::thread::sleep(Duration::from_millis(20))
            }
            other => return other,
        }
    }
}

fn insert_environment(db: &Db, env: &Environment) -> Result<i64, StoreError> {
    let json = serde_json::to_string(env)?;
    db.query_one(
        "INSERT INTO environments (hostname, kernel, cpu_model, json) \
         VALUES (?1, ?2, ?3, ?4) RETURNING id",
        vals![
            env.hostname.as_str(),
            env.kernel.release.as_str(),
            env.cpu.model.as_str(),
            json
        ],
    )?
    .int()
    .ok_or_else(|| StoreError::Damaged("no id for a new environment".into()))
}

fn insert_result(db: &Db, run_id: i64, seq: usize, r: &BenchResult) -> Result<(), StoreError> {
    let status = match r.status {
        Status::Ok => "ok",
        Status::Skipped { .. } => "skipped",
        Status::Failed { .. } => "failed",
    };
    db.exec(
        "INSERT INTO results (run_id, seq, id, status, median, unit, json) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
         ON CONFLICT (run_id, seq) DO UPDATE SET id = excluded.id, status = excluded.status, \
         median = excluded.median, unit = excluded.unit, json = excluded.json",
        vals![
            run_id,
            seq as i64,
            r.id.as_str(),
            status,
            r.median(),
            r.unit.symbol(),
            serde_json::to_string(r)?,
        ],
    )?;
    Ok(())
}

/// The overhead a run was corrected by, read back from its results' calibration records
/// (for imported runs, whose file does not carry the header figures separately).
pub fn overhead_from_calibration(run: &Run) -> Option<Overhead> {
    run.results
        .iter()
        .find_map(|r| r.calibration.as_ref())
        .map(|c| Overhead {
            clock_s: c.clock_overhead_s,
            per_iter_s: c.loop_overhead_s,
            resolution_s: f64::NAN,
        })
}

pub fn status_name(s: RunStatus) -> &'static str {
    match s {
        RunStatus::Running => "running",
        RunStatus::Complete => "complete",
        RunStatus::Interrupted => "interrupted",
    }
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Quick => "quick",
        Mode::Full => "full",
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

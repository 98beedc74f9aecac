//! The database schema and its migrations, numbered by SQLite's `PRAGMA user_version`.
//!
//! Migration `i` (0-based in [`MIGRATIONS`]) takes a database from version `i` to `i + 1`.
//! Each runs in the same transaction as the bump of `user_version`, so a database is
//! either wholly at the old version or wholly at the new one. A database whose version is
//! higher than `MIGRATIONS.len()` was written by a newer timeshare and is refused rather
//! than guessed at.

use rusqlite::{Connection, TransactionBehavior};

use super::StoreError;

/// Version 1: environments, runs and results.
///
/// - `runs.run_json` is the whole `Run` record without its results (tool, options,
///   warnings, environment); the columns beside it are the ones queried and shown.
/// - `runs.pid`, `runs.pid_start`, `runs.boot_id` identify the process that is writing a
///   run still marked `running`, so that a run whose writer died (kill -9, power cut)
///   can be told from one still going on.
/// - `results.json` is each `BenchResult` in full, samples included; `id`, `status`,
///   `median` and `unit` are copies kept as columns for queries.
const V1: &str = "
CREATE TABLE environments (
    id          INTEGER PRIMARY KEY,
    hostname    TEXT NOT NULL,
    kernel      TEXT NOT NULL,
    cpu_model   TEXT NOT NULL,
    json        TEXT NOT NULL
);
CREATE TABLE runs (
    id              INTEGER PRIMARY KEY,
    started_at      TEXT NOT NULL,
    finished_at     TEXT,
    status          TEXT NOT NULL,
    mode            TEXT NOT NULL,
    selection       TEXT NOT NULL,
    label           TEXT,
    host            TEXT NOT NULL,
    environment_id  INTEGER NOT NULL REFERENCES environments(id),
    imported_from   TEXT,
    pid             INTEGER,
    pid_start       INTEGER,
    boot_id         TEXT,
    clock_overhead_s REAL,
    loop_overhead_s  REAL,
    run_json        TEXT NOT NULL
);
CREATE INDEX runs_by_label ON runs(label);
CREATE TABLE results (
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    id          TEXT NOT NULL,
    status      TEXT NOT NULL,
    median      REAL,
    unit        TEXT NOT NULL,
    json        TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX results_by_id ON results(id);
";

/// Every migration in order; the schema version of this build is their count.
const MIGRATIONS: &[&str] = &[V1];

/// `PRAGMA application_id` of a timeshare database ("TSHR"), set when it is made or first
/// opened for writing, so that it can be told from another application's SQLite file.
pub const APPLICATION_ID: i32 = 0x5453_4852;

/// What an SQLite file is, read without writing anything.
#[derive(Debug, PartialEq, Eq)]
pub enum Identity {
    /// timeshare's: our application id, or (older files) our tables and schema version.
    Ours,
    /// No tables and no application id: a new database, or an empty file.
    Empty,
    /// Another application's database; says why.
    Foreign(String),
}

/// Tell timeshare's database from another application's. The first statement that reads
/// the file also tells a file that is no database at all (an error).
pub fn identify(conn: &Connection) -> rusqlite::Result<Identity> {
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let app: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    let version: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if app == APPLICATION_ID {
        return Ok(Identity::Ours);
    }
    if app != 0 {
        return Ok(Identity::Foreign(format!(
            "its application id is {app:#x}, not timeshare's"
        )));
    }
    if tables.is_empty() && version == 0 {
        return Ok(Identity::Empty);
    }
    let ours = ["environments", "results", "runs"]
        .iter()
        .all(|t| tables.iter().any(|n| n == t));
    if ours && version >= 1 {
        Ok(Identity::Ours)
    } else {
        Ok(Identity::Foreign(format!(
            "it holds other tables ({})",
            if tables.is_empty() {
                "none".to_string()
            } else {
                tables.join(", ")
            }
        )))
    }
}

/// Set timeshare's application id on a database opened for writing, if it has none.
pub fn mark_ours(conn: &Connection) -> rusqlite::Result<()> {
    let app: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    if app != APPLICATION_ID {
        conn.pragma_update(None, "application_id", APPLICATION_ID)?;
    }
    Ok(())
}

pub fn current_version() -> u32 {
    MIGRATIONS.len() as u32
}

/// Bring `conn` to the current version, or refuse a database from a newer schema.
pub fn migrate(conn: &mut Connection, path: &str) -> Result<(), StoreError> {
    // IMMEDIATE: take the write lock before reading the version, so that two processes
    // opening a new database at once do not both try to create the tables.
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: u32 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > current_version() {
        return Err(StoreError::NewerSchema {
            path: path.to_string(),
            found: version,
            known: current_version(),
        });
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (i + 1) as u32)?;
    }
    tx.commit()?;
    Ok(())
}

//! The rows of the store's tables: a run's row read and written, its environment and
//! results inserted.

use super::*;

pub(super) const RUN_ROW_SQL: &str = "SELECT r.id, r.started_at, r.finished_at, r.status, r.mode, \
    r.selection, r.label, r.host, r.imported_from, r.pid, r.pid_start, r.boot_id, \
    (SELECT count(*) FROM results s WHERE s.run_id = r.id) FROM runs r";

/// A row as stored, before the liveness of a `running` run's writer is looked at.
pub(super) struct RawRow {
    pub(super) row: RunRow,
    pub(super) stored_status: String,
    pub(super) writer: Option<Liveness>,
}

impl RawRow {
    pub(super) fn into_row(self) -> RunRow {
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

pub(super) fn read_run_row(r: Vec<Value>) -> RawRow {
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

pub(super) fn insert_run(
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
pub(super) fn retry_busy<T>(
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

pub(super) fn insert_environment(db: &Db, env: &Environment) -> Result<i64, StoreError> {
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

pub(super) fn insert_result(
    db: &Db,
    run_id: i64,
    seq: usize,
    r: &BenchResult,
) -> Result<(), StoreError> {
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

pub(super) fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Quick => "quick",
        Mode::Full => "full",
    }
}

//! What can go wrong with the results store, each said as one line; [`StoreError::is_usage`]
//! tells the user's mistakes (a name, a file) from the machine's.

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "database {path} has schema version {found}, newer than this timeshare knows ({known}); \
         upgrade timeshare, or use --db to choose another database"
    )]
    NewerSchema {
        path: String,
        found: u32,
        known: u32,
    },
    #[error("{path} is not a timeshare database ({why})")]
    NotADatabase { path: String, why: String },
    #[error("cannot open the results database {path}: {why}")]
    CannotOpen { path: String, why: String },
    #[error(
        "no space left on the file system holding the results database {path} ({free} bytes \
         free): free some space, or choose another with --db (or --no-save)"
    )]
    NoSpace { path: String, free: u64 },
    #[error("no run {0} in the database (see `timeshare history`)")]
    UnknownRun(String),
    #[error("no run labelled {0:?} in the database (see `timeshare history`)")]
    UnknownLabel(String),
    #[error(
        "the label {label:?} names {} runs ({}): name one by its id (see `timeshare history`)",
        ids.len(),
        ids.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
    )]
    AmbiguousLabel { label: String, ids: Vec<i64> },
    #[error("the database is empty: no run to call `last` (run `timeshare run` first)")]
    NoRuns,
    #[error(
        "no complete run to call `last`: the newest, run {latest}, is {status} \
         (name it by its id, or say `last-any`)"
    )]
    NoCompleteRun { latest: i64, status: String },
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("database error: {}", chain(.0))]
    Postgres(#[from] postgres::Error),
    #[error(
        "the PostgreSQL server of {path} stopped answering: nothing for {secs} s (is it \
         stopped or overloaded? $TIMESHARE_DB_TIMEOUT sets how long to wait)"
    )]
    NoAnswer { path: String, secs: u64 },
    #[error("stored record is damaged: {0}")]
    Damaged(String),
    #[error("stored record is damaged: {0}")]
    Json(#[from] serde_json::Error),
}

impl StoreError {
    /// True when the error is the user's input (a name, a file), not the machine's.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            StoreError::NewerSchema { .. }
                | StoreError::NotADatabase { .. }
                | StoreError::CannotOpen { .. }
                | StoreError::UnknownRun(_)
                | StoreError::UnknownLabel(_)
                | StoreError::AmbiguousLabel { .. }
                | StoreError::NoRuns
                | StoreError::NoCompleteRun { .. }
        )
    }
}

/// An error and its causes on one line ("db error: FATAL: password authentication
/// failed for user \"ts\""): the driver's own text says only "db error".
pub(super) fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    text
}

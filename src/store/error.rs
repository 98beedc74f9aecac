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
    one_line(&text)
}

/// The longest a server's message is shown, in characters.
const MAX_SERVER_MESSAGE: usize = 500;

/// A server's message as one line of bounded length: a server (or something posing as
/// one) may answer with megabytes over many lines, and a one-line error is what every
/// command promises. Control characters are shown escaped, the rest cut with a count.
fn one_line(text: &str) -> String {
    let mut shown = String::new();
    for c in text.chars().take(MAX_SERVER_MESSAGE) {
        match c {
            '\n' | '\r' => shown.push(' '),
            c if c.is_control()
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') =>
            {
                shown.extend(c.escape_unicode())
            }
            c => shown.push(c),
        }
    }
    let total = text.chars().count();
    if total > MAX_SERVER_MESSAGE {
        shown.push_str(&format!(
            " … ({} more characters)",
            total - MAX_SERVER_MESSAGE
        ));
    }
    shown
}

#[cfg(test)]
mod one_line_tests {
    #[test]
    fn a_huge_server_message_is_one_bounded_line() {
        let huge = format!("ERROR: {}\nline two\x1b[2J", "x".repeat(5 << 20));
        let shown = super::one_line(&huge);
        assert!(shown.len() < 700, "{}", shown.len());
        assert!(!shown.contains('\n') && !shown.contains('\x1b'));
        assert!(shown.starts_with("ERROR: xxx") && shown.contains("more characters"));
        assert_eq!(super::one_line("short: why\nnext"), "short: why next");
    }
}

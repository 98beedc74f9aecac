//! `--db PATH|URL`: which results store a subcommand uses (else `$TIMESHARE_DB`, else the
//! user's data directory): an SQLite file, or a shared PostgreSQL server named by a
//! `postgresql://` URL. Shared by `run` and every subcommand that reads the store.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::errors::UsageError;
use crate::harness::outpolicy::{self, Rules};
use crate::store::{self, Location, Store, StoredRun};

#[derive(Debug, Args, Clone, Default)]
pub struct DbArgs {
    /// The results store: an SQLite file, or a shared PostgreSQL store as
    /// postgresql://USER@HOST/DB, its password in PGPASSWORD or ~/.pgpass, never here
    /// [default: $TIMESHARE_DB (which may hold a password), else
    /// $XDG_DATA_HOME/timeshare/runs.db]
    #[arg(long, value_name = "PATH|URL", global = true)]
    pub db: Option<PathBuf>,
}

impl DbArgs {
    /// The store this invocation uses.
    pub fn location(&self) -> Result<Location> {
        let location = store::resolve(self.db.as_deref()).ok_or_else(|| {
            UsageError(
                "no data directory for the results database: give --db PATH or set TIMESHARE_DB"
                    .into(),
            )
        })?;
        let flag = if self.db.is_some() {
            "--db"
        } else {
            store::DB_ENV
        };
        match location.map_err(|why| UsageError(format!("{flag}: {why}")))? {
            Location::File(path) => {
                outpolicy::decide_store(&path)
                    .map(Location::File)
                    .map_err(|why| {
                        UsageError(format!("cannot use {flag} {}: {why}", path.display())).into()
                    })
            }
            other => Ok(other),
        }
    }

    /// The rules for this invocation's output files: never the store's SQLite file.
    pub fn output_rules(&self) -> Rules {
        let store = match self.location() {
            Ok(Location::File(p)) => Some(p),
            _ => None,
        };
        Rules {
            store,
            ..Rules::default()
        }
    }

    /// Whether the user chose the database (`--db`, `$TIMESHARE_DB`) rather than taking
    /// the default one.
    pub fn is_chosen(&self) -> bool {
        self.db.is_some() || std::env::var_os(store::DB_ENV).is_some_and(|v| !v.is_empty())
    }

    /// Open the database, creating it if needed.
    pub fn open(&self) -> Result<Store> {
        Store::open_at(&self.location()?).map_err(usage_if_user)
    }

    /// The database `run` saves to. A database the user chose (`--db`, `$TIMESHARE_DB`)
    /// must open, or nothing runs. The default one may be impossible to create (a read-only
    /// home, a user without one): then the run goes on unsaved, with a warning. A database
    /// from a newer timeshare is refused wherever it is.
    pub fn open_for_run(&self) -> Result<Option<Store>> {
        let chosen = self.is_chosen();
        let location = self.location()?;
        match Store::open_at(&location) {
            Ok(s) => Ok(Some(s)),
            Err(e @ store::StoreError::NewerSchema { .. }) => Err(usage_if_user(e)),
            Err(e) if chosen => Err(usage_if_user(e)),
            Err(e) => {
                super::output::warn(&format!(
                    "not saving this run: {e} (give --db PATH to save it elsewhere)"
                ));
                Ok(None)
            }
        }
    }

    /// Open an existing database for reading only: reading commands never create,
    /// migrate or change one (see [`Store::open_read_only`]).
    pub fn open_existing(&self) -> Result<Store> {
        let location = self.location()?;
        if let Location::File(path) = &location {
            if !path.exists() {
                return Err(UsageError(format!(
                    "no results database at {} (run `timeshare run` first, or give --db)",
                    path.display()
                ))
                .into());
            }
        }
        Store::open_existing_at(&location).map_err(usage_if_user)
    }
}

/// A store error that is the user's doing (a name, a file) becomes a usage error (exit 2).
pub fn usage_if_user(e: store::StoreError) -> anyhow::Error {
    if e.is_usage() {
        UsageError(e.to_string()).into()
    } else {
        e.into()
    }
}

/// The run the user named (an id, a label, `last`, `last-any`), in full, brought up to
/// this schema (see [`crate::bench::fill_bases`]).
pub fn load_run(store: &Store, name: &str) -> Result<StoredRun> {
    let id = store
        .resolve(name)
        .map_err(|e| with_run_hint(store, name, e))?;
    load_id(store, id)
}

/// [`usage_if_user`], and for a name that is no run a "did you mean" among `last`,
/// `last-any` and the stored labels (`show lats` → `last`).
pub fn with_run_hint(store: &Store, name: &str, e: store::StoreError) -> anyhow::Error {
    if !matches!(e, store::StoreError::UnknownLabel(_)) {
        return usage_if_user(e);
    }
    let labels = run_names(store);
    let hint = super::suggest::hint(name, labels.iter().map(String::as_str));
    UsageError(format!("{e}{hint}")).into()
}

/// What names a stored run: `last`, `last-any` and every label, each once.
pub fn run_names(store: &Store) -> Vec<String> {
    let mut names = vec!["last".to_string(), "last-any".to_string()];
    if let Ok(rows) = store.runs() {
        for label in rows.into_iter().filter_map(|r| r.label) {
            if !names.contains(&label) {
                names.push(label);
            }
        }
    }
    names
}

/// The run `id`, in full, brought up to this schema.
pub fn load_id(store: &Store, id: i64) -> Result<StoredRun> {
    let mut stored = store.load(id)?;
    crate::bench::fill_bases(&mut stored.run);
    Ok(stored)
}

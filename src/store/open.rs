//! Opening a store: an SQLite file (for writing or reading only) or a PostgreSQL server.

use super::*;

impl Store {
    /// Connect to a PostgreSQL store. For writing, its schema is made or brought up to
    /// date; for reading, the session is read-only and nothing is created or migrated.
    /// Errors name the server by its URL with the password masked.
    pub(super) fn open_postgres(url: &str, read_only: bool) -> Result<Store, StoreError> {
        let shown = location::mask(url);
        let mut config: postgres::Config = url.parse().map_err(|e| StoreError::CannotOpen {
            path: shown.clone(),
            why: format!("not a PostgreSQL URL: {}", scrub(&e, url)),
        })?;
        pgauth::fill_password(&mut config);
        let password = config
            .get_password()
            .map(|p| String::from_utf8_lossy(p).into_owned());
        let patience = patience_for(POSTGRES_PATIENCE, &shown)?;
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
        let not_db = |e: rusqlite::Error| why_sqlite_failed(path, &shown, &e, true);
        let patience = patience_for(SQLITE_PATIENCE, &shown)?;
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
        let not_db = |e: rusqlite::Error| why_sqlite_failed(path, &shown, &e, false);
        let patience = patience_for(SQLITE_PATIENCE, &shown)?;
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
}

/// How long to wait for a busy store, `default` unless the environment says otherwise; a
/// bad setting is the store's error, naming it.
fn patience_for(default: Duration, shown: &str) -> Result<Duration, StoreError> {
    patience(default).map_err(|why| StoreError::CannotOpen {
        path: shown.to_string(),
        why,
    })
}

/// What an SQLite error while opening the file at `path` means to its user: no space, a
/// read-only file system (when `for_writing`), a side file that is a link, a file too
/// large, a lock held; else the file is no database of ours.
fn why_sqlite_failed(
    path: &Path,
    shown: &str,
    e: &rusqlite::Error,
    for_writing: bool,
) -> StoreError {
    let read_only = || {
        for_writing
            .then(|| read_only_fs(path))
            .flatten()
            .map(|why| StoreError::CannotOpen {
                path: shown.to_string(),
                why,
            })
    };
    no_space(path, shown)
        .or_else(read_only)
        .or_else(|| side_file_link(path, shown))
        .or_else(|| too_large(e, shown))
        .or_else(|| locked(e, shown))
        .unwrap_or(StoreError::NotADatabase {
            path: shown.to_string(),
            why: e.to_string(),
        })
}

//! What is said when a store's file cannot be used (missing, read-only, full, locked, too
//! large, a side file that is a link), and a URL's password kept out of error texts.

use super::*;

/// A database that cannot be opened on a full file system (SQLite says only "disk I/O
/// error" when it cannot make its `-shm` or `-wal` file) is said to be out of space, not
/// "not a timeshare database".
pub(super) fn no_space(path: &Path, shown: &str) -> Option<StoreError> {
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
/// A driver's error text with the URL's password masked, should it quote the URL.
pub(super) fn scrub(e: &dyn std::error::Error, url: &str) -> String {
    scrub_text(&chain(e), url, None)
}

/// `text` with the URL's password, and `password` (from the environment or a passfile),
/// masked.
pub(super) fn scrub_text(text: &str, url: &str, password: Option<&str>) -> String {
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
pub(super) fn password_of(url: &str) -> Option<String> {
    let rest = &url[url.find("://")? + 3..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let userinfo = &authority[..authority.rfind('@')?];
    Some(userinfo.split_once(':')?.1.to_string())
}

/// A database file must be a regular file (a FIFO would hang SQLite's first read, a
/// device is no database), and one to write must be writable by this user: said now,
/// in one line, rather than as SQLite's "attempt to write a readonly database" later.
pub(super) fn check_file(path: &Path, shown: &str, write: bool) -> Result<(), StoreError> {
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
pub(super) fn check_can_create(path: &Path, shown: &str) -> Result<(), StoreError> {
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
pub(super) fn access_ok(path: &Path, mode: libc::c_int) -> bool {
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
pub(super) fn read_only_fs(path: &Path) -> Option<String> {
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
pub(super) fn side_file_link(path: &Path, shown: &str) -> Option<StoreError> {
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
pub(super) fn too_large(e: &rusqlite::Error, shown: &str) -> Option<StoreError> {
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

pub(super) fn locked(e: &rusqlite::Error, shown: &str) -> Option<StoreError> {
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
pub(super) fn file_uri(path: &Path) -> String {
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

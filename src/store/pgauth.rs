//! How a PostgreSQL store is reached without a password on the command line: the
//! password from the URL (only from `$TIMESHARE_DB`), else `PGPASSWORD`, else a passfile
//! (`PGPASSFILE`, else `~/.pgpass`: lines `host:port:database:user:password`, `*`
//! matching anything, used only when no one but its owner may read it, as libpq does).

use std::io::BufRead;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::PathBuf;

/// Give `config` the password from the environment or a passfile when its URL had none.
pub fn fill_password(config: &mut postgres::Config) {
    if config.get_password().is_some() {
        return;
    }
    if let Some(pw) = std::env::var_os("PGPASSWORD").filter(|p| !p.is_empty()) {
        config.password(pw.as_encoded_bytes());
        return;
    }
    let Some(file) = passfile() else { return };
    let host = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(h)) => h.clone(),
        // libpq names a Unix socket's host "localhost" in the passfile.
        _ => "localhost".to_string(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let user = config.get_user().unwrap_or_default().to_string();
    let db = config.get_dbname().unwrap_or(&user).to_string();
    if let Some(pw) = lookup(&file, [&host, &port, &db, &user]) {
        config.password(pw);
    }
}

/// The passfile, when there is one only its owner may read.
fn passfile() -> Option<PathBuf> {
    let file = std::env::var_os("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| dirs::home_dir().map(|h| h.join(".pgpass")))?;
    let meta = std::fs::metadata(&file).ok()?;
    // A FIFO, a device or a directory named as the passfile would block the read (a FIFO
    // nobody writes to hangs every command) or mean nothing: only a regular file is read.
    if !meta.is_file() {
        eprintln!(
            "warning: passfile {} is not a regular file; not used",
            file.display().to_string().escape_debug()
        );
        return None;
    }
    if meta.permissions().mode() & 0o077 != 0 {
        eprintln!(
            "warning: passfile {} is readable by others (chmod 0600 it); not used",
            file.display()
        );
        return None;
    }
    Some(file)
}

/// The password of the first line of the passfile whose fields match `want`.
fn lookup(file: &std::path::Path, want: [&str; 4]) -> Option<String> {
    // Opened without blocking, and read only if it is still a regular file once open (a
    // FIFO swapped in after the check above would otherwise hang here).
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(file)
        .ok()?;
    if !f.metadata().ok()?.is_file() {
        return None;
    }
    for line in std::io::BufReader::new(f).lines() {
        let line = line.ok()?;
        if line.starts_with('#') {
            continue;
        }
        let fields = split_fields(&line);
        if fields.len() != 5 {
            continue;
        }
        if fields[..4]
            .iter()
            .zip(want)
            .all(|(f, w)| f == "*" || f == w)
        {
            return Some(fields[4].clone());
        }
    }
    None
}

/// A passfile line's fields: `:` separates, `\:` and `\\` stand for themselves.
fn split_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => fields.last_mut().unwrap().extend(chars.next()),
            ':' if fields.len() < 5 => fields.push(String::new()),
            c => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passfile_fields_match_with_wildcards_and_escapes() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pgpass");
        std::fs::write(
            &file,
            "# comment\nother:5432:*:ts:nope\n*:5432:timeshare:ts:p\\:w\\\\d\n",
        )
        .unwrap();
        assert_eq!(
            lookup(&file, ["db.lab", "5432", "timeshare", "ts"]).as_deref(),
            Some("p:w\\d")
        );
        assert_eq!(lookup(&file, ["db.lab", "5433", "timeshare", "ts"]), None);
    }

    #[test]
    fn a_fifo_as_the_passfile_is_not_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pgpass");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let (tx, rx) = std::sync::mpsc::channel();
        let path = fifo.clone();
        std::thread::spawn(move || {
            let _ = tx.send(lookup(&path, ["h", "5432", "d", "u"]));
        });
        let found = rx.recv_timeout(std::time::Duration::from_secs(10));
        assert_eq!(found, Ok(None), "the read of a FIFO passfile blocked");
    }
}

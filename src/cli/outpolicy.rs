//! The one decision about every output file timeshare writes (`run --json/--html`,
//! `exercise --json`, `ab --json-a/-b`, `export -o`, `report -o`, `fleet -o`): what the
//! path names, and whether writing it is safe. At least as careful as the shell's `>` on a
//! kernel with `fs.protected_symlinks`, `fs.protected_regular` and `fs.protected_fifos` on,
//! whatever those are set to, since timeshare replaces a file by renaming onto it (which
//! no kernel guard sees):
//!
//! - a symbolic link in a sticky world-writable directory (`/tmp`) is followed only when
//!   it belongs to this user or to the directory's owner; so is an existing file or FIFO
//!   there written (another user's planted `out.json -> /root/secret` is refused);
//! - a link to nothing is refused: no file is ever created through a link;
//! - an existing file keeps its mode and its owner (timeshare's copy is given both before
//!   it is renamed into place), or is refused when that cannot be done;
//! - a file without write permission is refused unless `--force`;
//! - the results database, its `-wal`, `-shm` or `-journal`, is refused whatever the name
//!   it is reached by (same file, or a hard link to it).

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Component, Path, PathBuf};

/// What the command allows, besides the rules above.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    /// `--force`: a read-only file may be replaced, and so may any existing file when
    /// `replace_needs_force`.
    pub force: bool,
    /// An existing file is replaced only with `--force` (`export`, `report`).
    pub replace_needs_force: bool,
    /// The SQLite results database this command uses, never to be written as an output.
    pub store: Option<PathBuf>,
}

/// Where the output goes, decided.
#[derive(Debug)]
pub enum Decision {
    /// No file there yet: made beside it and renamed into place.
    Create { path: PathBuf },
    /// An existing regular file, replaced by one with its mode and owner.
    Replace {
        path: PathBuf,
        mode: u32,
        uid: u32,
        gid: u32,
    },
    /// A FIFO or a character device, written as it is.
    Stream { path: PathBuf, fifo: bool },
}

/// Links followed at most, as the kernel's own limit.
const MAX_LINKS: usize = 40;

/// Decide what writing `path` means, or why it must not be written (a reason for the
/// user, without the path, which the caller names).
pub fn decide(path: &Path, rules: &Rules) -> Result<Decision, String> {
    let euid = effective_uid();
    let mut at = path.to_path_buf();
    for hops in 0..=MAX_LINKS {
        let meta = match std::fs::symlink_metadata(&at) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && hops == 0 => {
                return create(at, rules);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(format!(
                    "it is a link to nothing ({}); a file is never created through a link",
                    at.display()
                ));
            }
            Err(e) => return Err(super::errors::io_reason(&e)),
        };
        let dir = parent_of(&at);
        let dir_meta = std::fs::metadata(&dir).map_err(|e| super::errors::io_reason(&e))?;
        if meta.file_type().is_symlink() {
            if !may_follow(meta.uid(), &dir_meta, euid) {
                return Err(format!(
                    "{} is a link of user {} in the world-writable sticky directory {}, \
                     which is not followed (as the kernel's fs.protected_symlinks would not)",
                    at.display(),
                    meta.uid(),
                    dir.display()
                ));
            }
            let to = std::fs::read_link(&at).map_err(|e| super::errors::io_reason(&e))?;
            at = if to.is_relative() { dir.join(to) } else { to };
            continue;
        }
        return existing(at, &meta, &dir, &dir_meta, euid, rules);
    }
    Err("too many levels of symbolic links".into())
}

/// A new file at `path`: its directory must exist, and it must not be the store's.
fn create(path: PathBuf, rules: &Rules) -> Result<Decision, String> {
    let dir = parent_of(&path);
    if !dir.is_dir() {
        return Err(format!("no directory {}", dir.display()));
    }
    if is_store_by_name(&path, rules.store.as_deref()) {
        return Err(store_refusal());
    }
    Ok(Decision::Create { path })
}

/// What exists at `path` (not a link), in directory `dir`.
fn existing(
    path: PathBuf,
    meta: &std::fs::Metadata,
    dir: &Path,
    dir_meta: &std::fs::Metadata,
    euid: u32,
    rules: &Rules,
) -> Result<Decision, String> {
    let t = meta.file_type();
    if t.is_dir() {
        return Err("it is a directory".into());
    }
    if !(t.is_file() || t.is_fifo() || t.is_char_device()) {
        return Err("it is not a regular file, a FIFO or a character device".into());
    }
    if !may_follow(meta.uid(), dir_meta, euid) {
        return Err(format!(
            "{} belongs to user {} in the world-writable sticky directory {} and is not \
             written (as the kernel's fs.protected_regular would not)",
            path.display(),
            meta.uid(),
            dir.display()
        ));
    }
    if t.is_fifo() || t.is_char_device() {
        return Ok(Decision::Stream {
            path,
            fifo: t.is_fifo(),
        });
    }
    if is_store(meta, &path, rules.store.as_deref()) {
        return Err(store_refusal());
    }
    if rules.replace_needs_force && !rules.force {
        return Err("it exists: give --force to replace it, or another file".into());
    }
    if !rules.force && read_only(meta, euid) {
        return Err("it is read-only: give --force to replace it".into());
    }
    if euid != 0 && meta.uid() != euid {
        return Err(format!(
            "it belongs to user {}, and a copy replacing it could not keep its owner",
            meta.uid()
        ));
    }
    Ok(Decision::Replace {
        path,
        mode: meta.mode() & 0o777,
        uid: meta.uid(),
        gid: meta.gid(),
    })
}

/// The kernel's rule for links (and, since 4.19, files and FIFOs) in a sticky
/// world-writable directory: only when the entry is the follower's own or the
/// directory owner's.
fn may_follow(owner: u32, dir_meta: &std::fs::Metadata, euid: u32) -> bool {
    let sticky_world_writable = dir_meta.mode() & 0o1002 == 0o1002;
    !sticky_world_writable || owner == euid || owner == dir_meta.uid()
}

/// A file nobody may write by its mode: for root no write bit at all; for others none
/// for the owner (a file of another user is refused anyway).
fn read_only(meta: &std::fs::Metadata, euid: u32) -> bool {
    if euid == 0 {
        meta.mode() & 0o222 == 0
    } else {
        meta.mode() & 0o200 == 0
    }
}

fn store_refusal() -> String {
    "it is the results database (or its journal); give another file".into()
}

/// The database's own files: itself and what SQLite keeps beside it.
fn store_files(store: &Path) -> Vec<PathBuf> {
    let mut files = vec![store.to_path_buf()];
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut name = store.as_os_str().to_os_string();
        name.push(suffix);
        files.push(PathBuf::from(name));
    }
    files
}

/// Whether the existing file `meta` at `path` is one of the store's (the same inode).
fn is_store(meta: &std::fs::Metadata, path: &Path, store: Option<&Path>) -> bool {
    let Some(store) = store else { return false };
    let same_inode = store_files(store).iter().any(|f| {
        std::fs::metadata(f).is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
    });
    same_inode || is_store_by_name(path, Some(store))
}

/// Whether the (new) file at `path` would be one of the store's, by name: its directory
/// resolved, as the store's.
fn is_store_by_name(path: &Path, store: Option<&Path>) -> bool {
    let Some(store) = store else { return false };
    let canonical = |p: &Path| -> Option<PathBuf> {
        let dir = std::fs::canonicalize(parent_of(p)).ok()?;
        Some(dir.join(p.file_name()?))
    };
    let Some(path) = canonical(path) else {
        return false;
    };
    store_files(store)
        .iter()
        .any(|f| canonical(f).is_some_and(|f| f == path))
}

/// The directory holding `path`'s entry (`.` for a bare name).
fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ if path.components().next() == Some(Component::RootDir) => PathBuf::from("/"),
        _ => PathBuf::from("."),
    }
}

fn effective_uid() -> u32 {
    // SAFETY: geteuid cannot fail and touches no memory of ours.
    unsafe { libc::geteuid() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};

    fn rules() -> Rules {
        Rules::default()
    }

    #[test]
    fn a_new_path_is_created_and_an_existing_file_keeps_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new.json");
        assert!(matches!(
            decide(&new, &rules()),
            Ok(Decision::Create { .. })
        ));
        let old = dir.path().join("old.json");
        std::fs::write(&old, b"x").unwrap();
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o640)).unwrap();
        match decide(&old, &rules()) {
            Ok(Decision::Replace { mode, .. }) => assert_eq!(mode, 0o640),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_link_to_nothing_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("out.json");
        symlink(dir.path().join("nowhere/secret"), &link).unwrap();
        let why = decide(&link, &rules()).unwrap_err();
        assert!(why.contains("link to nothing"), "{why}");
    }

    #[test]
    fn an_own_link_is_followed_to_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("real.json");
        std::fs::write(&file, b"x").unwrap();
        let link = dir.path().join("out.json");
        symlink("real.json", &link).unwrap();
        match decide(&link, &rules()) {
            Ok(Decision::Replace { path, .. }) => assert_eq!(path, file),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_store_and_its_journal_are_refused_by_any_name() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("runs.db");
        std::fs::write(&db, b"db").unwrap();
        let r = Rules {
            store: Some(db.clone()),
            ..rules()
        };
        let hard = dir.path().join("hard.json");
        std::fs::hard_link(&db, &hard).unwrap();
        let link = dir.path().join("link.html");
        symlink(&db, &link).unwrap();
        let wal = dir.path().join("runs.db-wal");
        for p in [&db, &hard, &link, &wal] {
            let why = decide(p, &r).unwrap_err();
            assert!(why.contains("results database"), "{}: {why}", p.display());
        }
        let other = dir.path().join("other.json");
        assert!(decide(&other, &r).is_ok());
    }

    #[test]
    fn replacing_needs_force_where_the_command_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("old.json");
        std::fs::write(&old, b"x").unwrap();
        let mut r = Rules {
            replace_needs_force: true,
            ..rules()
        };
        assert!(decide(&old, &r).unwrap_err().contains("--force"));
        r.force = true;
        assert!(decide(&old, &r).is_ok());
    }

    #[test]
    fn a_read_only_file_needs_force() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("old.json");
        std::fs::write(&old, b"x").unwrap();
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o444)).unwrap();
        assert!(decide(&old, &rules()).unwrap_err().contains("read-only"));
        let forced = Rules {
            force: true,
            ..rules()
        };
        assert!(decide(&old, &forced).is_ok());
    }

    #[test]
    fn the_sticky_rule_is_the_kernels() {
        let dir = tempfile::tempdir().unwrap();
        let m = |mode: u32| {
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(mode)).unwrap();
            std::fs::metadata(dir.path()).unwrap()
        };
        let owner = m(0o1777).uid();
        let stranger = owner.wrapping_add(4242);
        assert!(may_follow(owner, &m(0o1777), stranger));
        assert!(may_follow(stranger, &m(0o1777), stranger));
        assert!(!may_follow(stranger, &m(0o1777), owner));
        assert!(may_follow(stranger, &m(0o0777), owner));
        assert!(may_follow(stranger, &m(0o1775), owner));
        m(0o700);
    }
}

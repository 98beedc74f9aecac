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
//!   it is reached by (same file, or a hard link to it);
//! - a directory on the way that is a link is followed under the same rule as a file.
//!
//! The SQLite store itself (`--db`, `$TIMESHARE_DB`, the default) is decided by the same
//! rules in [`decide_store`]: its links followed only as above and never to nothing, a
//! file or a `-wal`/`-shm`/`-journal` of another user in a sticky directory refused, a
//! `-wal`/`-shm`/`-journal` that is a link refused, and a directory another user owns
//! refused; what SQLite is then given is the file's real path, opened without following
//! any link (SQLite's own files beside it are opened with `O_NOFOLLOW` too).

use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

use crate::harness::process::effective_uid;

/// What went wrong in an I/O error, without any path a wrapper added to it (a temporary
/// file's random name means nothing to the user): "Permission denied (os error 13)", or
/// only its kind ("permission denied") when a wrapper kept no OS error code.
pub fn io_reason(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code).to_string(),
        None => e.kind().to_string(),
    }
}

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
    check_ancestors(path, euid, 0)?;
    match follow(path, euid)? {
        Found::Nothing(at) => create(at, rules),
        Found::Entry {
            path,
            meta,
            dir,
            dir_meta,
        } => existing(path, &meta, &dir, &dir_meta, euid, rules),
    }
}

/// What a path names once the links the rule allows are followed.
enum Found {
    /// No entry at all (not a link to nothing: that is refused).
    Nothing(PathBuf),
    /// An entry that is not a link, in directory `dir`.
    Entry {
        path: PathBuf,
        meta: Box<std::fs::Metadata>,
        dir: PathBuf,
        dir_meta: Box<std::fs::Metadata>,
    },
}

/// Follow `path`'s links under the rule for sticky directories, never to nothing.
fn follow(path: &Path, euid: u32) -> Result<Found, String> {
    let mut at = path.to_path_buf();
    for hops in 0..=MAX_LINKS {
        let meta = match std::fs::symlink_metadata(&at) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && hops == 0 => {
                return Ok(Found::Nothing(at));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(format!(
                    "it is a link to nothing ({}); a file is never created through a link",
                    at.display()
                ));
            }
            Err(e) => return Err(io_reason(&e)),
        };
        let dir = parent_of(&at);
        let dir_meta = std::fs::metadata(&dir).map_err(|e| io_reason(&e))?;
        if meta.file_type().is_symlink() {
            if !may_follow(meta.uid(), &dir_meta, euid) {
                return Err(not_followed(&at, meta.uid(), &dir));
            }
            let to = std::fs::read_link(&at).map_err(|e| io_reason(&e))?;
            at = if to.is_relative() { dir.join(to) } else { to };
            continue;
        }
        return Ok(Found::Entry {
            path: at,
            meta: Box::new(meta),
            dir,
            dir_meta: Box::new(dir_meta),
        });
    }
    Err("too many levels of symbolic links".into())
}

/// The results store's SQLite file named `path`, decided (see the module's rules): the
/// path to give SQLite, with no link left in it, or why it must not be used.
pub fn decide_store(path: &Path) -> Result<PathBuf, String> {
    let euid = effective_uid();
    check_ancestors(path, euid, 0)?;
    let file = match follow(path, euid)? {
        Found::Nothing(at) => at,
        Found::Entry {
            path,
            meta,
            dir,
            dir_meta,
        } => {
            if !meta.is_file() {
                return Err("it is not a regular file".into());
            }
            if !may_follow(meta.uid(), &dir_meta, euid) {
                return Err(format!(
                    "{} belongs to user {} in the world-writable sticky directory {} and is \
                     not used (as the kernel's fs.protected_regular would not)",
                    path.display(),
                    meta.uid(),
                    dir.display()
                ));
            }
            path
        }
    };
    let dir = parent_of(&file);
    let real_dir = canonical_beyond(&dir)?;
    check_dir_owner(&real_dir, euid)?;
    let name = file.file_name().ok_or("it names no file")?;
    let real = real_dir.join(name);
    for companion in store_files(&real).into_iter().skip(1) {
        check_companion(&companion, euid)?;
    }
    Ok(real)
}

/// A directory owned by another user (neither us nor root) is theirs to change under us:
/// never used, unless it is sticky and world-writable (where the rule per entry holds).
fn check_dir_owner(dir: &Path, euid: u32) -> Result<(), String> {
    // Not made yet: `canonical_beyond` checked the part that exists.
    let Ok(meta) = std::fs::metadata(dir) else {
        return Ok(());
    };
    let sticky_world_writable = meta.mode() & 0o1002 == 0o1002;
    if meta.uid() != euid && meta.uid() != 0 && !sticky_world_writable {
        return Err(format!(
            "the directory {} belongs to user {}, who could replace what is in it",
            dir.display(),
            meta.uid()
        ));
    }
    Ok(())
}

/// SQLite's `-wal`, `-shm` or `-journal` beside the store: absent, or a regular file
/// that is not another user's in a sticky directory; never a link.
fn check_companion(path: &Path, euid: u32) -> Result<(), String> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_reason(&e)),
    };
    if meta.file_type().is_symlink() {
        return Err(format!(
            "{} is a link, which the store's journal never is",
            path.display()
        ));
    }
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    let dir = parent_of(path);
    let dir_meta = std::fs::metadata(&dir).map_err(|e| io_reason(&e))?;
    if !may_follow(meta.uid(), &dir_meta, euid) {
        return Err(not_written(path, meta.uid(), &dir));
    }
    Ok(())
}

/// `dir` with every link resolved: the part that exists made canonical, the rest (made
/// later) appended.
fn canonical_beyond(dir: &Path) -> Result<PathBuf, String> {
    let mut existing = dir.to_path_buf();
    let mut rest = Vec::new();
    loop {
        match std::fs::canonicalize(&existing) {
            Ok(real) => {
                return Ok(rest.iter().rev().fold(real, |p: PathBuf, c| p.join(c)));
            }
            Err(_) => {
                let Some(name) = existing.file_name().map(|n| n.to_os_string()) else {
                    return Err(format!("no directory {}", dir.display()));
                };
                rest.push(name);
                existing = parent_of(&existing);
            }
        }
    }
}

/// Every directory on the way to `path` that is a link is followed only under the rule
/// for links in sticky directories (and its target's own way, to a depth).
fn check_ancestors(path: &Path, euid: u32, depth: usize) -> Result<(), String> {
    if depth > MAX_LINKS {
        return Err("too many levels of symbolic links".into());
    }
    let mut at = PathBuf::new();
    let Some(dir) = path.parent() else {
        return Ok(());
    };
    for part in dir.components() {
        let parent = if at.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            at.clone()
        };
        at.push(part);
        if !matches!(part, Component::Normal(_)) {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(&at) else {
            return Ok(());
        };
        if !meta.file_type().is_symlink() {
            continue;
        }
        let Ok(parent_meta) = std::fs::metadata(&parent) else {
            return Ok(());
        };
        if !may_follow(meta.uid(), &parent_meta, euid) {
            return Err(not_followed(&at, meta.uid(), &parent));
        }
        let to = std::fs::read_link(&at).map_err(|e| io_reason(&e))?;
        let target = if to.is_relative() {
            parent.join(to)
        } else {
            to
        };
        check_ancestors(&target.join("x"), euid, depth + 1)?;
    }
    Ok(())
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
        return Err(not_written(&path, meta.uid(), dir));
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

/// Why a file is refused: another user's, in a world-writable sticky directory.
fn not_written(path: &Path, owner: u32, dir: &Path) -> String {
    format!(
        "{} belongs to user {owner} in the world-writable sticky directory {} and is not \
         written (as the kernel's fs.protected_regular would not)",
        path.display(),
        dir.display()
    )
}

/// Why a link is refused: another user's, in a world-writable sticky directory.
fn not_followed(link: &Path, owner: u32, dir: &Path) -> String {
    format!(
        "{} is a link of user {owner} in the world-writable sticky directory {}, which is \
         not followed (as the kernel's fs.protected_symlinks would not)",
        link.display(),
        dir.display()
    )
}

/// Open a FIFO or a character device for writing, never following a link (the policy
/// decided on this very entry). A FIFO is opened without waiting: with no process
/// reading it, that is an error now rather than a wait no signal could end.
pub fn open_stream(target: &Path, fifo: bool) -> std::io::Result<std::fs::File> {
    let mut flags = libc::O_NOFOLLOW;
    if fifo {
        flags |= libc::O_NONBLOCK;
    }
    let f = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(flags)
        .open(target)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ENXIO) {
                std::io::Error::other("no process is reading the FIFO")
            } else {
                e
            }
        })?;
    if fifo {
        // Blocking again for the writes: a slow reader is waited for, not an error.
        let fd = std::os::fd::AsRawFd::as_raw_fd(&f);
        // SAFETY: fd is open for the life of `f`; F_GETFL/F_SETFL touch no memory.
        unsafe {
            let fl = libc::fcntl(fd, libc::F_GETFL);
            libc::fcntl(fd, libc::F_SETFL, fl & !libc::O_NONBLOCK);
        }
    }
    Ok(f)
}

/// Whether this process may open `path` for writing (access(2) with W_OK).
pub fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated string that outlives the call.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

/// Whether two output paths are one file: the same path, or (when it exists) the same
/// device and inode reached another way (`./x`, a link).
pub fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    if a == b {
        return true;
    }
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => (x.dev(), x.ino()) == (y.dev(), y.ino()),
        _ => {
            let absolute = |p: &std::path::Path| std::path::absolute(p).ok();
            absolute(a).is_some_and(|x| Some(x) == absolute(b))
        }
    }
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

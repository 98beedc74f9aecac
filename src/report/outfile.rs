//! Files the user names for output (`run --json`, `exercise --json`, `export --output`):
//! checked when the command starts, so a typo costs nothing; `-` is standard output.
//! Whether and how a path is written is decided in one place, [`crate::harness::outpolicy`]:
//!
//! - a new path: written to a hidden sibling (`.timeshare-PID-*.tmp`) and renamed into
//!   place at the end, so an error or an interrupt never leaves half a file; made with
//!   the permissions of any file the user creates (0666 less the umask);
//! - an existing regular file: the same, the copy given the file's mode and owner first;
//! - a symbolic link: followed only where the kernel's `fs.protected_symlinks` would
//!   follow it, never to nothing (the link stays a link);
//! - a FIFO or a character device (`/dev/null`, `/dev/stdout`, a terminal): opened and
//!   written to directly, never replaced; a FIFO without a reader is an error, not a wait;
//! - anything else (a directory, a socket, a block device), the results database: refused.
//!
//! A hidden sibling left by a process that was killed (`kill -9`) is removed by the next
//! write to the same directory (see [`crate::harness::debris`]). Messages name the user's
//! path, never the hidden sibling.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::Result;
use tempfile::NamedTempFile;

use super::output;
use crate::harness::debris;
use crate::harness::outpolicy::io_reason;
use crate::harness::outpolicy::{self, open_stream, writable, Decision, Rules};
use crate::model::usage::UsageError;

/// An output destination, opened and checked.
pub enum OutputFile {
    Stdout,
    /// A regular file (or a new one), written whole and renamed into place.
    File {
        shown: PathBuf,
        target: PathBuf,
        temp: NamedTempFile,
    },
    /// A FIFO or a character device, written to as it is.
    Stream {
        shown: PathBuf,
        target: PathBuf,
        fifo: bool,
    },
}

impl OutputFile {
    /// Check that `path` (given with `flag`) may be written under `rules`, and prepare to
    /// write it.
    pub fn open(path: &Path, flag: &str, rules: &Rules) -> Result<OutputFile> {
        if path == Path::new("-") {
            return Ok(OutputFile::Stdout);
        }
        let refuse =
            |why: String| UsageError(format!("cannot write {flag} {}: {why}", path.display()));
        let (target, keep) = match outpolicy::decide(path, rules).map_err(refuse)? {
            Decision::Stream { path: target, fifo } => {
                // Check now that it can be opened for writing, without opening a FIFO
                // (which would wait for a reader).
                if !writable(&target) {
                    return Err(refuse("permission denied".into()).into());
                }
                return Ok(OutputFile::Stream {
                    shown: path.to_path_buf(),
                    target,
                    fifo,
                });
            }
            Decision::Create { path: target } => (target, None),
            Decision::Replace {
                path: target,
                mode,
                uid,
                gid,
            } => (target, Some((mode, uid, gid))),
        };
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        debris::sweep_temp_files(&parent);
        let temp = tempfile::Builder::new()
            .prefix(&debris::temp_file_prefix())
            .suffix(debris::TEMP_FILE_SUFFIX)
            .permissions(std::fs::Permissions::from_mode(0o666))
            .tempfile_in(&parent)
            .map_err(|e| refuse(io_reason(&e)))?;
        if let Some((mode, uid, gid)) = keep {
            keep_mode_and_owner(temp.as_file(), mode, uid, gid).map_err(refuse)?;
        }
        Ok(OutputFile::File {
            shown: path.to_path_buf(),
            target,
            temp,
        })
    }

    pub fn is_stdout(&self) -> bool {
        matches!(self, OutputFile::Stdout)
    }

    /// Write `bytes` whole: to standard output, to the stream, or into place under the
    /// user's name.
    pub fn write(self, bytes: &[u8]) -> Result<()> {
        let failed = |shown: &Path, e: &std::io::Error| {
            let why = match e.raw_os_error() {
                None if e.kind() == std::io::ErrorKind::Other => e.to_string(),
                _ => io_reason(e),
            };
            anyhow::anyhow!("cannot write {}: {why}", shown.display())
        };
        match self {
            OutputFile::Stdout => output::print(bytes)?,
            OutputFile::Stream {
                shown,
                target,
                fifo,
            } => {
                let mut f = open_stream(&target, fifo).map_err(|e| failed(&shown, &e))?;
                f.write_all(bytes)
                    .and_then(|()| f.flush())
                    .map_err(|e| failed(&shown, &e))?;
            }
            OutputFile::File {
                shown,
                target,
                mut temp,
            } => {
                // The file itself, not the NamedTempFile, whose errors carry its own name.
                let file = temp.as_file_mut();
                file.write_all(bytes)
                    .and_then(|()| file.sync_all())
                    .map_err(|e| failed(&shown, &e))?;
                temp.persist(&target)
                    .map_err(|e| failed(&shown, &e.error))?;
            }
        }
        Ok(())
    }
}

/// The copy that replaces an existing file gets its mode and owner, as the shell's `>`
/// (which writes the file itself) would leave them; a copy that cannot is not renamed.
fn keep_mode_and_owner(f: &std::fs::File, mode: u32, uid: u32, gid: u32) -> Result<(), String> {
    let meta = f.metadata().map_err(|e| io_reason(&e))?;
    use std::os::unix::fs::MetadataExt;
    if meta.uid() != uid || meta.gid() != gid {
        std::os::unix::fs::fchown(f, Some(uid), Some(gid))
            .map_err(|e| format!("cannot give the new file its owner: {}", io_reason(&e)))?;
    }
    f.set_permissions(std::fs::Permissions::from_mode(mode))
        .map_err(|e| format!("cannot give the new file its mode: {}", io_reason(&e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_written_whole_with_the_umask_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        OutputFile::open(&path, "--json", &Rules::default())
            .unwrap()
            .write(b"{}")
            .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"{}");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        // Read, not set: setting the umask would race with the other tests' files.
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let umask = status
            .lines()
            .find_map(|l| l.strip_prefix("Umask:"))
            .map(|m| u32::from_str_radix(m.trim(), 8).unwrap())
            .unwrap();
        assert_eq!(mode, 0o666 & !umask, "mode {mode:o}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_missing_directory_is_refused_without_naming_a_hidden_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/r.json");
        let e = OutputFile::open(&path, "--output", &Rules::default())
            .err()
            .unwrap();
        assert!(e.downcast_ref::<UsageError>().is_some());
        let text = e.to_string();
        assert!(text.starts_with("cannot write --output "), "{text}");
        assert!(!text.contains(".timeshare-"), "{text}");
    }
}

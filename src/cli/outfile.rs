//! Files the user names for output (`run --json`, `exercise --json`, `export --output`):
//! checked when the command starts, so a typo costs nothing; `-` is standard output.
//! What is written depends on what the path is:
//!
//! - a new path or a regular file: written to a hidden sibling (`.timeshare-PID-*.tmp`)
//!   and renamed into place at the end, so an error or an interrupt never leaves half a
//!   file; made with the permissions of any file the user creates (0666 less the umask);
//! - a symbolic link: followed to what it names, which is then treated as above (the
//!   link stays a link; a link to nothing is refused);
//! - a FIFO or a character device (`/dev/null`, `/dev/stdout`, a terminal): opened and
//!   written to directly, never replaced;
//! - anything else (a directory, a socket, a block device): refused.
//!
//! A hidden sibling left by a process that was killed (`kill -9`) is removed by the next
//! write to the same directory (see [`crate::harness::debris`]). Messages name the user's
//! path, never the hidden sibling.

use std::io::Write;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::Result;
use tempfile::NamedTempFile;

use super::{io_reason, output, UsageError};
use crate::harness::debris;

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
    },
}

impl OutputFile {
    /// Check that `path` (given with `flag`) can be written, and prepare to write it.
    pub fn open(path: &Path, flag: &str) -> Result<OutputFile> {
        if path == Path::new("-") {
            return Ok(OutputFile::Stdout);
        }
        let refuse =
            |why: String| UsageError(format!("cannot write {flag} {}: {why}", path.display()));
        let mut target = path.to_path_buf();
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => {
                target = follow(path).map_err(refuse)?;
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(refuse(io_reason(&e)).into()),
        }
        match std::fs::metadata(&target) {
            Ok(m) => {
                let t = m.file_type();
                if t.is_fifo() || t.is_char_device() {
                    // Check now that it can be opened for writing, without opening a FIFO
                    // (which would wait for a reader).
                    if !writable(&target) {
                        return Err(refuse("permission denied".into()).into());
                    }
                    return Ok(OutputFile::Stream {
                        shown: path.to_path_buf(),
                        target,
                    });
                }
                if t.is_dir() {
                    return Err(refuse("it is a directory".into()).into());
                }
                if !t.is_file() {
                    return Err(refuse(
                        "it is not a regular file, a FIFO or a character device".into(),
                    )
                    .into());
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(refuse(io_reason(&e)).into()),
        }
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !parent.is_dir() {
            return Err(refuse(format!("no directory {}", parent.display())).into());
        }
        debris::sweep_temp_files(&parent);
        let temp = tempfile::Builder::new()
            .prefix(&debris::temp_file_prefix())
            .suffix(debris::TEMP_FILE_SUFFIX)
            .permissions(std::fs::Permissions::from_mode(0o666))
            .tempfile_in(&parent)
            .map_err(|e| refuse(io_reason(&e)))?;
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
            anyhow::anyhow!("cannot write {}: {}", shown.display(), io_reason(e))
        };
        match self {
            OutputFile::Stdout => output::print(bytes)?,
            OutputFile::Stream { shown, target } => {
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .map_err(|e| failed(&shown, &e))?;
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

/// What the chain of symbolic links at `path` ends at: an existing file, or a new name in
/// an existing directory (as the shell's `>` would create it).
fn follow(path: &Path) -> Result<PathBuf, String> {
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&at).map_err(|e| io_reason(&e))?;
                at = match at.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            Ok(_) => return Ok(at),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(at),
            Err(e) => return Err(io_reason(&e)),
        }
    }
    Err("too many levels of symbolic links".into())
}

/// Whether this process may open `path` for writing (access(2) with W_OK).
fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated string that outlives the call.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_written_whole_with_the_umask_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        OutputFile::open(&path, "--json")
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
        let e = OutputFile::open(&path, "--output").err().unwrap();
        assert!(e.downcast_ref::<UsageError>().is_some());
        let text = e.to_string();
        assert!(text.starts_with("cannot write --output "), "{text}");
        assert!(!text.contains(".timeshare-"), "{text}");
    }
}

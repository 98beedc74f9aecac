//! Files the user names for output (`run --json`, `exercise --json`, `export --output`):
//! checked when the command starts, so a typo costs nothing; written to a hidden sibling
//! and renamed into place at the end, so an error or an interrupt never leaves half a
//! file; made with the permissions of any file the user creates (0666 less the umask);
//! `-` is standard output. Messages name the user's path, never the hidden sibling.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::Result;
use tempfile::NamedTempFile;

use super::{io_reason, output, UsageError};

/// An output destination, opened and checked.
pub enum OutputFile {
    Stdout,
    File {
        target: PathBuf,
        temp: NamedTempFile,
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
        if path.is_dir() {
            return Err(refuse("it is a directory".into()).into());
        }
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !parent.is_dir() {
            return Err(refuse(format!("no directory {}", parent.display())).into());
        }
        let temp = tempfile::Builder::new()
            .prefix(".timeshare-")
            .suffix(".tmp")
            .permissions(std::fs::Permissions::from_mode(0o666))
            .tempfile_in(parent)
            .map_err(|e| refuse(io_reason(&e)))?;
        Ok(OutputFile::File {
            target: path.to_path_buf(),
            temp,
        })
    }

    pub fn is_stdout(&self) -> bool {
        matches!(self, OutputFile::Stdout)
    }

    /// Write `bytes` whole: to standard output, or into place under the user's name.
    pub fn write(self, bytes: &[u8]) -> Result<()> {
        match self {
            OutputFile::Stdout => output::print(bytes)?,
            OutputFile::File { target, mut temp } => {
                let failed = |e: &std::io::Error| {
                    anyhow::anyhow!("cannot write {}: {}", target.display(), io_reason(e))
                };
                // The file itself, not the NamedTempFile, whose errors carry its own name.
                let file = temp.as_file_mut();
                file.write_all(bytes)
                    .and_then(|()| file.sync_all())
                    .map_err(|e| failed(&e))?;
                temp.persist(&target).map_err(|e| failed(&e.error))?;
            }
        }
        Ok(())
    }
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

//! `--dir DIR`: where scratch files go, with one meaning for `run`, `exercise` and
//! `sysinfo` (whose record describes that directory's file system, as a run's does). The
//! directory must exist and be writable; that is checked once, before anything runs.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use super::errors::{io_reason, UsageError};
use crate::harness::limits::pseudo_file_system;

#[derive(Debug, Args, Clone, Default)]
pub struct DirArgs {
    /// Directory for scratch files, which must exist and be writable; its file system is
    /// recorded with the run [default: the temporary directory]
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

impl DirArgs {
    /// The directory, checked: it exists, is a directory, and a file can be made in it.
    pub fn checked(&self) -> Result<PathBuf> {
        let dir = self.dir.clone().unwrap_or_else(std::env::temp_dir);
        check(&dir).map_err(|why| UsageError(format!("--dir {}: {why}", dir.display())))?;
        Ok(dir)
    }
}

fn check(dir: &Path) -> Result<(), String> {
    if !dir.exists() {
        return Err("no such directory".into());
    }
    if !dir.is_dir() {
        return Err("not a directory".into());
    }
    if let Some(kind) = pseudo_file_system(dir) {
        return Err(format!(
            "a {kind} pseudo file system, which holds no files of ours; give a directory on \
             a disk or a tmpfs"
        ));
    }
    // The real test of "writable" is making something there (permissions, a read-only
    // mount, a full disk, a pseudo file system). The error leaves out the probe's name,
    // which would mean nothing to the user. Its name is unpredictable and retried on a
    // clash (mkdtemp's rules), so no other user can pre-empt it in a shared directory.
    tempfile::Builder::new()
        .prefix(&format!(".timeshare-probe-{}-", std::process::id()))
        .tempdir_in(dir)
        .and_then(|probe| probe.close())
        .map_err(|e| format!("cannot create files there ({})", io_reason(&e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_name_taken_beforehand_does_not_stop_the_check() {
        let dir = tempfile::tempdir().unwrap();
        // What another user would plant: the names of the old fixed probe.
        for pid in [std::process::id()].into_iter().chain(1..64) {
            std::fs::create_dir(dir.path().join(format!(".timeshare-probe-{pid}"))).unwrap();
        }
        check(dir.path()).unwrap();
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            64,
            "probe left behind"
        );
    }

    fn args(dir: &Path) -> DirArgs {
        DirArgs {
            dir: Some(dir.to_path_buf()),
        }
    }

    #[test]
    fn an_existing_writable_directory_is_accepted_and_left_as_it_was() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(args(tmp.path()).checked().unwrap(), tmp.path());
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_missing_directory_or_a_file_is_a_usage_error() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("nope");
        let e = args(&missing).checked().unwrap_err();
        assert!(e.downcast_ref::<UsageError>().is_some());
        assert!(e.to_string().contains("no such directory"), "{e}");
        let file = tmp.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let e = args(&file).checked().unwrap_err();
        assert!(e.to_string().contains("not a directory"), "{e}");
    }
}

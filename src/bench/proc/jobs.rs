//! The programs the exec rows run — seed 001's "null job" and "big job", built by a plain
//! `cargo build` as `timeshare-null` and `timeshare-big` — and the environment they get.
//!
//! They are looked for beside the running executable (where cargo and `cargo install`
//! put every binary of the package), or, for unit tests whose executable lives in
//! `target/*/deps`, one directory up. `TIMESHARE_JOB_DIR` overrides the place (tests use
//! it to substitute a failing job).

use std::ffi::{CString, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::harness::contract::Skip;
use anyhow::{Context, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Job {
    /// `nulljob`: exits at once.
    Null,
    /// `bigjob`: exits at once, with 250 KB of initialised data to map.
    Big,
}

impl Job {
    pub fn program(self) -> &'static str {
        match self {
            Job::Null => "timeshare-null",
            Job::Big => "timeshare-big",
        }
    }
}

pub const JOB_DIR_VAR: &str = "TIMESHARE_JOB_DIR";

/// Where `job` is, or why it cannot be used (for a skip reason).
pub fn locate(job: Job) -> std::result::Result<PathBuf, Skip> {
    let name = job.program();
    let dirs: Vec<PathBuf> = match std::env::var_os(JOB_DIR_VAR) {
        Some(dir) => vec![PathBuf::from(dir)],
        None => {
            let exe = std::env::current_exe()
                .map_err(|e| Skip::new(format!("cannot find my own executable: {e}")))?;
            let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
            let mut dirs = vec![dir.clone()];
            if dir.file_name() == Some(OsStr::new("deps")) {
                dirs.extend(dir.parent().map(Path::to_path_buf));
            }
            dirs
        }
    };
    dirs.iter()
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
        .ok_or_else(|| {
            Skip::new(format!(
                "the {} program {name} is not in {} (it is built with timeshare by `cargo \
                 build`; install both together)",
                match job {
                    Job::Null => "null-job",
                    Job::Big => "big-job",
                },
                dirs[0].display()
            ))
        })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Seed 001's run script adds fifteen variables `a`…`o`, each a 69-digit string, "to fill
/// the environment with ~1024 bytes": 15 × (1 + 1 + 69 + 1) = 1,080 bytes (the paper
/// reports 1,065 more bytes).
pub fn extra_environment() -> Vec<CString> {
    let value = "012345678901234567890123456789012345678901234567890123456780123456789";
    ('a'..='o')
        .map(|name| CString::new(format!("{name}={value}")).expect("no NUL"))
        .collect()
}

/// Bytes the extra environment adds to an exec (strings with their NULs).
pub fn extra_environment_bytes() -> usize {
    extra_environment()
        .iter()
        .map(|s| s.as_bytes_with_nul().len())
        .sum()
}

/// What execve gets: the program, its argv and envp as C arrays, all owned here so that
/// a child needs no allocation.
pub struct ExecArgs {
    pub path: CString,
    _strings: Vec<CString>,
    pub argv: Vec<*const libc::c_char>,
    pub envp: Vec<*const libc::c_char>,
    /// Bytes of argument and environment strings passed (with NULs).
    pub bytes: usize,
}

// SAFETY: the pointers point into `_strings`, owned by the same value and never changed.
unsafe impl Send for ExecArgs {}

impl ExecArgs {
    /// `program args…` with this process's environment, plus `extra` variables.
    pub fn new(program: &Path, args: &[&str], extra: Vec<CString>) -> Result<ExecArgs> {
        let path = CString::new(program.as_os_str().as_bytes())
            .with_context(|| format!("bad program path {}", program.display()))?;
        let mut argv_s = vec![path.clone()];
        for a in args {
            argv_s.push(CString::new(*a).context("bad argument")?);
        }
        let mut env_s: Vec<CString> = std::env::vars_os()
            .filter_map(|(k, v)| {
                let mut kv = k.as_bytes().to_vec();
                kv.push(b'=');
                kv.extend_from_slice(v.as_bytes());
                CString::new(kv).ok()
            })
            .collect();
        env_s.extend(extra);
        let bytes = argv_s
            .iter()
            .chain(&env_s)
            .map(|s| s.as_bytes_with_nul().len())
            .sum();
        let argv: Vec<_> = argv_s
            .iter()
            .map(|s| s.as_ptr())
            .chain([std::ptr::null()])
            .collect();
        let envp: Vec<_> = env_s
            .iter()
            .map(|s| s.as_ptr())
            .chain([std::ptr::null()])
            .collect();
        let mut strings = argv_s;
        strings.extend(env_s);
        Ok(ExecArgs {
            path,
            _strings: strings,
            argv,
            envp,
            bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extra_environment_is_the_seeds_kilobyte() {
        assert_eq!(extra_environment().len(), 15);
        assert_eq!(extra_environment_bytes(), 1080);
    }

    #[test]
    fn both_jobs_are_found_beside_the_build_or_the_reason_says_where() {
        // A whole `cargo test` builds the package's binaries first; `cargo test --lib`
        // alone does not, and then the skip reason must say where it looked.
        for job in [Job::Null, Job::Big] {
            match locate(job) {
                Ok(p) => assert!(p.ends_with(job.program())),
                Err(skip) => {
                    assert!(skip.0.contains(job.program()), "{}", skip.0);
                    assert!(skip.0.contains("cargo build"), "{}", skip.0);
                }
            }
        }
    }

    #[test]
    fn the_big_jobs_data_is_in_the_data_segment() {
        // `size` (Berkeley format) prints text, data, bss: the 250 KB must be in data.
        let Ok(path) = locate(Job::Big) else { return };
        let Ok(out) = std::process::Command::new("size").arg(&path).output() else {
            eprintln!("no `size` program: cannot check the data segment here");
            return;
        };
        let text = String::from_utf8_lossy(&out.stdout);
        let data: u64 = text
            .lines()
            .nth(1)
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|d| d.parse().ok())
            .unwrap_or_else(|| panic!("cannot read size's output: {text}"));
        assert!(data >= 250 * 1024, "data segment {data} bytes:\n{text}");
        let null = locate(Job::Null).unwrap();
        let out = std::process::Command::new("size")
            .arg(&null)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let null_data: u64 = text
            .lines()
            .nth(1)
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|d| d.parse().ok())
            .unwrap();
        assert!(
            null_data + 250 * 1024 <= data,
            "null {null_data}, big {data}"
        );
    }
}

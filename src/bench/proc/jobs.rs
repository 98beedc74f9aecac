//! The programs the exec rows run — seed 001's "null job" and "big job" — and the
//! environment they get.
//!
//! Both are minimal static executables built from `job.c` by `build.rs` (no C library, no
//! dynamic loader: a `_start` that makes the exit system call; the big job has 250 KB of
//! initialised data besides) and carried inside `timeshare` itself, so that the one
//! binary `cargo run` or `cargo install` gives runs every row. Before a row runs, its job
//! is written to the row's private scratch directory (made mode 0700 by the harness; the
//! job itself 0755, created anew, never over an existing file) and run once to check that
//! it can run there; the harness removes the directory, job and all, when the row ends,
//! whether it succeeded, failed or was interrupted. Where the scratch directory's file
//! system cannot run programs (`mount -o noexec`, often `/tmp`; or a security policy
//! refuses it), the row is skipped with that reason and what to do (`--dir`).
//! `TIMESHARE_JOB_DIR` runs the programs of those names in another directory instead
//! (e.g. to compare with a dynamically linked job; tests use it to substitute a failing
//! one).

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::harness::contract::Skip;
use anyhow::{Context, Result};

/// The null job, as `build.rs` built it for this target.
const NULL_JOB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/timeshare-null"));
/// The big job: the null job plus `char space[1024 * 250]` of initialised data.
const BIG_JOB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/timeshare-big"));

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Job {
    /// `nulljob`: exits at once.
    Null,
    /// `bigjob`: exits at once, with 250 KB of initialised data to map.
    Big,
}

impl Job {
    /// Its file name, wherever it is written.
    pub fn program(self) -> &'static str {
        match self {
            Job::Null => "timeshare-null",
            Job::Big => "timeshare-big",
        }
    }

    /// The executable's bytes, as `timeshare` carries them.
    pub fn image(self) -> &'static [u8] {
        match self {
            Job::Null => NULL_JOB,
            Job::Big => BIG_JOB,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Job::Null => "null job",
            Job::Big => "big job",
        }
    }
}

pub const JOB_DIR_VAR: &str = "TIMESHARE_JOB_DIR";

/// Whether `job` can be had: always, unless `TIMESHARE_JOB_DIR` names a directory without
/// it (the reason is then the skip's).
pub fn available(job: Job) -> std::result::Result<(), Skip> {
    match std::env::var_os(JOB_DIR_VAR) {
        None => Ok(()),
        Some(dir) => substitute(job, Path::new(&dir)).map(drop),
    }
}

/// The program in `TIMESHARE_JOB_DIR`, or why it cannot be used.
fn substitute(job: Job, dir: &Path) -> std::result::Result<PathBuf, Skip> {
    let path = dir.join(job.program());
    if is_executable(&path) {
        Ok(path)
    } else {
        Err(Skip::new(format!(
            "{JOB_DIR_VAR} is set, and the {} program {} is not in {} (unset it to use \
             the built-in one)",
            job.what(),
            job.program(),
            dir.display()
        )))
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// `job` ready to exec: written into `dir` (a row's scratch directory) and run once from
/// there, or the program of `TIMESHARE_JOB_DIR` if that is set.
pub fn install(job: Job, dir: &Path) -> Result<PathBuf> {
    if let Some(over) = std::env::var_os(JOB_DIR_VAR) {
        return substitute(job, Path::new(&over)).map_err(|s| anyhow::anyhow!(s.0));
    }
    if mounted_noexec(dir)? {
        return Err(Skip::new(format!(
            "the scratch directory {} is on a file system mounted noexec, where no program \
             can be run: the exec rows write the {} there and run it; give them a \
             directory elsewhere (--dir)",
            dir.display(),
            job.what()
        ))
        .into());
    }
    let path = dir.join(job.program());
    write_executable(&path, job.image())
        .with_context(|| format!("cannot write the {} to {}", job.what(), path.display()))?;
    match run_once(&path) {
        Ok(()) => Ok(path),
        Err(RunOnce::Refused) => Err(Skip::new(format!(
            "the system refuses to run programs from the scratch directory {} (a security \
             policy, or a noexec mount it does not report): the exec rows write the {} \
             there and run it; give them a directory elsewhere (--dir)",
            dir.display(),
            job.what()
        ))
        .into()),
        Err(RunOnce::Failed(e)) => Err(e.context(format!(
            "the {} written to {} does not run",
            job.what(),
            path.display()
        ))),
    }
}

/// Whether `dir`'s file system refuses to run programs (`mount -o noexec`).
fn mounted_noexec(dir: &Path) -> Result<bool> {
    let c = CString::new(dir.as_os_str().as_bytes()).context("a NUL in the directory's name")?;
    // SAFETY: statvfs is plain data that the call fills.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a statvfs to fill, both alive for the call.
    let rc = unsafe { libc::statvfs(c.as_ptr(), &mut st) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error())
            .with_context(|| format!("cannot statvfs {}", dir.display()));
    }
    Ok(st.f_flag & libc::ST_NOEXEC != 0)
}

fn write_executable(path: &Path, image: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o755)
        .open(path)?;
    f.write_all(image)?;
    // The creation mode is filtered by the umask: say 0755 whatever it is.
    use std::os::unix::fs::PermissionsExt;
    f.set_permissions(std::fs::Permissions::from_mode(0o755))
}

/// Why a job written to the scratch directory did not run.
#[derive(Debug)]
enum RunOnce {
    /// The system refused to execute anything there (EACCES): not the job's fault.
    Refused,
    Failed(anyhow::Error),
}

/// Run the program once and check that it exits 0. A program just written can be "busy"
/// (ETXTBSY) for a moment: a process forked by another thread while the file was open for
/// writing holds that descriptor until it execs or exits. Once it has run, no descriptor
/// open for writing is left anywhere, so the timed execs cannot meet that.
fn run_once(path: &Path) -> std::result::Result<(), RunOnce> {
    use std::process::{Command, Stdio};
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match Command::new(path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
        {
            Ok(s) if s.success() => return Ok(()),
            Ok(s) => return Err(RunOnce::Failed(anyhow::anyhow!("it ended with {s}"))),
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) if e.raw_os_error() == Some(libc::EACCES) => return Err(RunOnce::Refused),
            Err(e) => return Err(RunOnce::Failed(e.into())),
        }
    }
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

    /// What the kernel reads of an ELF64 executable: its type, machine, entry point and
    /// program headers (type, flags, file and memory size, address).
    struct Elf {
        kind: u16,
        machine: u16,
        entry: u64,
        segments: Vec<Segment>,
    }

    struct Segment {
        kind: u32,
        flags: u32,
        vaddr: u64,
        filesz: u64,
        memsz: u64,
    }

    const PT_LOAD: u32 = 1;
    const PT_DYNAMIC: u32 = 2;
    const PT_INTERP: u32 = 3;
    const PF_X: u32 = 1;
    const PF_W: u32 = 2;

    fn parse(b: &[u8]) -> Elf {
        assert_eq!(&b[..4], b"\x7fELF", "not an ELF file");
        assert_eq!(b[4], 2, "not a 64-bit ELF file");
        assert_eq!(b[5], 1, "not little-endian");
        let u16_at = |o: usize| u16::from_le_bytes(b[o..o + 2].try_into().unwrap());
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
        let (phoff, phentsize, phnum) = (u64_at(0x20) as usize, u16_at(0x36), u16_at(0x38));
        let segments = (0..phnum as usize)
            .map(|i| {
                let p = phoff + i * phentsize as usize;
                Segment {
                    kind: u32_at(p),
                    flags: u32_at(p + 4),
                    vaddr: u64_at(p + 16),
                    filesz: u64_at(p + 32),
                    memsz: u64_at(p + 40),
                }
            })
            .collect();
        Elf {
            kind: u16_at(0x10),
            machine: u16_at(0x12),
            entry: u64_at(0x18),
            segments,
        }
    }

    /// Initialised data the kernel maps: the file bytes of writable loadable segments.
    fn data_bytes(elf: &Elf) -> u64 {
        elf.segments
            .iter()
            .filter(|s| s.kind == PT_LOAD && s.flags & PF_W != 0)
            .map(|s| s.filesz)
            .sum()
    }

    #[test]
    fn both_jobs_are_static_executables_with_no_loader() {
        let machine = if cfg!(target_arch = "x86_64") {
            62 // EM_X86_64
        } else if cfg!(target_arch = "aarch64") {
            183 // EM_AARCH64
        } else {
            return;
        };
        for job in [Job::Null, Job::Big] {
            let elf = parse(job.image());
            assert_eq!(
                elf.kind, 2,
                "{job:?}: ET_EXEC, not a position-independent ELF"
            );
            assert_eq!(elf.machine, machine, "{job:?}: built for another machine");
            for s in &elf.segments {
                assert!(
                    s.kind != PT_INTERP && s.kind != PT_DYNAMIC,
                    "{job:?}: asks for a dynamic loader"
                );
            }
            let text = elf
                .segments
                .iter()
                .find(|s| s.kind == PT_LOAD && s.flags & PF_X != 0)
                .expect("an executable segment");
            assert!(
                (text.vaddr..text.vaddr + text.memsz).contains(&elf.entry),
                "{job:?}: the entry point is outside the text"
            );
        }
    }

    #[test]
    fn the_null_job_is_tiny_and_the_big_job_has_the_seeds_250_kb_of_data() {
        let (null, big) = (parse(NULL_JOB), parse(BIG_JOB));
        assert!(NULL_JOB.len() < 4096, "null job {} bytes", NULL_JOB.len());
        assert_eq!(data_bytes(&null), 0, "the null job has initialised data");
        let data = data_bytes(&big);
        assert!(
            (250 * 1024..250 * 1024 + 4096).contains(&data),
            "big job: {data} bytes of initialised data"
        );
        // Not zero-filled memory standing in for it: the bytes are in the file.
        assert!(BIG_JOB.len() as u64 >= data, "{} bytes", BIG_JOB.len());
    }

    /// The same through `size` (Berkeley format: text, data, bss), as the seed's run
    /// script printed it before timing each job.
    #[test]
    fn size_shows_the_big_jobs_250_kb_in_the_data_column() {
        if std::process::Command::new("size")
            .arg("--version")
            .output()
            .is_err()
        {
            eprintln!("no `size` program (binutils): cannot check the data column here");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let data_of = |job: Job| -> u64 {
            let path = dir.path().join(job.program());
            std::fs::write(&path, job.image()).unwrap();
            let out = std::process::Command::new("size")
                .arg(&path)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.lines()
                .nth(1)
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|d| d.parse().ok())
                .unwrap_or_else(|| panic!("cannot read size's output: {text}"))
        };
        let (null, big) = (data_of(Job::Null), data_of(Job::Big));
        assert_eq!(null, 0);
        assert!(big >= 250 * 1024, "data column {big}");
    }

    #[test]
    fn install_writes_the_job_mode_0755_and_it_runs() {
        let dir = tempfile::tempdir().unwrap();
        for job in [Job::Null, Job::Big] {
            let path = install(job, dir.path()).unwrap();
            assert_eq!(path, dir.path().join(job.program()));
            assert_eq!(std::fs::read(&path).unwrap(), job.image());
            use std::os::unix::fs::PermissionsExt;
            let mode = path.metadata().unwrap().permissions().mode() & 0o7777;
            assert_eq!(mode, 0o755, "{job:?}: mode {mode:o}");
            let status = std::process::Command::new(&path).status().unwrap();
            assert_eq!(status.code(), Some(0), "{job:?}");
        }
    }

    #[test]
    fn a_job_that_is_not_a_program_fails_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("timeshare-null");
        std::fs::write(&path, b"#!/bin/sh\nexit 3\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        match run_once(&path) {
            Err(RunOnce::Failed(e)) => {
                assert!(format!("{e:#}").contains("exit status: 3"), "{e:#}")
            }
            other => panic!("{other:?}"),
        }
        // Installing over an existing file is refused, never a silent overwrite.
        let e = install(Job::Null, dir.path()).unwrap_err();
        assert!(
            format!("{e:#}").contains("cannot write the null job"),
            "{e:#}"
        );
    }
}

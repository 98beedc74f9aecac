//! `run --configs LIST`: seed 000's Attachment B today. The paper moved root, /tmp and swap
//! between disks and memory and changed the number of I/O buffers (configurations C1–C9),
//! and timed the same command scripts in each. A sweep runs the chosen rows (by default
//! `load.script` and `load.cpu`) once per configuration, each in a fresh `timeshare run`
//! of its own, and stores one run per configuration, labelled with it, so that `compare
//! tmp=disk tmp=tmpfs` and `table 000-B` set them side by side.
//!
//! A configuration is one or more settings joined by `+`; configurations are separated by
//! commas: `--configs tmp=tmpfs,tmp=disk,tmp=disk+mem=256M`.
//!
//! | setting | what it does |
//! |---|---|
//! | `tmp=tmpfs` | the scratch directory (the scripts' users' homes, TMPDIR) on a tmpfs: one the sweep mounts as root, /dev/shm otherwise |
//! | `tmp=disk` | on a disk: `--dir`, or /var/tmp; refused if that is a tmpfs |
//! | `tmp=DIR` | in DIR (absolute), whatever its file system (recorded with the run) |
//! | `mem=SIZE` | the run and every process it starts in a memory cgroup of SIZE (root only): the page cache's share, the paper's I/O buffers |
//!
//! Everything made (the mount point, the tmpfs, the cgroup) is undone after each
//! configuration, also when the sweep is interrupted.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result};

use super::errors::UsageError;
use super::run::RunArgs;
use super::Exit;
use crate::harness::interrupt;
use crate::harness::limits::on_tmpfs;
use crate::harness::memlimit::MemoryCgroup;
use crate::harness::process::is_root;
use crate::harness::procgroup;
use crate::harness::tmpfs;

/// The smallest memory cgroup a run of the load rows can live in: the timeshare process
/// itself, its shells and their commands. Less is a typing slip (`mem=64K`).
const LEAST_MEMORY: u64 = 64 << 20;

/// The tmpfs a sweep mounts holds the scripts' users' files and the copies' nothing: the
/// bundled scripts write a few MiB per user.
const TMPFS_SIZE: &str = "size=1g,mode=1777";

/// Where a configuration puts the scratch directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tmp {
    /// Wherever the run would (`--dir` or the temporary directory).
    AsGiven,
    Tmpfs,
    Disk,
    Dir(PathBuf),
}

/// One configuration of a sweep, as typed (its name) and parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub name: String,
    pub tmp: Tmp,
    /// The memory cgroup's limit in bytes.
    pub mem: Option<u64>,
}

const KNOWN: &str = "tmp=tmpfs|disk|DIR, mem=SIZE; join settings with +, configurations with ,";

/// The configurations of `list`, each checked: known settings, no setting twice in one
/// configuration, no configuration twice, a memory size from 64 MiB to `memory_bytes`.
pub fn parse(list: &str, memory_bytes: u64) -> Result<Vec<Config>, String> {
    let mut out: Vec<Config> = Vec::new();
    for name in list.split(',').map(str::trim) {
        if name.is_empty() {
            return Err(format!(
                "--configs {list:?}: an empty configuration ({KNOWN})"
            ));
        }
        let config = parse_one(name, memory_bytes)?;
        if out
            .iter()
            .any(|c| c.tmp == config.tmp && c.mem == config.mem)
        {
            return Err(format!("--configs: configuration {name:?} is given twice"));
        }
        out.push(config);
    }
    Ok(out)
}

fn parse_one(name: &str, memory_bytes: u64) -> Result<Config, String> {
    let mut config = Config {
        name: name.to_string(),
        tmp: Tmp::AsGiven,
        mem: None,
    };
    let mut seen: Vec<&str> = Vec::new();
    for setting in name.split('+').map(str::trim) {
        let Some((key, value)) = setting.split_once('=') else {
            return Err(format!(
                "--configs: {setting:?} in {name:?} is not KEY=VALUE ({KNOWN})"
            ));
        };
        if seen.contains(&key) {
            return Err(format!("--configs: {key} is set twice in {name:?}"));
        }
        seen.push(key);
        match key {
            "tmp" => config.tmp = parse_tmp(value)?,
            "mem" => config.mem = Some(parse_size(value, memory_bytes)?),
            other => {
                return Err(format!(
                    "--configs: unknown setting {other:?} in {name:?} ({KNOWN})"
                ))
            }
        }
    }
    Ok(config)
}

fn parse_tmp(value: &str) -> Result<Tmp, String> {
    match value {
        "tmpfs" => Ok(Tmp::Tmpfs),
        "disk" => Ok(Tmp::Disk),
        v if v.starts_with('/') => Ok(Tmp::Dir(PathBuf::from(v))),
        v => Err(format!(
            "--configs: tmp={v}: give tmpfs, disk or an absolute directory"
        )),
    }
}

/// A size as `256M`, `1G`, `524288K` or bytes, binary units, within reason.
pub fn parse_size(value: &str, memory_bytes: u64) -> Result<u64, String> {
    let bytes = crate::model::unit::parse_bytes(value).ok_or_else(|| {
        let digits = value
            .trim()
            .trim_end_matches(['K', 'M', 'G', 'k', 'm', 'g']);
        if digits.parse::<u64>().is_ok() {
            format!("--configs: mem={value}: too large")
        } else {
            format!("--configs: mem={value}: give a size such as 256M or 2G")
        }
    })?;
    if bytes < LEAST_MEMORY {
        return Err(format!(
            "--configs: mem={value}: less than 64M cannot hold the run and its shells"
        ));
    }
    if memory_bytes > 0 && bytes > memory_bytes {
        return Err(format!(
            "--configs: mem={value}: more than this machine's {} MiB of memory",
            memory_bytes >> 20
        ));
    }
    Ok(bytes)
}

/// The command line of one configuration's run: the sweep's own arguments without
/// `--configs`, `--dir` and `--label` (each configuration sets its own), with the rows
/// chosen and what the configuration sets appended.
pub fn child_args(argv: &[OsString], dir: &Path, config: &Config, label: &str) -> Vec<OsString> {
    let mut out: Vec<OsString> = Vec::new();
    let mut skip_value = false;
    for a in argv {
        if skip_value {
            skip_value = false;
            continue;
        }
        let text = a.to_string_lossy();
        let owned = ["--configs", "--dir", "--label"];
        if owned.contains(&text.as_ref()) {
            skip_value = true;
            continue;
        }
        if owned.iter().any(|f| text.starts_with(&format!("{f}="))) {
            continue;
        }
        out.push(a.clone());
    }
    out.extend(
        [
            OsStr::new("--dir"),
            dir.as_os_str(),
            OsStr::new("--label"),
            OsStr::new(label),
            OsStr::new("--configuration"),
            OsStr::new(&config.name),
        ]
        .map(OsString::from),
    );
    out
}

/// A configuration made real on this machine: the scratch directory (and the tmpfs under
/// it, if the sweep mounted one) and the cgroup; `Drop` undoes all of it.
struct Prepared {
    dir: PathBuf,
    /// A directory the sweep made (the mount point or a directory in /dev/shm), removed.
    made: Option<PathBuf>,
    mounted: bool,
    cgroup: Option<MemoryCgroup>,
    note: String,
}

impl Drop for Prepared {
    fn drop(&mut self) {
        if self.mounted {
            tmpfs::unmount(&self.dir);
        }
        if let Some(d) = &self.made {
            let _ = std::fs::remove_dir_all(d);
        }
        // The cgroup's own Drop removes it, its processes reaped.
        self.cgroup.take();
    }
}

/// The disk directory of `tmp=disk`: `--dir`, or /var/tmp (the temporary directory may
/// itself be a tmpfs).
fn disk_dir(given: Option<&Path>) -> PathBuf {
    given.map_or_else(|| PathBuf::from("/var/tmp"), Path::to_path_buf)
}

/// Why `config` cannot be run here, checked before anything runs: a directory that is
/// not one, cannot be written, or (for `tmp=disk`) is a tmpfs.
fn check(config: &Config, given_dir: Option<&Path>) -> Result<(), String> {
    let dir = match &config.tmp {
        Tmp::AsGiven | Tmp::Tmpfs => return Ok(()),
        Tmp::Disk => disk_dir(given_dir),
        Tmp::Dir(d) => d.clone(),
    };
    super::dir::DirArgs {
        dir: Some(dir.clone()),
    }
    .checked()
    .map_err(|e| format!("configuration {}: {e}", config.name))?;
    if config.tmp == Tmp::Disk && on_tmpfs(&dir) {
        return Err(format!(
            "configuration {}: {} is a tmpfs, not a disk; give a disk directory with --dir",
            config.name,
            dir.display()
        ));
    }
    Ok(())
}

/// Make `config` real: mount or choose the directory, make the cgroup. `Err` is a reason
/// to skip the configuration (not root, no memory cgroup here).
fn prepare(config: &Config, given_dir: Option<&Path>) -> Result<Prepared, String> {
    let cgroup = match config.mem {
        None => None,
        Some(_) if !is_root() => {
            return Err("a memory cgroup needs root (or a delegated cgroup)".into())
        }
        Some(bytes) => Some(MemoryCgroup::create(bytes)?),
    };
    let mut p = Prepared {
        dir: PathBuf::new(),
        made: None,
        mounted: false,
        cgroup,
        note: String::new(),
    };
    let mut notes: Vec<String> = Vec::new();
    match &config.tmp {
        Tmp::AsGiven => {
            p.dir = given_dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
            notes.push(format!("scratch in {}", p.dir.display()));
        }
        Tmp::Disk => {
            p.dir = disk_dir(given_dir);
            notes.push(format!("scratch on disk in {}", p.dir.display()));
        }
        Tmp::Dir(d) => {
            p.dir = d.clone();
            notes.push(format!("scratch in {}", p.dir.display()));
        }
        Tmp::Tmpfs => {
            let point = make_dir_in(&std::env::temp_dir())?;
            p.made = Some(point.clone());
            p.dir = point;
            if is_root() && tmpfs::mount(&p.dir, TMPFS_SIZE).is_ok() {
                p.mounted = true;
                notes.push(format!(
                    "scratch on a tmpfs ({TMPFS_SIZE}) mounted for the run at {}",
                    p.dir.display()
                ));
            } else {
                // An ordinary user (or a root without CAP_SYS_ADMIN): the tmpfs that is
                // there for everyone.
                let _ = std::fs::remove_dir(&p.dir);
                let shm = Path::new("/dev/shm");
                if !on_tmpfs(shm) {
                    p.made = None;
                    return Err("cannot mount a tmpfs and /dev/shm is not one".into());
                }
                let d = make_dir_in(shm)?;
                p.made = Some(d.clone());
                p.dir = d;
                notes.push(format!(
                    "scratch on the tmpfs /dev/shm in {}",
                    p.dir.display()
                ));
            }
        }
    }
    if let Some(g) = &p.cgroup {
        notes.push(format!("in a memory cgroup, {}", g.describe()));
    }
    p.note = notes.join("; ");
    Ok(p)
}

/// A fresh directory `timeshare-config-PID-N` in `parent`, for a mount point or a
/// scratch directory of the sweep's own.
fn make_dir_in(parent: &Path) -> Result<PathBuf, String> {
    let d = tempfile::Builder::new()
        .prefix(&format!("timeshare-config-{}-", std::process::id()))
        .tempdir_in(parent)
        .map_err(|e| format!("cannot make a directory in {}: {e}", parent.display()))?;
    Ok(d.keep())
}

/// Refuse what a sweep cannot do: one output file for several runs, or no store.
fn check_args(args: &RunArgs) -> Result<(), String> {
    if args.json.is_some() || args.html.is_some() {
        return Err(
            "--configs stores one run per configuration: write each with `timeshare \
                    export` rather than --json/--html"
                .into(),
        );
    }
    if args.no_save {
        return Err("--configs stores one run per configuration; --no-save would keep none".into());
    }
    Ok(())
}

/// The sweep: every configuration checked first, then one `timeshare run` per
/// configuration, what each made undone after it.
pub fn sweep(args: &RunArgs, list: &str) -> Result<Exit> {
    interrupt::install()?;
    check_args(args).map_err(UsageError)?;
    let configs = parse(list, total_memory()).map_err(UsageError)?;
    let given_dir = args.dir.dir.as_deref();
    for c in &configs {
        check(c, given_dir).map_err(UsageError)?;
    }
    let argv: Vec<OsString> = std::env::args_os().skip(1).collect();
    let mut worst = Exit::Success;
    let mut stored: Vec<String> = Vec::new();
    for (k, config) in configs.iter().enumerate() {
        let prepared = match prepare(config, given_dir) {
            Ok(p) => p,
            Err(why) => {
                println!("configuration {}: skipped: {why}", config.name);
                continue;
            }
        };
        println!(
            "configuration {}/{}: {} — {}",
            k + 1,
            configs.len(),
            config.name,
            prepared.note
        );
        let label = match &args.label {
            Some(l) => format!("{l} {}", config.name),
            None => config.name.clone(),
        };
        let mut child_argv = child_args(&argv, &prepared.dir, config, &label);
        if args.select.is_empty() {
            child_argv.extend(crate::bench::load::CONFIGURATION_ROWS.map(OsString::from));
        }
        child_argv.push("--configuration-note".into());
        child_argv.push(prepared.note.clone().into());
        let exit = run_child(&child_argv, &prepared)?;
        drop(prepared);
        if exit == Exit::Interrupted || interrupt::requested() {
            return Ok(Exit::Interrupted);
        }
        if exit == Exit::Success {
            stored.push(label);
        } else if worst == Exit::Success {
            worst = exit;
        }
    }
    if stored.len() >= 2 {
        println!(
            "configurations side by side: `timeshare table 000-B`, `timeshare compare {:?} {:?}`",
            stored[0], stored[1]
        );
    }
    Ok(worst)
}

/// Run one configuration's `timeshare run` and wait for it, passing a stop request on.
fn run_child(argv: &[OsString], prepared: &Prepared) -> Result<Exit> {
    // This very binary, by its open file: a rebuilt or reinstalled timeshare does not
    // change a sweep half-way.
    let mut cmd = Command::new("/proc/self/exe");
    cmd.args(argv).env("TMPDIR", &prepared.dir);
    if let Some(g) = &prepared.cgroup {
        g.enter_at_exec(&mut cmd).context("cgroup path")?;
    }
    let mut child = cmd.spawn().context("starting a configuration's run")?;
    let mut forwarded = false;
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        if interrupt::requested() && !forwarded {
            // A terminal's Ctrl-C reaches the child too; a SIGTERM to the sweep alone
            // does not.
            procgroup::interrupt(child.id() as i32);
            forwarded = true;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Ok(match status.code() {
        Some(0) => Exit::Success,
        Some(2) => Exit::Usage,
        Some(130) => Exit::Interrupted,
        _ if status.code().is_none() => Exit::Interrupted,
        _ => Exit::Failed,
    })
}

fn total_memory() -> u64 {
    crate::harness::meminfo::total_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    #[test]
    fn configurations_parse_with_their_settings() {
        let c = parse("tmp=tmpfs, tmp=disk,tmp=disk+mem=256M,tmp=/srv", 8 * GIB).unwrap();
        assert_eq!(c.len(), 4);
        assert_eq!((c[0].tmp.clone(), c[0].mem), (Tmp::Tmpfs, None));
        assert_eq!(c[1].name, "tmp=disk");
        assert_eq!((c[2].tmp.clone(), c[2].mem), (Tmp::Disk, Some(256 << 20)));
        assert_eq!(c[3].tmp, Tmp::Dir("/srv".into()));
        assert_eq!(parse_size("2g", 8 * GIB), Ok(2 * GIB));
        assert_eq!(parse_size("131072K", 8 * GIB), Ok(128 << 20));
    }

    #[test]
    fn bad_configurations_are_refused_in_one_line() {
        for (bad, says) in [
            ("tmp=ramdisk", "tmp=ramdisk"),
            ("swap=rf11", "unknown setting \"swap\""),
            ("mem=1K", "less than 64M"),
            ("mem=64G", "more than this machine"),
            ("mem=lots", "give a size"),
            ("mem=99999999999G", "too large"),
            ("tmp=disk,tmp=disk", "given twice"),
            ("tmp=disk+tmp=tmpfs", "set twice"),
            ("tmp=disk,,tmp=tmpfs", "empty configuration"),
            ("tmpfs", "not KEY=VALUE"),
        ] {
            let e = parse(bad, 8 * GIB).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
            assert!(!e.contains('\n'), "{bad}: {e}");
        }
    }

    #[test]
    fn a_configuration_s_run_sets_its_own_directory_label_and_name() {
        let argv: Vec<OsString> = [
            "run",
            "load.script.1",
            "--configs",
            "tmp=disk",
            "--dir=/x",
            "--label",
            "a",
            "--quick",
        ]
        .map(OsString::from)
        .to_vec();
        let c = &parse("tmp=disk", 0).unwrap()[0];
        let out = child_args(&argv, Path::new("/d"), c, "a tmp=disk");
        let out: Vec<String> = out.iter().map(|a| a.to_string_lossy().into()).collect();
        assert_eq!(
            out,
            [
                "run",
                "load.script.1",
                "--quick",
                "--dir",
                "/d",
                "--label",
                "a tmp=disk",
                "--configuration",
                "tmp=disk"
            ]
        );
    }

    #[test]
    fn a_disk_configuration_refuses_a_tmpfs_and_an_unwritable_directory() {
        let shm = Path::new("/dev/shm");
        if on_tmpfs(shm) {
            let c = &parse("tmp=disk", 0).unwrap()[0];
            let e = check(c, Some(shm)).unwrap_err();
            assert!(e.contains("is a tmpfs, not a disk"), "{e}");
        }
        let c = &parse("tmp=/no/such/timeshare/dir", 0).unwrap()[0];
        assert!(check(c, None).unwrap_err().contains("no such directory"));
    }

    #[test]
    fn what_a_tmpfs_configuration_made_is_gone_when_dropped() {
        let c = &parse("tmp=tmpfs", 0).unwrap()[0];
        let p = prepare(c, None).unwrap();
        let dir = p.dir.clone();
        assert!(on_tmpfs(&dir));
        std::fs::write(dir.join("f"), b"x").unwrap();
        drop(p);
        assert!(!dir.exists(), "{} left behind", dir.display());
        let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
        assert!(!mounts.contains(&dir.display().to_string()));
    }
}

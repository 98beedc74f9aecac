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

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::Result;

use super::errors::UsageError;
use super::run::RunArgs;
use super::Exit;
use crate::harness::configscratch::{disk_dir, Config, Tmp};
use crate::harness::interrupt;
use crate::harness::limits::on_tmpfs;
use crate::model::unit::{read_bytes, NotBytes};
use crate::usecase::sweep::{self, Request};

/// The smallest memory cgroup a run of the load rows can live in: the timeshare process
/// itself, its shells and their commands. Less is a typing slip (`mem=64K`).
const LEAST_MEMORY: u64 = 64 << 20;

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

/// A size as `256M`, `1G`, `524288K`, `2 GiB` or bytes, binary units, within reason.
pub fn parse_size(value: &str, memory_bytes: u64) -> Result<u64, String> {
    let bytes = read_bytes(value).map_err(|why| match why {
        NotBytes::TooLarge => format!("--configs: mem={value}: too large"),
        NotBytes::Unreadable => format!("--configs: mem={value}: give a size such as 256M or 2G"),
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
/// The sweep: every configuration checked first, then handed to the use case.
pub fn sweep(args: &RunArgs, list: &str) -> Result<Exit> {
    interrupt::install()?;
    check_args(args).map_err(UsageError)?;
    let configs = parse(list, total_memory()).map_err(UsageError)?;
    let given_dir = args.dir.dir.clone();
    for c in &configs {
        check(c, given_dir.as_deref()).map_err(UsageError)?;
    }
    let request = Request {
        configs,
        given_dir,
        label: args.label.clone(),
        default_rows: args.select.is_empty(),
        argv: std::env::args_os().skip(1).collect::<Vec<OsString>>(),
    };
    Ok(sweep::sweep(&request)?.into())
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
        assert_eq!(parse_size("2 GiB", 8 * GIB), Ok(2 * GIB));
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
}

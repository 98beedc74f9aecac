//! `run --configs LIST`, the sweep: seed 000's Attachment B today. One `timeshare run` per
//! configuration, each in a fresh process of its own with its scratch directory and
//! memory cgroup made for it (`harness/configscratch.rs`) and undone after it; one
//! stored run per configuration, labelled with it. The command line has parsed and
//! checked the configurations before this starts. What the sweep says between the runs
//! goes to standard output through `report::output`, as every command's does: a reader
//! that closed the pipe ends nothing.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result};

use super::Ended;
use crate::harness::configscratch::{prepare, Config, Prepared};
use crate::harness::{interrupt, procgroup};
use crate::report::output;

/// A sweep, as the command line checked it.
pub struct Request {
    pub configs: Vec<Config>,
    /// `--dir`, if given: where `tmp=disk` and an unchanged scratch go.
    pub given_dir: Option<PathBuf>,
    /// `--label`, put before each configuration's name.
    pub label: Option<String>,
    /// No rows were chosen: each run measures the configuration rows.
    pub default_rows: bool,
    /// The sweep's own arguments, each configuration's run's start.
    pub argv: Vec<OsString>,
}

/// The sweep: one `timeshare run` per configuration, what each made undone after it.
pub fn sweep(request: &Request) -> Result<Ended> {
    let configs = &request.configs;
    let mut worst = Ended::Success;
    let mut stored: Vec<String> = Vec::new();
    for (k, config) in configs.iter().enumerate() {
        let prepared = match prepare(config, request.given_dir.as_deref()) {
            Ok(p) => p,
            Err(why) => {
                output::print_text(&format!("configuration {}: skipped: {why}\n", config.name))?;
                continue;
            }
        };
        output::print_text(&format!(
            "configuration {}/{}: {} — {}\n",
            k + 1,
            configs.len(),
            config.name,
            prepared.note
        ))?;
        let label = match &request.label {
            Some(l) => format!("{l} {}", config.name),
            None => config.name.clone(),
        };
        let mut child_argv = child_args(&request.argv, &prepared.dir, config, &label);
        if request.default_rows {
            child_argv.extend(crate::bench::load::CONFIGURATION_ROWS.map(OsString::from));
        }
        child_argv.push("--configuration-note".into());
        child_argv.push(prepared.note.clone().into());
        let ended = run_child(&child_argv, &prepared)?;
        drop(prepared);
        if ended == Ended::Interrupted || interrupt::requested() {
            return Ok(Ended::Interrupted);
        }
        if ended == Ended::Success {
            stored.push(label);
        } else if worst == Ended::Success {
            worst = ended;
        }
    }
    if stored.len() >= 2 {
        output::print_text(&format!(
            "configurations side by side: `timeshare table 000-B`, `timeshare compare {:?} \
             {:?}`\n",
            stored[0], stored[1]
        ))?;
    }
    Ok(worst)
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
/// Run one configuration's `timeshare run` and wait for it, passing a stop request on.
fn run_child(argv: &[OsString], prepared: &Prepared) -> Result<Ended> {
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
        Some(0) => Ended::Success,
        Some(2) => Ended::Refused,
        Some(130) => Ended::Interrupted,
        _ if status.code().is_none() => Ended::Interrupted,
        _ => Ended::Failed,
    })
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::configscratch::Tmp;

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
        let c = &Config {
            name: "tmp=disk".into(),
            tmp: Tmp::Disk,
            mem: None,
        };
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
}

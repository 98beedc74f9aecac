//! The script format: a script's `@file` blocks and commands, how each command is run
//! (directly or through a shell), and which programs a script needs.

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use super::{DEV, USER1975};
use crate::harness::contract::{Host, Skip};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Script {
    pub name: String,
    /// Files created in each user's directory before the script starts.
    pub files: Vec<(String, String)>,
    pub commands: Vec<Cmd>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cmd {
    pub line: String,
    /// The name it is accounted under: the program, or `a | b` for a pipeline.
    pub label: String,
    /// `?cmd`: run only if installed.
    pub optional: bool,
    pub how: How,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum How {
    /// Run by timeshare itself, with simple redirections.
    Direct {
        argv: Vec<String>,
        stdin: Option<String>,
        stdout: Option<(String, bool)>,
    },
    /// Through `sh -c` (pipes, quotes, globs…).
    Shell,
}

/// Characters that need a shell.
pub(super) const SHELL_CHARS: &[char] = &[
    '|', '&', ';', '$', '`', '"', '\'', '\\', '*', '?', '(', ')', '[', ']', '{', '}', '~', '!',
];

/// The script `name_or_file`: a bundled name (`user1975`, `dev`) or a file to read.
pub fn load(name_or_file: Option<&str>) -> Result<Script> {
    match name_or_file {
        None | Some("user1975") => parse("user1975", USER1975),
        Some("dev") => parse("dev", DEV),
        Some(file) => {
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("cannot read the script {file}"))?;
            parse(file, &text).with_context(|| format!("in the script {file}"))
        }
    }
}

pub fn parse(name: &str, text: &str) -> Result<Script> {
    let mut files = Vec::new();
    let mut commands = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, raw)) = lines.next() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(fname) = line.strip_prefix("@file") {
            let fname = fname.trim();
            if fname.is_empty() || fname.starts_with('/') || fname.split('/').any(|c| c == "..") {
                bail!(
                    "line {}: @file needs a relative name inside the user's directory",
                    i + 1
                );
            }
            let mut body = String::new();
            loop {
                match lines.next() {
                    Some((_, l)) if l.trim() == "@end" => break,
                    Some((_, l)) => {
                        body.push_str(l);
                        body.push('\n');
                    }
                    None => bail!("line {}: @file {fname} has no @end", i + 1),
                }
            }
            files.push((fname.to_string(), body));
            continue;
        }
        commands.push(parse_command(line).with_context(|| format!("line {}", i + 1))?);
    }
    if commands.is_empty() {
        bail!("the script has no commands");
    }
    Ok(Script {
        name: name.to_string(),
        files,
        commands,
    })
}

pub(super) fn parse_command(line: &str) -> Result<Cmd> {
    let (optional, line) = match line.strip_prefix('?') {
        Some(rest) => (true, rest.trim()),
        None => (false, line),
    };
    let label_of = |word: &str| word.rsplit('/').next().unwrap_or(word).to_string();
    // `VAR=value cmd` is shell syntax too.
    let assigns = line
        .split_whitespace()
        .next()
        .is_some_and(|w| w.contains('='));
    if line.contains(SHELL_CHARS) || assigns {
        return Ok(shell_command(line, optional));
    }
    let mut argv = Vec::new();
    let (mut stdin, mut stdout) = (None, None);
    let mut words = line.split_whitespace();
    while let Some(w) = words.next() {
        let mut target = |rest: &str| -> Result<String> {
            if rest.is_empty() {
                words
                    .next()
                    .map(str::to_string)
                    .context("redirection without a file")
            } else {
                Ok(rest.to_string())
            }
        };
        if let Some(rest) = w.strip_prefix(">>") {
            stdout = Some((target(rest)?, true));
        } else if let Some(rest) = w.strip_prefix('>') {
            stdout = Some((target(rest)?, false));
        } else if let Some(rest) = w.strip_prefix('<') {
            stdin = Some(target(rest)?);
        } else if w.contains(['<', '>']) {
            // `2>err` and the like: leave them to the shell.
            return Ok(shell_command(line, optional));
        } else {
            argv.push(w.to_string());
        }
    }
    let Some(first) = argv.first() else {
        bail!("a redirection without a command");
    };
    Ok(Cmd {
        line: line.to_string(),
        label: label_of(first),
        optional,
        how: How::Direct {
            argv,
            stdin,
            stdout,
        },
    })
}

/// A line run through `sh -c`. A pipeline is accounted under its programs (`nroff | col`,
/// as Attachment C did); a list (`a && b`, `a; b`, `a || b`, `a &`) under its whole line,
/// since any of its commands may be the one that failed.
pub(super) fn shell_command(line: &str, optional: bool) -> Cmd {
    let label_of = |word: &str| word.rsplit('/').next().unwrap_or(word).to_string();
    let label = if is_list(line) {
        line.to_string()
    } else {
        line.split('|')
            .filter_map(|stage| stage.split_whitespace().find(|w| !w.contains('=')))
            .map(label_of)
            .collect::<Vec<_>>()
            .join(" | ")
    };
    Cmd {
        line: line.to_string(),
        label: if label.is_empty() { "sh".into() } else { label },
        optional,
        how: How::Shell,
    }
}

/// Whether `line` holds more than one command joined by `&&`, `||`, `;` or `&` (outside
/// quotes; `2>&1` and `>&2` are redirections, not lists).
pub(super) fn is_list(line: &str) -> bool {
    let mut quote = None;
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '\\') => i += 1,
            (None, ';') => return true,
            (None, '|') if chars.get(i + 1) == Some(&'|') => return true,
            (None, '&') => {
                let redirect =
                    i > 0 && matches!(chars[i - 1], '>' | '<') || chars.get(i + 1) == Some(&'>');
                if !redirect {
                    return true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Words a shell line may begin with that are the shell's own, not programs on PATH.
pub(super) const SHELL_WORDS: &[&str] = &[
    "cd", "export", "set", "unset", "read", "exec", ".", "source", "eval", "wait", "umask",
    "ulimit", "trap", "shift", "alias", "exit", "return",
];

/// The Debian packages of the programs the bundled scripts run, for the skip's hint.
pub(super) const PACKAGES: &[(&str, &str)] = &[
    ("ed", "ed"),
    ("nroff", "groff-base"),
    ("col", "bsdextrautils"),
    ("ps", "procps"),
    ("cc", "gcc"),
];

/// The programs `script` must run that are not on PATH here, each named once: a script
/// missing one would fail every time it ran that command, so the row is skipped before
/// it starts, naming them, rather than failed after (optional `?` commands are noted as
/// absent instead). A list (`a && b`) is not looked into: its words need not be programs;
/// nor is a relative path (`./app`), which the script builds itself.
pub fn lacking_programs(script: &Script, host: &Host) -> Vec<String> {
    let mut lacking: Vec<String> = Vec::new();
    for c in script.commands.iter().filter(|c| !c.optional) {
        for program in c.programs() {
            // A relative path (`./app`) is a program the script itself builds.
            let built_here = program.contains('/') && !program.starts_with('/');
            if !built_here
                && !lacking.iter().any(|p| p == program)
                && !SHELL_WORDS.contains(&program)
                && host.find_program(program).is_none()
            {
                lacking.push(program.to_string());
            }
        }
    }
    lacking
}

/// The skip for `lacking` programs of `script`, with the packages that bring the known
/// ones.
pub(super) fn lacking_skip(script: &Script, lacking: &[String]) -> Skip {
    let named: Vec<String> = lacking.iter().map(|p| format!("`{p}`")).collect();
    let packages: Vec<&str> = lacking
        .iter()
        .filter_map(|p| PACKAGES.iter().find(|(q, _)| q == p).map(|(_, pkg)| *pkg))
        .collect();
    let hint = if packages.is_empty() {
        String::new()
    } else {
        format!(
            " (on Debian or Ubuntu: apt-get install {})",
            packages.join(" ")
        )
    };
    let are = if lacking.len() == 1 {
        "it is"
    } else {
        "they are"
    };
    Skip::new(format!(
        "the {} script runs {} and {are} not on PATH{hint}",
        script.name,
        named.join(", ")
    ))
}

impl Cmd {
    /// The programs this command starts: each stage of a pipeline; nothing for a list.
    pub(super) fn programs(&self) -> Vec<&str> {
        match &self.how {
            How::Direct { argv, .. } => vec![argv[0].as_str()],
            How::Shell if is_list(&self.line) => Vec::new(),
            How::Shell => self
                .line
                .split('|')
                .filter_map(|stage| stage.split_whitespace().find(|w| !w.contains('=')))
                .collect(),
        }
    }

    /// The program this command needs, for the optional check.
    pub(super) fn program(&self) -> &str {
        match &self.how {
            How::Direct { argv, .. } => &argv[0],
            How::Shell => self.line.split_whitespace().next().unwrap_or("sh"),
        }
    }

    /// The command to start in `dir`; `sh` is the shell (and its options) for `sh -c`
    /// lines.
    pub(super) fn command(&self, dir: &Path, stderr: File, sh: &[String]) -> Result<Command> {
        let mut c = match &self.how {
            How::Direct {
                argv,
                stdin,
                stdout,
            } => {
                let mut c = Command::new(&argv[0]);
                c.args(&argv[1..]);
                c.stdin(match stdin {
                    Some(f) => Stdio::from(
                        File::open(dir.join(f)).with_context(|| format!("cannot open < {f}"))?,
                    ),
                    None => Stdio::null(),
                });
                c.stdout(match stdout {
                    Some((f, append)) => Stdio::from(
                        File::options()
                            .create(true)
                            .write(true)
                            .append(*append)
                            .truncate(!*append)
                            .open(dir.join(f))
                            .with_context(|| format!("cannot open > {f}"))?,
                    ),
                    None => Stdio::null(),
                });
                c
            }
            How::Shell => {
                let mut c = Command::new(&sh[0]);
                c.args(&sh[1..])
                    .args(["-c", &self.line])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null());
                c
            }
        };
        // The user's directory is their home too: nothing touches the real one.
        c.current_dir(dir).env("HOME", dir).stderr(stderr);
        Ok(c)
    }
}

/// The shell for `sh -c` lines, with `pipefail` where one offers it, so that a failing
/// stage anywhere in a pipeline (a broken `sort` feeding `uniq`) fails the command, not
/// only the last one. Debian's dash before 0.5.13 has no pipefail; bash then does the job.
/// Without either, only a pipeline's last stage is checked (said in the details).
pub fn pipefail_shell() -> &'static (&'static str, &'static [&'static str]) {
    static SHELL: std::sync::OnceLock<(&'static str, &'static [&'static str])> =
        std::sync::OnceLock::new();
    SHELL.get_or_init(|| {
        let works = |sh: &str| {
            Command::new(sh)
                .args(["-o", "pipefail", "-c", "true"])
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        if works("sh") {
            ("sh", &["-o", "pipefail"])
        } else if works("bash") {
            ("bash", &["-o", "pipefail"])
        } else {
            ("sh", &[])
        }
    })
}

pub(super) fn shell_description() -> String {
    let (sh, opts) = pipefail_shell();
    if opts.is_empty() {
        format!("{sh} -c (no pipefail here: only a pipeline's last stage is checked)")
    } else {
        format!("{sh} {} -c", opts.join(" "))
    }
}

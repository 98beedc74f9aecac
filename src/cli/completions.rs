//! `timeshare completions SHELL`: the shell's completion script, generated from the same
//! clap definitions as `--help`, so it cannot drift from the real options.
//!
//! For example: `timeshare completions bash > ~/.local/share/bash-completion/completions/timeshare`.
//!
//! The arguments that name things — benchmark ids and families, stored runs and their
//! labels, reference machines, seed tables — are completed by asking the binary itself
//! (`timeshare __words COMMAND`, see [`super::words`]) when the shell completes: clap's
//! scripts are static, so a few lines per shell are added after them that call it.

use anyhow::Result;
use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::{output, Cli, Exit};

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to write the completion script for
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn execute(args: CompletionsArgs) -> Result<Exit> {
    output::print(script(args.shell))?;
    Ok(Exit::Success)
}

/// clap's script for `shell`, with the completion of names added where the shell allows.
pub fn script(shell: Shell) -> String {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut offered(), "timeshare", &mut out);
    let clap = String::from_utf8_lossy(&out).into_owned();
    let named = named_commands();
    match shell {
        Shell::Bash => with_bash_words(&clap, &named),
        Shell::Zsh => with_zsh_words(&clap, &named),
        Shell::Fish => with_fish_words(clap, &named),
        _ => clap,
    }
}

/// The command line as people are offered it: the hidden internal subcommands (the words
/// the scripts ask for, the processes a run starts) left out, which clap's scripts would
/// otherwise offer beside `run` and `show`.
fn offered() -> clap::Command {
    let full = Cli::command();
    let mut cmd = clap::Command::new(full.get_name().to_string())
        .version(full.get_version().unwrap_or_default().to_string());
    if let Some(about) = full.get_about() {
        cmd = cmd.about(about.clone());
    }
    for a in full.get_arguments() {
        cmd = cmd.arg(a.clone());
    }
    for c in full.get_subcommands().filter(|c| !c.is_hide_set()) {
        cmd = cmd.subcommand(c.clone());
    }
    cmd
}

/// The subcommands whose arguments name things, each with its options that take a value
/// (after those, the next word is the option's value, not a name).
fn named_commands() -> Vec<(String, Vec<String>)> {
    Cli::command()
        .get_subcommands()
        .filter(|c| !super::words::words(c.get_name(), Vec::new).is_empty())
        .map(|c| {
            let valued = c
                .get_arguments()
                .filter(|a| !a.is_positional() && a.get_action().takes_values())
                .flat_map(|a| {
                    let long = a.get_long().map(|l| format!("--{l}"));
                    let short = a.get_short().map(|s| format!("-{s}"));
                    long.into_iter().chain(short)
                })
                .collect();
            (c.get_name().to_string(), valued)
        })
        .collect()
}

fn with_bash_words(clap: &str, named: &[(String, Vec<String>)]) -> String {
    let mut cases = String::new();
    for (name, valued) in named {
        cases.push_str(&format!(
            "        {name}) valued=\" {} \" ;;\n",
            valued.join(" ")
        ));
    }
    let glue = format!(
        r#"
# Names (benchmark ids, runs, machines, seed tables) from the binary itself.
_timeshare_words() {{
    _timeshare "$@"
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" sub="" valued i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${{COMP_WORDS[i]}}" in -*) ;; *) sub="${{COMP_WORDS[i]}}"; break ;; esac
    done
    [[ -z "$sub" || "$cur" == -* ]] && return 0
    case "$sub" in
{cases}        *) return 0 ;;
    esac
    case "$valued" in *" $prev "*) return 0 ;; esac
    local words
    words="$(command timeshare {words} "$sub" 2>/dev/null)" || return 0
    [[ -n "$words" ]] && COMPREPLY=( $(compgen -W "$words" -- "$cur") )
    return 0
}}
"#,
        words = super::words::COMMAND
    );
    let body = clap.replace("complete -F _timeshare ", "complete -F _timeshare_words ");
    format!("{body}{glue}")
}

fn with_zsh_words(clap: &str, named: &[(String, Vec<String>)]) -> String {
    let function = format!(
        "\n# Names (benchmark ids, runs, machines, seed tables) from the binary itself.\n\
         _timeshare_words() {{\n    local -a w\n    \
         w=(${{(f)\"$(command timeshare {} $1 2>/dev/null)\"}})\n    compadd -a w\n}}\n",
        super::words::COMMAND
    );
    let mut out = String::new();
    let mut current: Option<&str> = None;
    for (i, line) in clap.lines().enumerate() {
        let trimmed = line.trim();
        if let Some(name) = trimmed.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
            current = named
                .iter()
                .find(|(n, _)| n == name)
                .map(|(n, _)| n.as_str());
        }
        let positional = trimmed.starts_with("'*::") || trimmed.starts_with("':");
        match current {
            Some(name) if positional && trimmed.contains(":_default'") => {
                out.push_str(
                    &line.replace(":_default'", &format!(":{{_timeshare_words {name}}}'")),
                );
            }
            _ => out.push_str(line),
        }
        out.push('\n');
        if i == 0 {
            out.push_str(&function);
        }
    }
    out
}

fn with_fish_words(mut clap: String, named: &[(String, Vec<String>)]) -> String {
    clap.push_str("# Names (benchmark ids, runs, machines, seed tables) from the binary itself.\n");
    for (name, _) in named {
        clap.push_str(&format!(
            "complete -c timeshare -n \"__fish_seen_subcommand_from {name}\" -f -a \
             \"(command timeshare {} {name} 2>/dev/null)\"\n",
            super::words::COMMAND
        ));
    }
    clap
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shell_asks_the_binary_for_names() {
        let bash = script(Shell::Bash);
        assert!(bash.contains("complete -F _timeshare_words "), "bash");
        assert!(
            bash.contains("        run) valued=\" "),
            "bash: run's valued options"
        );
        assert!(bash.contains("--label"), "bash: --label takes a value");
        let zsh = script(Shell::Zsh);
        assert!(zsh.contains("_timeshare_words() {"), "zsh");
        assert!(
            zsh.contains("{_timeshare_words table}'"),
            "zsh: table's key"
        );
        assert!(
            zsh.contains("{_timeshare_words run}'"),
            "zsh: run's selection"
        );
        let fish = script(Shell::Fish);
        assert!(
            !fish.contains("-a \"__words\""),
            "fish offers no hidden command"
        );
        assert!(!zsh.contains("'__words:"), "zsh offers no hidden command");
        let top = bash
            .lines()
            .skip_while(|l| l.trim() != "timeshare)")
            .find(|l| l.trim_start().starts_with("opts="))
            .expect("bash: the top level's words");
        assert!(top.contains(" show "), "{top}");
        let hidden: Vec<String> = Cli::command()
            .get_subcommands()
            .filter(|c| c.is_hide_set())
            .map(|c| format!(" {} ", c.get_name()))
            .collect();
        assert!(hidden.iter().any(|h| h.contains("__words")), "{hidden:?}");
        for name in &hidden {
            assert!(!top.contains(name.as_str()), "bash offers {name}: {top}");
        }
        assert!(fish.contains(
            "__fish_seen_subcommand_from compare\" -f -a \"(command timeshare __words compare"
        ));
    }
}

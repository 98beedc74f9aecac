//! Standard output, in one place: how it looks and what a closed pipe means.
//!
//! A reader that stops early (`timeshare list | head -1`) closes the pipe, and the next
//! write fails with EPIPE (Rust ignores SIGPIPE, so there is no signal). That is the
//! reader's choice, not an error: [`print()`] notes it and drops the rest of the output
//! quietly, and the command ends with its own status (a run still stores what it
//! measured). Every subcommand prints through here, never with `print!`, which would
//! panic.
//!
//! [`detect_style`] decides once how tables look: as wide as the terminal, else `COLUMNS`,
//! else the report's default; coloured only on a terminal and when `NO_COLOR` is unset
//! (<https://no-color.org>).

use std::ffi::OsStr;
use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::report::style::{Style, DEFAULT_WIDTH};

/// Set once the reader of standard output has gone away.
static READER_GONE: AtomicBool = AtomicBool::new(false);

/// Write `text` (a format for programs: JSON, CSV, roff) to standard output and flush it:
/// byte for byte into a pipe or a file, but on a terminal with every escape sequence and
/// control character but the newline shown escaped
/// ([`crate::report::style::raw_terminal_safe`]): an imported field must not retitle
/// the window or clear the screen of whoever looks at it. Once the reader has closed the
/// pipe, this and every later call do nothing and succeed; other errors (a full disk
/// behind a redirection) are returned.
pub fn print(text: impl AsRef<[u8]>) -> io::Result<()> {
    let bytes = text.as_ref();
    if io::stdout().is_terminal() {
        let text = String::from_utf8_lossy(bytes);
        return write_out(crate::report::style::raw_terminal_safe(&text).as_bytes());
    }
    write_out(bytes)
}

/// Whether nothing printed can reach anyone any more: the reader closed the pipe, or the
/// command was started with standard output closed. A command that only prints (`monitor`)
/// stops then.
pub fn reader_gone() -> bool {
    READER_GONE.load(Ordering::Relaxed) || stdout_closed()
}

/// Whether the process was started with file descriptor 1 closed
/// (`timeshare history >&-`). Rust's runtime opens `/dev/null` on a closed standard
/// descriptor before `main` (so that no file opened later takes its number), after which
/// a write "succeeds" and the output vanishes without a word: the first attempt says so
/// once on standard error instead.
fn stdout_closed() -> bool {
    static CLOSED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CLOSED.get_or_init(|| {
        let closed = crate::harness::process::stdout_closed_at_start();
        if closed {
            eprintln!("timeshare: standard output is closed; what would be printed is lost");
        }
        closed
    })
}

fn write_out(text: &[u8]) -> io::Result<()> {
    if READER_GONE.load(Ordering::Relaxed) || stdout_closed() {
        return Ok(());
    }
    let mut out = io::stdout().lock();
    match out.write_all(text).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            READER_GONE.store(true, Ordering::Relaxed);
            Ok(())
        }
        other => other,
    }
}

/// Human-readable text (tables and the sentences around them), its long lines folded to
/// the output's width; see [`print()`]. Formats for programs (JSON, CSV, roff) go through
/// [`print()`] untouched.
pub fn print_text(text: &str) -> io::Result<()> {
    write_out(crate::report::style::fit(text).as_bytes())
}

/// A line for standard error (a warning, where a run was stored, what a phase is doing),
/// folded to the output's width at spaces, its continuations indented: a warning of 240
/// characters stays readable in a terminal and in a CI log.
pub fn say(line: &str) {
    eprintln!("{}", crate::report::style::fit(line));
}

/// `warning: TEXT` on standard error, folded as [`say`] folds.
pub fn warn(text: &str) {
    say(&format!("warning: {text}"));
}

/// The style for standard output as it is now.
pub fn detect_style() -> Style {
    let stdout = io::stdout();
    let terminal = stdout.is_terminal();
    let terminal_width = terminal
        .then(|| terminal_size::terminal_size_of(&stdout))
        .flatten()
        .map(|(w, _)| w.0);
    choose_style(
        terminal,
        terminal_width,
        std::env::var("COLUMNS").ok().as_deref(),
        std::env::var_os("NO_COLOR").as_deref(),
        std::env::var_os("TERM").as_deref(),
    )
}

/// The style from what the environment says, in order of precedence: the terminal's own
/// width, then `COLUMNS`, then the default; colour only on a terminal that is not `dumb`
/// and without a non-empty `NO_COLOR`.
fn choose_style(
    terminal: bool,
    terminal_width: Option<u16>,
    columns: Option<&str>,
    no_color: Option<&OsStr>,
    term: Option<&OsStr>,
) -> Style {
    let columns = columns.and_then(|c| c.trim().parse::<u16>().ok());
    let width = terminal_width
        .filter(|&w| w > 0)
        .or(columns.filter(|&w| w > 0))
        .unwrap_or(DEFAULT_WIDTH);
    let no_color = no_color.is_some_and(|v| !v.is_empty());
    let dumb = term.is_some_and(|t| t == "dumb");
    Style::new(width, terminal && !no_color && !dumb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::style::MIN_WIDTH;

    fn os(s: &str) -> Option<&OsStr> {
        Some(OsStr::new(s))
    }

    #[test]
    fn width_comes_from_the_terminal_then_columns_then_the_default() {
        assert_eq!(
            choose_style(true, Some(132), Some("80"), None, None).width,
            132
        );
        assert_eq!(choose_style(false, None, Some("80"), None, None).width, 80);
        assert_eq!(
            choose_style(false, None, Some("wide"), None, None).width,
            DEFAULT_WIDTH
        );
        assert_eq!(
            choose_style(false, None, None, None, None).width,
            DEFAULT_WIDTH
        );
        assert_eq!(
            choose_style(false, None, Some("5"), None, None).width,
            MIN_WIDTH
        );
    }

    #[test]
    fn colour_only_on_a_terminal_without_no_color() {
        assert!(choose_style(true, Some(80), None, None, os("xterm")).color);
        assert!(!choose_style(false, None, None, None, os("xterm")).color);
        assert!(!choose_style(true, Some(80), None, os("1"), os("xterm")).color);
        assert!(choose_style(true, Some(80), None, os(""), os("xterm")).color);
        assert!(!choose_style(true, Some(80), None, None, os("dumb")).color);
    }
}

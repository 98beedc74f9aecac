//! How printed output is shaped for where it goes: the width tables and prose wrap to,
//! and whether what matters is coloured (failed rows, "slower" verdicts; skipped rows
//! dimmed).
//!
//! The command line decides once, before anything prints, from the terminal, `COLUMNS`
//! and `NO_COLOR` ([`set`]); renderers only ask [`current`]. Without that decision (unit
//! tests, a library user) output is plain and [`DEFAULT_WIDTH`] wide, so rendering stays
//! deterministic. This is the one process-wide setting of the report layer: it shapes
//! bytes, never a measurement.

use std::sync::OnceLock;

use comfy_table::{Attribute, Cell, Color};

/// The width of output that goes to a file or a pipe when `COLUMNS` does not say: wide
/// enough for the main table's numeric columns beside a useful note, narrow enough to read
/// in a review or an issue.
pub const DEFAULT_WIDTH: u16 = 100;

/// The narrowest width honoured: below it a table's numbers would wrap mid-figure.
pub const MIN_WIDTH: u16 = 40;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Columns tables wrap to.
    pub width: u16,
    /// Whether cells may carry colour (a terminal, and `NO_COLOR` unset).
    pub color: bool,
}

impl Style {
    /// Plain output of the default width.
    pub const PLAIN: Style = Style {
        width: DEFAULT_WIDTH,
        color: false,
    };

    /// A style of `width` columns (at least [`MIN_WIDTH`]).
    pub fn new(width: u16, color: bool) -> Style {
        Style {
            width: width.max(MIN_WIDTH),
            color,
        }
    }
}

static STYLE: OnceLock<Style> = OnceLock::new();

/// Decide the style of this process's output; the first decision stands.
pub fn set(style: Style) {
    let _ = STYLE.set(style);
}

/// The style decided by [`set`], else [`Style::PLAIN`].
pub fn current() -> Style {
    STYLE.get().copied().unwrap_or(Style::PLAIN)
}

/// `text` with every line longer than the width wrapped at spaces, each continuation
/// indented two columns deeper than the line it continues. Tables fit the width already
/// ([`super::table::new_table`]); a rule and a coloured line (a table's) are left alone,
/// and so is a word longer than a line: this folds the sentences around the tables, and
/// the indented lines under them ("  id: source").
pub fn fit(text: &str) -> String {
    let style = current();
    fit_to(text, style.width as usize, style.color)
}

fn fit_to(text: &str, width: usize, color: bool) -> String {
    let text = &*guard(text, color);
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let table_line = line.starts_with('─') || line.contains('\x1b');
        if table_line || line.chars().count() <= width {
            out.push_str(line);
        } else {
            fold_line(line, width, &mut out);
        }
    }
    out
}

/// Fold one line at spaces, keeping its indentation and indenting what follows by two
/// more columns.
fn fold_line(line: &str, width: usize, out: &mut String) {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let mut current = " ".repeat(indent);
    for word in line.split(' ').filter(|w| !w.is_empty()) {
        let fits = current.chars().count() + 1 + word.chars().count() <= width;
        if !current.trim_start().is_empty() && !fits {
            out.push_str(&current);
            out.push('\n');
            current = " ".repeat(indent + 2);
        } else if !current.trim_start().is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    out.push_str(&current);
}

/// What a cell says about its row, and so how it is shown on a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    /// A failure: red.
    Bad,
    /// Worse than the baseline: yellow.
    Worse,
    /// Skipped or not measured: dimmed, out of the way.
    Quiet,
}

/// `text` as a cell in `tone`, coloured only when the style allows it.
pub fn cell(text: impl Into<String>, tone: Tone) -> Cell {
    let text: String = text.into();
    paint(Cell::new(escape(&text)), tone, current().color)
}

/// Every cell of a row in one tone.
pub fn row(cells: Vec<String>, tone: Tone) -> Vec<Cell> {
    cells.into_iter().map(|c| cell(c, tone)).collect()
}

/// A row whose cells each get the tone `tone_of(index, text)` gives.
pub fn toned(cells: Vec<String>, tone_of: impl Fn(usize, &str) -> Tone) -> Vec<Cell> {
    cells
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let tone = tone_of(i, &c);
            cell(c, tone)
        })
        .collect()
}

/// The tone of a comparison's verdict: "slower" stands out, the rest stays plain.
pub fn verdict_tone(verdict: &str) -> Tone {
    if verdict.contains("slower") {
        Tone::Worse
    } else {
        Tone::Plain
    }
}

fn paint(c: Cell, tone: Tone, color: bool) -> Cell {
    if !color {
        return c;
    }
    match tone {
        Tone::Plain => c,
        Tone::Bad => c.fg(Color::Red).add_attribute(Attribute::Bold),
        Tone::Worse => c.fg(Color::Yellow),
        Tone::Quiet => c.add_attribute(Attribute::Dim),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_narrow_width_is_raised_to_the_minimum() {
        assert_eq!(Style::new(10, false).width, MIN_WIDTH);
        assert_eq!(Style::new(120, true).width, 120);
    }

    #[test]
    fn long_lines_fold_at_spaces_and_short_ones_stay() {
        let text = "short\nwarning: one two three four five six\n";
        let folded = fit_to(text, 16, false);
        assert_eq!(
            folded,
            "short\nwarning: one two\n  three four\n  five six\n"
        );
        assert_eq!(
            fit_to("  ctx.switch: a source line under a table", 24, false),
            "  ctx.switch: a source\n    line under a table"
        );
        assert_eq!(
            fit_to("unbreakable-word x", 5, false),
            "unbreakable-word\n  x"
        );
        let coloured = "\x1b[38;5;9m a very long coloured row that stays whole\x1b[0m";
        assert_eq!(fit_to(coloured, 10, true), coloured);
    }

    #[test]
    fn only_slower_verdicts_stand_out() {
        assert_eq!(verdict_tone("today 54.6× slower"), Tone::Worse);
        assert_eq!(verdict_tone("slower (p = 1.0e-3)"), Tone::Worse);
        assert_eq!(verdict_tone("today 6.10× faster"), Tone::Plain);
        assert_eq!(verdict_tone("no significant change"), Tone::Plain);
    }

    #[test]
    fn without_colour_a_cell_is_its_text_alone() {
        let plain = paint(Cell::new("FAILED"), Tone::Bad, false);
        assert_eq!(plain, Cell::new("FAILED"));
        let red = paint(Cell::new("FAILED"), Tone::Bad, true);
        assert_ne!(red, Cell::new("FAILED"));
    }
}

/// An untrusted string (a label, a host name, an id, an error from an imported file) made
/// safe for a terminal: control characters — newlines, escapes (ANSI, OSC), NUL, DEL, the
/// C1 controls — and the bidirectional overrides are shown as escapes (`\n`, `\x1b`,
/// `\u{202e}`) instead of acting. Ordinary text, accents included, is left as it is.
pub fn escape(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 && needs_escape(c) => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if needs_escape(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The colour sequences [`paint`] emits (crossterm's red, yellow, bold, dim, reset): the
/// only ones that reach a terminal. A new tone must be listed here, or its colour is shown
/// escaped (`every_tone_reaches_the_terminal_intact` checks it).
// "39" is the default foreground the table crate ends a coloured cell with.
const OWN_SGR: [&str; 6] = ["0", "1", "2", "38;5;9", "38;5;11", "39"];

/// The last guard before a terminal: every control character but the newline is shown
/// escaped, and so is every escape sequence but this program's own colours when colour is
/// on (`OWN_SGR`), so that no byte from an imported file can move the cursor, retitle
/// the window, clear the screen, hide text or colour it.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    guard(text, current().color)
}

/// Output for programs (CSV, JSON, roff) that reaches a terminal: no escape sequence of any
/// kind, every control character but the newline shown escaped.
pub fn raw_terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    guard(text, false)
}

fn guard(text: &str, keep_own_colours: bool) -> std::borrow::Cow<'_, str> {
    let risky = |c: char| c != '\n' && needs_escape(c);
    if !text.chars().any(risky) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '\x1b' && keep_own_colours {
            if let Some(len) = own_sgr_len(rest) {
                out.push_str(&rest[..len]);
                rest = &rest[len..];
                continue;
            }
        }
        if risky(c) {
            out.push_str(&escape(&c.to_string()));
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    std::borrow::Cow::Owned(out)
}

/// The length of one of this program's colour sequences ([`OWN_SGR`]) at the start of `s`.
fn own_sgr_len(s: &str) -> Option<usize> {
    let body = s.strip_prefix("\x1b[")?;
    let params = body
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b';')
        .count();
    let ours = OWN_SGR.contains(&&body[..params]);
    (ours && body.as_bytes().get(params) == Some(&b'm')).then_some(2 + params + 1)
}

#[cfg(test)]
mod escape_tests {
    use super::*;

    #[test]
    fn controls_are_shown_and_colours_kept() {
        assert_eq!(escape("a\nb\x1b]0;t\x07\0"), "a\\nb\\x1b]0;t\\x07\\x00");
        assert_eq!(escape("naïve café"), "naïve café");
        assert_eq!(escape("x\u{202e}y"), "x\\u{202e}y");
        assert_eq!(
            guard("\x1b[38;5;9mred\x1b[0m\n\x1b[2J\r", true),
            "\x1b[38;5;9mred\x1b[0m\n\\x1b[2J\\r"
        );
        // Colours that are not timeshare's own (conceal, a plain red) never pass, and
        // without colour none does.
        assert_eq!(guard("\x1b[8mx\x1b[31m", true), "\\x1b[8mx\\x1b[31m");
        assert_eq!(guard("\x1b[1mx\x1b[0m", false), "\\x1b[1mx\\x1b[0m");
        assert_eq!(
            raw_terminal_safe("a,\x1b]0;t\x07\r\n"),
            "a,\\x1b]0;t\\x07\\r\n"
        );
    }

    #[test]
    fn every_string_of_a_record_is_escaped_and_nothing_else_changes() {
        #[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
        struct Record {
            label: Option<String>,
            figure: f64,
            names: Vec<String>,
            details: serde_json::Value,
        }
        let record = Record {
            label: Some("a\x1b[38;5;9mred\nFAKE".into()),
            figure: 2.5e-9,
            names: vec!["plain".into(), "bidi\u{202e}".into()],
            details: serde_json::json!({"caches": [{"name": "L1\r\nFAKE 99 complete"}]}),
        };
        let shown = escaped(&record);
        assert_eq!(shown.label.as_deref(), Some("a\\x1b[38;5;9mred\\nFAKE"));
        assert_eq!(shown.figure, record.figure);
        assert_eq!(shown.names, ["plain", "bidi\\u{202e}"]);
        assert_eq!(
            shown.details["caches"][0]["name"],
            "L1\\r\\nFAKE 99 complete"
        );
        assert_eq!(
            escaped(&shown),
            shown,
            "escaping twice changes nothing more"
        );
    }

    #[test]
    fn every_tone_reaches_the_terminal_intact() {
        for tone in [Tone::Plain, Tone::Bad, Tone::Worse, Tone::Quiet] {
            let mut t = comfy_table::Table::new();
            t.enforce_styling();
            t.add_row(vec![paint(Cell::new("x"), tone, true)]);
            let text = t.to_string();
            assert_eq!(guard(&text, true), text, "{tone:?}");
        }
    }
}

/// A copy of a stored record (a run, an observation) with every string in it passed
/// through [`escape`], for the printers of a terminal: the strings of an imported file
/// reach dozens of printers (each family's details, cache names, command lines), and
/// one pass here, where the record is loaded for a terminal, leaves none unescaped. An id,
/// an enumeration or a date holds no control character and comes back as it was; a record
/// that does not survive the round trip is returned as it is (the last guard still holds).
pub fn escaped<T: serde::Serialize + serde::de::DeserializeOwned + Clone>(record: &T) -> T {
    fn walk(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::String(s) => {
                if let std::borrow::Cow::Owned(e) = escape(s) {
                    *s = e;
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(walk),
            serde_json::Value::Object(m) => m.values_mut().for_each(walk),
            _ => {}
        }
    }
    let Ok(mut value) = serde_json::to_value(record) else {
        return record.clone();
    };
    walk(&mut value);
    serde_json::from_value(value).unwrap_or_else(|_| record.clone())
}

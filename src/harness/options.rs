//! The run options that only some rows read (`--pages`, `--copies`, `--cache-max`, …),
//! declared beside those rows: each family lists its [`RowOption`]s — the flag, the rows
//! that read it, the values it takes and one line of help — and, when its options must
//! agree with each other or with the machine, one check over the run's options
//! ([`FamilyOptions::check`]). `run` builds its flags, its `--help` and its validation
//! from these declarations (stress-ng keeps each stressor's options beside it the same
//! way), so a new option is one declaration in the family and a field in `RunOptions`.

use crate::model::RunOptions;

/// One option some rows of a family read.
pub struct RowOption {
    /// The long flag without its dashes: `pages` is `--pages`.
    pub name: &'static str,
    /// What the value is called in `--help`: `N`, `SIZE`, `LIST`.
    pub value_name: &'static str,
    /// One line for `--help`, without the range and the rows (they are added from
    /// `kind` and `read_by`).
    pub help: &'static str,
    /// The values it takes, checked before anything runs.
    pub kind: Kind,
    /// The rows that read it, as `run` selects them (an id, a family or an id prefix):
    /// given while none of them is selected, it is refused.
    pub read_by: &'static [&'static str],
    /// Where a checked value goes in the run's options.
    pub set: fn(&mut RunOptions, Value),
}

/// What a family declares: its options, and a check of the run's options as a whole.
pub struct FamilyOptions {
    pub options: &'static [RowOption],
    /// Run on the options once every value is in (given or not): the error is one line
    /// for the user (`--memory-limit 1.0 MiB: not below the working set …`).
    pub check: Option<OptionsCheck>,
}

/// A family's check of the run's options together: `Err` is the one line said to the
/// user.
pub type OptionsCheck = fn(&RunOptions) -> Result<(), String>;

/// The values an option takes, with their range.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// A whole number from `min` to `max`.
    Count { min: u64, max: u64 },
    /// A size in bytes with a binary suffix (`512K`, `12M`, `1G`, `2 MiB`), from `min` to
    /// `max`.
    Size { min: u64, max: u64 },
    /// Seconds (`90`, `0.5`, `30s`, `5m`), from `min` to `max`.
    Seconds { min: f64, max: f64 },
    /// Whole numbers separated by commas (or the flag given again), each from `min` to
    /// `max`.
    List { min: u64, max: u64 },
    /// Text, which `check` accepts or explains.
    Text {
        check: fn(&str) -> Result<(), String>,
    },
}

/// A checked value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A count or a size (in bytes).
    Number(u64),
    Seconds(f64),
    List(Vec<u64>),
    Text(String),
}

impl Value {
    /// The number of a count or a size.
    pub fn number(&self) -> Option<u64> {
        match self {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    pub fn seconds(&self) -> Option<f64> {
        match self {
            Value::Seconds(s) => Some(*s),
            _ => None,
        }
    }

    pub fn list(&self) -> Vec<usize> {
        match self {
            Value::List(v) => v.iter().map(|&n| n as usize).collect(),
            _ => Vec::new(),
        }
    }

    pub fn text(&self) -> Option<String> {
        match self {
            Value::Text(t) => Some(t.clone()),
            _ => None,
        }
    }
}

impl RowOption {
    /// `--NAME`.
    pub fn flag(&self) -> String {
        format!("--{}", self.name)
    }

    /// Whether the option takes a list (its flag may be given again to add to it).
    pub fn is_list(&self) -> bool {
        matches!(self.kind, Kind::List { .. })
    }

    /// The help line `run --help` shows: the declared line, the values it takes and the
    /// rows that read it.
    pub fn help_line(&self) -> String {
        format!(
            "{} [{}; read by {}]",
            self.help,
            self.kind.describe(),
            self.read_by.join(", ")
        )
    }

    /// The value of the words given for it (one word, or a list's elements), checked
    /// against the declaration: an error is one line naming the flag and the value.
    pub fn parse(&self, words: &[String]) -> Result<Value, String> {
        let flag = self.flag();
        let bad = |word: &str, why: String| format!("{flag} {word}: {why}");
        match self.kind {
            Kind::List { min, max } => words
                .iter()
                .map(|w| whole(w, min, max, "numbers").map_err(|why| bad(w, why)))
                .collect::<Result<Vec<u64>, String>>()
                .map(Value::List),
            kind => {
                let word = words.last().map(String::as_str).unwrap_or("");
                match kind {
                    Kind::Count { min, max } => {
                        whole(word, min, max, "a number").map(Value::Number)
                    }
                    Kind::Size { min, max } => size_within(word, min, max).map(Value::Number),
                    Kind::Seconds { min, max } => seconds(word, min, max).map(Value::Seconds),
                    Kind::Text { check } => check(word).map(|()| Value::Text(word.to_string())),
                    Kind::List { .. } => unreachable!("lists are parsed above"),
                }
                .map_err(|why| bad(word, why))
            }
        }
    }
}

impl Kind {
    /// The values, as `--help` states them: "from 1 to 4096", "a size of at least 2M".
    pub fn describe(&self) -> String {
        match *self {
            Kind::Count { min, max } => format!("a number {}", range(min, max, |n| n.to_string())),
            Kind::Size { min, max } => format!("a size {}", range(min, max, size_name)),
            Kind::Seconds { min, max } => format!("seconds from {min} to {max}"),
            Kind::List { min, max } => {
                format!("numbers, each {}", range(min, max, |n| n.to_string()))
            }
            Kind::Text { .. } => "text".to_string(),
        }
    }
}

/// "from MIN to MAX", or "of at least MIN" when there is no upper bound.
fn range(min: u64, max: u64, show: impl Fn(u64) -> String) -> String {
    if max == u64::MAX {
        format!("of at least {}", show(min))
    } else {
        format!("from {} to {}", show(min), show(max))
    }
}

fn whole(word: &str, min: u64, max: u64, what: &str) -> Result<u64, String> {
    let n: u64 = word
        .trim()
        .parse()
        .map_err(|_| format!("give {what} {}", range(min, max, |n| n.to_string())))?;
    if !(min..=max).contains(&n) {
        return Err(format!(
            "give {what} {}",
            range(min, max, |n| n.to_string())
        ));
    }
    Ok(n)
}

fn size_within(word: &str, min: u64, max: u64) -> Result<u64, String> {
    let n = parse_size(word)?;
    if !(min..=max).contains(&n) {
        return Err(format!("give a size {}", range(min, max, size_name)));
    }
    Ok(n)
}

/// Seconds as a number or a time with its unit (`90`, `30s`, `5m`): the one duration
/// parser's spellings, as `--for` and `--budget` read them.
fn seconds(word: &str, min: f64, max: f64) -> Result<f64, String> {
    crate::model::unit::parse_seconds(word)
        .filter(|s| (min..=max).contains(s))
        .ok_or_else(|| format!("give seconds from {min} to {max}"))
}

/// A size as it is typed: `2M` rather than 2097152 where it is a whole multiple.
fn size_name(n: u64) -> String {
    crate::model::unit::human(n)
}

/// "12M", "512K", "1G", "2 MiB", "4096" → bytes (binary multiples), more than none.
pub fn parse_size(s: &str) -> Result<u64, String> {
    crate::model::unit::parse_bytes(s)
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{s:?} is not a size (e.g. 12M, 512K, 1G)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn option(kind: Kind) -> RowOption {
        RowOption {
            name: "thing",
            value_name: "N",
            help: "How many things",
            kind,
            read_by: &["fam.row"],
            set: |o, v| o.pages = v.number(),
        }
    }

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_value_outside_the_declared_range_is_refused_naming_flag_value_and_range() {
        let count = option(Kind::Count { min: 1, max: 64 });
        assert_eq!(count.parse(&words(&["64"])), Ok(Value::Number(64)));
        assert_eq!(
            count.parse(&words(&["65"])),
            Err("--thing 65: give a number from 1 to 64".to_string())
        );
        assert!(count.parse(&words(&["0"])).is_err());
        assert!(count.parse(&words(&["x"])).is_err());
        let list = option(Kind::List { min: 0, max: 4 });
        assert_eq!(list.parse(&words(&["0", "4"])), Ok(Value::List(vec![0, 4])));
        assert_eq!(
            list.parse(&words(&["1", "5"])),
            Err("--thing 5: give numbers from 0 to 4".to_string())
        );
        let secs = option(Kind::Seconds {
            min: 0.01,
            max: 60.0,
        });
        assert_eq!(secs.parse(&words(&["0.5"])), Ok(Value::Seconds(0.5)));
        assert_eq!(secs.parse(&words(&["30s"])), Ok(Value::Seconds(30.0)));
        assert_eq!(secs.parse(&words(&["1m"])), Ok(Value::Seconds(60.0)));
        assert_eq!(
            secs.parse(&words(&["NaN"])),
            Err("--thing NaN: give seconds from 0.01 to 60".to_string())
        );
        let size = option(Kind::Size {
            min: 2 << 20,
            max: u64::MAX,
        });
        assert_eq!(size.parse(&words(&["12M"])), Ok(Value::Number(12 << 20)));
        assert_eq!(
            size.parse(&words(&["1M"])),
            Err("--thing 1M: give a size of at least 2M".to_string())
        );
        assert!(size
            .parse(&words(&["lots"]))
            .unwrap_err()
            .contains("not a size"));
    }

    #[test]
    fn the_help_line_says_the_range_and_the_rows() {
        let o = option(Kind::Count { min: 1, max: 64 });
        assert_eq!(
            o.help_line(),
            "How many things [a number from 1 to 64; read by fam.row]"
        );
        assert_eq!(
            Kind::Size {
                min: 1,
                max: u64::MAX
            }
            .describe(),
            "a size of at least 1"
        );
    }

    #[test]
    fn a_checked_value_goes_where_the_declaration_says() {
        let o = option(Kind::Count { min: 1, max: 64 });
        let mut options = RunOptions::default();
        (o.set)(&mut options, o.parse(&words(&["9"])).unwrap());
        assert_eq!(options.pages, Some(9));
    }

    #[test]
    fn sizes_parse_in_binary_units() {
        assert_eq!(parse_size("12M"), Ok(12 << 20));
        assert_eq!(parse_size("512k"), Ok(512 << 10));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("2 MiB"), Ok(2 << 20));
        assert!(parse_size("twelve").is_err());
        assert!(parse_size("0").is_err());
        assert_eq!(size_name(2 << 20), "2M");
        assert_eq!(size_name(1000), "1000");
    }
}

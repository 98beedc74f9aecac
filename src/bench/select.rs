//! Turning what the user typed (`run syscall pipe.self.4 proc.fork`) into benchmarks.
//! A word selects a whole family, an exact id, or every id under a dotted prefix.

use thiserror::Error;

use crate::harness::contract::Benchmark;

#[derive(Debug, Error, PartialEq)]
pub enum SelectError {
    #[error("unknown benchmark or family '{0}' (see `timeshare list` for every id)")]
    Unknown(String),
}

/// Does `word` select `b`?
pub fn matches(word: &str, b: &Benchmark) -> bool {
    let id = b.id();
    word == b.family()
        || word == id
        || id
            .strip_prefix(word)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// The benchmarks `words` select, in registry order, each once. No words: all of them.
pub fn select<'a>(
    registry: &'a [Benchmark],
    words: &[String],
) -> Result<Vec<&'a Benchmark>, SelectError> {
    if words.is_empty() {
        return Ok(registry.iter().collect());
    }
    for w in words {
        if !registry.iter().any(|b| matches(w, b)) {
            return Err(SelectError::Unknown(w.clone()));
        }
    }
    Ok(registry
        .iter()
        .filter(|b| words.iter().any(|w| matches(w, b)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Registry;

    fn ids(words: &[&str]) -> Vec<String> {
        let reg = Registry::with_defaults();
        let words: Vec<String> = words.iter().map(|s| s.to_string()).collect();
        reg.select(&words)
            .unwrap()
            .iter()
            .map(|b| b.id().to_string())
            .collect()
    }

    #[test]
    fn a_family_selects_its_catalogue_section() {
        let s = ids(&["syscall"]);
        assert!(s.iter().any(|i| i == "syscall.getpid"));
        assert!(s.iter().any(|i| i == "timer.clock"), "timer.clock is in §1");
        assert!(s.iter().any(|i| i == "call.nested5.byref"));
    }

    #[test]
    fn a_prefix_stops_at_a_dot() {
        let s = ids(&["syscall.getpid"]);
        assert_eq!(s, vec!["syscall.getpid", "syscall.getpid.libc"]);
        assert!(ids(&["syscall.args"]).len() == 7);
    }

    #[test]
    fn words_mix_and_do_not_repeat() {
        let s = ids(&["syscall.dup", "syscall", "syscall.dup"]);
        assert_eq!(s.iter().filter(|i| *i == "syscall.dup").count(), 1);
    }

    #[test]
    fn unknown_words_are_an_error() {
        let reg = Registry::with_defaults();
        let err = reg.select(&["syscal".to_string()]).err().unwrap();
        assert_eq!(err, SelectError::Unknown("syscal".into()));
        assert!(reg.select(&["syscall.get".to_string()]).is_err());
    }
}

//! Turning what the user typed (`run syscall pipe.self.4 proc.fork`) into benchmarks.
//! A word selects a whole family, an exact id (that id only: `pipe.back.4` is not also
//! `pipe.back.4.fpu`), or every id under a dotted prefix: a word that is no id
//! (`proc.fork`, `syscall.args`), or any word ending in `.` or `*` (`pipe.back.4.`,
//! `pipe.back.4*`: `pipe.back.4` and every id under it).

use thiserror::Error;

use crate::harness::contract::Benchmark;

#[derive(Debug, Error, PartialEq)]
pub enum SelectError {
    #[error("unknown benchmark or family '{0}' (see `timeshare list` for every id)")]
    Unknown(String),
}

/// Does `word`, read as a family or a dotted prefix, select `b`? (`vm.seqpage` selects
/// `vm.seqpage.advise` too; [`select`] reads an exact id as that id only.)
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
    let selects = |w: &str, b: &Benchmark| -> bool {
        if let Some(prefix) = w.strip_suffix(['*', '.']) {
            let prefix = prefix.trim_end_matches(['*', '.']);
            return !prefix.is_empty() && matches(prefix, b);
        }
        if registry.iter().any(|x| x.id() == w) {
            return b.id() == w;
        }
        matches(w, b)
    };
    for w in words {
        if !registry.iter().any(|b| selects(w, b)) {
            return Err(SelectError::Unknown(w.clone()));
        }
    }
    Ok(registry
        .iter()
        .filter(|b| words.iter().any(|w| selects(w, b)))
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
    fn an_exact_id_selects_that_id_only() {
        assert_eq!(ids(&["syscall.getpid"]), vec!["syscall.getpid"]);
        assert_eq!(ids(&["pipe.back.4"]), vec!["pipe.back.4"]);
        assert_eq!(ids(&["vm.seqpage"]), vec!["vm.seqpage"]);
    }

    #[test]
    fn a_trailing_dot_or_star_selects_the_prefix() {
        let fpu = vec!["pipe.back.4", "pipe.back.4.fpu"];
        assert_eq!(ids(&["pipe.back.4."]), fpu);
        assert_eq!(ids(&["pipe.back.4*"]), fpu);
        assert_eq!(ids(&["pipe.back.4.*"]), fpu);
        assert_eq!(ids(&["syscall.getpid*"]).len(), 2);
        assert_eq!(ids(&["syscall*"]), ids(&["syscall"]));
        let reg = Registry::with_defaults();
        assert!(reg.select(&["*".to_string()]).is_err());
        assert!(reg.select(&[".".to_string()]).is_err());
    }

    #[test]
    fn a_word_that_is_no_id_selects_every_id_under_it_and_stops_at_a_dot() {
        assert!(ids(&["syscall.args"]).len() == 7);
        assert!(ids(&["proc.fork"])
            .iter()
            .all(|i| i.starts_with("proc.fork.")));
        assert!(!ids(&["pipe.back"]).is_empty());
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

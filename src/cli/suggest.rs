//! "Did you mean …?" for a mistyped benchmark id or family, reference machine or seed
//! table key: the nearest known name by Damerau–Levenshtein distance (a swapped pair of
//! letters is one edit), when it is near enough to be a typo rather than another word.

use anyhow::Result;

use super::UsageError;
use crate::bench::{Registry, SelectError};
use crate::harness::contract::Benchmark;

/// The benchmarks `words` select; a word that selects nothing is a usage error that
/// names the nearest id or family.
pub fn select<'a>(registry: &'a Registry, words: &[String]) -> Result<Vec<&'a Benchmark>> {
    registry.select(words).map_err(|e| {
        let SelectError::Unknown(word) = &e;
        let names = registry.benches().iter().flat_map(|b| [b.family(), b.id()]);
        UsageError(format!("{e}{}", hint(word, names))).into()
    })
}

/// The candidate nearest to `word`, if at most about a third of its letters differ.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word = word.to_lowercase();
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(&word, &c.to_lowercase()), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// "; did you mean `syscall`?" to end an error about `word`, or nothing.
pub fn hint<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    nearest(word, candidates)
        .map(|c| format!("; did you mean `{c}`?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 5] = [
        "syscall",
        "signal",
        "syscall.getpid",
        "pipe",
        "pdp11-70-ral",
    ];

    #[test]
    fn a_typo_finds_the_name_it_missed() {
        assert_eq!(nearest("syscal", NAMES), Some("syscall"));
        assert_eq!(nearest("syscall.getpdi", NAMES), Some("syscall.getpid"));
        assert_eq!(nearest("PIPE", NAMES), Some("pipe"));
        assert_eq!(nearest("pdp11-70-rl", NAMES), Some("pdp11-70-ral"));
    }

    #[test]
    fn another_word_is_not_a_typo() {
        assert_eq!(nearest("network", NAMES), None);
        assert_eq!(nearest("x", NAMES), None);
        assert_eq!(hint("network", NAMES), "");
        assert_eq!(hint("signl", NAMES), "; did you mean `signal`?");
    }
}

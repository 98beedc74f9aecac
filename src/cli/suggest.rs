//! "Did you mean …?" for a mistyped benchmark id or family, reference machine or seed
//! table key: the nearest known name by Damerau–Levenshtein distance (a swapped pair of
//! letters is one edit), when it is near enough to be a typo rather than another word.

use anyhow::Result;

use super::errors::UsageError;
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

/// "; did you mean `syscall`?" to end an error about `word`, or nothing. A word that is
/// the start of some names and near none (`vax750` for the three VAX-11/750 machines)
/// gets up to four of them.
pub fn hint<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    if let Some(c) = nearest(word, candidates.iter().copied()) {
        return format!("; did you mean `{c}`?");
    }
    let lower = word.to_lowercase();
    let mut starting: Vec<&str> = candidates
        .into_iter()
        .filter(|c| !word.is_empty() && c.to_lowercase().starts_with(&lower))
        .collect();
    starting.sort_unstable();
    starting.dedup();
    let shown: Vec<String> = starting.iter().take(4).map(|c| format!("`{c}`")).collect();
    match starting.len() {
        0 => String::new(),
        1 => format!("; did you mean {}?", shown[0]),
        n if n <= 4 => format!("; did you mean one of {}?", shown.join(", ")),
        n => format!(
            "; did you mean one of {} (and {} more)?",
            shown.join(", "),
            n - 4
        ),
    }
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
    fn the_start_of_several_names_lists_them() {
        let machines = [
            "vax750-4.1bsd",
            "vax750-4.2bsd",
            "vax750-4.3bsd",
            "pdp11-70-ral",
        ];
        assert_eq!(
            hint("vax750", machines),
            "; did you mean one of `vax750-4.1bsd`, `vax750-4.2bsd`, `vax750-4.3bsd`?"
        );
        assert_eq!(hint("pdp11", machines), "; did you mean `pdp11-70-ral`?");
        assert_eq!(hint("lats", ["last", "last-any"]), "; did you mean `last`?");
        assert_eq!(hint("zzz", machines), "");
    }

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

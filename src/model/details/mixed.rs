//! Records of the `mixed` family (catalogue §7, seed 000 Tables 6–8).

use serde::{Deserialize, Serialize};

use super::Record;

/// `mixed.build`: the bundled program built and checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Build {
    pub sources: usize,
    pub lines: usize,
    pub make: String,
    pub builds_checked: u64,
    pub output_bytes: usize,
}

impl Record for Build {}

/// `mixed.crypt`: the password search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Crypt {
    pub words: usize,
    pub hashes_per_operation: usize,
    pub salts: usize,
    pub users: usize,
    pub hash: String,
    pub rounds: Option<u32>,
    pub matches_words: Option<usize>,
    pub matches_reversed: Option<usize>,
}

impl Record for Crypt {}

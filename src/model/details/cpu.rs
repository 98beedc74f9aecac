//! Records of the `cpu` family (catalogue §4): what each kernel did and checked.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Record;

/// The statements of seed 003's table, in its order: `cpu.stmt.T.S`'s S.
pub const STATEMENTS: [&str; 17] = [
    "for10", "while10", "repeat10", "zero", "assign", "expr1", "expr2", "array", "if_true",
    "if_false", "add", "sub", "mul", "div", "mod", "global", "ptr",
];

/// The types of the statement rows: `cpu.stmt.T.S`'s T.
pub const TYPES: [&str; 5] = ["i16", "i32", "i64", "f32", "f64"];

/// `cpu.stmt.T.S`: one C statement of seed 003's tables, and the cycle it is counted in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Statement {
    pub statement: String,
    /// How the statement is chained so that it can be neither deleted nor overlapped.
    pub chain: String,
    #[serde(rename = "type")]
    pub type_name: String,
    pub cycle_ns: Option<f64>,
    pub cycle_source: Option<String>,
    pub measured_mhz: Option<f64>,
    pub nominal_mhz: Option<f64>,
}

impl Record for Statement {}

/// `cpu.sieve` (Zilog): passes of the sieve per operation and the prime count checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sieve {
    pub passes_per_op: u32,
    pub flags: usize,
    pub primes_per_pass: u32,
    pub checked: String,
}

impl Record for Sieve {}

/// `cpu.proc_call` (Zilog): calls per operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcCall {
    pub calls_per_op: u32,
    pub checked: String,
}

impl Record for ProcCall {}

/// `cpu.gibson` (seed 000 Table 2): the instruction mix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gibson {
    pub operations_per_loop: u32,
    pub mix_per_1000: BTreeMap<String, u32>,
    pub checked: String,
}

impl Record for Gibson {}

/// `cpu.intfloat.N` (seed 000 Table 3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntFloat {
    pub program: u32,
    pub variables: String,
    pub result: f64,
    pub checked: String,
}

impl Record for IntFloat {}

/// `cpu.chess` (seed 000 Table 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chess {
    pub plies: usize,
    pub depth: u32,
    pub games: u64,
    pub nodes_per_game: u64,
    pub nodes_per_second: f64,
    pub move_list_fnv1a: String,
    pub checked: String,
}

impl Record for Chess {}

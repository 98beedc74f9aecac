//! Records of the micro-operation families (catalogue §2: `signal`, `pipe`, `udg`,
//! `proc`): where the two processes ran, what the partner spent, and each row's
//! parameters.

use serde::{Deserialize, Serialize};

use super::Record;
use crate::model::Placement;

/// Where the two sides of a two-process row ran, and the partner's own CPU time (it is
/// reaped only after sampling, so getrusage of reaped children cannot include it). Every
/// two-process record flattens this, so a reader can take any of them as one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Partnership {
    pub placement: Placement,
    pub parent_cpu: Option<usize>,
    pub child_cpu: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_cpu_time: Option<ChildCpuTime>,
}

impl Record for Partnership {}

/// The partner's CPU time per operation, over every operation it served.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChildCpuTime {
    pub ops: u64,
    pub user_s_per_op: f64,
    pub system_s_per_op: f64,
}

/// `*.discard.*`: messages to a child that reads and discards them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Discarded {
    #[serde(flatten)]
    pub partner: Partnership,
    pub message_bytes: usize,
    pub transport: String,
    /// The bytes the child counted, checked against those written.
    pub child_read_bytes: Option<u64>,
}

impl Record for Discarded {}

/// `*.back.*`: request and response with a child.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundTrip {
    #[serde(flatten)]
    pub partner: Partnership,
    pub message_bytes: usize,
    pub transport: String,
    /// Vector registers live in both processes (`pipe.back.4.fpu`).
    pub vector_registers_live: bool,
    /// The IP sockets' addresses, local → peer, as the kernel gave them (the `net` rows;
    /// empty for pipes and UNIX sockets).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub addresses: Vec<String>,
}

impl Record for RoundTrip {}

/// `pipe.bw.*` and `pipe.piper`: whole transfers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transfer {
    /// Absent for `pipe.bw.self`, which one process does.
    #[serde(flatten)]
    pub partner: Option<Partnership>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer_bytes: Option<usize>,
    /// `pipe.bw.both`: what each side sends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer_bytes_each_way: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_bytes: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk_bytes: Option<usize>,
}

impl Record for Transfer {}

/// `proc.*`: one process creation per operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Creation {
    pub heap_grown_bytes: usize,
    /// "fork", "vfork + exec", "posix_spawn" …
    pub creation: String,
    /// Always "not applicable: one process at a time".
    pub placement: String,
    /// The program exec'd, for the exec rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// Bytes of arguments and environment passed to exec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec_arg_env_bytes: Option<usize>,
}

impl Record for Creation {}

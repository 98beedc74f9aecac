//! The records of the `net` family: a throughput sweep by message size (with the CPU each
//! end spent per byte and the softirq time seen meanwhile), a connection cycle, and the
//! network namespace a root-only row made for itself.

use serde::{Deserialize, Serialize};

use super::micro::Partnership;
use super::Record;

/// `net.{tcp,udp,unix}.bw`: throughput against message size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetSweep {
    #[serde(flatten)]
    pub partner: Partnership,
    /// "tcp over 127.0.0.1", "udp over 127.0.0.1", "unix stream socket".
    pub transport: String,
    /// Which sizes were measured, in words ("quick mode: 19 of the 41 sizes …").
    pub sampled: String,
    /// Repeats per size; each point is the fastest of them.
    pub repeats: usize,
    pub points: Vec<SizePoint>,
    /// Sizes left out, with why (a UDP datagram holds at most 65,507 bytes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedSize>,
    /// The message size of the headline figure.
    pub headline_bytes: usize,
    /// How the CPU time was attributed to the two ends and to softirq work.
    pub cpu_attribution: String,
    /// The IP sockets' addresses, local → peer (empty for UNIX sockets).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub addresses: Vec<String>,
}

impl Record for NetSweep {}

/// One message size: what was sent and what arrived, how fast, and the CPU per byte.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizePoint {
    pub message_bytes: usize,
    /// TCP only: TCP_NODELAY on (Nagle's algorithm off) or off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodelay: Option<bool>,
    pub messages_sent: u64,
    pub bytes_sent: u64,
    /// What the receiver counted: for UDP, lost datagrams are not in it.
    pub bytes_delivered: u64,
    /// UDP only: datagrams sent and never received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datagrams_lost: Option<u64>,
    pub seconds: f64,
    /// Bytes delivered per second.
    pub bytes_per_second: f64,
    /// The sending process's CPU time per byte delivered.
    pub sender_ns_per_byte: f64,
    /// The receiving process's CPU time per byte delivered.
    pub receiver_ns_per_byte: f64,
    /// Softirq time on the CPUs used, per byte delivered (clock-tick samples: `None` when
    /// /proc/stat could not be read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub softirq_ns_per_byte: Option<f64>,
}

impl SizePoint {
    /// The share of sent bytes that never arrived.
    pub fn loss(&self) -> f64 {
        if self.bytes_sent == 0 {
            0.0
        } else {
            1.0 - self.bytes_delivered as f64 / self.bytes_sent as f64
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkippedSize {
    pub message_bytes: usize,
    pub why: String,
}

/// `net.tcp.connect`: how a connection was made and ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConnectCycle {
    /// The listener's address.
    pub listener: String,
    /// Which end closes first (and so holds the connection in TIME_WAIT).
    pub closes_first: String,
    pub connections: u64,
    /// `net.ipv4.tcp_tw_reuse` as read, when readable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_tw_reuse: Option<String>,
}

impl Record for ConnectCycle {}

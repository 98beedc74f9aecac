//! What a figure is "per": one operation, or a job of several, each named precisely
//! enough that two figures per the same operation measure the same work. The one way two
//! figures are divided is [`super::measure::Measure::divided_by`].

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

/// What one figure covers: `ops` operations, each an `op`.
///
/// `op` names the operation precisely enough that two figures per the same `op` measure the
/// same work: "system call", "page touch", "call of dummy(a, b, c)", "byte written to disk".
/// `ops` is 1 for a figure per operation, more for a whole job ("1,000,000 calls").
/// For a rate (bytes per second) `op` names what is counted and `ops` plays no part.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Basis {
    pub ops: u64,
    pub op: Cow<'static, str>,
}

/// The operation of a row whose only definition is its one-line description (`list`).
pub const ANY_OPERATION: &str = "operation";
/// The whole job of a job row whose only definition is its description.
pub const ANY_JOB: &str = "job";
/// What a throughput row counts when it says nothing more.
pub const ANY_BYTE: &str = "byte";

impl Basis {
    /// Per one `op`.
    pub const fn per(op: &'static str) -> Basis {
        Basis {
            ops: 1,
            op: Cow::Borrowed(op),
        }
    }

    /// Per job of `ops` operations `op`.
    pub const fn job(ops: u64, op: &'static str) -> Basis {
        Basis {
            ops,
            op: Cow::Borrowed(op),
        }
    }

    /// Per job of `ops` operations `op`, the name made at run time.
    pub fn owned(ops: u64, op: String) -> Basis {
        Basis {
            ops,
            op: Cow::Owned(op),
        }
    }

    /// True for the placeholder names of a row that declared nothing more precise.
    pub fn is_generic(&self) -> bool {
        [ANY_OPERATION, ANY_JOB, ANY_BYTE].contains(&self.op.as_ref())
    }

    /// The same operation, one at a time.
    pub fn one(&self) -> Basis {
        Basis {
            ops: 1,
            op: self.op.clone(),
        }
    }
}

impl fmt::Display for Basis {
    /// "per system call", "per job of 1,000,000 × call of dummy(a, b, c)".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ops == 1 {
            write!(f, "per {}", self.op)
        } else {
            write!(f, "per job of {} × {}", group_thousands(self.ops), self.op)
        }
    }
}

/// "1000000" → "1,000,000".
pub fn group_thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CALL: &str = "call of dummy(a, b, c)";

    #[test]
    fn bases_read_and_print() {
        assert_eq!(Basis::per("page touch").to_string(), "per page touch");
        assert_eq!(
            Basis::job(1_000_000, CALL).to_string(),
            "per job of 1,000,000 × call of dummy(a, b, c)"
        );
        let json = serde_json::to_string(&Basis::job(2000, "512-byte pipe write")).unwrap();
        assert_eq!(json, r#"{"ops":2000,"op":"512-byte pipe write"}"#);
        let back: Basis = serde_json::from_str(&json).unwrap();
        assert_eq!(back, Basis::job(2000, "512-byte pipe write"));
        assert!(Basis::per(ANY_OPERATION).is_generic());
        assert!(!Basis::per("system call").is_generic());
    }
}

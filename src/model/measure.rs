//! The one way two figures are divided.
//!
//! A figure is a number, a [`Unit`] and a [`Basis`]: 1.71 ms per job of 1,000,000 calls of
//! `dummy(a, b, c)`, 36.1 µs per call of `dummy(a, b, c)`. Two figures divide only
//! through [`Measure::divided_by`], which brings both to one operation first and refuses
//! when they are not figures of the same operation, or not of the same kind (a time and a
//! rate). Dividing a whole job by one operation — the error that called a million calls
//! "54.6× slower" than one — is then not something a report can do by accident.

use std::fmt;

use super::basis::Basis;
use super::unit::{format_value, Unit};

/// Why two figures cannot be divided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotComparable {
    /// A time and a rate, or a count and a ratio.
    Units { first: Unit, second: Unit },
    /// Figures of different operations: per copy vs per batch of copies, per dup vs per
    /// dup + close.
    Ops { first: String, second: String },
    /// A job of no operations: nothing to divide by.
    NoOps,
}

impl fmt::Display for NotComparable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotComparable::Units { first, second } => {
                write!(f, "{} vs {}", first.symbol(), second.symbol())
            }
            NotComparable::Ops { first, second } => write!(f, "per {first} vs per {second}"),
            NotComparable::NoOps => write!(f, "a job of no operations"),
        }
    }
}

impl std::error::Error for NotComparable {}

/// A figure that knows what it is: value, unit and basis. The fields are private so that
/// the only division is [`Measure::divided_by`].
#[derive(Debug, Clone, PartialEq)]
pub struct Measure {
    value: f64,
    unit: Unit,
    basis: Basis,
}

impl Measure {
    pub fn new(value: f64, unit: Unit, basis: Basis) -> Measure {
        Measure { value, unit, basis }
    }

    pub fn value(&self) -> f64 {
        self.value
    }

    pub fn unit(&self) -> Unit {
        self.unit
    }

    pub fn basis(&self) -> &Basis {
        &self.basis
    }

    /// The figure for one operation: a time or a count of a job divided by the job's
    /// operations; a rate or a ratio as it is (they do not grow with the job).
    pub fn per_op(&self) -> Result<Measure, NotComparable> {
        if self.basis.ops == 0 {
            return Err(NotComparable::NoOps);
        }
        if self.basis.ops == 1 || !self.unit.grows_with_work() {
            return Ok(Measure {
                basis: self.basis.one(),
                ..self.clone()
            });
        }
        let unit = match self.unit {
            Unit::Seconds => Unit::SecondsPerOp,
            u => u,
        };
        Ok(Measure {
            value: self.value / self.basis.ops as f64,
            unit,
            basis: self.basis.one(),
        })
    }

    /// Whether `self` and `other` are figures of the same kind of the same operation.
    pub fn check(&self, other: &Measure) -> Result<(), NotComparable> {
        if self.unit.dimension() != other.unit.dimension() {
            return Err(NotComparable::Units {
                first: self.unit,
                second: other.unit,
            });
        }
        if self.basis.op != other.basis.op {
            return Err(NotComparable::Ops {
                first: self.basis.op.to_string(),
                second: other.basis.op.to_string(),
            });
        }
        if self.basis.ops == 0 || other.basis.ops == 0 {
            return Err(NotComparable::NoOps);
        }
        Ok(())
    }

    /// `self / other`, each brought to one operation first; refused unless both are
    /// figures of the same kind of the same operation.
    pub fn divided_by(&self, other: &Measure) -> Result<f64, NotComparable> {
        self.check(other)?;
        Ok(self.per_op()?.value / other.per_op()?.value)
    }

    /// "1.71 ms per job of 1,000,000 × call of dummy(a, b, c)".
    pub fn describe(&self) -> String {
        format!("{} {}", format_value(self.value, self.unit), self.basis)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CALL: &str = "call of dummy(a, b, c)";

    #[test]
    fn a_job_of_a_million_calls_divides_by_one_call_after_conversion() {
        let today = Measure::new(1.71e-3, Unit::SecondsPerOp, Basis::job(1_000_000, CALL));
        let then = Measure::new(36.1e-6, Unit::SecondsPerOp, Basis::per(CALL));
        let speed_up = then.divided_by(&today).unwrap();
        assert!((speed_up - 36.1e-6 / 1.71e-9).abs() < 1e-6, "{speed_up}");
        assert!(speed_up > 20_000.0);
        let per_call = today.per_op().unwrap();
        assert!((per_call.value() - 1.71e-9).abs() < 1e-15);
        assert_eq!(per_call.basis(), &Basis::per(CALL));
    }

    #[test]
    fn a_deliberately_mismatched_basis_is_refused() {
        let dup = Measure::new(320e-6, Unit::SecondsPerOp, Basis::per("dup call"));
        let dup_close = Measure::new(300e-9, Unit::SecondsPerOp, Basis::per("dup + close"));
        let err = dup.divided_by(&dup_close).unwrap_err();
        assert_eq!(err.to_string(), "per dup call vs per dup + close");
    }

    #[test]
    fn a_time_and_a_rate_are_refused_but_seconds_and_seconds_per_op_agree() {
        let rate = Measure::new(1e9, Unit::BytesPerSecond, Basis::per("byte"));
        let time = Measure::new(1e-3, Unit::SecondsPerOp, Basis::per("byte"));
        assert!(matches!(
            rate.divided_by(&time),
            Err(NotComparable::Units { .. })
        ));
        let job = Measure::new(2.0, Unit::Seconds, Basis::job(4, "copy"));
        let one = Measure::new(1.0, Unit::SecondsPerOp, Basis::per("copy"));
        assert_eq!(job.divided_by(&one).unwrap(), 0.5);
    }

    #[test]
    fn a_rate_does_not_grow_with_the_job() {
        let a = Measure::new(4e6, Unit::BytesPerSecond, Basis::job(10, "byte"));
        let b = Measure::new(2e6, Unit::BytesPerSecond, Basis::per("byte"));
        assert_eq!(a.divided_by(&b).unwrap(), 2.0);
    }

    #[test]
    fn a_job_of_no_operations_is_refused() {
        let a = Measure::new(1.0, Unit::Seconds, Basis::job(0, "x"));
        let b = Measure::new(1.0, Unit::Seconds, Basis::per("x"));
        assert_eq!(a.divided_by(&b), Err(NotComparable::NoOps));
    }
}

//! Where response time stops holding: the knee of Table 9's Inc column.
//!
//! Inc(N) = average real time of N simultaneous copies / real time of one. While there are
//! idle CPUs for the copies, Inc stays near 1; once they are all busy, every extra copy
//! adds to every copy's response time and Inc grows with N (≈ N / CPUs for compute-bound
//! copies). The knee is the largest N that still has Inc below [`THRESHOLD`] with every
//! smaller N also below it: the number of users the machine serves without anyone's
//! response time growing by half (the seed's "too slow for effective timesharing beyond
//! 60 or 80 active processes", made by the tool). A threshold halfway between 1 and 2 keeps
//! the answer stable on a noisy machine: noise moves Inc by tenths, saturation by wholes.

use serde::{Deserialize, Serialize};

pub const THRESHOLD: f64 = 1.5;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Knee {
    /// The largest N served with Inc < THRESHOLD; None when even the smallest N is above.
    pub copies: Option<usize>,
    /// True when every N measured stayed below the threshold (the knee is further out).
    pub beyond_range: bool,
    pub statement: String,
}

/// The knee from (N, Inc) pairs in any order.
pub fn knee(points: &[(usize, f64)]) -> Option<Knee> {
    let mut pts = points.to_vec();
    pts.sort_by_key(|p| p.0);
    pts.dedup_by_key(|p| p.0);
    let (&(n_max, _), _) = pts.split_last()?;
    let below: Vec<usize> = pts
        .iter()
        .take_while(|(_, inc)| *inc < THRESHOLD)
        .map(|p| p.0)
        .collect();
    let copies = below.last().copied();
    let beyond_range = below.len() == pts.len();
    let statement = match (copies, beyond_range) {
        (Some(_), true) => format!(
            "no knee up to {}: response time stayed within {THRESHOLD}× of one copy",
            copies_text(n_max)
        ),
        (Some(n), false) => {
            let (next, inc) = pts[below.len()];
            // One copy running "as fast as one" says nothing: say only where it bends.
            let held = if n == 1 {
                String::new()
            } else {
                format!("up to {n} they run as fast as one; ")
            };
            format!(
                "knee at {}: {held}at {next} response time is {inc:.1}× (Inc ≥ {THRESHOLD})",
                copies_text(n)
            )
        }
        (None, _) => {
            let (first, inc) = pts[0];
            format!(
                "knee below {}: at {first} response time is already {inc:.1}×",
                copies_text(first)
            )
        }
    };
    Some(Knee {
        copies,
        beyond_range,
        statement,
    })
}

/// "1 copy", "5 copies".
fn copies_text(n: usize) -> String {
    if n == 1 {
        "1 copy".into()
    } else {
        format!("{n} copies")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_copy_is_singular() {
        let k = knee(&[(1, 1.0), (2, 2.0)]).unwrap();
        assert!(
            k.statement.starts_with("knee at 1 copy:"),
            "{}",
            k.statement
        );
        assert!(
            k.statement.contains(": at 2 response time is 2.0×"),
            "{}",
            k.statement
        );
        let k = knee(&[(1, 1.0)]).unwrap();
        assert!(
            k.statement.starts_with("no knee up to 1 copy:"),
            "{}",
            k.statement
        );
    }

    #[test]
    fn two_cpus_bend_at_two() {
        let k = knee(&[(1, 1.0), (2, 1.05), (5, 2.6), (10, 5.1), (15, 7.4)]).unwrap();
        assert_eq!(k.copies, Some(2));
        assert!(!k.beyond_range);
        assert!(k.statement.contains("knee at 2"), "{}", k.statement);
    }

    #[test]
    fn a_noisy_but_flat_curve_has_no_knee_in_range() {
        let k = knee(&[(15, 1.3), (1, 1.0), (5, 1.2)]).unwrap();
        assert_eq!(k.copies, Some(15));
        assert!(k.beyond_range);
    }

    #[test]
    fn an_early_rise_is_a_knee_below_the_first() {
        let k = knee(&[(2, 2.5), (5, 6.6)]).unwrap();
        assert_eq!(k.copies, None);
        assert!(knee(&[]).is_none());
    }

    #[test]
    fn a_dip_after_the_rise_does_not_move_the_knee() {
        let k = knee(&[(1, 1.0), (2, 1.1), (5, 2.5), (10, 1.2)]).unwrap();
        assert_eq!(k.copies, Some(2));
    }
}

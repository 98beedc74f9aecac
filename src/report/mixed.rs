//! Seed 000 Tables 6–8 shape for the `mixed` family: Real and CPU (user + system) of one
//! whole job, their ratio, and the seed's 11/70 (configuration C7) figures beside them.

use crate::model::unit::format_seconds;
use crate::model::Run;
use crate::report::table::{new_table, right};
use crate::report::views::mixed;

/// Its place among the tables printed after a run's main table (`report::extra`).
#[linkme::distributed_slice(crate::model::catalogue::TABLES)]
fn registered_table() -> crate::model::catalogue::Table {
    crate::model::catalogue::Table {
        order: 80,
        render: mixed_table,
    }
}

pub fn mixed_table(run: &Run) -> String {
    let rows = mixed::jobs(run);
    if rows.is_empty() {
        return String::new();
    }
    let mut t = new_table(&[
        "mixed (seed 000 Tables 6–8)",
        "real",
        "CPU",
        "CPU/real",
        "11/70 C7 job",
        "real",
        "CPU",
    ]);
    for r in rows {
        let (Some(real), Some(times)) = (r.median(), r.times.as_ref()) else {
            continue;
        };
        let cpu = times.user_s + times.system_s;
        let mut row = vec![
            r.id.clone(),
            format_seconds(real),
            format_seconds(cpu),
            format!("{:.2}", cpu / times.elapsed_s.max(f64::MIN_POSITIVE)),
        ];
        match mixed::seed_c7(&r.id) {
            Some((job, seed_real, seed_cpu)) => {
                row.extend([job.to_string(), clock(seed_real), clock(seed_cpu)])
            }
            None => row.extend(["".into(), "".into(), "".into()]),
        }
        t.add_row(row);
    }
    right(&mut t, &[1, 2, 3, 5, 6]);
    format!(
        "{t}\nreal: median of the samples; CPU: user + system of the process and its \
         children per job, over all samples; the seed's jobs were other, larger work, so \
         compare the CPU/real ratio, not the times"
    )
}

/// Seconds as the seed printed them, m:ss.s.
fn clock(s: f64) -> String {
    format!("{}:{:04.1}", (s / 60.0).floor(), s % 60.0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_seed_clock_format() {
        assert_eq!(super::clock(211.4), "3:31.4");
        assert_eq!(super::clock(319.0), "5:19.0");
    }
}

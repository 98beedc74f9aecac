//! Seed 001's observations in their layouts, filled from the newest stored observation
//! with the paper's figures beside (`timeshare table 001-rates` and so on): §2.1's
//! long-term rates, §3.2.6's buffer cache, §3.2.7's network shares, and namei's share of
//! the kernel's time (Tables 4, 9 and 10). A figure today's kernel cannot give says why.

use crate::model::observation::{Part, SystemObservation};
use crate::report::table::{new_table, right};

/// A table filled from an observation: its key, its title.
pub struct ObservationTable {
    pub key: &'static str,
    pub seed: &'static str,
    pub title: &'static str,
}

pub const OBSERVATION_TABLES: &[ObservationTable] = &[
    ObservationTable {
        key: "001-rates",
        seed: "001 §2.1, §3.2.6",
        title: "A system's rates at work: switches, interrupts, calls, paging, disks, terminals",
    },
    ObservationTable {
        key: "001-bufcache",
        seed: "001 §3.2.6",
        title: "The file system buffer cache: reads, hit rate, read-ahead",
    },
    ObservationTable {
        key: "001-network",
        seed: "001 §3.2.7",
        title: "The network's share of system time: input, protocol timers, messages",
    },
    ObservationTable {
        key: "001-namei",
        seed: "001 Tables 4, 9, 10",
        title: "namei's share of the kernel's time, self and with what it calls",
    },
];

/// The table with this key, if it is one of these.
pub fn find(key: &str) -> Option<&'static ObservationTable> {
    OBSERVATION_TABLES.iter().find(|t| t.key == key)
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn num(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

/// The table `t` from observation `name`, or with no observation the paper's column and
/// the command that fills the other.
pub fn render(t: &ObservationTable, obs: Option<(&str, &SystemObservation)>) -> String {
    let rows = match t.key {
        "001-rates" => rates(obs.map(|o| o.1)),
        "001-bufcache" => bufcache(obs.map(|o| o.1)),
        "001-network" => network(obs.map(|o| o.1)),
        _ => namei(obs.map(|o| o.1)),
    };
    let today = obs.map_or("today".to_string(), |(n, _)| format!("today ({n})"));
    let mut table = new_table(&["figure", "001 (4.2BSD, VAX-11/780)", &today]);
    let mut why = Vec::new();
    for (figure, paper, now) in rows {
        let cell = match now {
            Ok(v) => v,
            Err(reason) => {
                why.push(format!("{figure}: {reason}"));
                "n/a".to_string()
            }
        };
        table.add_row(vec![figure.to_string(), paper.to_string(), cell]);
    }
    right(&mut table, &[1, 2]);
    let mut s = format!("{} ({}): {}\n{table}\n", t.key, t.seed, t.title);
    match obs {
        None => s.push_str(
            "no observation stored yet: `timeshare observe --for 10m` (as root for the call \
             mix and the profile) fills the last column\n",
        ),
        Some((n, o)) => s.push_str(&format!(
            "today: observation {n}, {}, {:.0} s on {}\n",
            o.span_text(),
            o.duration_s,
            o.environment.hostname
        )),
    }
    for w in why {
        s.push_str(&format!("  {w}\n"));
    }
    s
}

type Row = (&'static str, &'static str, Result<String, String>);

fn mean(o: Option<&SystemObservation>, key: &str) -> Result<String, String> {
    let o = o.ok_or("no observation")?;
    o.rates
        .mean(key)
        .map(num)
        .ok_or_else(|| match (key, o.calls.reason()) {
            ("syscalls", Some(r)) => r.to_string(),
            _ => "not recorded".to_string(),
        })
}

fn rates(o: Option<&SystemObservation>) -> Vec<Row> {
    let disk = o.ok_or("no observation".to_string()).and_then(|o| {
        o.rates
            .disks
            .iter()
            .map(|d| d.transfers_per_s)
            .reduce(f64::max)
            .map(num)
            .ok_or("no physical disk".to_string())
    });
    let terminal = |input: bool| {
        o.ok_or("no observation".to_string())
            .and_then(|o| match &o.rates.terminal {
                Some(Part::Measured(t)) => Ok(num(if input { t.in_per_s } else { t.out_per_s })),
                Some(Part::Unavailable { reason }) => Err(reason.clone()),
                None => Err("not recorded".into()),
            })
    };
    vec![
        ("context switches/s", "60 (50 in §3.2.6)", mean(o, "cs")),
        ("interrupts/s", "60 (90 in §3.2.6)", mean(o, "intr")),
        ("system calls/s", "90 (220 in §3.2.6)", mean(o, "syscalls")),
        ("pages scanned/s", "25", mean(o, "scan")),
        ("CPU user %", "43", mean(o, "cpu_user")),
        ("CPU system %", "57", mean(o, "cpu_system")),
        (
            "clock processing, % of system time (§3.2.3)",
            "nearly 25%",
            clock_share(o),
        ),
        ("transfers/s, busiest disk", "25–35 per arm at peak", disk),
        ("terminal characters in/s", "180", terminal(true)),
        ("terminal characters out/s", "450", terminal(false)),
    ]
}

/// Today's counterpart of §3.2.3's "nearly 25% of the time spent in the kernel is spent
/// in the clock processing routines": the kernel profile's "timers and clock" share of
/// system time (the clock interrupt, the tick, timer expiry and hrtimers; the subsystem
/// rules in `model::observation::subsystem`). A row of `001-rates`, beside the CPU's
/// system share the paper's percentage is of.
fn clock_share(o: Option<&SystemObservation>) -> Result<String, String> {
    profile_share(o, |p, _| {
        Some(p.share_of(crate::model::observation::subsystem::TIMERS))
    })
}

fn cache(o: Option<&SystemObservation>, name: &str) -> Result<String, String> {
    let o = o.ok_or("no observation")?;
    match o
        .caches
        .iter()
        .find(|c| c.name.starts_with(name))
        .map(|c| &c.value)
    {
        Some(Part::Measured(v)) => v.ratio.map(pct).ok_or_else(|| v.how.clone()),
        Some(Part::Unavailable { reason }) => Err(reason.clone()),
        None => Err("not recorded".into()),
    }
}

/// A count of one of the page cache's figures (`cache` by name, `count` by key) per second
/// of the span.
fn cache_rate(o: Option<&SystemObservation>, cache: &str, count: &str) -> Result<String, String> {
    let o = o.ok_or("no observation")?;
    match o
        .caches
        .iter()
        .find(|c| c.name.starts_with(cache))
        .map(|c| &c.value)
    {
        Some(Part::Measured(v)) => v
            .counts
            .get(count)
            .map(|n| num(*n as f64 / o.duration_s.max(1e-6)))
            .ok_or_else(|| format!("no count of {count}")),
        Some(Part::Unavailable { reason }) => Err(reason.clone()),
        None => Err("not recorded".into()),
    }
}

/// §3.2.6 in its own units: read requests, disk reads and read-aheads a second, and the
/// share of the buffer pool the read-aheads filled. Today's are pages of the page cache
/// (the paper's were file-system blocks of 4 or 8 KB), counted by the filemap tracepoints.
fn bufcache(o: Option<&SystemObservation>) -> Vec<Row> {
    const HIT: &str = "page-cache hit ratio";
    const AHEAD: &str = "read-ahead";
    vec![
        (
            "read requests/s (today: reads' page batches)",
            "250",
            cache_rate(o, HIT, "read batches"),
        ),
        ("read hit rate", "85%", cache(o, HIT)),
        (
            "disk reads/s (today: pages a read missed)",
            "37",
            cache_rate(o, HIT, "missed, brought in by the read"),
        ),
        (
            "read-aheads/s (today: pages read ahead)",
            "5",
            cache_rate(o, AHEAD, "read ahead"),
        ),
        (
            "buffer pool filled by read-ahead",
            "about 20%",
            Err(
                "today's page cache is all free memory, not a pool of 50–200 buffers: no \
                 share of it is formed"
                    .to_string(),
            ),
        ),
        ("read-ahead buffers used", "> 90%", cache(o, AHEAD)),
        ("pages scanned/s (page daemon)", "25", mean(o, "scan")),
    ]
}

fn profile_share(
    o: Option<&SystemObservation>,
    f: impl Fn(&crate::model::observation::KernelProfile, &SystemObservation) -> Option<f64>,
) -> Result<String, String> {
    let o = o.ok_or("no observation")?;
    match &o.profile {
        Part::Measured(p) if p.system_samples > 0 => {
            f(p, o).map(pct).ok_or_else(|| "not recorded".into())
        }
        Part::Measured(_) => Err("no sample of system time".into()),
        Part::Unavailable { reason } => Err(reason.clone()),
    }
}

fn network(o: Option<&SystemObservation>) -> Vec<Row> {
    let msgs = o
        .ok_or("no observation".to_string())
        .map(|o| num(o.network.messages_in as f64 / o.duration_s.max(1e-6)));
    vec![
        (
            "network input and timers, % of system time",
            "5%",
            profile_share(o, |_, o| o.network.system_share),
        ),
        (
            "network input (the gateway), % of system time",
            "2.4%",
            profile_share(o, |_, o| o.network.receive_share),
        ),
        (
            "protocol timers, % of system time",
            "0.6%",
            profile_share(o, |_, o| o.network.timer_share),
        ),
        ("input messages/s", "3.4 (206,000 in 17 h)", msgs),
    ]
}

fn namei(o: Option<&SystemObservation>) -> Vec<Row> {
    vec![
        (
            "namei self, % of kernel",
            "11.3% / 9.2% / 6.2%",
            profile_share(o, |p, _| Some(p.namei_self_share)),
        ),
        (
            "namei with children, % of kernel",
            "19.2% / 18.1% / 12.8%",
            profile_share(o, |p, _| Some(p.namei_inclusive_share)),
        ),
        (
            "VFS and name lookup, % of kernel",
            "–",
            profile_share(o, |p, _| {
                Some(p.share_of(crate::model::observation::subsystem::VFS))
            }),
        ),
    ]
}

/// The line `table 001-4`, `001-9` and `001-10` add: namei's share today.
pub fn namei_line(obs: Option<(&str, &SystemObservation)>) -> String {
    match obs {
        None => "today's namei share of the kernel's time: no observation stored (timeshare \
                 observe --for 10m, as root)\n"
            .to_string(),
        Some((n, o)) => match &o.profile {
            Part::Measured(p) if p.system_samples > 0 => format!(
                "today's namei share of the kernel's time (observation {n}): self {}, with \
                 children {} (table 001-namei sets it beside Tables 4, 9 and 10)\n",
                pct(p.namei_self_share),
                pct(p.namei_inclusive_share)
            ),
            Part::Measured(_) => {
                format!("today's namei share: observation {n} has no sample of system time\n")
            }
            Part::Unavailable { reason } => {
                format!("today's namei share: observation {n} has no kernel profile ({reason})\n")
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::observation::tests::sample;

    #[test]
    fn every_table_renders_with_and_without_an_observation() {
        let o = sample();
        for t in OBSERVATION_TABLES {
            let empty = render(t, None);
            assert!(empty.contains("no observation stored yet"), "{empty}");
            let filled = render(t, Some(("o1", &o)));
            assert!(filled.contains("today (o1)"), "{filled}");
        }
        let rates = render(find("001-rates").unwrap(), Some(("o1", &o)));
        assert!(rates.contains("90 (220 in §3.2.6)"), "{rates}");
        let namei = render(find("001-namei").unwrap(), Some(("o1", &o)));
        assert!(
            namei.contains("not asked for"),
            "the profile's reason: {namei}"
        );
        assert!(find("001-4").is_none());
    }

    #[test]
    fn the_buffer_cache_is_in_the_papers_units_requests_and_read_aheads_a_second() {
        use crate::model::observation::{CacheFigure, CacheValue};
        let mut o = sample();
        let value = |pairs: &[(&str, u64)]| {
            Part::Measured(CacheValue {
                ratio: Some(0.5),
                counts: pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
                how: String::new(),
            })
        };
        // Two seconds of span: 500 batches → 250/s, 74 misses → 37/s, 10 ahead → 5/s.
        o.caches = vec![
            CacheFigure {
                name: "page-cache hit ratio of reads".into(),
                value: value(&[
                    ("read batches", 500),
                    ("missed, brought in by the read", 74),
                ]),
            },
            CacheFigure {
                name: "read-ahead pages used before eviction".into(),
                value: value(&[("read ahead", 10), ("used", 5)]),
            },
        ];
        assert_eq!(o.duration_s, 2.0);
        let t = render(find("001-bufcache").unwrap(), Some(("o1", &o)));
        let line = |what: &str| {
            t.lines()
                .find(|l| l.contains(what))
                .unwrap_or_else(|| panic!("no {what} in {t}"))
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert!(line("read requests/s").ends_with("250 250"), "{t}");
        assert!(line("disk reads/s").ends_with("37 37.0"), "{t}");
        assert!(line("read-aheads/s").ends_with("5 5.0"), "{t}");
        assert!(line("filled by read-ahead").contains("about 20%"), "{t}");
        assert!(!t.contains("KB/s"), "no volume beside a count: {t}");
    }

    #[test]
    fn the_clock_share_is_the_profiles_timers_share_beside_the_papers_25_percent() {
        use crate::model::observation::subsystem::{SCHEDULER, TIMERS};
        use crate::model::observation::{KernelProfile, SubsystemShare};
        let mut o = sample();
        let without = render(find("001-rates").unwrap(), Some(("o1", &o)));
        assert!(
            without.contains("clock processing, % of system time (§3.2.3): "),
            "a missing profile says why: {without}"
        );
        let share = |name: &str, share: f64| SubsystemShare {
            subsystem: name.to_string(),
            samples: (share * 1000.0) as u64,
            share,
        };
        o.profile = Part::Measured(KernelProfile {
            system_samples: 1000,
            subsystems: vec![share(SCHEDULER, 0.4), share(TIMERS, 0.137)],
            ..Default::default()
        });
        let with = render(find("001-rates").unwrap(), Some(("o1", &o)));
        let line = with
            .lines()
            .find(|l| l.contains("clock processing"))
            .expect("a clock row");
        assert!(line.contains("nearly 25%"), "{line}");
        assert!(
            line.trim_end().ends_with("13.7%"),
            "the timers share: {line}"
        );
    }
}

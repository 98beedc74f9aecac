//! An observation of the whole machine (`timeshare observe`, `show oN`) as text: its rates
//! beside 001 §2.1's, disks and interfaces, the call mix, the kernel profile by subsystem
//! and function, caches, the network's share, the benchmarks' prediction, and what
//! observing cost; and two observations compared. Every part that could not be measured
//! says why, in its place.

use crate::model::observation::cost::CostMeasurement;
use crate::model::observation::predict::Prediction;
use crate::model::observation::subsystem::VFS;
use crate::model::observation::{
    CacheFigure, CallCount, CallMix, CallTiming, Part, RateSummary, SystemObservation,
};
use crate::model::unit::{format_seconds, Better};
use crate::report::style::escape;
use crate::report::table::{new_table, right, TextTable};

/// 001 §2.1's long-term averages on the VAX-11/780 timesharing systems, by rate key.
pub const PAPER_RATES: &[(&str, f64, &str)] = &[
    ("cs", 60.0, "001 §2.1: about 60 context switches per second"),
    ("intr", 60.0, "001 §2.1: about 60 interrupts per second"),
    (
        "syscalls",
        90.0,
        "001 §2.1: about 90 system calls per second",
    ),
];

/// 001 §2.1's terminal characters per second over four days (in, out).
pub const PAPER_TERMINAL: (f64, f64) = (180.0, 450.0);
/// 001 §2.1's transfers per second per disk arm (low, high).
pub const PAPER_DISK_TRANSFERS: (f64, f64) = (25.0, 35.0);
/// 001 §3.2.7: network input's share of system time (a timesharing host, the gateway),
/// protocol timers' share.
pub const PAPER_NET_INPUT: f64 = 0.05;
pub const PAPER_NET_GATEWAY: f64 = 0.024;
pub const PAPER_NET_TIMERS: f64 = 0.006;

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn num(x: f64) -> String {
    if !x.is_finite() {
        "–".into()
    } else if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// The whole observation as text; `prediction` when a run gave per-call costs.
pub fn text(name: &str, o: &SystemObservation, prediction: Option<&Prediction>) -> String {
    let mut s = format!(
        "observation {name} · {} · {} · {:.1} s · {}{}\n",
        o.started_at.format("%Y-%m-%d %H:%M:%S UTC"),
        escape(&o.span_text()),
        o.duration_s,
        if o.partial {
            "PARTIAL: stored as it went and not ended (still going, or its observer was \
             killed): all but its last minute is kept; the call mix and caches are read \
             only at the end"
        } else if o.complete {
            "complete"
        } else {
            "interrupted (what was measured is kept)"
        },
        o.label
            .as_deref()
            .map(|l| format!(" · label {}", escape(l)))
            .unwrap_or_default()
    );
    s.push_str(&format!(
        "host {} · kernel {} · {} CPUs\n\n",
        escape(&o.environment.hostname),
        escape(&o.environment.kernel.release),
        o.environment.cpu.logical
    ));
    s.push_str(&rates_text(o));
    s.push_str(&devices_text(o));
    s.push_str(&calls_text(o));
    s.push_str(&profile_text(o));
    s.push_str(&caches_text(&o.caches));
    s.push_str(&network_text(o));
    s.push_str(&prediction_text(prediction, o));
    s.push_str(&format!(
        "observing cost {} of CPU ({} of one CPU over the span); the profiler {}\n",
        format_seconds(o.overhead.observer_cpu_s),
        pct(o.overhead.share_of_one_cpu),
        if o.profile.measured().is_some_and(|p| p.in_kernel) {
            "sampled in the kernel (no perf process)".to_string()
        } else if o.profile.measured().is_some() {
            format!(
                "{} ({} of one CPU)",
                format_seconds(o.overhead.profiler_cpu_s),
                pct(o.overhead.profiler_cpu_s / o.duration_s.max(1e-6))
            )
        } else {
            "did not run".to_string()
        }
    ));
    for n in &o.notes {
        s.push_str(&format!("note: {}\n", escape(n)));
    }
    s
}

fn paper_rate(key: &str) -> Option<f64> {
    PAPER_RATES.iter().find(|p| p.0 == key).map(|p| p.1)
}

fn rates_text(o: &SystemObservation) -> String {
    let sums = o.rates.summaries();
    if sums.is_empty() {
        return "rates: none (the span was too short for one interval)\n\n".into();
    }
    let mut t = new_table(&["rate", "mean", "p50", "p90", "p99", "max", "001 (VAX)"]);
    for r in &sums {
        t.add_row(rate_row(r));
    }
    right(&mut t, &[1, 2, 3, 4, 5, 6]);
    let mut s = format!(
        "rates per second over {} intervals of {} s (CPU in % of all CPUs)\n{t}\n",
        o.rates.lines.len(),
        o.rates.interval_s
    );
    if !o.rates.columns.iter().any(|c| c == "syscalls") {
        s.push_str(&format!(
            "system calls/s: not counted ({})\n",
            o.calls.reason().unwrap_or("the call mix was not recorded")
        ));
    }
    s.push('\n');
    s
}

fn rate_row(r: &RateSummary) -> Vec<String> {
    let label = if r.key.unit == "/s" || r.key.unit.is_empty() {
        r.key.label.to_string()
    } else {
        format!("{} ({})", r.key.label, r.key.unit)
    };
    vec![
        label,
        num(r.mean),
        num(r.p50),
        num(r.p90),
        num(r.p99),
        num(r.max),
        paper_rate(r.key.key).map(num).unwrap_or_default(),
    ]
}

fn devices_text(o: &SystemObservation) -> String {
    let mut s = String::new();
    if o.rates.disks.is_empty() {
        s.push_str("disks: no physical disk in /sys/block\n");
    } else {
        let mut t = new_table(&[
            "disk",
            "transfers/s",
            "read KB/s",
            "write KB/s",
            "svc ms",
            "await ms",
            "%util",
        ]);
        for d in &o.rates.disks {
            t.add_row(vec![
                escape(&d.name).into_owned(),
                num(d.transfers_per_s),
                num(d.read_kb_per_s),
                num(d.write_kb_per_s),
                d.service_time_s.map(|x| num(x * 1e3)).unwrap_or("–".into()),
                d.wait_time_s.map(|x| num(x * 1e3)).unwrap_or("–".into()),
                pct(d.utilisation),
            ]);
        }
        right(&mut t, &[1, 2, 3, 4, 5, 6]);
        s.push_str(&format!(
            "disks over the span (001: {}–{} transfers/s per arm)\n{t}\n",
            PAPER_DISK_TRANSFERS.0, PAPER_DISK_TRANSFERS.1
        ));
    }
    if !o.rates.interfaces.is_empty() {
        let mut t = new_table(&["interface", "rx pkt/s", "tx pkt/s", "rx KB/s", "tx KB/s"]);
        for i in &o.rates.interfaces {
            t.add_row(vec![
                escape(&i.name).into_owned(),
                num(i.rx_packets_per_s),
                num(i.tx_packets_per_s),
                num(i.rx_bytes_per_s / 1024.0),
                num(i.tx_bytes_per_s / 1024.0),
            ]);
        }
        right(&mut t, &[1, 2, 3, 4]);
        s.push_str(&format!("network interfaces over the span\n{t}\n"));
    }
    match &o.rates.terminal {
        Some(Part::Measured(tc)) => s.push_str(&format!(
            "terminal characters/s: {} in, {} out (001: {} in, {} out); {}\n",
            num(tc.in_per_s),
            num(tc.out_per_s),
            PAPER_TERMINAL.0,
            PAPER_TERMINAL.1,
            tc.how
        )),
        Some(Part::Unavailable { reason }) => {
            s.push_str(&format!("terminal characters: unavailable: {reason}\n"))
        }
        None => {}
    }
    s.push('\n');
    s
}

fn calls_text(o: &SystemObservation) -> String {
    let mix = match &o.calls {
        Part::Measured(m) => m,
        Part::Unavailable { reason } => {
            return format!("call mix: unavailable: {reason}\n\n");
        }
    };
    let mut s = format!(
        "call mix: {} calls, {}/s{}\n",
        mix.total,
        num(mix.per_s),
        if mix.lost > 0 {
            format!(
                " ({} more not kept: the kernel's buffer or map was full)",
                mix.lost
            )
        } else {
            String::new()
        }
    );
    let timed = matches!(mix.timing, Some(Part::Measured(_)));
    s.push_str(&format!("{}\n", calls_table(mix, timed)));
    if mix.calls.len() > 15 {
        s.push_str(&format!("… and {} other calls\n", mix.calls.len() - 15));
    }
    let mut t = new_table(&["command", "calls", "per s", "its commonest calls"]);
    for c in mix.by_command.iter().take(10) {
        t.add_row(vec![
            escape(&c.command).into_owned(),
            c.total.to_string(),
            num(c.total as f64 / o.duration_s.max(1e-6)),
            c.calls
                .iter()
                .map(|k| format!("{} {}", k.name, k.count))
                .collect::<Vec<_>>()
                .join(", "),
        ]);
    }
    right(&mut t, &[1, 2]);
    s.push_str(&format!("by command name\n{t}\n"));
    if let Some(tree) = &mix.command_tree {
        s.push_str(&format!(
            "the observed command's processes ({}): {} calls, the rest of the machine {}: {}\n",
            escape(&tree.command),
            tree.total,
            mix.total.saturating_sub(tree.total),
            tree.calls
                .iter()
                .take(8)
                .map(|k| format!("{} {}", k.name, k.count))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    s.push_str(&timing_text(mix, o.duration_s));
    s.push('\n');
    s
}

/// The commonest calls: counts, and with their time in the kernel when timed.
fn calls_table(mix: &CallMix, timed: bool) -> TextTable {
    let mut head = vec!["call", "count", "per s", "share"];
    if timed {
        head.extend(["in kernel", "mean"]);
    }
    let mut t = new_table(&head);
    for c in mix.calls.iter().take(15) {
        let mut row = vec![
            c.name.clone(),
            c.count.to_string(),
            num(c.per_s),
            pct(c.count as f64 / mix.total.max(1) as f64),
        ];
        if timed {
            row.push(format_seconds(c.total_s()));
            row.push(c.mean_s().map_or("–".into(), format_seconds));
        }
        t.add_row(row);
    }
    right(&mut t, if timed { &[1, 2, 3, 4, 5] } else { &[1, 2, 3] });
    t
}

/// The calls by their time in the kernel, and what could not be timed; or why calls
/// were not timed.
fn timing_text(mix: &CallMix, span_s: f64) -> String {
    let timing = match &mix.timing {
        None => return "by time: not measured (recorded before calls were timed)\n".into(),
        Some(Part::Unavailable { reason }) => return format!("by time: not measured: {reason}\n"),
        Some(Part::Measured(t)) => t,
    };
    let mut by_time: Vec<&CallCount> = mix.calls.iter().filter(|c| c.total_s() > 0.0).collect();
    by_time.sort_by(|a, b| b.total_s().total_cmp(&a.total_s()));
    // Each call's time, estimated from its sample when only a sample was timed.
    let in_kernel: f64 = mix.calls.iter().map(CallCount::total_s).sum();
    let mut t = new_table(&[
        "call",
        "in kernel",
        "per s of span",
        "share",
        "calls timed",
        "mean",
    ]);
    for c in by_time.iter().take(10) {
        t.add_row(vec![
            c.name.clone(),
            format_seconds(c.total_s()),
            format_seconds(c.total_s() / span_s.max(1e-6)),
            pct(c.total_s() / in_kernel.max(1e-12)),
            c.time.as_ref().map_or(0, |t| t.timed).to_string(),
            c.mean_s().map_or("–".into(), format_seconds),
        ]);
    }
    right(&mut t, &[1, 2, 3, 4, 5]);
    format!(
        "top calls by time in the kernel (wall time from entry to exit: a call that sleeps \
         counts its sleep)\n{t}\n{} calls timed{}, {}{} in the kernel together; not timed: {} \
         still in a call at the end, {} returned from calls entered before the span, {} \
         without their exit (a lost or late record); {}\n",
        timing.timed,
        if timing.sampled() {
            format!(" (one in {})", timing.one_in)
        } else {
            String::new()
        },
        estimate_label(timing, mix),
        format_seconds(in_kernel),
        timing.unfinished,
        timing.exits_unentered,
        timing.unpaired,
        timing.method
    )
}

/// What the total in the kernel is, when it is not the sum of every call's own time:
/// a sample's mean times the count, or, on the record path, the timed calls' mean given to
/// those whose records were lost.
fn estimate_label(timing: &CallTiming, mix: &CallMix) -> &'static str {
    if timing.sampled() {
        "an estimated "
    } else if mix.calls.iter().any(CallCount::extrapolated) {
        "an estimated (calls without both records at their call's mean) "
    } else {
        ""
    }
}

fn profile_text(o: &SystemObservation) -> String {
    let p = match &o.profile {
        Part::Measured(p) => p,
        Part::Unavailable { reason } => {
            return format!("kernel profile: unavailable: {reason}\n\n");
        }
    };
    let mut s = format!(
        "kernel profile: {} samples ({} system, {} user, {} idle); {}\n",
        p.samples, p.system_samples, p.user_samples, p.idle_samples, p.method
    );
    s.push_str(&format!(
        "observer: {} of the kernel time sampled ({} samples in its tracepoint, BPF and \
         perf handlers), left out of system time and of every share below\n",
        pct(p.observer_share()),
        p.observer_samples
    ));
    if p.system_samples == 0 {
        s.push_str("no sample was in the kernel outside the idle loop\n\n");
        return s;
    }
    let mut t = new_table(&["subsystem", "share of system time", "samples"]);
    for sub in &p.subsystems {
        t.add_row(vec![
            sub.subsystem.clone(),
            pct(sub.share),
            sub.samples.to_string(),
        ]);
    }
    right(&mut t, &[1, 2]);
    s.push_str(&format!("{t}\n"));
    let mut t = new_table(&["kernel function", "self", "with descendants"]);
    for f in p.functions.iter().take(20) {
        t.add_row(vec![
            f.name.clone(),
            pct(f.self_share),
            pct(f.inclusive_share),
        ]);
    }
    right(&mut t, &[1, 2]);
    s.push_str(&format!("{t}\n"));
    s.push_str(&format!(
        "name lookup (namei's part, 001 Tables 4/9/10): {} of system time\n\n",
        pct(p.share_of(VFS))
    ));
    s
}

fn caches_text(caches: &[CacheFigure]) -> String {
    let mut s = String::from("caches (001 §2.3, §3.2.6)\n");
    for c in caches {
        match &c.value {
            Part::Measured(v) => s.push_str(&format!(
                "  {}: {} — {}\n    how: {}\n",
                c.name,
                v.ratio.map_or("– (nothing to divide)".into(), pct),
                v.counts
                    .iter()
                    .map(|(k, n)| format!("{k} {n}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                v.how
            )),
            Part::Unavailable { reason } => {
                s.push_str(&format!("  {}: unavailable: {reason}\n", c.name))
            }
        }
    }
    s.push('\n');
    s
}

fn network_text(o: &SystemObservation) -> String {
    let n = &o.network;
    let share = |x: Option<f64>| x.map(pct).unwrap_or_else(|| "– (no profile)".into());
    format!(
        "network (001 §3.2.7): {} IP messages in, {} out ({}/s, {}/s); softirqs NET_RX {}/s, \
         NET_TX {}/s\n  share of system time: network {} (001: input {}, gateway {}), of it \
         receive {}, protocol timers {} (001: {})\n\n",
        n.messages_in,
        n.messages_out,
        num(n.messages_in as f64 / o.duration_s.max(1e-6)),
        num(n.messages_out as f64 / o.duration_s.max(1e-6)),
        num(n.net_rx_softirqs_per_s),
        num(n.net_tx_softirqs_per_s),
        share(n.system_share),
        pct(PAPER_NET_INPUT),
        pct(PAPER_NET_GATEWAY),
        share(n.receive_share),
        share(n.timer_share),
        pct(PAPER_NET_TIMERS),
    )
}

fn prediction_text(p: Option<&Prediction>, o: &SystemObservation) -> String {
    let Some(p) = p else {
        return if o.calls.measured().is_some() {
            "benchmarks tied to real work: no stored run on this host has the per-call rows \
             (timeshare run syscall --quick gives them)\n\n"
                .into()
        } else {
            "benchmarks tied to real work: needs the call mix\n\n".into()
        };
    };
    let mut t = new_table(&[
        "call",
        "per s",
        "row",
        "cost per call",
        "observed per call",
        "predicted ms/s",
    ]);
    for c in p.calls.iter().take(15) {
        t.add_row(vec![
            c.call.clone(),
            num(c.per_s),
            c.row.clone(),
            format_seconds(c.seconds_per_call),
            c.observed_seconds_per_call
                .map_or("–".into(), format_seconds),
            num(c.predicted_s_per_s * 1e3),
        ]);
    }
    right(&mut t, &[1, 3, 4, 5]);
    let mut s = format!(
        "benchmarks tied to real work (001 §2.4, 002); observed per call: the mean time in \
         the kernel of the calls seen, sleeping included, where the row's loop never sleeps\n{t}\n"
    );
    s.push_str(&format!(
        "system time per second (all CPUs): predicted {} ms from {} of the calls, observed {} \
         ms, residual {} ms — the part the micro-benchmarks do not explain (faults, \
         interrupts, softirqs, the scheduler, calls without a row, calls dearer in real \
         use than in a warm loop)\n",
        num(p.predicted_s_per_s * 1e3),
        pct(p.covered_share),
        num(p.observed_s_per_s * 1e3),
        num(p.residual_s_per_s * 1e3),
    ));
    if !p.without_row.is_empty() {
        s.push_str(&format!(
            "calls without a row: {}\n",
            p.without_row
                .iter()
                .take(20)
                .map(|(c, r)| format!("{c} {}/s", num(*r)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    s.push('\n');
    s
}

/// Two observations side by side: each rate's mean, the change, and whether it is
/// beyond the noise of the per-interval values (the test `compare` gives two runs); calls and subsystem
/// shares likewise by their size.
pub fn compare_text(a: (&str, &SystemObservation), b: (&str, &SystemObservation)) -> String {
    let mut t = new_table(&["rate", a.0, b.0, "change", "beyond noise"]);
    for ra in a.1.rates.summaries() {
        let Some(rb) = b.1.rates.summary(ra.key.key) else {
            continue;
        };
        let intervals = |o: &SystemObservation| {
            let mut v = o.rates.column(ra.key.key).unwrap_or_default();
            v.retain(|x| x.is_finite());
            v
        };
        let diff = rb.mean - ra.mean;
        let beyond = beyond_noise(&intervals(a.1), &intervals(b.1));
        t.add_row(vec![
            ra.key.label.to_string(),
            num(ra.mean),
            num(rb.mean),
            if ra.mean.abs() > 1e-12 {
                format!("{:+.0}%", diff / ra.mean * 100.0)
            } else {
                num(diff)
            },
            beyond.into(),
        ]);
    }
    right(&mut t, &[1, 2, 3]);
    let mut s = format!(
        "observations {} ({}) and {} ({})\n{t}\n",
        a.0,
        escape(&a.1.span_text()),
        b.0,
        escape(&b.1.span_text())
    );
    if let (Some(pa), Some(pb)) = (a.1.profile.measured(), b.1.profile.measured()) {
        let mut t = new_table(&["subsystem", a.0, b.0, "change (points)"]);
        let mut names: Vec<&str> = pa.subsystems.iter().map(|x| x.subsystem.as_str()).collect();
        for x in &pb.subsystems {
            if !names.contains(&x.subsystem.as_str()) {
                names.push(&x.subsystem);
            }
        }
        for n in names {
            let (x, y) = (pa.share_of(n), pb.share_of(n));
            t.add_row(vec![
                n.to_string(),
                pct(x),
                pct(y),
                format!("{:+.1}", (y - x) * 100.0),
            ]);
        }
        right(&mut t, &[1, 2, 3]);
        s.push_str(&format!("share of system time by subsystem\n{t}\n"));
    }
    if let (Some(ca), Some(cb)) = (a.1.calls.measured(), b.1.calls.measured()) {
        let mut t = new_table(&["call", &format!("{} /s", a.0), &format!("{} /s", b.0)]);
        let mut names: Vec<&str> = ca.calls.iter().take(10).map(|c| c.name.as_str()).collect();
        for c in cb.calls.iter().take(10) {
            if !names.contains(&c.name.as_str()) {
                names.push(&c.name);
            }
        }
        let rate = |m: &crate::model::observation::CallMix, n: &str| {
            m.calls
                .iter()
                .find(|c| c.name == n)
                .map_or(0.0, |c| c.per_s)
        };
        for n in names {
            t.add_row(vec![n.to_string(), num(rate(ca, n)), num(rate(cb, n))]);
        }
        right(&mut t, &[1, 2]);
        s.push_str(&format!("commonest calls\n{t}\n"));
    }
    s
}

/// What observing costs (`observe --cost`): each setting's loops beside observing
/// nothing, and the share of one CPU it takes from a machine making the calls it made.
pub fn cost_text(m: &CostMeasurement) -> String {
    let mut t = new_table(&[
        "observing",
        "CPU loop",
        "added",
        "getppid",
        "added per call",
        "observer's CPU",
        "machine calls/s",
        "share of one CPU",
    ]);
    let mut reasons = Vec::new();
    for (s, summary) in m.summaries() {
        match summary {
            Some(c) => t.add_row(vec![
                s.name.clone(),
                format_seconds(c.cpu_loop_s),
                format!("{:+.1}%", c.cpu_loop_added * 100.0),
                format_seconds(c.call_s),
                format_seconds(c.call_added_s),
                pct(c.observer_share),
                num(c.machine_calls_per_s),
                pct(c.share_of_one_cpu),
            ]),
            None => {
                reasons.push(format!(
                    "{}: not measured: {}",
                    s.name,
                    s.unavailable.as_deref().unwrap_or("no round")
                ));
                t.add_row(vec![s.name.clone(), "–".into()])
            }
        };
    }
    right(&mut t, &[1, 2, 3, 4, 5, 6, 7]);
    let mut s = format!(
        "what observing costs: medians of {} rounds, the loops pinned to CPU {} ({} getppid \
         calls a round), each setting beside observing nothing\n{t}\n",
        m.rounds, m.cpu, m.getppid_calls
    );
    for r in reasons {
        s.push_str(&format!("{r}\n"));
    }
    s.push_str(
        "The loops' times are their thread's CPU time (what observing charges to it: the \
         tracepoints' records written in its calls, the profile's interrupts), not the time \
         others sharing its CPU ran. share of one CPU: the observer's own threads' CPU time \
         over its span (with the call mix, that includes reading the records of the loop's \
         own calls, so it is an upper bound), plus the added time per call × the calls the \
         rest of the machine made per second meanwhile (the loops' own left out); a machine \
         making more calls pays more. Target for the rates and the call mix: under 2%.\n",
    );
    s
}

/// One line for an observation made beside a run or an exercise (`--observe-system`):
/// its length, the machine's calls and switches per second, the workload's share of the
/// calls, and where it is kept (`name` empty: not stored).
pub fn beside_line(name: &str, o: &SystemObservation) -> String {
    let rate = |key: &str| o.rates.mean(key).map_or("-".into(), num);
    let calls = match o.calls.measured() {
        Some(m) => {
            let own = m.command_tree.as_ref().map_or(0, |t| t.total);
            format!(
                "{} system calls/s ({} of them the workload's)",
                num(m.per_s),
                pct(own as f64 / m.total.max(1) as f64)
            )
        }
        None => format!("{} system calls/s", rate("syscalls")),
    };
    let kept = if name.is_empty() {
        "not stored (--no-save)".to_string()
    } else {
        format!("stored as observation {name} (`timeshare show {name}`, `timeshare report {name}`)")
    };
    format!(
        "observed the machine for {:.1} s: {calls}, {} context switches/s, CPU system {}%; {kept}",
        o.duration_s,
        rate("cs"),
        rate("cpu_system"),
    )
}

/// Whether a rate moved between two spans, by the test `compare` applies to two runs'
/// samples, here on the per-interval values: Mann–Whitney at p < 0.01 and a change of
/// the median of at least 5%. A rate that sat still in both spans (a constant count per
/// interval, no spread at all) is therefore not called changed for a step of one; a span
/// of fewer than four intervals cannot tell.
fn beyond_noise(a: &[f64], b: &[f64]) -> &'static str {
    use crate::model::change::{self, Verdict};
    if a.iter().chain(b).all(|x| *x == 0.0) {
        return "no";
    }
    let c = change::compare(a, b, Better::Lower, change::DEFAULT_MIN_EFFECT);
    match c.verdict {
        Verdict::Faster | Verdict::Slower => "yes",
        Verdict::NoChange => "no",
        Verdict::TooFew => "too few intervals",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::observation::tests::sample;

    #[test]
    fn every_part_is_shown_or_says_why_not() {
        let o = sample();
        let t = text("o1", &o, None);
        assert!(t.contains("observation o1"), "{t}");
        assert!(
            t.contains("kernel profile: unavailable: not asked for"),
            "{t}"
        );
        assert!(t.contains("read"), "{t}");
        assert!(t.contains("rates: none"), "{t}");
        assert!(t.contains("no stored run on this host"), "{t}");
    }

    /// On the record path every call is timed that has both records; a total that gives
    /// the others their call's mean says it is an estimate.
    #[test]
    fn a_total_with_calls_not_timed_is_called_an_estimate() {
        use crate::model::observation::tests::read_timed;
        let mix = |timed| CallMix {
            calls: vec![read_timed(timed)],
            timing: Some(Part::Measured(CallTiming {
                timed,
                one_in: 1,
                ..CallTiming::default()
            })),
            ..CallMix::default()
        };
        let all = timing_text(&mix(8), 2.0);
        assert!(!all.contains("estimated"), "{all}");
        let lost = timing_text(&mix(6), 2.0);
        assert!(
            lost.contains("an estimated (calls without both records at their call's mean)"),
            "{lost}"
        );
    }

    #[test]
    fn a_comparison_lists_the_rates_of_both() {
        let mut a = sample();
        a.rates.columns = vec!["cs".into()];
        a.rates.lines = (1..=10)
            .map(|i| crate::model::observation::SeriesLine {
                t_s: i as f64,
                interval_s: 1.0,
                values: vec![100.0 + i as f64],
            })
            .collect();
        let mut b = a.clone();
        for l in &mut b.rates.lines {
            l.values[0] *= 3.0;
        }
        let t = compare_text(("o1", &a), ("o2", &b));
        assert!(t.contains("context switches"), "{t}");
        assert!(t.contains("+200%"), "{t}");
        assert!(t.contains("yes"), "{t}");
        let same = compare_text(("o1", &a), ("o1", &a));
        assert!(same.contains(" no"), "{same}");
    }

    /// A rate with no spread in either span (the same count every interval) is called
    /// changed only for a step beyond the minimum effect, not for any step at all.
    #[test]
    fn a_still_rate_is_not_changed_by_a_step_of_one() {
        let constant = |v: f64| vec![v; 10];
        assert_eq!(beyond_noise(&constant(100.0), &constant(101.0)), "no");
        assert_eq!(beyond_noise(&constant(100.0), &constant(130.0)), "yes");
        assert_eq!(beyond_noise(&constant(0.0), &constant(0.0)), "no");
        assert_eq!(beyond_noise(&constant(0.0), &constant(5.0)), "yes");
        assert_eq!(beyond_noise(&[1.0, 2.0], &[9.0, 9.0]), "too few intervals");
    }
}

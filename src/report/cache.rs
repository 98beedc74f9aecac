//! `cpu.cache` (seed 000 Table 4's idea): ns per dependent random read per array size, the
//! plateaus found in them and the cache level sysfs says each size should live in, and the
//! steps between plateaus named by the caches whose size they mark.

use super::table::{new_table, right};
use crate::model::unit::human;
use crate::model::Run;

pub fn table(run: &Run) -> String {
    let Some(d) = run
        .results
        .iter()
        .find(|r| r.id == "cpu.cache")
        .and_then(|r| r.details.as_ref())
    else {
        return String::new();
    };
    let Some(sizes) = d["sizes"].as_array() else {
        return String::new();
    };
    let plateaus = d["plateaus"].as_array().cloned().unwrap_or_default();
    let steps = d["steps"].as_array().cloned().unwrap_or_default();
    let mut t = new_table(&[
        "array",
        "ns/read (median)",
        "ns/read (min)",
        "plateau",
        "step",
    ]);
    right(&mut t, &[0, 1, 2]);
    for s in sizes {
        let bytes = s["bytes"].as_u64().unwrap_or(0);
        let plateau = plateaus
            .iter()
            .find(|p| {
                (p["first_bytes"].as_u64().unwrap_or(u64::MAX)
                    ..=p["last_bytes"].as_u64().unwrap_or(0))
                    .contains(&bytes)
            })
            .map(|p| {
                format!(
                    "{} ({:.1} ns)",
                    p["level"].as_str().unwrap_or("?"),
                    p["ns"].as_f64().unwrap_or(0.0)
                )
            })
            .unwrap_or_default();
        let step = steps
            .iter()
            .find(|st| st["to_bytes"].as_u64() == Some(bytes))
            .map(|st| {
                let names: Vec<&str> = st["caches"]
                    .as_array()
                    .map(|c| c.iter().filter_map(|n| n.as_str()).collect())
                    .unwrap_or_default();
                let what = if names.is_empty() {
                    "no cache ends here (TLB reach?)".to_string()
                } else {
                    format!("past {}", names.join(", "))
                };
                format!(
                    "↑ ×{:.1} from {}: {what}",
                    st["to_ns"].as_f64().unwrap_or(0.0) / st["from_ns"].as_f64().unwrap_or(1.0),
                    human(st["from_bytes"].as_u64().unwrap_or(0))
                )
            })
            .unwrap_or_default();
        t.add_row(vec![
            human(bytes),
            format!("{:.2}", s["median_ns"].as_f64().unwrap_or(f64::NAN)),
            format!("{:.2}", s["min_ns"].as_f64().unwrap_or(f64::NAN)),
            plateau,
            step,
        ]);
    }
    let caches: Vec<&str> = d["caches"]
        .as_array()
        .map(|c| c.iter().filter_map(|x| x["name"].as_str()).collect())
        .unwrap_or_default();
    format!(
        "Memory hierarchy (cpu.cache, seed 000 Table 4): random dependent reads of 64-byte \
         lines; caches per sysfs: {}\n{t}\n",
        caches.join(", ")
    )
}

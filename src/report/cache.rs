//! `cpu.cache` (seed 000 Table 4's idea): ns per dependent random read per array size, the
//! plateaus found in them and the cache level sysfs says each size should live in, and the
//! steps between plateaus named by the caches whose size they mark.

use super::table::{new_table, right};
use crate::model::unit::human;
use crate::model::Run;

pub fn table(run: &Run) -> String {
    let Some(d) = super::views::cache::sweep(run) else {
        return String::new();
    };
    let mut t = new_table(&[
        "array",
        "ns/read (median)",
        "ns/read (min)",
        "plateau",
        "step",
    ]);
    right(&mut t, &[0, 1, 2]);
    for s in &d.sizes {
        let plateau = d
            .plateaus
            .iter()
            .find(|p| (p.first_bytes..=p.last_bytes).contains(&s.bytes))
            .map(|p| format!("{} ({:.1} ns)", p.level, p.ns))
            .unwrap_or_default();
        let step = d
            .steps
            .iter()
            .find(|st| st.to_bytes == s.bytes)
            .map(|st| {
                let what = if st.caches.is_empty() {
                    "no cache ends here (TLB reach?)".to_string()
                } else {
                    format!("past {}", st.caches.join(", "))
                };
                format!(
                    "↑ ×{:.1} from {}: {what}",
                    st.to_ns / st.from_ns,
                    human(st.from_bytes)
                )
            })
            .unwrap_or_default();
        t.add_row(vec![
            human(s.bytes),
            format!("{:.2}", s.median_ns),
            format!("{:.2}", s.min_ns),
            plateau,
            step,
        ]);
    }
    let caches: Vec<&str> = d.caches.iter().map(|c| c.name.as_str()).collect();
    format!(
        "Memory hierarchy (cpu.cache, seed 000 Table 4): random dependent reads of 64-byte \
         lines; caches per sysfs: {}\n{t}\n",
        caches.join(", ")
    )
}

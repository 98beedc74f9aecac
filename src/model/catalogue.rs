//! What the families register for the printers, each in its own file: the tables printed
//! after a run's main table, and the sections of `docs/benchmarks.md`. Declared here, in
//! the layer both `bench` and `report` may import, so that a family whose rows, record and
//! table live in its own folder under `bench/` adds its table without a line in `report/`.
//!
//! Each registration is a function that describes the table or section, gathered when
//! the program is linked (`#[distributed_slice(TABLES)]`); the lists below put them in
//! their declared order.

use linkme::distributed_slice;

use super::Run;

/// A table printed after a run's main table, when the run has its family's rows.
pub struct Table {
    /// Where it prints: tables go by ascending order (a test refuses two with one order).
    pub order: u32,
    /// The table for a run, or the empty string when its family is not in the run.
    pub render: fn(&Run) -> String,
}

/// Every extra table's registration: each renderer's module adds a function that
/// describes its table.
#[distributed_slice]
pub static TABLES: [fn() -> Table];

/// The registered tables, in print order.
pub fn tables() -> Vec<Table> {
    in_order(&TABLES, |t| t.order)
}

/// A family's section of `docs/benchmarks.md`: the rows whose catalogue family is
/// `family`, under a heading and a sentence on what the seeds contribute.
pub struct Section {
    /// Where it stands in the page: sections go by ascending order (the catalogue's order
    /// of topics, not the order `list` runs the rows in).
    pub order: u32,
    /// The catalogue family its rows belong to (`Benchmark::family`).
    pub family: &'static str,
    pub heading: &'static str,
    pub seeds: &'static str,
}

/// Every family's section of the generated benchmark list.
#[distributed_slice]
pub static SECTIONS: [fn() -> Section];

/// The registered sections, in page order.
pub fn sections() -> Vec<Section> {
    in_order(&SECTIONS, |s| s.order)
}

/// What the registrations of one list describe, sorted by their declared order: the link
/// gathers them in no order of its own.
pub fn in_order<T>(registrations: &[fn() -> T], order: fn(&T) -> u32) -> Vec<T> {
    let mut all: Vec<T> = registrations.iter().map(|describe| describe()).collect();
    all.sort_by_key(order);
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn no_two_tables_or_sections_share_an_order_or_a_family() {
        let orders: Vec<u32> = tables().iter().map(|t| t.order).collect();
        assert!(orders.windows(2).all(|w| w[0] < w[1]), "{orders:?}");
        let sections = sections();
        let orders: Vec<u32> = sections.iter().map(|s| s.order).collect();
        assert!(orders.windows(2).all(|w| w[0] < w[1]), "{orders:?}");
        let families: HashSet<&str> = sections.iter().map(|s| s.family).collect();
        assert_eq!(families.len(), sections.len());
    }
}

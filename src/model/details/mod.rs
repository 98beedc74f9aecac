//! The families' records beyond the timing: what each benchmark writes into its result's
//! `details` and what its table (and any other reader) reads back.
//!
//! Each family's record is a serde struct here, in `model`, because both sides need it:
//! the benchmark that writes it and the report that reads it. A field renamed on one side
//! is then a compile error on the other, never an empty column. The stored form stays
//! plain JSON (the result format's `details` object), so files written before a record
//! gained a field still read: new fields are `#[serde(default)]`.
//!
//! A family added since, whose record only its own view reads, keeps the record and the
//! view in its folder, `bench/<family>/` (docs/architecture.md, "How to add a family with
//! a table"): the same typed record, the same stored form.

pub mod cache;
pub mod cpu;
pub mod io;
pub mod load;
pub mod mem;
pub mod micro;
pub mod mixed;
pub mod net;
pub mod vm;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// A family's record, in its stored form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Details(serde_json::Value);

/// A typed record that can be stored as a result's details.
pub trait Record: Serialize + DeserializeOwned {}

impl Details {
    /// The stored form of `record`.
    pub fn of<T: Record>(record: &T) -> Details {
        Details(serde_json::to_value(record).expect("a record serialises to JSON"))
    }

    /// The record, when these details are one of type `T`.
    pub fn read<T: Record>(&self) -> Option<T> {
        serde_json::from_value(self.0.clone()).ok()
    }

    /// The JSON as stored.
    pub fn json(&self) -> &serde_json::Value {
        &self.0
    }
}

/// A derived row's record: the ids it was computed from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DerivedInputs {
    pub inputs: Vec<String>,
}

impl Record for DerivedInputs {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Run;

    /// The record type each stored row's details are, by id.
    fn round_trip(id: &str, stored: &serde_json::Value) -> serde_json::Value {
        fn again<T: Record>(v: &serde_json::Value) -> serde_json::Value {
            let record: T =
                serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{e}: {v}"));
            Details::of(&record).0
        }
        let family = id.split('.').next().unwrap();
        match id {
            "ctx.switch" | "proc.exec.env_byte" => again::<DerivedInputs>(stored),
            "signal.pingpong" => again::<micro::Partnership>(stored),
            _ if id.contains(".discard.") => again::<micro::Discarded>(stored),
            _ if id.contains(".back.") => again::<micro::RoundTrip>(stored),
            _ if id.starts_with("pipe.bw.") || id == "pipe.piper" => {
                again::<micro::Transfer>(stored)
            }
            _ if family == "proc" => again::<micro::Creation>(stored),
            "vm.pagefault" => again::<vm::PageFaults>(stored),
            _ if family == "vm" => again::<vm::Paging>(stored),
            "cpu.cache" => again::<cache::CacheSweep>(stored),
            "cpu.sieve" => again::<cpu::Sieve>(stored),
            "cpu.proc_call" => again::<cpu::ProcCall>(stored),
            "cpu.gibson" => again::<cpu::Gibson>(stored),
            "cpu.chess" => again::<cpu::Chess>(stored),
            _ if id.starts_with("cpu.intfloat.") => again::<cpu::IntFloat>(stored),
            _ if id.starts_with("cpu.stmt.") => again::<cpu::Statement>(stored),
            _ if id.starts_with("io.copy") => again::<io::OpRecord<io::Copy>>(stored),
            _ if id.starts_with("io.seqwrite") => again::<io::OpRecord<io::SeqWrite>>(stored),
            _ if id.starts_with("io.randwrite") => again::<io::OpRecord<io::RandWrite>>(stored),
            _ if id.starts_with("io.disk.") => again::<io::OpRecord<io::Zilog>>(stored),
            "fs.create" | "fs.unlink" => again::<io::OpRecord<io::Files>>(stored),
            "fs.lsl" => again::<io::OpRecord<io::Lsl>>(stored),
            _ if id.starts_with("fs.namei.") => again::<io::OpRecord<io::Namei>>(stored),
            _ if id.starts_with("load.cpu.") => again::<load::CpuCopies>(stored),
            _ if id.starts_with("load.script.") => again::<load::Scripts>(stored),
            _ if id.starts_with("load.iointerference.") => again::<load::IoInterference>(stored),
            "mixed.build" => again::<mixed::Build>(stored),
            "mixed.crypt" => again::<mixed::Crypt>(stored),
            _ => panic!("{id}: no record type known for its details"),
        }
    }

    /// Every family's record reads the details of a stored run (a real `run --quick` of
    /// every id) and writes them back unchanged: the typed records are the stored format,
    /// field for field, so old files still read and new ones look the same.
    #[test]
    fn every_record_round_trips_a_stored_run() {
        let run: Run = serde_json::from_str(include_str!("../../../tests/fixtures/run-quick.json"))
            .expect("the fixture is a run");
        let mut checked = 0;
        for r in &run.results {
            if let Some(d) = &r.details {
                assert_eq!(round_trip(&r.id, &d.0), d.0, "{}", r.id);
                checked += 1;
            }
        }
        assert!(checked > 180, "only {checked} rows had details");
    }

    #[test]
    fn a_record_of_another_type_is_not_read() {
        let d = Details::of(&DerivedInputs {
            inputs: vec!["signal.self".into()],
        });
        assert!(d.read::<mixed::Build>().is_none());
        assert_eq!(d.read::<DerivedInputs>().unwrap().inputs, ["signal.self"]);
    }
}

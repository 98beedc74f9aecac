//! The families' records beyond the timing: what each benchmark writes into its result's
//! `details` and what its table (and any other reader) reads back.
//!
//! Each family's record is a serde struct here, in `model`, because both sides need it:
//! the benchmark that writes it and the report that reads it. A field renamed on one side
//! is then a compile error on the other, never an empty column. The stored form stays
//! plain JSON (the result format's `details` object), so files written before a record
//! gained a field still read: new fields are `#[serde(default)]`.

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

    /// Transitional: details built as untyped JSON.
    pub fn untyped(value: serde_json::Value) -> Details {
        Details(value)
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

/// Transitional: read as untyped JSON.
impl std::ops::Deref for Details {
    type Target = serde_json::Value;
    fn deref(&self) -> &serde_json::Value {
        &self.0
    }
}

//! A run as JSON (the format is documented in `docs/result-format.md`).

use crate::model::Run;

pub fn to_json(run: &Run) -> serde_json::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(run)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Read a run back, refusing files from a newer schema than this build knows.
pub fn from_json(bytes: &[u8]) -> anyhow::Result<Run> {
    let value: serde_json::Value = serde_json::from_slice(bytes)?;
    let version = value
        .get("schema_version")
        .and_then(|v| v.as_u64())
        .ok_or_else(|| anyhow::anyhow!("not a timeshare result: no schema_version"))?;
    if version > crate::model::SCHEMA_VERSION as u64 {
        anyhow::bail!(
            "result schema {version} is newer than this timeshare understands ({}); upgrade timeshare",
            crate::model::SCHEMA_VERSION
        );
    }
    Ok(serde_json::from_value(value)?)
}

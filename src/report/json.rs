//! A run as JSON (the format is documented in `docs/result-format.md`), and a run read
//! back from a file that may come from anywhere: checked whole before it is trusted.

use std::collections::HashSet;
use std::fmt;

use chrono::{DateTime, Datelike, Utc};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use serde::Serialize;

use crate::model::resolution::{classify, Classification};
use crate::model::{BenchResult, Environment, Run, RunOptions, RunStatus, Status, Tool};

/// The largest run file read (a full run with every sample is a few megabytes).
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// The longest string an imported file may hold in any field (a note, an error, a
/// command line), in bytes: far above any timeshare writes, and a bound on what every
/// printer has to lay out (a 1 MB note once took `show` minutes).
pub const MAX_IMPORTED_STRING: usize = 16 << 10;

/// The largest magnitude of a figure with a fraction or an exponent in an imported file:
/// no time, rate or count timeshare measures comes near it, and beyond it a ratio or a
/// percentage of two such figures is shown as `inf×` or `NaN%`.
pub const MAX_FIGURE: f64 = 1e18;

/// The run as JSON, each result with its `classification`: how its figure is to be read
/// (measured, derived, below one cycle, below the clock, not positive, no figure), so
/// that a script reading the file need not redo the printers' checks to know that a
/// median is only a bound. It is computed from the run, not stored, and a file read back
/// has it computed again (what a file claims is not trusted).
pub fn to_json(run: &Run) -> serde_json::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(&Classified::of(run))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// A run as it is written: the run's own fields in their order, each result followed by
/// its classification.
#[derive(Serialize)]
struct Classified<'a> {
    schema_version: u32,
    tool: &'a Tool,
    options: &'a RunOptions,
    environment: &'a Environment,
    started_at: &'a DateTime<Utc>,
    finished_at: &'a Option<DateTime<Utc>>,
    status: &'a RunStatus,
    warnings: &'a [String],
    results: Vec<ClassifiedResult<'a>>,
}

#[derive(Serialize)]
struct ClassifiedResult<'a> {
    #[serde(flatten)]
    result: &'a BenchResult,
    classification: Classification,
}

impl<'a> Classified<'a> {
    fn of(run: &'a Run) -> Classified<'a> {
        // Every field named: a field added to `Run` must be added here too.
        let Run {
            schema_version,
            tool,
            options,
            environment,
            started_at,
            finished_at,
            status,
            warnings,
            results,
        } = run;
        Classified {
            schema_version: *schema_version,
            tool,
            options,
            environment,
            started_at,
            finished_at,
            status,
            warnings,
            results: results
                .iter()
                .map(|result| ClassifiedResult {
                    result,
                    classification: classify(result, environment.cpu.mhz),
                })
                .collect(),
        }
    }
}

/// Read a run back, refusing files from a newer schema than this build knows and
/// anything that is not a run this timeshare could have written (see [`validate`]). The
/// error names the field.
pub fn from_json(bytes: &[u8]) -> anyhow::Result<Run> {
    let value = parse_strict(bytes)?;
    let version = match value.get("schema_version") {
        None => anyhow::bail!("schema_version: missing (not a timeshare result)"),
        Some(Value::Number(n)) => n.as_u64().ok_or_else(|| {
            anyhow::anyhow!("schema_version: expected a whole number from 1, found {n}")
        })?,
        Some(other) => anyhow::bail!(
            "schema_version: expected a whole number, found {}",
            kind(other)
        ),
    };
    if version == 0 {
        anyhow::bail!(
            "schema_version: 0 is out of range (1 to {})",
            crate::model::SCHEMA_VERSION
        );
    }
    if version > crate::model::SCHEMA_VERSION as u64 {
        anyhow::bail!(
            "result schema {version} is newer than this timeshare understands ({}); upgrade timeshare",
            crate::model::SCHEMA_VERSION
        );
    }
    let mut run: Run = serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        anyhow::anyhow!("{path}: {}", e.into_inner())
    })?;
    mend_clock_step(&mut run);
    validate(&run)?;
    Ok(run)
}

/// A run written by a timeshare whose wall clock stepped back during it (before it
/// stored its end from the monotonic clock) ends before it starts: the host's run is
/// still one to keep, so its end becomes its start (its duration is unknown) and the run
/// says why, rather than the file being refused.
fn mend_clock_step(run: &mut Run) {
    if let Some(f) = run.finished_at {
        // A date no calendar of ours holds is refused by `validate`, not mended.
        if f < run.started_at && check_time("finished_at", &f).is_ok() {
            run.warnings.push(format!(
                "finished_at {f} preceded started_at {} (the wall clock stepped back \
                 during the run); the end is taken as the start",
                run.started_at
            ));
            run.finished_at = Some(run.started_at);
        }
    }
}

fn kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {:?}", s.chars().take(20).collect::<String>()),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// Parse JSON, refusing what `serde_json::Value` would silently accept: a key given twice
/// in one object (which one counts?), NUL characters in strings, strings longer than
/// [`MAX_IMPORTED_STRING`] and figures beyond [`MAX_FIGURE`]; the error names the field.
pub fn parse_strict(bytes: &[u8]) -> anyhow::Result<Value> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = Strict {
        path: String::new(),
    }
    .deserialize(&mut de)
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    de.end().map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(value)
}

struct Strict {
    path: String,
}

impl Strict {
    fn at(&self) -> &str {
        if self.path.is_empty() {
            "the file"
        } else {
            &self.path
        }
    }
}

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        if !v.is_finite() || v.abs() > MAX_FIGURE {
            return Err(E::custom(format!(
                "{}: {v:e} is out of range (no figure is beyond ±{MAX_FIGURE:e})",
                self.at()
            )));
        }
        Ok(Value::from(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        if v.contains('\0') {
            return Err(E::custom(format!(
                "{}: a NUL character in a string",
                self.at()
            )));
        }
        if v.len() > MAX_IMPORTED_STRING {
            return Err(E::custom(format!(
                "{}: a string of {} bytes, longer than the {MAX_IMPORTED_STRING} a field may hold",
                self.at(),
                v.len()
            )));
        }
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.visit_str(&v)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Strict {
            path: format!("{}[{}]", self.path, out.len()),
        })? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = if self.path.is_empty() {
                key.clone()
            } else {
                format!("{}.{key}", self.path)
            };
            if key.contains('\0') {
                return Err(de::Error::custom(format!(
                    "{}: a NUL character in a key",
                    self.at()
                )));
            }
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!("{path}: the key is given twice")));
            }
            let v = map.next_value_seed(Strict { path })?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// Check that a run read from a file is one this timeshare could have written: dates a
/// calendar can hold, in order; at least one result, each id once and of the registry's
/// shape; every figure finite and, but for a derived row (a difference), not negative;
/// sample counts that agree with the samples; a summary for every result that is ok.
pub fn validate(run: &Run) -> anyhow::Result<()> {
    check_time("started_at", &run.started_at)?;
    if let Some(f) = &run.finished_at {
        check_time("finished_at", f)?;
        if *f < run.started_at {
            anyhow::bail!("finished_at: {f} is before started_at {}", run.started_at);
        }
    }
    if run.results.is_empty() {
        anyhow::bail!("results: a run with no results");
    }
    check_names(run)?;
    let mut seen = HashSet::new();
    for (i, r) in run.results.iter().enumerate() {
        let at = |field: &str| format!("results[{i}].{field}");
        if !valid_id(&r.id) {
            anyhow::bail!(
                "{}: {:?} is not a benchmark id (lowercase letters, digits, '.', '_', '-')",
                at("id"),
                crate::report::style::escape(&r.id.chars().take(60).collect::<String>())
            );
        }
        if !seen.insert(r.id.as_str()) {
            anyhow::bail!("{}: {} appears twice", at("id"), r.id);
        }
        if !r.duration_s.is_finite() || r.duration_s < 0.0 {
            anyhow::bail!("{}: {} is not a duration", at("duration_s"), r.duration_s);
        }
        for (name, s) in [("summary", &r.summary), ("raw_summary", &r.raw_summary)] {
            let Some(s) = s else { continue };
            for (field, v) in [
                ("median", s.median),
                ("mean", s.mean),
                ("sd", s.sd),
                ("min", s.min),
                ("max", s.max),
                ("ci_low", s.ci_low),
                ("ci_high", s.ci_high),
                ("ci_level", s.ci_level),
            ] {
                if !v.is_finite() {
                    anyhow::bail!(
                        "{}: {v} is not a finite number",
                        at(&format!("{name}.{field}"))
                    );
                }
                // A derived row is a difference of two others and may be below zero. A
                // figure corrected for the clock's and the loop's cost (a raw_summary beside
                // it) of an operation cheaper than the clock's jitter has single samples
                // below zero (`call.subroutine.single`): its spread may reach below zero,
                // its median may not.
                let corrected_spread = name == "summary"
                    && r.raw_summary.is_some()
                    && matches!(field, "min" | "mean" | "ci_low");
                let signed = (r.derived && !matches!(field, "sd" | "ci_level")) || corrected_spread;
                if v < 0.0 && !signed {
                    anyhow::bail!("{}: {v} is negative", at(&format!("{name}.{field}")));
                }
            }
            if s.n == 0 {
                anyhow::bail!("{}: a summary of no samples", at(&format!("{name}.n")));
            }
            check_order(s, &|field| at(&format!("{name}.{field}")))?;
        }
        for (j, s) in r.samples.iter().enumerate() {
            if !s.value.is_finite() {
                anyhow::bail!(
                    "{}: {} is not a finite number",
                    at(&format!("samples[{j}].value")),
                    s.value
                );
            }
        }
        // A result merged across processes summarises the processes (its n counts them,
        // or one process's samples when one process is left in the headline), not the
        // samples of all of them that the file holds beside it.
        if let (Some(s), false, None) = (&r.summary, r.samples.is_empty(), &r.invocations) {
            let kept = r.samples.iter().filter(|s| !s.culled).count();
            if s.n != kept && s.n != r.samples.len() {
                anyhow::bail!(
                    "{}: {} samples, but the file holds {} ({} kept)",
                    at("summary.n"),
                    s.n,
                    r.samples.len(),
                    kept
                );
            }
        }
        if matches!(r.status, Status::Ok) && r.summary.is_none() {
            anyhow::bail!("{}: missing for a result whose status is ok", at("summary"));
        }
    }
    Ok(())
}

/// A summary whose figures contradict each other: an interval upside down, a minimum
/// above the maximum, a confidence level that is no probability (0 says "no interval",
/// as a derived row's).
fn check_order(s: &crate::model::Summary, at: &dyn Fn(&str) -> String) -> anyhow::Result<()> {
    if s.ci_low > s.ci_high {
        anyhow::bail!(
            "{}: {} is above ci_high {}",
            at("ci_low"),
            s.ci_low,
            s.ci_high
        );
    }
    if s.min > s.max {
        anyhow::bail!("{}: {} is above max {}", at("min"), s.min, s.max);
    }
    if !(0.0..1.0).contains(&s.ci_level) {
        anyhow::bail!(
            "{}: {} is not a confidence level (0 to 1, 1 excluded)",
            at("ci_level"),
            s.ci_level
        );
    }
    Ok(())
}

/// The names a run carries, capped as `run` caps its options ([`crate::model::names`]).
fn check_names(run: &Run) -> anyhow::Result<()> {
    use crate::model::names;
    let long = |what: &str, v: &str, max: usize| -> anyhow::Result<()> {
        if v.len() > max {
            anyhow::bail!(
                "{what}: {} bytes, longer than the {max} a name may have",
                v.len()
            );
        }
        Ok(())
    };
    if let Some(label) = &run.options.label {
        long("options.label", label, names::MAX_LABEL)?;
    }
    long(
        "environment.hostname",
        &run.environment.hostname,
        names::MAX_NAME,
    )?;
    for (what, v) in [
        ("options.fleet.campaign", &run.options.fleet.campaign),
        ("options.fleet.host", &run.options.fleet.host),
        ("options.fleet.group", &run.options.fleet.group),
    ] {
        if let Some(v) = v {
            names::check(what, v).map_err(anyhow::Error::msg)?;
        }
    }
    Ok(())
}

fn check_time(field: &str, t: &DateTime<Utc>) -> anyhow::Result<()> {
    if !(1970..=9999).contains(&t.year()) {
        anyhow::bail!("{field}: year {} out of range (1970 to 9999)", t.year());
    }
    Ok(())
}

/// A benchmark id as the registry makes them: `family.name[.variant]`, short, plain.
fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 100
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> Value {
        serde_json::from_str(include_str!("../../tests/fixtures/run-quick.json")).unwrap()
    }

    fn refused(v: &Value) -> String {
        from_json(&serde_json::to_vec(v).unwrap())
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn the_fixture_reads_back_and_each_fault_is_named() {
        assert!(from_json(&serde_json::to_vec(&fixture()).unwrap()).is_ok());
        let mut v = fixture();
        v["started_at"] = "+99999-01-01T00:00:00Z".into();
        assert!(refused(&v).starts_with("started_at"), "{}", refused(&v));
        let mut v = fixture();
        v["schema_version"] = "1".into();
        assert!(
            refused(&v).contains("schema_version: expected a whole number"),
            "{}",
            refused(&v)
        );
        let mut v = fixture();
        v["schema_version"] = 0.into();
        assert!(refused(&v).contains("schema_version: 0 is out of range"));
        let mut v = fixture();
        v["results"][0]["summary"]["median"] = (-1.0).into();
        v["results"][0]["summary"]["min"] = (-2.0).into();
        assert!(
            refused(&v).contains("results[0].summary.median: -1 is negative"),
            "{}",
            refused(&v)
        );
        // A corrected figure's spread may reach below zero (single calls cheaper than the
        // clock's jitter), its raw figure's may not.
        let mut v = fixture();
        v["results"][0]["raw_summary"] = v["results"][0]["summary"].clone();
        v["results"][0]["summary"]["min"] = (-2e-9).into();
        v["results"][0]["summary"]["ci_low"] = (-1e-9).into();
        assert!(from_json(&serde_json::to_vec(&v).unwrap()).is_ok());
        v["results"][0]["raw_summary"]["min"] = (-2e-9).into();
        assert!(
            refused(&v).contains("results[0].raw_summary.min: -0.000000002 is negative"),
            "{}",
            refused(&v)
        );
        // The raw figure is a time, not a difference: its interval stops at zero too (as
        // an interval of three processes is written since it stops there).
        v["results"][0]["raw_summary"]["min"] = v["results"][0]["summary"]["median"].clone();
        v["results"][0]["raw_summary"]["ci_low"] = (-1e-9).into();
        assert!(
            refused(&v).contains("results[0].raw_summary.ci_low: -0.000000001 is negative"),
            "{}",
            refused(&v)
        );
        let mut v = fixture();
        v["results"][1]["id"] = v["results"][0]["id"].clone();
        assert!(refused(&v).contains("results[1].id"), "{}", refused(&v));
        let mut v = fixture();
        v["results"] = Value::Array(vec![]);
        assert!(refused(&v).contains("no results"));
        let mut v = fixture();
        v["results"][0]["summary"] = Value::Null;
        assert!(
            refused(&v).contains("results[0].summary: missing"),
            "{}",
            refused(&v)
        );
        let mut v = fixture();
        v["finished_at"] = "1969-12-31T23:59:59Z".into();
        assert!(refused(&v).contains("finished_at"), "{}", refused(&v));
        let mut v = fixture();
        v["environment"]["hostname"] = 7.into();
        assert!(
            refused(&v).contains("environment.hostname"),
            "{}",
            refused(&v)
        );
    }

    #[test]
    fn a_run_whose_clock_stepped_back_is_read_with_its_end_at_its_start_and_says_so() {
        let mut v = fixture();
        let start = v["started_at"].clone();
        v["finished_at"] = "2001-01-01T00:00:00Z".into();
        let run = from_json(&serde_json::to_vec(&v).unwrap()).expect("kept, not refused");
        assert_eq!(
            serde_json::to_value(run.finished_at).unwrap(),
            serde_json::to_value(Some(run.started_at)).unwrap()
        );
        assert_eq!(serde_json::to_value(run.started_at).unwrap(), start);
        assert!(
            run.warnings
                .iter()
                .any(|w| w.contains("wall clock stepped back")),
            "{:?}",
            run.warnings
        );
        // What is read back is written and read again unchanged: export never refuses it.
        let again = from_json(&to_json(&run).unwrap()).expect("exported run reads back");
        assert_eq!(again.finished_at, run.finished_at);
        assert!(again.finished_at >= Some(again.started_at));
    }

    #[test]
    fn duplicate_keys_and_nul_characters_are_refused_with_their_place() {
        let e = parse_strict(br#"{"a": {"b": 1, "b": 2}}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("a.b: the key is given twice"), "{e}");
        let e = parse_strict(br#"{"a": ["x", "y\u0000"]}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("a[1]: a NUL character"), "{e}");
        assert!(parse_strict(br#"{"a": [1, 2.5, null, true, "s"]}"#).is_ok());
    }
}

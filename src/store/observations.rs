//! Observations of the whole machine (`timeshare observe`), stored beside the runs in a
//! table of their own (schema version 2), named `o1`, `o2`… or `o-last`. An observation
//! stored as it goes (schema version 3) keeps its rates' lines in `observation_lines`, one
//! row per interval, and is marked `partial` until it ends.

use chrono::{DateTime, Utc};

use super::backend::{vals, Value};
use super::error::StoreError;
use super::{Imported, Store};
use crate::model::observation::rates::SeriesLine;
use crate::model::observation::SystemObservation;

/// The prefix of an observation's name: `o12`.
pub const PREFIX: &str = "o";
/// The newest observation.
pub const LAST: &str = "o-last";

/// True when `name` names an observation rather than a run (`o12`, `o-last`).
pub fn is_observation_name(name: &str) -> bool {
    name == LAST
        || name
            .strip_prefix(PREFIX)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// One stored observation, as `history` lists it.
#[derive(Debug, Clone)]
pub struct ObservationRow {
    pub id: i64,
    pub started_at: DateTime<Utc>,
    pub finished_at: DateTime<Utc>,
    pub host: String,
    pub span: String,
    pub complete: bool,
    /// Stored as it went and not ended (still going, or its observer died).
    pub partial: bool,
    pub label: Option<String>,
    pub imported_from: Option<String>,
}

impl ObservationRow {
    pub fn name(&self) -> String {
        format!("{PREFIX}{}", self.id)
    }
}

fn time(v: &Value) -> DateTime<Utc> {
    v.text()
        .and_then(|t| DateTime::parse_from_rfc3339(&t).ok())
        .map_or(DateTime::<Utc>::MIN_UTC, |t| t.with_timezone(&Utc))
}

impl Store {
    /// Whether this database has the observations table (a database written by an older
    /// timeshare and opened read-only has not).
    fn has_observations(&self) -> Result<bool, StoreError> {
        self.has_table("observations")
    }

    /// Whether this database keeps observations as they go (schema version 3).
    fn has_observation_lines(&self) -> Result<bool, StoreError> {
        self.has_table("observation_lines")
    }

    /// Whether the table `name` (one of ours, a fixed name) exists, on either backend.
    fn has_table(&self, name: &'static str) -> Result<bool, StoreError> {
        let found = if self.db.is_postgres() {
            self.db
                .query_one(&format!("SELECT to_regclass('{name}')::text"), &[])?
        } else {
            self.db.query_one(
                &format!("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '{name}'"),
                &[],
            )?
        };
        Ok(!matches!(found, Value::Null))
    }

    /// Start storing an observation as it goes: its row, marked partial, with what is
    /// known so far. Its lines follow ([`Store::add_observation_lines`]), its aggregates
    /// every minute ([`Store::update_observation`]).
    pub fn begin_observation(&mut self, o: &SystemObservation) -> Result<i64, StoreError> {
        let tx = self.db.transaction(true)?;
        let id = tx
            .query_one(
                "INSERT INTO observations (started_at, finished_at, host, span, complete, \
                 partial, label, imported_from, json) VALUES (?1, ?2, ?3, ?4, 0, 1, ?5, NULL, ?6) \
                 RETURNING id",
                vals![
                    o.started_at.to_rfc3339(),
                    o.finished_at.to_rfc3339(),
                    o.environment.hostname.as_str(),
                    o.span_text(),
                    o.label.clone(),
                    json_without_lines(o)?,
                ],
            )?
            .int()
            .ok_or_else(|| StoreError::Damaged("no id for a new observation".into()))?;
        tx.commit()?;
        Ok(id)
    }

    /// Append lines `first`, `first + 1`… of observation `id`'s rates.
    pub fn add_observation_lines(
        &mut self,
        id: i64,
        first: usize,
        lines: &[SeriesLine],
    ) -> Result<(), StoreError> {
        if lines.is_empty() {
            return Ok(());
        }
        let tx = self.db.transaction(true)?;
        for (i, line) in lines.iter().enumerate() {
            tx.exec(
                "INSERT INTO observation_lines (observation_id, seq, line) VALUES (?1, ?2, ?3)",
                vals![id, (first + i) as i64, encode_line(line)],
            )?;
        }
        tx.commit()
    }

    /// Replace what observation `id` holds besides its lines by `o`: every minute while
    /// it goes (`o.partial`), and once at its end.
    pub fn update_observation(&mut self, id: i64, o: &SystemObservation) -> Result<(), StoreError> {
        let tx = self.db.transaction(true)?;
        tx.exec(
            "UPDATE observations SET finished_at = ?1, span = ?2, complete = ?3, partial = ?4, \
             json = ?5 WHERE id = ?6",
            vals![
                o.finished_at.to_rfc3339(),
                o.span_text(),
                i64::from(o.complete),
                i64::from(o.partial),
                json_without_lines(o)?,
                id,
            ],
        )?;
        tx.commit()
    }

    /// Observation `id`'s lines stored as it went, in order.
    fn observation_lines(&self, id: i64) -> Result<Vec<SeriesLine>, StoreError> {
        if !self.has_observation_lines()? {
            return Ok(Vec::new());
        }
        let rows = self.db.query(
            "SELECT line FROM observation_lines WHERE observation_id = ?1 ORDER BY seq",
            vals![id],
        )?;
        rows.iter()
            .map(|r| decode_line(&r[0].text().unwrap_or_default()))
            .collect()
    }

    /// Store an observation made here (`imported_from` None) or read from a file. An
    /// import of one already stored (same start instant, same host) writes nothing.
    pub fn save_observation(
        &mut self,
        o: &SystemObservation,
        imported_from: Option<&str>,
    ) -> Result<Imported, StoreError> {
        let tx = self.db.transaction(true)?;
        if imported_from.is_some() {
            let same = tx
                .query_one(
                    "SELECT min(id) FROM observations WHERE started_at = ?1 AND host = ?2",
                    vals![o.started_at.to_rfc3339(), o.environment.hostname.as_str()],
                )?
                .int();
            if let Some(id) = same {
                return Ok(Imported::AlreadyStored(id));
            }
        }
        let id = tx
            .query_one(
                "INSERT INTO observations (started_at, finished_at, host, span, complete, \
                 label, imported_from, json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
                 RETURNING id",
                vals![
                    o.started_at.to_rfc3339(),
                    o.finished_at.to_rfc3339(),
                    o.environment.hostname.as_str(),
                    o.span_text(),
                    i64::from(o.complete),
                    o.label.clone(),
                    imported_from,
                    serde_json::to_string(o)?,
                ],
            )?
            .int()
            .ok_or_else(|| StoreError::Damaged("no id for a new observation".into()))?;
        tx.commit()?;
        Ok(Imported::New(id))
    }

    /// Every observation, newest first.
    pub fn observations(&self) -> Result<Vec<ObservationRow>, StoreError> {
        if !self.has_observations()? {
            return Ok(Vec::new());
        }
        let partial = if self.has_observation_lines()? {
            "partial"
        } else {
            "0"
        };
        let rows = self.db.query(
            &format!(
                "SELECT id, started_at, finished_at, host, span, complete, label, \
                 imported_from, {partial} FROM observations ORDER BY id DESC"
            ),
            &[],
        )?;
        Ok(rows
            .into_iter()
            .map(|r| ObservationRow {
                id: r[0].int().unwrap_or(0),
                started_at: time(&r[1]),
                finished_at: time(&r[2]),
                host: r[3].text().unwrap_or_default(),
                span: r[4].text().unwrap_or_default(),
                complete: r[5].int() == Some(1),
                partial: r[8].int() == Some(1),
                label: r[6].text(),
                imported_from: r[7].text(),
            })
            .collect())
    }

    /// The observation `name` names (`o12`, `o-last`), in full.
    pub fn load_observation(&self, name: &str) -> Result<(i64, SystemObservation), StoreError> {
        let unknown = || StoreError::UnknownRun(name.to_string());
        if !self.has_observations()? {
            return Err(unknown());
        }
        let id = if name == LAST {
            self.db
                .query_one("SELECT max(id) FROM observations", &[])?
                .int()
        } else {
            name.strip_prefix(PREFIX)
                .and_then(|n| n.parse::<i64>().ok())
        }
        .ok_or_else(unknown)?;
        let json = self
            .db
            .query_one("SELECT json FROM observations WHERE id = ?1", vals![id])?
            .text()
            .ok_or_else(unknown)?;
        let mut o: SystemObservation = serde_json::from_str(&json)?;
        let lines = self.observation_lines(id)?;
        if !lines.is_empty() {
            o.rates.lines = lines;
        }
        Ok((id, o))
    }
}

/// An observation stored as it goes keeps its lines in rows of their own.
fn json_without_lines(o: &SystemObservation) -> Result<String, StoreError> {
    let mut bare = o.clone();
    bare.rates.lines = Vec::new();
    Ok(serde_json::to_string(&bare)?)
}

/// A line as `[t_s, interval_s, v1, v2…]`, the values in single precision (a rate to
/// seven figures; about half the bytes of double precision, for 86,400 lines a day).
fn encode_line(line: &SeriesLine) -> String {
    let mut out = format!("[{},{}", line.t_s, line.interval_s);
    for v in &line.values {
        out.push(',');
        let v = *v as f32;
        if v.is_finite() {
            out.push_str(&v.to_string());
        } else {
            out.push_str("null");
        }
    }
    out.push(']');
    out
}

fn decode_line(text: &str) -> Result<SeriesLine, StoreError> {
    let v: Vec<Option<f64>> = serde_json::from_str(text)?;
    if v.len() < 2 {
        return Err(StoreError::Damaged(format!(
            "an observation line too short: {text}"
        )));
    }
    Ok(SeriesLine {
        t_s: v[0].unwrap_or(0.0),
        interval_s: v[1].unwrap_or(0.0),
        values: v[2..].iter().map(|x| x.unwrap_or(f64::NAN)).collect(),
    })
}

#[cfg(test)]
pub mod scenarios {
    use super::*;
    use crate::model::observation::tests::sample;

    pub fn an_observation_is_stored_listed_named_and_imported_once(mut store: Store) {
        assert!(store.observations().unwrap().is_empty());
        let o = sample();
        let Imported::New(id) = store.save_observation(&o, None).unwrap() else {
            panic!("a new observation")
        };
        let mut later = sample();
        later.started_at += chrono::Duration::seconds(60);
        later.label = Some("tmpfs".into());
        store.save_observation(&later, None).unwrap();
        let rows = store.observations().unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].name(), format!("o{id}"));
        assert_eq!(rows[0].label.as_deref(), Some("tmpfs"));
        assert_eq!(rows[1].span, "true (exit 0)");
        assert!(rows[1].complete);
        let (got_id, back) = store.load_observation(&format!("o{id}")).unwrap();
        assert_eq!((got_id, &back), (id, &o));
        assert_eq!(store.load_observation(LAST).unwrap().1, later);
        assert!(store.load_observation("o999").is_err());
        // The same observation imported again is recognised.
        assert!(matches!(
            store.save_observation(&o, Some("x.json")).unwrap(),
            Imported::AlreadyStored(i) if i == id
        ));
    }

    /// Stored as it goes: a reader between the minutes sees the lines so far and the
    /// partial mark; the end clears the mark; the lines come back in order, to single
    /// precision.
    pub fn an_observation_stored_as_it_goes_reads_back_partial_then_whole(mut store: Store) {
        let mut o = sample();
        o.partial = true;
        o.complete = false;
        let id = store.begin_observation(&o).unwrap();
        let line = |i: usize| SeriesLine {
            t_s: i as f64 + 1.0,
            interval_s: 1.0,
            values: vec![i as f64 * 1.5, 1e6 / 3.0],
        };
        let first: Vec<SeriesLine> = (0..3).map(line).collect();
        store.add_observation_lines(id, 0, &first).unwrap();
        let rows = store.observations().unwrap();
        assert!(rows[0].partial && !rows[0].complete);
        let (_, back) = store.load_observation(&format!("o{id}")).unwrap();
        assert!(back.partial);
        assert_eq!(back.rates.lines.len(), 3);
        assert_eq!(back.rates.lines[2].values[0], 3.0);
        assert!((back.rates.lines[2].values[1] - 1e6 / 3.0).abs() < 0.1);
        store
            .add_observation_lines(id, 3, &[line(3), line(4)])
            .unwrap();
        o.partial = false;
        o.complete = true;
        store.update_observation(id, &o).unwrap();
        let rows = store.observations().unwrap();
        assert!(!rows[0].partial && rows[0].complete);
        let (_, back) = store.load_observation(LAST).unwrap();
        assert!(!back.partial);
        let t: Vec<f64> = back.rates.lines.iter().map(|l| l.t_s).collect();
        assert_eq!(t, vec![1.0, 2.0, 3.0, 4.0, 5.0]);
    }

    #[test]
    fn a_line_survives_its_encoding() {
        let l = SeriesLine {
            t_s: 86_399.25,
            interval_s: 0.5,
            values: vec![0.0, 12.5, f64::NAN, 123_456.0],
        };
        let back = decode_line(&encode_line(&l)).unwrap();
        assert_eq!((back.t_s, back.interval_s), (l.t_s, l.interval_s));
        assert_eq!(back.values[..2], l.values[..2]);
        assert!(back.values[2].is_nan());
        assert_eq!(back.values[3], 123_456.0);
        assert!(decode_line("[1]").is_err());
    }

    #[test]
    fn observation_names_are_told_from_run_names() {
        assert!(is_observation_name("o12"));
        assert!(is_observation_name("o-last"));
        assert!(!is_observation_name("o"));
        assert!(!is_observation_name("12"));
        assert!(!is_observation_name("oak"));
        assert!(!is_observation_name("last"));
    }
}

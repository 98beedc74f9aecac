//! Observations of the whole machine (`timeshare observe`), stored beside the runs in a
//! table of their own (schema version 2), named `o1`, `o2`… or `o-last`.

use chrono::{DateTime, Utc};

use super::backend::{vals, Value};
use super::error::StoreError;
use super::{Imported, Store};
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
        let found = if self.db.is_postgres() {
            self.db
                .query_one("SELECT to_regclass('observations')::text", &[])?
        } else {
            self.db.query_one(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'observations'",
                &[],
            )?
        };
        Ok(!matches!(found, Value::Null))
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
        let rows = self.db.query(
            "SELECT id, started_at, finished_at, host, span, complete, label, imported_from \
             FROM observations ORDER BY id DESC",
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
        Ok((id, serde_json::from_str(&json)?))
    }
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

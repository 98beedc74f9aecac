//! The two databases the store runs on, behind one small interface: an embedded SQLite
//! file (the default, nothing to set up) and a shared PostgreSQL server (many hosts
//! writing one store at once).
//!
//! The store's queries are written once, in the SQL both understand (`?N` parameters,
//! `INSERT … RETURNING id`, `ON CONFLICT … DO UPDATE`); [`Db`] turns `?N` into
//! PostgreSQL's `$N` and hands back every row as plain [`Value`]s, so the code above it
//! never asks which database it talks to, except for the schema's bookkeeping
//! (`schema.rs`), which each database keeps in its own way.

use postgres::types::{IsNull, ToSql, Type};

use super::error::StoreError;
use super::pgconn::PgConn;

/// `PRAGMA application_id` of a timeshare database ("TSHR"), set when it is made or first
/// opened for writing, so that it can be told from another application's SQLite file; on
/// PostgreSQL the key of timeshare's advisory lock.
pub const APPLICATION_ID: i32 = 0x5453_4852;

/// One column's value, as the store reads and writes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

impl Value {
    pub fn int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            Value::Real(r) => Some(*r as i64),
            Value::Text(t) => t.parse().ok(),
            Value::Null => None,
        }
    }

    pub fn real(&self) -> Option<f64> {
        match self {
            Value::Real(r) => Some(*r),
            Value::Int(i) => Some(*i as f64),
            _ => None,
        }
    }

    pub fn text(&self) -> Option<String> {
        match self {
            Value::Text(t) => Some(t.clone()),
            _ => None,
        }
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Real(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_string())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// Parameters for [`Db::exec`] and [`Db::query`]: `vals![a, b, c]`.
macro_rules! vals {
    ($($v:expr),* $(,)?) => { &[$($crate::store::backend::Value::from($v)),*] };
}
pub(crate) use vals;

/// A connection to one of the two databases.
pub enum Db {
    Sqlite(rusqlite::Connection),
    /// The client on a thread of its own, so that a server that stops answering is an
    /// error, not a hang (see [`PgConn`]).
    Postgres(PgConn),
}

impl Db {
    pub fn is_postgres(&self) -> bool {
        matches!(self, Db::Postgres(_))
    }

    /// Run one statement; returns the number of rows it changed.
    pub fn exec(&self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        match self {
            Db::Sqlite(c) => Ok(c.execute(sql, rusqlite::params_from_iter(params.iter()))? as u64),
            Db::Postgres(c) => {
                let (sql, params) = (dollars(sql), params.to_vec());
                c.call(move |client| Ok(client.execute(sql.as_str(), &refs(&params))?))
            }
        }
    }

    /// Run one query and read every row it returns.
    pub fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, StoreError> {
        match self {
            Db::Sqlite(c) => {
                let mut stmt = c.prepare(sql)?;
                let n = stmt.column_count();
                let rows = stmt.query_map(rusqlite::params_from_iter(params.iter()), |r| {
                    (0..n).map(|i| Ok(sqlite_value(r.get_ref(i)?))).collect()
                })?;
                Ok(rows.collect::<Result<_, _>>()?)
            }
            Db::Postgres(c) => {
                let (sql, params) = (dollars(sql), params.to_vec());
                c.call(move |client| {
                    let rows = client.query(sql.as_str(), &refs(&params))?;
                    rows.iter().map(postgres_row).collect()
                })
            }
        }
    }

    /// The first row of a query, if any.
    pub fn query_row(&self, sql: &str, params: &[Value]) -> Result<Option<Vec<Value>>, StoreError> {
        Ok(self.query(sql, params)?.into_iter().next())
    }

    /// The first column of the first row (`SELECT count(*) …`), `Null` when there is none.
    pub fn query_one(&self, sql: &str, params: &[Value]) -> Result<Value, StoreError> {
        Ok(self
            .query_row(sql, params)?
            .and_then(|r| r.into_iter().next())
            .unwrap_or(Value::Null))
    }

    /// Several statements without parameters (schema changes).
    pub fn batch(&self, sql: &str) -> Result<(), StoreError> {
        match self {
            Db::Sqlite(c) => Ok(c.execute_batch(sql)?),
            Db::Postgres(c) => {
                let sql = sql.to_string();
                c.call(move |client| Ok(client.batch_execute(&sql)?))
            }
        }
    }

    /// Begin a transaction. `exclusive`: no other writer may read-then-write the same rows
    /// until it ends (SQLite `BEGIN IMMEDIATE`; on PostgreSQL, a transaction-scoped
    /// advisory lock on timeshare's key that every exclusive transaction takes). Rolled
    /// back when dropped uncommitted.
    pub fn transaction(&self, exclusive: bool) -> Result<Tx<'_>, StoreError> {
        match (self, exclusive) {
            (Db::Sqlite(_), true) => self.batch("BEGIN IMMEDIATE")?,
            (Db::Sqlite(_), false) => self.batch("BEGIN")?,
            (Db::Postgres(_), true) => {
                self.batch("BEGIN")?;
                self.query(
                    "SELECT pg_advisory_xact_lock(?1)",
                    vals![i64::from(APPLICATION_ID)],
                )?;
            }
            (Db::Postgres(_), false) => self.batch("BEGIN")?,
        }
        Ok(Tx {
            db: self,
            done: false,
        })
    }
}

/// An open transaction; `commit` ends it, dropping it rolls it back.
pub struct Tx<'a> {
    pub db: &'a Db,
    done: bool,
}

impl Tx<'_> {
    pub fn commit(mut self) -> Result<(), StoreError> {
        self.done = true;
        self.db.batch("COMMIT")
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if !self.done {
            // Best effort: the error that made us leave is the one worth reporting.
            let _ = self.db.batch("ROLLBACK");
        }
    }
}

impl std::ops::Deref for Tx<'_> {
    type Target = Db;
    fn deref(&self) -> &Db {
        self.db
    }
}

/// The parameters as the driver takes them.
fn refs(params: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

/// `?1` → `$1`: the store's SQL holds no `?` but its parameters.
fn dollars(sql: &str) -> String {
    sql.replace('?', "$")
}

fn sqlite_value(v: rusqlite::types::ValueRef<'_>) -> Value {
    use rusqlite::types::ValueRef;
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Real(r) => Value::Real(r),
        ValueRef::Text(t) | ValueRef::Blob(t) => Value::Text(String::from_utf8_lossy(t).into()),
    }
}

fn postgres_row(row: &postgres::Row) -> Result<Vec<Value>, StoreError> {
    (0..row.len())
        .map(|i| {
            let ty = row.columns()[i].type_().clone();
            Ok(match ty {
                Type::INT8 => row.try_get::<_, Option<i64>>(i)?.into(),
                Type::INT4 => row.try_get::<_, Option<i32>>(i)?.map(i64::from).into(),
                Type::INT2 => row.try_get::<_, Option<i16>>(i)?.map(i64::from).into(),
                Type::FLOAT8 => row.try_get::<_, Option<f64>>(i)?.into(),
                Type::FLOAT4 => row.try_get::<_, Option<f32>>(i)?.map(f64::from).into(),
                Type::BOOL => row.try_get::<_, Option<bool>>(i)?.map(i64::from).into(),
                Type::VOID => Value::Null,
                _ => row.try_get::<_, Option<String>>(i)?.into(),
            })
        })
        .collect()
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match self {
            Value::Null => ValueRef::Null,
            Value::Int(i) => ValueRef::Integer(*i),
            Value::Real(r) => ValueRef::Real(*r),
            Value::Text(t) => ValueRef::Text(t.as_bytes()),
        }))
    }
}

/// A value is written as the type the column has: PostgreSQL tells each parameter's type,
/// and a `NULL` fits any.
impl ToSql for Value {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut bytes::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match (self, ty) {
            (Value::Null, _) => Ok(IsNull::Yes),
            (Value::Int(i), &Type::INT4) => i32::try_from(*i)?.to_sql(ty, out),
            (Value::Int(i), &Type::INT2) => i16::try_from(*i)?.to_sql(ty, out),
            (Value::Int(i), &Type::FLOAT8) => (*i as f64).to_sql(ty, out),
            (Value::Int(i), _) => i.to_sql(ty, out),
            (Value::Real(r), &Type::FLOAT4) => (*r as f32).to_sql(ty, out),
            (Value::Real(r), _) => r.to_sql(ty, out),
            (Value::Text(t), _) => t.as_str().to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

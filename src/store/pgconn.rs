//! A PostgreSQL connection that answers in time, or says it does not.
//!
//! The driver waits on its socket for as long as the server takes. A server that accepts
//! and never answers, or answers the start-up and then stops (a stopped backend, a broken
//! proxy, a full disk on its side), would hang every command. Two deadlines stand guard:
//! the server cancels any statement that runs longer than the store's timeout
//! (`statement_timeout`: a lock another session holds, a query that never ends), and the
//! client gives up on a server that says nothing for [`ANSWER_MARGIN`] longer — the case
//! the server's own timer cannot catch, since a stopped server runs no timer.
//!
//! The client lives on a thread of its own; every statement is sent there and its answer
//! awaited with that deadline. A connection whose answer did not come in time is given up
//! for good (its thread is left waiting on the socket, and ends with the process): every
//! later statement fails at once instead of waiting again.

use std::cell::Cell;
use std::sync::mpsc;
use std::time::Duration;

use super::StoreError;

/// How long connecting (TCP, start-up, authentication) may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How much longer than the statement timeout the client waits for any answer: time for
/// the server to cancel the statement and say so.
pub const ANSWER_MARGIN: Duration = Duration::from_secs(5);

/// A job for the connection's thread: one call on the client, its answer sent back.
type Job = Box<dyn FnOnce(&mut postgres::Client) + Send>;

pub struct PgConn {
    jobs: mpsc::Sender<Job>,
    /// How long to wait for an answer to one statement.
    patience: Duration,
    /// Where the store is, as shown (password masked), for the error.
    shown: String,
    /// Set once an answer did not come in time.
    given_up: Cell<bool>,
}

impl PgConn {
    /// Connect with a deadline on the whole of it (the socket's own timeout covers only
    /// the TCP handshake, not a server that accepts and then says nothing), and make the
    /// server cancel any statement that runs past `statement_timeout`.
    pub fn connect(
        mut config: postgres::Config,
        statement_timeout: Duration,
        shown: &str,
    ) -> Result<PgConn, String> {
        config.connect_timeout(CONNECT_TIMEOUT);
        let (ready_tx, ready_rx) = mpsc::channel();
        let (jobs, job_rx) = mpsc::channel::<Job>();
        std::thread::spawn(move || {
            let mut client = match config.connect(postgres::NoTls) {
                Ok(c) => c,
                Err(e) => {
                    let _ = ready_tx.send(Err(super::chain(&e)));
                    return;
                }
            };
            if ready_tx.send(Ok(())).is_err() {
                return;
            }
            // Until the store is dropped (the sender goes), or forever on a dead server.
            for job in job_rx {
                job(&mut client);
            }
        });
        match ready_rx.recv_timeout(CONNECT_TIMEOUT + Duration::from_secs(1)) {
            Ok(Ok(())) => {}
            Ok(Err(why)) => return Err(why),
            Err(_) => {
                return Err(format!(
                    "no answer from the server within {} s (is it PostgreSQL, and up?)",
                    CONNECT_TIMEOUT.as_secs()
                ))
            }
        }
        let conn = PgConn {
            jobs,
            patience: statement_timeout + ANSWER_MARGIN,
            shown: shown.to_string(),
            given_up: Cell::new(false),
        };
        conn.call(move |c| {
            Ok(c.batch_execute(&format!(
                "SET statement_timeout = {}",
                statement_timeout.as_millis()
            ))?)
        })
        .map_err(|e| e.to_string())?;
        Ok(conn)
    }

    /// Run `f` on the client and wait for its answer, at most the statement timeout and
    /// [`ANSWER_MARGIN`].
    pub fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut postgres::Client) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let no_answer = || StoreError::NoAnswer {
            path: self.shown.clone(),
            secs: self.patience.as_secs(),
        };
        if self.given_up.get() {
            return Err(no_answer());
        }
        let (tx, rx) = mpsc::channel();
        let job: Job = Box::new(move |client| {
            let _ = tx.send(f(client));
        });
        self.jobs.send(job).map_err(|_| no_answer())?;
        match rx.recv_timeout(self.patience) {
            Ok(answer) => answer,
            Err(_) => {
                self.given_up.set(true);
                Err(no_answer())
            }
        }
    }
}

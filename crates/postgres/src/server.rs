//! The connections to a team library's server: readers (any live host) for searches, one writer
//! (the primary) for ingests, made when first needed, made again when one is lost (the server
//! restarted, a replica was promoted), and the TLS each uses.

use crate::address::{TeamAddress, TlsMode};
use crate::error::{from_pg, is_connection_lost};
use folio_index::IndexError;
use postgres::{Client, NoTls, Transaction};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a read waits for a live host, and a write for a primary (a replica is promoted in
/// about a second; a restarted server takes a few).
const READ_PATIENCE: Duration = Duration::from_secs(15);
const WRITE_PATIENCE: Duration = Duration::from_secs(30);

/// A team library's server (see the module note).
pub struct Server {
    address: TeamAddress,
    tls: Option<tokio_postgres_rustls::MakeRustlsConnect>,
    /// Idle reading connections.
    readers: Mutex<Vec<Client>>,
    /// The writing connection, while there is one.
    writer: Mutex<Option<Client>>,
}

// Each lock guards a connection slot; a panic while holding one leaves a connection that is
// whole or dropped, so a poisoned lock is taken over.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Server {
    /// Connects to the library's server once (a reader), to say at once when it cannot be reached
    /// or refuses the login.
    pub fn connect(address: TeamAddress) -> Result<Server, IndexError> {
        let tls = match address.tls_mode() {
            TlsMode::Disable => None,
            mode => Some(tokio_postgres_rustls::MakeRustlsConnect::new(crate::tls::client_config(
                mode,
                address.root_cert(),
            )?)),
        };
        let server = Server { address, tls, readers: Mutex::new(Vec::new()), writer: Mutex::new(None) };
        let first = server.open(false)?;
        lock(&server.readers).push(first);
        Ok(server)
    }

    /// The library's address (without its password).
    pub fn address(&self) -> &TeamAddress {
        &self.address
    }

    fn open(&self, writes: bool) -> Result<Client, IndexError> {
        let config = self.address.config(writes);
        let client = match &self.tls {
            Some(tls) => config.connect(tls.clone()),
            None => config.connect(NoTls),
        };
        client.map_err(|e| from_pg(e, &self.address))
    }

    /// Runs `f` on a reading connection. A connection lost on the way is made again (on any live
    /// host) and `f` run again, for up to [`READ_PATIENCE`].
    pub fn read<T>(
        &self,
        mut f: impl FnMut(&mut Client) -> Result<T, postgres::Error>,
    ) -> Result<T, IndexError> {
        let start = Instant::now();
        loop {
            let idle = lock(&self.readers).pop();
            let mut client = match idle {
                Some(c) if !c.is_closed() => c,
                _ => match self.open(false) {
                    Ok(c) => c,
                    Err(e) if start.elapsed() < READ_PATIENCE && e.is_unreachable() => {
                        std::thread::sleep(Duration::from_millis(200));
                        continue;
                    }
                    Err(e) => return Err(e),
                },
            };
            match f(&mut client) {
                Ok(v) => {
                    lock(&self.readers).push(client);
                    return Ok(v);
                }
                Err(e) if is_connection_lost(&e) && start.elapsed() < READ_PATIENCE => {
                    tracing::warn!(
                        library = self.address.shown(),
                        "a reading connection was lost; connecting again"
                    );
                    continue;
                }
                Err(e) => {
                    if !client.is_closed() {
                        lock(&self.readers).push(client);
                    }
                    return Err(from_pg(e, &self.address));
                }
            }
        }
    }

    /// Runs `f` in a transaction on the writing connection (the primary) and commits. A
    /// connection lost before the commit is made again (to the host that is primary now) and `f`
    /// run again in a new transaction, for up to [`WRITE_PATIENCE`]: the lost transaction was
    /// rolled back by the server. Writes of one process go one at a time.
    pub fn write<T>(
        &self,
        mut f: impl FnMut(&mut Transaction<'_>) -> Result<T, postgres::Error>,
    ) -> Result<T, IndexError> {
        let start = Instant::now();
        let mut slot = lock(&self.writer);
        loop {
            if slot.as_ref().is_none_or(Client::is_closed) {
                match self.open(true) {
                    Ok(c) => *slot = Some(c),
                    Err(e) if start.elapsed() < WRITE_PATIENCE && e.is_unreachable() => {
                        std::thread::sleep(Duration::from_millis(250));
                        continue;
                    }
                    Err(e) => return Err(e),
                }
            }
            let client = slot.as_mut().expect("the writer was just made");
            let result = client.transaction().and_then(|mut tx| {
                let v = f(&mut tx)?;
                tx.commit()?;
                Ok(v)
            });
            match result {
                Ok(v) => return Ok(v),
                Err(e) if is_connection_lost(&e) && start.elapsed() < WRITE_PATIENCE => {
                    tracing::warn!(
                        library = self.address.shown(),
                        "the writing connection was lost; connecting again"
                    );
                    *slot = None;
                }
                Err(e) => return Err(from_pg(e, &self.address)),
            }
        }
    }

    /// A connection of its own, outside the pool (a session that holds advisory locks for as long
    /// as it lives: an ingest's claim on the documents it writes).
    pub fn session(&self) -> Result<Client, IndexError> {
        self.open(true)
    }
}

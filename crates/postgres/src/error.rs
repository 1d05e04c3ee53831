//! What the server's errors mean for Folio: a host out of reach, a refused login, a role that may
//! only read, a database not ready (no pgvector), or another failure the server reported. Each
//! becomes an [`IndexError::Server`] that names the library by its address (without a password).

use crate::address::TeamAddress;
use folio_index::{IndexError, ServerFailure};
use postgres::error::SqlState;

/// Whether the connection was lost (the server went away, the network broke): a new connection,
/// perhaps to another host, may succeed.
pub(crate) fn is_connection_lost(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    if let Some(db) = e.as_db_error() {
        // The server is shutting down, or a standby was promoted or restarted under us.
        return matches!(
            *db.code(),
            SqlState::ADMIN_SHUTDOWN | SqlState::CRASH_SHUTDOWN | SqlState::CANNOT_CONNECT_NOW
        );
    }
    // No answer from the server at all: an I/O error underneath.
    std::error::Error::source(e).is_some_and(|s| s.downcast_ref::<std::io::Error>().is_some())
}

/// The server's error as Folio reports it.
pub(crate) fn from_pg(e: postgres::Error, address: &TeamAddress) -> IndexError {
    let library = address.shown();
    let (failure, message) = match e.as_db_error() {
        Some(db) => {
            let code = db.code();
            let failure = if *code == SqlState::INSUFFICIENT_PRIVILEGE
                || *code == SqlState::READ_ONLY_SQL_TRANSACTION
            {
                ServerFailure::ReadOnly
            } else if *code == SqlState::INVALID_PASSWORD
                || *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION
                || *code == SqlState::INVALID_CATALOG_NAME
            {
                ServerFailure::LoginRefused
            } else if *code == SqlState::UNDEFINED_FILE || *code == SqlState::FEATURE_NOT_SUPPORTED {
                ServerFailure::Unprepared
            } else if is_connection_lost(&e) {
                ServerFailure::Unreachable
            } else {
                ServerFailure::Failed
            };
            let text = match failure {
                ServerFailure::ReadOnly => {
                    format!("the team library {library} is read-only for you ({}): you can search and read it, not add or remove documents", db.message())
                }
                ServerFailure::LoginRefused => {
                    format!("the team library {library} refused the login: {}", db.message())
                }
                _ => format!("the team library {library} answered: {}", db.message()),
            };
            (failure, text)
        }
        None if is_connection_lost(&e)
            || e.to_string().contains("error connecting")
            || e.to_string().contains("TLS") =>
        {
            (
                ServerFailure::Unreachable,
                format!("the team library {library} cannot be reached: {}", with_causes(&e)),
            )
        }
        None => (ServerFailure::Failed, format!("the team library {library}: {}", with_causes(&e))),
    };
    IndexError::Server { failure, message }
}

/// The error and what caused it, down the chain ("error performing TLS handshake: invalid peer
/// certificate: UnknownIssuer"): the driver's own words stop at the first.
fn with_causes(e: &postgres::Error) -> String {
    let mut out = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        let text = c.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cause = c.source();
    }
    out
}

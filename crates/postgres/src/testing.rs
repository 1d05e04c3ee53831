//! For tests: a new database of its own on the test server, dropped when done. The server is the
//! one `scripts/postgres.sh start` runs (`scripts/test.sh` starts it), named by
//! `FOLIO_TEST_POSTGRES` (an address whose user may create databases); a test that needs it is
//! `#[ignore = "needs PostgreSQL …"]`, and without the variable it fails saying how to start one.

use crate::{Server, TeamAddress};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The variable naming the test server.
pub const TEST_SERVER_VAR: &str = "FOLIO_TEST_POSTGRES";

/// A database made for one test, dropped with it.
pub struct TestDatabase {
    admin: String,
    name: String,
    url: String,
    /// Roles made for the test, dropped with the database.
    roles: std::sync::Mutex<Vec<String>>,
}

impl TestDatabase {
    /// Makes a new, empty database with pgvector on the test server.
    pub fn create() -> TestDatabase {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let admin = std::env::var(TEST_SERVER_VAR).unwrap_or_else(|_| {
            panic!("{TEST_SERVER_VAR} is not set: start the test server with `scripts/postgres.sh start` and set {TEST_SERVER_VAR}=$(scripts/postgres.sh url) (scripts/test.sh does both)")
        });
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!("folio_t{}_{}_{nanos}", std::process::id(), COUNT.fetch_add(1, Ordering::SeqCst));
        let mut c = postgres::Client::connect(&admin, postgres::NoTls).unwrap_or_else(|e| {
            panic!("the test server {admin} cannot be reached: {e} (scripts/postgres.sh start)")
        });
        c.batch_execute(&format!("CREATE DATABASE {name}")).expect("a test database");
        let (base, _) = admin.rsplit_once('/').expect("an address with a database");
        let url = format!("{base}/{name}");
        let mut d = postgres::Client::connect(&url, postgres::NoTls).expect("the test database");
        d.batch_execute("CREATE EXTENSION IF NOT EXISTS vector").expect("pgvector");
        TestDatabase { admin, name, url, roles: std::sync::Mutex::new(Vec::new()) }
    }

    /// The database's address.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A server connection to it.
    pub fn server(&self) -> Arc<Server> {
        Arc::new(
            Server::connect(TeamAddress::parse(&self.url).expect("a test address"))
                .expect("the test database"),
        )
    }

    /// Runs SQL as the administrator, in this database (roles, grants).
    pub fn admin_sql(&self, sql: &str) {
        let mut c = postgres::Client::connect(&self.url, postgres::NoTls).expect("the test database");
        c.batch_execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

impl TestDatabase {
    /// Makes a role that logs in with `password` (the test server asks members of
    /// `folio_password_roles` for one) and may only read this database's tables; returns the
    /// database's address as that role (without the password).
    pub fn reader_role(&self, password: &str) -> String {
        let role = format!("{}_reader", self.name);
        self.admin_sql(&format!(
            "CREATE ROLE {role} LOGIN PASSWORD '{password}' IN ROLE folio_password_roles;
             GRANT CONNECT ON DATABASE {db} TO {role};
             GRANT USAGE ON SCHEMA public TO {role};
             GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role};",
            db = self.name
        ));
        self.roles.lock().unwrap_or_else(|e| e.into_inner()).push(role.clone());
        let rest = self.url.split_once('@').map_or(self.url.as_str(), |(_, r)| r);
        format!("postgres://{role}@{rest}")
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        // A database left behind costs disk on the test server only; say so, do not panic in drop.
        let dropped = postgres::Client::connect(&self.admin, postgres::NoTls).and_then(|mut c| {
            c.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name))
        });
        if let Err(e) = dropped {
            eprintln!("the test database {} was not dropped: {e}", self.name);
        }
        for role in self.roles.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            let dropped = postgres::Client::connect(&self.admin, postgres::NoTls)
                .and_then(|mut c| c.batch_execute(&format!("DROP ROLE IF EXISTS {role}")));
            if let Err(e) = dropped {
                eprintln!("the test role {role} was not dropped: {e}");
            }
        }
    }
}

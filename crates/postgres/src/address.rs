//! Where a team library is: a PostgreSQL connection string (`postgres://user@host:port/db?…`, with
//! several hosts for a primary and its replicas), the TLS it asks for, and the password, kept apart
//! from the address so that what Folio shows, saves and logs never holds it.

use folio_index::IndexError;
use std::path::PathBuf;
use std::str::FromStr;

/// How the connection is encrypted and the server checked, as libpq's `sslmode` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsMode {
    /// No TLS.
    Disable,
    /// TLS when the server offers it, without checking its certificate (libpq's default).
    Prefer,
    /// TLS always, without checking the certificate.
    Require,
    /// TLS, with a certificate signed by the trusted authority, whatever host it names.
    VerifyCa,
    /// TLS, with a certificate signed by the trusted authority for the host connected to.
    VerifyFull,
}

impl TlsMode {
    fn parse(s: &str) -> Result<TlsMode, IndexError> {
        Ok(match s {
            "disable" => TlsMode::Disable,
            "allow" | "prefer" => TlsMode::Prefer,
            "require" => TlsMode::Require,
            "verify-ca" => TlsMode::VerifyCa,
            "verify-full" => TlsMode::VerifyFull,
            other => {
                return Err(IndexError::Invalid(format!(
                    "sslmode={other}: it takes disable, prefer, require, verify-ca or verify-full"
                )))
            }
        })
    }

    /// The mode as libpq writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            TlsMode::Disable => "disable",
            TlsMode::Prefer => "prefer",
            TlsMode::Require => "require",
            TlsMode::VerifyCa => "verify-ca",
            TlsMode::VerifyFull => "verify-full",
        }
    }
}

/// A team library's address (see the module note).
#[derive(Clone)]
pub struct TeamAddress {
    /// The address without its password: what is shown, saved and logged.
    shown: String,
    config: postgres::Config,
    tls: TlsMode,
    /// The certificate authority trusted for `verify-ca` and `verify-full` (`sslrootcert`); the
    /// system's web roots when none is given.
    root_cert: Option<PathBuf>,
    /// Whether the written address held a password.
    had_password: bool,
}

impl std::fmt::Debug for TeamAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The password never reaches a log through a debug print.
        f.debug_struct("TeamAddress").field("address", &self.shown).field("tls", &self.tls).finish()
    }
}

impl TeamAddress {
    /// Whether `s` is a team library's address rather than a folder.
    pub fn is_address(s: &str) -> bool {
        s.starts_with("postgres://") || s.starts_with("postgresql://")
    }

    /// Reads an address. `sslmode` takes libpq's five modes (the driver itself knows three) and
    /// `sslrootcert` the authority's certificate file; the other parameters are the driver's
    /// (`target_session_attrs`, `connect_timeout`, `application_name`, …).
    pub fn parse(url: &str) -> Result<TeamAddress, IndexError> {
        if !Self::is_address(url) {
            return Err(IndexError::Invalid(format!(
                "{url:?} is not a PostgreSQL address (postgres://user@host:port/database)"
            )));
        }
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let mut tls = TlsMode::Prefer;
        let mut root_cert = None;
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            match key {
                "sslmode" => tls = TlsMode::parse(value)?,
                "sslrootcert" => {
                    root_cert = Some(PathBuf::from(
                        percent_encoding::percent_decode_str(value).decode_utf8_lossy().into_owned(),
                    ))
                }
                _ => kept.push(pair),
            }
        }
        let driver_url =
            if kept.is_empty() { base.to_string() } else { format!("{base}?{}", kept.join("&")) };
        let mut config = postgres::Config::from_str(&driver_url)
            .map_err(|e| IndexError::Invalid(format!("the team library's address cannot be read: {e}")))?;
        if config.get_dbname().is_none() {
            return Err(IndexError::Invalid(
                "the team library's address names no database (…/DATABASE)".into(),
            ));
        }
        if config.get_user().is_none() {
            return Err(IndexError::Invalid(
                "the team library's address names no user (postgres://USER@…)".into(),
            ));
        }
        config.ssl_mode(match tls {
            TlsMode::Disable => postgres::config::SslMode::Disable,
            TlsMode::Prefer => postgres::config::SslMode::Prefer,
            _ => postgres::config::SslMode::Require,
        });
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(std::time::Duration::from_secs(5));
        }
        let had_password = config.get_password().is_some();
        Ok(TeamAddress { shown: without_password(url), config, tls, root_cert, had_password })
    }

    /// The address as shown, saved and logged (no password).
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Whether the address as written held a password (the command line shows it to every user
    /// of the computer: the CLI refuses it).
    pub fn had_password(&self) -> bool {
        self.had_password
    }

    /// The address with the password to log in with (from the OS keychain or `PGPASSWORD`).
    pub fn with_password(mut self, password: &str) -> TeamAddress {
        self.config.password(password);
        self
    }

    /// The TLS mode asked for.
    pub fn tls_mode(&self) -> TlsMode {
        self.tls
    }

    /// The trusted authority's certificate file, if given.
    pub fn root_cert(&self) -> Option<&std::path::Path> {
        self.root_cert.as_deref()
    }

    /// The user logged in as.
    pub fn user(&self) -> &str {
        self.config.get_user().unwrap_or_default()
    }

    /// The database.
    pub fn database(&self) -> &str {
        self.config.get_dbname().unwrap_or_default()
    }

    /// A name for the library that is the same from every client that writes its address the
    /// same way: hosts, ports, database and user (the client's keyword cache is kept under it).
    pub fn key(&self) -> String {
        let hosts: Vec<String> = self
            .config
            .get_hosts()
            .iter()
            .zip(self.config.get_ports().iter().chain(std::iter::repeat(&5432)))
            .map(|(h, p)| match h {
                postgres::config::Host::Tcp(h) => format!("{h}:{p}"),
                postgres::config::Host::Unix(path) => format!("{}:{p}", path.display()),
            })
            .collect();
        format!("{}@{}/{}", self.user(), hosts.join(","), self.database())
    }

    /// The driver's configuration: for writes, only a host that takes them (the primary); for
    /// reads, any live host.
    pub(crate) fn config(&self, writes: bool) -> postgres::Config {
        let mut c = self.config.clone();
        c.target_session_attrs(if writes {
            postgres::config::TargetSessionAttrs::ReadWrite
        } else {
            postgres::config::TargetSessionAttrs::Any
        });
        c
    }
}

/// `url` with the password (between `user:` and `@`) taken out.
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, hosts)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
            format!("{scheme}://{user}@{hosts}{tail}")
        }
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_keeps_its_password_apart() {
        let a = TeamAddress::parse(
            "postgres://alice:s3cret@db.example:5433/folio?sslmode=verify-full&sslrootcert=/etc/ca%20x.pem",
        )
        .unwrap();
        assert_eq!(
            a.shown(),
            "postgres://alice@db.example:5433/folio?sslmode=verify-full&sslrootcert=/etc/ca%20x.pem"
        );
        assert!(a.had_password());
        assert_eq!(a.tls_mode(), TlsMode::VerifyFull);
        assert_eq!(a.root_cert(), Some(std::path::Path::new("/etc/ca x.pem")));
        assert!(!format!("{a:?}").contains("s3cret"));
        assert_eq!(a.key(), "alice@db.example:5433/folio");
    }

    #[test]
    fn several_hosts_and_the_drivers_parameters() {
        let a = TeamAddress::parse(
            "postgresql://bob@10.0.0.1:5432,10.0.0.2:5433/team?target_session_attrs=read-write&connect_timeout=3",
        )
        .unwrap();
        assert_eq!(a.key(), "bob@10.0.0.1:5432,10.0.0.2:5433/team");
        assert_eq!(a.tls_mode(), TlsMode::Prefer);
        assert!(!a.had_password());
        assert_eq!(a.config(false).get_connect_timeout(), Some(&std::time::Duration::from_secs(3)));
    }

    #[test]
    fn what_is_not_an_address_says_so() {
        for bad in
            ["/home/me/library", "postgres://host/db", "postgres://u@host", "postgres://u@h/db?sslmode=maybe"]
        {
            let e = TeamAddress::parse(bad).err().unwrap_or_else(|| panic!("{bad} was taken"));
            assert!(matches!(e, IndexError::Invalid(_)), "{bad}: {e}");
        }
    }
}

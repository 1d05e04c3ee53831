//! `folio`: Folio's command-line interface.

mod context;
mod eval;
mod failure;
mod library;
mod parse;
mod print;
mod search_args;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "folio",
    version,
    about = "Offline document research: structure, definitions, cross-references"
)]
struct Cli {
    /// The library: a folder (default: the user's data folder, e.g. ~/.local/share/folio/library),
    /// or a team library on PostgreSQL, `postgres://user@host:port/database` (several hosts
    /// `host1:port1,host2:port2` for a primary and its replicas; `?sslmode=verify-full&sslrootcert=ca.pem`).
    /// Its password comes from the OS keychain (`folio auth set ADDRESS`) or PGPASSWORD, never the
    /// address.
    #[arg(long, global = true)]
    library: Option<std::path::PathBuf>,
    /// Where a team library's keyword channel ranks: `cache` (BM25 on this computer, kept in step
    /// with the server; the default) or `server` (PostgreSQL's full-text search: nothing to build
    /// on this computer, weaker on questions; see the README).
    #[arg(long, global = true, default_value = "cache")]
    team_keywords: library::KeywordRanking,
    /// The embedding model: `minilm` (all-MiniLM-L6-v2, the default) or `fast` (potion-base-2M:
    /// much faster to ingest, weaker dense search). Each model keeps its own vectors.
    #[arg(long, global = true, env = "FOLIO_MODEL", default_value = "minilm")]
    model: library::Model,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Convert documents and print their outline, chunks, definitions and cross-references.
    Parse(parse::ParseArgs),
    /// API keys of the context providers, in the OS keychain: set, status, remove.
    Auth {
        #[command(subcommand)]
        action: context::AuthAction,
    },
    #[command(flatten)]
    Library(library::LibraryCommand),
}

fn main() -> ExitCode {
    folio_engine::tune_allocator();
    folio_engine::serve_converter_if_asked();
    let cli = Cli::parse();
    // The environment, read once here and passed down.
    let env = match folio_engine::Environment::from_process() {
        Ok(env) => env,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    match cli.command {
        Command::Parse(args) => parse::run(&args, &env),
        Command::Auth { action } => match context::auth(&action) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Library(cmd) => {
            let choice = library::LibraryChoice { path: cli.library, team_keywords: cli.team_keywords };
            library::run(&choice, cli.model, &env, &cmd)
        }
    }
}

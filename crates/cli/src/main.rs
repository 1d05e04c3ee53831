//! `folio`: Folio's command-line interface.

mod assets;
mod parse;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "folio",
    version,
    about = "Offline document research: structure, definitions, cross-references"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Convert documents and print their outline, chunks, definitions and cross-references.
    Parse(parse::ParseArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Parse(args) => parse::run(&args),
    }
}

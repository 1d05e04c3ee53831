//! How a command ends: its failure said on stderr and an exit code, or quietly when its reader
//! closed standard output.

use std::process::ExitCode;

/// Why a command stopped: what went wrong, or its output was closed (`folio docs | head`), which
/// ends it quietly, as a pipeline expects.
pub enum Failure {
    /// The message to show.
    Error(String),
    /// Standard output was closed by its reader.
    OutputClosed,
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Error(message)
    }
}

impl From<folio_engine::EngineError> for Failure {
    fn from(e: folio_engine::EngineError) -> Failure {
        Failure::Error(e.to_string())
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Failure::OutputClosed
        } else {
            Failure::Error(format!("the output could not be written: {e}"))
        }
    }
}

/// The exit code of a command's outcome, its error said on stderr.
pub fn exit_code(outcome: Result<(), Failure>) -> ExitCode {
    match outcome {
        Ok(()) | Err(Failure::OutputClosed) => ExitCode::SUCCESS,
        Err(Failure::Error(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::FAILURE
        }
    }
}

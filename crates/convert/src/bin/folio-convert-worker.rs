//! Folio's converter worker: converts the one file it is sent on stdin and writes the document to
//! stdout (see `folio_convert::worker`). The shells start it beside themselves for each file; it
//! links only the converters, so it starts in milliseconds.

fn main() {
    folio_convert::worker::serve_if_asked();
    eprintln!(
        "folio-convert-worker converts one file for Folio; it is started by Folio (with {} set), not by hand",
        folio_convert::worker::WORKER_ENV
    );
    std::process::exit(2);
}

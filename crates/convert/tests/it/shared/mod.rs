//! Tests on the shared test data (`../shared`, or `FOLIO_SHARED_DIR`). `scripts/test.sh` leaves this
//! module out (`--skip shared::`) when the data is absent, saying so.

mod definitions_refs;
mod filing_tables;
mod filings;
mod format_twins;
mod obliqa_chunks;
mod obliqa_outline;
mod outline_agreement;
mod passage_highlight;
mod pdf_outline;
mod scanned_pdf;
mod titles;
mod uslm_laws;
